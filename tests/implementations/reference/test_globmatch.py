"""Glob patterns translated to matchers
(src/pytest_agenttools/implementations/reference/globmatch.py), judged path by path.

Each case gives a pattern, paths the compiled matcher must accept and paths it must refuse.
``compile_glob`` reads the gitignore dialect (a pattern without ``/`` matches a name at any
depth); ``compile_anchored`` reads the bash and minimatch dialects (whole relative paths).
"""

from __future__ import annotations

import pytest

from pytest_agenttools.implementations.reference import globmatch

# (pattern, paths it matches, paths it does not match) in the gitignore dialect
GITIGNORE: list[tuple[str, list[str], list[str]]] = [
    # ** inside a segment is *; at the end of an anchored pattern it spans directories
    ("x/a**", ["x/a", "x/abc"], ["x/ab/c", "y/x/a"]),
    ("a**b", ["ab", "axxb", "d/axxb"], ["ax", "axxbx", "a/b", "axx"]),
    ("ab**c", ["abc", "abxc"], ["abx/c", "abx"]),
    ("src/**", ["src/a", "src/a/b/c"], ["src", "lib/a"]),
    ("**/x.py", ["x.py", "a/b/x.py"], ["ax.py"]),
    # a backslash makes the next character literal; a trailing one is itself
    ("a\\*", ["a*", "d/a*"], ["ab", "a", "a\\*", "a\\b"]),
    ("\\*a", ["*a"], ["a", "xa", "\\a"]),
    ("a\\", ["a\\"], ["a"]),
    ("\\[x]", ["[x]"], ["x"]),
    # character classes: ] first is a member, ! negates, a class with no ] is literal
    ("[a]", ["a"], ["[a]", "b"]),
    ("[]a]", ["]", "a"], ["b", "[]a]"]),
    ("xy[]a]", ["xy]", "xya"], ["xyb", "xy"]),
    ("[a]?[b]", ["axb", "a-b"], ["ab", "b", "a/b"]),
    ("[!ab]", ["c", "z"], ["a", "b"]),
    ("[!ab]x", ["cx"], ["ax", "bx"]),
    ("[a\\b]", ["a", "b"], ["X", "\x08", "c"]),
    ("[a", ["[a"], ["a"]),
    # braces: alternatives, nested groups, an empty group, an unclosed brace
    ("{a,b}.py", ["a.py", "b.py"], ["{a,b}.py", "c.py"]),
    ("{a,{b,c}}", ["a", "b", "c"], ["{b", "a,{b,c}", "{a,{b,c}}"]),
    ("{a,{b,c},d}", ["a", "b", "c", "d"], ["{b,c},d", "b,c"]),
    ("{{a,b},c}", ["a", "b", "c"], ["{a,b},c"]),
    ("{a", ["{a", "d/{a"], ["a"]),
    ("x{a", ["x{a"], ["xa"]),
    # trailing and leading slashes, and literal letters next to them
    ("sub/", ["sub", "x/sub"], ["sub/", "sub/a"]),
    ("aX", ["aX", "d/aX"], ["a"]),
    ("a/X", ["a/X"], ["b/a/X", "a"]),
    ("/Xa", ["Xa"], ["a", "y/Xa"]),
    ("/*.py", ["a.py"], ["s/a.py"]),
    # names may hold line breaks
    ("*.py", ["a\nb/c.py", "a\nb.py"], ["c.pyc"]),
    ("x/**", ["x/a\nb", "x/a\n/b"], ["y/a"]),
]


@pytest.mark.parametrize(("pattern", "matches", "refuses"), GITIGNORE)
def test_gitignore_glob(pattern: str, matches: list[str], refuses: list[str]) -> None:
    regex = globmatch.compile_glob(pattern)
    assert [path for path in matches if not regex.match(path)] == []
    assert [path for path in refuses if regex.match(path)] == []


