"""read knows only the four image types a model takes: a BMP is refused as a binary file ("it
contains NUL bytes"), which never says that it is an image nor which kind, so the model is not
told it could convert it."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import sniff
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class BmpIsBinary(ReadOps):
    def classify(self, sample: bytes, path: str) -> sniff.Kind:
        kind = sniff.classify(sample, path)
        if kind.mime_type == "image/bmp":
            return sniff.Kind("binary", reason="it contains NUL bytes")
        return kind


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": BmpIsBinary()})


BROKEN = Broken(
    caught_by={"READ-IMG-05"},
    suite_modules=["test_read_formats"],
    create=create,
)
