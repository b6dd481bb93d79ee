"""The package's floors, read from its imports: each folder of `regsim/_src` imports only the folders
below it (README, "Layout"), no module imports itself back through others (no circle), and no import
hides inside a function to dodge either rule. The oracles import nothing of the implementation.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "regsim"
#: the floors, lowest first: a module may import its own floor and those below
FLOORS = (
    ("regsim.errors",),
    ("regsim._src.model",),
    ("regsim._src.engine",),
    ("regsim._src.vf",),
    ("regsim._src.ops",),
    ("regsim._src.lowerings",),
    ("regsim._src.kernel",),
    ("regsim._src.cost",),
    ("regsim._src.frontends",),
    ("regsim._src.api",),
    ("regsim.registry", "regsim.capi", "regsim.cpp", "regsim.testing"),
    ("regsim", "regsim.strategies", "regsim.__main__"),
)
#: modules that must import nothing of regsim's but each other: the independent oracles
ORACLES = {"regsim.testing.reference": set(), "regsim.testing.lowering_reference": {"regsim.testing.reference"}}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def floor(module: str) -> int:
    best, level = -1, -1
    for k, prefixes in enumerate(FLOORS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, level = len(p), k
    assert level >= 0, f"{module} is on no floor: add its folder to FLOORS (and to README's layout)"
    return level


def _imports(path: Path, module: str) -> Iterator[tuple[str, int, bool]]:
    """(imported regsim module, line, inside a function) for each import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inside = {id(m) for f in funcs for m in ast.walk(f) if isinstance(m, (ast.Import, ast.ImportFrom))}
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # `from pkg import mod` imports the module when one of that name exists
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for name in names:
            if name == "regsim" or name.startswith("regsim."):
                yield name, node.lineno, id(node) in inside


def _resolve(name: str) -> str:
    """The module an imported dotted name lives in (a name inside a module: that module)."""
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name


@functools.cache
def graph() -> dict[str, list[tuple[str, int, bool]]]:
    """Each module's (imported module, line, inside a function) edges, read when a test first asks: parsing
    every module takes a second or two, which collection (done by every xdist worker) need not spend."""
    return {m: sorted({(_resolve(n), line, fn) for n, line, fn in _imports(p, m)}) for m, p in MODULES.items()}


def test_every_import_goes_down_or_stays_on_its_floor() -> None:
    upward = [
        f"{m} (floor {floor(m)}) imports {target} (floor {floor(target)}) at line {line}"
        for m, edges in graph().items()
        for target, line, _ in edges
        if floor(target) > floor(m)
    ]
    assert not upward, "\n".join(upward)


def test_no_import_hides_in_a_function() -> None:
    hidden = [
        f"{m}: line {line} imports {target} inside a function" for m, edges in graph().items() for target, line, fn in edges if fn
    ]
    assert not hidden, "\n".join(hidden)


def test_no_circles() -> None:
    edges = {m: {t for t, _, _ in e if t != m} for m, e in graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    assert not circles, "\n".join(" <-> ".join(c) for c in circles)


@pytest.mark.parametrize("oracle", sorted(ORACLES))
def test_the_oracles_import_nothing_of_the_implementation(oracle: str) -> None:
    imported = {t for t, _, _ in graph()[oracle]}
    assert imported <= ORACLES[oracle], f"{oracle} imports {sorted(imported - ORACLES[oracle])}"
