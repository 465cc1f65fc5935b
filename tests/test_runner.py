"""The runner's preparation of a run's scratch space (``pytest_agenttools.runner``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pytest_agenttools.runner import scratch_hypothesis, seed_hypothesis_storage

#: in a child Python: hypothesis's category table, which must come from the seeded file (the
#: walk over the code points that builds it would call unicodedata.category, made to fail)
LOAD_WITHOUT_BUILDING = """
import json, sys, unicodedata
def built(char):
    raise SystemExit("hypothesis built its table instead of loading the seeded one")
unicodedata.category = built
from hypothesis.internal.charmap import charmap
print(json.dumps(sorted(charmap().items())))
"""


def load_in_child(storage: Path) -> subprocess.CompletedProcess[str]:
    """Run LOAD_WITHOUT_BUILDING in a child Python whose hypothesis storage is ``storage``."""
    return subprocess.run(
        [sys.executable, "-c", LOAD_WITHOUT_BUILDING],
        env=dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=str(storage)),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_seeded_storage_directory_holds_hypothesis_own_table(tmp_path: Path) -> None:
    from hypothesis.internal.charmap import charmap

    seed_hypothesis_storage(str(tmp_path))
    child = load_in_child(tmp_path)
    assert child.returncode == 0, child.stderr[-2000:]
    loaded = {name: tuple(map(tuple, spans)) for name, spans in json.loads(child.stdout)}
    assert loaded == charmap()


def test_an_unseeded_directory_makes_hypothesis_build_the_table(tmp_path: Path) -> None:
    """The check above can fail: without the seed, the child builds, and says so."""
    child = load_in_child(tmp_path)
    assert child.returncode != 0 and "built its table" in child.stderr


def test_seeding_a_directory_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    seed_hypothesis_storage(str(blocker))
    assert blocker.read_text() == "not a directory"


def test_a_runs_scratch_directory_is_seeded_and_removed() -> None:
    with scratch_hypothesis() as scratch:
        assert os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] == scratch
        assert list(Path(scratch).glob("unicode_data/*/charmap.json.gz"))
    assert not os.path.exists(scratch)
