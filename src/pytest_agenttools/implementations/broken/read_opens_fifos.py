"""read opens whatever the path names: a FIFO (or a link to one) is opened like a file, and the
call blocks until something writes to it, which is never."""

import os
import stat
from typing import BinaryIO

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import fsport
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class OpensAnything(ReadOps):
    def check_kind(self, path: str) -> os.stat_result:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            return fsport.check_file_kind(path)  # directories are still refused
        return info

    def open(self, path: str) -> BinaryIO:
        return open(path, "rb")


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": OpensAnything()})


BROKEN = Broken(
    caught_by={"READ-SPECIAL-02"},
    suite_modules=["test_read"],
    # a blocked read is cut at this deadline instead of the suite's 20 s
    pytest_args=["--agenttools-call-timeout=3"],
    create=create,
)
