# ONNX_REMAP_FUZZ=ON builds the libFuzzer targets of fuzz/ (clang only). All
# code gets libFuzzer's coverage instrumentation, so the tests and the tool of
# the same build still run normally: CI's ASan build is this build.
option(ONNX_REMAP_FUZZ "Build the libFuzzer targets in fuzz/ (clang only)" OFF)
if(ONNX_REMAP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ONNX_REMAP_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
