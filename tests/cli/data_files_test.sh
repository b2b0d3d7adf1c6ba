#!/usr/bin/env bash
# External data files of the output are never read (issue 11): a model whose
# initializer points into a 3 GiB sparse data file is rewritten into another
# folder of the same file system by a hard link (or reflink) in well under a
# second; across file systems (/dev/shm) by an in-kernel copy that keeps the
# holes; `--data-files` forces one way and fails clearly where it cannot.
# The input's data file is never written to (mtime, size, bytes).
#
#   data_files_test.sh BIN SOURCE_DIR WORK_DIR MAKE_WEIGHTED_MODEL
set -uo pipefail
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3 MAKE=$4
rm -rf "$WORK" && mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
source "$SRC/tests/cli/expect_lib.sh"

names() { (cd "$1" && ls -A | LC_ALL=C sort | tr '\n' ' '); }
inode() { stat -c %i "$1"; }
# What must not change in an input data file: mtime, size, its first MiB and the tensor's MiB.
fingerprint() {
  echo "$(stat -c '%Y %y %s' "$1") $(head -c 1048576 "$1" | sha256sum | cut -c1-16)" \
    "$(dd if="$1" bs=1M skip=2048 count=1 status=none | sha256sum | cut -c1-16)"
}
# timed OUT_VAR ARGS...: runs BIN ARGS, sets OUT_VAR to "wall user sys" and $code to the exit code.
timed() {
  local var=$1; shift
  local tf=$WORK/time.$RANDOM
  /usr/bin/env time -f '%e %U %S' -o "$tf" "$BIN" "$@" >"$WORK/last.log" 2>&1; code=$?
  printf -v "$var" '%s' "$(tail -1 "$tf")"
}
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# The tensor (1 MiB) sits at 2 GiB into big.bin; the file is 3 GiB, the rest holes.
mkdir -p "$WORK/in" "$WORK/out-link" "$WORK/out-auto"
"$MAKE" "$WORK/in/model.onnx" 1 1 big.bin $((2 << 30)) || { echo "FAIL generator"; exit 1; }
truncate -s 3G "$WORK/in/big.bin"
BEFORE=$(fingerprint "$WORK/in/big.bin")
TENSOR=$(dd if="$WORK/in/big.bin" bs=1M skip=2048 count=1 status=none | sha256sum)

# --- Same file system: a hard link, well under a second ----------------------
timed t rewrite -q "$WORK/in/model.onnx" -o "$WORK/out-link/fixed.onnx" --data-files link
read -r wall user sys <<<"$t"
echo "    3 GiB sparse external data, --data-files link: wall ${wall}s, user ${user}s, sys ${sys}s"
check "link: exit 0" test $code -eq 0
check "link: the output's data file is the input's inode (a hard link)" test "$(inode "$WORK/out-link/big.bin")" = "$(inode "$WORK/in/big.bin")"
check "link: the output folder holds the model and its data, nothing else" test "$(names "$WORK/out-link")" = "big.bin fixed.onnx "
check "link: under 10 s of wall time (a copy of 3 GiB would not be)" below "$wall" 10
check "link: the output validates with its data (check exits 0)" "$BIN" check -q "$WORK/out-link/fixed.onnx"

timed t rewrite -q "$WORK/in/model.onnx" -o "$WORK/out-auto/fixed.onnx"
read -r wall user sys <<<"$t"
echo "    3 GiB sparse external data, default (auto): wall ${wall}s, user ${user}s, sys ${sys}s"
check "auto: exit 0" test $code -eq 0
if cp --reflink=always "$WORK/in/model.onnx" "$WORK/reflink-probe" 2>/dev/null; then
  rm -f "$WORK/reflink-probe"
  check "auto, file system with reflinks: the data file is there" test -f "$WORK/out-auto/big.bin"
else
  check "auto, file system without reflinks: a hard link" test "$(inode "$WORK/out-auto/big.bin")" = "$(inode "$WORK/in/big.bin")"
  expect "reflink where there are none: exit 6, one line naming the file and why" 6 \
    "^onnx-remap: error: .*cannot copy external data .*in/big.bin to .*out-reflink/big.bin: reflink failed .*needs a file system with reflinks" \
    -- rewrite -q "$WORK/in/model.onnx" -o "$WORK/out-reflink/fixed.onnx" --data-files reflink
  check "reflink where there are none: nothing left behind" test -z "$(names "$WORK/out-reflink" 2>/dev/null)"
