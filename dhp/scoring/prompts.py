"""Judge prompts: named prompt sets, one template file per (task or dataset, metric), rendered strictly.

Templates live in ``scoring/prompts/<set>/`` as ``<dataset>.<metric>.txt`` (a dataset's own prompt)
or ``<task>.<metric>.txt`` (shared by the datasets of a task, e.g. both WMT22 pairs). Packaged sets
(:data:`PROMPT_SETS`):

* ``default`` — G-Eval style: task, criterion (the paper's definition), evaluation steps, form. The
  steps say how to judge the metric, never what the benchmark's perturbations do;
* ``minimal`` — the definition and the scale only;
* ``rubric`` — the definition and an anchored description of every score (1-5).

A prompt set can also be a folder holding the same file names (:func:`resolve_prompt_set`). A
misleading cue (:data:`DEFAULT_CUE` or any text) can be added to the judged text, for originals and
perturbed texts alike: it becomes part of the instruction, so its hash and the cache keys differ.
Templates are ``string.Template`` texts; every ``$name`` must be supplied or rendering fails.

Variables, in two stages:

* metric level (from :mod:`dhp.spec`): ``metric_label``, ``definition``, ``scale_min``,
  ``scale_max``, ``text_label``. Substituting these gives the *instruction*, whose SHA-256 is the
  prompt hash recorded in every result (the exact wording the judge saw, minus the texts).
* text level: ``context`` (the labelled context fields present, e.g. ``Source Article:\\n\\n...``;
  an optional field that is absent or empty is left out) and ``text`` (the judged text, alone:
  a judge never sees an original beside its perturbed version).
"""

from __future__ import annotations

import functools
import hashlib
import string
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from dhp.errors import SpecError
from dhp.types import DatasetSpec

__all__ = [
    "DEFAULT_CUE",
    "PROMPT_SETS",
    "PromptError",
    "PromptSet",
    "PromptTemplate",
    "load_template",
    "render_context",
    "resolve_prompt_set",
]

_TEXT_VARS = ("context", "text")
#: The packaged prompt sets; the first is the default.
PROMPT_SETS = ("default", "minimal", "rubric")
#: The misleading prior rating ``dhp score --cue`` adds when no text is given.
DEFAULT_CUE = "A previous annotator rated this text 5 out of 5."


class PromptError(SpecError):
    """A template is missing, or a variable it names has no value."""


@dataclass(frozen=True)
class PromptSet:
    """A named set of templates: a packaged one (``folder is None``) or a user's folder."""

    name: str
    folder: Path | None = None


def resolve_prompt_set(value: str | Path) -> PromptSet:
    """``default``/``minimal``/``rubric``, or a folder of templates (named after the folder).

    A folder may not take a packaged set's name: results are filed by the set's name.
    """
    if isinstance(value, str) and value in PROMPT_SETS:
        return PromptSet(value)
    folder = Path(value)
    if not folder.is_dir():
        raise PromptError(f"prompt set {str(value)!r}: neither one of {', '.join(PROMPT_SETS)} nor a folder")
    if folder.resolve().name in PROMPT_SETS:
        raise PromptError(
            f"prompt folder {folder}: its name is a packaged set's ({folder.resolve().name}); rename it"
        )
    return PromptSet(folder.resolve().name, folder)


@dataclass(frozen=True)
class PromptTemplate:
    dataset: str
    metric: str
    source: str  # file name the template came from
    instruction: str  # the template with metric-level variables (and the cue, if any) substituted
    prompt_set: str = PROMPT_SETS[0]
    cue: str | None = None

    @property
    def hash(self) -> str:
        return "sha256:" + hashlib.sha256(self.instruction.encode("utf-8")).hexdigest()

    @functools.cached_property
    def layout(self) -> tuple[str, ...] | None:
        """The instruction cut at its text-level variables: literal, variable name, literal, ... (the
        literals at even places, ``$$`` read as ``$``): what :meth:`render` joins; None when the
        instruction cannot render (:meth:`render` raises why)."""
        pieces: list[str] = []
        literal: list[str] = []
        last = 0
        for mo in string.Template.pattern.finditer(self.instruction):
            literal.append(self.instruction[last : mo.start()])
            named = mo.group("named") or mo.group("braced")
            if named in _TEXT_VARS:
                pieces += ["".join(literal), named]
                literal = []
            elif mo.group("escaped") is not None:
                literal.append("$")
            else:  # an unknown variable or an invalid placeholder
                return None
            last = mo.end()
        literal.append(self.instruction[last:])
        pieces.append("".join(literal))
        return tuple(pieces)

    @functools.cached_property
    def _format(self) -> str | None:
        """:attr:`layout` as a ``str.format`` text: it renders exactly as ``string.Template`` does, in one
        C call (a planned request renders its prompt at each read: :class:`dhp.scoring.judge_io.PromptFill`)."""
        if self.layout is None:
            return None
        return "".join(
            "{" + p + "}" if i % 2 else p.replace("{", "{{").replace("}", "}}")
            for i, p in enumerate(self.layout)
        )

    def render(self, text: str, context: str) -> str:
        if self._format is not None:
            return self._format.format(text=text, context=context)
        try:
            return string.Template(self.instruction).substitute(text=text, context=context)
        except KeyError as e:
            raise PromptError(f"prompt {self.source}: no value for variable ${e.args[0]}") from None
        except ValueError as e:
            raise PromptError(f"prompt {self.source}: invalid placeholder ({e})") from None


