#!/usr/bin/env bash
# help_docs_test.sh TOOL MAN_PAGE BASH_COMPLETION
# The man page and the bash completion cover what --help lists: walks every
# subcommand through `TOOL ... --help`, and checks each option and positional
# is in that command's man page section, and each option and subcommand is
# what the completion offers there.
set -euo pipefail
TOOL=$1 MAN=$2 BASH_COMPLETION=$3

# Sections of --help: "Options:" lines start "  -j,--jobs ...", "Positionals:" and
# "Subcommands:" lines "  name ..."; wrapped descriptions start with more spaces.
help_section() {  # SECTION PATH...
  local section=$1; shift
  "$TOOL" "$@" --help | awk -v s="$section:" '$0 == s {on = 1; next} /^[A-Z][a-z]*:$/ {on = 0} on && /^  [^ ]/ {print $1}'
}
options_of() { help_section Options "$@" | tr ',' '\n'; }

# The man page as text: fonts dropped, \- written -.
man_text=$(sed -e 's/\\f[BIR]//g' -e 's/\\-/-/g' "$MAN")
# The part of the man page about one command: OPTIONS for the program, else its .SS section.
man_section() {
  if [[ $# -eq 0 ]]; then
    awk '/^\.SH OPTIONS/ {on = 1; next} /^\.S[HS] / {on = 0} on' <<<"$man_text"
  else
    awk -v h=".SS onnx-remap $*" '$0 == h {on = 1; next} /^\.S[HS] / {on = 0} on' <<<"$man_text"
  fi
}

# What the completion offers after `onnx-remap PATH... WORD`.
complete_words() {  # WORD PATH...
  local word=$1; shift
  bash -c 'source "$1"; shift; COMP_WORDS=(onnx-remap "$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _onnx_remap; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$BASH_COMPLETION" "$@" "$word"
}

fail=0 checked=0
check_command() {  # PATH...
  local section offered name
  section=$(man_section "$@")
  [[ -n $section ]] || { echo "FAIL: the man page has no section for 'onnx-remap $*'"; fail=1; }
  offered=$(complete_words - "$@")
  for name in $(options_of "$@") $(help_section Positionals "$@"); do
    checked=$((checked + 1))
    grep -qE "(^|[ ,])$name([ ,]|$)" <<<"$section" || { echo "FAIL: 'onnx-remap $* --help' lists $name; its man page section does not"; fail=1; }
    if [[ $name == -* ]] && ! grep -qxF -- "$name" <<<"$offered"; then
      echo "FAIL: 'onnx-remap $* --help' lists $name; the bash completion of 'onnx-remap $* -' does not offer it"; fail=1
    fi
  done
  local subs sub
  subs=$(help_section Subcommands "$@")
  offered=$(complete_words "" "$@")
  for sub in $subs; do
    checked=$((checked + 1))
    grep -qxF "$sub" <<<"$offered" || { echo "FAIL: 'onnx-remap $*' has subcommand $sub; the completion does not offer it"; fail=1; }
    grep -qE "^\.B onnx-remap ${*:+$* }$sub\$" <<<"$man_text" || { echo "FAIL: the man page has no synopsis for 'onnx-remap ${*:+$* }$sub'"; fail=1; }
    check_command "$@" "$sub"
  done
}
check_command
[[ $checked -gt 50 ]] || { echo "FAIL: only $checked names read from --help: is its format what this script parses?"; fail=1; }
((fail == 0)) || exit 1
echo "PASS: the man page and the bash completion have all $checked options, positionals and subcommands --help lists"
