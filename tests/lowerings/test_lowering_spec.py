"""The spec table of the memory-level layer (regsim/_src/lowerings/table.py) and what it generates, kept honest:

- every `rs.AscendC` memory-level name is a row (or a row's deprecated alias) with a typed face, and every row is one;
- the typed faces (faces.py) and docs/api.md's memory-level table are what the table generates;
- the dtype lists are named once (no two sets equal, no dtype set written outside dtype_sets.py);
- every API has an oracle of `rs.testing.lowering_reference` and a test that checks it with that oracle;
- `regsim lower` knows every name, and each row's example calls make its Reg callees;
- mypy refuses what the spec refuses: for every API and interface, a call with each element type outside its dtypes;
- the binder: a call resolves to its overload by argument kinds, and one that fits none is a ParameterError naming the
  parameter (or the forms).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import errors
from regsim._src.lowerings import codegen, dtype_sets, explorer
from regsim._src.lowerings.spec import Entry, Form, Interface, Kind, Param
from regsim._src.lowerings.table import APIS, ENTRIES
from regsim._src.model import dtypes as dt
from regsim._src.model.core import current_core
from regsim.testing import lowering_reference

A = rs.AscendC
ROOT = Path(__file__).resolve().parents[2]
LOWERINGS = ROOT / "regsim" / "_src" / "lowerings"
TESTS = sorted((ROOT / "tests" / "lowerings").glob("test_lowered_*.py"))


# --- the table and its public names ---------------------------------------------------------------------------------------
def test_every_memory_level_name_is_a_spec_row() -> None:
    faces = {n for n in A.__all__ if getattr(getattr(A, n), "__module__", "") == "regsim._src.lowerings.faces"}
    assert faces == set(ENTRIES), faces ^ set(ENTRIES)
    assert len(ENTRIES) == len(APIS) + sum(len(a.aliases) for a in APIS)
    for name, entry in ENTRIES.items():
        assert entry.interfaces, name
        assert getattr(A, name).__doc__.startswith(f"`AscendC::{name}`"), name


def test_faces_are_generated_from_the_table() -> None:
    assert (LOWERINGS / "faces.py").read_text(encoding="utf-8") == codegen.faces_source(), (
        "regsim/_src/lowerings/faces.py is stale: regenerate it (python -m regsim._src.lowerings.codegen)"
    )


def test_api_md_table_is_generated_from_the_table() -> None:
    assert codegen.markdown() in (ROOT / "docs" / "api.md").read_text(encoding="utf-8"), (
        "docs/api.md's memory-level table is stale: regenerate it (python -m regsim._src.lowerings.codegen)"
    )


def test_each_interface_is_one_overload_of_its_face() -> None:
    """A face has one overload per interface (a dtype-pair table: one per first type), of the interface's parameters;
    a name of one interface has its signature."""
    import typing

    for name, entry in ENTRIES.items():
        face = getattr(A, name).__wrapped__
        overloads = typing.get_overloads(face) or [face]
        sigs = list(dict.fromkeys(s for i in entry.interfaces for s in codegen.overloads(i)))
        assert len(overloads) == len(sigs), name
        params = {tuple(inspect.signature(o).parameters) for o in overloads}
        assert params == {tuple(p.name for p in i.all_params) for i in entry.interfaces}, name


# --- the dtype lists --------------------------------------------------------------------------------------------------------
def test_dtype_lists_are_named_once() -> None:
    named = [v for n, v in vars(dtype_sets).items() if n.isupper() and isinstance(v, frozenset)]
    assert len(named) == len(set(named)), "two named sets hold the same dtypes"
    used = {i.dtypes for e in ENTRIES.values() for i in e.interfaces if i.dtypes and i.pairs is None}
    assert used <= set(dtype_sets.NAMES), [dt.names(s) for s in used - set(dtype_sets.NAMES)]
    literal = re.compile(r"frozenset\(\{dt\.")
    written = [p.name for p in LOWERINGS.glob("*.py") if p.name != "dtype_sets.py" and literal.search(p.read_text())]
    assert not written, f"dtype lists written outside dtype_sets.py: {written}"


# --- oracles and their tests ------------------------------------------------------------------------------------------------
def test_every_api_has_an_oracle_and_a_test_that_uses_it() -> None:
    texts = {p.name: p.read_text(encoding="utf-8") for p in TESTS}
    for api in APIS:
        assert api.oracle, api.name
        for oracle in api.oracle:
            assert inspect.isfunction(getattr(lowering_reference, oracle, None)), f"{api.name}: no oracle {oracle}"
        for name in [api.name, *(a.name for a in api.aliases)]:
            mentions = re.compile(rf"(A\.{name}\b|[\"']{name}[\"'])")
            using = [f for f, t in texts.items() if mentions.search(t) and any(f"MO.{o}(" in t for o in api.oracle)]
            assert using, f"{name}: no test in tests/lowerings names it and calls its oracle {api.oracle}"


def test_the_oracles_import_nothing_of_the_implementation() -> None:
    source = inspect.getsource(lowering_reference)
    imports = re.findall(r"^(?:from|import) (regsim[.\w]*)", source, re.M)
    assert imports and all(m.startswith("regsim.testing") for m in imports), imports


# --- the explorer ------------------------------------------------------------------------------------------------------------
def _examples(entry: Entry) -> list[str]:
    """A row's example calls: its own, else one per plain interface form (first-n, bit mask, continuous mask)."""
    api = entry.api
    if entry.name != api.name:  # a deprecated alias: its API's example, by its name
        return [api.examples[0].replace(api.name, entry.name, 1)] if api.examples else []
    if api.examples:
        return list(api.examples)
    out = []
    for i in api.interfaces:
        if i.variant or i.form is Form.NONE:
            continue
        t = next(d for d in (rs.float32, rs.half, rs.int16, rs.int32, *dt.ALL_DTYPES) if d in i.dtypes)
        kw = {"count": 200} if i.form is Form.COUNT else {"mask": [3, 0] if i.form is Form.BITS else 40, "repeat_time": 2}
        for p in i.all_params:
            if p.kind is Kind.SCALAR and p.name not in kw:
                kw[p.name] = 1
        out.append(f"{entry.name}({t.name}, {', '.join(f'{k}={v!r}' for k, v in kw.items())})")
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_the_explorer_lowers_every_name_into_its_callees(name: str) -> None:
    """Every example call of a row makes some of its Reg callees, and each callee is made by some example; a host API of
    the core's state has no callee, and each example of it makes no Reg call and says why."""
    examples = _examples(ENTRIES[name])
    callees = set(ENTRIES[name].api.callees)
    assert examples, name
    if not ENTRIES[name].api.lowered:
        assert not callees, name
        for text in examples:
            low = explorer.lower_spec(text)
            assert low.records == () and "the core's state" in low.table(), text
        return
    assert callees, name
    made = set()
    for text in examples:
        ops = {op.split("/")[0] for op in explorer.lower_spec(text).counts()}
        assert ops & callees, f"{text}: none of {sorted(callees)} among its Reg calls {sorted(ops)}"
        made |= ops
    assert callees <= made, f"{name}: no example makes {sorted(callees - made)}"


