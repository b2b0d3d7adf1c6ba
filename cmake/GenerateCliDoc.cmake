# Script mode: runs `TOOL --generate KIND` and writes what it prints to OUTPUT
# (add_custom_command has no portable stdout redirection).
#   cmake -DTOOL=... -DKIND=man|bash|zsh -DOUTPUT=... -P GenerateCliDoc.cmake
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
# The tool was linked an instant before. Once, in a parallel build on a
# fresh Debian 12 system, running it failed with "Text file busy" (ETXTBSY:
# a process still had the file open for writing) and the next build passed;
# that state passes, so it is retried for a few seconds, and only it.
foreach(attempt RANGE 1 20)
  execute_process(COMMAND "${TOOL}" --generate "${KIND}" OUTPUT_FILE "${OUTPUT}.tmp" RESULT_VARIABLE rc)
  if(NOT rc MATCHES "Text file busy")
    break()
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.25)
endforeach()
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${TOOL} --generate ${KIND} failed: ${rc}")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