fi
check "under 10 s of wall time" below "$wall" 10

# Again into the folder that has the link: the same inode is the same file, kept.
timed t rewrite -q "$WORK/in/model.onnx" -o "$WORK/out-link/again.onnx" --data-files copy
check "an existing hard link is the same file: kept (exit 0, same inode)" \
  test $code -eq 0 -a "$(inode "$WORK/out-link/big.bin")" = "$(inode "$WORK/in/big.bin")"

# A file of that name with other content is neither replaced nor linked over.
mkdir -p "$WORK/out-other" && echo "other" >"$WORK/out-other/big.bin"
expect "another big.bin at the target: exit 6" 6 "big.bin exists with other content" \
  -- rewrite -q "$WORK/in/model.onnx" -o "$WORK/out-other/fixed.onnx" --data-files link
check "another big.bin at the target: kept, no model written" \
  test "$(cat "$WORK/out-other/big.bin")" = "other" -a "$(names "$WORK/out-other")" = "big.bin "

# Next to the input and in place: the input's data file is shared, not written.
cp "$WORK/in/model.onnx" "$WORK/in/inplace.onnx"
"$BIN" rewrite -q "$WORK/in/model.onnx" -o "$WORK/in/next.onnx" --data-files copy
check "next to the input: exit 0" test $? -eq 0
"$BIN" rewrite -q "$WORK/in/inplace.onnx" -o "$WORK/in/inplace.onnx"
check "in place: exit 0" test $? -eq 0
check "next to the input and in place: no new data file" test "$(names "$WORK/in")" = "big.bin inplace.onnx model.onnx next.onnx "

# --- Another file system: an in-kernel copy, holes kept ------------------------
SHM=/dev/shm
if [[ -d $SHM && -w $SHM && $(stat -c %d "$SHM") != $(stat -c %d "$WORK") ]]; then
  X=$(mktemp -d "$SHM/onnx-remap-data-files.XXXXXX")
  trap 'rm -rf "$X"' EXIT
  expect "link across file systems: exit 6, says why" 6 "hard link failed \(--data-files link needs the same file system\): Invalid cross-device link; model not written" \
    -- rewrite -q "$WORK/in/model.onnx" -o "$X/link/fixed.onnx" --data-files link
  check "link across file systems: nothing left behind" test -z "$(names "$X/link" 2>/dev/null)"
  for mode in copy auto; do
    timed t rewrite -q "$WORK/in/model.onnx" -o "$X/$mode/fixed.onnx" --data-files $mode
    read -r wall user sys <<<"$t"
    echo "    3 GiB sparse external data to $SHM, --data-files $mode: wall ${wall}s, user ${user}s, sys ${sys}s"
    check "$mode across file systems: exit 0" test $code -eq 0
    check "$mode across file systems: another file of the same size and tensor bytes" \
      test "$(inode "$X/$mode/big.bin")" != "$(inode "$WORK/in/big.bin")" -a "$(stat -c %s "$X/$mode/big.bin")" = $((3 << 30)) \
      -a "$(dd if="$X/$mode/big.bin" bs=1M skip=2048 count=1 status=none | sha256sum)" = "$TENSOR"
    check "$mode across file systems: the holes stay holes (under 8 MiB allocated)" test $(( $(stat -c %b "$X/$mode/big.bin") * $(stat -c %B "$X/$mode/big.bin") )) -lt $((8 << 20))
    check "$mode across file systems: the output validates with its data" "$BIN" check -q "$X/$mode/fixed.onnx"
  done
else
  echo "SKIP copy across file systems: $SHM is missing, not writable or on the same file system as $WORK"
fi

check "the input's data file is unchanged (mtime, size, first MiB, tensor)" test "$(fingerprint "$WORK/in/big.bin")" = "$BEFORE"
rm -rf "$WORK"
finish
