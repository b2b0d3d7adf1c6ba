# The allocator of the onnx-remap executable (never of the library: a program
# that links onnx_remap keeps its own). A million-node model is millions of
# small protobuf strings and messages to allocate and free; mimalloc
# (Debian's libmimalloc-dev) takes about a fifth off the tool's time on the
# 1M-node benchmark, with a lower peak RSS (docs/performance.md).
#
# ONNX_REMAP_MIMALLOC=OFF builds with the C library's malloc. Sanitizer builds
# always do: ASan replaces malloc itself.
option(ONNX_REMAP_MIMALLOC "Link the onnx-remap executable with mimalloc" ON)
set(ONNX_REMAP_ALLOCATOR "system malloc")
if(ONNX_REMAP_MIMALLOC AND NOT ONNX_REMAP_SANITIZE)
  find_package(mimalloc 2.0 CONFIG)
  if(NOT mimalloc_FOUND)
    message(FATAL_ERROR "mimalloc not found: install libmimalloc-dev (scripts/install-deps.sh does), "
                        "or configure with -DONNX_REMAP_MIMALLOC=OFF to use the C library's malloc")
  endif()
  set(ONNX_REMAP_ALLOCATOR "mimalloc")
endif()
message(STATUS "onnx-remap executable allocator: ${ONNX_REMAP_ALLOCATOR}")

# Makes `target` (an executable) allocate with the chosen allocator. mimalloc
# replaces malloc and operator new by being linked: its symbols come before
# the C library's. Nothing of it is called directly, so the link must not
# drop it as unneeded.
function(onnx_remap_use_allocator target)
  if(ONNX_REMAP_ALLOCATOR STREQUAL "mimalloc")
    target_link_libraries(${target} PRIVATE mimalloc)
    target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
    target_compile_definitions(${target} PRIVATE ONNX_REMAP_WITH_MIMALLOC=1)
  endif()
endfunction()
