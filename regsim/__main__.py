"""`python -m regsim`: the `regsim` command (see `regsim --help`)."""

import sys

from regsim._src.frontends.cli import main

sys.exit(main())
