"""Source loaders, one per DHP dataset, all reading through a :class:`SourceLocator`.

A small registry shared by the six built-in datasets and user tasks (:mod:`dhp.task`): built-in
datasets are looked up by name; a dataset whose source records a local ``file`` or a ``hub``
dataset (:class:`~dhp.data.items.TableRef`) goes to the generic table loader.

:func:`missing_source` says, before anything is built, why a built-in dataset's source cannot be
had now (not in the sources folder, not downloadable, or Story Cloze without the user's copy).
A :class:`~dhp.builder.sources.sample.SampleLocator` reads the small sample shipped in the package
instead (:mod:`dhp.builder.sources.sample`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from dhp.builder.sources import answer_equivalence, story_cloze, summeval, sumpubmed, wmt22
from dhp.builder.sources.answer_equivalence import load_answer_equivalence
from dhp.builder.sources.fetch import SourceLocator
from dhp.builder.sources.files import load_table
from dhp.builder.sources.sample import SampleLocator, load_sample, sample_missing
from dhp.builder.sources.story_cloze import load_story_cloze
from dhp.builder.sources.summeval import load_summeval
from dhp.builder.sources.sumpubmed import load_sumpubmed
from dhp.builder.sources.wmt22 import load_wmt22
from dhp.data.items import SourceData, TableRef
from dhp.errors import SourceError
from dhp.types import DatasetSpec

__all__ = [
    "LOADERS",
    "SampleLocator",
    "SourceLoader",
    "SourceLocator",
    "load_source",
    "loader_name",
    "missing_source",
]

#: (spec, locator, Story Cloze file) -> the candidate items of the spec's source, in source order
SourceLoader = Callable[[DatasetSpec, SourceLocator, "Path | None"], SourceData]

LOADERS: Mapping[str, SourceLoader] = {
    "summeval": lambda spec, loc, _: load_summeval(spec, loc),
    "sumpubmed": lambda spec, loc, _: load_sumpubmed(spec, loc),
    "story-cloze": load_story_cloze,
    "answer-equivalence": lambda spec, loc, _: load_answer_equivalence(spec, loc),
    "wmt22-de-en": lambda spec, loc, _: load_wmt22(spec, loc),
    "wmt22-zh-en": lambda spec, loc, _: load_wmt22(spec, loc),
    "table": lambda spec, loc, _: load_table(spec, loc),
}


#: (spec, locator) -> the (layout path, public URL) of the files a loader reads (enough to tell it can)
_FILES: Mapping[str, Callable[[DatasetSpec, SourceLocator], tuple[tuple[str, str | None], ...]]] = {
    "summeval": summeval.source_files,
    "sumpubmed": sumpubmed.source_files,
    "answer-equivalence": answer_equivalence.source_files,
    "wmt22-de-en": wmt22.source_files,
    "wmt22-zh-en": wmt22.source_files,
}


def missing_source(
    spec: DatasetSpec, locator: SourceLocator, story_cloze_file: Path | None = None
) -> str | None:
    """Why ``spec``'s source cannot be had now (one line), or None. A task's table source is not checked
    here (its loader's errors are one line already)."""
    if isinstance(locator, SampleLocator):
        return sample_missing(spec, locator.root)
    name = loader_name(spec)
    if name == "story-cloze":
        return story_cloze.missing(locator, story_cloze_file)
    for rel, url in _FILES[name](spec, locator) if name in _FILES else ():
        why = locator.unavailable(rel, url)
        if why is not None:
            return why
    return None


def loader_name(spec: DatasetSpec) -> str:
    """The registry key of ``spec``'s loader: a table source first, else the dataset's name."""
    if TableRef.of(spec) is not None:
        return "table"
    if spec.name in LOADERS:
        return spec.name
    raise SourceError(
        f"no source loader for dataset {spec.name!r}; valid: {', '.join(k for k in LOADERS if k != 'table')}, "
        "or a task file's source (a file or a Hub dataset)"
    )


def load_source(
    spec: DatasetSpec, locator: SourceLocator, story_cloze_file: Path | None = None
) -> SourceData:
    """All candidate items of ``spec``'s source, in source order."""
    if isinstance(locator, SampleLocator):
        return load_sample(spec, locator.root)
    return LOADERS[loader_name(spec)](spec, locator, story_cloze_file)
