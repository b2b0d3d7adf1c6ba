# Keeps the library's folders layered (docs/design.md, "Layers"): a file in
# src/<folder>/ may include headers of its own folder and of the folders
# listed before it, never of one listed after it.
#   cmake -DSRC=<repo>/src -P check_layering.cmake
set(LAYERS core model opset saver proto rules match rewrite convert engine check pipeline report cli build_tools)

file(GLOB_RECURSE files RELATIVE "${SRC}" "${SRC}/*.h" "${SRC}/*.cc")
set(violations "")
foreach(file IN LISTS files)
  string(REGEX MATCH "^[^/]+" folder "${file}")
  list(FIND LAYERS "${folder}" own)
  if(own EQUAL -1)
    string(APPEND violations "  src/${file}: folder '${folder}' is not in the layer list of tests/layering/check_layering.cmake\n")
    continue()
  endif()
  file(STRINGS "${SRC}/${file}" includes REGEX "^#include \"[a-z_]+/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" used "${line}")
    list(FIND LAYERS "${used}" rank)
    if(rank GREATER own)
      string(APPEND violations "  src/${file}: ${line} (${folder} may not include ${used})\n")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "includes against the layering (order: ${LAYERS}):\n${violations}")
endif()
list(LENGTH files n)
message(STATUS "layering: ${n} files, every include goes down the layers")
