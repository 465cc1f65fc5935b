"""bash recoverable delete: ``rm`` reached in any way moves its targets to the trash, and the
system ``rm`` never runs in the shim's place (the suite never deletes a system file itself)."""

from __future__ import annotations

import os

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.harness.assertions import bash_obs, expect_ok
from pytest_agenttools.harness.markers import clause

SYSTEM_DIRS = ("/bin/", "/sbin/", "/usr/", "/lib", "/opt/", "/etc/")


def _trash_holds(trash: str, body: bytes) -> bool:
    for directory, _, files in os.walk(trash):
        for name in files:
            with open(os.path.join(directory, name), "rb") as handle:
                if handle.read() == body:
                    return True
    return False


def _body(name: str) -> bytes:
    return f"precious {name} ".encode() + os.urandom(8).hex().encode()


@clause("BASH-RM-01")
def test_recoverable_delete(tools: ToolClient, ws: Workspace) -> None:
    body = b"precious bytes \x00\x01 " + os.urandom(16).hex().encode()
    ws.put("a.txt", body)
    ws.put("d/inner.txt", b"inner")
    resolved = bash_obs(expect_ok(tools.call("bash", command="type -P rm"))).output.strip()
    assert resolved not in ("/bin/rm", "/usr/bin/rm"), f"rm resolves to the system rm: {resolved}"
    obs = bash_obs(expect_ok(tools.call("bash", command="rm a.txt")))
    assert not ws.exists("a.txt"), "rm must remove the file from its place"
    trash = obs.trash_dir
    assert trash and os.path.isdir(trash), f"the observation should give trash_dir: {obs.raw}"
    assert _trash_holds(trash, body), "the deleted file's bytes are not in the trash"
    assert bash_obs(tools.call("bash", command="rm missing.txt")).exit_code not in (0, None)
    assert bash_obs(tools.call("bash", command="rm -f missing.txt")).exit_code == 0
    assert bash_obs(tools.call("bash", command="rm d")).exit_code not in (0, None)
    assert ws.exists("d/inner.txt"), "rm without -r must refuse a directory"
    assert bash_obs(tools.call("bash", command="rm -rf d")).exit_code == 0
    assert not ws.exists("d")


WAYS = {
    "xargs": "printf '%s\\n' {f} | xargs rm",
    "command": "command rm {f}",
    "env": "env rm {f}",
    "script": "printf 'rm \"$1\"\\n' > del.sh; bash del.sh {f}",
    "find-exec": "find . -maxdepth 1 -name {f} -exec rm {{}} +",
}


@clause("BASH-RM-02")
@pytest.mark.parametrize("way", sorted(WAYS))
def test_every_way_to_rm_is_covered(tools: ToolClient, ws: Workspace, way: str) -> None:
    name = f"victim-{way}.txt"
    body = _body(name)
    ws.put(name, body)
    obs = bash_obs(tools.call("bash", command=WAYS[way].format(f=name)))
    assert obs.exit_code == 0, f"{way}: the delete failed: {obs.output!r}"
    assert not ws.exists(name), f"{way}: the file is still in place"
    trash = obs.trash_dir
    assert trash and _trash_holds(trash, body), (
        f"{way}: the file was deleted for good; the system rm ran instead of the shim"
    )


@clause("BASH-RM-02")
def test_missing_shim_never_falls_back(tools: ToolClient, ws: Workspace) -> None:
    shim = bash_obs(expect_ok(tools.call("bash", command="type -P rm"))).output.strip()
    system = [p for p in ("/bin/rm", "/usr/bin/rm") if os.path.exists(p)]
    assert shim and not shim.startswith(SYSTEM_DIRS) and os.path.isfile(shim), (
        f"rm resolves to {shim!r}, not to a shim: every delete would be final"
    )
    assert not any(os.path.samefile(shim, p) for p in system), f"{shim} is the system rm"
    obs = bash_obs(tools.call("bash", command=f"unlink {shim}"))
    assert obs.exit_code == 0 and not os.path.exists(shim), f"the shim was not removed: {obs.raw}"
    body = _body("after.txt")
    ws.put("after.txt", body)
    result = tools.call("bash", command="rm after.txt")
    obs = bash_obs(result)
    if ws.exists("after.txt"):  # refused (or the command failed): nothing was deleted
        assert ws.get("after.txt") == body
        return
    assert obs.trash_dir and _trash_holds(obs.trash_dir, body), (
        "the shim was missing and the system rm deleted the file for good"
    )
