"""grep applies its file-size cap to a file named by ``path`` by skipping it: a big log with a
matching line comes back as "no matches", a silent wrong answer."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import search_root
from pytest_agenttools.implementations.reference.search_ops import GrepOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class SkipsBigFile(GrepOps):
    def named_file(self, root: search_root.Root, cap: int) -> bool:
        try:
            return super().named_file(root, cap)
        except Exception:
            return False  # too big: searched as if empty


def create() -> ReferenceTools:
    return ReferenceTools(ops={"grep": SkipsBigFile()})


BROKEN = Broken(
    caught_by={"GREP-SIZE-02"},
    suite_modules=["test_grep_limits"],
    create=create,
)
