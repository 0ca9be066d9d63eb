// blas_vendor.h — what differs between BLAS libraries beyond CBLAS: setting and reading the number of
// threads, the library's own description, and (OpenBLAS only) its kernel set. The build detects which
// vendor API the linked library offers (CMakeLists.txt: OpenBLAS, MKL, FlexiBLAS, else generic) and
// defines SCALEBENCH_BLAS_API_<NAME>; this is the one place that calls a vendor's extension.
// With the generic API (a BLAS with none of those calls, e.g. netlib or a LibSci without them) the
// thread count is only recorded, not enforced: the library uses its own default (OMP_NUM_THREADS),
// and blas_api_name() says so in every run file's context.
// Not here: the thread budget rule (blas_threads.h) or the OpenBLAS kernel choice (blas_core.h).
#pragma once

#include <string>

namespace scalebench::cpu {

// "openblas", "mkl", "flexiblas" or "generic": the API this build calls.
const char* blas_api_name();
// The library as a run file names whose threads the budget sets ("OpenBLAS", "MKL", "FlexiBLAS"), or
// "" for the generic API, whose library keeps its own thread count.
const char* blas_thread_owner();
// Sets the library's thread count (generic: remembers it for blas_vendor_threads()).
void blas_vendor_set_threads(int threads);
int blas_vendor_threads();
// The library's description: OpenBLAS's build configuration, MKL's version string, FlexiBLAS's
// backend, or "generic CBLAS (no vendor API: thread count not controlled)".
std::string blas_vendor_description();
// OpenBLAS's kernel set ("Haswell"), or "" for other libraries (no such notion).
std::string blas_vendor_corename();

}  // namespace scalebench::cpu
