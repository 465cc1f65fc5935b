"""What grep and glob may show: default exclusions, sensitive exclusions, and their order.

ripgrep applies ``--glob`` rules in order and the LAST matching rule wins. So the argument list
is built as: the user's globs, then the default excluded directories (dependencies, build
output, caches), then, last of all, the sensitive exclusions. A user glob can re-include
nothing that this module hides: ``--glob '**/.env'`` still never shows ``.env``.

Sensitive globs are made case-insensitive (``*.PEM`` is as secret as ``*.pem``). A search whose
root is itself sensitive (inside ``.ssh``, or a ``.env`` file) yields nothing at all, because
ripgrep matches globs below the root, never the root itself.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Sequence

from pytest_agenttools.implementations.reference import globmatch

#: Directories skipped by default: dependencies, virtualenvs, build output, tool caches.
DEFAULT_EXCLUDED_DIRS: tuple[str, ...] = (
    ".worktrees",
    "node_modules",
    ".pnpm-store",
    ".venv",
    "venv",
    "build_env",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".gradle",
    ".cache",
    "dist",
    "build",
    "out",
    "coverage",
)

#: Version-control metadata: history and hooks, never shown (a file or a directory).
VCS_DIRS: tuple[str, ...] = (".git", ".svn", ".hg", ".bzr", ".jj", ".sl")
#: Directories of credentials.
SENSITIVE_DIRS: tuple[str, ...] = (".ssh", ".aws", ".kube", ".gnupg")
#: File names (fnmatch patterns, matched case-insensitively against the base name).
SENSITIVE_FILES: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.key",
    "*.pem",
    "*.p12",
    "*.pfx",
    ".npmrc",
    ".netrc",
    ".pgpass",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
)

#: Skipped by glob for broad patterns (``*``, ``**/*``, ``*.*``): media, archives, binaries and
#: model weights, which fill a listing without helping a model.
BULKY_EXTENSIONS: tuple[str, ...] = (
    # images, video, audio
    "png", "jpg", "jpeg", "gif", "webp", "bmp", "ico", "tif", "tiff", "psd", "heic",
    "mp4", "mov", "avi", "mkv", "webm", "mp3", "wav", "flac", "ogg", "m4a",
    # archives
    "zip", "tar", "gz", "tgz", "bz2", "xz", "7z", "rar", "zst", "jar", "war", "whl",
    # compiled binaries
    "exe", "dll", "so", "dylib", "o", "a", "class", "pyc", "wasm", "bin",
    # model weights and tensors
    "safetensors", "ckpt", "pt", "pth", "onnx", "gguf", "h5", "pb", "tflite", "npy", "npz",
)  # fmt: skip

BROAD_PATTERNS = frozenset({"*", "*.*", "**", "**/*", "**/*.*"})


def case_insensitive(glob: str) -> str:
    """``*.pem`` -> ``*.[pP][eE][mM]``: a glob that matches whatever the letters' case."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() and c.isascii() else c for c in glob)


def sensitive_globs() -> list[str]:
    """The ``--glob`` values that hide secrets; they must come after every other glob.

    GREP-SENS-01, GLOB-SENS-01: every name of the spec's tables, whatever the letters' case.
    """
    names = [*VCS_DIRS, *SENSITIVE_DIRS, *SENSITIVE_FILES]
    return ["!" + case_insensitive(name) for name in names]


def default_dir_globs() -> list[str]:
    """The ``--glob`` values that skip dependency, build and cache directories."""
    return [f"!{name}/" for name in DEFAULT_EXCLUDED_DIRS]


def bulky_globs() -> list[str]:
    return ["!*." + case_insensitive(ext) for ext in BULKY_EXTENSIONS]


SELECTION_TYPE = "agenttoolsselect"


def glob_arguments(
    user_globs: Sequence[str], *, default_dirs: bool, bulky: bool = False
) -> list[str]:
    """rg arguments that select files, in the order that makes the sensitive rules win.

    GREP-GLOB-01, GREP-SENS-02; GREP-IGN-02 and GLOB-IGN-03: user inclusions never outrank
    ``.gitignore``.

    The user's exclusions (``!*.md``) come first as ``--glob``; the user's inclusions select by
    file name through a ripgrep file type, so they cannot re-include gitignored files (a
    matching ``--glob`` would); patterns with ``/`` are then checked by :func:`path_filter`.
    """
    ordered = [g for g in user_globs if g.startswith("!")]
    wanted = [g for g in user_globs if not g.startswith("!")]
    if default_dirs:
        ordered += default_dir_globs()
    if bulky:
        ordered += bulky_globs()
    ordered += sensitive_globs()
    # rg reads a colon in a type definition as its own syntax (``name:include:other``): a
    # name with one is selected by ``?`` here and checked exactly by path_filter
    argv = [
        f"--type-add={SELECTION_TYPE}:{globmatch.name_part(g).replace(':', '?')}" for g in wanted
    ]
    if wanted:
        argv.append(f"--type={SELECTION_TYPE}")
    return argv + [f"--glob={glob}" for glob in ordered]


def path_filter(user_globs: Sequence[str]) -> Callable[[bytes], bool] | None:
    """A check on rg's relative paths for inclusion globs with ``/`` or ``:`` (None when not
    needed: rg's file type selected exactly)."""
    wanted = [g for g in user_globs if not g.startswith("!")]
    if not any(not globmatch.selects_by_name(g) or ":" in g for g in wanted):
        return None
    compiled = [globmatch.compile_glob(g) for g in wanted]

    def keep(raw: bytes) -> bool:
        name = os.fsdecode(raw)
        return any(regex.match(name) for regex in compiled)

    return keep


def _parts(path: str) -> list[str]:
    return [part for part in path.replace(os.sep, "/").split("/") if part not in ("", ".")]


def is_sensitive_name(name: str) -> bool:
    """A base name that is a secret file or a sensitive directory."""
    lowered = name.lower()
    if lowered in VCS_DIRS or lowered in SENSITIVE_DIRS:
        return True
    return any(fnmatch.fnmatchcase(lowered, pattern) for pattern in SENSITIVE_FILES)


def is_sensitive_path(path: str) -> bool:
    """Whether any component of ``path`` is sensitive (so nothing at or below it is shown)."""
    return any(is_sensitive_name(part) for part in _parts(path))


def sensitive_root(root: str) -> str | None:
    """The sensitive component of a search root (as written or resolved), or None."""
    for candidate in (root, os.path.realpath(root)):
        for part in _parts(candidate):
            if is_sensitive_name(part):
                return part
    return None


def inside_default_excluded(root: str, cwd: str) -> bool:
    """Whether the search root lies in a default-excluded directory (then nothing is skipped).

    Judged on the part of the root below ``cwd`` when the root is inside it, else on the whole
    path: a project that happens to live under ``~/build/`` keeps its default exclusions.
    """
    relative = os.path.relpath(root, cwd)
    scope = root if relative == ".." or relative.startswith(".." + os.sep) else relative
    return any(part in DEFAULT_EXCLUDED_DIRS for part in _parts(scope))


def is_broad(pattern: str) -> bool:
    """A glob pattern that lists (almost) every file: bulky files are skipped for it."""
    return pattern.lstrip("/") in BROAD_PATTERNS or (
        pattern.startswith("./") and (pattern[2:] in BROAD_PATTERNS)
    )


def any_glob_chars(text: str) -> bool:
    return any(c in text for c in "*?[{")
