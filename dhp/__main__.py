import sys

from dhp.cli import main

sys.exit(main())
