"""read has no video support and does not say so: a video is refused as a binary file ("its
extension .mp4 marks a binary format", "it contains NUL bytes"), so the model never learns it
is a video it could cut into frames."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import sniff
from pytest_agenttools.implementations.reference.read import ReadOps
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class VideoIsBinary(ReadOps):
    def classify(self, sample: bytes, path: str) -> sniff.Kind:
        kind = sniff.classify(sample, path)
        if kind.kind == "video":
            return sniff.Kind("binary", reason="it contains NUL bytes")
        return kind


def create() -> ReferenceTools:
    return ReferenceTools(ops={"read": VideoIsBinary()})


BROKEN = Broken(
    caught_by={"READ-VID-01"},
    suite_modules=["test_read_formats"],
    create=create,
)
