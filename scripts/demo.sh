#!/usr/bin/env bash
# The main job on an embedded default: every stage that exists, on local stores under $1.
set -euo pipefail
out="${1:-out}"
dhp="${VENV:-.venv}/bin/dhp"
echo "== the benchmark =="
"$dhp" spec
