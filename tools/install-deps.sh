#!/usr/bin/env bash
# install-deps.sh — installs the Debian packages scalebench needs, only those missing; idempotent
# (a second run installs nothing and takes about a second). Called by `make demo` and `make test`.
# Needs root or sudo for apt-get. The CUDA toolkit, cuDNN and NCCL are not Debian packages here:
# the build uses them when /usr/local/cuda (or nvcc on PATH) is present and skips them otherwise.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libopenblas-dev libdnnl-dev libhdf5-dev hdf5-tools libfmt-dev libcli11-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev
  slurm-wlm slurm-wlm-basic-plugins munge   # the ctest label slurm starts a one-node Slurm on this host
  iproute2                                   # ip and tc: the ctest label cluster (tools/cluster) builds an emulated cluster
  python3 python3-h5py python3-numpy python3-matplotlib python3-pandas
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
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
echo "install-deps: done"
