"""Every number the reference enforces, in one place, declared in the manifest and configurable.

The suite reads these from the manifest and may shrink them with ``configure`` so that limit
clauses can be exercised with small files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: read and write; other tools declare theirs in their module's ``LIMITS``
DEFAULT_LIMITS: Mapping[str, int | float] = {
    "read.max_lines": 2000,
    "read.max_bytes": 51200,
    "read.max_line_chars": 2000,
    "read.max_image_bytes": 5 * 1024 * 1024,
    "read.image_max_dimension": 2000,
    "read.pdf_max_pages": 20,
    "read.pdf_whole_max_pages": 10,
    "read.pdf_max_bytes": 51200,
    "read.notebook_max_bytes": 51200,
    "read.notebook_max_output_chars": 10000,
    "write.diff_max_old_bytes": 1024 * 1024,
    "write.patch_max_bytes": 256 * 1024,
}


#: no setting is larger than the largest integer every JSON implementation carries exactly
MAX_SETTING = 2**53 - 1
#: limits for which 0 is a value ("no tool-level cap"), not a mistake
ZERO_MEANS_NONE = frozenset({"bash.max_timeout_s", "bash.background_max_timeout_s"})


class Limits:
    """The live limit values of one implementation instance.

    A limit whose default is an int accepts ints >= 1; one whose default is a float (seconds)
    accepts any number > 0 (or 0 for ``ZERO_MEANS_NONE``: "no cap"). Either is at most
    ``MAX_SETTING``. Anything else (NaN, infinities, a number too large for a float) is
    ignored, and not reported as applied.
    """

    def __init__(
        self,
        overrides: Mapping[str, Any] | None = None,
        extra_defaults: Mapping[str, int | float] | None = None,
        units: Mapping[str, str] | None = None,
    ) -> None:
        self._values: dict[str, Any] = {**DEFAULT_LIMITS, **(extra_defaults or {})}
        self._units = dict(units or {})
        if overrides:
            self.apply(overrides)

    def unit(self, name: str, default: str = "bytes") -> str:
        """The unit a size limit counts in (``bytes`` unless this instance says ``chars``)."""
        return self._units.get(name, default)

    def declared(self) -> dict[str, Any]:
        """The manifest's ``limits``: a number, or ``{value, unit}`` where the unit is not the
        usual one."""
        return {
            name: {"value": value, "unit": self._units[name]} if name in self._units else value
            for name, value in self._values.items()
        }

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def apply(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Set the known, valid settings; return what was applied (others are ignored)."""
        applied: dict[str, Any] = {}
        for name, value in settings.items():
            if name not in self._values or isinstance(value, bool):
                continue
            lowest = 0 if name in ZERO_MEANS_NONE else None
            if not isinstance(value, int | float) or not (
                value == lowest or 0 < value <= MAX_SETTING
            ):
                continue  # NaN fails the comparison; a huge int never reaches float()
            if isinstance(self._values[name], float):
                value = float(value)
            elif not isinstance(value, int):
                continue
            self._values[name] = value
            applied[name] = value
        return applied
