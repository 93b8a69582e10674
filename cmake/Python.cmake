# The Python bindings (python/, RLZOO_WITH_PYTHON): pybind11 and numpy from Debian
# (pybind11-dev, python3-dev, python3-numpy). Found here, before any target exists, because the
# extension module links the static rlzoo libraries: they, and everything that shares the
# LibTorch precompiled header with them, are then compiled as position-independent code.
# -fno-semantic-interposition keeps -fPIC code as fast as the default PIE code (calls inside a
# library stay inlinable; nothing relies on interposing rlzoo's symbols).
if(RLZOO_WITH_PYTHON AND (RLZOO_TSAN OR RLZOO_ASAN))
  message(STATUS "Python bindings disabled under a sanitizer (an instrumented module cannot load into python3)")
  set(RLZOO_WITH_PYTHON OFF)
endif()
if(RLZOO_WITH_PYTHON)
  # Python3_EXECUTABLE is /usr/bin/python3 (cmake/Dependencies.cmake): Debian's, with numpy.
  find_package(Python3 COMPONENTS Interpreter Development.Module NumPy QUIET)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(NOT Python3_FOUND OR NOT pybind11_FOUND)
    message(STATUS "Python bindings disabled: need python3-dev, python3-numpy and pybind11-dev "
                   "(Python3 found: ${Python3_FOUND}, pybind11 found: ${pybind11_FOUND})")
    set(RLZOO_WITH_PYTHON OFF)
  else()
    add_compile_options(-fPIC -fno-semantic-interposition)
  endif()
endif()
