"""Recoverable delete: an ``rm`` first on PATH that moves its targets into a trash directory.

The shim is a small bash script in a per-instance data directory; ``bash`` puts its directory
first on PATH, so ``rm`` typed by the model, run by ``xargs`` or inside a script it wrote all land
on it. It never falls back to the real ``rm``: before every command the shim is checked and
recreated when missing, and when that fails the command does not start.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from typing import Any

from pytest_agenttools.implementations.reference import fsport
from pytest_agenttools.implementations.reference.results import ToolError

SERVICE = "bash.rm_shim"

SCRIPT = r"""#!/bin/bash
# agenttools recoverable rm: moves targets to the trash, never deletes.
trash="__TRASH__/$(date +%s)-$$-$RANDOM"
force=0 recursive=0 status=0 operands=()
while (($#)); do
  case "$1" in
    --) shift; operands+=("$@"); break ;;
    --force) force=1 ;;
    --recursive) recursive=1 ;;
    --*) ;;
    -?*) [[ "$1" == *f* ]] && force=1; [[ "$1" == *[rR]* ]] && recursive=1 ;;
    *) operands+=("$1") ;;
  esac
  shift
done
if ((${#operands[@]} == 0)) && ((force == 0)); then
  echo "rm: missing operand" >&2; exit 1
fi
for target in "${operands[@]}"; do
  if [[ ! -e "$target" && ! -L "$target" ]]; then
    ((force)) || { echo "rm: cannot remove '$target': No such file or directory" >&2; status=1; }
    continue
  fi
  if [[ -d "$target" && ! -L "$target" ]] && ((recursive == 0)); then
    echo "rm: cannot remove '$target': Is a directory" >&2; status=1; continue
  fi
  mkdir -p "$trash" || { echo "rm: cannot create the trash directory" >&2; exit 1; }
  dest="$trash/$(printf '%s' "$target" | tr '/' '_')"
  while [[ -e "$dest" || -L "$dest" ]]; do dest="$dest~"; done
  mv -- "$target" "$dest" || status=1
done
exit $status
"""

#: concurrent first commands (a client that sends several at once) make the data directory and
#: the shim once, not each its own half
_MAKING = threading.Lock()


def _paths(services: dict[str, Any]) -> dict[str, str]:
    with _MAKING:
        return _paths_locked(services)


def _paths_locked(services: dict[str, Any]) -> dict[str, str]:
    paths = services.get(SERVICE)
    if paths is None:
        root = tempfile.mkdtemp(prefix=fsport.owned_prefix("data"))
        paths = {
            "root": root,
            "shims": os.path.join(root, "shims"),
            "trash": os.path.join(root, "trash"),
        }
        services[SERVICE] = paths
    return paths


def trash_dir(services: dict[str, Any]) -> str:
    return _paths(services)["trash"]


def ensure(services: dict[str, Any]) -> str:
    """The shim directory, with an executable ``rm`` in it; ToolError when it cannot be made."""
    paths = _paths(services)
    shim = os.path.join(paths["shims"], "rm")
    if _usable(shim):
        return paths["shims"]
    with _MAKING:
        if _usable(shim):  # another command made it while this one waited
            return paths["shims"]
        try:
            _write_shim(shim, paths)
        except OSError as exc:
            raise ToolError(
                "rm_shim_unavailable",
                f"bash: the recoverable-delete rm shim is missing and cannot be recreated at "
                f"{shim} ({exc}); refusing to run commands without it. Check that the "
                "directory is writable.",
            ) from None
    return paths["shims"]


def _usable(shim: str) -> bool:
    return os.path.isfile(shim) and os.access(shim, os.X_OK)


def _write_shim(shim: str, paths: dict[str, str]) -> None:
    """Write the script beside its place under a unique name, then rename it into place."""
    os.makedirs(paths["shims"], exist_ok=True)
    os.makedirs(paths["trash"], exist_ok=True)
    fd, staged = tempfile.mkstemp(prefix=".rm-", dir=paths["shims"])
    try:
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(SCRIPT.replace("__TRASH__", paths["trash"].replace("'", "")))
        os.chmod(staged, 0o755)
        os.replace(staged, shim)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise


def remove(services: dict[str, Any]) -> None:
    paths = services.pop(SERVICE, None)
    if paths is not None:
        with contextlib.suppress(OSError):
            shutil.rmtree(paths["root"])
