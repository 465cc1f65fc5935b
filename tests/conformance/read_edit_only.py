"""The reference with only read and edit declared: the valid call that ends a robustness test is
then a read of ``a.txt``, which an earlier hostile edit may have changed."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class ReadEdit(ReferenceTools):
    def manifest(self) -> dict[str, Any]:
        manifest = super().manifest()
        manifest["tools"] = ["edit", "read"]
        return manifest


def create() -> ReadEdit:
    return ReadEdit()
