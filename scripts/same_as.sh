#!/usr/bin/env bash
# Prove that a refactor changes no build and no result: scripts/same_as.sh REV
#
# Builds the six offline datasets and scores the three control judges (random, oracle, lexical;
# --limit 20 items per dataset) twice: with the code at REV (checked out by `git worktree add` into a
# temporary folder) and with this working tree (uncommitted changes included). Then it compares
#   * the datasets: the sha256 of every file of every built folder (parquet rows, build_info.json,
#     card, not_applicable.jsonl), file by file;
#   * the results: every result JSON, key by key, leaving out only what differs between any two
#     runs (created_at, timing.wall_seconds, and dataset.repo, the folder's absolute path).
# Prints every difference and exits 1 if there is one, 0 if builds and results are identical.
#
# Environment: DHP_SOURCES (required) the raw sources folder; PYTHON (default: .venv/bin/python of
# this tree); LIMIT (default 20); SAME_AS_IGNORE extra result keys to leave out, comma-separated
# dotted paths (e.g. schema_version, when a commit bumps the results schema on purpose);
# KEEP=1 keeps the temporary folder and says where it is.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: DHP_SOURCES=FOLDER scripts/same_as.sh REV" >&2
    exit 2
fi
REV=$1
ROOT=$(git rev-parse --show-toplevel)
SOURCES=${DHP_SOURCES:?set DHP_SOURCES to the raw sources folder (as for dhp build --sources)}
PY=${PYTHON:-$ROOT/.venv/bin/python}
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

"$PY" - "$TMP/rev" "$TMP/work" "$COMMIT" "${SAME_AS_IGNORE:-}" <<'EOF'
import hashlib
import json
import sys
from pathlib import Path

rev, work, commit, extra = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3][:12], sys.argv[4]
VOLATILE = {"created_at", "timing.wall_seconds", "dataset.repo", *filter(None, extra.split(","))}


def checksums(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def flat(x: object, prefix: str = "") -> dict[str, object]:
    if isinstance(x, dict):
        out: dict[str, object] = {}
        for k, v in x.items():
            out.update(flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: x}


def results(folder: Path) -> dict[str, dict[str, object]]:
    """judge/dataset -> the result's keys (the file name's revision is the data's hash: compared as a key)."""
    out = {}
    for p in sorted(folder.rglob("*.json")):
        doc = flat(json.loads(p.read_text(encoding="utf-8")))
        out[f"{p.parent.name}/{p.name.split('@')[0]}"] = {k: v for k, v in doc.items() if k not in VOLATILE}
    return out


problems = []
a, b = checksums(rev / "ds"), checksums(work / "ds")
for name in sorted(a.keys() | b.keys()):
    if a.get(name) != b.get(name):
        problems.append(f"dataset file {name}: {commit} {a.get(name, 'absent')[:16]} != working tree {b.get(name, 'absent')[:16]}")
ra, rb = results(rev / "res"), results(work / "res")
for name in sorted(ra.keys() | rb.keys()):
    da, db = ra.get(name), rb.get(name)
    if da is None or db is None:
        problems.append(f"result {name}: only {'in the working tree' if da is None else 'at ' + commit}")
        continue
    for key in sorted(da.keys() | db.keys()):
        if da.get(key, "<absent>") != db.get(key, "<absent>"):
            problems.append(f"result {name}: {key}: {da.get(key, '<absent>')!r} != {db.get(key, '<absent>')!r}")
print(f"datasets: {len(a)} files at {commit}, {len(b)} in the working tree")
print(f"results: {len(ra)} at {commit}, {len(rb)} in the working tree (left out: {', '.join(sorted(VOLATILE))})")
if not a or not ra:
    problems.append("nothing was built or scored")
for line in problems[:200]:
    print("DIFF", line)
if len(problems) > 200:
    print(f"DIFF ... and {len(problems) - 200} more")
print("identical" if not problems else f"{len(problems)} difference(s)")
sys.exit(1 if problems else 0)
EOF
