// conv2d.cpp — oneDNN convolution (see conv2d.h). oneDNN's C++ API throws dnnl::error on every
// failed call; each entry point turns it into a scalebench::Error naming the call and the problem.
#include "kernels/onednn/conv2d.h"

#include <dnnl.hpp>
#include <omp.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "kernels/common/check.h"
#include "kernels/cpu/blas_threads.h"

namespace scalebench::onednn {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using dnnl::memory;

dnnl::engine& cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);  // thread-safe to share (oneDNN's engine contract)
  return e;
}

std::string describe(const Conv2dParams& p) {
  return fmt::format("n={} c_in={} c_out={} {}x{} k={} stride={} pad={}", p.n, p.c_in, p.c_out, p.h_in, p.w_in, p.k_h,
                     p.stride, p.pad);
}

// A user tensor (plain layout, our pointer) and, when the primitive wants another layout, the
// primitive's own buffer; in() and out() move data between them only when they differ.
struct Buffer {
  memory user, prim;
  bool separate = false;
  Buffer(const memory::desc& user_md, const memory::desc& prim_md, dnnl::engine& e)
      : user(user_md, e, DNNL_MEMORY_NONE), separate(user_md != prim_md) {
    prim = separate ? memory(prim_md, e) : user;
  }
  memory& in(dnnl::stream& s, const float* p) {
    user.set_data_handle(const_cast<float*>(p));
    if (separate) dnnl::reorder(user, prim).execute(s, user, prim);
    return prim;
  }
  memory& for_output(float* p) {
    user.set_data_handle(p);
    return prim;
  }
  void out(dnnl::stream& s) {
    if (separate) dnnl::reorder(prim, user).execute(s, prim, user);
  }
};

}  // namespace

// The primitives of one Conv2dParams (one batch size).
struct Conv2d::Impl {
  struct Prims {
    dnnl::convolution_forward fwd;
    dnnl::convolution_backward_data bwd_data;
    dnnl::convolution_backward_weights bwd_weights;
    Buffer f_src, f_wei, f_dst;       // forward
    Buffer d_dy, d_wei, d_dx;         // backward data
    Buffer w_src, w_dy, w_dw;         // backward weights
    memory bias, dbias;               // plain [c_out] in every primitive
    bool w_src_is_f_src = false;      // the weight gradient reads forward's blocked input
    bool w_dy_is_d_dy = false;        // both backward passes read one blocked dy
    const float* blocked_x = nullptr;  // the input whose blocked copy f_src holds (after forward)
  };
  bool bias = false;
  bool relu = false;
  bool winograd = false;
  dnnl::stream stream{cpu_engine()};
  std::map<std::tuple<int, int, int, int, int, int, int, int>, std::unique_ptr<Prims>> by_params;

  Prims& get(const Conv2dParams& p) {
    auto key = std::make_tuple(p.n, p.c_in, p.h_in, p.w_in, p.c_out, p.k_h, p.stride, p.pad);
    auto it = by_params.find(key);
    if (it != by_params.end()) return *it->second;
    SB_CHECK(p.k_h == p.k_w, "oneDNN conv2d: square kernels only ({})", describe(p));
    auto& e = cpu_engine();
    const memory::dims src{p.n, p.c_in, p.h_in, p.w_in}, dst{p.n, p.c_out, p.h_out(), p.w_out()},
        wei{p.c_out, p.c_in, p.k_h, p.k_w}, bia{p.c_out}, strides{p.stride, p.stride}, pad{p.pad, p.pad};
    const memory::desc u_src(src, dt::f32, tag::nchw), u_dst(dst, dt::f32, tag::nchw), u_wei(wei, dt::f32, tag::oihw),
        u_bia(bia, dt::f32, tag::x);
    // format any: oneDNN picks its fastest layout (blocked on AVX-512/AVX2); plain NCHW made it
    // choose its gemm path, slower than our im2col (docs/results-cpu.md).
    const memory::desc a_src(src, dt::f32, tag::any), a_dst(dst, dt::f32, tag::any), a_wei(wei, dt::f32, tag::any);
    dnnl::primitive_attr attr;
    if (relu) {  // the clamp applied to each output as the convolution writes it
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    // The three primitive descriptions of one algorithm; throws dnnl::error where it has no kernel.
    const auto describe_all = [&](dnnl::algorithm alg) {
      const auto fd = bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, alg, a_src, a_wei,
                                                             u_bia, a_dst, strides, pad, pad)
                           : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, alg, a_src, a_wei,
                                                             a_dst, strides, pad, pad);
      const dnnl::convolution_forward::primitive_desc fpd(fd, attr, e);
      const dnnl::convolution_backward_data::primitive_desc dpd(
          dnnl::convolution_backward_data::desc(alg, a_src, a_wei, a_dst, strides, pad, pad), e, fpd);
      const auto wd = bias ? dnnl::convolution_backward_weights::desc(alg, a_src, a_wei, u_bia, a_dst, strides, pad, pad)
                           : dnnl::convolution_backward_weights::desc(alg, a_src, a_wei, a_dst, strides, pad, pad);
      const dnnl::convolution_backward_weights::primitive_desc wpd(wd, e, fpd);
      return std::make_tuple(fpd, dpd, wpd);
    };
    std::optional<decltype(describe_all(dnnl::algorithm::convolution_direct))> pds;
    if (winograd && p.k_h == 3 && p.stride == 1) {
      try {
        pds = describe_all(dnnl::algorithm::convolution_winograd);
      } catch (const dnnl::error&) {  // no Winograd kernel for this shape or CPU: the direct one
      }
    }
    if (!pds) pds = describe_all(dnnl::algorithm::convolution_direct);
    const auto& [fpd, dpd, wpd] = *pds;
    auto s = std::unique_ptr<Prims>(new Prims{
        dnnl::convolution_forward(fpd), dnnl::convolution_backward_data(dpd),
        dnnl::convolution_backward_weights(wpd), Buffer(u_src, fpd.src_desc(), e), Buffer(u_wei, fpd.weights_desc(), e),
        Buffer(u_dst, fpd.dst_desc(), e), Buffer(u_dst, dpd.diff_dst_desc(), e), Buffer(u_wei, dpd.weights_desc(), e),
        Buffer(u_src, dpd.diff_src_desc(), e), Buffer(u_src, wpd.src_desc(), e), Buffer(u_dst, wpd.diff_dst_desc(), e),
        Buffer(u_wei, wpd.diff_weights_desc(), e), memory(u_bia, e, DNNL_MEMORY_NONE), memory(u_bia, e, DNNL_MEMORY_NONE)});
    s->w_src_is_f_src = fpd.src_desc() == wpd.src_desc();
    s->w_dy_is_d_dy = dpd.diff_dst_desc() == wpd.diff_dst_desc();
    return *by_params.emplace(key, std::move(s)).first->second;
  }
};

