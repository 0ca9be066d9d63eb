#!/usr/bin/env bash
# install-deps.sh — installs the Debian packages scalebench needs, only those missing, and ReFrame
# (reframe-hpc, pinned, with pip for the python3 first on PATH); idempotent
# (a second run installs nothing and takes about a second). Called by `make demo` and `make test`.
# Needs root or sudo for apt-get. The CUDA toolkit, cuDNN and NCCL are not Debian packages here:
# the build uses them when /usr/local/cuda (or nvcc on PATH) is present and skips them otherwise.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libopenblas-dev libdnnl-dev libhdf5-dev hdf5-tools libfmt-dev libcli11-dev libtomlplusplus-dev
  nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev
  slurm-wlm slurm-wlm-basic-plugins munge   # the ctest label slurm starts a one-node Slurm on this host
  iproute2                                   # ip and tc: the ctest label cluster (tools/cluster) builds an emulated cluster
  python3 python3-h5py python3-numpy python3-matplotlib python3-pandas
  python3-pip                                # pip for Debian's python3, in case it is the first on PATH
)
# ReFrame (docs/reframe.md; the ctest label reframe), from PyPI for the python3 first on PATH, pinned.
REFRAME_VERSION=4.10.4

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# pip install reframe-hpc==REFRAME_VERSION for the python3 first on PATH, unless it has that version.
# An "externally managed" interpreter (Debian's, PEP 668) refuses a plain pip install; there the
# package goes in with --break-system-packages (it adds the reframe command and its dependencies).
install_reframe() {
  if python3 -c "import reframe, sys; sys.exit(reframe.VERSION != '$REFRAME_VERSION')" 2>/dev/null; then return 0; fi
  echo "install-deps: pip install reframe-hpc==$REFRAME_VERSION for $(command -v python3)"
  local out
  if ! out=$(python3 -m pip install --quiet "reframe-hpc==$REFRAME_VERSION" 2>&1); then
    if grep -q externally-managed <<<"$out"; then
      python3 -m pip install --quiet --break-system-packages "reframe-hpc==$REFRAME_VERSION"
    else
      echo "$out" >&2
      return 1
    fi
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_reframe
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_reframe
echo "install-deps: done"
