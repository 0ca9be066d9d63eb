# package.py — a Spack recipe for scalebench (docs/install.md). It states the dependencies and the
# CMake arguments of CMakeLists.txt in Spack's form, and builds a local checkout: it names no URL
# and no repository to fetch (there is no public one to name), so use it with `spack develop
# --path <checkout> scalebench@=main` in an environment (docs/install.md, "With Spack"); a plain
# `spack install scalebench` has nothing to fetch and fails. It is NOT tested against a live Spack
# by this repository's tests (no Spack here); report what your Spack version needs changed.
# Dependencies carry the minimum versions CMakeLists.txt checks (find_package(... VERSION)); BLAS is
# the virtual `blas`, passed to CMake's FindBLAS as BLA_VENDOR (openblas, intel-oneapi-mkl,
# flexiblas, cray-libsci). Not here: Slurm profiles or site module names (slurm/profiles/).
from spack.package import *


class Scalebench(CMakePackage, CudaPackage):
    """HPC scaling-study benchmark suite: hand-written U-Net and VGG training under data-parallel
    strategies, swept over device counts, results in HDF5, plots and baseline comparisons."""

    # No homepage, url or git: the source is the checkout `spack develop --path` names.
    version("main")

    variant("onednn", default=True, description="oneDNN CPU convolutions (kernels/onednn)")
    variant("native", default=False, description="Compile for the build host's CPU (-march=native)")

    # Compilers as dependencies (Spack >= 0.23): C for CMake's C checks (FindMPI, FindHDF5, FindBLAS),
    # C++20 for everything else.
    depends_on("c", type="build")
    depends_on("cxx", type="build")

    depends_on("cmake@3.25:", type="build")
    depends_on("fmt@9:")
    depends_on("cli11@2.1:")
    depends_on("tomlplusplus@3.3:")
    depends_on("nlohmann-json@3.11:")
    depends_on("hdf5@1.10:~mpi")
    depends_on("blas")
    depends_on("onednn", when="+onednn")
    depends_on("mpi")
    depends_on("googletest", type="test")
    depends_on("py-matplotlib", type="run")
    depends_on("py-h5py", type="run")
    depends_on("py-numpy", type="run")
    depends_on("cudnn", when="+cuda")
    depends_on("nccl", when="+cuda")

    # CMake's FindBLAS vendor for each `blas` provider (CMakeLists.txt; cray-libsci is linked by the
    # Cray compiler wrappers themselves, which FindBLAS's "All" accepts).
    BLA_VENDORS = {"openblas": "OpenBLAS", "intel-oneapi-mkl": "Intel10_64lp", "intel-mkl": "Intel10_64lp",
                   "flexiblas": "FlexiBLAS", "cray-libsci": "All"}

    def cmake_args(self):
        blas = self.spec["blas"]
        args = [
            self.define("SCALEBENCH_CUDA", "ON" if self.spec.satisfies("+cuda") else "OFF"),
            self.define("SCALEBENCH_ONEDNN", "ON" if self.spec.satisfies("+onednn") else "OFF"),
            self.define_from_variant("SCALEBENCH_NATIVE", "native"),
            self.define("BLA_VENDOR", self.BLA_VENDORS.get(blas.name, "All")),
            self.define("HDF5_ROOT", self.spec["hdf5"].prefix),
            self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc),
            self.define("BUILD_TESTING", self.run_tests),
        ]
        if blas.name != "cray-libsci":
            args.append(self.define("BLAS_LIBRARIES", blas.libs.joined(";")))
            args.append(self.define("SB_CBLAS_INCLUDE", blas.headers.directories[0]))
        if self.spec.satisfies("+cuda"):
            archs = self.spec.variants["cuda_arch"].value
            if archs and archs[0] != "none":
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(archs)))
        return args

    def setup_build_environment(self, env):
        if self.spec.satisfies("+onednn"):
            env.set("DNNL_ROOT", self.spec["onednn"].prefix)  # CMakeLists.txt looks for oneDNN there
        if self.spec.satisfies("+cuda"):
            # CMakeLists.txt looks for cuDNN and NCCL under these (environment variables).
            env.set("CUDNN_ROOT", self.spec["cudnn"].prefix)
            env.set("NCCL_ROOT", self.spec["nccl"].prefix)
