#!/usr/bin/env bash
# Issue 11 benchmark: onnx-remap against what a user could run instead, on the
# models of bench/models/generate.py. Per model and round it runs, one after
# the other (interleaved, so drift hits all alike):
#   tool    onnx-remap rewrite IN -o OUT --rules bench/rules/leaky_relu.textproto
#   toolnf  the same with --no-fsync (the output is not synced, as cp's is not)
#   python  bench/baseline/rewrite.py IN OUT      (skipped without python3-onnx)
#   floor   parse_serialize IN OUT                (protobuf parse + serialize)
#   floormi parse_serialize_mimalloc IN OUT       (the same on mimalloc, the
#           tool's allocator; only when the build has it)
#   cp      cp IN [its external data files] OUTDIR/
#   cpsync  the same cp, then sync of the copies (onnx-remap fsyncs its output)
# timing each with bash's `time` (wall, user and system CPU seconds, to the
# millisecond: on a shared machine CPU time is the steadier) around
# /usr/bin/time -f '%M' (peak RSS KiB; its own %e counts 10 ms steps, too
# coarse for the small models, and it adds about 1 ms to every command alike),
# checks the
# outputs of tool and python with check_output (loads, no ATen left,
# initializers byte-identical), and prints the medians and ratios as a
# Markdown table. Exit status 1 when any run or check failed.
#
#   bash bench/run.sh [--smoke] [--build DIR] [--tool BIN] [--rounds N]
#                     [--work DIR] [--models "chain layers layers-ext control"]
# --smoke uses the tiny committed models in bench/models/smoke (seconds; the
# ctest bench.smoke). Otherwise models are generated into --work (default
# /tmp/onnx-remap-bench) unless present; model names and sizes:
#   chain        1M nodes                     layers      48 x D=832, 1.6 GB embedded
#   layers-ext   the same as external data    layers-6g   48 x D=1664, 6.4 GB external
#   control      400 If/Loop blocks (8k nodes)
#   control4k    4,000 blocks (80k nodes)     control40k  40,000 blocks (800k nodes)
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$SRC/build
TOOL=
ROUNDS=3
WORK=/tmp/onnx-remap-bench
MODELS="chain layers layers-ext control"
SMOKE=0
PY=/usr/bin/python3
while [[ $# -gt 0 ]]; do
  case $1 in
    --smoke) SMOKE=1 ;;
    --build) BUILD=$(realpath "$2"); shift ;;
    --tool) TOOL=$(realpath "$2"); shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --work) WORK=$2; shift ;;
    --models) MODELS=$2; shift ;;
    *) echo "run.sh: error: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
TOOL=${TOOL:-$BUILD/bin/onnx-remap}
FLOOR=$BUILD/bin/parse_serialize
FLOOR_MI=$BUILD/bin/parse_serialize_mimalloc
HAVE_MI=0
[[ -x $FLOOR_MI ]] && HAVE_MI=1
CHECK=$BUILD/bin/check_output
for b in "$TOOL" "$FLOOR" "$CHECK" /usr/bin/time; do
  [[ -x $b ]] || { echo "run.sh: error: $b: not built (cmake --build build)" >&2; exit 2; }
done
HAVE_PY=1
# Not just `import onnx`: libonnx-testdata's data folder under dist-packages/onnx
# imports as an empty namespace package where python3-onnx is not installed.
"$PY" -c 'import onnx.helper, onnx.numpy_helper' 2>/dev/null || HAVE_PY=0

if [[ $SMOKE == 1 ]]; then
  MODELDIR=$SRC/bench/models/smoke
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
else
  MODELDIR=$WORK/models
  mkdir -p "$MODELDIR"
fi

gen_args() {
  case $1 in
    chain) echo "chain --nodes 1000000" ;;
    layers) echo "layers --layers 48 --hidden 832" ;;
    layers-ext) echo "layers --layers 48 --hidden 832 --external" ;;
    layers-6g) echo "layers --layers 48 --hidden 1664 --external" ;;
    control) echo "control --blocks 400" ;;
    control4k) echo "control --blocks 4000" ;;
    control40k) echo "control --blocks 40000" ;;
    *) return 1 ;;
  esac
}

