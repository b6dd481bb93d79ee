"""Meta-tests of the op registry, read through its public face `rs.registry`: every op is public with
its legacy aliases, its face's typed signature matches its operands, dtypes and modes (so mypy refuses
what the spec refuses), every modelled op has an oracle in regsim.testing.reference that some test uses,
and the registry's views are read-only values that say what the ops do."""

from __future__ import annotations

import enum
import inspect
import re
import typing
from pathlib import Path

import attrs
import pytest

import regsim as rs
from regsim._src.model.dtypes import ALL_DTYPES, EVERY_DTYPE, DType
from regsim.registry import OneOf, Op, Overload
from regsim.testing import reference as O

TESTS = Path(__file__).resolve().parents[1]  # every layer's tests
ROOT = TESTS.parent
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py") if p.name != Path(__file__).name}
#: the names each test module reads as `O.name` (`\bO\.name\b` matches a module exactly when `name` is one), found
#: once: a search of every module for each oracle took a twentieth of a second a key
O_NAMES = {n: set(re.findall(r"\bO\.(\w+)", text)) for n, text in SOURCES.items()}
OPS = rs.registry.ops()
OVERLOADS = rs.registry.overloads()
MODELLED = [ov for ov in OVERLOADS if not ov.unmodelled]


def oracle_key(ov: Overload) -> str:
    """The oracle of an overload: one per op and overload family; address forms (post, addr) and
    arities (CreateAddrReg/1..4) share it."""
    family = ov.variant.split("_")[0]
    return ov.name if family in ("", "post", "addr") or family.isdigit() else f"{ov.name}/{family}"


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_op_is_public_with_its_aliases(op: Op) -> None:
    f = getattr(rs.Reg, op.name, None)
    assert callable(f) and f is op.face, f"rs.Reg.{op.name} is not the op's face"
    assert op.name in rs.Reg.__all__
    for ov in op.overloads:  # the face's docstring is made from the overloads it runs
        assert ov.unmodelled or ov.equation in (f.__doc__ or ""), f"rs.Reg.{op.name} is not the registered face of {ov.key}"
    for alias in op.aliases:
        assert callable(getattr(rs.Reg, alias, None)), f"legacy alias rs.Reg.{alias} of {op.name} missing"
        assert alias in rs.Reg.__all__
        assert op in (rs.registry.op(alias),) if sum(alias in o.aliases for o in OPS) == 1 else alias != op.name


@pytest.mark.parametrize("ov", OVERLOADS, ids=lambda s: s.key)
def test_op_spec_is_well_formed(ov: Overload) -> None:
    assert ov.dtypes <= set(EVERY_DTYPE)
    if (
        rs.float64 in ov.dtypes
    ):  # double: moved by the aligned register loads and stores only (decisions/model.md#float64-element-type)
        assert ov.name in ("LoadAlign", "StoreAlign") and ov.variant in ("", "post", "addr"), ov.key
    assert all(re.fullmatch(r"[a-z_][a-z0-9_]*|T", o.name) for o in ov.operands), ov.operands
    assert ov.equation and ov.doc.endswith(".md")
    templates = [o.template for o in ov.operands]
    assert templates == sorted(templates), f"{ov.key}: template (keyword) operands must follow the positional ones"


# --- faces and specs agree (the typed signature is written by hand; this keeps it honest) -----------
def _overloads(name: str) -> list[typing.Any]:
    face = rs.registry.op(name).face
    found = list(typing.get_overloads(face))
    return found or [face.__wrapped__]  # type: ignore[attr-defined]


def _face_for(spec: Overload) -> inspect.Signature | None:
    """The face overload whose positional parameter names are the spec's positional operands
    (where several overloads share the names, as Abs's real and complex forms do, the one whose
    register annotations admit the spec's first register dtypes)."""
    names = [o.name for o in spec.positional]
    keywords = {o.name for o in spec.templates}
    found = []
    for ov in _overloads(spec.name):
        sig = inspect.signature(ov)
        pos = [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values())
        kw = {p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY}
        if (pos == names or (var and names[: len(pos)] == pos)) and kw == keywords:
            found.append((ov, sig))
    for ov, sig in found:
        hints = typing.get_type_hints(ov, globalns=vars(inspect.getmodule(ov)))
        first = next((o for o in spec.operands if o.kind == "reg" and isinstance(o.dtypes, OneOf)), None)
        if len(found) == 1 or first is None or _dtypes_of(hints.get(first.name)) == getattr(first.dtypes, "dtypes", None):
            return sig
    return None


