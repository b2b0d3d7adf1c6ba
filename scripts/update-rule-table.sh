#!/usr/bin/env bash
# Regenerates docs/rules.md from the built-in rules (ctest checks it is current).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/bin/onnx-remap}
"$BIN" rules list --format markdown > docs/rules.md
echo "wrote docs/rules.md"