# The files a model consists of: the .onnx and the external data beside it.
model_files() { ls "$MODELDIR/$1.onnx" "$MODELDIR/$1.weights" 2>/dev/null; }

# run NAME MODEL OUTDIR CMD...: one timed run; appends "NAME MODEL wall kib
# user sys" to $WORK/times, or "NAME MODEL fail exit" when the command fails.
run() {
  local name=$1 model=$2 out=$3
  shift 3
  rm -rf "$out" && mkdir -p "$out"
  # Untimed: what earlier runs wrote unsynced (--no-fsync, the floor, cp,
  # Python) goes to disk now, not in the background of this run; written
  # back while a run was timed, it cost that run up to 0.8 s of system time.
  sync
  local TIMEFORMAT='%3R %3U %3S'
  { time /usr/bin/time -f '%M' -o "$WORK/rss.txt" "$@" >"$WORK/cmd.log" 2>&1; } 2>"$WORK/time.txt"
  local rc=$?
  # onnx-remap exits 1 when nodes are left: the check below reports it.
  if [[ $rc -ne 0 && ! ($name == tool* && $rc -eq 1) ]]; then
    echo "$name $model fail $rc" >>"$WORK/times"
    echo "  $name on $model: exit $rc: $(tail -n 3 "$WORK/cmd.log" | tr '\n' ' ')" >&2
    FAILED=1
    return
  fi
  local wall user sys
  read -r wall user sys <"$WORK/time.txt"
  echo "$name $model $wall $(tail -n 1 "$WORK/rss.txt") $user $sys" >>"$WORK/times"
  if [[ $name == tool* || $name == python ]] && ! "$CHECK" "$MODELDIR/$model.onnx" "$out/$model.onnx"; then
    echo "  $name on $model: output check failed" >&2
    echo "$name $model badout 0" >>"$WORK/times"
    FAILED=1
  fi
}

