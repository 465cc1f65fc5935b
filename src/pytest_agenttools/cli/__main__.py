"""``python -m pytest_agenttools.cli``: the console script, for children started by path."""

import sys

from pytest_agenttools.cli.commands import main

sys.exit(main())
