"""Helpers shared by the memory-level (LocalTensor) API tests: random elements and the tensors holding them, the
bit-exact comparison, both loop modes and counter mode, and the setups and mask draws of the compare and select
tests (test_lowered_compare_select.py's tensor-tensor and tensor-scalar forms, test_lowered_flexible_scalar.py's
flexible scalar)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from hypothesis import strategies as st

import regsim as rs
from regsim.testing import lowering_reference as MO

A = rs.AscendC
MODES = ["LT", "GT", "EQ", "LE", "GE", "NE"]
FLOATS = (rs.half, rs.bfloat16, rs.float32)
#: 950 dtype lists, written from the pages' "数据类型" sections (Compare, Compares, Select)
CMP_COUNT = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
CMP_REPEAT = [rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32]
SEL_COUNT = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.complex32]
SEL_COUNT += [rs.int64, rs.uint64, rs.complex64]
SEL_REPEAT = [rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32]


def values(dtype: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random elements: any bits for integers; floats in [-100, 100); complex parts small integers (so
    products are exact)."""
    npd = np.dtype(dtype.np_dtype)
    if npd.kind in "iu":
        return rng.integers(0, 256, n * npd.itemsize, dtype=np.uint8).view(npd)
    if dtype in (rs.complex32, rs.complex64):  # nonzero parts: no product is a signed zero
        re, im = (rng.integers(1, 9, n) * rng.choice([-1, 1], n) for _ in range(2))
        return (re + 1j * im).astype(npd)
    return rng.uniform(-100, 100, n).astype(npd)