@pytest.mark.parametrize(
    ("pattern", "slash"),
    [("a/b", True), ("a/X", True), ("src/", False), ("src//", False), ("a", False), ("/a", True)],
)
def test_has_slash_ignores_trailing_slashes(pattern: str, slash: bool) -> None:
    assert globmatch.has_slash(pattern) is slash


@pytest.mark.parametrize(
    ("pattern", "name"),
    [
        ("{a,b}/c.py", "c.py"),
        ("{a,b}{c,d}/e.py", "e.py"),
        ("{a,{b,c}}/d.py", "d.py"),
        ("{a/b,c}", "*"),
        ("{{a}/b}", "*"),
        ("{{b}/x}", "*"),
        ("}/a.py", "a.py"),
        ("src/", "*"),
        ("src/**", "*"),
        ("x/a**b", "*"),
        ("a**", "*"),
        ("src/*.py", "*.py"),
        ("*.py", "*.py"),
    ],
)
def test_name_part(pattern: str, name: str) -> None:
    assert globmatch.name_part(pattern) == name


# (pattern, dot, paths it matches, paths it does not match) in the bash/minimatch dialects
ANCHORED: list[tuple[str, bool, list[str], list[str]]] = [
    # a run of stars inside a segment is one star: only a whole-segment ** spans directories
    ("***", False, ["a", "a\nb"], [".a", "a/b", "sub/c.txt"]),
    ("a***b", False, ["ab", "axb"], ["a/b", "ax/yb"]),
    ("x/***/y", False, ["x/a/y"], ["x/y", "x/a/b/y"]),
    ("a\\**", False, ["a*", "a*x"], ["ax", "a*/x"]),  # an escaped star, then a wildcard
    ("a//b", False, [], ["a/XXXX/b", "a/x/b", "a/b"]),
    ("a//b", True, [], ["a/XXXX/b", "a/x/b"]),
    ("src/", False, [], ["src", "src/a", "src/XXXX"]),
    ("x/**", False, ["x/a", "x/a/b"], ["x/.a", "y/a"]),
]


@pytest.mark.parametrize(("pattern", "dot", "matches", "refuses"), ANCHORED)
def test_anchored_glob(pattern: str, dot: bool, matches: list[str], refuses: list[str]) -> None:
    regex = globmatch.compile_anchored(pattern, dot=dot)
    assert [path for path in matches if not regex.match(path)] == []
    assert [path for path in refuses if regex.match(path)] == []


@pytest.mark.parametrize(
    ("pattern", "expanded"),
    [
        ("x\\y{a,b}", ["x\\ya", "x\\yb"]),  # a backslash escapes y, not the braces after it
        ("\\{a,b}.txt", ["\\{a,b}.txt"]),  # an escaped brace opens no group
        ("{a,\\}b}", ["a", "\\}b"]),  # nor does an escaped one close it
        ("\\\\{a,b}", ["\\\\a", "\\\\b"]),  # an escaped backslash escapes nothing more
        ("{x}{a,b}", ["{x}a", "{x}b"]),  # a group of one stays as written
        ("{a,b}{a,b}", ["aa", "ab", "ba", "bb"]),
        ("{a,a}", ["a"]),
        ("a{b", ["a{b"]),
    ],
)
def test_brace_expansion(pattern: str, expanded: list[str]) -> None:
    assert globmatch.expand_braces(pattern) == expanded


def test_brace_expansion_allows_exactly_the_limit() -> None:
    assert len(globmatch.expand_braces("{a,b}" * 10)) == globmatch.MAX_ALTERNATIVES
    assert globmatch.expand_braces("{a,b}{c,d}", limit=4) == ["ac", "ad", "bc", "bd"]


def test_brace_expansion_bounds_every_group_before_merging_duplicates() -> None:
    """``{c,c,c}`` expands to three alternatives (then merged): over a limit of 2."""
    with pytest.raises(globmatch.GlobSyntaxError, match="more than 2 alternatives"):
        globmatch.expand_braces("{a,b}{c,c,c}", limit=2)
