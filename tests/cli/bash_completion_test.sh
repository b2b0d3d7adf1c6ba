#!/usr/bin/env bash
# bash_completion_test.sh BASH_COMPLETION
# Sources the generated completion in bash and calls it as bash would on TAB.
set -euo pipefail
source "$1"
fail=0
# expect "WANTED REPLY" WORDS...: completing the last word offers exactly WANTED.
expect() {
  local want=$1; shift
  COMP_WORDS=(onnx-remap "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _onnx_remap
  local got="${COMPREPLY[*]}"
  if [[ $got == "$want" ]]; then echo "ok: onnx-remap $*<TAB> -> $got"
  else echo "FAIL: onnx-remap $*<TAB>: got '$got', want '$want'"; fail=1; fi
}
expect "rewrite" rew
expect "rewrite scan check convert rules" ""
expect "--target" rewrite --ta
expect "--report --report-format" scan --report
expect "json junit" rewrite in.onnx --report-format ""
expect "junit" check --report-format = ju
expect "skip copy" rewrite --other-files ""
expect "list show targets check new" rules ""
expect "targets" rules t
expect "text json markdown" rules list --format ""
expect "--format" rules show some-id --fo
expect "--dtype" rules check --dt
# The value of an option is not a subcommand: `--rules rules` stays in rewrite.
expect "--rules" rewrite --rules rules --rul
# Files for model inputs and paths.
dir=$(mktemp -d)
touch "$dir/model.onnx"
expect "$dir/model.onnx" rewrite "$dir/mod"
expect "$dir/model.onnx" rewrite in.onnx -o "$dir/mo"
rm -rf "$dir"
((fail == 0)) || exit 1
echo "PASS: bash completion"
