"""Batched VF loops over post-update pointers, AddrRegs of the loop index, and bodies whose loads,
stores and register writes interleave (loads kept as views of the UB, stores made when the loop
is kept): the same bits as running the iterations in order.

Each kernel runs from identical starting states under `loops="sequential"` and `loops="auto"`
(`tests/loop_support.py::run_both`): UB bytes, written flags, Ref values, errors (class, message,
partial UB state) must be identical. Where pointers end is observed by a store through them after
the loop. Hypothesis builds random loop programs mixing every address form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from loop_support import failed_attempts, run_both
from loop_support import hows as _both

import regsim as rs
from regsim import Reg

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE
U32 = rs.uint32


def _world(
    kernel: Callable[..., None], sizes: tuple[int, ...], count: int = 10**6, dtype: Any = U32
) -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
    """A UB with `dtype` tensors of `sizes` (random contents, the last one left never-written),
    and a run of `kernel(*pointers, Ref(count))` returning the Ref's value."""
    ub = rs.UnifiedBuffer(64 * 1024)
    tensors = [ub.alloc(dtype, n) for n in sizes]
    rng = np.random.default_rng(len(sizes) * 7 + count % 1000)
    for t in tensors[:-1]:
        t.set(rng.integers(0, 2**63, t.GetSize(), dtype=np.uint64).astype(dtype.np_dtype))
    ref = rs.Ref(count)

    def run() -> int:
        kernel(*(t.GetPhyAddr() for t in tensors), ref)
        return int(ref.value)

    return ub, run


