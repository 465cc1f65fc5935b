"""Serialise every mutation of one file, whatever spelling of its path the caller used.

The key is the canonical (real) path, so ``a``, ``./a``, ``../d/a`` and a symlink to ``a`` share
one lock. Locks are reference-counted and dropped when idle, so the table does not grow without
bound over a long session.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def canonical_key(path: str) -> str:
    return os.path.realpath(path)


class MutationQueue:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, path: str) -> Iterator[str]:
        """Hold the file's lock; yields the canonical key."""
        key = canonical_key(path)
        with self._guard:
            lock, users = self._locks.get(key, (threading.Lock(), 0))
            self._locks[key] = (lock, users + 1)
        try:
            with lock:
                yield key
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users <= 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        with self._guard:
            return len(self._locks)
