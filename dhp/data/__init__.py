"""The dataset format: what the builder writes and the scorer, ``dhp show``/``misses`` and the board read.

:mod:`~dhp.data.items` is an item and its source files, :mod:`~dhp.data.dataset_io` the one reader and
writer of a dataset folder (parquet rows, ``build_info.json``, ``not_applicable.jsonl``, the card),
:mod:`~dhp.data.diffmark` the marking of what a perturbation changed. Nothing here builds or scores.
Reading a built (or downloaded) dataset folder::

    from dhp.data import read_pairs, read_build_info, read_not_applicable
    rows = read_pairs(Path("out/datasets/summeval"))            # all pairs, as dicts
    typos = read_pairs(folder, ["char_typo_minor"])              # one perturbation
"""

from __future__ import annotations

from dhp.data.dataset_io import read_build_info, read_not_applicable, read_pairs

__all__ = ["read_build_info", "read_not_applicable", "read_pairs"]
