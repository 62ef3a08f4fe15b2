"""``python -m dhp``: the ``dhp`` command (:func:`dhp.cli.main`)."""

import sys

try:
    from dhp.cli import main
except KeyboardInterrupt:  # Ctrl-C while the command loads: one line, as at any later moment
    sys.stderr.write("dhp: interrupted\n")
    sys.exit(130)

sys.exit(main())
