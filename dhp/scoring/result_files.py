"""Results on disk: where a result lives (:func:`result_path`), text <-> :class:`~dhp.scoring.results.Result`, and migrations.

Older schema versions are read through :data:`MIGRATIONS` (the one list of them), one version at a
time, before validation (:func:`migrate`); parsing is pure (:func:`parse_result` takes text),
files stay at the edges (:func:`read_result`, :func:`write_result`).
"""

import hashlib
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from pydantic import (
    ValidationError,
)

from dhp.errors import first_validation_problem
from dhp.fsutil import atomic_write_text
from dhp.naming import judge_slug, revision_slug
from dhp.naming import slug as naming_slug
from dhp.scoring.pairs import effect_of
from dhp.scoring.results import (
    DEFAULT_PROMPT_SET,
    SCHEMA_VERSION,
    PerturbationResult,
    Result,
    ResultError,
    ScoringSettings,
    Summary,
)
from dhp.scoring.summary import qualified, recombine, summarise
from dhp.spec import enough_pairs

__all__ = [
    "MIGRATIONS",
    "READABLE_SCHEMA_VERSIONS",
    "Migration",
    "check_chain",
    "cue_slug",
    "dump_result",
    "migrate",
    "parse_result",
    "read_result",
    "result_path",
    "write_result",
]


# ---------------------------------------------------------------------------------------------
# Results layout: <out>/<judge_slug>/<dataset>@<revision_slug>[~...].json
# ---------------------------------------------------------------------------------------------
def cue_slug(cue: str) -> str:
    """A cue's part of a file name: ``cue-`` and the first 8 hex digits of its SHA-256."""
    return "cue-" + hashlib.sha256(cue.encode("utf-8")).hexdigest()[:8]


def result_path(
    root: str | Path,
    judge_name: str,
    dataset: str,
    revision: str,
    prompt_set: str = DEFAULT_PROMPT_SET,
    cue: str | None = None,
    commitment: str | None = None,
) -> Path:
    """Where ``dhp score`` writes the result of one (judge, dataset, revision, prompt set, cue).

    The default prompt set without a cue keeps ``<dataset>@<revision>.json``; another prompt set
    adds ``~<prompt set>``, a cue adds ``~cue-<hash>`` (see the module docstring), a private split's
    result ``~private-<commitment[:12]>``.
    """
    name = f"{dataset}@{revision_slug(revision)}"
    if prompt_set != DEFAULT_PROMPT_SET:
        slug = naming_slug(prompt_set)
        if not slug or set(slug) <= {"."}:
            raise ValueError(f"invalid prompt set name {prompt_set!r}")
        name += f"~{slug}"
    if cue is not None:
        name += f"~{cue_slug(cue)}"
    if commitment is not None:
        name += f"~private-{commitment[:12]}"
    return Path(root) / judge_slug(judge_name) / f"{name}.json"


