# Script mode: runs `TOOL --generate KIND` and writes what it prints to OUTPUT
# (add_custom_command has no portable stdout redirection).
#   cmake -DTOOL=... -DKIND=man|bash|zsh -DOUTPUT=... -P GenerateCliDoc.cmake
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
execute_process(COMMAND "${TOOL}" --generate "${KIND}" OUTPUT_FILE "${OUTPUT}.tmp" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${TOOL} --generate ${KIND} failed: ${rc}")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
