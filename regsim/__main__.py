"""`python -m regsim`: the `regsim` command (see `regsim --help`)."""

import sys

from regsim._src.api.cli import main

sys.exit(main())