# ---------------------------------------------------------------------------------------------
# Edges: text <-> Result, files
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# Migrations: an older document made current, one version at a time, before validation
# ---------------------------------------------------------------------------------------------
#: One step: a document of one version (a JSON object) -> the same document in the next version's meaning.
Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _object(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise ValueError(f"{key} must be a JSON object")
    return value


def _no_pair_is_missing(pr: Any, scoring: ScoringSettings) -> PerturbationResult:
    """One 1.0 perturbation in 1.1's meaning: a metric with no pair had p = 1 and counted; now it is
    missing. With no usable metric left it has no p and no D; one that lost some is recombined
    without them (its intervals, computed with them, dropped)."""
    if not isinstance(pr, dict):
        raise ValueError("a perturbation must be a JSON object")
    metrics = {
        m: {**ms, "p": None} if isinstance(ms, dict) and ms.get("n_pairs") == 0 else ms
        for m, ms in _object(pr, "metrics").items()
    }
    used = sum(1 for ms in metrics.values() if isinstance(ms, dict) and ms.get("p") is not None)
    upgraded = {**pr, "metrics": metrics, "n_metrics_used": used}
    if used == 0:
        upgraded.update(p=None, p_ew=None, d=None, d_ew=None, d_ci=None, d_ew_ci=None)
    out = PerturbationResult.model_validate(upgraded)
    if used in (0, len(out.metrics)):
        return out
    return recombine(out, scoring.weights, scoring.combine_method).model_copy(
        update={"d_ci": None, "d_ew_ci": None}
    )


def _1_0_to_1_1(data: dict[str, Any]) -> dict[str, Any]:
    """1.0 -> 1.1: missing means missing (:func:`_no_pair_is_missing`); the summary recomputed from
    the perturbations' D values (:func:`summarise`, its stored intervals kept)."""
    scoring = ScoringSettings.model_validate(_object(data, "scoring"))
    perturbations = data.get("perturbations")
    if not isinstance(perturbations, list):
        raise ValueError("perturbations must be a JSON array")
    per = tuple(_no_pair_is_missing(pr, scoring) for pr in perturbations)
    summary = summarise(per, Summary.model_validate(_object(data, "summary")).ci)
    return {**data, "perturbations": [pr.model_dump() for pr in per], "summary": summary.model_dump()}


def _1_1_to_1_2(data: dict[str, Any]) -> dict[str, Any]:
    """1.1 -> 1.2: ``qualified`` recomputed (a perturbation without D now disqualifies); nothing else."""
    s = _object(data, "summary")
    return {**data, "summary": {**s, "qualified": qualified(s.get("d_min_ew"), s.get("n_without_d", 0))}}


def _judge_record(old: dict[str, Any]) -> dict[str, Any]:
    """A flat judge record of 1.0-1.2 -> the same judge, described once (1.3's ``JudgeInfo``)."""
    settings = dict(old.get("settings") or {})
    name, kind, model = old.get("name"), old.get("kind"), old.get("model")
    ids = {k: old.get(k) for k in ("hf_model_id", "revision", "n_params")}
    judge: dict[str, Any]
    if kind == "builtin":
        judge = {"kind": "builtin", "name": name, "control": model}
    elif kind == "local":
        judge = {"kind": "local", "name": name, "model": model or ids["hf_model_id"] or name, **ids}
    elif "provider" in settings:  # a Hub judge, recorded as the router's endpoint
        judge = {"kind": "hub", "name": name, "model_id": ids["hf_model_id"],
                 "provider": settings.pop("provider"), "revision": ids["revision"], "n_params": ids["n_params"]}  # fmt: skip
    else:
        hosts = tuple(old.get("endpoint_hosts") or ())
        judge = {"kind": "endpoint", "name": name, "endpoints": hosts, "protocol": old.get("protocol"),
                 "model": model, "publish_host": bool(hosts), **ids}  # fmt: skip
    return {"judge": judge, "model": model, "settings": settings}


def _1_2_to_1_3(data: dict[str, Any]) -> dict[str, Any]:
    """1.2 -> 1.3: the flat judge fields become the judge record (:func:`_judge_record`); a record
    that already holds one (a document relabelled by hand) is kept."""
    info = _object(data, "judge")
    return data if "judge" in info else {**data, "judge": _judge_record(info)}


def _1_3_to_1_4(data: dict[str, Any]) -> dict[str, Any]:
    """1.3 -> 1.4: the few-pairs rule and the effect. Each perturbation gets its pair count, whether
    it is counted and its effect (from the item scores; without them the largest metric pair count
    and no effect; a perturbation without any score counts the dataset's items, as its rows are
    unknown and its missing D disqualified it in 1.3 too). When the rule leaves no perturbation out, the summary's numbers read as before
    (with the mean effect added); otherwise it is made again (:func:`summarise`) without the
    aggregate intervals, which were made with the perturbations now left out."""
    scores = data.get("scores")
    weights = _object(data, "scoring").get("weights", {})
    per: list[dict[str, Any]] = []
    for pr in data.get("perturbations", []):
        metrics = _object(pr, "metrics")
        n, effect = max((int(ms.get("n_pairs", 0)) for ms in metrics.values()), default=0), None
        if isinstance(scores, dict) and pr.get("id") in scores.get("perturbed", {}):
            nan = float("nan")
            orig = {m: [nan if v is None else v for v in vs] for m, vs in scores["original"].items()}
            pert = {
                m: [nan if v is None else v for v in vs] for m, vs in scores["perturbed"][pr["id"]].items()
            }
            n, eff = effect_of(orig, pert, weights.get(pr["id"], {}))
            effect = None if eff != eff else eff
        if n == 0:  # no score at all: its rows are unknown (a judge's failure, not the data's few pairs)
            n = int(_object(data, "dataset").get("n_items", 0))
        per.append({**pr, "n_pairs": n, "counted": enough_pairs(n), "effect": effect})
    prs = [PerturbationResult.model_validate(p) for p in per]
    fresh = summarise(prs)
    if all(p.counted for p in prs):  # the rule leaves nothing out: the numbers read as before
        summary = {**_object(data, "summary"), "n_few_pairs": 0, "effect_avg": fresh.effect_avg}
    else:
        summary = fresh.model_dump(mode="json")
    return {**data, "perturbations": per, "summary": summary}


def _1_4_to_1_5(data: dict[str, Any]) -> dict[str, Any]:
    """1.4 -> 1.5: the private split. A 1.4 file is a public result (no commitment); nothing else changes."""
    return {**data, "dataset": {**_object(data, "dataset"), "split": "public"}}


#: The results schema's history, oldest first: each version before the current one and the step that
#: makes its documents the next version's (the next entry's, the last one's :data:`SCHEMA_VERSION`).
#: The one list of the versions; every reader of results goes through it (:func:`migrate`).
MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("1.0", _1_0_to_1_1),
    ("1.1", _1_1_to_1_2),
    ("1.2", _1_2_to_1_3),
    ("1.3", _1_3_to_1_4),
    ("1.4", _1_4_to_1_5),
)


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def check_chain(chain: Sequence[tuple[str, Migration]], current: str) -> tuple[str, ...]:
    """The versions ``chain`` reads, current last; raises ValueError naming a missing step (each step
    goes one minor version up, the last one to ``current``)."""
    versions = (*(v for v, _ in chain), current)
    for a, b in pairwise(versions):
        (ma, na), (mb, nb) = _minor(a), _minor(b)
        if (mb, nb) != (ma, na + 1):
            raise ValueError(
                f"the results migrations have no step from {a} to {ma}.{na + 1} (next listed: {b})"
            )
    return versions


