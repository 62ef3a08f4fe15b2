"""Scoring: a judge and the built DHP datasets in, one validated result file per dataset out.

Start at :func:`dhp.scoring.run.score_datasets` (``dhp score``), then follow one run:

* :mod:`dhp.scoring.data` — the built datasets (a folder or the Hub) as items and perturbed texts;
* :mod:`dhp.scoring.prompts` — the prompt sets, one template per (task, metric), rendered strictly;
* :mod:`dhp.scoring.run` — which requests (one per text and metric, or repeats and samples), sent
  through :mod:`dhp.inference` (pool, cache, the judge's backends), the mode settled by the first
  answers; then the analysis and the result files;
* :mod:`dhp.scoring.parse` — an output to a score, or to the reason it gave none;
  :mod:`dhp.scoring.types` the requests and parsed scores;
* :mod:`dhp.scoring.stats` — the statistics (Wilcoxon tests, combined p-values, D), pure;
* :mod:`dhp.scoring.results` — the versioned result record, its reading, migration and writing;
  :mod:`dhp.scoring.caveats` what makes one not comparable; :mod:`dhp.scoring.cost` what it cost.

Reading results, no request sent: :mod:`~dhp.scoring.report` (``dhp report``),
:mod:`~dhp.scoring.compare` and :mod:`~dhp.scoring.misses` (``dhp compare``, ``dhp misses``),
:mod:`~dhp.scoring.stability`, :mod:`~dhp.scoring.robustness`, :mod:`~dhp.scoring.breakdown`.
"""
