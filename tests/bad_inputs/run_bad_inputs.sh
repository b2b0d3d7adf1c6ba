#!/usr/bin/env bash
# The bad-input corpus (tests/bad_inputs/MANIFEST.tsv, written by generate.py): for each entry,
# runs onnx-remap on a copy of its folder and checks the exit code, the message (one line naming
# the file, for errors), that nothing was written (no output, no temporary file, nothing else new)
# unless the entry expects the output, and that every input file is byte-for-byte unchanged.
#   run_bad_inputs.sh BIN SOURCE_DIR WORK_DIR
set -uo pipefail
BIN=$1 SRC=$2 WORK=$3
HERE=$SRC/tests/bad_inputs
rm -rf "$WORK" && mkdir -p "$WORK"
source "$SRC/tests/cli/expect_lib.sh"

# Hashes of every file (symlinks by their target's content) below the scratch tree.
hashes() { (cd "$WORK" && find . -path ./out -prune -o \( -type f -o -type l \) -print | LC_ALL=C sort | xargs -d '\n' sha256sum -- 2>&1); }

entries=0
while IFS=$'\t' read -r name dir code output args regex; do
  [[ -z $name || $name == \#* ]] && continue
  ((entries++))
  # WORK/NAME/FOLDER, and next to FOLDER what a followed ../ or symlink would reach: a valid
  # 24-byte weights file (w = 0..5) outside the model's folder.
  mkdir "$WORK/$name"
  printf '\0\0\0\0\0\0\x80\x3f\0\0\0\x40\0\0\x40\x40\0\0\x80\x40\0\0\xa0\x40' > "$WORK/$name/outside.bin"
  case_dir=$WORK/$name/$dir
  cp -a "$HERE/$dir" "$case_dir"
  rm -rf "$WORK/out" && mkdir "$WORK/out"
  in=$case_dir/model.onnx out=$WORK/out/$name.onnx side=$case_dir/out.onnx
  args=${args//\{in\}/$in}; args=${args//\{out\}/$out}; args=${args//\{side\}/$side}
  args=${args//\{src\}/$SRC}; args=${args//\{dir\}/$case_dir}
  before=$(hashes)
  files_before=$(cd "$WORK" && find . | LC_ALL=C sort)
  read -ra argv <<<"$args"
  text=$(timeout 60 "$BIN" "${argv[@]}" 2>&1)
  got=$?
  problems=()
  [[ $got -eq $code ]] || problems+=("exit $got, expected $code")
  if [[ $output == none ]]; then
    # One line; rule files list their errors (file:line:col: error:), then one summary line.
    first=$(head -n 1 <<<"$text") rest=$(tail -n +2 <<<"$text")
    if [[ $code -eq 4 ]]; then
      [[ $rest == "onnx-remap: error: rule files have errors (listed above)" ]] || problems+=("more than the error and its summary")
    else
      [[ -z $rest ]] || problems+=("more than one line")
    fi
    grep -Eq -- "$regex" <<<"$first" || problems+=("message does not match /$regex/")
    files_after=$(cd "$WORK" && find . | LC_ALL=C sort)
    [[ $files_after == "$files_before" ]] ||
      problems+=("files appeared: $(comm -13 <(echo "$files_before") <(echo "$files_after") | tr '\n' ' ')")
  else
    # Reports span lines: match them as one.
    grep -Eq -- "$regex" <<<"$(tr '\n' ' ' <<<"$text")" || problems+=("report does not match /$regex/")
    [[ -s $out ]] || problems+=("no output written")
    [[ -z $(find "$WORK" -name '.*.tmp*') ]] || problems+=("temporary files left")
  fi
  [[ $(hashes) == "$before" ]] || problems+=("an input file changed")
  if [[ ${#problems[@]} -eq 0 ]]; then
    echo "PASS $name"; ((passed++))
  else
    echo "FAIL $name: ${problems[*]}"; sed 's/^/    | /' <<<"$text" | head -20; ((failed++))
  fi
  rm -rf "${WORK:?}/$name"
done < "$HERE/MANIFEST.tsv"
echo "$entries bad inputs"
finish
