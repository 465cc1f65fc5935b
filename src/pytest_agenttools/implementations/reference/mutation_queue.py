"""Serialise every mutation of one file, whatever spelling of its path the caller used.

The key is the canonical (real) path, so ``a``, ``./a``, ``../d/a`` and a symlink to ``a`` share
one lock, and ``write`` and ``edit`` share one queue (WRITE-QUEUE-01, WRITE-QUEUE-02). Locks are
reference-counted and dropped when idle, so the table does not grow without bound over a long
session.

The queue also keeps the directories it mutates tidy: the first time a file in a directory is
held, temp files that a killed writer left there are swept (``fsport.sweep_stale_temps``), and
``close`` sweeps every directory it touched, this process's own leftovers included.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from pytest_agenttools.implementations.reference import fsport

#: directories remembered for the sweep at close; the oldest are forgotten beyond this
MAX_DIRECTORIES = 4096


def canonical_key(path: str) -> str:
    return os.path.realpath(path)


class MutationQueue:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}
        self._directories: OrderedDict[str, None] = OrderedDict()

    @contextmanager
    def hold(self, path: str) -> Iterator[str]:
        """Hold the file's lock; yields the canonical key."""
        key = canonical_key(path)
        with self._guard:
            lock, users = self._locks.get(key, (threading.Lock(), 0))
            self._locks[key] = (lock, users + 1)
        try:
            with lock:
                self._first_touch(os.path.dirname(key))
                yield key
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users <= 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

    def _first_touch(self, directory: str) -> None:
        """Sweep a dead writer's temp files the first time this queue mutates ``directory``."""
        with self._guard:
            seen = directory in self._directories
            self._directories[directory] = None
            self._directories.move_to_end(directory)
            while len(self._directories) > MAX_DIRECTORIES:
                self._directories.popitem(last=False)
        if not seen:
            fsport.sweep_stale_temps(directory)

    def close(self) -> int:
        """At shutdown: sweep every directory touched, this process's temp files included.

        Returns how many temp files were removed."""
        with self._guard:
            directories = list(self._directories)
            self._directories.clear()
        return sum(fsport.sweep_stale_temps(d, own=True) for d in directories)

    def __len__(self) -> int:
        with self._guard:
            return len(self._locks)
