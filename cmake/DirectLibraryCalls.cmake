# Calls into shared libraries (protobuf, ONNX, the C++ runtime) go through
# the GOT directly, not through a PLT stub. Each stub is one more line of
# the instruction cache per library function called, and the per-node
# rewrite path, which calls dozens of them, overflows that cache already
# (docs/performance.md, "What is left"). The functions are then bound when
# the program starts rather than at their first call, which costs less in
# all than binding them one call at a time.
option(ONNX_REMAP_NO_PLT "Call shared-library functions without PLT stubs" ON)
if(ONNX_REMAP_NO_PLT AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE AND NOT WIN32)
  add_compile_options(-fno-plt)
endif()
