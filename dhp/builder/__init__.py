"""The DHP dataset builder: raw sources -> selection -> perturbations -> versioned Hub dataset folders.

Modules: :mod:`~dhp.builder.sources` (loaders), :mod:`~dhp.builder.select`,
:mod:`~dhp.builder.perturb` (rules, offline stand-in, LLM client), :mod:`~dhp.builder.textstats`,
:mod:`~dhp.builder.build`, :mod:`~dhp.builder.cards`, :mod:`~dhp.builder.publish`,
:mod:`~dhp.builder.export`; the command is :mod:`dhp.cli.build`. The folders it writes are read with
:mod:`dhp.data` (``read_pairs``, ``read_build_info``, ``read_not_applicable``).
"""
