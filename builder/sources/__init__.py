"""Source loaders, one per DHP dataset, all reading through a :class:`SourceLocator`."""

from __future__ import annotations

from pathlib import Path

from dhp.builder.errors import SourceError
from dhp.builder.items import SourceData
from dhp.builder.sources.answer_equivalence import load_answer_equivalence
from dhp.builder.sources.fetch import SourceLocator
from dhp.builder.sources.story_cloze import load_story_cloze
from dhp.builder.sources.summeval import load_summeval
from dhp.builder.sources.sumpubmed import load_sumpubmed
from dhp.builder.sources.wmt22 import load_wmt22
from dhp.types import DatasetSpec

__all__ = ["SourceLocator", "load_source"]


def load_source(
    spec: DatasetSpec, locator: SourceLocator, story_cloze_file: Path | None = None
) -> SourceData:
    """All candidate items of ``spec``'s source, in source order."""
    if spec.name == "summeval":
        return load_summeval(spec, locator)
    if spec.name == "sumpubmed":
        return load_sumpubmed(spec, locator)
    if spec.name == "story-cloze":
        return load_story_cloze(spec, locator, story_cloze_file)
    if spec.name == "answer-equivalence":
        return load_answer_equivalence(spec, locator)
    if spec.name.startswith("wmt22-"):
        return load_wmt22(spec, locator)
    raise SourceError(
        f"no source loader for dataset {spec.name!r}; valid: summeval, sumpubmed, story-cloze, "
        "answer-equivalence, wmt22-de-en, wmt22-zh-en"
    )
