"""read accepts a PDF text cap (`read.pdf_max_bytes`) and says it applied it, but enforces ten
times as much: twenty dense pages still come back whole."""

from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

KNOB = "read.pdf_max_bytes"


class Ignores(ReferenceTools):
    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        asked = settings.get(KNOB)
        if not isinstance(asked, int) or isinstance(asked, bool):
            return super().configure(settings)
        answer = super().configure({**settings, KNOB: asked * 10})
        answer["applied"] = {**answer["applied"], KNOB: asked}
        return answer


def create() -> Ignores:
    return Ignores()


BROKEN = Broken(
    caught_by={"READ-PDF-05"},
    suite_modules=["test_read_formats"],
    create=create,
)