def test_the_explorer_runs_a_state_api_on_a_fresh_core() -> None:
    """`regsim lower "SetVectorMask(half, length=8)"` sets the mask of a core of its own (the first 8 elements), and
    `"SetMaskCount(half)"` the counter mode of another: the caller's core keeps its state."""
    before = current_core()
    explorer.lower_spec("SetVectorMask(half, length=8)")
    assert current_core() is not before and current_core().vector_mask == (0, 0xFF)
    explorer.lower_spec("SetMaskCount(half)")
    assert current_core().ctrl >> 56 & 1 == 1
    assert before.vector_mask == (2**64 - 1, 2**64 - 1) and before.ctrl >> 56 & 1 == 0


def test_the_explorer_knows_exactly_the_table_s_names() -> None:
    assert set(explorer.lowerable()) == set(ENTRIES) | set(explorer.C_API)
    states = sorted(n for n, e in ENTRIES.items() if not e.api.lowered)
    assert states == ["GetCmpMask", "GetReduceRepeatSumSpr", "ResetMask", "SetCmpMask", "SetDeqScale", "SetMaskCount",
                      "SetMaskNorm", "SetVectorMask"]  # fmt: skip


# --- mypy refuses what the spec refuses ---------------------------------------------------------------------------------------
_VALUES = {
    Kind.INT: "1",
    Kind.MASK: "64",
    Kind.BITS: "[1, 0]",
    Kind.SCALAR: "1",
    Kind.BOOL: "True",
    Kind.REF: "rs.Ref(0)",
    Kind.DTYPE: "rs.float32",
}


