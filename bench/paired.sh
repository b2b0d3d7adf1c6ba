#!/usr/bin/env bash
# Two builds of onnx-remap against each other, for a change too small for
# bench/run.sh's medians to tell apart from the host's drift: runs of the
# two alternate (base first in even rounds, head first in odd ones), so a
# slow spell of the machine falls on both alike. Each run is
#   BIN rewrite IN -o OUT --rules bench/rules/leaky_relu.textproto -q --no-fsync
# timed with bash's `time` (wall, and user + system CPU). Prints a Markdown
# table of the medians per model and head/base, and whether the two
# outputs of every round were byte-identical. Exit status 1 when a run
# failed or the outputs differed, 2 on bad arguments.
#
#   bash bench/paired.sh --base BIN --head BIN [--rounds N] [--smoke]
#                        [--work DIR] [--models "control control4k"]
# Models are those of bench/run.sh, in --work/models (default
# /tmp/onnx-remap-bench/models, where run.sh and counts.sh generate them);
# --smoke uses bench/models/smoke (the ctest bench.paired_smoke).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BASE=
HEAD=
ROUNDS=20
WORK=/tmp/onnx-remap-bench
MODELS="control control4k"
SMOKE=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --base) BASE=$(realpath "$2"); shift ;;
    --head) HEAD=$(realpath "$2"); shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --work) WORK=$2; shift ;;
    --models) MODELS=$2; shift ;;
    --smoke) SMOKE=1 ;;
    *) echo "paired.sh: error: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
for b in "$BASE" "$HEAD"; do
  [[ -n $b && -x $b ]] || { echo "paired.sh: error: --base and --head must name built onnx-remap binaries" >&2; exit 2; }
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "paired.sh: error: --rounds must be a positive number" >&2; exit 2; }
if [[ $SMOKE == 1 ]]; then
  MODELDIR=$SRC/bench/models/smoke
  [[ $MODELS == "control control4k" ]] && MODELS=control
else
  MODELDIR=$WORK/models
fi
for m in $MODELS; do
  [[ -f $MODELDIR/$m.onnx ]] || {
    echo "paired.sh: error: $MODELDIR/$m.onnx: no such model (bench/run.sh --models $m generates it)" >&2
    exit 2
  }
done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
RULES=$SRC/bench/rules/leaky_relu.textproto
TIMEFORMAT='%R %U %S'

# one NAME MODEL: a timed run; appends "NAME MODEL wall cpu" to $OUT/times.
one() {
  local name=$1 model=$2 bin t
  bin=$BASE
  [[ $name == head ]] && bin=$HEAD
  rm -f "$OUT/$name.onnx"
  if ! t=$( { time "$bin" rewrite "$MODELDIR/$model.onnx" -o "$OUT/$name.onnx" --rules "$RULES" -q \
                   --no-fsync >/dev/null 2>"$OUT/$name.err"; } 2>&1 ); then
    echo "paired.sh: $name failed on $model: $(head -1 "$OUT/$name.err")" >&2
    return 1
  fi
  read -r wall user sys <<<"$t"
  echo "$name $model $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')" >>"$OUT/times"
}

status=0
: >"$OUT/times"
for model in $MODELS; do
  differ=0
  for ((r = 0; r < ROUNDS; r++)); do
    order="base head"
    ((r % 2)) && order="head base"
    for name in $order; do one "$name" "$model" || status=1; done
    if ! cmp -s "$OUT/base.onnx" "$OUT/head.onnx"; then differ=$((differ + 1)); status=1; fi
  done
  echo "$model $differ" >>"$OUT/differ"
done

echo "| model | rounds | base: wall, CPU | head: wall, CPU | head/base: wall, CPU | outputs |"
echo "|---|---|---|---|---|---|"
for model in $MODELS; do
  median() { grep "^$1 $model " "$OUT/times" | awk -v f="$2" '{ print $f }' | sort -g |
             awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
  bw=$(median base 3) bc=$(median base 4) hw=$(median head 3) hc=$(median head 4)
  differ=$(awk -v m="$model" '$1 == m { print $2 }' "$OUT/differ")
  awk -v m="$model" -v r="$ROUNDS" -v bw="$bw" -v bc="$bc" -v hw="$hw" -v hc="$hc" -v d="$differ" 'BEGIN {
    ratio = (bw > 0 && bc > 0) ? sprintf("%.3f, %.3f", hw / bw, hc / bc) : "-"
    printf "| %s | %d | %.3f s, %.3f s | %.3f s, %.3f s | %s | %s |\n", m, r, bw, bc, hw, hc, ratio,
           d == 0 ? "identical" : d " of " r " rounds differ"
  }'
done
echo
echo "(medians of alternating rounds, --no-fsync; base $("$BASE" --version 2>/dev/null | head -1), head $("$HEAD" --version 2>/dev/null | head -1))"
exit $status
