# package.py — a Spack recipe for scalebench (docs/install.md). It states the dependencies and the
# CMake arguments of CMakeLists.txt in Spack's form, and builds a local checkout: it names no URL
# and no repository to fetch (there is no public one to name), so use it with `spack develop
# --path <checkout> scalebench@=main` in an environment (docs/install.md, "With Spack"); a plain
# `spack install scalebench` has nothing to fetch and fails. It is NOT tested against a live Spack
# by this repository's tests (no Spack here); report what your Spack version needs changed.
# Not here: Slurm profiles or site module names (slurm/profiles/).
from spack.package import *


class Scalebench(CMakePackage, CudaPackage):
    """HPC scaling-study benchmark suite: hand-written U-Net and VGG training under data-parallel
    strategies, swept over device counts, results in HDF5, plots and baseline comparisons."""

    # No homepage, url or git: the source is the checkout `spack develop --path` names.
    version("main")

    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("fmt")
    depends_on("cli11")
    depends_on("tomlplusplus")
    depends_on("hdf5~mpi")
    depends_on("openblas")
    depends_on("onednn")  # CPU convolutions (kernels/onednn); the build runs without it (SCALEBENCH_ONEDNN=AUTO)
    depends_on("mpi")
    depends_on("googletest", type="test")
    depends_on("py-matplotlib", type="run")
    depends_on("py-h5py", type="run")
    depends_on("py-numpy", type="run")
    depends_on("cudnn", when="+cuda")
    depends_on("nccl", when="+cuda")

    def cmake_args(self):
        args = [
            self.define("SCALEBENCH_CUDA", "ON" if self.spec.satisfies("+cuda") else "OFF"),
            self.define("HDF5_ROOT", self.spec["hdf5"].prefix),
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
            self.define("BUILD_TESTING", self.run_tests),
        ]
        if self.spec.satisfies("+cuda"):
            archs = self.spec.variants["cuda_arch"].value
            if archs and archs[0] != "none":
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        return args

    def setup_build_environment(self, env):
        if self.spec.satisfies("+cuda"):
            # CMakeLists.txt looks for cuDNN and NCCL under these (environment variables).
            env.set("CUDNN_ROOT", self.spec["cudnn"].prefix)
            env.set("NCCL_ROOT", self.spec["nccl"].prefix)
