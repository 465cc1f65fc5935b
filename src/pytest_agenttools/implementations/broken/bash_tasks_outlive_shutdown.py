"""bash forgets its background tasks at shutdown: the implementation goes, the tasks and their
process trees run on with nobody to end them or read their output."""

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

SUITE_MODULES = ["test_bash_lifecycle"]
CAUGHT_BY = {"BASH-SHUT-02"}


class Forgets(ReferenceTools):
    def shutdown(self) -> None:
        self.services.pop("bash.tasks", None)
        super().shutdown()


def create() -> Forgets:
    return Forgets()
