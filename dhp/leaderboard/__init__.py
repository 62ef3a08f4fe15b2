"""The discernment leaderboard, in four parts that import downward in this order:

* :mod:`~dhp.leaderboard.board`: the board's data: the stores, the results read from them, ranks with
  their ranges (computed in a child process), the table as pure functions;
* :mod:`~dhp.leaderboard.submissions`: what readers send: validation of a submission, the request
  queue and the worker that drains it with ``dhp score``, the expert-weight survey;
* :mod:`~dhp.leaderboard.page`: the Gradio page: the backend behind its events, the tabs, the judge
  page, the HTML and plots, and the fast path that serves the board to a crowd;
* :mod:`~dhp.leaderboard.deploy`: ``dhp space init`` / ``push``: a deployable Hugging Face Space.

Start at :mod:`dhp.leaderboard.page.app` (``dhp leaderboard`` and the Space run its ``main``: the
stores from the environment, the page built over them) and, for the data,
:mod:`dhp.leaderboard.board.stores`; the commands are :mod:`dhp.cli.board`.
"""
