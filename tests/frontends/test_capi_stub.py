"""regsim/capi.pyi, the typed face of `rs.capi`: generated from the C forms `rs.capi` runs, current, naming every
public name, and typing each C overload as the runtime checks it: for every C overload and every element type of
each of its typed parameters, the stub refuses it where the runtime refuses it (the overload's C types, or a
DTypeError of its Reg op), and takes it where the runtime takes it (but for the operand relations the dtype rules
do not state, listed in RELATIONS). mypy then reads the stub on a call of each overload the runtime takes and one
of an element type it refuses."""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg, capi, errors
from regsim._src.engine.spec import CName, Kind, Paired
from regsim._src.frontends.capi.register import C_CONSTANTS, FORMS, CForm
from regsim._src.frontends.capi.stub import _Form, scalar_type, stub
from regsim._src.model import dtypes as dt

ROOT = Path(__file__).resolve().parents[2]

#: the Reg ops whose executor checks a relation of its operands' types that no dtype rule states (the stub takes
#: each operand's types; the call raises DTypeError)
RELATIONS = {
    "Reduce": "the (dst, src) pairs of each ReduceType",
    "ReduceDataBlock": "the (dst, src) pairs of each ReduceType",
    "Pack": "a dst of half the source's width",
    "UnPack": "a dst of twice the source's width",
    "Gather/ub": "the (dst, src, index) triples",
}


def test_the_stub_is_generated_from_the_c_forms() -> None:
    assert (ROOT / "regsim" / "capi.pyi").read_text(encoding="utf-8") == stub(), (
        "regsim/capi.pyi is stale: regenerate it (command in its header)"
    )


def test_the_stub_names_every_public_name() -> None:
    tree = ast.parse((ROOT / "regsim" / "capi.pyi").read_text(encoding="utf-8"))
    named = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    named |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    named |= {a.asname for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names if a.asname == a.name}
    public = {n for n in dir(capi) if not n.startswith("_")}  # the register-level functions are made at first use
    assert named == public
    assert set(capi.__all__) <= public


# --- one call of a C overload: its arguments, at run time and as source --------------------------------------------
Arg = tuple[str, Any]  #: ("reg", dtype), ("ptr", dtype), ("scalar", dtype of its number), ("mask" | "int" | ..., None)


def _args(form: CForm, types: dict[str, type[dt.DType]]) -> list[Arg] | None:
    """The arguments of `form` with each typed group of its type in `types` (None: a paired operand has no type)."""
    shape = _Form(form)
    out: list[Arg] = []
    for p in form.cname.params:
        if p == CName.OFFSET and p not in form.spec.slots:
            out.append(("int", None))
            continue
        o = form.spec.operand(p)
        if o.kind in (Kind.REG, Kind.PTR):
            d = o.dtypes.pairs.get(types[shape.root[o.dtypes.other]]) if isinstance(o.dtypes, Paired) else types[shape.root[p]]
            if d is None:
                return None
            out.append(("reg" if o.kind is Kind.REG else "ptr", d))
        elif o.kind is Kind.SCALAR:
            root = shape.scalar_root()
            out.append(("scalar", types[root] if root else rs.int16))
        elif o.kind is Kind.ENUM:
            out.append(("enum", o.enum and next(iter(o.enum))))
        else:
            out.append(({Kind.MASK: "mask", Kind.PRED: "mask", Kind.INT: "int"}.get(o.kind, o.kind.name.lower()), None))
    return out


SCALARS = {"IntScalar": 3, "FloatScalar": 1.5, "ComplexScalar": 1 + 2j}


