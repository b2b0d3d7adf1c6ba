#!/usr/bin/env bash
# Per-model overhead of batch conversion (issue 10: "a batch of 1,000 small
# models finishes in the time of one process per model or less"). Makes N
# copies of a small fixture in a folder tree, then times, in the same run:
#   loop   one `onnx-remap rewrite FILE -o OUT` process per model (the baseline)
#   batch  one `onnx-remap rewrite DIR -o OUTDIR --jobs J` for each J given
# and prints each time, the per-model cost and the ratio to the loop.
#   bash bench/batch_bench.sh BIN [N=1000] [JOBS="1 2"] [MODEL=tests/fixtures/corpus/asinh_op13/model.onnx]
set -euo pipefail
BIN=$(realpath "$1")
N=${2:-1000}
JOBS=${3:-"1 2"}
SRC=$(cd "$(dirname "$0")/.." && pwd)
MODEL=${4:-$SRC/tests/fixtures/corpus/asinh_op13/model.onnx}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for ((i = 0; i < N; i++)); do
  d="$WORK/zoo/group$((i % 10))"
  mkdir -p "$d"
  cp "$MODEL" "$d/model$i.onnx"
done
now() { date +%s.%N; }

start=$(now)
while IFS= read -r f; do
  out="$WORK/loop/${f#"$WORK/zoo/"}"
  mkdir -p "$(dirname "$out")"
  "$BIN" rewrite "$f" -o "$out" -q || [[ $? -eq 1 ]]
done < <(find "$WORK/zoo" -name '*.onnx' | sort)
loop=$(echo "$(now) - $start" | bc -l)
printf '%-22s %8.2f s  %7.2f ms/model  1.00x\n' "loop (1 process each)" "$loop" "$(echo "$loop * 1000 / $N" | bc -l)"

for j in $JOBS; do
  rm -rf "$WORK/batch"
  start=$(now)
  "$BIN" rewrite "$WORK/zoo" -o "$WORK/batch" --jobs "$j" -q || [[ $? -eq 1 ]]
  t=$(echo "$(now) - $start" | bc -l)
  printf '%-22s %8.2f s  %7.2f ms/model  %.2fx of the loop\n' "batch --jobs $j" "$t" "$(echo "$t * 1000 / $N" | bc -l)" "$(echo "$t / $loop" | bc -l)"
  diff -r -q "$WORK/loop" "$WORK/batch" >/dev/null || { echo "batch output differs from the loop's"; exit 1; }
done
echo "($N copies of $(basename "$(dirname "$MODEL")"); outputs of loop and batch are identical)"
