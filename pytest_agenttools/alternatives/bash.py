"""How each alternative presents `bash` results, and what its manifest says about `bash`.

``PRESENT[style](arguments, cwd, result) -> result`` rewrites a finished reference result (its
text and free-form details; never its observation or isError unless the style's behaviour
legitimately differs). ``MANIFEST[style]`` is merged over the reference's manifest;
``SETUP[style]`` holds constructor arguments for the reference (another operations port ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

PRESENT: Mapping[str, Callable[[Any, str, dict[str, Any]], dict[str, Any]]] = {}
MANIFEST: Mapping[str, Mapping[str, Any]] = {}
SETUP: Mapping[str, Mapping[str, Any]] = {}
