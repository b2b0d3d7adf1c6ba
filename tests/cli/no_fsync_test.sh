#!/usr/bin/env bash
# --no-fsync (issue 11): every way a rewrite or a conversion writes (the
# model whole or with spliced weights, a moved-out data file, a data file
# copied to another folder, a batch's other files) syncs without it and makes
# no fsync call with it, and the files are the same bytes either way. The
# calls are counted by an LD_PRELOAD library (tests/tools/fsync_counter.cc).
# A synced file past 128 MiB also has its writeback started as it is written
# (saver/writeback_pacer.h: sync_file_range calls, counted apart).
#
#   no_fsync_test.sh BIN SOURCE_DIR WORK_DIR FSYNC_COUNTER_LIBRARY MAKE_WEIGHTED_MODEL
set -uo pipefail
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3 COUNTER=$4 MAKE=$5
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
source "$SRC/tests/cli/expect_lib.sh"
CASE=$SRC/tests/fixtures/torch/arch_deform_conv_backbone_op13
# A sanitizer build's runtime must come first among the libraries; the
# counter comes before it here, which is harmless.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

# Runs BIN with ARGS in the counter; prints the number of sync calls.
syncs() {
  local log=$WORK/syncs.log
  rm -f "$log"
  FSYNC_COUNTER_LOG=$log LD_PRELOAD=$COUNTER "$BIN" "$@" >"$WORK/last.log" 2>&1
  local code=$?
  [[ $code -eq 0 ]] || { echo "    exit $code: $BIN $*" >&2; sed 's/^/    | /' "$WORK/last.log" >&2; echo "-1"; return; }
  if [[ -f $log ]]; then stat -c %s "$log"; else echo 0; fi
}
# The sync_file_range calls of the last `syncs` run.
starts() { if [[ -f $WORK/syncs.log ]]; then tr -cd r <"$WORK/syncs.log" | wc -c; else echo 0; fi; }
# Whether a sync count is of a synced run (some) or of an unsynced one (none).
some() { [[ $1 -gt 0 ]]; }
none() { [[ $1 -eq 0 ]]; }
same_tree() { diff -r "$1" "$2" >/dev/null; }

# The whole model.
mkdir -p "$WORK/sync" "$WORK/nosync"
n=$(syncs rewrite -q "$CASE/model.onnx" -o "$WORK/sync/fixed.onnx")
check "rewrite: synced by default ($n calls)" some "$n"
n=$(syncs rewrite -q "$CASE/model.onnx" -o "$WORK/nosync/fixed.onnx" --no-fsync)
check "rewrite --no-fsync: no sync call ($n)" none "$n"
check "rewrite --no-fsync: the same bytes" cmp -s "$WORK/sync/fixed.onnx" "$WORK/nosync/fixed.onnx"

# Weights spliced from the input file to the output.
n=$(ONNX_REMAP_SPLICE_MIN_BYTES=1024 syncs rewrite -q "$CASE/model.onnx" -o "$WORK/sync/spliced.onnx")
check "spliced rewrite: synced by default ($n calls)" some "$n"
n=$(ONNX_REMAP_SPLICE_MIN_BYTES=1024 syncs rewrite -q "$CASE/model.onnx" -o "$WORK/nosync/spliced.onnx" --no-fsync)
check "spliced rewrite --no-fsync: no sync call ($n)" none "$n"
check "spliced rewrite --no-fsync: the same bytes" cmp -s "$WORK/sync/spliced.onnx" "$WORK/nosync/spliced.onnx"

# Weights moved to a data file.
mkdir -p "$WORK/sync/ext" "$WORK/nosync/ext"
n=$(syncs rewrite -q "$CASE/model.onnx" -o "$WORK/sync/ext/fixed.onnx" --save-external-data)
check "--save-external-data: synced by default ($n calls)" some "$n"
n=$(syncs rewrite -q "$CASE/model.onnx" -o "$WORK/nosync/ext/fixed.onnx" --save-external-data --no-fsync)
check "--save-external-data --no-fsync: no sync call ($n)" none "$n"
check "--save-external-data --no-fsync: the same model and data file" same_tree "$WORK/sync/ext" "$WORK/nosync/ext"

