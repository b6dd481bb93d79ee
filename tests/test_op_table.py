"""Meta-tests of the op table (regsim/_src/table.py): every op is public in rs.Reg with its legacy
aliases, and every op has an oracle in regsim.testing.reference that some test uses."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import regsim as rs
from regsim._src.dtypes import ALL_DTYPES
from regsim._src.table import OPS
from regsim.testing import reference as O

TESTS = Path(__file__).resolve().parent
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in TESTS.glob("test_*.py") if p.name != Path(__file__).name}


@pytest.mark.parametrize("key", sorted(OPS))
def test_op_is_public_with_its_aliases(key):
    spec = OPS[key]
    f = getattr(rs.Reg, spec.name, None)
    assert callable(f), f"rs.Reg.{spec.name} missing for OPS[{key!r}]"
    assert spec.name in rs.Reg.__all__
    for alias in spec.aliases:
        assert callable(getattr(rs.Reg, alias, None)), f"legacy alias rs.Reg.{alias} of {key} missing"
        assert alias in rs.Reg.__all__


@pytest.mark.parametrize("key", sorted(OPS))
def test_op_spec_is_well_formed(key):
    spec = OPS[key]
    assert spec.dtypes and spec.dtypes <= set(ALL_DTYPES)
    assert all(re.fullmatch(r"[a-z_][a-z0-9_]*|T", p) for p in spec.params), spec.params
    assert spec.equation and spec.doc.endswith(".md")
    # every public op's docstring starts with the lane equation (of its first overload)
    doc = getattr(rs.Reg, spec.name).__doc__ or ""
    assert spec.equation in doc, f"{key}: docstring lacks its equation"
    if not spec.variant:
        assert doc.startswith(spec.equation)


def test_every_op_has_an_oracle():
    assert set(O.ORACLES) == set(OPS), set(O.ORACLES) ^ set(OPS)


@pytest.mark.parametrize("key", sorted(OPS))
def test_every_oracle_is_used_by_a_test(key):
    """The op's oracle function and the public op are both named in some test module."""
    oracle = O.ORACLES[key].__name__
    users = [n for n, text in SOURCES.items() if re.search(rf"\bO\.{oracle}\b", text)]
    assert users, f"no test uses reference.{oracle} (the oracle of {key})"
    name = OPS[key].name
    assert any(f"Reg.{name}(" in SOURCES[n] or f"Reg.{name}," in SOURCES[n] for n in users), (
        f"the tests using reference.{oracle} never call Reg.{name}"
    )


def test_oracles_do_not_import_regsim():
    """The oracles are independent: regsim.testing.reference imports nothing of regsim."""
    source = inspect.getsource(O)
    assert not re.search(r"^\s*(from|import)\s+regsim", source, re.MULTILINE)
