# `cmake --install build [--prefix P]`: the libraries, their headers, the `rlzoo` CLI, the
# presets, and a CMake package so that other projects write
#
#   find_package(rlzoo REQUIRED)
#   target_link_libraries(my_app PRIVATE rlzoo::rlzoo)
#
# (examples/custom_env is such a project; tests/install builds it against an install.)
# Layout under the prefix: include/rlzoo/<the source tree's headers>, include/rlzoo/rlzoo.h,
# lib/librlzoo_*.a, lib/cmake/rlzoo/, bin/rlzoo, share/rlzoo/configs/.
include(CMakePackageConfigHelpers)

set(RLZOO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/rlzoo)
set(RLZOO_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/rlzoo)

# rlzoo::rlzoo: everything that was built (the libraries are static; their own link
# dependencies come along through the exported targets).
set(rlzoo_libraries rlzoo_core rlzoo_envs rlzoo_datasets rlzoo_douzero_import rlzoo_fleet_wire)
if(RLZOO_WITH_TORCH)
  list(APPEND rlzoo_libraries rlzoo_core_torch rlzoo_rl rlzoo_algorithms rlzoo_learner_group)
  if(RLZOO_WITH_GRPC)
    list(APPEND rlzoo_libraries rlzoo_distributed)
  endif()
endif()
add_library(rlzoo_package INTERFACE)
set_target_properties(rlzoo_package PROPERTIES EXPORT_NAME rlzoo)
target_link_libraries(rlzoo_package INTERFACE ${rlzoo_libraries})
add_library(rlzoo::rlzoo ALIAS rlzoo_package)  # the same name inside this build
# A sanitizer build's libraries call the sanitizer runtime, so whoever links them must link it
# too; the users' own code is then checked as well.
if(RLZOO_ASAN)
  target_compile_options(rlzoo_package INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(rlzoo_package INTERFACE -fsanitize=address,undefined)
endif()
if(RLZOO_TSAN)
  target_compile_options(rlzoo_package INTERFACE -fsanitize=thread)
  target_link_options(rlzoo_package INTERFACE -fsanitize=thread)
endif()

install(TARGETS ${rlzoo_libraries} rlzoo_package EXPORT rlzooTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT rlzooTargets NAMESPACE rlzoo:: DESTINATION ${RLZOO_INSTALL_CMAKEDIR})

# Headers, by their path from the repository root, and the generated protobuf headers.
foreach(dir core envs datasets rl algorithms distributed)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${dir})
    install(DIRECTORY ${dir} DESTINATION ${RLZOO_INSTALL_INCLUDEDIR}
            FILES_MATCHING PATTERN "*.h" PATTERN "assets" EXCLUDE PATTERN "proto" EXCLUDE)
  endif()
  if(IS_DIRECTORY ${PROJECT_BINARY_DIR}/${dir})
    install(DIRECTORY ${PROJECT_BINARY_DIR}/${dir} DESTINATION ${RLZOO_INSTALL_INCLUDEDIR}
            FILES_MATCHING PATTERN "*.pb.h" PATTERN "CMakeFiles" EXCLUDE)
  endif()
endforeach()
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(TARGETS rlzoo RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rlzoo/configs)

configure_package_config_file(cmake/rlzooConfig.cmake.in ${PROJECT_BINARY_DIR}/rlzooConfig.cmake
                              INSTALL_DESTINATION ${RLZOO_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rlzooConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rlzooConfig.cmake ${PROJECT_BINARY_DIR}/rlzooConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/TorchIncludes.cmake
        DESTINATION ${RLZOO_INSTALL_CMAKEDIR})
