"""A tool of the reference as one typed value: each tool module ends in ``TOOLS``, a tuple of
these, and the toolbox reads nothing else of it.

A misspelt field is a TypeError when the module is imported, where a misspelt module constant
found by name would be ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_agenttools.implementations.reference.context import CallContext

#: a tool's entry point: the call's arguments and context -> the result
Run = Callable[[Any, CallContext], dict[str, Any]]
#: an extra protocol method: its params and the instance's services -> its result
Method = Callable[[Any, dict[str, Any]], Any]


@dataclass(frozen=True)
class ToolDefinition:
    """One canonical tool of the reference."""

    name: str
    run: Run
    #: the manifest features it has
    features: tuple[str, ...] = ()
    #: its limits' default values (configurable)
    limits: Mapping[str, int | float] = field(default_factory=dict)
    #: its operations port: the object through which it touches files and processes
    ops: Any = None
    #: details every error result carries when the tool did not get to run (the observation
    #: of a call that ran nothing)
    refused: Mapping[str, Any] = field(default_factory=dict)
    #: extra protocol methods it answers (``bash/analyze``)
    methods: Mapping[str, Method] = field(default_factory=dict)
    #: what releases what it holds (background processes, temp files)
    shutdown: Callable[[dict[str, Any]], None] | None = None
