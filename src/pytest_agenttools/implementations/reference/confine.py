"""Confinement: the file tools keep to their roots, bash runs in a bubblewrap sandbox.

The kit (or a host) sets the roots with ``configure {"confine.roots": {...}}``
(docs/adapter-protocol.md, Confinement); ``null`` lifts them. Without roots nothing here runs.

Files (``confine.files``). Every operation the read, write and edit ports perform resolves its
path again, at the moment of use, by walking it one component at a time from a root's
directory descriptor: ``openat`` with ``O_NOFOLLOW``, each symbolic link read and resolved by
this walk (never by the kernel), ``..`` climbing the descriptors held, never above the root.
The operation then acts through the descriptors it holds (``/proc/self/fd/N/name``), so a
directory swapped for a link after the walk changes nothing: there is no window between the
check and the use. A regular file with more than one hard link is refused (its other names
may lie anywhere). Refusals name the path, the root and the setting; nothing is written.

Bash (``confine.bash``, ``confine.network``). Each command runs under ``bwrap``: the whole
file system read-only, the writable roots, a private temp root (``TMPDIR``, ``TMP``, ``TEMP``,
``XDG_CACHE_HOME``) and the trash of the recoverable ``rm`` bound writable, every
``forbid_read`` path masked, its own user namespace with every capability dropped (so
``/proc/N/root`` of processes outside cannot be entered), and its own network namespace unless
``network`` is true. Whatever the command starts (``setsid``, ``nohup``, ``&``, a background
task) stays inside these namespaces. Where ``bwrap`` cannot run the reference says so and does
not declare ``confine.bash``; bash then refuses to run while roots are set.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_agenttools.implementations.reference import paths
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.fsport import Pieces
from pytest_agenttools.implementations.reference.results import ToolError

SETTING = "confine.roots"
SERVICE = "confine"
FILE_TOOLS = frozenset({"read", "write", "edit"})
MAX_LINK_HOPS = 40
_DIR = os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
_ENTRY = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
log = logging.getLogger("agenttools.reference")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _clean(path: str) -> str:
    """Repeated slashes and ``.`` dropped; ``..`` kept (the walk resolves it)."""
    return "/" + "/".join(p for p in path.split("/") if p not in ("", "."))


@dataclass(frozen=True)
class Roots:
    """The value of ``confine.roots``: absolute, real paths."""

    workspace_root: str
    allow_write: tuple[str, ...]
    forbid_read: tuple[str, ...] = ()
    network: bool = False

    @property
    def readable(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.workspace_root, *self.allow_write)))

    def describe_read(self) -> str:
        extra = [r for r in self.allow_write if r != self.workspace_root]
        more = f" and allow_write {', '.join(extra)}" if extra else ""
        return f"workspace_root {self.workspace_root}{more}"

    def describe_write(self) -> str:
        return f"allow_write {', '.join(self.allow_write)}"


def parse_roots(value: Any) -> Roots | None:
    """``None`` for ``null``; ValueError saying what is wrong for anything malformed."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValueError("confine.roots must be an object or null")
    unknown = set(value) - {"workspace_root", "allow_write", "forbid_read", "network"}
    if unknown:
        raise ValueError(f"confine.roots has unknown keys {sorted(unknown)}")

    def directory(raw: Any, what: str) -> str:
        if not isinstance(raw, str) or not os.path.isabs(raw) or not os.path.isdir(raw):
            raise ValueError(f"confine.roots.{what} must name existing absolute directories")
        return os.path.realpath(raw)

    workspace = directory(value.get("workspace_root"), "workspace_root")
    writable = value.get("allow_write", [workspace])
    forbidden = value.get("forbid_read", [])
    if not isinstance(writable, list) or not isinstance(forbidden, list):
        raise ValueError("confine.roots.allow_write and forbid_read must be lists")
    network = value.get("network", False)
    if not isinstance(network, bool):
        raise ValueError("confine.roots.network must be a boolean")
    for raw in forbidden:
        if not isinstance(raw, str) or not os.path.isabs(raw):
            raise ValueError("confine.roots.forbid_read must name absolute paths")
    return Roots(
        workspace_root=workspace,
        allow_write=tuple(directory(raw, "allow_write") for raw in writable),
        forbid_read=tuple(os.path.realpath(raw) for raw in forbidden),
        network=network,
    )