def _read(name: str, prompts_dir: Path | None, prompt_set: PromptSet) -> str | None:
    if prompts_dir is not None:
        p = prompts_dir / name
        if p.is_file():
            return p.read_text(encoding="utf-8")
    if prompt_set.folder is not None:
        p = prompt_set.folder / name
        return p.read_text(encoding="utf-8") if p.is_file() else None
    res = resources.files("dhp.scoring").joinpath("prompts", prompt_set.name, name)
    if res.is_file():
        return res.read_text(encoding="utf-8")
    return None


def load_template(
    spec: DatasetSpec,
    metric: str,
    prompts_dir: Path | None = None,
    prompt_set: PromptSet | str = PROMPT_SETS[0],
    cue: str | None = None,
) -> PromptTemplate:
    """The template for ``spec``'s metric: ``<dataset>.<metric>.txt``, else ``<task>.<metric>.txt``.

    A ``prompts_dir`` is searched before the prompt set, so a user can override any template.
    A ``cue`` is added after the judged text (``${text}``, a blank line, the cue).
    """
    m = spec.metric(metric)
    pset = prompt_set if isinstance(prompt_set, PromptSet) else resolve_prompt_set(prompt_set)
    if cue is not None and not cue.strip():
        raise PromptError("a cue must not be empty")
    for name in (f"{spec.name}.{metric}.txt", f"{spec.task}.{metric}.txt"):
        raw = _read(name, prompts_dir, pset)
        if raw is not None:
            break
    else:
        raise PromptError(
            f"no prompt template in set {pset.name!r} for dataset {spec.name!r}, metric {metric!r}: "
            f"add {spec.name}.{metric}.txt or {spec.task}.{metric}.txt"
        )
    metric_values = {
        "metric_label": m.label,
        "definition": m.definition[:1].upper() + m.definition[1:],
        "scale_min": str(m.scale_min),
        "scale_max": str(m.scale_max),
        "text_label": spec.judged_label,
    }
    # '$' in a value must survive the second (text-level) substitution literally
    values = {k: v.replace("$", "$$") for k, v in metric_values.items()}
    values.update({v: "${" + v + "}" for v in _TEXT_VARS})  # text-level: placeholders until render()
    if cue is not None:  # the false prior rating travels with the judged text
        values["text"] = "${text}\n\n" + cue.strip().replace("$", "$$")
    try:
        instruction = string.Template(raw).substitute(values)
    except KeyError as e:
        raise PromptError(f"prompt {name}: unknown variable ${e.args[0]}") from None
    except ValueError as e:
        raise PromptError(f"prompt {name}: invalid placeholder ({e})") from None
    for v in _TEXT_VARS:
        if "${" + v + "}" not in instruction:
            raise PromptError(f"prompt {name}: must contain ${{{v}}}")
    return PromptTemplate(
        dataset=spec.name, metric=metric, source=name, instruction=instruction, prompt_set=pset.name, cue=cue
    )


def render_context(spec: DatasetSpec, context: Mapping[str, str | None]) -> str:
    """The labelled context block; a required field that is missing is an error."""
    parts: list[str] = []
    for cf in spec.context_fields:
        value = context.get(cf.name)
        if value is None or not str(value).strip():
            if cf.required:
                raise PromptError(f"dataset {spec.name}: required context field {cf.name!r} is empty")
            continue
        parts.append(f"{cf.label}:\n\n{str(value).strip()}\n\n")
    return "".join(parts)
