#!/usr/bin/env bash
# gpu-env.sh — source on the GPU machine after carrying a bundle (tools/gpu-bundle.sh): unpacks it to
# /tmp/sb and puts on LD_LIBRARY_PATH the bundle's libraries and CUDA's from that machine: cuDNN,
# NCCL, cuBLAS and the runtime from python3's nvidia-* wheels (the PyTorch install carries them),
# then the toolkit's lib64; with Open MPI's runtime in the bundle (--mpi), mpirun from it. Prints what
# it found, so a log shows which cuDNN/NCCL a run used.
#   source .gpu/env.sh && /tmp/sb/bin/sb_test_gpu_kernels
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p /tmp/sb && tar -C /tmp/sb -xJf "$here/bundle.tar.xz"
site=$(python3 -c 'import nvidia, os; print(os.path.dirname(list(nvidia.__path__)[0]))' 2>/dev/null || true)
libs=/tmp/sb/lib
if [[ -n $site ]]; then
  for d in "$site"/nvidia/*/lib "$site"/nvidia/cu13/lib; do
    [[ -d $d ]] && libs=$libs:$d
  done
fi
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [[ -d $d ]] && libs=$libs:$d; done
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/tmp/sb/bin:$PATH
# Open MPI's runtime (gpu-bundle.sh --mpi), relocated to /tmp/sb/ompi: OPAL_PREFIX moves every
# Open MPI folder, the component path PMIx's plugins. Root there, as here: the tests' mpirun runs.
if [[ -e $here/ompi.tar.xz ]]; then
  tar -C /tmp/sb -xJf "$here/ompi.tar.xz"
  export OPAL_PREFIX=/tmp/sb/ompi/usr PATH=/tmp/sb/ompi/usr/bin:$PATH
  export PMIX_MCA_mca_base_component_path=/tmp/sb/ompi/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  echo "gpu-env: $(mpirun --version 2>&1 | head -1) from the bundle"
fi
for l in libcudnn.so.9 libnccl.so.2 libcublas.so.13 libcudart.so.13; do
  f=$(IFS=:; for d in $LD_LIBRARY_PATH; do [[ -e $d/$l ]] && { echo "$d/$l"; break; }; done)
  echo "gpu-env: $l -> ${f:-NOT FOUND}"
done