def _dtypes_of(hint: typing.Any) -> frozenset[type[DType]] | None:
    """The dtypes a face parameter's annotation admits (RegTensor[T], UbPtr[T], type[T])."""
    args = typing.get_args(hint)
    if not args:
        return None
    arg = args[0]
    if isinstance(arg, typing.TypeVar):
        if arg.__constraints__:
            return frozenset(arg.__constraints__)
        return frozenset(d for d in ALL_DTYPES if issubclass(d, arg.__bound__ or DType))
    if arg is typing.Any:
        return frozenset(ALL_DTYPES)
    return frozenset(d for d in ALL_DTYPES if isinstance(arg, type) and issubclass(d, arg))


@pytest.mark.parametrize("spec", MODELLED, ids=lambda s: s.key)
def test_face_signature_matches_spec(spec: Overload) -> None:
    sig = _face_for(spec)
    assert sig is not None, (
        f"{spec.key}: no overload of rs.Reg.{spec.name} has the positional parameters {[o.name for o in spec.positional]}"
    )
    ov = next(ov for ov in _overloads(spec.name) if inspect.signature(ov) == sig)
    hints = typing.get_type_hints(ov, globalns=vars(inspect.getmodule(ov)))
    keywords = {p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY}
    assert keywords == {o.name for o in spec.templates}, f"{spec.key}: face keywords {keywords}"
    for o in spec.operands:
        if o.name not in hints:
            continue  # *args of a variadic face
        hint = hints[o.name]
        if o.kind in ("reg", "dtype") or (o.kind == "ptr" and o.dtypes is not None):
            admitted = _dtypes_of(hint)
            rule = o.dtypes
            if admitted is not None and isinstance(rule, OneOf):
                # (a face typed by a DType-bound T admits rs.float64 too: mypy passes a double LoadAlign / StoreAlign,
                # and leaves the runtime check to refuse it elsewhere)
                assert admitted == rule.dtypes - {rs.float64}, (
                    f"{spec.key}.{o.name}: face admits {sorted(d.name for d in admitted)}"
                )
        if o.kind == "enum" and o.name == "mode":  # merge modes: mypy refuses what the spec refuses
            # a Literal of members, or the enum class itself (every member)
            literal = {a for a in typing.get_args(hint) if isinstance(a, enum.Enum)} or set(hint if hint is o.enum else ())
            assert literal == set(o.accepted), f"{spec.key}.mode: the face admits {literal}, the spec {set(o.accepted)}"


# --- oracles -----------------------------------------------------------------------------------------
def test_every_modelled_op_has_an_oracle() -> None:
    assert {oracle_key(s) for s in MODELLED} == set(O.ORACLES), {oracle_key(s) for s in MODELLED} ^ set(O.ORACLES)


@pytest.mark.parametrize("key", sorted({oracle_key(s) for s in MODELLED}))
def test_every_oracle_is_used_by_a_test(key: str) -> None:
    """The op's oracle function and the public op are both named in some test module."""
    oracle = O.ORACLES[key].__name__
    users = [n for n, names in O_NAMES.items() if oracle in names]
    assert users, f"no test uses oracles.{oracle} (the oracle of {key})"
    name = key.split("/")[0]
    assert any(f"Reg.{name}(" in SOURCES[n] or f"Reg.{name}," in SOURCES[n] for n in users), (
        f"the tests using oracles.{oracle} never call Reg.{name}"
    )


def test_oracles_do_not_import_regsim() -> None:
    """The oracles are independent: regsim.testing.reference never imports the code under test."""
    source = inspect.getsource(O)
    assert not re.search(r"^\s*(from|import)\s+regsim", source, re.MULTILINE)


@pytest.mark.parametrize("spec", MODELLED, ids=lambda s: s.key)
def test_every_op_has_a_batching_rule(spec: Overload) -> None:
    """An op runs in batched loops (its executor is batchable) or says why it runs in order. (Its executor is
    an implementation detail the public registry leaves out: read from the private spec.)"""
    from regsim._src.ops import REGISTRY

    assert spec.batching in typing.get_args(rs.registry.Batching)
    if spec.batching == "sequential":
        assert spec.sequential_reason, f"{spec.key}: sequential-only without a reason"
    else:
        executor = REGISTRY.specs[spec.key].executor
        assert executor.batchable, f"{spec.key}: batching rule {spec.batching} but its executor cannot run batched"


