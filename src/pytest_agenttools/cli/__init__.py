"""The ``agenttools`` command: a thin shell over the library (``main``), and ``python -m``."""

from pytest_agenttools.cli.commands import main

__all__ = ["main"]
