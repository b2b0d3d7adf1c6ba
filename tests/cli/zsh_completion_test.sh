#!/usr/bin/env zsh
# zsh_completion_test.sh ZSH_COMPLETION
# The generated #compdef file parses and defines a function per command, and
# compinit picks it up from a folder on $fpath. Run with zsh; the CMake test
# is registered only where zsh is installed.
set -eu
file=$1
zsh -n "$file" || { echo "FAIL: zsh -n"; exit 1; }
[[ $(head -1 "$file") == "#compdef onnx-remap" ]] || { echo "FAIL: first line is not #compdef onnx-remap"; exit 1; }
dir=$(mktemp -d)
cp "$file" "$dir/_onnx-remap"
fpath=("$dir" $fpath)
autoload -Uz compinit
compinit -u -d "$dir/zcompdump"
[[ ${_comps[onnx-remap]-} == _onnx-remap ]] || { echo "FAIL: compinit did not register _onnx-remap"; rm -rf "$dir"; exit 1; }
# Loading the file defines the functions of every command (it then calls
# _onnx-remap, which fails outside completion: that is expected).
source "$file" >/dev/null 2>&1 || true
for f in _onnx-remap _onnx-remap_rewrite _onnx-remap_scan _onnx-remap_check _onnx-remap_rules \
         _onnx-remap_rules_list _onnx-remap_rules_show _onnx-remap_rules_targets _onnx-remap_rules_check; do
  (( $+functions[$f] )) || { echo "FAIL: $f is not defined"; rm -rf "$dir"; exit 1; }
done
rm -rf "$dir"
echo "PASS: zsh completion parses, registers with compinit and defines every command's function"