# --- files ---------------------------------------------------------------------------------------


@dataclass
class Held:
    """A walked path: its parent directory (and the entry, when it exists) held open."""

    dir_fd: int
    name: str
    real: str
    file_fd: int | None
    fds: list[int] = field(default_factory=list)

    @property
    def entry_path(self) -> str:
        """The entry inside the held directory: what a rename or a create acts on."""
        base = f"/proc/self/fd/{self.dir_fd}"
        return f"{base}/{self.name}" if self.name else base

    @property
    def file_path(self) -> str:
        """The entry itself, whatever its name now points to (it exists)."""
        assert self.file_fd is not None
        return f"/proc/self/fd/{self.file_fd}"

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds.clear()


class FileGuard:
    """Resolves a path for one operation of one tool, refusing what leaves the roots.

    ``hold`` is the one check; the ports call it at the moment they act and act through the
    descriptors it returns. A variant of the reference (a broken copy) overrides ``hold``.
    """

    def __init__(self, roots: Roots, tool: str) -> None:
        self.roots = roots
        self.tool = tool

    # refusals: the path, the root, the setting; and that nothing happened
    def outside(self, path: str, *, write: bool, via: str = "") -> ToolError:
        where = self.roots.describe_write() if write else self.roots.describe_read()
        how = f" (it leads through {via})" if via else ""
        verb = "write" if write else "read"
        return ToolError(
            "confined",
            f"{self.tool}: refusing to {verb} {path}{how}: it is outside the roots set by "
            f"confine.roots ({where}). Nothing was {'written' if write else 'read'}; use a "
            "path inside those roots.",
            path=path,
        )

    def forbidden(self, path: str, entry: str) -> ToolError:
        return ToolError(
            "confined",
            f"{self.tool}: refusing {path}: it is under {entry}, which confine.roots.forbid_read "
            f"keeps from the file tools (workspace_root {self.roots.workspace_root}). Nothing "
            "was read or written.",
            path=path,
        )

    def hard_linked(self, path: str, links: int) -> ToolError:
        return ToolError(
            "confined",
            f"{self.tool}: refusing {path}: the file has {links} hard links, and confine.roots "
            f"(workspace_root {self.roots.workspace_root}) cannot tell where its other names "
            "are. Nothing was read or written; copy the file instead of linking it.",
            path=path,
        )

    def _root_of(self, path: str) -> str | None:
        found = [r for r in self.roots.readable if _under(path, r)]
        return max(found, key=len) if found else None

    def _check(self, path: str, real: str, *, write: bool) -> None:
        """READ-CONF-02: ``forbid_read`` holds wherever the walk is; writes need allow_write."""
        for entry in self.roots.forbid_read:
            if _under(real, entry):
                raise self.forbidden(path, entry)
        if write and not any(_under(real, r) for r in self.roots.allow_write):
            raise self.outside(path, write=True, via=real if real != path else "")

    def hold(
        self, path: str, *, write: bool, make_dirs: bool = False, missing_ok: bool = False
    ) -> Held:
        """READ-CONF-01, READ-CONF-05, WRITE-CONF-01, WRITE-CONF-02, EDIT-CONF-01: walk
        ``path`` from its root with ``openat`` and ``O_NOFOLLOW``; links are resolved here,
        ``..`` never climbs above the root; ``make_dirs`` creates missing parents (only under
        ``allow_write``); ``missing_ok`` stops at a missing parent (checking the rest)."""
        path = _clean(path)
        root = self._root_of(path)
        if root is None:
            raise self.outside(path, write=write)
        fds: list[int] = []
        try:
            fd = os.open(root, _DIR)
            fds.append(fd)
            stack: list[tuple[int, str]] = [(fd, root)]
            rest = [p for p in path[len(root) :].split("/") if p]
            hops = 0
            while rest:
                part = rest.pop(0)
                fd, real = stack[-1]
                if part == ".":
                    continue
                if part == "..":
                    if len(stack) == 1:
                        raise self.outside(path, write=write, via=f"{real}/..")
                    stack.pop()
                    continue
                here = os.path.join(real, part)
                last = not rest
                try:
                    info = os.stat(part, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    self._check(path, here, write=write)
                    if last:
                        return Held(fd, part, here, None, fds)
                    if missing_ok:
                        self._check(path, os.path.normpath(os.path.join(here, *rest)), write=write)
                        return Held(fd, part, here, None, fds)
                    if not make_dirs:
                        raise FileNotFoundError(2, "No such file or directory", path) from None
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o777, dir_fd=fd)
                    rest.insert(0, part)
                    continue
                if stat.S_ISLNK(info.st_mode):  # READ-CONF-03: links inside the roots work
                    hops += 1
                    if hops > MAX_LINK_HOPS:
                        raise ToolError("link_loop", f"{self.tool}: too many links in {path}.")
                    target = os.readlink(part, dir_fd=fd)
                    if target.startswith("/"):
                        target = _clean(target)
                        new_root = self._root_of(target)
                        if new_root is None:
                            raise self.outside(path, write=write, via=f"{here} -> {target}")
                        fd = os.open(new_root, _DIR)
                        fds.append(fd)
                        stack = [(fd, new_root)]
                        target = target[len(new_root) :]
                    rest[:0] = [p for p in target.split("/") if p]
                    continue
                self._check(path, here, write=write)
                if last:
                    entry = os.open(part, _ENTRY, dir_fd=fd)
                    fds.append(entry)
                    if stat.S_ISLNK(os.fstat(entry).st_mode):  # swapped since the stat
                        rest.insert(0, part)
                        continue
                    return Held(fd, part, here, entry, fds)
                try:
                    child = os.open(part, _DIR, dir_fd=fd)
                except OSError:
                    # a link swapped in since the stat, or not a directory: look again
                    info = os.stat(part, dir_fd=fd, follow_symlinks=False)
                    if stat.S_ISLNK(info.st_mode):
                        rest.insert(0, part)
                        continue
                    raise
                fds.append(child)
                stack.append((child, here))
            fd, real = stack[-1]
            self._check(path, real, write=write)
            return Held(fd, "", real, fd, fds)
        except BaseException:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            raise

    def refuse_hard_links(self, path: str, fd: int) -> None:
        """READ-CONF-04: a file with other names anywhere is refused."""
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            raise self.hard_linked(path, info.st_nlink)


