# Warnings are errors in CI (ONNX_REMAP_WERROR=ON there); -Wall -Wextra always.
option(ONNX_REMAP_WERROR "Treat warnings as errors" OFF)

function(onnx_remap_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  # clang has no -Wshadow=local; the gcc build checks shadowing.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wshadow=local)
  endif()
  if(ONNX_REMAP_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
