"""bash forgets its background tasks at shutdown: the implementation goes, the tasks and their
process trees run on with nobody to end them or read their output."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Forgets(ReferenceTools):
    def shutdown(self) -> None:
        self.services.pop("bash.tasks", None)
        super().shutdown()


def create() -> Forgets:
    return Forgets()


BROKEN = Broken(
    caught_by={"BASH-SHUT-02"},
    suite_modules=["test_bash_lifecycle"],
    create=create,
)
