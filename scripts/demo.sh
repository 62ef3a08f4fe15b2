#!/usr/bin/env bash
# The main job on an embedded default, all on local stores under $1 (default: out/):
#   1. build the DHP datasets whose sources can be had: from $DHP_SOURCES when it is a folder (the layout
#      of docs/datasets.md#sources; unset: ../shared/sources beside the clone where it exists), else downloaded
#      from their public origins. A dataset whose source can
#      be had neither way is built from the small sample shipped in the package (20 items; its version is
#      tagged -sample and the card, results, report and leaderboard mark it: not the benchmark). Story Cloze
#      is distributed by its authors on request: it is built from STORY_CLOZE=FILE or a copy in the sources
#      folder, else named and skipped (its terms keep it out of the sample).
#   2. score the built-in control judges (random, oracle, lexical) on what was built, and write a report;
#      build the private split of the same datasets (a seed from $DHP_PRIVATE_SEED, else a throwaway one),
#      score the controls on it into $1/results-private and compare the lexical judge's splits (dhp fits)
#      (skip with DHP_DEMO_PRIVATE=0)
#   3. serve the leaderboard on http://127.0.0.1:${DHP_PORT:-7860} (skip with DHP_DEMO_SERVE=0)
set -euo pipefail
out="${1:-out}"
py="${PYTHON:-${VENV:-.venv}/bin/python}"
if ! command -v "$py" >/dev/null 2>&1; then
  echo "scripts/demo.sh: no $py: run \`make setup\` (or \`make demo\`) first to install, or set PYTHON=..." >&2
  exit 2
fi
dhp() { "$py" -m dhp "$@"; }

args=(--out "$out/datasets" --allow-fewer --skip-missing --sample-fallback)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${DHP_SOURCES:-}" ] && [ -d "$here/../shared/sources" ]; then
  DHP_SOURCES="$(cd "$here/../shared/sources" && pwd)"  # as make does: the local sources beside the clone
fi
if [ -n "${DHP_SOURCES:-}" ] && [ -d "$DHP_SOURCES" ]; then
  args+=(--sources "$DHP_SOURCES")
  from="$DHP_SOURCES"
else
  unset DHP_SOURCES  # not a folder: download from the public origins
  from="the public origins, else the embedded sample"
fi
# `dhp build` below names its own flag (--sources DIR); through make or this script it is DHP_SOURCES=DIR.
echo "== 1/3 build the datasets from $from (another sources folder: make demo DHP_SOURCES=DIR) =="
if [ -n "${STORY_CLOZE:-}" ]; then
  args+=(--story-cloze "$STORY_CLOZE")
fi
# --allow-fewer: the offline Answer Equivalence copy has 62 eligible items (its card says why).
# --skip-missing: a source that cannot be had is named with how to add it; the others are built.
# --sample-fallback: ... and built from the embedded sample where it has one.
dhp build "${args[@]}"

echo "== 2/3 score the control judges =="
for judge in random oracle lexical; do
  dhp score --judge "$judge" --data "$out/datasets" --out "$out/results"
done
dhp report "$out/results" --out "$out/report"

# The private split (issue 39): the twins of what was built, with a secret seed from the environment only.
# Without DHP_PRIVATE_SEED the demo makes a throwaway one for this run (never printed or written).
# DHP_DEMO_PRIVATE=0 leaves it out (it doubles the demo's time).
if [ "${DHP_DEMO_PRIVATE:-1}" = "0" ]; then
  echo "== 2/3 the private split left out (DHP_DEMO_PRIVATE=0) =="
else
  if [ -z "${DHP_PRIVATE_SEED:-}" ]; then
    DHP_PRIVATE_SEED="$("$py" -c 'import secrets; print(secrets.token_hex(16))')"
    export DHP_PRIVATE_SEED
  fi
  echo "== 2/3 the private split: build it into $out/private, score the controls on it, compare (dhp fits) =="
  private_args=("${args[@]}")
  private_args[1]="$out/private"
  dhp build --split private "${private_args[@]}"
  for judge in random oracle lexical; do
    dhp score --judge "$judge" --split private --data "$out/private" --out "$out/results-private"
  done
  dhp fits "$out/results/lexical" "$out/results-private/lexical"
fi

if [ "${DHP_DEMO_SERVE:-1}" = "0" ]; then
  echo "== 3/3 leaderboard not served (DHP_DEMO_SERVE=0); results in $out/results, report in $out/report =="
  echo "   to use dhp now: source ${VENV:-.venv}/bin/activate   (or run ${VENV:-.venv}/bin/dhp)"
  exit 0
fi
echo "== 3/3 serve the leaderboard (Ctrl-C to stop; then: source ${VENV:-.venv}/bin/activate to use dhp) =="
exec "$py" -m dhp leaderboard --results "$out/results" --requests "$out/requests" --port "${DHP_PORT:-7860}"
