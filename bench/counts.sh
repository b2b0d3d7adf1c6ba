#!/usr/bin/env bash
# Issue 11's comparison in counts rather than seconds: instructions and
# simulated cache misses of onnx-remap against the protobuf floor, under
# valgrind's cachegrind. Wall time on a shared VM moves with the host (a page
# fault costs 10x more on some days than on others); these counts do not, so
# a change can be judged on any machine, and the same figures come out of
# every run. They are a model, not a measurement of time: cachegrind has no
# prefetchers and no out-of-order overlap, and system time is not counted.
#
# Per model it runs, once each, under `valgrind --tool=cachegrind --cache-sim=yes`:
#   tool     onnx-remap rewrite IN -o OUT --rules bench/rules/leaky_relu.textproto -q --no-fsync
#   floor    parse_serialize IN OUT
#   floormi  parse_serialize_mimalloc IN OUT (when built)
# checks the tool's output with check_output, and prints a Markdown table:
# instructions (Ir), level-1 instruction-cache misses (I1mr), level-1 data
# misses (D1mr + D1mw) and last-level misses (LLmr + LLmw) of each, with the
# tool's ratios to the floor's. Exit status 1 when a run or check failed, 2
# on bad arguments or a missing tool.
#
#   bash bench/counts.sh [--smoke] [--build DIR] [--work DIR] [--models "control control4k"]
#                        [--cache "--I1=32768,8,64 --D1=49152,12,64 --LL=33554432,16,64"]
# Models are those of bench/run.sh (generated into --work/models unless
# present; default control and control4k); --smoke uses bench/models/smoke
# (default control). --cache is the simulated caches' geometry, the same on
# every machine unless given (so that counts from two machines compare): by
# default 32 KiB 8-way instruction and 48 KiB 12-way data caches and a 32 MiB
# 16-way last level, 64-byte lines (an AMD EPYC core's; cachegrind's own guess
# on such a VM makes the last level direct-mapped).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$SRC/build
WORK=/tmp/onnx-remap-bench
MODELS=
SMOKE=0
CACHE="--I1=32768,8,64 --D1=49152,12,64 --LL=33554432,16,64"
while [[ $# -gt 0 ]]; do
  case $1 in
    --smoke) SMOKE=1 ;;
    --build) BUILD=$(realpath "$2"); shift ;;
    --work) WORK=$2; shift ;;
    --models) MODELS=$2; shift ;;
    --cache) CACHE=$2; shift ;;
    *) echo "counts.sh: error: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
