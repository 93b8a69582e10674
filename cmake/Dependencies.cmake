# Every third-party dependency comes from a Debian package (see scripts/setup).
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(Protobuf REQUIRED)
find_package(Threads REQUIRED)

# Debian's /usr/bin/python3 has numpy; a python3 earlier on PATH may not.
if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python used by scripts and tests")
endif()

if(RLZOO_WITH_TORCH)
  # A CUDA LibTorch's CMake package (a PyTorch installation's) picks the GPU architectures for
  # CUDA sources, probing the machine's GPU when none are named: a try_run that fails where
  # there is no GPU. rlzoo has no CUDA sources, so the list only has to be set (8.0 and 9.0:
  # A100, H100/H200). Ignored by a CPU LibTorch.
  set(TORCH_CUDA_ARCH_LIST "8.0;9.0" CACHE STRING "GPU architectures a CUDA LibTorch's CMake package is told about")
  find_package(Torch QUIET)
  if(NOT Torch_FOUND)
    message(WARNING "LibTorch not found: building without agents and algorithms (RLZOO_WITH_TORCH=OFF)")
    set(RLZOO_WITH_TORCH OFF CACHE BOOL "" FORCE)
  elseif(Torch_VERSION)
    # The supported LibTorch builds: Debian 12's 1.13 (CPU; what CI builds and tests) and the
    # 2.x inside a PyTorch installation (scripts/cuda-build, scripts/gpu-check); their API differences are in
    # core/torch/compat.h. Others may build, but nothing tests them.
    if(NOT (Torch_VERSION VERSION_GREATER_EQUAL 1.13 AND Torch_VERSION VERSION_LESS 1.14) AND
       NOT (Torch_VERSION VERSION_GREATER_EQUAL 2.0 AND Torch_VERSION VERSION_LESS 3.0))
      if(RLZOO_ALLOW_UNTESTED_TORCH)
        message(WARNING "LibTorch ${Torch_VERSION} is not a supported version (1.13.x or 2.x); building anyway")
      else()
        message(FATAL_ERROR "LibTorch ${Torch_VERSION} found (${Torch_DIR}); rlzoo supports 1.13.x (Debian 12) and "
                            "2.x (a PyTorch installation). Point CMAKE_PREFIX_PATH at one of those, or pass "
                            "-DRLZOO_ALLOW_UNTESTED_TORCH=ON to try this one.")
      endif()
    endif()
    message(STATUS "LibTorch ${Torch_VERSION} (${Torch_DIR})")
  endif()
endif()
if(RLZOO_WITH_TORCH)
  # The system BLAS (libblas.so.3, OpenBLAS where installed) for the hand-written paths and,
  # first on the link line, for LibTorch's sgemm_ calls too (core/CMakeLists.txt).
  find_package(BLAS REQUIRED)
  # A CUDA LibTorch (PyPI's torch 2.x; Debian's 1.13 is CPU-only). Its CMake package lists the
  # CUDA libraries to link; NCCL (c10d's ProcessGroupNCCL) comes with it as the compile
  # definition USE_C10D_NCCL on its torch_cuda target.
  set(RLZOO_TORCH_CUDA OFF)
  if(TORCH_CUDA_LIBRARIES)
    set(RLZOO_TORCH_CUDA ON)
  endif()
  set(RLZOO_TORCH_NCCL OFF)
  foreach(rlzoo_target torch torch_cpu torch_cuda)
    if(TARGET ${rlzoo_target})
      get_target_property(rlzoo_torch_definitions ${rlzoo_target} INTERFACE_COMPILE_DEFINITIONS)
      if(rlzoo_torch_definitions MATCHES "USE_C10D_NCCL")
        set(RLZOO_TORCH_NCCL ON)
      endif()
    endif()
  endforeach()
  # An installed rlzoo finds a LibTorch outside the system's folders (a venv's, which CMake's
  # link-path rule leaves out when it lies under the build folder, as scripts/cuda-build's does).
  if(TORCH_INSTALL_PREFIX AND NOT TORCH_INSTALL_PREFIX MATCHES "^/usr(/|$)")
    list(APPEND CMAKE_INSTALL_RPATH "${TORCH_INSTALL_PREFIX}/lib")
  endif()
  # The fmt, Protobuf and pybind11 headers inside PyPI's torch stay off the include path.
  include(${CMAKE_CURRENT_LIST_DIR}/TorchIncludes.cmake)
  rlzoo_hide_bundled_headers()
  # The C++ ABI: Debian 12's libraries (yaml-cpp, spdlog, fmt, Protobuf, gRPC, GoogleTest) are
  # built by GCC 12 with its default, _GLIBCXX_USE_CXX11_ABI=1, and rlzoo passes std::string
  # across them. Debian's LibTorch uses that ABI too, and so do PyPI's torch wheels since 2.7
  # (2.11 names no ABI flag at all: the compiler's default, 1; libc10.so's symbols carry
  # std::__cxx11). A LibTorch built for the old ABI would link and then fail at run time.
  get_target_property(rlzoo_torch_options torch INTERFACE_COMPILE_OPTIONS)
  if(rlzoo_torch_options MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
    message(FATAL_ERROR "LibTorch ${Torch_VERSION} (${Torch_DIR}) is built for the old C++ ABI "
                        "(_GLIBCXX_USE_CXX11_ABI=0), while Debian's yaml-cpp, spdlog, Protobuf and gRPC use the new "
                        "one: use a LibTorch built with _GLIBCXX_USE_CXX11_ABI=1 (PyPI's torch >= 2.7 is).")
  endif()
endif()

if(RLZOO_WITH_MUJOCO)
  find_package(mujoco QUIET)
  if(NOT mujoco_FOUND)
    message(STATUS "MuJoCo not found: MuJoCo environments disabled")
    set(RLZOO_WITH_MUJOCO OFF CACHE BOOL "" FORCE)
  endif()
endif()

if(RLZOO_WITH_BOX2D)
  find_package(box2d QUIET)
  if(NOT box2d_FOUND)
    message(STATUS "Box2D not found: Box2D environments (CartPoleRllab-v0) disabled")
    set(RLZOO_WITH_BOX2D OFF CACHE BOOL "" FORCE)
  endif()
endif()

if(RLZOO_WITH_GRPC)
  find_package(gRPC QUIET)
  if(NOT gRPC_FOUND)
    message(STATUS "gRPC not found: distributed runtime disabled")
    set(RLZOO_WITH_GRPC OFF CACHE BOOL "" FORCE)
  endif()
endif()

if(RLZOO_WITH_HDF5)
  enable_language(C)  # FindHDF5 compiles a C probe to learn the library's settings
  find_package(HDF5 COMPONENTS C QUIET)
  if(NOT HDF5_FOUND)
    message(STATUS "HDF5 not found: `rlzoo dataset import` disabled")
    set(RLZOO_WITH_HDF5 OFF CACHE BOOL "" FORCE)
  endif()
endif()

if(RLZOO_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
