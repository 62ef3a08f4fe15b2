"""The DHP dataset builder: raw sources -> selection -> perturbations -> versioned Hub dataset folders.

Start at :func:`dhp.builder.build.build_dataset`, which builds one dataset folder from its
:class:`~dhp.types.DatasetSpec` in these steps: :mod:`~dhp.builder.sources` (a loader per source),
:mod:`~dhp.builder.select` (the N items), :mod:`~dhp.builder.perturb` (the rules, the offline
stand-in of the LLM perturbations, the LLM client, the validator), :mod:`~dhp.builder.textstats`,
then :mod:`~dhp.builder.cards` (the dataset card); :mod:`~dhp.builder.publish` uploads and tags,
:mod:`~dhp.builder.export` writes jsonl/csv/parquet. The commands are :mod:`dhp.cli.datasets`; the
folders it writes are read with :mod:`dhp.data` (``read_pairs``, ``read_build_info``,
``read_not_applicable``). Nothing here scores.
"""
