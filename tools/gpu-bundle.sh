#!/usr/bin/env bash
# gpu-bundle.sh — pack programs built here (CUDA ON) for the lent GPU machine, which has the CUDA
# driver, nvcc, cuBLAS and (as Python wheels) cuDNN and NCCL, but none of our Debian libraries and no
# package registry. Copies the named executables and every shared library they load that is neither
# part of CUDA (found there: see tools/gpu-env.sh) nor glibc, into one folder, then compresses it.
#
#   tools/gpu-bundle.sh [--mpi] BUILD_DIR OUT_DIR PROGRAM...    e.g. tools/gpu-bundle.sh build .gpu tests/sb_test_gpu_kernels
#
# --mpi: also Open MPI's runtime (the lent machine has none): mpirun (orterun), orted, the MCA and
# PMIx plugins and their help texts, under OUT_DIR's ompi.tar.xz at their paths relative to /, and the
# libraries they load into lib/. gpu-env.sh runs them from /tmp/sb/ompi, relocated (OPAL_PREFIX, the
# PMIx plugin path): nothing is written outside /tmp there. Debian 12's Open MPI 4.1 layout.
#
# Writes OUT_DIR/bundle.tar.xz (bin/ and lib/ inside), OUT_DIR/env.sh, and OUT_DIR/ctest.tar.xz: the
# build's ctest files and where they expect the source, the build and each program, so that
# tools/gpu-label.sh can run `ctest -L gpu` there exactly as here. Carry OUT_DIR (listed in
# .git/info/exclude) with the device tool; see docs/gpu.md. The carry limit is 64 MiB: OpenBLAS alone
# is 36 MB uncompressed, ~9 MB compressed; oneDNN (libdnnl, for the CPU convolutions) 40 MB, ~7 MB. Not here: Open MPI's runtime plugins (mpirun there is not
# supported without --mpi; single-process and NCCL-over-file-bootstrap runs are).
set -euo pipefail
mpi=0
[[ ${1:-} == --mpi ]] && { mpi=1; shift; }
[[ $# -ge 3 ]] || { echo "usage: $0 [--mpi] BUILD_DIR OUT_DIR PROGRAM..." >&2; exit 2; }
build=$1 out=$2
shift 2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$out"
# CUDA's own libraries come from the GPU machine (driver-matched); glibc's from its system.
skip='^(libcuda|libcudart|libcublas|libcublasLt|libcudnn|libnccl|libnvrtc|libnvJitLink|libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux-x86-64|linux-vdso)\.so'
add_libs() {  # the shared libraries an executable or plugin loads, but CUDA's and glibc's
  while read -r name _ path _; do
    [[ $path == /* ]] || continue
    [[ $name =~ $skip ]] && continue
    [[ -e $stage/lib/$name ]] || cp -L "$path" "$stage/lib/$name"
  done < <(ldd "$1")
}
for prog in "$@"; do
  p=$build/$prog
  [[ -x $p ]] || { echo "gpu-bundle: $p is not an executable (build it first)" >&2; exit 1; }
  cp "$p" "$stage/bin/"
  add_libs "$p"
done
rm -f "$out/ompi.tar.xz"
if [[ $mpi == 1 ]]; then
  ompi=(usr/bin/orterun usr/bin/orted usr/lib/x86_64-linux-gnu/openmpi/lib usr/lib/x86_64-linux-gnu/pmix2/lib
        usr/lib/x86_64-linux-gnu/pmix2/share usr/share/openmpi etc/openmpi)
  for f in "${ompi[@]}"; do
    [[ -e /$f ]] || { echo "gpu-bundle: --mpi: /$f is missing (Debian 12's openmpi-bin and libpmix2 expected)" >&2; exit 1; }
  done
  mkdir -p "$stage/ompi"
  tar -C / --exclude='*.a' -cf - "${ompi[@]}" | tar -C "$stage/ompi" -xf -
  ln -s orterun "$stage/ompi/usr/bin/mpirun"
  while read -r so; do add_libs "$so"; done < <(find "$stage/ompi" -name '*.so*' -type f; echo "$stage/ompi/usr/bin/orterun")
  # The MPI library itself is the programs' (libmpi.so.40, copied above when a program links it).
  tar -C "$stage" -cJf "$out/ompi.tar.xz" ompi
fi
tar -C "$stage" -cJf "$out/bundle.tar.xz" bin lib
# ctest's files name absolute paths (the source tree, the build tree, each test program): record them.
out_abs=$(cd "$out" && pwd)
src_abs=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
{ echo "src=$src_abs"; echo "build=$(cd "$build" && pwd)"; printf "programs='%s'\n" "$*"; } >"$out/paths"
(cd "$build" && find . -name CTestTestfile.cmake -o -name '*_tests.cmake' -o -name '*_include.cmake' | tar -cJf "$out_abs/ctest.tar.xz" -T -)
cp "$(dirname "$0")/gpu-env.sh" "$out/env.sh"
echo "gpu-bundle: $(ls "$stage/bin" | wc -l) programs, $(ls "$stage/lib" | wc -l) libraries -> $out/bundle.tar.xz ($(du -h "$out/bundle.tar.xz" | cut -f1))"
[[ $mpi == 0 ]] || echo "gpu-bundle: Open MPI's runtime -> $out/ompi.tar.xz ($(du -h "$out/ompi.tar.xz" | cut -f1))"
