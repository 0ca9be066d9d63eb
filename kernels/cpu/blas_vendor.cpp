// blas_vendor.cpp — the vendor extension calls (see blas_vendor.h). Each vendor's functions are
// declared here with the C signatures of its own header (cblas.h / mkl_service.h / flexiblas_api.h),
// so this file needs none of those headers: the symbols were found at configure time.
#include "kernels/cpu/blas_vendor.h"

#include <fmt/format.h>

#if defined(SCALEBENCH_BLAS_API_OPENBLAS)
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char* openblas_get_config(void);
char* openblas_get_corename(void);
}
#elif defined(SCALEBENCH_BLAS_API_MKL)
extern "C" {
void MKL_Set_Num_Threads(int nth);
int MKL_Get_Max_Threads(void);
void MKL_Get_Version_String(char* buffer, int len);
}
#elif defined(SCALEBENCH_BLAS_API_FLEXIBLAS)
#include <cstddef>
extern "C" {
void flexiblas_set_num_threads(int num);
int flexiblas_get_num_threads(void);
int flexiblas_current_backend(char* name, std::size_t len);
}
#endif

namespace scalebench::cpu {

#if defined(SCALEBENCH_BLAS_API_OPENBLAS)
const char* blas_api_name() { return "openblas"; }
const char* blas_thread_owner() { return "OpenBLAS"; }
void blas_vendor_set_threads(int threads) { openblas_set_num_threads(threads); }
int blas_vendor_threads() { return openblas_get_num_threads(); }
std::string blas_vendor_description() {
  const char* c = openblas_get_config();
  return c ? std::string(c) : std::string("OpenBLAS");
}
std::string blas_vendor_corename() {
  const char* n = openblas_get_corename();
  return n ? std::string(n) : std::string("unknown");
}
#elif defined(SCALEBENCH_BLAS_API_MKL)
const char* blas_api_name() { return "mkl"; }
const char* blas_thread_owner() { return "MKL"; }
void blas_vendor_set_threads(int threads) { MKL_Set_Num_Threads(threads); }
int blas_vendor_threads() { return MKL_Get_Max_Threads(); }
std::string blas_vendor_description() {
  char buf[256] = {};
  MKL_Get_Version_String(buf, int(sizeof buf) - 1);
  return buf;
}
std::string blas_vendor_corename() { return ""; }
#elif defined(SCALEBENCH_BLAS_API_FLEXIBLAS)
const char* blas_api_name() { return "flexiblas"; }
const char* blas_thread_owner() { return "FlexiBLAS"; }
void blas_vendor_set_threads(int threads) { flexiblas_set_num_threads(threads); }
int blas_vendor_threads() { return flexiblas_get_num_threads(); }
std::string blas_vendor_description() {
  char buf[256] = {};
  flexiblas_current_backend(buf, sizeof buf - 1);
  return fmt::format("FlexiBLAS, backend {}", buf[0] ? buf : "unknown");
}
std::string blas_vendor_corename() { return ""; }
#else
namespace {
int g_threads = 1;  // what was asked for; a generic CBLAS has no call to apply it
}  // namespace
const char* blas_api_name() { return "generic"; }
const char* blas_thread_owner() { return ""; }
void blas_vendor_set_threads(int threads) { g_threads = threads; }
int blas_vendor_threads() { return g_threads; }
std::string blas_vendor_description() { return "generic CBLAS (no vendor API: thread count not controlled)"; }
std::string blas_vendor_corename() { return ""; }
#endif

}  // namespace scalebench::cpu
