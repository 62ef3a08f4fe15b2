"""DHP-bench: the Discernment of Hierarchical Perturbation benchmark for LLM judges.

Start with :mod:`dhp.types` (the vocabulary) and :mod:`dhp.spec` (the six datasets as data).
Stages: :mod:`dhp.builder` (datasets), :mod:`dhp.scoring` (judges and statistics),
:mod:`dhp.leaderboard` (the Gradio Space).
"""

__version__ = "0.1.0"
