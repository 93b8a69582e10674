# The installed package, end to end (ctest: install.custom_env_example):
#   1. cmake --install the build into a fresh prefix;
#   2. configure and build examples/custom_env against it (find_package(rlzoo));
#   3. run it: its env passes check_env, trains from its preset and must reach 90% of the
#      optimum it states, within 3 minutes;
#   4. the installed CLI runs and finds the installed presets.
# Inputs: -DBUILD_DIR -DSOURCE_DIR -DWORK_DIR [-DLAUNCHER=ccache].
cmake_minimum_required(VERSION 3.25)

function(run what)
  # From WORK_DIR: the installed CLI must not find the source tree's ./configs by accident.
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

foreach(v BUILD_DIR SOURCE_DIR WORK_DIR)
  get_filename_component(${v} "${${v}}" ABSOLUTE)
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f lib/cmake/rlzoo/rlzooConfig.cmake lib/cmake/rlzoo/rlzooTargets.cmake include/rlzoo/rlzoo.h
          include/rlzoo/core/env/env.h bin/rlzoo share/rlzoo/configs/ppo/CartPole-v1.yaml)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()

set(args -S ${SOURCE_DIR}/examples/custom_env -B ${WORK_DIR}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
         -DCMAKE_PREFIX_PATH=${prefix})
if(LAUNCHER)
  list(APPEND args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run("configuring examples/custom_env against the install" ${CMAKE_COMMAND} ${args})
run("building examples/custom_env" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

string(TIMESTAMP start "%s")
run("examples/custom_env/compass (train, evaluate)" ${WORK_DIR}/build/compass
    ${SOURCE_DIR}/examples/custom_env/compass.yaml ${WORK_DIR}/compass_agent)
string(TIMESTAMP stop "%s")
math(EXPR seconds "${stop} - ${start}")
message(STATUS "${last_output}")
message(STATUS "compass trained and evaluated in ${seconds} s")
if(seconds GREATER_EQUAL 180)
  message(FATAL_ERROR "the example took ${seconds} s, over its 3-minute budget")
endif()
if(NOT EXISTS ${WORK_DIR}/compass_agent/manifest.json)
  message(FATAL_ERROR "the example did not save its agent")
endif()

run("installed rlzoo list" ${prefix}/bin/rlzoo list)
if(NOT last_output MATCHES "share/rlzoo/configs")
  message(FATAL_ERROR "the installed rlzoo does not list the installed presets:\n${last_output}")
endif()
