#!/usr/bin/env bash
# Faults while writing, and determinism: a run killed mid-write, a full disk
# (file-size limit), unusable destinations, two processes on one output, the
# output's external data, byte-identical and idempotent results.
#
#   faults_test.sh BIN SOURCE_DIR WORK_DIR MAKE_WEIGHTED_MODEL [NODE]
#
# The large models come from tests/tools/make_weighted_model.cc, written into
# WORK_DIR at run time (ONNX_REMAP_FAULTS_MIB sets the size of the one killed
# mid-write; default 200; its external-data twin is a quarter of that). With NODE (and tests/ort/node_modules), outputs with
# external data are also run in onnxruntime against their reference data.
set -uo pipefail
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3 MAKE=$4 NODE=${5:-}
MIB=${ONNX_REMAP_FAULTS_MIB:-200}
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
source "$SRC/tests/cli/expect_lib.sh"
FIX=$SRC/tests/fixtures/torch
[[ -n $NODE && -d $SRC/tests/ort/node_modules/onnxruntime-node ]] || NODE=""

sha() { sha256sum "$1" | cut -d' ' -f1; }
# The names in a folder, dot files included, one line: what "nothing left behind" is checked against.
names() { (cd "$1" && ls -A | LC_ALL=C sort | tr '\n' ' '); }
# runs_in_ort MODEL CASE_DIR: the model loads with its data and matches the case's reference outputs.
runs_in_ort() { [[ -z $NODE ]] || "$NODE" "$SRC/tests/ort/compare.mjs" "$1" "$2" --rtol 1e-4 --atol 1e-5 >/dev/null 2>&1; }
# rewrite ARGS...: the CLI, quietly; its exit code.
rewrite() { "$BIN" rewrite "$@" >"$WORK/last.log" 2>&1; }

mkdir -p "$WORK/in" "$WORK/ref"

# --- Interrupted run: kill -9 while the output is being written -------------
# The old output is that of another (small) model: any complete file will do.
"$MAKE" "$WORK/in/big.onnx" "$MIB" 1 && "$MAKE" "$WORK/in/old.onnx" 1 2 || { echo "FAIL generator"; exit 1; }
rewrite "$WORK/in/big.onnx" -o "$WORK/ref/new.onnx"; check "large model: uninterrupted rewrite exits 0" test $? -eq 0
rewrite "$WORK/in/old.onnx" -o "$WORK/ref/old.onnx"; check "large model: the old output is written" test $? -eq 0
NEW=$(sha "$WORK/ref/new.onnx") OLD=$(sha "$WORK/ref/old.onnx") IN=$(sha "$WORK/in/big.onnx")

