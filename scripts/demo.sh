#!/usr/bin/env bash
# The main job on an embedded default, all on local stores under $1 (default: out/):
#   1. build the six DHP datasets (sources from $DHP_SOURCES when set, else their public origins)
#   2. score the built-in control judges (random, oracle, lexical)
#   3. serve the leaderboard on http://127.0.0.1:${DHP_PORT:-7860} (skip with DHP_DEMO_SERVE=0)
set -euo pipefail
out="${1:-out}"
dhp="${VENV:-.venv}/bin/dhp"

echo "== 1/3 build the datasets =="
src_args=()
if [ -n "${DHP_SOURCES:-}" ] && [ -d "$DHP_SOURCES" ]; then
  src_args=(--sources "$DHP_SOURCES")
  echo "sources: $DHP_SOURCES"
else
  echo "sources: downloading from the public origins (set DHP_SOURCES to use a local copy)"
fi
# --allow-fewer: the offline Answer Equivalence copy has 62 eligible items (the card says why).
"$dhp" build "${src_args[@]}" --out "$out/datasets" --allow-fewer

echo "== 2/3 score the control judges =="
for judge in random oracle lexical; do
  "$dhp" score --judge "$judge" --data "$out/datasets" --out "$out/results"
done
"$dhp" report "$out/results" --out "$out/report"

if [ "${DHP_DEMO_SERVE:-1}" = "0" ]; then
  echo "== 3/3 leaderboard not served (DHP_DEMO_SERVE=0); results in $out/results =="
  exit 0
fi
echo "== 3/3 serve the leaderboard (Ctrl-C to stop) =="
exec "$dhp" leaderboard --results "$out/results" --requests "$out/requests" --port "${DHP_PORT:-7860}"