class _Scratch:
    """Per call: descriptors to close, private links to remove, spellings to show back."""

    def __init__(self) -> None:
        self.held: list[Held] = []
        self.shown: dict[str, str] = {}
        self.directory: str | None = None

    def alias(self, held: Held, shown: str) -> str:
        """A private name that leads to the held entry itself (read re-opens by name)."""
        if self.directory is None:
            self.directory = tempfile.mkdtemp(prefix="agenttools-confine-")
        name = os.path.basename(shown) or "entry"
        alias = os.path.join(self.directory, f"{len(self.held)}", name)
        os.mkdir(os.path.dirname(alias))
        os.symlink(held.file_path, alias)
        self.held.append(held)
        self.shown[alias] = shown
        return alias

    def close(self) -> None:
        for held in self.held:
            held.close()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    def unalias(self, value: Any) -> Any:
        if not self.shown:
            return value
        if isinstance(value, str):
            for alias, shown in self.shown.items():
                value = value.replace(alias, shown)
            return value
        if isinstance(value, list):
            return [self.unalias(v) for v in value]
        if isinstance(value, dict):
            return {k: self.unalias(v) for k, v in value.items()}
        return value


class _Delegate:
    #: what it does with a call of the port it wraps is check and hand on: a tool's fast path
    #: for its own port holds through it (``base`` is the port wrapped)
    DELEGATES = True

    def __init__(self, base: Any, guard: FileGuard) -> None:
        self.base = base
        self.guard = guard

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)

    @contextlib.contextmanager
    def _held(self, path: str, *, write: bool, make_dirs: bool = False) -> Iterator[Held]:
        held = self.guard.hold(path, write=write, make_dirs=make_dirs)
        try:
            yield held
        finally:
            held.close()

    def _existing(self, held: Held, path: str) -> str:
        if held.file_fd is None:
            raise FileNotFoundError(2, "No such file or directory", path)
        self.guard.refuse_hard_links(path, held.file_fd)
        return held.file_path


