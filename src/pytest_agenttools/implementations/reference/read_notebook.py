"""Jupyter notebooks as cells with their outputs, read through nbformat, within one budget.

A notebook's JSON is mostly noise to a model (metadata, base64, escaped newlines); rendering it as
cells with sources and outputs keeps what matters. Images in outputs become image blocks and
count against the same byte budget as text.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import re
from typing import Any

from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.results import ToolError, image_block, text_block

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _join(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _output_text(output: Any) -> tuple[str, list[tuple[str, bytes]]]:
    kind = output.get("output_type")
    images: list[tuple[str, bytes]] = []
    if kind == "stream":
        return _join(output.get("text")), images
    if kind == "error":
        trace = "\n".join(ANSI.sub("", line) for line in output.get("traceback", []))
        return f"{output.get('ename')}: {output.get('evalue')}\n{trace}".rstrip(), images
    data = output.get("data", {})
    for mime in IMAGE_TYPES:
        if mime in data:
            with contextlib.suppress(binascii.Error, ValueError):
                images.append((mime, base64.b64decode(_join(data[mime]))))
    return _join(data.get("text/plain", "")), images


def read_notebook(path: str, limits: Limits) -> dict[str, Any]:
    """READ-NB-01: cells with sources and outputs, within ``read.notebook_max_bytes``; every
    source and text output in the text, in order (READ-PRES-05)."""
    import nbformat

    try:
        notebook = nbformat.read(path, as_version=4)
    except Exception:  # nbformat raises JSON, validation and version errors alike
        raise ToolError(
            "invalid_notebook",
            f"{path} is not a readable Jupyter notebook (not valid nbformat JSON). "
            "Read it as text with bash `cat` if you need the raw JSON.",
            path=path,
        ) from None
    language = (
        notebook.metadata.get("kernelspec", {}).get("language")
        or notebook.metadata.get("language_info", {}).get("name")
        or "python"
    )
    budget = limits["read.notebook_max_bytes"]
    in_chars = limits.unit("read.notebook_max_bytes") == "chars"
    max_output = limits["read.notebook_max_output_chars"]
    blocks: list[dict[str, Any]] = []
    text_parts: list[str] = []
    cells_seen: list[dict[str, Any]] = []
    used = 0
    cells = notebook.cells
    for index, cell in enumerate(cells):
        cell_id = cell.get("id") or f"cell-{index}"
        head = f'<cell id="{cell_id}">'
        if cell.cell_type != "code":
            head += f"<cell_type>{cell.cell_type}</cell_type>"
        elif language != "python":
            head += f"<language>{language}</language>"
        source = _join(cell.source)
        parts = [head + source]
        images: list[tuple[str, bytes]] = []
        outputs: list[str] = []
        omitted = 0
        for output in cell.get("outputs", []):
            text, found = _output_text(output)
            images.extend(found)
            if len(text) > max_output:
                omitted += 1
                text = (
                    f"[output of {len(text)} characters omitted (over {max_output}); "
                    f"inspect it with bash, e.g. `jq '.cells[{index}].outputs' {path}`]"
                )
            elif text:
                outputs.append(text.rstrip())
            if text:
                parts.append(f"<output>{text.rstrip()}</output>")
        parts.append("</cell>")
        rendered = "\n".join(parts)
        size = len(rendered) if in_chars else len(rendered.encode("utf-8", "surrogatepass"))
        cost = size + sum(len(data) for _, data in images)
        if used + cost > budget and cells_seen:  # READ-NB-02: the first cells that fit
            break
        used += cost
        cells_seen.append(
            {
                "cell_type": str(cell.cell_type),
                "source": source,
                "outputs": outputs,
                "omitted_outputs": omitted,
                "images": len(images),
            }
        )
        text_parts.append(rendered)
        if images:
            blocks.append(text_block("\n".join(text_parts)))
            text_parts = []
            blocks.extend(image_block(data, mime) for mime, data in images)
    shown = len(cells_seen)
    if shown < len(cells):
        unit = "K chars" if in_chars else "KB"
        text_parts.append(
            f"[Showing cells 1-{shown} of {len(cells)} ({budget / 1024:.1f}{unit} limit). "
            f"Read the rest with bash, e.g. `jq '.cells[{shown}:]' {path}`.]"
        )
    if text_parts:
        blocks.append(text_block("\n".join(text_parts)))
    observation = {
        "kind": "notebook",
        "cells": cells_seen,
        "total_cells": len(cells),
        "truncated": shown < len(cells),
    }
    return {
        "content": blocks,
        "isError": False,
        "details": {
            "path": path,
            "cells_total": len(cells),
            "cells_shown": shown,
            "observation": observation,
        },
    }