namespace {

// oneDNN's OpenMP team gets this thread's BLAS budget (an OpenMP thread count is per calling thread).
void use_thread_budget() {
  const int t = std::max(1, cpu::blas_threads());
  if (omp_get_max_threads() != t) omp_set_num_threads(t);
}

[[noreturn]] void rethrow(const char* what, const Conv2dParams& p, const dnnl::error& e) {
  fail_at(__FILE__, __LINE__, fmt::format("oneDNN conv2d {} ({}): {} (status {})", what, describe(p), e.what(),
                                          int(e.status)));
}

}  // namespace

bool available() { return true; }

std::string version() {
  const dnnl_version_t* v = dnnl_version();
  return v ? fmt::format("{}.{}.{}", v->major, v->minor, v->patch) : std::string("unknown");
}

Conv2d::Conv2d(bool bias, bool relu, bool winograd) : impl_(std::make_unique<Impl>()) {
  impl_->bias = bias;
  impl_->relu = relu;
  impl_->winograd = winograd;
}
Conv2d::~Conv2d() = default;

void Conv2d::forward(const Conv2dParams& p, const float* x, const float* w, const float* bias, float* y) {
  SB_CHECK((bias != nullptr) == impl_->bias, "oneDNN conv2d: bias {} but the layer was built {}", bias ? "given" : "null",
           impl_->bias ? "with one" : "without");
  try {
    use_thread_budget();
    auto& s = impl_->get(p);
    auto& st = impl_->stream;
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, s.f_src.in(st, x)},
                                         {DNNL_ARG_WEIGHTS, s.f_wei.in(st, w)},
                                         {DNNL_ARG_DST, s.f_dst.for_output(y)}};
    if (bias) {
      s.bias.set_data_handle(const_cast<float*>(bias));
      args.emplace(DNNL_ARG_BIAS, s.bias);
    }
    s.fwd.execute(st, args);
    s.f_dst.out(st);
    st.wait();
    s.blocked_x = x;
  } catch (const dnnl::error& e) {
    rethrow("forward", p, e);
  }
}

void Conv2d::backward(const Conv2dParams& p, const float* x, const float* w, const float* dy, float* dw, float* db,
                      float* dx) {
  SB_CHECK((db != nullptr) == impl_->bias, "oneDNN conv2d: bias gradient {} but the layer was built {}",
           db ? "given" : "null", impl_->bias ? "with a bias" : "without");
  try {
    use_thread_budget();
    auto& s = impl_->get(p);
    auto& st = impl_->stream;
    // The input's blocked copy from forward() serves when it is of this very tensor (training:
    // forward, then backward of the same batch); anything else is reordered again.
    memory& src = s.w_src_is_f_src && s.f_src.separate && s.blocked_x == x ? s.f_src.prim : s.w_src.in(st, x);
    memory& wdy = s.w_dy.in(st, dy);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, wdy}, {DNNL_ARG_DIFF_WEIGHTS, s.w_dw.for_output(dw)}};
    if (db) {
      s.dbias.set_data_handle(db);
      args.emplace(DNNL_ARG_DIFF_BIAS, s.dbias);
    }
    s.bwd_weights.execute(st, args);
    s.w_dw.out(st);
    if (dx) {
      memory& ddy = s.w_dy_is_d_dy ? wdy : s.d_dy.in(st, dy);
      s.bwd_data.execute(st, {{DNNL_ARG_DIFF_DST, ddy},
                              {DNNL_ARG_WEIGHTS, s.d_wei.in(st, w)},
                              {DNNL_ARG_DIFF_SRC, s.d_dx.for_output(dx)}});
      s.d_dx.out(st);
    }
    st.wait();
  } catch (const dnnl::error& e) {
    rethrow("backward", p, e);
  }
}

}  // namespace scalebench::onednn
