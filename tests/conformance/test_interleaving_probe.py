"""BASH-PROC-04's probe of the command's descriptors, run by real bash on each kind of channel an
implementation may give a command: one pipe, a socket pair, a terminal or one file opened twice
keep the order of the two streams (one file behind both), two pipes do not (two files), whatever
order a lucky reader happened to see."""

from __future__ import annotations

import os
import pty
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from pytest_agenttools.conformance.test_bash import SAME_FILE

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def probe(stdout: int, stderr: int) -> None:
    """Run the probe with these descriptors as its stdout and stderr (it prints to stdout)."""
    subprocess.run([str(BASH), "-c", SAME_FILE], stdout=stdout, stderr=stderr, check=True)


def _read(fd: int) -> str:
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 4096).decode()
    except BlockingIOError:
        return ""


def test_one_pipe_is_one_file() -> None:
    read, write = os.pipe()
    try:
        probe(write, write)
        assert _read(read).split() == ["fd1-fd2:one"]
    finally:
        os.close(read)
        os.close(write)


def test_two_pipes_are_two_files() -> None:
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        probe(out_w, err_w)
        assert _read(out_r).split() == ["fd1-fd2:two"]
    finally:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)


def test_a_socket_pair_end_is_one_file() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        probe(theirs.fileno(), theirs.fileno())
        assert ours.recv(4096).decode().split() == ["fd1-fd2:one"]


def test_a_terminal_is_one_file() -> None:
    main, secondary = pty.openpty()
    try:
        probe(secondary, secondary)
        assert _read(main).split() == ["fd1-fd2:one"]
    finally:
        os.close(main)
        os.close(secondary)


def test_one_file_opened_twice_is_one_file(tmp_path: Path) -> None:
    target = tmp_path / "output"
    first = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    second = os.open(target, os.O_WRONLY | os.O_APPEND)
    try:
        probe(first, second)
    finally:
        os.close(first)
        os.close(second)
    assert target.read_text().split() == ["fd1-fd2:one"]