class ConfinedReadOps(_Delegate):
    """read: the path checked once, then every open goes to the held file itself."""

    def __init__(self, base: Any, guard: FileGuard, scratch: _Scratch) -> None:
        super().__init__(base, guard)
        self.scratch = scratch

    def resolve(self, raw: str, cwd: str, env: Mapping[str, str] | None) -> tuple[str, bool]:
        path, variant = self.base.resolve(raw, cwd, env)
        held = self.guard.hold(path, write=False)
        if held.file_fd is None:
            held.close()
            return path, variant
        return self.scratch.alias(held, path), variant

    def open(self, path: str) -> Any:
        stream = self.base.open(path)
        try:
            self.guard.refuse_hard_links(self.scratch.shown.get(path, path), stream.fileno())
        except BaseException:
            stream.close()
            raise
        return stream


class ConfinedWriteOps(_Delegate):
    """write: each step walks the path again and acts through what it holds."""

    def inspect(self, target: str) -> os.stat_result:
        with self._held(target, write=True) as held:
            return self.base.inspect(self._existing(held, target))

    def read_head(self, target: str, size: int) -> bytes:
        with self._held(target, write=True) as held:
            return self.base.read_head(self._existing(held, target), size)

    def make_parents(self, target: str) -> None:
        self._held(target, write=True, make_dirs=True).__enter__().close()

    def replace(self, target: str, data: bytes, mode: int | None, cancel: Any = None) -> None:
        with self._held(target, write=True) as held:
            if held.file_fd is not None:
                self.guard.refuse_hard_links(target, held.file_fd)
            self.base.replace(held.entry_path, data, mode, cancel)


class ConfinedEditOps(_Delegate):
    """edit: as write; the file must exist."""

    def kind(self, target: str) -> str:
        with self._held(target, write=True) as held:
            if held.file_fd is None:
                return "missing"
            return self.base.kind(held.file_path)

    def inspect(self, target: str) -> os.stat_result:
        with self._held(target, write=True) as held:
            return self.base.inspect(self._existing(held, target))

    def read_bytes(self, target: str) -> bytes:
        with self._held(target, write=True) as held:
            return self.base.read_bytes(self._existing(held, target))

    def replace(
        self, target: str, data: bytes | Pieces, mode: int, cancel: threading.Event | None = None
    ) -> None:
        with self._held(target, write=True) as held:
            if held.file_fd is not None:
                self.guard.refuse_hard_links(target, held.file_fd)
            self.base.replace(held.entry_path, data, mode, cancel)


CONFINED_OPS: Mapping[str, type[_Delegate]] = {
    "write": ConfinedWriteOps,
    "edit": ConfinedEditOps,
}
_PATH_ARGUMENT = {"read": "path", "write": "path", "edit": "file_path"}


# --- bash ----------------------------------------------------------------------------------------


