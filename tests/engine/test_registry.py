"""Meta-tests of the op registry: every spec is public with its legacy aliases, its face's typed
signature matches its operands, dtypes and modes (so mypy refuses what the spec refuses), and
every modelled op has an oracle in regsim.testing.reference that some test uses."""

from __future__ import annotations

import enum
import inspect
import re
import typing
from pathlib import Path

import pytest

import regsim as rs
from regsim._src.engine.spec import FACES, REGISTRY, Kind, OpSpec
from regsim._src.model.dtypes import ALL_DTYPES, EVERY_DTYPE, DType
from regsim.testing import reference as O

TESTS = Path(__file__).resolve().parents[1]  # every layer's tests
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py") if p.name != Path(__file__).name}
SPECS = list(REGISTRY.specs.values())
MODELLED = [s for s in SPECS if not s.unmodelled]


def oracle_key(spec: OpSpec) -> str:
    """The oracle of a spec: one per op and overload family; address forms (post, addr) and
    arities (CreateAddrReg/1..4) share it."""
    family = spec.variant.split("_")[0]
    return spec.name if family in ("", "post", "addr") or family.isdigit() else f"{spec.name}/{family}"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_op_is_public_with_its_aliases(spec: OpSpec) -> None:
    f = getattr(rs.Reg, spec.name, None)
    assert callable(f) and f is FACES[spec.name], f"rs.Reg.{spec.name} is not the registered face"
    assert spec.name in rs.Reg.__all__
    for alias in spec.aliases:
        assert callable(getattr(rs.Reg, alias, None)), f"legacy alias rs.Reg.{alias} of {spec.key} missing"
        assert alias in rs.Reg.__all__


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_op_spec_is_well_formed(spec: OpSpec) -> None:
    assert spec.dtypes <= set(EVERY_DTYPE)
    if rs.float64 in spec.dtypes:  # double: moved by the aligned register loads and stores only (decisions §92)
        assert spec.name in ("LoadAlign", "StoreAlign") and spec.variant in ("", "post", "addr"), spec.key
    assert all(re.fullmatch(r"[a-z_][a-z0-9_]*|T", o.name) for o in spec.operands), spec.operands
    assert spec.equation and spec.doc.endswith(".md")
    positional = [o.keyword for o in spec.operands]
    assert positional == sorted(positional), f"{spec.key}: template (keyword) operands must follow the positional ones"
    if not spec.unmodelled:
        doc = getattr(rs.Reg, spec.name).__doc__ or ""
        assert spec.equation in doc, f"{spec.key}: docstring lacks its equation"


# --- faces and specs agree (the typed signature is written by hand; this keeps it honest) -----------
def _overloads(name: str) -> list[typing.Any]:
    face = FACES[name]
    found = list(typing.get_overloads(face))
    return found or [face.__wrapped__]  # type: ignore[attr-defined]


def _face_for(spec: OpSpec) -> inspect.Signature | None:
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
        first = next((o for o in spec.operands if o.kind is Kind.REG and hasattr(o.dtypes, "dtypes")), None)
        if len(found) == 1 or first is None or _dtypes_of(hints.get(first.name)) == first.dtypes.dtypes:  # type: ignore[union-attr]
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
def test_face_signature_matches_spec(spec: OpSpec) -> None:
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
        if o.kind in (Kind.REG, Kind.DTYPE) or (o.kind is Kind.PTR and o.dtypes is not None):
            admitted = _dtypes_of(hint)
            rule = o.dtypes
            if admitted is not None and rule is not None and hasattr(rule, "dtypes"):
                # (a face typed by a DType-bound T admits rs.float64 too: mypy passes a double LoadAlign / StoreAlign,
                # and leaves the runtime check to refuse it elsewhere)
                assert admitted == rule.dtypes - {rs.float64}, (
                    f"{spec.key}.{o.name}: face admits {sorted(d.name for d in admitted)}"
                )
        if o.kind is Kind.ENUM and o.name == "mode":  # merge modes: mypy refuses what the spec refuses
            literal = {a for a in typing.get_args(hint) if isinstance(a, enum.Enum)}
            assert literal == set(o.accepted), f"{spec.key}.mode: the face admits {literal}, the spec {set(o.accepted)}"


# --- oracles -----------------------------------------------------------------------------------------
def test_every_modelled_op_has_an_oracle() -> None:
    assert {oracle_key(s) for s in MODELLED} == set(O.ORACLES), {oracle_key(s) for s in MODELLED} ^ set(O.ORACLES)


@pytest.mark.parametrize("key", sorted({oracle_key(s) for s in MODELLED}))
def test_every_oracle_is_used_by_a_test(key: str) -> None:
    """The op's oracle function and the public op are both named in some test module."""
    oracle = O.ORACLES[key].__name__
    users = [n for n, text in SOURCES.items() if re.search(rf"\bO\.{oracle}\b", text)]
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
def test_every_op_has_a_batching_rule(spec: OpSpec) -> None:
    """An op runs in batched loops (its executor is batchable) or says why it runs in order."""
    from regsim._src.engine.spec import Batching

    assert isinstance(spec.batching, Batching)
    if spec.batching is Batching.SEQUENTIAL:
        assert spec.sequential_reason, f"{spec.key}: sequential-only without a reason"
    else:
        assert spec.executor.batchable, f"{spec.key}: batching rule {spec.batching.name} but its executor cannot run batched"
