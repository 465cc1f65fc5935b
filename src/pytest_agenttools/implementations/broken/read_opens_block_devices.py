"""read refuses FIFOs, sockets and character devices but forgets block devices: a disk node is
opened like a file and its raw content shown (the kit's node is an unattached loop device, so
what is shown is an empty file)."""

import os
import stat
from typing import BinaryIO

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import fsport
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class OpensBlockDevices(ReadOps):
    def check_kind(self, path: str) -> os.stat_result:
        info = os.stat(path)
        if stat.S_ISBLK(info.st_mode):
            return info
        return fsport.check_file_kind(path)

    def open(self, path: str) -> BinaryIO:
        return open(path, "rb")


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": OpensBlockDevices()})


BROKEN = Broken(
    caught_by={"READ-DEV-04"},
    suite_modules=["test_read"],
    create=create,
)