class Sandbox:
    """How bash commands are jailed: ``argv`` is the prefix put before ``bash -c``."""

    program = "bwrap"
    isolate_network = True

    @functools.cached_property
    def problem(self) -> str | None:
        """Why no sandbox can run here, or None (probed once: a real jail runs ``true``)."""
        found = shutil.which(self.program)
        if found is None:
            return f"{self.program} (bubblewrap) is not installed"
        probe = [found, *self._base(network=False), "--", "/bin/true"]
        try:
            done = subprocess.run(probe, capture_output=True, timeout=20, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"{self.program} cannot start: {exc}"
        if done.returncode != 0:
            return f"{self.program} cannot make a sandbox here: {done.stderr[-300:]!r}"
        return None

    def _base(self, *, network: bool) -> list[str]:
        argv = ["--unshare-user", "--uid", str(os.getuid()), "--gid", str(os.getgid())]
        argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        argv += ["--cap-drop", "ALL"]
        if self.isolate_network and not network:
            argv.append("--unshare-net")
        return argv

    def argv(self, roots: Roots, cwd: str, writable: Sequence[str]) -> list[str]:
        """BASH-CONF-01, BASH-CONF-04 (a mount, user and network namespace: whatever starts
        in it stays in it), BASH-NET-01: the jail of one command; BASH-CONF-02:
        ``forbid_read`` masked."""
        found = shutil.which(self.program) or self.program
        argv = [found, *self._base(network=roots.network)]
        for directory in dict.fromkeys((*roots.allow_write, *writable)):
            argv += ["--bind", directory, directory]
        for entry in roots.forbid_read:
            if os.path.isdir(entry):
                argv += ["--tmpfs", entry, "--remount-ro", entry]
            elif os.path.lexists(entry):
                argv += ["--ro-bind", "/dev/null", entry]
        return [*argv, "--chdir", cwd, "--"]


class Confinement:
    """One implementation instance's confinement: the roots set, and how they are enforced."""

    def __init__(
        self,
        guard: Callable[[Roots, str], FileGuard] = FileGuard,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.guard = guard
        self.sandbox = sandbox or Sandbox()
        self.roots: Roots | None = None
        self._temp: str | None = None

    def features(self) -> list[str]:
        found = ["confine.files"]
        if self.sandbox.problem is None:
            found += ["confine.bash", "confine.network"]
        else:
            log.warning("confine.bash is not declared: %s", self.sandbox.problem)
        return found

    def notes(self) -> dict[str, str]:
        problem = self.sandbox.problem
        return {"confine.bash": f"unavailable: {problem}" if problem else "bubblewrap"}

    def configure(self, value: Any) -> bool:
        """Set or lift the roots; False (not applied) for a malformed value."""
        try:
            roots = parse_roots(value)
        except ValueError as exc:
            log.warning("confine.roots not applied: %s", exc)
            return False
        self.roots = roots
        return True

    def temp_root(self) -> str:
        if self._temp is None or not os.path.isdir(self._temp):
            self._temp = tempfile.mkdtemp(prefix="agenttools-sandbox-")
            os.makedirs(os.path.join(self._temp, "cache"), exist_ok=True)
        return self._temp

    def shutdown(self) -> None:
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)

    def run(
        self,
        tool: str,
        run: Callable[[Any, CallContext], dict[str, Any]],
        arguments: Any,
        ctx: CallContext,
    ) -> dict[str, Any]:
        """Run one call, with the file tools' ports confined when roots are set."""
        roots = self.roots
        if roots is None or tool not in FILE_TOOLS:
            return run(arguments, ctx)
        guard = self.guard(roots, tool)
        base = ctx.ops_for(tool, None)
        scratch = _Scratch()
        try:
            if tool == "read":
                ops: Any = ConfinedReadOps(base, guard, scratch)
            else:
                ops = CONFINED_OPS[tool](base, guard)
                raw = arguments.get(_PATH_ARGUMENT[tool]) if isinstance(arguments, dict) else None
                if isinstance(raw, str) and raw.strip() and "\0" not in raw:
                    # the clear refusal up front; every port checks again when it acts
                    full = paths.expand(raw, ctx.cwd, ctx.env)
                    guard.hold(full, write=True, missing_ok=True).close()
            confined = replace(ctx, ops={**ctx.ops, tool: ops})
            result = run(arguments, confined)
            return scratch.unalias(result)
        except ToolError as exc:
            raise ToolError(exc.code, scratch.unalias(exc.message), **exc.details) from None
        finally:
            scratch.close()


def of(services: Mapping[str, Any]) -> Confinement | None:
    found = services.get(SERVICE)
    return found if isinstance(found, Confinement) else None


__all__ = [
    "SETTING",
    "Confinement",
    "FileGuard",
    "Held",
    "Roots",
    "Sandbox",
    "parse_roots",
]
