"""DHP-bench: the Discernment of Hierarchical Perturbation benchmark for LLM judges.

Build the perturbed datasets, score a judge on them, serve the leaderboard. Start with
:mod:`dhp.types` (the vocabulary) and :mod:`dhp.spec` (the six datasets as data); the ``dhp`` command
(:mod:`dhp.cli`) is the way in for a user. The package is in eight stages, each a folder, lowest
first; a stage imports only from the ones before it (``tests/core/test_stages.py``):

* core, the top-level modules: :mod:`~dhp.types`, :mod:`~dhp.spec` (datasets, metrics,
  perturbations, default weights), :mod:`~dhp.weights`, :mod:`~dhp.records`, :mod:`~dhp.errors`,
  :mod:`~dhp.naming`, :mod:`~dhp.secrets`, :mod:`~dhp.extras` (which extra a command needs);
* :mod:`dhp.data` — the dataset format: the one reader and writer of a dataset folder
  (start at :func:`dhp.data.read_pairs`);
* :mod:`dhp.inference` — judges and how they are reached: the judge record and its kinds, the
  backends' registry, HTTP endpoints, pool and cache (start at :mod:`dhp.inference.judge`);
* :mod:`dhp.builder` — sources → selection → perturbations → versioned Hub dataset folders
  (start at :func:`dhp.builder.build.build_dataset`);
* :mod:`dhp.scoring` — scores a judge on the datasets and writes its results: prompts, parsing,
  statistics, result files, reports (start at its package docstring);
* :mod:`dhp.task` — a user's own dataset: read a task file, build and check it
  (start at :func:`dhp.task.file.load_task`);
* :mod:`dhp.leaderboard` — the board's data, submissions and their queue, the Gradio page, the Space
  (start at its package docstring);
* :mod:`dhp.cli` — every ``dhp`` command, one module per group (start at :func:`dhp.cli.main`).
"""

__version__ = "0.1.0"
