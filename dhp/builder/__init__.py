"""The DHP dataset builder: raw sources -> selection -> perturbations -> versioned Hub dataset folders.

Reading a built (or downloaded) dataset folder, for scoring and the leaderboard::

    from dhp.builder import read_pairs, read_build_info, read_not_applicable
    rows = read_pairs(Path("out/datasets/summeval"))            # all pairs, as dicts
    typos = read_pairs(folder, ["char_typo_minor"])              # one perturbation

Modules: :mod:`~dhp.builder.sources` (loaders), :mod:`~dhp.builder.select`,
:mod:`~dhp.builder.perturb` (rules, offline stand-in, LLM client), :mod:`~dhp.builder.textstats`,
:mod:`~dhp.builder.build`, :mod:`~dhp.builder.cards`, :mod:`~dhp.builder.publish`,
:mod:`~dhp.builder.export`, :mod:`~dhp.builder.cli`.
"""

from __future__ import annotations

from dhp.builder.dataset_io import read_build_info, read_not_applicable, read_pairs, row_columns

__all__ = ["read_build_info", "read_not_applicable", "read_pairs", "row_columns"]
