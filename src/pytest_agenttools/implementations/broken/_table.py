"""The table of broken implementations: each module ends in one ``BROKEN = Broken(...)``.

A module is found by its name (every module of this package whose name does not start with
``_``) and must hold exactly that one value: a module without it, with a value of another type,
or still spelling the old per-module constants (``CAUGHT_BY``, ``SUITE_MODULES`` ...) is an
error when the table is read, never a silently ignored setting.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

PACKAGE = __name__.rpartition(".")[0]
CLAUSE_ID = re.compile(r"^[A-Z]+(?:-[A-Z0-9]+)+$")
#: the module-level names this table replaced; one left in a module is a mistake
RETIRED = ("CAUGHT_BY", "SUITE_MODULES", "PYTEST_ARGS", "SERVED", "WAITS_S")


@dataclass(frozen=True)
class Broken:
    """One deliberately broken implementation: the reference with one defect."""

    #: the clauses whose tests must fail it
    caught_by: AbstractSet[str]
    #: the in-process factory (a served one is run over stdio instead)
    create: Callable[[], Any]
    #: the suite modules worth running (none: the whole suite)
    suite_modules: Sequence[str] = ()
    #: extra pytest arguments for its run (a short call deadline for a defect that hangs)
    pytest_args: Sequence[str] = ()
    #: its defect lies in the stdio protocol layer: run as ``python -m MODULE`` over stdio
    served: bool = False
    #: the seconds its run waits out a clause's own fixed window (to start it early)
    waits_s: int = 0
    #: the module's name, filled in when the table is read
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "caught_by", frozenset(self.caught_by))
        object.__setattr__(self, "suite_modules", tuple(self.suite_modules))
        object.__setattr__(self, "pytest_args", tuple(self.pytest_args))
        if not self.caught_by:
            raise ValueError("a broken implementation names the clauses that catch it")
        bad = sorted(c for c in self.caught_by if not CLAUSE_ID.match(c))
        if bad:
            raise ValueError(f"caught_by holds names that are not clause ids: {bad}")
        odd = [m for m in self.suite_modules if not m.startswith("test_")]
        if odd:
            raise ValueError(f"suite_modules names suite modules (test_*): {odd}")


def names() -> list[str]:
    package = importlib.import_module(PACKAGE)
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.name[0] != "_")


def entry_of(module: ModuleType) -> Broken:
    """The module's one ``BROKEN`` value, checked."""
    short = module.__name__.rpartition(".")[2]
    left = [n for n in RETIRED if hasattr(module, n)]
    if left:
        raise TypeError(f"{module.__name__} still sets {left}: give them to its Broken(...)")
    value = getattr(module, "BROKEN", None)
    if not isinstance(value, Broken):
        raise TypeError(f"{module.__name__} must end in BROKEN = Broken(...), not {value!r}")
    return value if value.name == short else _named(value, short)


def _named(value: Broken, name: str) -> Broken:
    object.__setattr__(value, "name", name)
    return value


def load(name: str) -> tuple[Broken, ModuleType]:
    module = importlib.import_module(f"{PACKAGE}.{name}")
    return entry_of(module), module


def table(only: Iterable[str] | None = None) -> dict[str, Broken]:
    """Every broken implementation by name (or those of ``only``)."""
    return {name: load(name)[0] for name in (names() if only is None else only)}