# The input's data file copied to another folder.
mkdir -p "$WORK/sync/copied" "$WORK/nosync/copied"
n=$(syncs rewrite -q "$WORK/sync/ext/fixed.onnx" -o "$WORK/sync/copied/fixed.onnx" --data-files copy)
check "--data-files copy: synced by default ($n calls)" some "$n"
n=$(syncs rewrite -q "$WORK/sync/ext/fixed.onnx" -o "$WORK/nosync/copied/fixed.onnx" --data-files copy --no-fsync)
check "--data-files copy --no-fsync: no sync call ($n)" none "$n"
check "--data-files copy --no-fsync: the same model and data file" same_tree "$WORK/sync/copied" "$WORK/nosync/copied"

# A folder, with its other files copied.
mkdir -p "$WORK/zoo/a"
cp "$CASE/model.onnx" "$WORK/zoo/a/m.onnx"
echo "labels" >"$WORK/zoo/a/labels.txt"
n=$(syncs rewrite -q "$WORK/zoo" -o "$WORK/sync/zoo" --other-files copy)
check "a folder: synced by default ($n calls)" some "$n"
n=$(syncs rewrite -q "$WORK/zoo" -o "$WORK/nosync/zoo" --other-files copy --no-fsync)
check "a folder --no-fsync: no sync call ($n)" none "$n"
check "a folder --no-fsync: the same tree" same_tree "$WORK/sync/zoo" "$WORK/nosync/zoo"

# convert writes the same way.
n=$(syncs convert -q "$CASE/model.onnx" -o "$WORK/sync/op14.onnx" --opset 14)
check "convert: synced by default ($n calls)" some "$n"
n=$(syncs convert -q "$CASE/model.onnx" -o "$WORK/nosync/op14.onnx" --opset 14 --no-fsync)
check "convert --no-fsync: no sync call ($n)" none "$n"
check "convert --no-fsync: the same bytes" cmp -s "$WORK/sync/op14.onnx" "$WORK/nosync/op14.onnx"

# A model of 160 MiB of weights: each synced way of writing it starts the
# writeback of its large file as it goes (from 128 MiB on, 32 MiB at a time);
# unsynced, nothing is started. The spliced copy, the whole model written
# from memory, and the data file of --save-external-data.
mkdir -p "$WORK/big" "$WORK/sync/big" "$WORK/nosync/big" "$WORK/sync/bigext" "$WORK/nosync/bigext"
"$MAKE" "$WORK/big/model.onnx" 160 7 || { echo "FAIL generator"; exit 1; }
for way in spliced whole; do
  limit=$([[ $way == whole ]] && echo 1000000000000 || echo 1048576)
  n=$(ONNX_REMAP_SPLICE_MIN_BYTES=$limit syncs rewrite -q "$WORK/big/model.onnx" -o "$WORK/sync/big/$way.onnx")
  r=$(starts)
  check "160 MiB, $way: synced, writeback started as it was written ($n calls, $r starts)" test "$r" -ge 2
  n=$(ONNX_REMAP_SPLICE_MIN_BYTES=$limit syncs rewrite -q "$WORK/big/model.onnx" -o "$WORK/nosync/big/$way.onnx" --no-fsync)
  check "160 MiB, $way --no-fsync: no sync call, no writeback started ($n)" none "$n"
  check "160 MiB, $way --no-fsync: the same bytes" cmp -s "$WORK/sync/big/$way.onnx" "$WORK/nosync/big/$way.onnx"
done
check "160 MiB: spliced and whole write the same bytes" cmp -s "$WORK/sync/big/spliced.onnx" "$WORK/sync/big/whole.onnx"
n=$(syncs rewrite -q "$WORK/big/model.onnx" -o "$WORK/sync/bigext/m.onnx" --save-external-data)
r=$(starts)
check "160 MiB --save-external-data: the data file's writeback started as it was written ($r starts)" test "$r" -ge 2
n=$(syncs rewrite -q "$WORK/big/model.onnx" -o "$WORK/nosync/bigext/m.onnx" --save-external-data --no-fsync)
check "160 MiB --save-external-data --no-fsync: no sync call ($n)" none "$n"
check "160 MiB --save-external-data --no-fsync: the same model and data file" same_tree "$WORK/sync/bigext" "$WORK/nosync/bigext"
rm -rf "$WORK/big" "$WORK/sync/big" "$WORK/nosync/big" "$WORK/sync/bigext" "$WORK/nosync/bigext"

# No temp file is left behind either way.
check "no temp file left" test -z "$(find "$WORK/sync" "$WORK/nosync" -name '*.onnx-remap-tmp-*')"
finish
