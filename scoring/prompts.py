"""G-Eval-style judge prompts: one template file per (task or dataset, metric), rendered strictly.

Templates live in ``scoring/prompts/`` as ``<dataset>.<metric>.txt`` (a dataset's own prompt) or
``<task>.<metric>.txt`` (shared by the datasets of a task, e.g. both WMT22 pairs). They are
``string.Template`` texts; every ``$name`` must be supplied or rendering fails (no silent blanks).

Variables, in two stages:

* metric level (from :mod:`dhp.spec`): ``metric_label``, ``definition``, ``scale_min``,
  ``scale_max``, ``text_label``. Substituting these gives the *instruction*, whose SHA-256 is the
  prompt hash recorded in every result (the exact wording the judge saw, minus the texts).
* text level: ``context`` (the labelled context fields present, e.g. ``Source Article:\\n\\n...``;
  an optional field that is absent or empty is left out) and ``text`` (the judged text, alone:
  a judge never sees an original beside its perturbed version).
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from dhp.types import DatasetSpec, SpecError

__all__ = ["PromptError", "PromptTemplate", "load_template", "render_context"]

_TEXT_VARS = ("context", "text")


class PromptError(SpecError):
    """A template is missing, or a variable it names has no value."""


@dataclass(frozen=True)
class PromptTemplate:
    dataset: str
    metric: str
    source: str  # file name the template came from
    instruction: str  # the template with metric-level variables substituted

    @property
    def hash(self) -> str:
        return "sha256:" + hashlib.sha256(self.instruction.encode("utf-8")).hexdigest()

    def render(self, text: str, context: str) -> str:
        try:
            return string.Template(self.instruction).substitute(text=text, context=context)
        except KeyError as e:
            raise PromptError(f"prompt {self.source}: no value for variable ${e.args[0]}") from None
        except ValueError as e:
            raise PromptError(f"prompt {self.source}: invalid placeholder ({e})") from None


def _read(name: str, prompts_dir: Path | None) -> str | None:
    if prompts_dir is not None:
        p = prompts_dir / name
        if p.is_file():
            return p.read_text(encoding="utf-8")
    res = resources.files("dhp.scoring").joinpath("prompts", name)
    if res.is_file():
        return res.read_text(encoding="utf-8")
    return None


def load_template(spec: DatasetSpec, metric: str, prompts_dir: Path | None = None) -> PromptTemplate:
    """The template for ``spec``'s metric: ``<dataset>.<metric>.txt``, else ``<task>.<metric>.txt``.

    A ``prompts_dir`` is searched before the packaged templates, so a user can override any of them.
    """
    m = spec.metric(metric)
    for name in (f"{spec.name}.{metric}.txt", f"{spec.task}.{metric}.txt"):
        raw = _read(name, prompts_dir)
        if raw is not None:
            break
    else:
        raise PromptError(
            f"no prompt template for dataset {spec.name!r}, metric {metric!r}: "
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
    try:
        instruction = string.Template(raw).substitute(values)
    except KeyError as e:
        raise PromptError(f"prompt {name}: unknown variable ${e.args[0]}") from None
    except ValueError as e:
        raise PromptError(f"prompt {name}: invalid placeholder ({e})") from None
    for v in _TEXT_VARS:
        if "${" + v + "}" not in instruction:
            raise PromptError(f"prompt {name}: must contain ${{{v}}}")
    return PromptTemplate(dataset=spec.name, metric=metric, source=name, instruction=instruction)


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
