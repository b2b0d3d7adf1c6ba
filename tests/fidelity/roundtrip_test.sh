#!/usr/bin/env bash
# Round trip of ONNX's own backend-test models (Debian's libonnx-testdata):
# every model goes through `onnx-remap rewrite DIR -o OUTDIR` (one process for
# the whole tree) with no rule applying, and must come out byte-identical,
# unless it is listed in ACCEPTED with the reason it may differ. Fails when a
# model is refused, differs without an accepted reason, or an accepted entry
# no longer differs (so the list cannot go stale).
#   roundtrip_test.sh BIN MODEL_DIFF DATA_DIR ACCEPTED WORK_DIR [JOBS]
set -uo pipefail
BIN=$1 MODEL_DIFF=$2 DATA=$3 ACCEPTED=$4 WORK=$5 JOBS=${6:-2}
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1

mapfile -t models < <(cd "$DATA" && find . -name '*.onnx' -type f | sed 's|^\./||' | LC_ALL=C sort)
if [[ ${#models[@]} -eq 0 ]]; then
  echo "FAIL: no models below $DATA"
  exit 1
fi

start=$(date +%s.%N)
"$BIN" rewrite "$DATA" -o "$WORK/out" --jobs "$JOBS" -q >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
end=$(date +%s.%N)

declare -A accepted
while IFS=$'\t' read -r path reason; do
  [[ -z $path || $path == \#* ]] && continue
  accepted[$path]=$reason
done <"$ACCEPTED"

# One sha256sum per tree, not one cmp per model: 1,072 forks dominated the run time.
declare -A in_hash out_hash
while read -r hash path; do in_hash[$path]=$hash; done < <(cd "$DATA" && printf '%s\0' "${models[@]}" | xargs -0 sha256sum)
while read -r hash path; do out_hash[$path]=$hash; done < <(cd "$WORK/out" && find . -name '*.onnx' -type f -printf '%P\0' | xargs -0 -r sha256sum)

same=0 differ=0 refused=0 failures=0
differ_lines=() refused_lines=()
for m in "${models[@]}"; do
  out="$WORK/out/$m"
  if [[ -z ${out_hash[$m]+x} ]]; then
    refused=$((refused + 1))
    why=$(grep -F -- "$DATA/$m" "$WORK/stderr" | head -1)
    refused_lines+=("  $m: ${why:-no output and no error line}")
    continue
  fi
  if [[ ${in_hash[$m]} == "${out_hash[$m]}" ]]; then
    same=$((same + 1))
    if [[ -n ${accepted[$m]+x} ]]; then
      failures=$((failures + 1))
      differ_lines+=("  $m: listed in $(basename "$ACCEPTED") but now byte-identical: remove it")
    fi
    continue
  fi
  differ=$((differ + 1))
  # What differs, in model_diff's words: its DIFFERS lines, removed nodes and a changed opset_import.
  what=$("$MODEL_DIFF" "$DATA/$m" "$out" |
         awk -F' -> ' '/^DIFFERS/ || (/^removed/ && !/: -$/) || (/^opset_import:/ && substr($1, 15) != $2)' |
         paste -sd ';' -)
  if [[ -n ${accepted[$m]+x} ]]; then
    differ_lines+=("  $m: accepted (${accepted[$m]}): ${what:-bytes differ, same content}")
  else
    failures=$((failures + 1))
    differ_lines+=("  $m: NOT ACCEPTED: ${what:-bytes differ, same content}")
  fi
done

printf 'round trip of %d models from %s: %d byte-identical, %d differ, %d refused (exit code %d, %.1f s)\n' \
  "${#models[@]}" "$DATA" "$same" "$differ" "$refused" "$rc" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
if [[ $differ -gt 0 || $failures -gt 0 ]]; then
  echo "differ:"
  printf '%s\n' "${differ_lines[@]}"
fi
if [[ $refused -gt 0 ]]; then
  echo "refused:"
  printf '%s\n' "${refused_lines[@]}"
fi
if [[ $refused -gt 0 || $failures -gt 0 ]]; then
  echo "FAIL"
  exit 1
fi
echo "ok"
