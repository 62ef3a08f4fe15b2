"""Scoring: a judge and the built DHP datasets in, one validated result file per dataset out.

Start at :func:`dhp.scoring.run.score_datasets` (``dhp score``), the edge of a run: it builds the
judge's backends (:mod:`dhp.inference`) and takes each dataset through three stages, loading the
next one while the current one is sent:

* :mod:`dhp.scoring.config` — what the run is asked to do (:class:`~dhp.scoring.config.ScoreConfig`,
  which the edge splits once into each stage's settings) and the request form all stages read;
* :mod:`dhp.scoring.plan` — a dataset loaded (:mod:`~dhp.scoring.data`), its prompts read
  (:mod:`~dhp.scoring.prompts`), one request per text, metric and repeat
  (:class:`~dhp.scoring.plan.PlanSettings`);
* :mod:`dhp.scoring.send` — the requests through the pool, the mode settled by the first answers
  (:class:`~dhp.scoring.send.SendSettings`);
* :mod:`dhp.scoring.conclude` — answers parsed (:mod:`~dhp.scoring.parse`), the statistics run
  (:mod:`~dhp.scoring.analysis`, over :mod:`~dhp.scoring.stats` and :mod:`~dhp.scoring.wilcoxon`),
  the result written (:class:`~dhp.scoring.conclude.ConcludeSettings`).

The result: :mod:`~dhp.scoring.results` (the versioned record), :mod:`~dhp.scoring.summary` (its
numbers), :mod:`~dhp.scoring.result_files` (paths, migrations, reading and writing),
:mod:`~dhp.scoring.caveats`, :mod:`~dhp.scoring.cost`. Reading results, no request sent:
:mod:`~dhp.scoring.report`, :mod:`~dhp.scoring.compare`, :mod:`~dhp.scoring.misses`,
:mod:`~dhp.scoring.stability`, :mod:`~dhp.scoring.robustness`, :mod:`~dhp.scoring.breakdown`.
"""
