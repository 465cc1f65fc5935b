"""edit reads, changes and writes a file without a per-file lock: concurrent edits are lost."""

from collections.abc import Iterator
from contextlib import contextmanager

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue, canonical_key
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoQueue(MutationQueue):
    @contextmanager
    def hold(self, path: str) -> Iterator[str]:
        yield canonical_key(path)


def create() -> ReferenceTools:
    return ReferenceTools(queue=NoQueue())


BROKEN = Broken(
    caught_by={"EDIT-QUEUE-01"},
    suite_modules=["test_edit"],
    create=create,
)
