#!/usr/bin/env bash
# run.sh — the sanitizer job (docs/testing.md, "Sanitizers"): configure a CPU-only build with
# AddressSanitizer + UndefinedBehaviorSanitizer in BUILD (default build-sanitize), build it, and run
# the ctest labels unit and mpi under it. Any report fails its test: UBSan does not recover, ASan
# stops at the first error, LeakSanitizer checks every process at exit with the suppressions beside
# this script (leaks inside Open MPI, HDF5 and OpenBLAS — never ours).
# Called by `make test-sanitize` and .ci/run. Prints the wall time of each stage.
#   tools/sanitize/run.sh [BUILD [all|build]]   env: JOBS (default nproc), SB_SANITIZE_CTEST_ARGS (extra ctest args)
# `build` configures and builds only: .ci/run builds BUILD at the lowest priority while `make test`
# runs, then `make test-sanitize` finds it built and goes straight to the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(pwd)
build=${1:-build-sanitize}
stage=${2:-all}
case "$stage" in all|build) ;; *) echo "run.sh: stage '$stage' is not all or build" >&2; exit 2 ;; esac
jobs=${JOBS:-$(nproc)}
t0=$(date +%s)

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCALEBENCH_CUDA=OFF \
  -DSCALEBENCH_SANITIZE=address,undefined -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON \
  -DSB_FUZZ_ITERATIONS=10000 > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$jobs"
t1=$(date +%s)
echo "sanitize: build $((t1 - t0)) s"
[ "$stage" = build ] && exit 0

# detect_leaks: on (the default on x86-64 Linux), with suppressions for the libraries' own leaks.
# A report makes the process exit non-zero, which fails its test.
# detect_odr_violation=0: OpenBLAS and libgfortran export duplicate globals (not ours).
# allocator_may_return_null=1: a damaged HDF5 file makes libhdf5 ask malloc for 2^64 bytes; glibc
# returns NULL and HDF5 reports an error, as it should, where ASan would stop the process instead.
export ASAN_OPTIONS="detect_leaks=1:detect_odr_violation=0:check_initialization_order=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$src/tools/sanitize/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$src/tools/sanitize/ubsan.supp"
# Open MPI's memory hooks (the patcher) intercept the allocator ASan replaced; it does not need them
# on shared memory and TCP.
export OMPI_MCA_memory=^patcher
# Open MPI and PMIx unload their components at MPI_Finalize; their leaks would then have no module
# name to match the suppressions (LeakSanitizer prints "<unknown module>"). keep_loaded.c makes
# dlclose a no-op in the tests' processes; preloaded, it comes before the ASan runtime in the
# library list, which ASan accepts with verify_asan_link_order=0.
babs=$(cd "$build" && pwd)
cc -shared -fPIC -O2 -o "$babs/libkeep_loaded.so" "$src/tools/sanitize/keep_loaded.c"
export LD_PRELOAD="$babs/libkeep_loaded.so"
export ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0"

cd "$build"
# The strategy cases run at 2 and 3 ranks here (1 and 4 in `make test`): 2 and 3 reach every code
# path of the exchange (3: uneven buckets and a hierarchical node of one rank), and the 12 left out
# would add about 3 minutes to CI.
# shellcheck disable=SC2086
ctest -L 'unit|mpi' -E '^strategy\.(equivalence|accumulate|sync_bn)\..*\.np[14]$' \
  --output-on-failure -j "$jobs" --timeout 1200 ${SB_SANITIZE_CTEST_ARGS:-}
t2=$(date +%s)
echo "sanitize: tests $((t2 - t1)) s, total $((t2 - t0)) s"
