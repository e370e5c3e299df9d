"""Headers of well-known system packages: a missing one is the machine's, not the user's code.

`port check` tells three causes of ``'x.h' file not found`` apart: the compile-only ROCm SDK
lacks a ROCm library header (``not-checkable``), a system package is not installed here
(``needs-package``, naming the Debian package where it is known) and the user's own code is
wrong (``fails``). This table is the second cause's: the header (or its directory) and the
Debian package that installs it, with what else the compile needs (OpenMP needs ``-fopenmp``).
It lists packages, never guesses at the user's own headers: a name not in it stays the user's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SystemPackage:
    package: str  # the Debian package that installs the header
    what: str  # the library, for the message
    also: str = ""  # anything else the compile needs besides the package

    def describe(self, header: str) -> str:
        extra = f"; {self.also}" if self.also else ""
        return f"{header}: {self.what} is a system package not installed here (Debian: {self.package}{extra})"


# exact header name -> package; checked before the directory table below
_HEADERS: dict[str, SystemPackage] = {
    "omp.h": SystemPackage("libomp-dev", "OpenMP", "compile with -fopenmp"),
    "mpi.h": SystemPackage("libopenmpi-dev", "MPI (Open MPI; MPICH: libmpich-dev)"),
    "numa.h": SystemPackage("libnuma-dev", "libnuma"),
    "numaif.h": SystemPackage("libnuma-dev", "libnuma"),
    "hwloc.h": SystemPackage("libhwloc-dev", "hwloc"),
    "zlib.h": SystemPackage("zlib1g-dev", "zlib"),
    "png.h": SystemPackage("libpng-dev", "libpng"),
    "jpeglib.h": SystemPackage("libjpeg-dev", "libjpeg"),
    "hdf5.h": SystemPackage("libhdf5-dev", "HDF5"),
    "fftw3.h": SystemPackage("libfftw3-dev", "FFTW"),
    "cblas.h": SystemPackage("libopenblas-dev", "CBLAS (OpenBLAS)"),
    "lapacke.h": SystemPackage("liblapacke-dev", "LAPACKE"),
    "gmp.h": SystemPackage("libgmp-dev", "GMP"),
    "sqlite3.h": SystemPackage("libsqlite3-dev", "SQLite"),
    "Python.h": SystemPackage("python3-dev", "the Python C API"),
    "libunwind.h": SystemPackage("libunwind-dev", "libunwind"),
    "xf86drm.h": SystemPackage("libdrm-dev", "libdrm"),
    "gtest/gtest.h": SystemPackage("libgtest-dev", "GoogleTest"),
    "gmock/gmock.h": SystemPackage("libgmock-dev", "GoogleMock"),
    "benchmark/benchmark.h": SystemPackage("libbenchmark-dev", "Google Benchmark"),
    "glog/logging.h": SystemPackage("libgoogle-glog-dev", "glog"),
    "gflags/gflags.h": SystemPackage("libgflags-dev", "gflags"),
    "nlohmann/json.hpp": SystemPackage("nlohmann-json3-dev", "nlohmann/json"),
    "rdma/rdma_cma.h": SystemPackage("librdmacm-dev", "rdma-core's RDMA CM"),
    "rdma/fabric.h": SystemPackage("libfabric-dev", "libfabric"),
    "ucp/api/ucp.h": SystemPackage("libucx-dev", "UCX"),
    "GL/gl.h": SystemPackage("libgl-dev", "OpenGL"),
    "GL/glu.h": SystemPackage("libglu1-mesa-dev", "GLU"),
    "GL/glew.h": SystemPackage("libglew-dev", "GLEW"),
    "GL/glut.h": SystemPackage("freeglut3-dev", "GLUT"),
    "GL/freeglut.h": SystemPackage("freeglut3-dev", "freeglut"),
}

# first directory of the header name -> package
_DIRS: dict[str, SystemPackage] = {
    "infiniband": SystemPackage("libibverbs-dev", "rdma-core's verbs (rdma-core)"),
    "boost": SystemPackage("libboost-dev", "Boost"),
    "Eigen": SystemPackage("libeigen3-dev", "Eigen"),
    "eigen3": SystemPackage("libeigen3-dev", "Eigen"),
    "fmt": SystemPackage("libfmt-dev", "{fmt}"),
    "spdlog": SystemPackage("libspdlog-dev", "spdlog"),
    "pybind11": SystemPackage("pybind11-dev", "pybind11"),
    "opencv2": SystemPackage("libopencv-dev", "OpenCV"),
    "GLFW": SystemPackage("libglfw3-dev", "GLFW"),
    "X11": SystemPackage("libx11-dev", "Xlib"),
    "curl": SystemPackage("libcurl4-openssl-dev", "libcurl"),
    "openssl": SystemPackage("libssl-dev", "OpenSSL"),
    "tbb": SystemPackage("libtbb-dev", "oneTBB"),
    "oneapi": SystemPackage("libtbb-dev", "oneTBB"),
    "yaml-cpp": SystemPackage("libyaml-cpp-dev", "yaml-cpp"),
    "google": SystemPackage("libprotobuf-dev", "Protocol Buffers"),
    "grpcpp": SystemPackage("libgrpc++-dev", "gRPC"),
    "libdrm": SystemPackage("libdrm-dev", "libdrm"),
    "python3.11": SystemPackage("python3.11-dev", "the Python C API"),
    "python3.12": SystemPackage("python3.12-dev", "the Python C API"),
    "python3.13": SystemPackage("python3.13-dev", "the Python C API"),
}


def system_package(header: str) -> SystemPackage | None:
    """The system package that installs ``header`` (as written in the #include), or None."""
    name = header.strip().lstrip("./")
    if name in _HEADERS:
        return _HEADERS[name]
    first = name.split("/", 1)[0] if "/" in name else ""
    return _DIRS.get(first)
