# Shared by the CLI test scripts (source it after setting BIN):
#   expect NAME EXIT REGEX -- ARGS...  runs BIN ARGS, checks the exit code and that
#                                      stdout+stderr matches REGEX (grep -E)
#   check NAME CONDITION...            passes when CONDITION succeeds
#   finish                             prints the counts; fails when any check failed
passed=0 failed=0

expect() {
  local name=$1 code=$2 regex=$3
  shift 4
  local out
  out=$("$BIN" "$@" 2>&1)
  local got=$?
  if [[ $got -ne $code ]]; then
    echo "FAIL $name: exit $got, expected $code"; echo "$out" | sed 's/^/    | /'; ((failed++)); return
  fi
  if ! grep -Eq -- "$regex" <<<"$out"; then
    echo "FAIL $name: output does not match /$regex/"; echo "$out" | sed 's/^/    | /'; ((failed++)); return
  fi
  echo "PASS $name"; ((passed++))
}

check() {
  local name=$1; shift
  if "$@"; then echo "PASS $name"; ((passed++)); else echo "FAIL $name"; ((failed++)); fi
}

finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}
