#!/usr/bin/env bash
# gpu-label.sh — on the lent GPU machine, from the repository root, after carrying .gpu (made here by
# tools/gpu-bundle.sh with the gpu test programs and scalebench): rebuilds the build tree's ctest
# files at the absolute paths they name, links the bundle's programs into it, and runs `ctest -L gpu`
# — the same tests, arguments and labels as here. Extra arguments go to ctest (e.g. -R resume).
# Not here: building anything (the machine has none of our Debian libraries) or mpirun tests.
set -uo pipefail
gpu=$(cd "$(dirname "$0")/../.gpu" && pwd)
source "$gpu/env.sh" || exit 1
source "$gpu/paths"   # src=, build=, programs=
# The scripts the tests call live in the source tree: make its recorded path lead here.
if [[ $(pwd -P) != "$src" ]]; then
  [[ -e $src ]] && { echo "gpu-label: $src exists and is not this checkout" >&2; exit 1; }
  mkdir -p "$(dirname "$src")" && ln -s "$(pwd -P)" "$src"
fi
mkdir -p "$build" && tar -C "$build" -xJf "$gpu/ctest.tar.xz"
for p in $programs; do
  mkdir -p "$build/$(dirname "$p")" && ln -sfn "/tmp/sb/bin/$(basename "$p")" "$build/$p"
done
# The script tests read HDF5 through /usr/bin/python3; where that one lacks h5py, lend it python3's.
[[ -x /usr/bin/python3 ]] || ln -s "$(command -v python3)" /usr/bin/python3
if ! /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null; then
  export PYTHONPATH=$(python3 -c 'import h5py, os; print(os.path.dirname(os.path.dirname(h5py.__file__)))')
  /usr/bin/python3 -c 'import h5py, numpy' || echo "gpu-label: /usr/bin/python3 cannot import h5py; the script tests will fail" >&2
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
ctest --test-dir "$build" -L gpu --output-on-failure --timeout 600 "$@"