class Values:
    """Run-time values of arguments, pointers into one UB."""

    def __init__(self) -> None:
        self.ub = rs.UnifiedBuffer()
        self.ptrs: dict[Any, Any] = {}

    def __call__(self, arg: Arg) -> Any:
        kind, d = arg
        if kind == "reg":
            return Reg.RegTensor(d)
        if kind == "ptr":
            if d not in self.ptrs:
                self.ptrs[d] = self.ub.alloc(d, 2048 // d.itemsize).GetPhyAddr()
            return self.ptrs[d] + 0
        if kind == "scalar":
            return SCALARS[scalar_type(d)]
        return {
            "mask": lambda: Reg.MaskReg.from_bits(np.ones(256, np.bool_)),
            "int": lambda: 0,
            "uload": Reg.UnalignRegForLoad,
            "ustore": Reg.UnalignRegForStore,
            "ref": lambda: rs.Ref(64),
            "enum": lambda: d,
        }[kind]()


def _source(arg: Arg) -> str:
    kind, d = arg
    if kind in ("reg", "ptr"):
        return f"{kind[0]}_{d.name}"
    if kind == "scalar":
        return repr(SCALARS[scalar_type(d)])
    if kind == "enum":
        return "capi." + next(n for n, m in C_CONSTANTS.items() if m is d)
    return {"mask": "m", "int": "0", "uload": "u_load", "ustore": "u_store", "ref": "ref"}[kind]


def _tested(form: CForm) -> bool:
    """The forms these tests build calls of: not those taking an AddrReg or computing operands from the loop
    (asc_update_addr_reg, asc_mem_bar, asc_storeunalign's post forms: typings/pass/capi.py calls those)."""
    kinds = {form.spec.operand(p).kind for p in form.cname.params if p in form.spec.slots}
    return Kind.ADDR not in kinds and not form.cname.c_params and form.cname.derive is None


TESTED = [f for name in sorted(FORMS) for f in FORMS[name] if _tested(f)]


def _refusal(run: Any, values: list[Any]) -> str | None:
    """The DTypeError a call raises (None: it takes the types; other errors say nothing of them). A two-register
    64-bit operand (RegTraitNumTwo) is a trait the stub does not type: a refusal for it counts as taking the types."""
    try:
        with rs.configure(check_uninitialized=False), rs.VEC_SCOPE():
            run(*values)
    except errors.DTypeError as e:
        return None if "RegTraitNumTwo" in str(e) else str(e)
    except errors.RegsimError:
        pass
    return None


def _cases(form: CForm) -> Iterator[tuple[str, type[dt.DType], dict[str, type[dt.DType]]]]:
    """(group, element type, the types of every group): each element type in turn for each typed group, the other
    groups at their first type."""
    allowed = _Form(form).allowed
    first = {root: next(d for d in dt.EVERY_DTYPE if d in types) for root, types in allowed.items()}
    for root in allowed:
        for d in dt.EVERY_DTYPE:
            yield root, d, {**first, root: d}


@pytest.mark.parametrize("form", TESTED, ids=[f"{f.name}-{f.spec.key}" for f in TESTED])
def test_the_stub_types_each_c_overload_as_the_runtime_does(form: CForm) -> None:
    values = Values()
    allowed = _Form(form).allowed
    for root, d, types in _cases(form):
        args = _args(form, types)
        if args is None:
            continue
        given = [values(a) for a in args]
        refused = form.mismatch(given) or _refusal(lambda *v: form.call(v), given)
        if d not in allowed[root]:
            assert refused, f"{form.name} ({form.spec.key}) runs {root} of {d.name}, which its stub refuses"
        else:
            assert not refused or form.spec.key in RELATIONS, (
                f"{form.name} ({form.spec.key}) refuses {root} of {d.name}, which its stub takes: {refused}"
            )


# --- mypy on the stub ---------------------------------------------------------------------------------------------
def _calls() -> list[tuple[str, bool]]:
    """(call, whether the runtime takes its types): for each tested C overload a call the runtime takes, and one of an
    element type no overload of its name and arity takes."""
    values = Values()
    out: list[tuple[str, bool]] = []
    for form in TESTED:
        allowed = _Form(form).allowed
        for types in itertools.product(*(sorted(t, key=dt.EVERY_DTYPE.index) for t in allowed.values())):
            args = _args(form, dict(zip(allowed, types, strict=True)))
            if args is not None and not _refusal(getattr(capi, form.name), [values(a) for a in args]):
                out.append((f"capi.{form.name}({', '.join(map(_source, args))})", True))
                break
        arity = [_Form(f).allowed for f in FORMS[form.name] if len(f.cname.params) == len(form.cname.params)]
        for root, d, types in _cases(form):
            args = _args(form, types)
            if args is not None and all(d not in a.get(root, {d}) for a in arity):
                call = f"capi.{form.name}({', '.join(map(_source, args))})"
                out.append((call, not _refusal(getattr(capi, form.name), [values(a) for a in args])))
                break
    return out


def test_mypy_takes_and_refuses_calls_as_the_runtime_does(mypy_options: list[str], tmp_path: Path) -> None:
    from mypy_support import run_mypy

    calls = _calls()
    assert sum(ok for _, ok in calls) > 500 and sum(not ok for _, ok in calls) > 300, len(calls)
    header = ["import regsim as rs", "from regsim import Reg, capi", "", "ub = rs.UnifiedBuffer()"]
    header += [f"r_{d.name} = Reg.RegTensor(rs.{d.name})" for d in dt.EVERY_DTYPE]
    header += [f"p_{d.name} = ub.alloc(rs.{d.name}, 64).GetPhyAddr()" for d in dt.EVERY_DTYPE]
    header += ["m = Reg.MaskReg()", "u_load = Reg.UnalignRegForLoad()", "u_store = Reg.UnalignRegForStore()", "ref = rs.Ref(64)"]
    path = tmp_path / "capi_calls.py"
    path.write_text("\n".join([*header, *(c for c, _ in calls)]) + "\n")
    run = run_mypy(mypy_options, [path])
    flagged = {line for file, line, _, _ in run.errors() if file == path.resolve()}
    wrong = [
        f"{'refuses' if ok else 'takes'}: {call}"
        for line, (call, ok) in enumerate(calls, start=len(header) + 1)
        if (line in flagged) == ok
    ]
    assert not wrong, "mypy disagrees with the runtime:\n" + "\n".join(wrong)