FAILED=0
: >"$WORK/times"
for model in $MODELS; do
  if [[ ! -f $MODELDIR/$model.onnx ]]; then
    [[ $SMOKE == 0 && $HAVE_PY == 1 ]] || { echo "run.sh: error: $MODELDIR/$model.onnx missing" >&2; exit 2; }
    args=$(gen_args "$model") || { echo "run.sh: error: unknown model $model" >&2; exit 2; }
    echo "generating $model ($args)" >&2
    # shellcheck disable=SC2086
    "$PY" "$SRC/bench/models/generate.py" ${args%% *} "$MODELDIR/$model.onnx" ${args#* } || exit 1
  fi
  for ((r = 1; r <= ROUNDS; r++)); do
    echo "round $r/$ROUNDS: $model" >&2
    run tool "$model" "$WORK/out/tool" "$TOOL" rewrite "$MODELDIR/$model.onnx" -o "$WORK/out/tool/$model.onnx" \
      --rules "$SRC/bench/rules/leaky_relu.textproto" -q
    run toolnf "$model" "$WORK/out/toolnf" "$TOOL" rewrite "$MODELDIR/$model.onnx" -o "$WORK/out/toolnf/$model.onnx" \
      --rules "$SRC/bench/rules/leaky_relu.textproto" -q --no-fsync
    if [[ $HAVE_PY == 1 ]]; then
      run python "$model" "$WORK/out/python" "$PY" "$SRC/bench/baseline/rewrite.py" "$MODELDIR/$model.onnx" \
        "$WORK/out/python/$model.onnx"
    fi
    run floor "$model" "$WORK/out/floor" "$FLOOR" "$MODELDIR/$model.onnx" "$WORK/out/floor/$model.onnx"
    if [[ $HAVE_MI == 1 ]]; then
      run floormi "$model" "$WORK/out/floormi" "$FLOOR_MI" "$MODELDIR/$model.onnx" "$WORK/out/floormi/$model.onnx"
    fi
    # shellcheck disable=SC2046
    run cp "$model" "$WORK/out/cp" cp $(model_files "$model") "$WORK/out/cp/"
    # onnx-remap fsyncs what it writes (an output is complete or absent, even
    # after a crash); cp does not. The same copy made durable, for comparison.
    # shellcheck disable=SC2046
    run cpsync "$model" "$WORK/out/cpsync" bash -c 'cp "$@" && sync "${@: -1}"/*' cp $(model_files "$model") \
      "$WORK/out/cpsync"
  done
  rm -rf "$WORK/out"
done

# The table: medians per model and command, then the ratios of the tool's.
echo
echo "| model | size | onnx-remap: wall (cpu), peak RSS | onnx-remap --no-fsync | floor (parse+serialize) | floor on mimalloc | Python onnx | cp | cp + sync | tool/floor | tool/floor on mimalloc | tool/cp | tool --no-fsync/cp | tool/(cp + sync) | tool/Python | tool RSS / floor RSS | tool RSS / size |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for model in $MODELS; do
  # shellcheck disable=SC2046
  size=$(du -cb $(model_files "$model") | tail -n 1 | cut -f1)
  awk -v model="$model" -v size="$size" -v havepy="$HAVE_PY" -v havemi="$HAVE_MI" '
    function median(list,   n, a, i, j, t) {
      n = split(list, a, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function human(b) { return b >= 1e9 ? sprintf("%.2f GB", b / 1e9) : b >= 1e6 ? sprintf("%.1f MB", b / 1e6) : sprintf("%.0f kB", b / 1e3) }
    function secs(s) { return s < 1 ? sprintf("%.3f s", s) : sprintf("%.2f s", s) }
    function cell(c) {
      if (bad[c]) return bad[c]
      if (!(c in t)) return "n/a"
      return sprintf("%s (cpu %s), %s", secs(T[c]), secs(U[c]), human(M[c] * 1024))
    }
    function div(a, b) { return b > 0 ? sprintf(a / b < 10 ? "%.2f" : "%.1f", a / b) : "inf" }
    function ratio_of(a, c) { return (bad[a] || bad[c] || !(c in t) || !(a in t)) ? "-" : div(T[a], T[c]) "x (cpu " div(U[a], U[c]) "x)" }
    function ratio(c) { return ratio_of("tool", c) }
    $2 == model && $3 == "fail" { bad[$1] = "fails (exit " $4 ")"; next }
    $2 == model && $3 == "badout" { bad[$1] = "wrong output"; next }
    $2 == model { t[$1] = t[$1] " " $3; m[$1] = m[$1] " " $4; u[$1] = u[$1] " " ($5 + $6) }
    END {
      for (c in t) { T[c] = median(t[c]); M[c] = median(m[c]); U[c] = median(u[c]) }
      rss = ("tool" in t && !bad["tool"]) ? sprintf("%.2f", M["tool"] * 1024 / size) : "-"
      rss_floor = ("tool" in t && !bad["tool"] && "floor" in t && !bad["floor"]) ? div(M["tool"], M["floor"]) "x" : "-"
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", model, human(size),
        cell("tool"), cell("toolnf"), cell("floor"), havemi ? cell("floormi") : "not built (no mimalloc)",
        havepy ? cell("python") : "skipped (no python3-onnx)", cell("cp"), cell("cpsync"), ratio("floor"),
        havemi ? ratio("floormi") : "-", ratio("cp"), ratio_of("toolnf", "cp"), ratio("cpsync"), ratio("python"), rss_floor, rss
    }' "$WORK/times"
done
echo
echo "(medians of $ROUNDS interleaved rounds; $(nproc) cores; $(basename "$TOOL") $("$TOOL" --version 2>/dev/null | head -n 1))"
exit "$FAILED"
