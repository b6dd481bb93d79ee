"""Every predicated op at the lane-count boundaries of its predicate: no lane active, exactly one active, exactly
one inactive, all (the one lane drawn at the first, the last and a middle position), for every dtype of the op
the oracle computes on Python ints, with each merge mode the op accepts, in both loop modes (the op runs in a
two-iteration VF loop), checked against regsim.testing.reference. The shapes: elementwise (binary, unary,
tensor-scalar), logic, select, compare, reduce and the masked store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.engine.spec import REGISTRY, OpSpec
from regsim.testing import reference as O

INTS = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.int32, rs.uint32, rs.int64, rs.uint64]
ZEROING, MERGING = Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING


def boundaries(n: int) -> list[tuple[str, np.ndarray]]:
    out = [("none", np.zeros(n, np.bool_)), ("all", np.ones(n, np.bool_))]
    for k in (0, n // 2 + 1, n - 1):
        one = np.zeros(n, np.bool_)
        one[k] = True
        out += [(f"only lane {k} active", one), (f"only lane {k} inactive", ~one)]
    return out


def values(dtype: Any, n: int, seed: int) -> np.ndarray:
    raw = np.random.default_rng(seed).integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype.np_dtype)


def ints(a: np.ndarray) -> list[int]:
    return [int(x) for x in a]


@rs.simd_vf
def twice(op: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    for _ in range(2):
        op(*args, **kwargs)


def run(loops: str, op: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        twice(op, args, kwargs)


def specs(*keys: str) -> list[tuple[OpSpec, Any]]:
    return [(REGISTRY.specs[k], d) for k in keys for d in INTS if d in REGISTRY.specs[k].dtypes]


def ident(case: tuple[OpSpec, Any]) -> str:
    return f"{case[0].key}-{case[1].name}"


LOOPS = ["sequential", "auto"]


# --- elementwise: binary, unary, tensor-scalar --------------------------------------------------------------------
ARITH = specs("Add", "Sub", "Mul", "Max", "Min", "Abs", "Neg", "Relu", "Adds", "Muls", "Maxs", "Mins")


@pytest.mark.parametrize("loops", LOOPS)
@pytest.mark.parametrize("case", ARITH, ids=ident)
def test_elementwise(case: tuple[OpSpec, Any], loops: str) -> None:
    spec, d = case
    n = 256 // d.itemsize
    a, b, old = values(d, n, 1), values(d, n, 2), values(d, n, 3)
    unary, scalar = len(spec.positional) == 3, spec.name.endswith("s") and spec.name != "Abs"
    s = int(b[5])
    for mode in sorted(spec.modes or {ZEROING}, key=lambda m: m.value):
        for what, lanes in boundaries(n):
            dst = Reg.RegTensor.from_numpy(old.copy())
            m = Reg.MaskReg.from_lanes(d, lanes)
            src = [Reg.RegTensor.from_numpy(a)] + ([] if unary else [s if scalar else Reg.RegTensor.from_numpy(b)])
            run(loops, getattr(Reg, spec.name), dst, *src, m, mode=mode)
            operands = [ints(a)] + ([] if unary else [[s] * n if scalar else ints(b)])
            want = O.arith_oracle(spec.name, d.name, operands, lanes, ints(old) if mode is MERGING else None)
            O.assert_lanes(dst.numpy(), want, itemsize=d.itemsize, what=f"{spec.key} {d.name} {mode.name} {what}")


# --- logic ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loops", LOOPS)
@pytest.mark.parametrize("case", specs("And", "Or", "Xor", "Not"), ids=ident)
def test_logic(case: tuple[OpSpec, Any], loops: str) -> None:
    spec, d = case
    n = 256 // d.itemsize
    a, b = values(d, n, 4), values(d, n, 5)
    unary = spec.name == "Not"
    for what, lanes in boundaries(n):
        dst = Reg.RegTensor.from_numpy(values(d, n, 6))
        src = [Reg.RegTensor.from_numpy(a)] + ([] if unary else [Reg.RegTensor.from_numpy(b)])
        run(loops, getattr(Reg, spec.name), dst, *src, Reg.MaskReg.from_lanes(d, lanes))
        want = O.logic_oracle(
            spec.name, d.name, ints(a.view(f"u{d.itemsize}")), None if unary else ints(b.view(f"u{d.itemsize}")), lanes
        )
        O.assert_lanes(dst.numpy().view(f"u{d.itemsize}"), want, itemsize=d.itemsize, what=f"{spec.key} {d.name} {what}")


# --- select, compare ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loops", LOOPS)
@pytest.mark.parametrize("case", specs("Select"), ids=ident)
def test_select(case: tuple[OpSpec, Any], loops: str) -> None:
    """Every lane written: src0 where the predicate is on, src1 where off (exactly one inactive lane takes src1)."""
    d = case[1]
    n = 256 // d.itemsize
    a, b = values(d, n, 7), values(d, n, 8)
    for what, lanes in boundaries(n):
        dst = Reg.RegTensor.from_numpy(values(d, n, 9))
        run(loops, Reg.Select, dst, Reg.RegTensor.from_numpy(a), Reg.RegTensor.from_numpy(b), Reg.MaskReg.from_lanes(d, lanes))
        O.assert_lanes(dst.numpy(), O.select_oracle(ints(a), ints(b), lanes), itemsize=d.itemsize, what=f"Select {d.name} {what}")


@pytest.mark.parametrize("loops", LOOPS)
@pytest.mark.parametrize("case", specs("Compare", "Compares"), ids=ident)
def test_compare(case: tuple[OpSpec, Any], loops: str) -> None:
    spec, d = case
    n = 256 // d.itemsize
    a = values(d, n, 10)
    b = a.copy()
    b[::3] = values(d, n, 11)[::3]  # equal lanes and unequal ones
    s = int(a[n // 2])
    for cmp in (rs.AscendC.CMPMODE.EQ, rs.AscendC.CMPMODE.NE, rs.AscendC.CMPMODE.LE):
        for what, lanes in boundaries(n):
            dst = Reg.MaskReg.from_lanes(d, ~lanes)  # every lane the op leaves off was on before
            other = s if spec.name == "Compares" else Reg.RegTensor.from_numpy(b)
            run(
                loops,
                getattr(Reg, spec.name),
                dst,
                Reg.RegTensor.from_numpy(a),
                other,
                Reg.MaskReg.from_lanes(d, lanes),
                mode=cmp,
            )
            want = O.compare_oracle(cmp.name, ints(a), [s] * n if spec.name == "Compares" else ints(b), lanes)
            assert [bool(x) for x in dst.lanes(d)] == want, f"{spec.key} {d.name} {cmp.name} {what}"


# --- reduce --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loops", LOOPS)
@pytest.mark.parametrize("d", [rs.int16, rs.uint16, rs.int32, rs.uint32], ids=lambda d: d.name)
def test_reduce(d: Any, loops: str) -> None:
    n = 256 // d.itemsize
    a = values(d, n, 12)
    kinds = (Reg.ReduceType.MAX, Reg.ReduceType.MIN) + ((Reg.ReduceType.SUM,) if d.itemsize == 4 else ())  # (same-type sums)
    for kind in kinds:
        for what, lanes in boundaries(n):
            dst = Reg.RegTensor(d)
            run(loops, Reg.Reduce, dst, Reg.RegTensor.from_numpy(a), Reg.MaskReg.from_lanes(d, lanes), type=kind)
            want = O.reduce_oracle(d.name, d.name, ints(a), lanes, kind.name, n)
            O.assert_lanes(dst.numpy(), want, itemsize=d.itemsize, what=f"Reduce {kind.name} {d.name} {what}")


# --- the masked store ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loops", LOOPS)
@pytest.mark.parametrize("d", INTS, ids=lambda d: d.name)
def test_masked_store(d: Any, loops: str) -> None:
    """StoreAlign writes exactly the active lanes' bytes; every other UB byte keeps its value."""
    n = 256 // d.itemsize
    a = values(d, n, 13)
    for what, lanes in boundaries(n):
        ub = rs.UnifiedBuffer(1024)
        t = ub.alloc(rs.uint8, 1024)
        before = np.random.default_rng(14).integers(0, 256, 1024, dtype=np.uint8)
        t.set(before)
        p = t.GetPhyAddr().reinterpret(d) + 256 // d.itemsize
        run(loops, Reg.StoreAlign, p, Reg.RegTensor.from_numpy(a), Reg.MaskReg.from_lanes(d, lanes))
        want = O.store_oracle(before.tobytes(), 256, d.itemsize, ints(a.view(f"u{d.itemsize}")), lanes)
        assert ub.storage.data.tobytes() == want, f"StoreAlign {d.name} {what}"