# kill_mid_write OUT INPUT [ARGS...]: starts the rewrite (with ARGS), waits until it holds a file in
# OUT's folder other than OUT and INPUT (its temp file: the writing has begun),
# waits 0-90 ms more and kills it. Sets $mid to 1 when it was still running.
kill_mid_write() {
  local out=$1 input=$2 dir fd t seen=""
  shift 2
  dir=$(dirname "$out")
  # The plain save: the spliced one copies the weights inside the kernel,
  # too quickly for a kill to land in it (same atomic writer, same guarantees).
  ONNX_REMAP_SPLICE_MIN_BYTES=0 "$BIN" rewrite "$input" -o "$out" "$@" >/dev/null 2>&1 &
  local pid=$!
  local i=0
  while [[ $i -lt 3000 && -z $seen ]]; do
    ((i++))
    for fd in /proc/$pid/fd/*; do
      t=$(readlink "$fd" 2>/dev/null) || continue
      [[ $t == "$dir"/* && $t != "$out" && $t != "$input" ]] && { seen=$t; break; }
    done
    [[ -n $seen ]] || kill -0 $pid 2>/dev/null || break
    [[ -n $seen ]] || sleep 0.01
  done
  sleep "0.0$((RANDOM % 10))"
  kill -9 $pid 2>/dev/null
  wait $pid
  [[ $? -eq 137 && -n $seen ]] && mid=1 || mid=0
  echo "    killed pid $pid (writing: ${seen:-never seen}; mid-write: $mid)"
}

mkdir -p "$WORK/kill"
killed_mid=0
for round in 1 2 3; do
  cp "$WORK/ref/old.onnx" "$WORK/kill/out.onnx"
  kill_mid_write "$WORK/kill/out.onnx" "$WORK/in/big.onnx"
  ((killed_mid += mid))
  s=$(sha "$WORK/kill/out.onnx")
  check "kill -9 #$round: the output is the old file or the new one, complete" test "$s" = "$OLD" -o "$s" = "$NEW"
  check "kill -9 #$round: no temporary file is left" test "$(names "$WORK/kill")" = "out.onnx "
done
check "kill -9: at least one kill landed while the output was being written ($killed_mid of 3)" test $killed_mid -ge 1
rewrite "$WORK/in/big.onnx" -o "$WORK/kill/out.onnx"
check "after the kills, a new run writes the new output" test "$(sha "$WORK/kill/out.onnx")" = "$NEW"
check "after the kills, nothing else is in the folder" test "$(names "$WORK/kill")" = "out.onnx "

# In place: the input is the output; killed, it stays the input.
mkdir -p "$WORK/kill-inplace"
cp "$WORK/in/big.onnx" "$WORK/kill-inplace/model.onnx"
kill_mid_write "$WORK/kill-inplace/model.onnx" "$WORK/kill-inplace/model.onnx"
s=$(sha "$WORK/kill-inplace/model.onnx")
check "kill -9 in place: the model is the input or the rewritten one, complete" test "$s" = "$IN" -o "$s" = "$NEW"
check "kill -9 in place: no temporary file is left" test "$(names "$WORK/kill-inplace")" = "model.onnx "

# Killed while copying the model's external data to the output's folder: what
# is there is complete (the data file, then the model), nothing else. A copy
# (--data-files copy): the default hard link has nothing to interrupt.
mkdir -p "$WORK/in-ext" "$WORK/kill-ext"
"$MAKE" "$WORK/in-ext/model.onnx" $((MIB / 4 + 1)) 1 w.bin
rewrite "$WORK/in-ext/model.onnx" -o "$WORK/ref/ext-new.onnx"
EXTNEW=$(sha "$WORK/ref/ext-new.onnx") EXTDATA=$(sha "$WORK/in-ext/w.bin")
rm -f "$WORK/ref/w.bin"
for round in 1 2; do
  rm -rf "$WORK/kill-ext" && mkdir "$WORK/kill-ext"
  kill_mid_write "$WORK/kill-ext/model.onnx" "$WORK/in-ext/model.onnx" --data-files copy
  ok=1
  for f in "$WORK/kill-ext"/* "$WORK/kill-ext"/.[!.]*; do
    [[ -e $f ]] || continue
    case $(basename "$f") in
      w.bin) [[ $(sha "$f") == "$EXTDATA" ]] || ok=0 ;;
      model.onnx) [[ $(sha "$f") == "$EXTNEW" && -f $WORK/kill-ext/w.bin ]] || ok=0 ;;
      *) echo "    left behind: $f"; ok=0 ;;
    esac
  done
  check "kill -9 during external data #$round: only complete files, model only with its data" test $ok -eq 1
done
check "the input's data file is unchanged after the kills" test "$(sha "$WORK/in-ext/w.bin")" = "$EXTDATA"
rm -f "$WORK/in/big.onnx" "$WORK/ref/new.onnx" "$WORK/ref/ext-new.onnx"

# A temp file a killed run left (named temp files are the fallback where the
# file system has no O_TMPFILE) is removed by the next write into its folder;
# one a live writer holds (flock) is not, nor files that only look alike.
mkdir -p "$WORK/stale"
"$MAKE" "$WORK/in/small.onnx" 1 3
echo junk >"$WORK/stale/.out.onnx.onnx-remap-tmp-Ab12Cd"
echo junk >"$WORK/stale/.other.onnx.onnx-remap-tmp-Zz99Yy"
echo junk >"$WORK/stale/.held.onnx.onnx-remap-tmp-Held00"
echo mine >"$WORK/stale/.out.onnx.tmp-Ab12Cd"
ln -s "$WORK/in/small.onnx" "$WORK/stale/.link.onnx.onnx-remap-tmp-Link00"
flock -x "$WORK/stale/.held.onnx.onnx-remap-tmp-Held00" sleep 60 &
holder=$!
sleep 0.3
rewrite "$WORK/in/small.onnx" -o "$WORK/stale/out.onnx"
check "stale temp files: the rewrite exits 0" test $? -eq 0
check "stale temp files of a killed run are removed; held, foreign and symlinked ones kept" \
  test "$(names "$WORK/stale")" = ".held.onnx.onnx-remap-tmp-Held00 .link.onnx.onnx-remap-tmp-Link00 .out.onnx.tmp-Ab12Cd out.onnx "
kill $holder 2>/dev/null; wait $holder 2>/dev/null

# --- Full disk: a file-size limit makes the write fail -----------------------
mkdir -p "$WORK/full"
"$MAKE" "$WORK/in/four.onnx" 4 4
rewrite "$WORK/in/small.onnx" -o "$WORK/full/out.onnx"
SMALLOUT=$(sha "$WORK/full/out.onnx")
out=$(ulimit -f 1024; "$BIN" rewrite "$WORK/in/four.onnx" -o "$WORK/full/out.onnx" 2>&1); code=$?
check "ulimit -f: exit 6 (not killed by SIGXFSZ; got $code)" test $code -eq 6
check "ulimit -f: one clear error line" grep -Eqx "onnx-remap: error: $WORK/full/out.onnx: write failed: File too large" <<<"$out"
check "ulimit -f: the old output is unchanged, nothing left behind" \
  test "$(sha "$WORK/full/out.onnx")" = "$SMALLOUT" -a "$(names "$WORK/full")" = "out.onnx "
(ulimit -f 1024; "$BIN" rewrite "$WORK/in/four.onnx" -o "$WORK/full/new.onnx" >/dev/null 2>&1)
check "ulimit -f: no new output is created" test "$(names "$WORK/full")" = "out.onnx "

# External data that does not fit (copied: a hard link writes no data): no
# data file, no folder left.
mkdir -p "$WORK/in-ext4/data" "$WORK/full-ext"
"$MAKE" "$WORK/in-ext4/model.onnx" 4 5 data/w.bin
out=$(ulimit -f 1024; "$BIN" rewrite "$WORK/in-ext4/model.onnx" -o "$WORK/full-ext/model.onnx" --data-files copy 2>&1); code=$?
check "ulimit -f, external data: exit 6 (got $code)" test $code -eq 6
check "ulimit -f, external data: the error names the data file" grep -Eq "cannot copy external data .*data/w.bin.*File too large" <<<"$out"
check "ulimit -f, external data: nothing left behind (no data, no data/ folder)" test -z "$(names "$WORK/full-ext")"
out=$(ulimit -f 1024; "$BIN" rewrite "$WORK/in-ext4/model.onnx" -o "$WORK/full-ext/model.onnx" 2>&1); code=$?
check "ulimit -f, external data hard-linked (the default): no data written, exit 0 (got $code)" \
  test $code -eq 0 -a "$(stat -c %i "$WORK/full-ext/data/w.bin")" = "$(stat -c %i "$WORK/in-ext4/data/w.bin")"

# The data is copied, then the model cannot be saved: the copied data goes.
mkdir -p "$WORK/dest-dir/model.onnx"
rewrite "$WORK/in-ext4/model.onnx" -o "$WORK/dest-dir/model.onnx"; code=$?
check "model not saved after its data was copied: exit 6" test $code -eq 6
check "model not saved after its data was copied: the copied data is removed" test "$(names "$WORK/dest-dir")" = "model.onnx " -a -z "$(names "$WORK/dest-dir/model.onnx")"

# --- Unusable destinations ----------------------------------------------------
mkdir -p "$WORK/ro" "$WORK/isdir/out.onnx"
cp "$WORK/full/out.onnx" "$WORK/ro/out.onnx"
chmod 555 "$WORK/ro"
if [[ $(id -u) -ne 0 ]]; then as_user=()
elif command -v setpriv >/dev/null; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else as_user=(skip); fi
if [[ ${as_user[0]:-} == skip ]]; then
  echo "SKIP read-only folder: running as root without setpriv"
elif ! "${as_user[@]}" test -r "$WORK/in/small.onnx" -a -x "$WORK/ro"; then
  # A clone under /root (mode 700): the other user cannot reach the input,
  # and would fail on that (exit 3) before the folder's permissions matter.
  echo "SKIP read-only folder: user 65534 cannot reach $WORK (clone the repo where other users can read it)"
else
  out=$("${as_user[@]}" "$BIN" rewrite "$WORK/in/small.onnx" -o "$WORK/ro/out.onnx" 2>&1); code=$?
  check "read-only folder: exit 6 (got $code)" test $code -eq 6
  check "read-only folder: one clear error line" grep -Eqx "onnx-remap: error: $WORK/ro/out.onnx: cannot create a file in $WORK/ro: Permission denied" <<<"$out"
  check "read-only folder: the old output is unchanged" test "$(sha "$WORK/ro/out.onnx")" = "$SMALLOUT" -a "$(names "$WORK/ro")" = "out.onnx "
fi
chmod 755 "$WORK/ro"

expect "output is a folder: exit 6" 6 "^onnx-remap: error: $WORK/isdir/out.onnx: is a directory$" -- rewrite "$WORK/in/small.onnx" -o "$WORK/isdir/out.onnx"
check "output is a folder: the folder is untouched" test -d "$WORK/isdir/out.onnx" -a -z "$(names "$WORK/isdir/out.onnx")" -a "$(names "$WORK/isdir")" = "out.onnx "
mkfifo "$WORK/isdir/pipe.onnx"
expect "output is a pipe: exit 6" 6 "^onnx-remap: error: $WORK/isdir/pipe.onnx: exists and is not a regular file$" -- rewrite "$WORK/in/small.onnx" -o "$WORK/isdir/pipe.onnx"
check "output is a pipe: the pipe is not replaced" test -p "$WORK/isdir/pipe.onnx"

mkdir -p "$WORK/inplace"
cp "$WORK/in/small.onnx" "$WORK/inplace/model.onnx"
chmod 600 "$WORK/inplace/model.onnx"
rewrite "$WORK/inplace/model.onnx" -o "$WORK/inplace/model.onnx"; code=$?
check "in place: exit 0, the result equals a rewrite elsewhere, nothing else in the folder" \
  test $code -eq 0 -a "$(sha "$WORK/inplace/model.onnx")" = "$SMALLOUT" -a "$(names "$WORK/inplace")" = "model.onnx "
check "in place: the file keeps its permissions (0600)" test "$(stat -c %a "$WORK/inplace/model.onnx")" = 600

# --- External data of the output: never the input's data files ---------------
EXT=$FIX/external_data_asinh_op13
fresh() { rm -rf "$WORK/$1" && mkdir -p "$WORK/$1" && cp -r "$EXT"/. "$WORK/$1/"; }
DATA=$(sha "$EXT/weights.bin")
fresh ext-next
rewrite "$WORK/ext-next/model.onnx" -o "$WORK/ext-next/fixed.onnx"; code=$?
check "ext data, output next to the input: exit 0, input data unchanged" test $code -eq 0 -a "$(sha "$WORK/ext-next/weights.bin")" = "$DATA"
check "ext data, output next to the input: it runs in onnxruntime" runs_in_ort "$WORK/ext-next/fixed.onnx" "$EXT"
fresh ext-inplace
rewrite "$WORK/ext-inplace/model.onnx" -o "$WORK/ext-inplace/model.onnx"; code=$?
check "ext data, in place: exit 0, data unchanged, no other file" \
  test $code -eq 0 -a "$(sha "$WORK/ext-inplace/weights.bin")" = "$DATA" -a "$(names "$WORK/ext-inplace")" = "model.onnx test_data_set_0 weights.bin "
check "ext data, in place: it runs in onnxruntime" runs_in_ort "$WORK/ext-inplace/model.onnx" "$EXT"
fresh ext-onto-data
expect "ext data, output is the input's data file: exit 6" 6 "^onnx-remap: error: $WORK/ext-onto-data/weights.bin: is the external data file 'weights.bin' the model refers to; nothing written$" \
  -- rewrite "$WORK/ext-onto-data/model.onnx" -o "$WORK/ext-onto-data/weights.bin"
check "ext data, output is the input's data file: the data is unchanged" test "$(sha "$WORK/ext-onto-data/weights.bin")" = "$DATA"
mkdir -p "$WORK/ext-other"
expect "ext data, output is the data file the output folder would get: exit 6" 6 "is the external data file 'weights.bin'" \
  -- rewrite "$WORK/ext-next/model.onnx" -o "$WORK/ext-other/weights.bin"
check "ext data, output onto the data file in another folder: nothing written" test -z "$(names "$WORK/ext-other")"
echo "other content" >"$WORK/ext-other/weights.bin"
expect "ext data, another folder holds another weights.bin: exit 6" 6 "weights.bin exists with other content" \
  -- rewrite "$WORK/ext-next/model.onnx" -o "$WORK/ext-other/fixed.onnx"
check "ext data, another folder holds another weights.bin: it is not overwritten, no model" \
  test "$(cat "$WORK/ext-other/weights.bin")" = "other content" -a "$(names "$WORK/ext-other")" = "weights.bin "
rm -rf "$WORK/ext-other" && mkdir -p "$WORK/ext-other"
rewrite "$WORK/ext-next/model.onnx" -o "$WORK/ext-other/fixed.onnx"; code=$?
check "ext data, another folder: the data is copied, nothing else" \
  test $code -eq 0 -a "$(names "$WORK/ext-other")" = "fixed.onnx weights.bin " -a "$(sha "$WORK/ext-other/weights.bin")" = "$DATA"
check "ext data, another folder: it runs in onnxruntime" runs_in_ort "$WORK/ext-other/fixed.onnx" "$EXT"
check "ext data: the source folder is unchanged" test "$(names "$WORK/ext-next")" = "fixed.onnx model.onnx test_data_set_0 weights.bin "

# --- Two processes on one output ----------------------------------------------
"$MAKE" "$WORK/in/a.onnx" 2 6 && "$MAKE" "$WORK/in/b.onnx" 2 7
rewrite "$WORK/in/a.onnx" -o "$WORK/ref/a.onnx" && rewrite "$WORK/in/b.onnx" -o "$WORK/ref/b.onnx"
A=$(sha "$WORK/ref/a.onnx") B=$(sha "$WORK/ref/b.onnx")
mkdir -p "$WORK/race"
race_ok=0 race_exit=0
for round in $(seq 1 25); do
  "$BIN" rewrite "$WORK/in/a.onnx" -o "$WORK/race/out.onnx" >/dev/null 2>&1 & p1=$!
  "$BIN" rewrite "$WORK/in/b.onnx" -o "$WORK/race/out.onnx" >/dev/null 2>&1 & p2=$!
  wait $p1; e1=$?; wait $p2; e2=$?
  [[ $e1 -eq 0 && $e2 -eq 0 ]] && ((race_exit++))
  s=$(sha "$WORK/race/out.onnx")
  [[ ($s == "$A" || $s == "$B") && $(names "$WORK/race") == "out.onnx " ]] && ((race_ok++))
done
check "two processes, one output: both exit 0 ($race_exit of 25 rounds)" test $race_exit -eq 25
check "two processes, one output: one complete output, no temp files ($race_ok of 25 rounds)" test $race_ok -eq 25
"$BIN" scan "$WORK/race/out.onnx" >/dev/null 2>&1
check "two processes, one output: the result loads (scan exits 0)" test $? -eq 0
# The same with external data written into one new folder by both.
race_ok=0
for round in $(seq 1 10); do
  rm -rf "$WORK/race-ext" && mkdir "$WORK/race-ext"
  "$BIN" rewrite "$WORK/ext-next/model.onnx" -o "$WORK/race-ext/m.onnx" >/dev/null 2>&1 & p1=$!
  "$BIN" rewrite "$WORK/ext-next/model.onnx" -o "$WORK/race-ext/m.onnx" >/dev/null 2>&1 & p2=$!
  wait $p1; e1=$?; wait $p2; e2=$?
  [[ $e1 -eq 0 && $e2 -eq 0 && $(names "$WORK/race-ext") == "m.onnx weights.bin " && $(sha "$WORK/race-ext/weights.bin") == "$DATA" ]] && ((race_ok++))
done
check "two processes, one output with external data: both succeed, data complete ($race_ok of 10)" test $race_ok -eq 10
check "two processes, one output with external data: it runs in onnxruntime" runs_in_ort "$WORK/race-ext/m.onnx" "$EXT"

# --- Determinism and idempotence ----------------------------------------------
# Fixtures: plain, subgraphs (Loop/If at depth), external data (in a subfolder),
# and one whose opset is raised.
mkdir -p "$WORK/det"
det_case() {  # NAME MODEL [OPTIONS...]
  local name=$1 model=$2
  shift 2
  local d=$WORK/det/$name
  mkdir -p "$d/1" "$d/2" "$d/3"
  rewrite "$model" -o "$d/1/out.onnx" "$@"; local c1=$?
  rewrite "$model" -o "$d/2/out.onnx" "$@"
  check "determinism $name: two runs give byte-identical output (exit $c1)" cmp -s "$d/1/out.onnx" "$d/2/out.onnx"
  rewrite "$d/1/out.onnx" -o "$d/3/out.onnx"
  check "idempotence $name: rewriting the output again changes nothing" cmp -s "$d/1/out.onnx" "$d/3/out.onnx"
}
det_case asinh "$SRC/tests/fixtures/corpus/asinh_op13/model.onnx"
det_case subgraphs "$FIX/arch_script_loop_nested_if_fallbacks_op13/model.onnx"
det_case ext_subdir "$FIX/external_data_subdir_asinh_op13/model.onnx"
det_case opset_raised "$SRC/examples/conv_asinh_tril.onnx" --opset 14
check "determinism: the external data output runs in onnxruntime" runs_in_ort "$WORK/det/ext_subdir/3/out.onnx" "$FIX/external_data_subdir_asinh_op13"

# Across --jobs: a folder of fixtures rewritten with 1 and 4 jobs.
mkdir -p "$WORK/det/tree"
for c in asinh_op13 arch_script_loop_nested_if_fallbacks_op13 arch_script_loop_if_fallbacks_op13 external_data_subdir_asinh_op13; do
  src=$FIX/$c; [[ -d $src ]] || src=$SRC/tests/fixtures/corpus/$c
  mkdir -p "$WORK/det/tree/$c" && cp -r "$src"/. "$WORK/det/tree/$c/"
done
"$BIN" rewrite "$WORK/det/tree" -o "$WORK/det/jobs1" --jobs 1 >/dev/null 2>&1
"$BIN" rewrite "$WORK/det/tree" -o "$WORK/det/jobs4" --jobs 4 >/dev/null 2>&1
check "determinism across --jobs: the output trees are byte-identical" diff -r "$WORK/det/jobs1" "$WORK/det/jobs4"
check "determinism across --jobs: every model was written" test "$(find "$WORK/det/jobs4" -name '*.onnx' | wc -l)" -eq 4

rm -rf "$WORK/in" "$WORK/in-ext" "$WORK/kill" "$WORK/kill-inplace" "$WORK/kill-ext" "$WORK/ref"
finish
