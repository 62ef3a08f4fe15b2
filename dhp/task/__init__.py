"""A user's own task: :mod:`dhp.task.file` reads a task file (no builder needed: the board and the
scorer read a built task folder's spec with it), :mod:`dhp.task.build` builds, checks and starts one."""
