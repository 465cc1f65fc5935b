"""What the confinement clauses share: setting the roots, an outside directory, the swapper.

The kit tells an implementation its roots with ``configure {"confine.roots": {...}}`` and lifts
them with ``null`` when the test ends (docs/adapter-protocol.md, Confinement). An implementation
that declares a ``confine.*`` feature but does not accept the setting fails the test: a MUST
clause of a declared feature never skips.

``Outside`` is a fresh directory beside the workspace (same file system, so hard links work),
never a root, removed when the test ends. ``Swapper`` exchanges a real directory and a link
to the outside, over and over, in a thread, for the check-then-use clauses.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttools.harness.assertions import shown
from pytest_agenttools.harness.client import ToolClient
from pytest_agenttools.harness.contract import ToolResult
from pytest_agenttools.harness.scratch import workspace_base
from pytest_agenttools.harness.workspace import Workspace

SETTING = "confine.roots"
SECRET = "S3CRET-outside-the-roots-7f3a"
ORIGINAL = "ORIGINAL outside content\n"


@dataclass
class Outside:
    """A directory outside every root, holding ``secret.txt`` and ``existing.txt``."""

    root: Path

    @property
    def name(self) -> str:
        return self.root.name

    def snapshot(self) -> dict[str, bytes | str]:
        """Every entry below the root: file bytes, a link's target, or ``<dir>``."""
        found: dict[str, bytes | str] = {}
        for directory, dirs, files in os.walk(self.root):
            for name in dirs + files:
                full = os.path.join(directory, name)
                rel = os.path.relpath(full, self.root)
                if os.path.islink(full):
                    found[rel] = "-> " + os.readlink(full)
                elif os.path.isdir(full):
                    found[rel] = "<dir>"
                else:
                    with open(full, "rb") as handle:
                        found[rel] = handle.read()
        return found


class Confined:
    """This test's roots, set on the implementation; ``apply`` changes them."""

    def __init__(self, tools: ToolClient, ws: Workspace, outside: Outside) -> None:
        self.tools = tools
        self.ws = ws
        self.outside = outside
        self.applied = False

    def apply(
        self,
        *,
        allow_write: Sequence[str] | None = None,
        forbid_read: Sequence[str] = (),
        network: bool = False,
    ) -> None:
        root = str(self.ws.root)
        value: dict[str, Any] = {
            "workspace_root": root,
            "allow_write": list(allow_write) if allow_write is not None else [root],
            "forbid_read": list(forbid_read),
            "network": network,
        }
        manifest = self.tools.manifest
        if SETTING not in manifest.settings:
            pytest.fail(
                f"{manifest.name} declares a confine.* feature but its manifest's settings do "
                f"not list {SETTING!r}, so the kit cannot tell it its roots "
                "(docs/adapter-protocol.md, Confinement)"
            )
        answer = self.tools.adapter.configure({SETTING: value})
        self.applied = True
        assert SETTING in answer, (
            f"configure {{{SETTING!r}: {value!r}}} was not applied (answer {answer!r}); an "
            "implementation that declares confine.* must accept its roots"
        )

    def lift(self) -> None:
        if self.applied:
            self.applied = False
            self.tools.adapter.configure({SETTING: None})


@contextlib.contextmanager
def confined_roots(tools: ToolClient, ws: Workspace) -> Iterator[Confined]:
    outside = Outside(Path(tempfile.mkdtemp(prefix="out-", dir=workspace_base())).resolve())
    (outside.root / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (outside.root / "existing.txt").write_text(ORIGINAL, encoding="utf-8")
    confined = Confined(tools, ws, outside)
    try:
        yield confined
    finally:
        try:
            confined.lift()
        finally:
            shutil.rmtree(outside.root, ignore_errors=True)


def leaks(result: ToolResult, secret: str = SECRET) -> bool:
    """Whether the secret appears anywhere in the result (text, details)."""
    return secret in result.text or secret in repr(dict(result.details))


def expect_no_leak(result: ToolResult, what: str, secret: str = SECRET) -> None:
    assert not leaks(result, secret), (
        f"{what}: the content of a file outside the roots reached the result: {shown(result)}"
    )


def expect_names_root(result: ToolResult, root: str, setting: str, what: str) -> None:
    """The refusal names the root (as an absolute path) and the setting that refused."""
    text = result.text
    assert root in text or os.path.realpath(root) in text, (
        f"{what}: the refusal should name the root {root} so the model knows where it may work; "
        f"saw {shown(result)}"
    )
    assert setting in text, (
        f"{what}: the refusal should name the setting ({setting}) that refused it; "
        f"saw {shown(result)}"
    )


# --- the swap ------------------------------------------------------------------------------------

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes += [ctypes.c_uint]
    return function


class Swapper:
    """Exchange ``real`` (a directory) and ``link`` (a link outside) until stopped.

    With ``renameat2(RENAME_EXCHANGE)`` both names always exist and each swap is atomic; where
    it is missing the names are swapped with three renames (one briefly absent).
    """

    def __init__(self, real: Path, link: Path) -> None:
        self.real = real
        self.link = link
        self.swaps = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="agenttools-swap")
        self._exchange = _renameat2()

    def _run(self) -> None:
        a, b = os.fsencode(self.real), os.fsencode(self.link)
        spare = os.fsencode(str(self.real) + ".spare")
        while not self._stop.is_set():
            if self._exchange is not None:
                if self._exchange(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE) != 0:
                    self._exchange = None
                    continue
            else:
                with contextlib.suppress(OSError):
                    os.rename(a, spare)
                    os.rename(b, a)
                    os.rename(spare, b)
            self.swaps += 1

    def __enter__(self) -> Swapper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)


# --- a loopback listener -------------------------------------------------------------------------


class Listener:
    """A TCP listener on 127.0.0.1, an ephemeral port, counting the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="agenttools-listen")

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()
