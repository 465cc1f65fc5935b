"""bash forgets its background tasks at shutdown and does not tie its commands to its own life:
however the implementation ends (a shutdown, a closed stdin, a SIGKILL), its tasks run on.

Over MCP the server is stopped the SDK's way (stdin closed, its process group signalled), and
the adapter then sweeps up every process carrying the server's mark; BASH-SHUT-02 must see the
tasks before that sweep (docs/mcp-adapter.md, No leaked servers), or this copy passes.
"""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.broken.bash_orphans_on_host_kill import Untied
from pytest_agenttools.implementations.broken.bash_tasks_outlive_shutdown import Forgets


def create() -> Forgets:
    return Forgets(ops={"bash": Untied()})


BROKEN = Broken(
    caught_by={"BASH-SHUT-02", "BASH-SHUT-05"},
    suite_modules=["test_bash_lifecycle"],
    create=create,
)
