#!/usr/bin/env bash
# Prove that a refactor changes no build and no result: scripts/same_as.sh REV
#
# Builds the six offline datasets and scores the three control judges (random, oracle, lexical;
# --limit 20 items per dataset) twice: with the code at REV (checked out by `git worktree add` into a
# temporary folder) and with this working tree (uncommitted changes included). Then it compares
#   * the datasets: the sha256 of every file of every built folder (parquet rows, build_info.json,
#     card, not_applicable.jsonl), file by file;
#   * the results: every result JSON, key by key, leaving out only what differs between any two
#     runs (created_at, timing.wall_seconds and timing.all_invocations.wall_seconds, and dataset.repo, the folder's absolute path).
# The comparison is benchmarks/same_as.py (this tree's copy compares both sides). Prints every
# difference and exits 1 if there is one, 0 if builds and results are identical.
#
# Environment: DHP_SOURCES (required) the raw sources folder; PYTHON (default: .venv/bin/python of
# this tree); LIMIT (default 20); SAME_AS_IGNORE extra result keys to leave out, comma-separated
# dotted paths (e.g. schema_version, when a commit bumps the results schema on purpose);
# SAME_AS_READ=1 compares the results as this tree reads them (files of an earlier schema upgraded:
# a schema bump shows only what a reader gets differently); KEEP=1 keeps the temporary folder.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: DHP_SOURCES=FOLDER scripts/same_as.sh REV" >&2
    exit 2
fi
REV=$1
ROOT=$(git rev-parse --show-toplevel)
SOURCES=${DHP_SOURCES:?set DHP_SOURCES to the raw sources folder (as for dhp build --sources)}
if [[ ! -d $SOURCES ]]; then
    echo "scripts/same_as.sh: DHP_SOURCES=$SOURCES is not a folder" >&2
    exit 2
fi
SOURCES=$(cd "$SOURCES" && pwd) # absolute: the runs below work in another folder
PY=${PYTHON:-$ROOT/.venv/bin/python}
if [[ $PY == */* ]]; then PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY"); fi
LIMIT=${LIMIT:-20}
COMMIT=$(git -C "$ROOT" rev-parse --verify "$REV^{commit}")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/same_as.XXXXXX")

cleanup() {
    git -C "$ROOT" worktree remove --force "$TMP/rev-tree" >/dev/null 2>&1 || true
    if [[ ${KEEP:-0} == 1 ]]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

git -C "$ROOT" worktree add --quiet --detach "$TMP/rev-tree" "$COMMIT"

# run SIDE TREE: build and score with the code of TREE into $TMP/SIDE/{ds,res}
run() {
    local side=$1 tree=$2
    echo "== $side: building the six offline datasets with $tree" >&2
    (cd "$TMP" && PYTHONPATH=$tree "$PY" -m dhp build --sources "$SOURCES" --allow-fewer --no-progress \
        --out "$TMP/$side/ds" >"$TMP/$side.build.log" 2>&1) || {
        tail -20 "$TMP/$side.build.log" >&2
        exit 1
    }
    for judge in random oracle lexical; do
        (cd "$TMP" && PYTHONPATH=$tree "$PY" -m dhp score --judge "$judge" --data "$TMP/$side/ds" \
            --out "$TMP/$side/res" --limit "$LIMIT" --no-progress >>"$TMP/$side.score.log" 2>&1) || {
            tail -20 "$TMP/$side.score.log" >&2
            exit 1
        }
    done
}

run rev "$TMP/rev-tree"
run work "$ROOT"

"$PY" "$ROOT/benchmarks/same_as.py" "$TMP/rev" "$TMP/work" --label "${COMMIT:0:12}" \
    --ignore "${SAME_AS_IGNORE:-}" ${SAME_AS_READ:+--as-read}
