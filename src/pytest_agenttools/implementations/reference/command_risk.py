"""Risk classes of a bash command: what it would destroy or which privilege it would take.

Each check looks at one simple command of the parse (behind the wrappers ``sudo``, ``env``,
``command``, ``nice``, ``time``, ``nohup``, ``setsid``, ``builtin``) and names its class:

- ``delete-root``: a recursive ``rm`` of ``/`` (or ``/*``);
- ``delete-home``: a recursive ``rm`` of the home directory (``~``, ``~/``, ``$HOME``, ``${HOME}``,
  quoted or not, or everything in it);
- ``privileged``: ``sudo``, ``doas``, ``su``, ``pkexec``, ``run0``;
- ``force-push-protected``: ``git push`` that forces (``--force``, ``-f``, ``--force-with-lease``,
  ``--mirror``, a ``+`` refspec) or deletes (``--delete``, ``:main``) a protected branch (``main``,
  ``master``), or forces with no branch named (the target is then unknown);
- ``pipe-to-shell``: a pipeline stage after the first that is a shell or an interpreter reading
  its program from the pipe (``curl … | sh``, ``echo hi | sudo bash -s``);
- ``block-device-write``: output redirected to a block device (``> /dev/sda``), ``dd of=/dev/…``,
  ``tee``/``cp``/``shred`` onto one;
- ``format-disk``: ``mkfs``, ``mkfs.*``, ``mke2fs``, ``mkswap``, ``wipefs``, ``fdisk``,
  ``sfdisk``, ``cfdisk``, ``parted``, ``sgdisk``, ``blkdiscard``.

BASH-AN-05 (the classes, from the table ``spec/data/command_risk.toml``), BASH-AN-06 (a risk makes
the command ``require-human``; applied by ``command_rules.analyze``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_agenttools.implementations.reference.command_analysis import (
    SHELLS,
    _text,
    _walk,
    _words,
    static_word,
)

PRIVILEGED = {"sudo", "doas", "su", "pkexec", "run0"}
#: wrappers that run the rest of their words as a command
RUNNERS = {"sudo", "doas", "builtin", "nohup", "setsid", "command", "env", "time", "nice", "run0"}
#: options of a wrapper that take the next word as their value
VALUED = {
    "sudo": {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"},
    "doas": {"-u", "-C"},
    "nice": {"-n"},
    "env": {"-u", "-C", "-S"},
    "run0": {"-u", "-g", "-D"},
}
INTERPRETERS = SHELLS | {"python", "python3", "perl", "ruby", "node", "php"}
FORMATTERS = {"mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted"}
FORMATTERS |= {"sgdisk", "blkdiscard"}
PROTECTED = {"main", "master"}
HOME = re.compile(r"(?:~|\$HOME|\$\{HOME\})(?:/+\.?|/+\*)?")
ROOT = re.compile(r"/+(?:\.|\*)?")
BLOCK_DEVICE = re.compile(
    r"/dev/(?:[shv]d[a-z]|xvd[a-z]|nvme\d|mmcblk\d|loop\d|md\d|dm-\d|sr\d|disk/|mapper/)"
)
WRITE_REDIRECTS = {">", ">>", ">|", "&>", "&>>"}
#: the value of an unquoted spelling of the home directory (no literal word can be this)
HOME_DIR = "\x00home"


@dataclass(frozen=True)
class Call:
    """One simple command: the wrappers in front of it, its name and arguments as written
    (the literal, ``HOME_DIR`` for an expansion to the home directory, None when dynamic)."""

    wrappers: tuple[str, ...]
    name: str | None
    args: tuple[str | None, ...]
    node: Any


def _value(node: Any) -> str | None:
    value = static_word(node)
    if value is not None:
        return value
    raw = _text(node).replace('"', "")
    return HOME_DIR if HOME.fullmatch(raw) else None


def call_of(command: Any) -> Call:
    _, words = _words(command)
    values = [_value(w) for w in words]
    wrappers: list[str] = []
    while values and values[0] is not None:
        name = values[0].rsplit("/", 1)[-1]
        if name not in RUNNERS:
            break
        wrappers.append(name)
        values = values[1:]
        valued = VALUED.get(name, set())
        while values and values[0] is not None:
            word = values[0]
            if word in valued:
                values = values[2:]
            elif word.startswith("-") or (name == "env" and "=" in word):
                values = values[1:]
            else:
                break
    if not values:
        return Call(tuple(wrappers), "", (), command)
    first = values[0]
    return Call(
        tuple(wrappers),
        first.rsplit("/", 1)[-1] if first is not None else None,
        tuple(values[1:]),
        command,
    )


Check = Callable[[Call], Iterator[str]]


def _operands(args: Sequence[str | None]) -> tuple[list[str], list[str | None]]:
    """Flags and operands (after ``--`` everything is an operand)."""
    flags: list[str] = []
    operands: list[str | None] = []
    rest = False
    for arg in args:
        if rest or arg is None or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            rest = True
        else:
            flags.append(arg)
    return flags, operands


def delete_root_or_home(call: Call) -> Iterator[str]:
    if call.name != "rm":
        return
    flags, operands = _operands(call.args)
    recursive = any(
        f in ("--recursive", "-r", "-R") or (f[1:2] != "-" and ("r" in f or "R" in f))
        for f in flags
    )
    if not recursive:
        return
    for target in operands:
        if target is not None and ROOT.fullmatch(target):
            yield "delete-root"
        elif target == HOME_DIR:
            yield "delete-home"


def privileged(call: Call) -> Iterator[str]:
    if any(w in PRIVILEGED for w in call.wrappers) or call.name in PRIVILEGED:
        yield "privileged"


def _branch(refspec: str) -> str:
    dest = refspec.lstrip("+").rpartition(":")[2] if ":" in refspec else refspec.lstrip("+")
    return dest.removeprefix("refs/heads/")


def force_push(call: Call) -> Iterator[str]:
    if call.name != "git":
        return
    args = list(call.args)
    while args and args[0] is not None and args[0].startswith("-"):  # git's own options
        args = args[2:] if args[0] in ("-C", "-c") else args[1:]
    if not args or args[0] != "push":
        return
    args = args[1:]
    force = delete = False
    operands: list[str | None] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg is None:
            operands.append(None)
        elif arg in ("-o", "--push-option", "--repo", "--receive-pack", "--exec"):
            skip = True
        elif arg in ("--force", "--mirror") or arg.startswith("--force-with-lease"):
            force = True
        elif arg in ("--delete",):
            delete = True
        elif arg.startswith("--"):
            continue
        elif arg.startswith("-") and len(arg) > 1:
            force = force or "f" in arg
            delete = delete or "d" in arg
        else:
            operands.append(arg)
    refspecs = operands[1:]
    for refspec in refspecs:
        if refspec is None:
            if force or delete:
                yield "force-push-protected"
            continue
        plus = refspec.startswith("+")
        deleting = delete or refspec.startswith(":")
        if (force or plus or deleting) and _branch(refspec) in PROTECTED | {"HEAD"}:
            yield "force-push-protected"
    if force and not refspecs:
        yield "force-push-protected"


def block_device(call: Call) -> Iterator[str]:
    targets: list[str | None] = []
    if call.name == "dd":
        targets = [a[3:] for a in call.args if a is not None and a.startswith("of=")]
    elif call.name in ("tee", "cp", "shred"):
        _, operands = _operands(call.args)
        targets = operands if call.name in ("tee", "shred") else operands[-1:]
    if any(t is not None and BLOCK_DEVICE.match(t) for t in targets):
        yield "block-device-write"


def format_disk(call: Call) -> Iterator[str]:
    if call.name is not None and (call.name in FORMATTERS or call.name.startswith("mkfs.")):
        yield "format-disk"


#: the checks of one simple command, in the order their risks are reported
CALL_CHECKS: tuple[Check, ...] = (
    delete_root_or_home,
    privileged,
    force_push,
    block_device,
    format_disk,
)


def _reads_program_from_stdin(call: Call) -> bool:
    if call.name not in INTERPRETERS:
        return False
    skip_value = call.name in SHELLS
    args = list(call.args)
    while args:
        arg = args.pop(0)
        if arg is None:
            return False
        if arg == "--" or arg == "-":
            return True
        if arg in ("-m", "-c", "-e", "-r", "--eval", "-p", "--print", "-E"):
            return False
        if skip_value and arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            args = args[1:]
            continue
        if not arg.startswith(("-", "+")):
            return False
    return True


def _redirect_risks(node: Any) -> Iterator[str]:
    if node.type != "file_redirect":
        return
    ops = [c for c in node.children if not c.is_named]
    dest = node.child_by_field_name("destination")
    if dest is None:
        named = [c for c in node.named_children if c.type != "file_descriptor"]
        dest = named[-1] if named else None
    target = static_word(dest) if dest is not None else None
    if any(_text(o) in WRITE_REDIRECTS for o in ops) and target and BLOCK_DEVICE.match(target):
        yield "block-device-write"


def _commands(part: Any) -> Iterator[Any]:
    for node in _walk(part):
        if node.type == "command":
            yield node


def piped_into(root: Any) -> frozenset[int]:
    """The ids of the commands that read a pipe: every stage of a pipeline but the first."""
    found: set[int] = set()
    for node in _walk(root):
        if node.type == "pipeline":
            for stage in node.named_children[1:]:
                body = stage
                if stage.type == "redirected_statement":
                    body = stage.child_by_field_name("body") or stage
                if body.type == "command":
                    found.add(body.id)
    return frozenset(found)


@dataclass(frozen=True)
class Risk:
    cls: str
    reason: str


REASONS = {
    "delete-root": "rm -r of the root directory",
    "delete-home": "rm -r of the home directory",
    "privileged": "runs with another user's privileges",
    "force-push-protected": "force-pushes or deletes a protected branch (main, master)",
    "pipe-to-shell": "pipes text into a shell or interpreter that runs it",
    "block-device-write": "writes to a block device",
    "format-disk": "formats or repartitions a disk",
}


def risks_of(
    part: Any, checks: Sequence[Check] = CALL_CHECKS, piped: frozenset[int] = frozenset()
) -> list[Risk]:
    """The risks of one top-level part (a statement of the parse), each class once; ``piped``
    holds the commands that read a pipe (``piped_into`` of the whole command)."""
    found: list[str] = []
    for command in _commands(part):
        call = call_of(command)
        for check in checks:
            found.extend(check(call))
        if command.id in piped and _reads_program_from_stdin(call):
            found.append("pipe-to-shell")
    for node in _walk(part):
        found.extend(_redirect_risks(node))
    return [Risk(cls, REASONS[cls]) for cls in dict.fromkeys(found)]
