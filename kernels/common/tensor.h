// tensor.h — shape, dtype, device, layout and storage of a dense tensor.
// A Tensor either owns its storage (shared, reference counted) or is a view into memory owned
// elsewhere (a parameter arena, a batch buffer). It does no arithmetic and never moves data between
// devices implicitly; kernels take raw pointers plus explicit shapes. Only CPU storage is allocated
// here; CUDA allocation lives with the CUDA backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/check.h"
#include "kernels/common/enum_names.h"

namespace scalebench {

enum class DType : std::uint8_t { f32, bf16, f16 };
enum class Layout : std::uint8_t { NCHW, NHWC };
template <>
struct EnumNames<Layout> {
  static constexpr std::array<EnumEntry<Layout>, 2> entries{{{Layout::NCHW, "NCHW"}, {Layout::NHWC, "NHWC"}}};
};

struct Device {
  enum class Kind : std::uint8_t { cpu, cuda };
  Kind kind = Kind::cpu;
  int index = 0;
  static Device cpu() { return {}; }
  static Device cuda(int k) { return {Kind::cuda, k}; }
  bool is_cpu() const { return kind == Kind::cpu; }
  bool operator==(const Device&) const = default;
};

using Shape = std::vector<std::int64_t>;

std::int64_t numel(const Shape& s);
std::string to_string(const Shape& s);
std::size_t dtype_size(DType t);
const char* to_string(DType t);

class Tensor {
 public:
  Tensor() = default;

  // Owning CPU tensor, zero-filled.
  static Tensor zeros(Shape shape, DType dtype = DType::f32, Layout layout = Layout::NCHW);
  // Owning tensor over storage a backend allocated (CUDA device memory with its deleter), of
  // `capacity` bytes on `device`. resize() may shrink or regrow it up to capacity, never beyond.
  static Tensor adopt(std::shared_ptr<std::byte[]> storage, std::size_t capacity, Shape shape, DType dtype,
                      Device device, Layout layout = Layout::NCHW);
  // Non-owning view of `data` (which must outlive the view).
  static Tensor view(void* data, Shape shape, DType dtype = DType::f32, Device device = Device::cpu(),
                     Layout layout = Layout::NCHW);

  const Shape& shape() const { return shape_; }
  std::int64_t dim(int i) const { return shape_.at(static_cast<std::size_t>(i)); }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t numel() const { return scalebench::numel(shape_); }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype_); }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  Layout layout() const { return layout_; }
  bool defined() const { return ptr_ != nullptr; }

  void* raw() const { return ptr_; }
  float* f32() const {
    SB_CHECK(dtype_ == DType::f32, "tensor is {}, not f32", to_string(dtype_));
    return static_cast<float*>(ptr_);
  }

  // Same storage, new shape with the same element count.
  Tensor reshaped(Shape shape) const;
  // Resize an owning CPU tensor: reallocates only when the element count grows. Contents undefined.
  // A device tensor (adopt) resizes within its capacity only.
  void resize(Shape shape);
  void fill(float v);  // CPU f32 only

 private:
  std::size_t nbytes_for(const Shape& shape) const;

  Shape shape_;
  DType dtype_ = DType::f32;
  Device device_{};
  Layout layout_ = Layout::NCHW;
  std::shared_ptr<std::byte[]> storage_;
  std::size_t capacity_ = 0;  // bytes owned by storage_
  void* ptr_ = nullptr;
};

}  // namespace scalebench
