#!/usr/bin/env bash
# Regenerate the Python protobuf modules (and their .pyi stubs) from proto/.
#
# Usage: scripts/gen_proto.sh            (needs the dev extras: grpcio-tools)
#        scripts/gen_proto.sh OUT_DIR    (write elsewhere, e.g. to compare)
#
# The output is committed; nobody edits it by hand. Each module gets a header
# naming this script, and each package directory an __init__.py.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-.venv/bin/python}"
OUT="${1:-src/cursor_byok/transport/proto}"
HEADER="# Generated from proto/ by scripts/gen_proto.sh (grpcio-tools protoc). Do not edit; rerun the script."

mkdir -p "$OUT"
find "$OUT" \( -name '*_pb2.py' -o -name '*_pb2.pyi' \) -delete

mapfile -t PROTOS < <(cd proto && find . -name '*.proto' -printf '%P\n' | LC_ALL=C sort)
"$PYTHON" -m grpc_tools.protoc -I proto --python_out="$OUT" --pyi_out="$OUT" "${PROTOS[@]}"

for f in $(find "$OUT" \( -name '*_pb2.py' -o -name '*_pb2.pyi' \) | LC_ALL=C sort); do
  { printf '%s\n' "$HEADER"; cat "$f"; } > "$f.tmp" && mv "$f.tmp" "$f"
done

# Every directory below OUT must be a package for `cursor_byok.transport.proto.agent.v1`.
while IFS= read -r dir; do
  [ -f "$dir/__init__.py" ] || printf '%s\n' "$HEADER" > "$dir/__init__.py"
done < <(find "$OUT" -type d ! -name '__pycache__')