# --- post-update pointers ----------------------------------------------------------------------------
@pytest.mark.parametrize("iters", [2, 3, 8])
@pytest.mark.parametrize("stride", [64, 128, -64])
def test_post_update_loads_and_stores_batch(iters: int, stride: int) -> None:
    @rs.simd_vf
    def kernel(a: rs.UbPtr[U32], b: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        x, y = Reg.RegTensor(U32), Reg.RegTensor(U32)
        carry = Reg.MaskReg()
        pa = a + 64 * 12  # room for negative strides
        pd = d + 64 * 12
        pc = d + 64 * 30
        for _ in range(iters):
            m = Reg.UpdateMask(U32, n)
            Reg.LoadAlign(x, pa, stride, post_mode=UPDATE)
            Reg.LoadAlign(y, b, 64, post_mode=UPDATE)
            Reg.Add(carry, x, x, y, m)
            Reg.StoreAlign(pd, x, stride, m, post_mode=UPDATE)
            Reg.StoreAlign(pc, carry, 32, post_mode=UPDATE)  # a MaskReg's post-update offset is in bytes
        full = Reg.CreateMask(U32)
        Reg.StoreAlign(pd, y, full)  # where the pointers end
        Reg.StoreAlign(pc, carry)

    for count in (10**6, 300):
        decisions, _ = _both(lambda count=count: _world(kernel, (64 * 24, 64 * 10, 64 * 40), count))
        assert decisions == ["batched"] if iters > 2 else decisions == ["sequential"]


def test_a_pointer_posted_twice_per_iteration_and_derived_before_its_first_post_update() -> None:
    @rs.simd_vf
    def kernel(a: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        x, y, z = Reg.RegTensor(U32), Reg.RegTensor(U32), Reg.RegTensor(U32)
        m = Reg.CreateMask(U32)
        pa, pd = a.copy(), d.copy()
        for i in range(5):
            q = pa + 128  # derived from the pointer before it moves in this iteration
            Reg.LoadAlign(x, pa, 64, post_mode=UPDATE)
            Reg.LoadAlign(y, pa, 128, post_mode=UPDATE)  # 192 elements per iteration in all
            Reg.Add(x, x, y, m)
            Reg.StoreAlign(pd + i * 64, x, m)
            Reg.LoadAlign(y, q)
            Reg.LoadAlign(z, a + 64, 64, post_mode=UPDATE)  # a pointer the body makes, posted
            Reg.Add(y, y, z, m)
            Reg.StoreAlign(pd + 64 * 8 + i * 64, y, 64, m, post_mode=UPDATE)  # one per iteration, posted
        Reg.LoadAlign(x, pa)
        Reg.StoreAlign(pd + 64 * 5, x, m)

    decisions, _ = _both(lambda: _world(kernel, (64 * 20, 64 * 16)))
    assert decisions == ["batched"]
    _, run = _world(kernel, (64 * 20, 64 * 16))
    text = rs.explain(run)
    assert "iteration 0 ran in order to learn the post-update strides (+768 B per iteration)" in text, text


def test_post_update_strides_that_overlap_or_fail_run_in_order_with_the_same_result() -> None:
    @rs.simd_vf
    def in_place(a: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        x = Reg.RegTensor(U32)
        m = Reg.CreateMask(U32)
        pa, pb = a.copy(), a + 32  # the store lands half a register on from the load: a dependence
        for _ in range(6):
            Reg.LoadAlign(x, pa, 32, post_mode=UPDATE)
            Reg.Add(x, x, x, m)
            Reg.StoreAlign(pb, x, 32, m, post_mode=UPDATE)

    @rs.simd_vf
    def runs_off_the_end(a: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        x = Reg.RegTensor(U32)
        m = Reg.UpdateMask(U32, n)
        pd = d.copy()
        for _ in range(6):
            Reg.LoadAlign(x, a, 64, post_mode=UPDATE)
            Reg.StoreAlign(pd, x, 64, m, post_mode=UPDATE)  # d has 4 registers: iteration 4 fails

    assert _both(lambda: _world(in_place, (64 * 12, 64)))[0] == ["sequential"]
    assert _both(lambda: _world(runs_off_the_end, (64 * 8, 64 * 4), 200))[0] == ["sequential"]


# --- AddrRegs of the loop index --------------------------------------------------------------------------
@pytest.mark.parametrize("count", [0, 130, 10**6])
def test_create_addr_reg_of_the_loop_index_batches(count: int) -> None:
    @rs.simd_vf
    def kernel(a: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        x = Reg.RegTensor(U32)
        areg = Reg.CreateAddrReg(U32, 0, 64)
        for i in range(6):
            areg = Reg.CreateAddrReg(U32, i, 64, 1, 8)  # (i * 64 + 8) elements
            m = Reg.UpdateMask(U32, n)
            Reg.LoadAlign(x, a, areg)
            Reg.Adds(x, x, 3, m)
            Reg.StoreAlign(d, x, areg, m)
        Reg.StoreAlign(d + 64, x, areg, Reg.CreateMask(U32))  # the last iteration's AddrReg

    decisions, _ = _both(lambda: _world(kernel, (64 * 8, 64 * 8), count))
    assert decisions == ["batched"]


# --- loads, stores and register writes interleaved in one body ----------------------------------------------
def test_loads_see_the_ub_as_the_iteration_left_it() -> None:
    @rs.simd_vf
    def kernel(a: rs.UbPtr[U32], b: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        x, y, z = Reg.RegTensor(U32), Reg.RegTensor(U32), Reg.RegTensor(U32)
        m = Reg.CreateMask(U32)
        for i in range(7):
            Reg.LoadAlign(x, a + i * 64)  # x: a view of a's bytes ...
            Reg.LoadAlign(y, b + i * 64)
            Reg.StoreAlign(a + i * 64, y, m)  # ... which this store overwrites: x keeps the old ones
            Reg.StoreAlign(d + i * 64, x, m)
            Reg.LoadAlign(z, a + i * 64)  # reads this iteration's store
            Reg.Add(x, x, z, m)  # x written after a store that read it
            Reg.StoreAlign(d + 64 * 8 + i * 64, x, m)
            Reg.StoreAlign(b + i * 64, x, m)
        Reg.StoreAlign(d + 64 * 16, x, m)  # the last iteration's registers
        Reg.StoreAlign(d + 64 * 17, y, m)
        Reg.StoreAlign(d + 64 * 18, z, m)

    decisions, _ = _both(lambda: _world(kernel, (64 * 8, 64 * 8, 64 * 20)))
    assert decisions == ["batched"]


# --- random loop programs ----------------------------------------------------------------------------------
REGS = ("x", "y", "z")
ADDRESS = st.one_of(
    st.tuples(st.just("affine"), st.sampled_from("abd"), st.sampled_from([0, 8, 64]), st.sampled_from([64, 128, 8, -64, 0])),
    st.tuples(st.just("post"), st.sampled_from(["pa", "pd"]), st.just(0), st.sampled_from([64, 128, 32, -64, 0])),
    st.tuples(st.just("areg"), st.sampled_from("abd"), st.sampled_from([0, 8]), st.sampled_from([64, 128, 0])),
)
STATEMENT = st.one_of(
    st.tuples(st.just("load"), st.sampled_from(REGS), ADDRESS),
    st.tuples(st.just("store"), st.sampled_from(REGS), ADDRESS),
    st.tuples(st.just("add"), st.sampled_from(REGS), st.sampled_from(REGS), st.sampled_from(REGS)),
    st.tuples(st.just("merge"), st.sampled_from(REGS), st.sampled_from(REGS), st.sampled_from(REGS)),
    st.tuples(st.just("carry"), st.sampled_from(REGS), st.sampled_from(REGS), st.sampled_from(REGS)),
    st.tuples(st.just("store_carry"), st.sampled_from(["pd", "pa"]), st.sampled_from([32, 64, 0])),
)


@st.composite
def programs(draw: st.DrawFn, two: bool = False) -> dict[str, Any]:
    """A loop of random statements over three registers, a carry MaskReg, and addresses of every
    form: `t + i * stride + off`, post-update pointers (strides overlapping, negative, 0) and
    AddrRegs of the loop index; tails from an UpdateMask; small tensors, so that some programs
    fail at some iteration."""
    return {
        "iters": draw(st.integers(2, 7)),
        "count": draw(st.integers(0, 64 * 7)),
        "body": draw(
            st.lists(STATEMENT, min_size=1, max_size=7).filter(lambda b: not two or all("carry" not in s[0] for s in b))
        ),
        "two": two,  # uint64 in two registers, kept as whole elements while the loop runs
        "loads_first": draw(st.booleans()),  # each register loaded first: more loops batch
        "d_size": draw(st.sampled_from([64 * 24, 64 * 6])),
    }


def _program_world(spec: dict[str, Any]) -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
    body, iters = spec["body"], spec["iters"]
    dtype, trait = (rs.uint64, Reg.RegTraitNumTwo) if spec["two"] else (U32, Reg.RegTraitNumOne)

    @rs.simd_vf
    def kernel(a: rs.UbPtr[Any], b: rs.UbPtr[Any], d: rs.UbPtr[Any], n: rs.Ref[int]) -> None:
        regs = {r: Reg.RegTensor(dtype, trait) for r in REGS}
        for k, r in enumerate(REGS):
            Reg.LoadAlign(regs[r], b + 64 * k)
        carry = Reg.MaskReg()
        full = Reg.CreateMask(dtype, trait=trait)
        if not spec["two"]:
            Reg.Add(carry, regs["x"], regs["x"], regs["y"], full)
        bases = {"a": a + 64 * 10, "b": b, "d": d + 64 * (3 if spec["d_size"] > 64 * 6 else 0)}
        posted = {"pa": a + 64 * 12, "pd": d + 64 * (12 if spec["d_size"] > 64 * 6 else 2)}
        for i in range(iters):
            m = Reg.UpdateMask(dtype, n, trait=trait)
            if spec["loads_first"]:
                for k, r in enumerate(REGS):
                    Reg.LoadAlign(regs[r], a + i * 192 + 64 * k)
            for s in body:
                if s[0] in ("load", "store"):
                    form, where, off, stride = s[2]
                    reg = regs[s[1]]
                    if form == "affine":
                        p = bases[where] + i * stride + off
                        Reg.LoadAlign(reg, p) if s[0] == "load" else Reg.StoreAlign(p, reg, m)
                    elif form == "post" and s[0] == "load":
                        Reg.LoadAlign(reg, posted[where], stride, post_mode=UPDATE)
                    elif form == "post":
                        Reg.StoreAlign(posted[where], reg, stride, m, post_mode=UPDATE)
                    else:
                        areg = Reg.CreateAddrReg(dtype, i, stride, 1, off)
                        Reg.LoadAlign(reg, bases[where], areg) if s[0] == "load" else Reg.StoreAlign(bases[where], reg, areg, m)
                elif s[0] == "add":
                    Reg.Add(regs[s[1]], regs[s[2]], regs[s[3]], m)
                elif s[0] == "merge":
                    Reg.Add(regs[s[1]], regs[s[2]], regs[s[3]], m, mode=Reg.MaskMergeMode.MERGING)
                elif s[0] == "carry":
                    Reg.Add(carry, regs[s[1]], regs[s[2]], regs[s[3]], m)
                else:
                    Reg.StoreAlign(posted[s[1]], carry, s[2], post_mode=UPDATE)
        for k, r in enumerate(REGS):  # the registers and pointers as the loop left them
            Reg.StoreAlign(a + 64 * k, regs[r], full)
        if not spec["two"]:
            Reg.StoreAlign(a + 64 * 3, carry)
        Reg.StoreAlign(posted["pd"], regs["x"], full)
        Reg.StoreAlign(posted["pa"], regs["y"], full)

    return _world(kernel, (64 * 30, 64 * 8, spec["d_size"]), spec["count"], dtype)


@given(programs())
def test_random_loop_programs_agree_between_modes(spec: dict[str, Any]) -> None:
    _both(lambda: _program_world(spec))


@settings(max_examples=30)
@given(programs(two=True))
@example(  # a post-update store's provenance, in a later read's error: its mask of all the tensor's 64 lanes in both modes
    {
        "iters": 3,
        "count": 65,
        "body": [("store", "x", ("post", "pd", 0, -64)), ("load", "x", ("affine", "d", 0, 64))],
        "two": True,
        "loads_first": True,
        "d_size": 1536,
    }
)
def test_random_two_register_loop_programs_agree_between_modes(spec: dict[str, Any]) -> None:
    _both(lambda: _program_world(spec))


def test_a_scalar_ub_access_in_the_body_runs_the_loop_in_order() -> None:
    @rs.simd_vf
    def kernel(a: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        x = Reg.RegTensor(U32)
        m = Reg.CreateMask(U32)
        for i in range(4):
            Reg.LoadAlign(x, a + i * 64)
            Reg.StoreAlign(d + i * 64, x, m)
            Reg.Adds(x, x, d[0], m)  # what iteration 0 stored
            Reg.StoreAlign(d + 64 * 4 + i * 64, x, m)

    decisions, _ = _both(lambda: _world(kernel, (64 * 4, 64 * 8)))
    assert decisions == ["sequential"]
    _, run = _world(kernel, (64 * 4, 64 * 8))
    assert "UbPtr[] is a scalar UB access inside the loop" in rs.explain(run)


# --- accumulators: the last row alone unless the body reads the others ---------------------------------------
@pytest.mark.parametrize("reads", ["never", "stored", "source_overwritten"])
@pytest.mark.parametrize("mode", [Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING], ids=lambda m: m.name)
@pytest.mark.parametrize("count", [64 * 6, 300])
def test_accumulators_give_the_in_order_bits_however_the_body_reads_them(reads: str, mode: Reg.MaskMergeMode, count: int) -> None:
    @rs.simd_vf
    def kernel(a: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        acc, x, y = Reg.RegTensor(U32), Reg.RegTensor(U32), Reg.RegTensor(U32)
        full = Reg.CreateMask(U32)
        Reg.LoadAlign(acc, a + 64 * 6)
        for i in range(6):
            m = Reg.UpdateMask(U32, n)
            Reg.LoadAlign(x, a + i * 64)
            Reg.Add(acc, acc, x, m, mode=mode)
            if reads == "stored":
                Reg.StoreAlign(d + i * 64, acc, full)
            elif reads == "source_overwritten":
                Reg.Adds(y, x, 1, full)
                Reg.StoreAlign(a + i * 64, y, full)  # the bytes the sum read ...
                Reg.LoadAlign(y, a + i * 64)  # ... written before the sum is computed
                Reg.StoreAlign(d + i * 64, y, full)
                Reg.StoreAlign(d + 64 * 7 + i * 64, acc, full)  # the sums as they were
        Reg.StoreAlign(d + 64 * 6, acc, full)

    decisions, _ = _both(lambda: _world(kernel, (64 * 7, 64 * 14), count))
    assert decisions == ["batched"]


def test_a_pointer_an_inner_loop_post_updates_is_carried_by_the_outer_loop() -> None:
    @rs.simd_vf
    def kernel(a: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int]) -> None:
        x = Reg.RegTensor(U32)
        m = Reg.CreateMask(U32)
        pa = a.copy()
        for i in range(4):
            for j in range(3):  # moves pa by 3 registers per outer iteration: loads only
                Reg.LoadAlign(x, pa, 64, post_mode=UPDATE)
                Reg.StoreAlign(d + i * 192 + j * 64, x, m)

    decisions, _ = _both(lambda: _world(kernel, (64 * 12, 64 * 12)))
    assert decisions[-1] == "batched"


def test_mask_stores_packed_from_lanes_have_the_bit_layout() -> None:
    """A mask an op wrote stays lanes in a batched loop; a store packs them directly. Every group
    pattern of every width against packing the bits of the MaskReg layout."""
    import itertools

    from regsim._src.vf.batched import _lanes_to_bits, _pack_lanes

    rng = np.random.default_rng(0)
    for width in (1, 2, 4, 8):
        for pattern in itertools.product([0, 1], repeat=width):
            lanes = rng.integers(0, 2, (5, 256 // width)).astype(np.bool_)
            want = np.packbits(_lanes_to_bits(lanes, bytes(pattern)), axis=-1, bitorder="little")
            assert np.array_equal(_pack_lanes(lanes, bytes(pattern)), want), (width, pattern)


# --- what a loop's site remembers per static signature ---------------------------------------------------
def test_a_loop_remembers_per_signature_that_it_post_updates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first run finds the post-update with a batched attempt (PostUpdate), then peels iteration 0;
    later runs of the same static signature peel at once, with the same bits and the same explanation; a
    signature whose body post-updates nothing (`post` False) still makes its own batched attempt."""

    @rs.simd_vf
    def kernel(a: rs.UbPtr[U32], d: rs.UbPtr[U32], n: rs.Ref[int], post: bool = True) -> None:
        x = Reg.RegTensor(U32)
        m = Reg.CreateMask(U32)
        pa, pd = a.copy(), d.copy()
        for i in range(5):
            if post:
                Reg.LoadAlign(x, pa, 64, post_mode=UPDATE)
            else:
                Reg.LoadAlign(x, a + i * 64)
            Reg.Add(x, x, x, m)
            Reg.StoreAlign(pd + i * 64, x, m)

    failed = failed_attempts(monkeypatch)
    runs = []
    for post in (True, True, False, True, False):
        failed.clear()
        decisions, _ = run_both(lambda post=post: _world(lambda *args: kernel(*args, post), (64 * 6, 64 * 6)))
        runs.append((post, [str(d) for d in decisions], list(failed)))
    first, again, plain, third, plain_again = runs
    assert first[2] == ["PostUpdate"] and again[2] == [] and third[2] == []
    assert first[1] == again[1] == third[1] and "iteration 0 ran in order" in first[1][0]
    assert plain[2] == plain_again[2] == [] and "iteration 0" not in plain[1][0] and "batched" in plain[1][0]


def test_a_loop_remembers_per_signature_that_its_body_runs_in_order_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body calling an op with no batching rule: the first run's attempt stops there; later runs of the
    same signature run in order at once, for the same reason, with the in-order bits."""

    @rs.simd_vf
    def kernel(a: rs.UbPtr[rs.uint16], d: rs.UbPtr[rs.uint16], n: rs.Ref[int]) -> None:
        x = Reg.RegTensor(rs.uint16)
        m = Reg.CreateMask(rs.uint16)
        for i in range(4):
            Reg.LoadAlign(x, a + i * 128)
            Reg.StoreAlign(d + i * 64, x, m, dist=Reg.StoreDist.DIST_PACK_B16)

    failed = failed_attempts(monkeypatch)
    whys = []
    for _ in range(3):
        failed.clear()
        decisions, _ = run_both(lambda: _world(kernel, (128 * 4, 64 * 4), dtype=rs.uint16))
        whys.append(([d.how for d in decisions], [d.why for d in decisions], list(failed)))
    assert whys[0][2] == ["InOrderOnly"] and whys[1][2] == whys[2][2] == []
    assert whys[0][:2] == whys[1][:2] == whys[2][:2] and whys[0][0] == ["sequential"] and "runs in order only" in whys[0][1][0]