TOOL=$BUILD/bin/onnx-remap
FLOOR=$BUILD/bin/parse_serialize
FLOOR_MI=$BUILD/bin/parse_serialize_mimalloc
CHECK=$BUILD/bin/check_output
command -v valgrind >/dev/null || { echo "counts.sh: error: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
for b in "$TOOL" "$FLOOR" "$CHECK"; do
  [[ -x $b ]] || { echo "counts.sh: error: $b: not built (cmake --build build)" >&2; exit 2; }
done

if [[ $SMOKE == 1 ]]; then
  MODELS=${MODELS:-control}
  MODELDIR=$SRC/bench/models/smoke
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
else
  MODELS=${MODELS:-control control4k}
  MODELDIR=$WORK/models
  mkdir -p "$MODELDIR"
fi
for model in $MODELS; do
  [[ -f $MODELDIR/$model.onnx ]] && continue
  [[ $SMOKE == 0 ]] || { echo "counts.sh: error: $MODELDIR/$model.onnx missing" >&2; exit 2; }
  # run.sh knows how each model is made; one round of nothing but the generator.
  bash "$SRC/bench/run.sh" --build "$BUILD" --work "$WORK" --models "$model" --rounds 0 >/dev/null || exit 2
done

# count NAME MODEL CMD...: one run under cachegrind; appends
# "NAME MODEL Ir I1mr D1m LLm" to $WORK/counts, or "NAME MODEL fail" when it fails.
count() {
  local name=$1 model=$2
  shift 2
  rm -rf "$WORK/out" && mkdir -p "$WORK/out"
  # shellcheck disable=SC2086
  valgrind --tool=cachegrind --cache-sim=yes $CACHE --cachegrind-out-file="$WORK/cg.out" "$@" \
    >"$WORK/cmd.log" 2>&1
  local rc=$?
  # onnx-remap exits 1 when nodes are left: the check below reports it.
  if [[ $rc -ne 0 && ! ($name == tool && $rc -eq 1) ]]; then
    echo "$name $model fail" >>"$WORK/counts"
    echo "  $name on $model: exit $rc: $(tail -n 3 "$WORK/cmd.log" | tr '\n' ' ')" >&2
    FAILED=1
    return
  fi
  # The file's totals, in the order of its "events:" line.
  awk -v name="$name" -v model="$model" '
    /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
    /^summary:/ { for (i = 2; i <= NF; i++) v[i - 1] = $i }
    END {
      # %.0f, not %d: mawk clips %d at 2^31, and a large model runs more instructions.
      printf "%s %s %.0f %.0f %.0f %.0f\n", name, model, v[col["Ir"]], v[col["I1mr"]],
        v[col["D1mr"]] + v[col["D1mw"]], v[col["DLmr"]] + v[col["DLmw"]] + v[col["ILmr"]]
    }' "$WORK/cg.out" >>"$WORK/counts"
  if [[ $name == tool ]] && ! "$CHECK" "$MODELDIR/$model.onnx" "$WORK/out/$model.onnx"; then
    echo "  tool on $model: output check failed" >&2
    echo "tool $model badout" >>"$WORK/counts"
    FAILED=1
  fi
}

FAILED=0
: >"$WORK/counts"
for model in $MODELS; do
  echo "counting $model" >&2
  count tool "$model" "$TOOL" rewrite "$MODELDIR/$model.onnx" -o "$WORK/out/$model.onnx" \
    --rules "$SRC/bench/rules/leaky_relu.textproto" -q --no-fsync
  count floor "$model" "$FLOOR" "$MODELDIR/$model.onnx" "$WORK/out/$model.onnx"
  [[ -x $FLOOR_MI ]] && count floormi "$model" "$FLOOR_MI" "$MODELDIR/$model.onnx" "$WORK/out/$model.onnx"
done
rm -rf "$WORK/out" "$WORK/cg.out" "$WORK/cmd.log"

echo
echo "| model | onnx-remap: Ir, I1 misses, D1 misses, LL misses | floor | floor on mimalloc | tool/floor: Ir, I1, D1, LL | tool/floor on mimalloc: Ir, I1, D1, LL |"
echo "|---|---|---|---|---|---|"
for model in $MODELS; do
  awk -v model="$model" '
    function m(x) { return x >= 1e6 ? sprintf("%.1fM", x / 1e6) : x >= 1e3 ? sprintf("%.1fk", x / 1e3) : x }
    function cell(c) { return bad[c] ? bad[c] : (c in ir) ? sprintf("%s, %s, %s, %s", m(ir[c]), m(i1[c]), m(d1[c]), m(ll[c])) : "n/a" }
    function div(a, b) { return b > 0 ? sprintf(a / b < 10 ? "%.2f" : "%.1f", a / b) : "inf" }
    function ratio(c) {
      if (bad["tool"] || bad[c] || !(c in ir) || !("tool" in ir)) return "-"
      return sprintf("%sx, %sx, %sx, %sx", div(ir["tool"], ir[c]), div(i1["tool"], i1[c]), div(d1["tool"], d1[c]), div(ll["tool"], ll[c]))
    }
    $2 == model && $3 == "fail" { bad[$1] = "fails"; next }
    $2 == model && $3 == "badout" { bad[$1] = "wrong output"; next }
    $2 == model { ir[$1] = $3; i1[$1] = $4; d1[$1] = $5; ll[$1] = $6 }
    END { printf "| %s | %s | %s | %s | %s | %s |\n", model, cell("tool"), cell("floor"), cell("floormi"), ratio("floor"), ratio("floormi") }
  ' "$WORK/counts"
done
echo
echo "(cachegrind $(valgrind --version); cache: $CACHE; $(basename "$TOOL") $("$TOOL" --version 2>/dev/null | head -n 1))"
exit "$FAILED"
