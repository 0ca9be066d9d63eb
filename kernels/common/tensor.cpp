// tensor.cpp — CPU storage and shape helpers for Tensor.
#include "kernels/common/tensor.h"

#include <algorithm>
#include <cstring>

namespace scalebench {

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::string to_string(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 2; }

const char* to_string(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
  }
  return "?";
}

Tensor Tensor::zeros(Shape shape, DType dtype, Layout layout) {
  Tensor t;
  t.dtype_ = dtype;
  t.layout_ = layout;
  t.resize(std::move(shape));
  if (t.capacity_) std::memset(t.ptr_, 0, t.capacity_);
  return t;
}

Tensor Tensor::adopt(std::shared_ptr<std::byte[]> storage, std::size_t capacity, Shape shape, DType dtype,
                     Device device, Layout layout) {
  Tensor t;
  t.dtype_ = dtype;
  t.device_ = device;
  t.layout_ = layout;
  t.storage_ = std::move(storage);
  t.capacity_ = capacity;
  t.ptr_ = t.storage_.get();
  SB_CHECK(t.nbytes_for(shape) <= capacity, "adopt: {} {} needs more than {} bytes", to_string(shape),
           to_string(dtype), capacity);
  t.shape_ = std::move(shape);
  return t;
}

std::size_t Tensor::nbytes_for(const Shape& shape) const {
  return static_cast<std::size_t>(scalebench::numel(shape)) * dtype_size(dtype_);
}

Tensor Tensor::view(void* data, Shape shape, DType dtype, Device device, Layout layout) {
  Tensor t;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  t.device_ = device;
  t.layout_ = layout;
  t.ptr_ = data;
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  SB_CHECK(scalebench::numel(shape) == numel(), "reshape {} -> {} changes the element count",
           to_string(shape_), to_string(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

void Tensor::resize(Shape shape) {
  for (auto d : shape) SB_CHECK(d >= 0, "negative dimension in {}", to_string(shape));
  const std::size_t need = nbytes_for(shape);
  if (!device_.is_cpu()) {
    SB_CHECK(storage_ && need <= capacity_, "resize of a device tensor from {} to {} beyond its allocation",
             to_string(shape_), to_string(shape));
  } else if (ptr_ != nullptr && !storage_) {
    SB_CHECK(need <= nbytes(), "cannot grow a view from {} to {}", to_string(shape_), to_string(shape));
  } else if (need > capacity_) {
    // 64-byte alignment keeps BLAS and vectorised loops on their fast paths.
    storage_ = std::shared_ptr<std::byte[]>(new (std::align_val_t{64}) std::byte[need],
                                            [](std::byte* p) { ::operator delete[](p, std::align_val_t{64}); });
    capacity_ = need;
    ptr_ = storage_.get();
  }
  shape_ = std::move(shape);
}

void Tensor::fill(float v) {
  SB_CHECK(device_.is_cpu(), "fill of a non-CPU tensor");
  std::fill_n(f32(), numel(), v);
}

}  // namespace scalebench
