"""Carry ops (Add/Sub with carry out, AddC, SubC) against the lane oracle, and multi-limb
64/128/256-bit additions and subtractions built from them (the Ascend C `Add`, `Sub`, `AddC` and `SubC` pages)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.testing import reference as O

CARRY_TYPES = [rs.int32, rs.uint32]
LANES = 64


def _run_primitive(kind: str, a: Reg.RegTensor, b: Reg.RegTensor, carry_src: Reg.MaskReg, mask: Reg.MaskReg):
    dst = Reg.RegTensor(a.dtype)
    carry = Reg.MaskReg()
    with rs.VEC_SCOPE():
        if kind == "Add/carry":
            Reg.Add(carry, dst, a, b, mask)
        elif kind == "Sub/carry":
            Reg.Sub(carry, dst, a, b, mask)
        elif kind == "AddC":
            Reg.AddC(carry, dst, a, b, carry_src, mask)
        else:
            Reg.SubC(carry, dst, a, b, carry_src, mask)
    return dst, carry


@pytest.mark.parametrize("kind", ["Add/carry", "Sub/carry", "AddC", "SubC"])
@pytest.mark.parametrize("dtype", CARRY_TYPES, ids=lambda d: d.name)
@given(data=st.data(), fill=st.sampled_from(["lsb", "group"]))
def test_carry_op_matches_oracle(kind, dtype, data, fill):
    """dst and carry of every lane; inactive lanes give dst 0 and carry 0; the mask and carry_src
    are read only at bit 4i (the other bits are random noise here); the carry is written at bit
    4i only (mask_fill "lsb") or to the whole 4-bit group ("group")."""
    a = data.draw(rst.registers(dtype), "a")
    b = data.draw(rst.registers(dtype), "b")
    mask = data.draw(rst.masks(dtype, fill="noise"), "mask")
    carry_src = data.draw(rst.masks(dtype, fill="noise"), "carry_src")
    with rs.configure(mask_fill=fill):
        dst, carry = _run_primitive(kind, a, b, carry_src, mask)
    av, bv = [int(x) for x in a.numpy()], [int(x) for x in b.numpy()]
    active = list(mask.bits()[::4])
    cin = list(carry_src.bits()[::4])
    want_dst, want_carry = O.carry_oracle(kind, av, bv, active, cin)
    inputs = {"a": a.numpy(), "b": b.numpy(), "mask": np.array(active, np.uint8), "carry_src": np.array(cin, np.uint8)}
    O.assert_lanes(dst.numpy(), want_dst, itemsize=4, inputs=inputs, what=f"{kind} dst ({dtype!r})")
    O.assert_lanes(carry.lanes(dtype).astype(np.uint8), want_carry, itemsize=1, inputs=inputs, what=f"{kind} carry")
    want_bits = O.predicate_bits(dtype.name, [bool(c) for c in want_carry], fill=fill)
    O.assert_lanes(carry.bits().astype(np.uint8), want_bits, itemsize=1, what=f"{kind} carry bit layout ({fill})")


@pytest.mark.parametrize("dtype", CARRY_TYPES, ids=lambda d: d.name)
def test_sub_carry_is_no_borrow(dtype):
    """Sub's carry is 1 exactly when a >= b as unsigned 32-bit values: 5-3 no borrow, 3-5 borrow,
    x-x no borrow, 0-1 borrow."""
    pairs = [(5, 3, 1), (3, 5, 0), (7, 7, 1), (0, 1, 0), (0xFFFFFFFF, 0, 1), (0, 0xFFFFFFFF, 0)]
    a = np.array([O.wrap(p[0], 32, dtype is rs.int32) for p in pairs] * 11, dtype.np_dtype)[:LANES]
    b = np.array([O.wrap(p[1], 32, dtype is rs.int32) for p in pairs] * 11, dtype.np_dtype)[:LANES]
    with rs.VEC_SCOPE():
        dst, carry = Reg.RegTensor(dtype), Reg.MaskReg()
        Reg.Sub(carry, dst, Reg.RegTensor.from_numpy(a), Reg.RegTensor.from_numpy(b), Reg.CreateMask(dtype))
    want = [p[2] for p in pairs] * 11
    O.assert_lanes(carry.lanes(dtype).astype(np.uint8), want[:LANES], itemsize=1, what="Sub carry = no borrow")
    O.assert_lanes(dst.numpy(), [(int(x) - int(y)) & O.M32 for x, y in zip(a, b, strict=True)], itemsize=4, what="Sub dst")


# --- multi-limb arithmetic -------------------------------------------------------------------
def _numbers(bits: int) -> st.SearchStrategy[list[int]]:
    """64 numbers of `bits` bits, leaning to ripple edges: all lanes one number, a few lanes
    different from a fill number, or every lane independent (seeded, so examples replay)."""
    top = (1 << bits) - 1
    edges = [0, 1, 2, top, top - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1, O.M32, 1 << 32, top ^ O.M32, top - O.M32]
    limb_edges = [0, 1, O.M32, O.M32 - 1, 0x80000000, 0x7FFFFFFF]
    number = st.one_of(
        st.sampled_from(edges),
        st.integers(0, top),
        st.lists(st.sampled_from(limb_edges), min_size=bits // 32, max_size=bits // 32).map(O.from_limbs),
    )

    def dense(seed: int) -> list[int]:
        rnd = random.Random(seed)
        pick = [
            lambda: rnd.choice(edges),
            lambda: rnd.getrandbits(bits),
            lambda: O.from_limbs([rnd.choice(limb_edges) for _ in range(bits // 32)]),
        ]
        return [rnd.choice(pick)() for _ in range(LANES)]

    def sparse(fill: int, changes: list[tuple[int, int]]) -> list[int]:
        out = [fill] * LANES
        for i, v in changes:
            out[i] = v
        return out

    @st.composite
    def numbers(draw):
        kind = draw(st.integers(0, 2))
        if kind == 0:
            return draw(st.integers(0, 2**64 - 1).map(dense))
        changes = st.lists(st.tuples(st.integers(0, LANES - 1), number), max_size=4 if kind == 1 else 0)
        return sparse(draw(number), draw(changes))

    return numbers()


def _limb_regs(dtype, numbers: list[int], count: int) -> list[Reg.RegTensor]:
    """Register k holds limb k of every number (lane i = number i)."""
    parts = [O.limbs(x, count) for x in numbers]
    return [Reg.RegTensor.from_numpy(np.array([p[k] for p in parts], np.uint32).view(dtype.np_dtype)) for k in range(count)]


def _chain(op: str, dtype, a: list[Reg.RegTensor], b: list[Reg.RegTensor], mask: Reg.MaskReg, in_place: bool):
    """Add(carry, …) + AddC(…) chain (or Sub + SubC), limb 0 first; returns (dst limbs, last carry)."""
    first, rest = (Reg.Add, Reg.AddC) if op == "add" else (Reg.Sub, Reg.SubC)
    out = [Reg.RegTensor(dtype) for _ in a]
    carry = Reg.MaskReg()
    with rs.VEC_SCOPE():
        first(carry, out[0], a[0], b[0], mask)
        for k in range(1, len(a)):
            if in_place:  # AddC(carry, dst, a, b, carry, mask): carry in and out one register
                rest(carry, out[k], a[k], b[k], carry, mask)
            else:
                nxt = Reg.MaskReg()
                rest(nxt, out[k], a[k], b[k], carry, mask)
                carry = nxt
    return out, carry


def _check_chain(op, dtype, bits, a_nums, b_nums, mask, in_place):
    count = bits // 32
    out, carry = _chain(op, dtype, _limb_regs(dtype, a_nums, count), _limb_regs(dtype, b_nums, count), mask, in_place)
    active = list(mask.lanes(dtype))
    got = [O.from_limbs([int(r.numpy().view(np.uint32)[i]) for r in out]) for i in range(LANES)]
    oracle = O.multi_limb_add if op == "add" else O.multi_limb_sub
    want = [oracle(x, y, bits)[0] if m else 0 for x, y, m in zip(a_nums, b_nums, active, strict=True)]
    want_carry = [oracle(x, y, bits)[1] if m else 0 for x, y, m in zip(a_nums, b_nums, active, strict=True)]
    inputs = {"a": a_nums, "b": b_nums}
    O.assert_lanes(got, want, itemsize=bits // 8, inputs=inputs, what=f"{bits}-bit {op} ({dtype!r})")
    O.assert_lanes(carry.lanes(dtype).astype(np.uint8), want_carry, itemsize=1, inputs=inputs, what=f"{bits}-bit {op} carry out")


@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("bits", [64, 128, 256])
@given(data=st.data(), dtype=st.sampled_from(CARRY_TYPES))
def test_multi_limb_chain_matches_python_ints(op, bits, dtype, data):
    """A `bits`-bit add (sub) from Add(carry)+AddC (Sub+SubC) equals Python int arithmetic mod
    2**bits, its final carry the carry (no-borrow) bit; masked-off lanes give 0 and carry 0."""
    a_nums = data.draw(_numbers(bits), "a")
    b_nums = data.draw(_numbers(bits), "b")
    mask = data.draw(st.one_of(st.just(None), rst.masks(dtype, fill="noise")), "mask")
    if mask is None:
        mask = Reg.MaskReg.from_lanes(dtype, np.ones(LANES, bool))
    _check_chain(op, dtype, bits, a_nums, b_nums, mask, data.draw(st.booleans(), "in_place"))


FULL = Reg.MaskReg.from_bits(np.ones(256, bool))


@pytest.mark.parametrize("bits", [64, 128, 256])
@pytest.mark.parametrize("dtype", CARRY_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("in_place", [False, True])
def test_full_length_ripples(bits, dtype, in_place):
    """all-ones + 1 ripples a carry through every limb to 0 with carry out 1; 0 - 1 ripples a
    borrow to all-ones with carry 0 (a borrow); plus the neighbours of both."""
    top = (1 << bits) - 1
    cases = [(top, 1), (top, top), (top - 1, 1), (top, 0), (1 << (bits - 1), 1 << (bits - 1)), (0, 0)]
    a_nums = [cases[i % len(cases)][0] for i in range(LANES)]
    b_nums = [cases[i % len(cases)][1] for i in range(LANES)]
    _check_chain("add", dtype, bits, a_nums, b_nums, FULL, in_place)
    sub_cases = [(0, 1), (0, top), (1, 2), (top, top), (1 << 32, 1), (top, 0)]
    a_nums = [sub_cases[i % len(sub_cases)][0] for i in range(LANES)]
    b_nums = [sub_cases[i % len(sub_cases)][1] for i in range(LANES)]
    _check_chain("sub", dtype, bits, a_nums, b_nums, FULL, in_place)
    # the two headline ripples, checked literally
    out, carry = _chain(
        "add", dtype, _limb_regs(dtype, [top] * LANES, bits // 32), _limb_regs(dtype, [1] * LANES, bits // 32), FULL, in_place
    )
    assert all(not r.numpy().any() for r in out) and carry.lanes(dtype).all()
    out, carry = _chain(
        "sub", dtype, _limb_regs(dtype, [0] * LANES, bits // 32), _limb_regs(dtype, [1] * LANES, bits // 32), FULL, in_place
    )
    assert all((r.numpy().view(np.uint32) == O.M32).all() for r in out) and not carry.lanes(dtype).any()
