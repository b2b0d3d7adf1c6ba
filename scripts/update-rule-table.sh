#!/usr/bin/env bash
# Regenerates docs/rules.md from the built-in rules and the fixture manifests
# (ctest docs.rule_table_is_current checks it is current). Needs node.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/bin/onnx-remap}
node scripts/rule_table.mjs "$BIN" "$PWD" > docs/rules.md.tmp
mv docs/rules.md.tmp docs/rules.md
echo "wrote docs/rules.md"