def tensors(dtype: Any, n: int, seed: int, count: int = 3) -> tuple[rs.UnifiedBuffer, list[rs.LocalTensor[Any]]]:
    """A UB holding `count` tensors of `n` random elements (plus a register of slack after the last, so
    whole-register loads stay in the UB)."""
    per = -(-n * dtype.itemsize // 256) * 256
    ub = rs.UnifiedBuffer(count * per + 256)
    rng = np.random.default_rng(seed)
    ts = [ub.alloc(dtype, n) for _ in range(count)]
    for t in ts:
        t.set(values(dtype, n, rng))
    return ub, ts


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


def assert_same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    g, w = bits(got).reshape(got.size, -1), bits(want).reshape(want.size, -1)
    bad = np.nonzero((g != w).any(axis=1))[0]
    assert bad.size == 0, (
        f"{what}: {bad.size} elements differ, first {bad[:5].tolist()}: got {got[bad[:5]]!r} want {want[bad[:5]]!r}"
    )


@contextlib.contextmanager
def counter_mode() -> Iterator[None]:
    A.SetMaskCount()
    try:
        yield
    finally:
        A.SetMaskNorm()


def run_both(call: Any, ub: rs.UnifiedBuffer) -> np.ndarray:
    """Run `call()` in order (loops="sequential"), then by default (loops="auto": batched where exact) from
    the same UB and compare-mask register; the two must agree bit for bit; returns the UB bytes after."""
    before, cmp = ub.storage.data.copy(), ub.core.cmp_mask
    with rs.configure(loops="sequential"):
        call()
    seq, seq_cmp = ub.storage.data.copy(), ub.core.cmp_mask
    ub.storage.data[:] = before
    ub.core.cmp_mask = cmp
    call()
    assert np.array_equal(seq, ub.storage.data) and seq_cmp == ub.core.cmp_mask, "sequential and batched loops disagree"
    return seq


# --- the mask/repeat interfaces: the mask argument in each mask mode, and the elements it selects ------------------
FORMS = ("continuous", "bit", "counter")


def repeat_span(
    dtype: Any, form: str, count: int, repeats: int, blk: tuple[int, ...], rep: tuple[int, ...], slack: int = 0
) -> tuple[int, int]:
    """(the repeats a repeat-interface call runs, the elements its widest operand reaches plus `slack`): in
    "counter" form ceil(count / lanes) repeats, else `repeats`; operand j has block stride blk[j] and repeat
    stride rep[j]."""
    reps = -(-count // (256 // dtype.itemsize)) if form == "counter" else repeats
    reach = max(MO.touched_elements(dtype.itemsize, max(reps, 1), b, r) for b, r in zip(blk, rep, strict=True))
    return reps, reach + slack


def draw_mask(data: st.DataObject, form: str, lanes: int, count: int) -> Any:
    """The `mask` argument of a repeat-interface call on `lanes`-element repeats: in "bit" form [mask[0], mask[1]]
    with a bit of mask[0] set, in "counter" form `count`, in "continuous" form an element count."""
    if form == "bit":
        lo = data.draw(st.integers(1, 2**64 - 1) if lanes > 32 else st.integers(1, 2**32 - 1), "mask[0]")
        return [lo, data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0]
    return count if form == "counter" else data.draw(st.integers(1, min(lanes, 128)), "mask")


def run_in_form(call: Any, ub: rs.UnifiedBuffer, form: str, mask: Any, dtype: Any) -> Callable[[int, int], bool]:
    """Run `call()` in both loop modes (in counter mode for the "counter" form); the oracle's (repeat, element)
    selection of `mask`."""
    lanes = 256 // dtype.itemsize
    if form == "counter":
        with counter_mode():
            run_both(call, ub)
        return lambda r, k: r * lanes + k < mask
    run_both(call, ub)
    selected = MO.mask_elements(dtype.itemsize, mask)
    return lambda r, k: bool(selected[k])


# --- the compare and select setups ------------------------------------------------------------------------------------
def cmp_values(dtype: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random elements with many ties (small integers), and for floats the specials (NaN, ±0, ±inf)."""
    npd = np.dtype(dtype.np_dtype)
    if dtype in FLOATS:
        v = rng.integers(-4, 5, n).astype(np.float64)
        specials = np.array([np.nan, 0.0, -0.0, np.inf, -np.inf])
        pick = rng.random(n) < 0.2
        v[pick] = rng.choice(specials, int(pick.sum()))
        return v.astype(npd)
    lo, hi = (-4, 5) if npd.kind == "i" else (0, 9)
    v = rng.integers(lo, hi, n).astype(npd)
    pick = rng.random(n) < 0.2
    v[pick] = values(dtype, int(pick.sum()), rng)
    return v


def compare_tensors(dtype: Any, n: int, dst_bytes: int, seed: int) -> tuple[Any, ...]:
    """(ub, dst, src0, src1): a random uint8 dst of `dst_bytes` and two sources of `n` `cmp_values` elements."""
    ub = rs.UnifiedBuffer(2 * -(-n * dtype.itemsize // 256) * 256 + -(-dst_bytes // 256) * 256 + 512)
    rng = np.random.default_rng(seed)
    dst = ub.alloc(rs.uint8, dst_bytes)
    dst.set(rng.integers(0, 256, dst_bytes, dtype=np.uint8))
    s0, s1 = ub.alloc(dtype, n), ub.alloc(dtype, n)
    s0.set(cmp_values(dtype, n, rng))
    s1.set(cmp_values(dtype, n, rng))
    return ub, dst, s0, s1


def select_tensors(dtype: Any, n: int, sel_bytes: int, sel_type: Any, seed: int) -> tuple[Any, ...]:
    """(ub, dst, sel, src0, src1): three tensors of `n` random elements and a selMask of `sel_type` holding at least
    `sel_bytes` random bytes."""
    rng = np.random.default_rng(seed)
    per = -(-n * dtype.itemsize // 256) * 256
    ub = rs.UnifiedBuffer(3 * per + -(-sel_bytes // 256) * 256 + 1024)
    dst, s0, s1 = (ub.alloc(dtype, n) for _ in range(3))
    for t in (dst, s0, s1):
        t.set(values(dtype, n, rng))
    sel = ub.alloc(sel_type, -(-sel_bytes // sel_type.itemsize))
    ub.storage.write(sel.addr, rng.integers(0, 256, sel.nbytes, dtype=np.uint8))
    return ub, dst, sel, s0, s1


#: 950 dtype lists, written from the library's static_asserts (kernel_operator_vec_{binary,binary_continuous,
#: unary,binary_scalar}_impl.h for dav_3510)
B16_B32 = [rs.half, rs.uint16, rs.int16, rs.bfloat16, rs.uint32, rs.int32, rs.float32]
SCALAR_B16_B32 = [rs.half, rs.bfloat16, rs.float32, rs.int16, rs.int32]
B8 = [rs.uint8, rs.int8]
B64 = [rs.int64, rs.uint64]
CPLX = [rs.complex32, rs.complex64]
COUNT_DTYPES = {
    "Add": [*B16_B32, *B8, *B64, *CPLX],
    "Sub": [*B16_B32, *B8, *B64, *CPLX],
    "Mul": [*B16_B32, *B64, *CPLX],
    "Max": [*B16_B32, *B8, *B64],
    "Min": [*B16_B32, *B8, *B64],
    "And": [rs.uint8, rs.int8, rs.int16, rs.uint16, rs.uint32, rs.int32, rs.int64, rs.uint64],
    "Or": [rs.uint8, rs.int8, rs.int16, rs.uint16, rs.uint32, rs.int32, rs.int64, rs.uint64],
    "Not": [rs.int8, rs.uint8, rs.half, rs.float32, rs.uint16, rs.int16, rs.uint32, rs.int32, rs.uint64, rs.int64],
    "Abs": [rs.int8, rs.half, rs.int16, rs.float32, rs.int32, rs.int64],
    "Relu": [rs.half, rs.float32, rs.int32, rs.int64],
    "Adds": [*SCALAR_B16_B32, *B8, *B64, *CPLX],
    "Muls": [*SCALAR_B16_B32, *B64, *CPLX],
    "Maxs": [*SCALAR_B16_B32, *B8, *B64],
    "Mins": [*SCALAR_B16_B32, *B8, *B64],
}