# --- the public registry's views ---------------------------------------------------------------------
def test_registry_views_are_read_only_values() -> None:
    """Every view is a frozen attrs value holding tuples and frozensets: a tool cannot change the registry."""
    op = rs.registry.op("ShiftLeft")
    ov = op.overloads[0]
    views = [op, ov, *ov.operands, *ov.c_api, *op.decisions, *(o.dtypes for o in ov.operands if o.dtypes is not None)]
    for view in views:
        assert attrs.has(type(view)) and attrs.fields(type(view))
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            view.name = "x"  # type: ignore[misc,union-attr]
        for field in attrs.fields(type(view)):
            value = getattr(view, field.name)
            assert not isinstance(value, (list, dict, set)), f"{type(view).__name__}.{field.name} is mutable"
    assert rs.registry.ops() is rs.registry.ops() and rs.registry.overloads() == tuple(o for p in OPS for o in p.overloads)


def test_registry_says_what_the_ops_are() -> None:
    """Facts of the documentation read back through the registry (the Add page's carry overload, the shift
    amounts' signed type of the data's width, Sub's and Max's merge modes, Cast's trait, the conversions'
    C names, a legacy alias)."""
    add = rs.registry.op("Add")
    assert [ov.key for ov in add.overloads] == ["Add", "Add/carry"] and rs.registry.op("AddCarryOut") is add
    carry = add.overloads[1]
    assert [(o.name, o.kind, o.role) for o in carry.positional][:2] == [("carry", "mask", "out"), ("dst_reg", "reg", "out")]
    assert carry.merge_modes == frozenset() and "asc_add" in {c.name for c in carry.c_api}
    assert rs.registry.op("Sub").overloads[0].merge_modes == {rs.Reg.MaskMergeMode.ZEROING}
    assert rs.registry.op("Max").overloads[0].merge_modes == {rs.Reg.MaskMergeMode.ZEROING, rs.Reg.MaskMergeMode.MERGING}
    mode = next(o for o in rs.registry.op("Sub").overloads[0].templates if o.name == "mode")
    assert mode.enum is rs.Reg.MaskMergeMode and mode.accepted == (rs.Reg.MaskMergeMode.ZEROING,) and not mode.required
    amounts = next(
        o.dtypes for o in rs.registry.op("ShiftLeft").overloads[0].operands if isinstance(o.dtypes, rs.registry.Paired)
    )
    assert amounts.get(rs.uint8) is rs.int8 and amounts.get(rs.int64) is rs.int64 and amounts.get(rs.half) is None
    (cast,) = rs.registry.op("Cast").overloads
    trait = cast.templates[0]
    assert (trait.name, trait.kind, trait.template, trait.struct) == ("trait", "struct", True, rs.Reg.CastTrait)
    assert len({c.name for c in cast.c_api}) == 437 and all(c.name.startswith("asc_") for c in cast.c_api)
    assert {k for k, _ in rs.registry.OPERAND_KINDS} == set(typing.get_args(rs.registry.OperandKind))
    assert {o.kind for ov in OVERLOADS for o in ov.operands} <= set(typing.get_args(rs.registry.OperandKind))


def test_registry_decisions_are_entries_on_disk() -> None:
    cast = rs.registry.op("Cast")
    assert "docs/decisions/cast.md#cast-saturation" in [d.path for d in cast.decisions]
    for op in OPS:
        for d in op.decisions:
            page, _, anchor = d.path.partition("#")
            assert f'<a id="{anchor}"></a>' in (ROOT / page).read_text(encoding="utf-8"), d.path


def test_registry_refuses_an_unknown_name() -> None:
    for name in ("Nope", 3, "add"):
        with pytest.raises(rs.errors.ParameterError, match=r"^registry\.op: name = .*; accepted: the name or a legacy alias"):
            rs.registry.op(name)  # type: ignore[arg-type]
    with pytest.raises(
        rs.errors.ParameterError, match=r"^registry\.op: name = 'DataCopy'; accepted: one of .*LoadAlign, StoreAlign"
    ):
        rs.registry.op("DataCopy")  # the C++ name of both LoadAlign and StoreAlign