def _argument(p: Param, t: str) -> str:
    """A value of parameter `p` whose T tensors hold dtype `t` (other tensors a dtype their rule accepts)."""
    if p.kind is Kind.TENSOR:
        if p.dtypes == "T":
            return f"t_{t}"
        if isinstance(p.dtypes, frozenset):
            return f"t_{next(d for d in dt.ALL_DTYPES if d in p.dtypes).name}"
        return "t_any"
    if p.kind is Kind.STRUCT:
        assert p.struct is not None
        return f"A.{p.struct.__name__}()"
    if p.kind is Kind.ENUM:
        assert p.enum is not None
        return f"A.{p.enum.__name__}.{next(iter(p.enum)).name}"
    return _VALUES[p.kind]


def _kinds(i: Interface) -> tuple[Any, ...]:
    return tuple((p.kind, p.dtypes if p.kind is Kind.TENSOR and p.dtypes != "T" else None) for p in i.params)


def refused_calls() -> list[str]:
    """For every name and interface with a T: a call with each dtype outside T's set and outside every interface of the
    name with the same parameter kinds (what the spec refuses), the interface's required keywords given."""
    calls = []
    for name, entry in ENTRIES.items():
        for i in entry.interfaces:
            if not i.dtypes or i.pairs is not None or not any(p.dtypes == "T" for p in i.params):
                continue
            accepted = set().union(*(j.dtypes for j in entry.interfaces if _kinds(j) == _kinds(i)))
            for d in dt.ALL_DTYPES:
                if d in accepted:
                    continue
                args = [_argument(p, d.name) for p in i.params]
                args += [f"{p.name}={_argument(p, d.name)}" for p in i.keywords if p.required]
                calls.append(f"A.{name}({', '.join(args)})")
    return calls


def test_mypy_refuses_what_the_spec_refuses(mypy_options: list[str], tmp_path: Path) -> None:
    pytest.importorskip("mypy.api")
    from mypy_support import run_mypy

    calls = refused_calls()
    assert len(calls) > 1000, len(calls)
    header = [
        "from typing import Any",
        "import regsim as rs",
        "A = rs.AscendC",
        "ub = rs.UnifiedBuffer()",
        *(f"t_{d.name} = ub.alloc(rs.{d.name}, 256)" for d in dt.ALL_DTYPES),
        "t_any: Any = None",
    ]
    path = tmp_path / "refused_by_the_spec.py"
    path.write_text("\n".join([*header, *calls]) + "\n")
    run = run_mypy(mypy_options, [path])
    flagged = {line for file, line, _, _ in run.errors() if file == path.resolve()}
    accepted = [c for k, c in enumerate(calls, start=len(header) + 1) if k not in flagged]
    assert not accepted, f"mypy accepts {len(accepted)} calls the spec refuses:\n" + "\n".join(accepted[:30])
    assert max(flagged) <= len(header) + len(calls), run.stdout  # (no error in the header)


