"""A user's own task (``dhp task``, ``dhp build --task``, ``dhp score --task``): a dataset of their own
declared in a YAML or JSON task file, with the built-in datasets' types.

Start at :func:`dhp.task.file.load_task`: :mod:`dhp.task.file` reads and checks a task file and
the spec of a built task folder (no builder needed: the board and the scorer read a folder's spec
with it); :mod:`dhp.task.build_task` builds, checks and starts one (``dhp task init``/``check``), through
the builder.
"""
