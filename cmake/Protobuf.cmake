# rlzoo_add_protos(target proto...): compiles .proto files into the target. protoc runs from
# the repository root so generated headers are included by their source path, e.g.
# "core/logging/proto/event.pb.h" (protobuf_generate would root them at the target's folder).
function(rlzoo_add_protos target)
  set(srcs)
  foreach(proto ${ARGN})
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${proto})
    string(REGEX REPLACE "\\.proto$" "" stem "${rel}")
    set(outs ${PROJECT_BINARY_DIR}/${stem}.pb.h ${PROJECT_BINARY_DIR}/${stem}.pb.cc)
    add_custom_command(OUTPUT ${outs}
      COMMAND protobuf::protoc --cpp_out ${PROJECT_BINARY_DIR} -I ${PROJECT_SOURCE_DIR} ${proto}
      DEPENDS ${ARGN} protobuf::protoc COMMENT "protoc ${rel}" VERBATIM)
    list(APPEND srcs ${outs})
  endforeach()
  # Generated files define the same file-local tables (schemas, file_default_instances): each
  # compiles alone, outside the target's unity batches.
  set_source_files_properties(${srcs} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  target_sources(${target} PRIVATE ${srcs})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>)
  target_link_libraries(${target} PUBLIC protobuf::libprotobuf)
endfunction()

# rlzoo_add_grpc_services(target proto...): the gRPC service stubs of .proto files
# (<stem>.grpc.pb.h/.cc from grpc_cpp_plugin). Their messages come from rlzoo_add_protos, on
# this target or one it links.
function(rlzoo_add_grpc_services target)
  set(srcs)
  foreach(proto ${ARGN})
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${proto})
    string(REGEX REPLACE "\\.proto$" "" stem "${rel}")
    set(outs ${PROJECT_BINARY_DIR}/${stem}.grpc.pb.h ${PROJECT_BINARY_DIR}/${stem}.grpc.pb.cc)
    add_custom_command(OUTPUT ${outs}
      COMMAND protobuf::protoc --grpc_out ${PROJECT_BINARY_DIR}
              --plugin=protoc-gen-grpc=$<TARGET_FILE:gRPC::grpc_cpp_plugin> -I ${PROJECT_SOURCE_DIR} ${proto}
      DEPENDS ${ARGN} protobuf::protoc gRPC::grpc_cpp_plugin COMMENT "protoc (gRPC) ${rel}" VERBATIM)
    list(APPEND srcs ${outs})
  endforeach()
  set_source_files_properties(${srcs} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  target_sources(${target} PRIVATE ${srcs})
  # PRIVATE: gRPC's usage requirements (-pthread via its thread targets) would otherwise reach
  # every consumer and stop it from using the precompiled torch header (built without them).
  # Its headers are on the system include path, and a static library still links it through.
  target_link_libraries(${target} PRIVATE gRPC::grpc++)
endfunction()