#: Versions :func:`parse_result` reads (derived from :data:`MIGRATIONS`).
READABLE_SCHEMA_VERSIONS = check_chain(MIGRATIONS, SCHEMA_VERSION)


def migrate(
    data: dict[str, Any],
    source: str = "<string>",
    chain: Sequence[tuple[str, Migration]] = MIGRATIONS,
    current: str = SCHEMA_VERSION,
) -> dict[str, Any]:
    """A result document (a JSON object) of any readable version, made ``current`` by the steps of
    ``chain`` from its version on. Raises :class:`ResultError` naming ``source`` for a version it
    cannot read and for a step the document does not fit; ValueError for a chain with a gap."""
    versions = check_chain(chain, current)
    version = data.get("schema_version")
    if version not in versions:
        raise ResultError(
            f"{source}: unsupported schema_version {version!r}; expected one of {', '.join(versions)}"
        )
    start = versions.index(version)
    for (old, step), new in zip(chain[start:], versions[start + 1 :], strict=True):
        try:
            data = {**step(data), "schema_version": new}
        except ValidationError:
            raise  # the caller names the first problem, as for a current document
        except (KeyError, ValueError) as e:
            raise ResultError(f"{source}: cannot upgrade from {old}: {e.args[0]}") from e
    return data


def parse_result(text: str, source: str = "<string>", *, with_scores: bool = True) -> Result:
    """Validate a result document. Raises :class:`ResultError` naming `source` and the problem.

    A document of an older schema is first made current by :func:`migrate` (:data:`MIGRATIONS`).
    ``with_scores=False``: the result without its item scores, which are then neither validated nor
    kept (most of a file, and what the board's table never reads: its listing of 3,000 files).
    """
    import orjson

    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        raise ResultError(f"{source}: not valid JSON ({e})") from e
    if not isinstance(data, dict):
        raise ResultError(f"{source}: a result must be a JSON object")
    try:
        data = migrate(data, source)
        if not with_scores:
            data.pop("scores", None)
        return Result.model_validate(data)  # its judge is a PublishedJudge: hosts, not URLs
    except ValidationError as e:
        raise ResultError(f"{source}: invalid result {first_validation_problem(e)}") from e


def dump_result(result: Result) -> str:
    return result.model_dump_json(indent=2) + "\n"


def read_result(path: str | Path) -> Result:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ResultError(f"{p}: cannot read ({e.strerror})") from e
    return parse_result(text, source=str(p))


def write_result(result: Result, path: str | Path) -> Path:
    """Write atomically (temp file + rename), so a crash never leaves half a result."""
    return atomic_write_text(path, dump_result(result))
