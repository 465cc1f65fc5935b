"""Helpers for the bash clauses: process bookkeeping with psutil, env parsing, process trees.

Commands under test record the pids of what they start in a file of the workspace (``echo $$ >>
pids``); ``survivors`` then checks those pids and, as a safety net, every process whose working
directory is inside the workspace, so an unrecorded descendant is caught too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from hypothesis import strategies as st

#: knobs that make time-based clauses run in seconds (applied only when declared)
FAST = {"bash.kill_grace_s": 0.5, "bash.soft_yield_s": 30.0}


def recorded_pids(root: Path, name: str = "pids") -> list[int]:
    path = root / name
    if not path.exists():
        return []
    return [int(word) for word in path.read_text().split() if word.isdigit()]


def is_alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def processes_in(root: Path) -> list[int]:
    """Live processes whose working directory is ``root`` or below it."""
    prefix = str(root.resolve())
    found = []
    for proc in psutil.process_iter(["cwd", "status"]):
        cwd = proc.info.get("cwd")
        inside = bool(cwd) and (cwd == prefix or cwd.startswith(prefix + os.sep))
        if inside and proc.info.get("status") != psutil.STATUS_ZOMBIE and proc.pid != os.getpid():
            found.append(proc.pid)
    return found


def survivors(root: Path, pids: Iterable[int] = (), settle: float = 0.3) -> list[int]:
    """Recorded pids and workspace processes still alive (``settle`` s for reaping races)."""
    deadline = time.monotonic() + settle
    while True:
        alive = sorted({p for p in pids if is_alive(p)} | set(processes_in(root)))
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.05)


def describe(pids: Iterable[int]) -> str:
    shown = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            proc = psutil.Process(pid)
            shown.append(f"{pid} {proc.cmdline()} ppid={proc.ppid()} sid={os.getsid(pid)}")
    return "; ".join(shown) or "(none)"


def kill_all(pids: Iterable[int]) -> None:
    """Clean up after a test that leaves processes on purpose (or after a failure)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def wait_for_file(path: Path, timeout: float = 20.0, minimum: int = 1) -> list[int]:
    """Wait until ``path`` lists at least ``minimum`` pids; return them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = recorded_pids(path.parent, path.name)
        if len(found) >= minimum:
            return found
        time.sleep(0.02)
    return recorded_pids(path.parent, path.name)


def parse_env(text: str) -> dict[str, str]:
    """``env`` output (one NAME=value per line) as a dict; lines without ``=`` are skipped."""
    env = {}
    for line in text.splitlines():
        name, sep, value = line.partition("=")
        if sep and name and " " not in name:
            env[name] = value
    return env


# --- random process trees (BASH-KILL-05) -------------------------------------------------------

KINDS = ("plain", "trap", "ignore")
SPAWNS = ("child", "setsid", "doublefork", "job")


@dataclass
class Node:
    kind: str
    spawn: str
    children: list[Node] = field(default_factory=list)


def _nodes(depth: int) -> Any:
    leaf = st.builds(Node, st.sampled_from(KINDS), st.sampled_from(SPAWNS), st.just([]))
    if depth == 0:
        return leaf
    return st.one_of(
        leaf,
        st.builds(
            Node,
            st.sampled_from(KINDS),
            st.sampled_from(SPAWNS),
            st.lists(_nodes(depth - 1), min_size=1, max_size=3),
        ),
    )


process_trees = st.lists(_nodes(2), min_size=1, max_size=3)


def render_tree(root: Path, nodes: list[Node]) -> str:
    """Write one script per node into ``root``; return the top-level command."""
    counter = iter(range(10_000))

    def spawn_line(node: Node) -> str:
        name = f"n{next(counter)}.sh"
        body = ["echo $$ >> pids"]
        if node.kind == "trap":
            body.append("trap 'echo $$ >> trapped; exit 0' TERM")
        elif node.kind == "ignore":
            body.append("trap '' TERM")
        body += [spawn_line(child) for child in node.children]
        body += ["sleep 60 & echo $! >> pids", "while :; do wait; done"]
        (root / name).write_text("\n".join(body) + "\n")
        if node.spawn == "setsid":
            return f"setsid bash {name} &"
        if node.spawn == "doublefork":
            return f"( bash {name} & )"
        if node.spawn == "job":
            return f"set -m; bash {name} & set +m"
        return f"bash {name} &"

    lines = ["echo $$ >> pids", *(spawn_line(node) for node in nodes), "sleep 60"]
    return "\n".join(lines)


def tree_size(nodes: list[Node]) -> int:
    return sum(1 + tree_size(node.children) for node in nodes)
