"""What the spec table generates as files: the typed faces of the memory-level APIs (`faces.py`, one overload per
interface, the dtypes as constrained type variables, so that mypy checks calls against the spec) and the memory-level
table of docs/api.md. tests/lowerings/test_lowering_spec.py keeps both current; regenerate them with
`python -m regsim._src.lowerings.codegen` (it rewrites regsim/_src/lowerings/faces.py and the table in docs/api.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from regsim._src.lowerings.dtype_sets import NAMES
from regsim._src.lowerings.spec import Api, Form, Interface, Kind, Paired, Param
from regsim._src.lowerings.table import APIS, ENTRIES, PAGES
from regsim._src.model import dtypes as dt

ROOT: Final = Path(__file__).resolve().parents[3]
FACES: Final = ROOT / "regsim" / "_src" / "lowerings" / "faces.py"
API_MD: Final = ROOT / "docs" / "api.md"
#: the markers around the generated table in docs/api.md
BEGIN: Final = "<!-- memory-level table: generated from the spec table (python -m regsim._src.lowerings.codegen) -->"
END: Final = "<!-- end of the generated memory-level table -->"

_KIND_TYPES: Final = {
    Kind.INT: "int",
    Kind.MASK: "int",
    Kind.BITS: "MaskBits",
    Kind.SCALAR: "Scalar",
    Kind.BOOL: "bool",
    Kind.REF: "Ref[int]",
    Kind.DTYPE: "type[dt.DType]",
}


def _dtype(d: type[dt.DType]) -> str:
    return f"dt.{d.__name__}"


def type_var(dtypes: frozenset[type[dt.DType]]) -> str:
    """The type variable of a named dtype set (the face module defines one per set an interface's T has)."""
    return f"_{NAMES[dtypes]}"


def _sorted(dtypes: frozenset[type[dt.DType]]) -> list[type[dt.DType]]:
    order = {d: i for i, d in enumerate(dt.ALL_DTYPES)}
    return sorted(dtypes, key=lambda d: (order.get(d, len(order)), d.name))


def _tensor(p: Param, iface: Interface, t: str | None) -> str:
    if p.dtypes == "T":
        return f"LocalTensor[{t}]" if t else "LocalTensor[Any]"
    if isinstance(p.dtypes, frozenset):
        return " | ".join(f"LocalTensor[{_dtype(d)}]" for d in _sorted(p.dtypes))
    return "LocalTensor[Any]"


def _annotation(p: Param, iface: Interface, t: str | None) -> str:
    if p.kind is Kind.TENSOR:
        text = _tensor(p, iface, t)
    elif p.kind is Kind.STRUCT:
        assert p.struct is not None
        text = p.struct.__name__
    elif p.kind is Kind.ENUM:
        assert p.enum is not None
        text = p.enum.__name__
    else:
        text = _KIND_TYPES[p.kind]
    return f"{text} | None" if p.nullable else text


def _signature(iface: Interface, t: str | None, overrides: dict[str, str] | None = None) -> str:
    """One overload's parameters: the positional ones (by position or by name), then the keywords."""
    out = []
    for p in iface.params:
        ann = (overrides or {}).get(p.name) or _annotation(p, iface, t)
        out.append(f"{p.name}: {ann}" + (" = ..." if not p.required else ""))
    if iface.keywords:
        out.append("*")
        out += [f"{p.name}: {_annotation(p, iface, t)}" + (" = ..." if not p.required else "") for p in iface.keywords]
    return ", ".join(out)


def _t(iface: Interface) -> str | None:
    """The annotation of an interface's T: its set's type variable, the one dtype of a one-type set, or none."""
    if not iface.dtypes:
        return None
    if len(iface.dtypes) == 1:
        return _dtype(next(iter(iface.dtypes)))
    return type_var(iface.dtypes)


def overloads(iface: Interface) -> list[str]:
    """The overloads of one interface (a dtype-pair table: one per first type, its partners a union)."""
    if iface.pairs is None:
        return [_signature(iface, _t(iface))]
    first, second = iface.pairs.params
    out = []
    for a in _sorted(frozenset(s for s, _ in iface.pairs.table) & iface.dtypes):
        partners = _sorted(frozenset(d for s, d in iface.pairs.table if s is a))
        union = " | ".join(f"LocalTensor[{_dtype(d)}]" for d in partners)
        out.append(_signature(iface, _dtype(a), {first: f"LocalTensor[{_dtype(a)}]", second: union}))
    return out


def _import(module: str, names: list[str]) -> str:
    """An import line as ruff formats it: one line, or one name a line when longer than 130 characters."""
    line = f"from {module} import {', '.join(names)}"
    return line if len(line) <= 130 else f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")"


def _returns(api: Api) -> str:
    return "Any" if api.name == "GetReduceRepeatSumSpr" else "None"


def faces_source() -> str:
    """The text of faces.py."""
    sets = sorted(
        {i.dtypes for e in ENTRIES.values() for i in e.interfaces if len(i.dtypes) > 1 and i.pairs is None},
        key=NAMES.__getitem__,
    )

    def isort(names: set[str]) -> list[str]:  # (constants, then classes, as ruff sorts an import's names)
        return sorted(names, key=lambda n: (not n.isupper(), n))

    structs = isort({p.struct.__name__ for a in APIS for i in a.interfaces for p in i.all_params if p.struct})
    enums = isort({p.enum.__name__ for a in APIS for i in a.interfaces for p in i.all_params if p.enum})
    lines = [
        "# ruff: noqa: E501",
        '"""The typed faces of the memory-level APIs (`rs.AscendC`): one function per name, one overload per interface of the',
        "spec table, the dtypes of each interface's T a type variable constrained to its named set, so that mypy refuses a",
        "call the spec refuses. Generated from the spec table by regsim/_src/lowerings/codegen.py (do not edit: regenerate",
        'with `python -m regsim._src.lowerings.codegen`; tests/lowerings/test_lowering_spec.py keeps it current)."""',
        "",
        "# fmt: off",
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, TypeVar, overload",
        "",
        "from regsim._src.engine.context import Ref",
        _import("regsim._src.lowerings.structs", structs),
        "from regsim._src.lowerings.table import MaskBits, Scalar, face",
        "from regsim._src.model import dtypes as dt",
        _import("regsim._src.model.enums", enums),
        "from regsim._src.model.memory import LocalTensor",
        "",
    ]
    for s in sets:
        lines.append(f'{type_var(s)} = TypeVar("{type_var(s)}", {", ".join(_dtype(d) for d in _sorted(s))})')
    for name, entry in ENTRIES.items():
        sigs = list(dict.fromkeys(sig for i in entry.interfaces for sig in overloads(i)))
        ret = _returns(entry.api)
        lines += ["", ""]
        if len(sigs) > 1:
            for sig in sigs:
                lines += ["@overload", f"def {name}({sig}) -> {ret}: ..."]
            lines += [f'@face("{name}")', f"def {name}(*args: Any, **kwargs: Any) -> {ret}: ..."]
        else:
            lines += [f'@face("{name}")', f"def {name}({sigs[0]}) -> {ret}: ..."]
    return "\n".join(lines) + "\n"


# --- docs/api.md's table -------------------------------------------------------------------------------------------------------
def _set(dtypes: frozenset[type[dt.DType]]) -> str:
    """A dtype set as the table shows it: its name (the sets are listed under the table), else its dtypes."""
    return NAMES.get(dtypes) or " ".join(d.name for d in _sorted(dtypes)) or "-"


def _rules(iface: Interface) -> str:
    """An interface's dtypes: T's set, and the tensors with rules of their own."""
    parts = [f"T {_set(iface.dtypes)}"] if iface.dtypes and iface.pairs is None else []
    for p in iface.params:
        if p.kind is not Kind.TENSOR or p.dtypes == "T":
            continue
        if isinstance(p.dtypes, frozenset):
            parts.append(f"{p.name} {_set(p.dtypes)}")
        elif isinstance(p.dtypes, Paired):
            parts.append(f"{p.name} by the width of {p.dtypes.other}: " + " ".join(d.name for d in p.dtypes.pairs.values()))
        elif iface.pairs is not None and p.name in iface.pairs.params:
            parts.append(f"({', '.join(iface.pairs.params)}) the page's pairs")
        else:
            parts.append(f"{p.name} by the API (see below)")
    return "; ".join(dict.fromkeys(parts)) or "-"


def _interfaces(ifaces: tuple[Interface, ...]) -> list[str]:
    """One line per interface, a bit-mode and a continuous mask of the same parameters and dtypes on one line."""
    lines: dict[str, list[str]] = {}
    for i in ifaces:
        keywords = ", ".join(p.name + "=" for p in i.keywords)
        shape = f"`{i.form_text()}`" + (f" `{keywords}`" if keywords else "") + f": {_rules(i)}"
        form = {Form.COUNT: "first-n", Form.BITS: "mask[2]", Form.CONTINUOUS: "mask", Form.NONE: ""}[i.form]
        lines.setdefault(f"{i.variant}|{shape}", []).append(form)
    out = []
    for key, forms in lines.items():
        variant, shape = key.split("|", 1)
        label = ", ".join(x for x in (" / ".join(f for f in forms if f), variant) if x)
        out.append(f"{label} {shape}" if label else shape)
    return out


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The memory-level table of docs/api.md: per API its interfaces, each with its dtypes on Ascend 950 (a named set,
    the sets listed under the table), the Reg callees, the skeleton, the oracle and the page."""
    rows = [
        BEGIN,
        "",
        "| API | interfaces: dtypes on Ascend 950 | Reg callees | lowering skeleton | oracle | page |",
        "|---|---|---|---|---|---|",
    ]
    for api in APIS:
        ifaces = _interfaces(api.interfaces)
        for algo, forms in api.by_algo.items():
            names = {Form.COUNT: "first-n", Form.BITS: "mask/repeat"}
            narrowed = ", ".join(f"{names[f]} {_set(d)}" for f, d in forms.items() if f in names)
            ifaces.append(f"config {algo.name}: {narrowed}")
        name = f"`{api.name}` ({api.family})"
        if api.aliases:
            name += "; deprecated: " + ", ".join(f"`{a.name}`" for a in api.aliases)
        cells = (
            f"{name}: {_escape(api.summary)}",
            "<br>".join(_escape(i) for i in ifaces),
            ", ".join(f"`{c}`" for c in api.callees) or "- (core state)",
            _escape(api.skeleton),
            ", ".join(f"`{o}`" for o in api.oracle),
            api.doc.removeprefix(PAGES),
        )
        rows.append(f"| {' | '.join(cells)} |")
    used = sorted({i.dtypes for a in APIS for i in a.interfaces if i.dtypes in NAMES}, key=NAMES.__getitem__)
    used += [p.dtypes for a in APIS for i in a.interfaces for p in i.params if isinstance(p.dtypes, frozenset)]
    rows += ["", "The dtype sets (regsim/_src/lowerings/dtype_sets.py):", "", "| set | dtypes |", "|---|---|"]
    rows += [f"| {NAMES[d]} | {' '.join(x.name for x in _sorted(d))} |" for d in sorted(set(used), key=NAMES.__getitem__)]
    rows += [
        "",
        f"Pages: under `{PAGES}`. Oracles: the functions of `rs.testing.lowering_reference` the APIs' tests check them with.",
    ]
    return "\n".join([*rows, "", END]) + "\n"


def write() -> None:
    """Regenerate faces.py and docs/api.md's table."""
    FACES.write_text(faces_source(), encoding="utf-8")
    text = API_MD.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END) + 1
    API_MD.write_text(text[:start] + markdown() + text[end:], encoding="utf-8")


if __name__ == "__main__":
    write()