# --- the binder -------------------------------------------------------------------------------------------------------------
def _tensors(dtype: Any = rs.float32, n: int = 3) -> list[rs.LocalTensor[Any]]:
    ub = rs.UnifiedBuffer(8192)
    ts = [ub.alloc(dtype, 256) for _ in range(n)]
    for t in ts:
        t.set(np.ones(256, dtype.np_dtype))
    return ts


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda d, a, b: A.Add(d, a, b, 64, 1), "Add: arguments = 5 positional"),  # between the forms
        (lambda d, a, b: A.Add(d, a), "Add: src1 = missing"),  # a parameter every form has
        (lambda d, a, b: A.Add(d, a, b, 1.5), "Add: count = 1.5; accepted: an int"),
        (lambda d, a, b: A.Add(d, a, b, "x", 1, A.BinaryRepeatParams()), "mask = 'x'; accepted: a mask[2] sequence"),
        (lambda d, a, b: A.Add(d, a, b, 64, 1, A.UnaryRepeatParams()), "repeat_params = UnaryRepeatParams"),
        (lambda d, a, b: A.Add(d, a, b, 64, config=A.BinaryConfig()), "config = BinaryConfig (an unknown keyword)"),
        (lambda d, a, b: A.Adds(d, a, 1.0, 64, isSetMask=False), "did you mean is_set_mask=?"),
        (lambda d, a, b: A.Adds(d, 1.0, 2.0, 64), "Adds: src1 = 2.0; accepted: a LocalTensor"),
        (lambda d, a, b: A.Neg(d, a, 8, 1, A.UnaryRepeatParams()), "accepted: (dst, src, count)"),
        (lambda d, a, b: A.Truncate(d, a, 8), "round_mode = missing; accepted: keyword round_mode="),
        (lambda d, a, b: A.ReduceMin(d, a, b), "arguments = 3 positional (count or mask missing)"),
        (lambda d, a, b: A.Compare(), "arguments = 0 positional (dst or src0 missing)"),
        (lambda d, a, b: A.Compare(a, b, "LT", 64, A.BinaryRepeatParams()), "cmp_mode = 'LT'"),
        (lambda d, a, b: A.Select(d, a, b, 1, A.BinaryRepeatParams(), sel_mode=A.SELMODE.VSEL_CMPMASK_SPR, x=1), "x = 1"),
    ],
)
def test_a_call_that_fits_no_overload_names_what_does_not_fit(call: Any, says: str) -> None:
    d, a, b = _tensors()
    before = d.ub.storage.data.copy()
    with pytest.raises(errors.ParameterError) as info:
        call(d, a, b)
    assert says in str(info.value), str(info.value)
    assert np.array_equal(d.ub.storage.data, before)


def test_the_overload_is_resolved_by_argument_kinds() -> None:
    """Each form by the kinds of its arguments: a count, a bit mask (a list), a continuous mask (an int); a scalar or
    a LocalTensor element (the flexible scalar), or a scalar first; dtypes decide between same-kind overloads (MulAddDst's
    half sources and float dst); the vector mask register is set only by the bit-mode form."""
    ub = rs.UnifiedBuffer(16384)
    f = [ub.alloc(rs.float32, 256) for _ in range(3)]
    h = [ub.alloc(rs.half, 256) for _ in range(2)]
    for t in f:
        t.set(np.arange(256, dtype=np.float32))
    for t in h:
        t.set(np.full(256, 2.0, np.float16))
    calls = {
        "count": (A.Add, (f[0], f[1], f[2], 64)),
        "bits": (A.Add, (f[0], f[1], f[2], [7, 0], 1, A.BinaryRepeatParams())),
        "continuous": (A.Add, (f[0], f[1], f[2], 3, 1, A.BinaryRepeatParams())),
        "scalar": (A.Adds, (f[0], f[1], 2.0, 64)),
        "flexible": (A.Adds, (f[0], f[1], f[2][5], 64)),
        "first": (A.Subs, (f[0], 2.0, f[1], 64)),
        "widening": (A.MulAddDst, (f[0], h[0], h[1], 64)),
    }
    forms = {k: ENTRIES[api.__name__].bind(args, {}) for k, (api, args) in calls.items()}
    assert [c.form for c in forms.values()] == [Form.COUNT, Form.BITS, Form.CONTINUOUS] + [Form.COUNT] * 4
    assert [c.iface.variant for c in forms.values()][3:] == ["", "flexible scalar", "scalar first", "half sources, float dst"]
    A.Subs(f[0], 2.0, f[1], 4)
    assert f[0].numpy()[:4].tolist() == [2.0, 1.0, 0.0, -1.0]  # 2 - src
    A.ResetMask()
    A.Add(f[0], f[1], f[2], 3, 1, A.BinaryRepeatParams())
    assert ub.core.vector_mask == (2**64 - 1, 2**64 - 1)  # (a continuous mask does not set the register)
    A.Add(f[0], f[1], f[2], [7, 0], 1, A.BinaryRepeatParams())
    assert ub.core.vector_mask == (0, 7)
