"""A loop whose plain loads and stores meet goes in order before any batched op runs (vf/addresses.py): the loops that
must (stores meeting later or earlier loads, at offsets, counting down, rows written twice) and the ones that must not
(rows apart, in place, interleaved), and loops whose addresses are not known up front (a name the body assigns, a mask
of some lanes, a mask a call may write, an access of another form), which attempt as before. Every run's
bits are checked against the in-order run and an oracle of Python ints (the iterations in order, each lane doubled and
wrapped to int32), the decision through `rs.explain` and the batched backends made, and the judgement against a brute
force over the rows' elements (docs/decisions/loops.md#up-front-hazards).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim._src.vf import batched, loops
from regsim._src.vf.loops import UP_FRONT, forget_hazards
from regsim.errors import VfContextError

LANES = 64  #: int32 lanes a register
SIZE = 128 * LANES  #: int32 elements of the test tensor


@rs.simd_vf
def shifted(p: rs.UbPtr[rs.int32], n: int, a0: int, a1: int, b0: int, b1: int) -> None:
    """Row i: the register at p + a0 + i * a1, doubled, stored at p + b0 + i * b1 (elements)."""
    x = Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    for i in range(n):
        Reg.LoadAlign(x, p + a0 + i * a1)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + b0 + i * b1, x, m)


@rs.simd_vf
def shifted_down(p: rs.UbPtr[rs.int32], n: int, a0: int, a1: int, b0: int, b1: int) -> None:
    """`shifted` with i counting down from n - 1."""
    x = Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    for i in range(n - 1, -1, -1):
        Reg.LoadAlign(x, p + a0 + i * a1)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + b0 + i * b1, x, m)


@rs.simd_vf
def every_other(p: rs.UbPtr[rs.int32], n: int, a0: int, a1: int, b0: int, b1: int) -> None:
    """`shifted` with i = 1, 3, 5, ... (n iterations)."""
    x = Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    for i in range(1, 2 * n, 2):
        Reg.LoadAlign(x, p + a0 + i * a1)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + b0 + i * b1, x, m)


@rs.simd_vf
def offset_in_body(p: rs.UbPtr[rs.int32], n: int, a0: int, a1: int, b0: int, b1: int) -> None:
    """`shifted` with the store's offset a name the body assigns: nothing known before the body runs."""
    x = Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    for i in range(n):
        k = b0 + i * b1
        Reg.LoadAlign(x, p + a0 + i * a1)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + k, x, m)


@rs.simd_vf
def some_lanes(p: rs.UbPtr[rs.int32], n: int, a0: int, a1: int, b0: int, b1: int) -> None:
    """`shifted` storing the first 32 lanes (a mask of some lanes: the bytes stored are not every row's)."""
    x = Reg.RegTensor(rs.int32)
    count = rs.Ref(32)
    m = Reg.UpdateMask(rs.int32, count)
    for i in range(n):
        Reg.LoadAlign(x, p + a0 + i * a1)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + b0 + i * b1, x, m)


@rs.simd_vf
def mask_written(p: rs.UbPtr[rs.int32], n: int, a0: int, a1: int, b0: int, b1: int) -> None:
    """`shifted` whose store's mask a Compare in the body writes, through another name (every lane again: x == x)."""
    x = Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    also = m
    for i in range(n):
        Reg.LoadAlign(x, p + a0 + i * a1)
        Reg.Compare(also, x, x, m)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + b0 + i * b1, x, m)


@rs.simd_vf
def addr_reg(p: rs.UbPtr[rs.int32], n: int, a0: int, a1: int, b0: int, b1: int) -> None:
    """`shifted` loading through an AddrReg of the loop index (an access of another form: not judged)."""
    x = Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    for i in range(n):
        at = Reg.CreateAddrReg(rs.int32, i, a1)
        Reg.LoadAlign(x, p + a0, at)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + b0 + i * b1, x, m)


def wrap(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def order(kernel: Callable[..., None], n: int) -> range:
    return range(n - 1, -1, -1) if kernel is shifted_down else range(1, 2 * n, 2) if kernel is every_other else range(n)


def oracle(start: list[int], kernel: Callable[..., None], n: int, a0: int, a1: int, b0: int, b1: int) -> list[int]:
    out = list(start)
    lanes = 32 if kernel is some_lanes else LANES
    for i in order(kernel, n):
        row = out[a0 + i * a1 : a0 + i * a1 + LANES]
        out[b0 + i * b1 : b0 + i * b1 + lanes] = [wrap(2 * v) for v in row[:lanes]]
    return out


def meet(kernel: Callable[..., None], n: int, a0: int, a1: int, b0: int, b1: int, loads: bool = True) -> bool:
    """Brute force: a store's elements in one iteration are another iteration's load's (`loads`) or store's."""
    loaded = {i: set(range(a0 + i * a1, a0 + i * a1 + LANES)) if loads else set() for i in order(kernel, n)}
    stores = {i: set(range(b0 + i * b1, b0 + i * b1 + LANES)) for i in order(kernel, n)}
    return any(stores[i] & (loaded[j] | stores[j]) for i in stores for j in stores if i != j)


@pytest.fixture
def backends(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The batched backends made (the attempts that ran batched ops)."""
    made: list[int] = []

    class Counting(batched.BatchedBackend):
        def __init__(self, *args: Any) -> None:
            made.append(1)
            super().__init__(*args)

    monkeypatch.setattr(loops, "BatchedBackend", Counting)
    yield made


def run(kernel: Callable[..., None], n: int, a0: int, a1: int, b0: int, b1: int, seed: int = 0) -> str:
    """`kernel` over a fresh tensor in order and in the default mode (a site's first run: `forget_hazards`): both
    give the oracle's bits; what rs.explain says of the default run."""
    rng = np.random.default_rng(seed)
    start = rng.integers(-(2**31), 2**31, SIZE, dtype=np.int64).astype(np.int32)
    outs, text = [], ""
    for mode in ("sequential", "auto"):
        ub = rs.UnifiedBuffer(SIZE * 4)
        t = ub.alloc(rs.int32, SIZE)
        t.set(start)
        forget_hazards()
        with rs.configure(loops=mode):
            if mode == "auto":
                text = rs.explain(kernel, t.GetPhyAddr(), n, a0, a1, b0, b1)
            else:
                kernel(t.GetPhyAddr(), n, a0, a1, b0, b1)
        outs.append([int(v) for v in t.numpy()])
    assert outs[0] == outs[1] == oracle([int(v) for v in start], kernel, n, a0, a1, b0, b1)
    return text


#: (kernel, a0, a1, b0, b1) whose stores meet another iteration's loads or stores (n = 20)
MEETING = [
    pytest.param(shifted, 0, LANES, LANES, LANES, id="the next row loads what this one stores"),
    pytest.param(shifted, LANES, LANES, 0, LANES, id="the next row stores what this one loads"),
    pytest.param(shifted, 0, LANES, 3 * LANES, LANES, id="three rows on"),
    pytest.param(shifted, 0, LANES, 8, LANES, id="32 bytes on: into the next row's load"),
    pytest.param(shifted, 30 * LANES, -LANES, 31 * LANES, -LANES, id="rows going down"),
    pytest.param(shifted_down, 0, LANES, LANES, LANES, id="counting down"),
    pytest.param(shifted_down, LANES, LANES, 0, LANES, id="counting down, the other way"),
    pytest.param(every_other, 0, LANES // 2, LANES // 2, LANES // 2, id="every other index, a row on"),
    pytest.param(shifted, 24 * LANES, LANES, 0, LANES // 2, id="stores half a row apart: written twice"),
    pytest.param(shifted, 24 * LANES, LANES, 0, 0, id="one row stored by every iteration"),
]


@pytest.mark.parametrize(("kernel", "a0", "a1", "b0", "b1"), MEETING)
def test_meeting_rows_run_in_order_before_any_batched_op(
    kernel: Callable[..., None], a0: int, a1: int, b0: int, b1: int, backends: list[int]
) -> None:
    text = run(kernel, 20, a0, a1, b0, b1)
    assert meet(kernel, 20, a0, a1, b0, b1)
    assert backends == [], text
    assert "sequential (20 iterations)" in text and UP_FRONT in text, text
    assert batched.READS_ANOTHERS in text or batched.WRITTEN_TWICE in text, text
    # (a store's own rows first, as the attempt checks them)
    assert (batched.WRITTEN_TWICE in text) == meet(kernel, 20, a0, a1, b0, b1, loads=False), text


#: (kernel, a0, a1, b0, b1) whose rows never meet another iteration's (n = 20)
APART = [
    pytest.param(shifted, 0, LANES, 24 * LANES, LANES, id="apart"),
    pytest.param(shifted, 0, LANES, 0, LANES, id="in place"),
    pytest.param(shifted, 0, 2 * LANES, LANES, 2 * LANES, id="interleaved"),
    pytest.param(shifted_down, LANES, LANES, LANES, LANES, id="in place counting down"),
    pytest.param(every_other, 0, LANES // 2, 0, LANES // 2, id="every other index, in place"),
]


@pytest.mark.parametrize(("kernel", "a0", "a1", "b0", "b1"), APART)
def test_rows_apart_batch(kernel: Callable[..., None], a0: int, a1: int, b0: int, b1: int, backends: list[int]) -> None:
    text = run(kernel, 20, a0, a1, b0, b1)
    assert not meet(kernel, 20, a0, a1, b0, b1)
    assert backends == [1] and "batched (20 iterations)" in text, text


@pytest.mark.parametrize("kernel", [offset_in_body, some_lanes, mask_written, addr_reg])
def test_addresses_not_known_up_front_attempt_as_before(kernel: Callable[..., None], backends: list[int]) -> None:
    """Stores meeting the next row's loads: no judgement up front; the attempt's own checks send the loop in order (the
    hazard, or for the mask a Compare writes the mask it reads before the body writes it)."""
    text = run(kernel, 20, 0, LANES, LANES, LANES)
    assert backends == [1], text
    assert "sequential (20 iterations)" in text and UP_FRONT not in text, text
    why = "a MaskReg is read before the loop body writes it" if kernel is mask_written else batched.READS_ANOTHERS
    assert why in text, text


def test_a_site_that_batched_is_not_judged_until_a_hazard_or_forget_hazards(monkeypatch: pytest.MonkeyPatch) -> None:
    """A site whose latest run batched attempts at once (no look at its addresses); a hazard its attempt finds, or
    `forget_hazards`, makes its next first attempt judged again."""
    looks: list[str] = []
    judge = loops.addresses.judge

    def counting(*args: Any) -> str:
        looks.append(judge(*args))
        return looks[-1]

    monkeypatch.setattr(loops.addresses, "judge", counting)
    ub = rs.UnifiedBuffer(SIZE * 4)
    t = ub.alloc(rs.int32, SIZE)
    t.set(np.zeros(SIZE, np.int32))
    p = t.GetPhyAddr()
    forget_hazards()
    texts = [rs.explain(shifted, p, 20, *args) for args in [(0, LANES, 24 * LANES, LANES)] * 2]
    assert looks == [""] and all("batched" in x for x in texts), texts  # (the second run not judged)
    text = rs.explain(shifted, p, 20, 0, LANES, LANES, LANES)  # (attempted: the hazard found by the attempt)
    assert UP_FRONT not in text and batched.READS_ANOTHERS in text and looks == [""], text
    text = rs.explain(shifted, p, 20, 0, LANES, LANES, LANES)  # (the prediction's run)
    assert "in order without a batched attempt" in text and looks == [""], text
    text = rs.explain(shifted, p, 20, 0, LANES, LANES, LANES)  # (judged: the hazard known up front)
    assert UP_FRONT in text and looks == ["", batched.READS_ANOTHERS], text
    forget_hazards()
    text = rs.explain(shifted, p, 20, 0, LANES, 24 * LANES, LANES)
    assert "batched" in text and looks == ["", batched.READS_ANOTHERS, ""], text


def test_forced_batched_and_short_loops_are_not_judged(backends: list[int]) -> None:
    """Only the "auto" mode judges: a forced "batched" loop attempts (and raises naming the hazard its attempt
    found); a loop of fewer than batch_min_iterations runs in order for that."""
    ub = rs.UnifiedBuffer(SIZE * 4)
    t = ub.alloc(rs.int32, SIZE)
    t.set(np.zeros(SIZE, np.int32))
    forget_hazards()
    with rs.configure(loops="batched"), pytest.raises(VfContextError, match=batched.READS_ANOTHERS):
        shifted(t.GetPhyAddr(), 20, 0, LANES, LANES, LANES)
    assert backends == [1]
    with rs.configure(batch_min_iterations=16):
        text = rs.explain(shifted, t.GetPhyAddr(), 4, 0, LANES, LANES, LANES)
    assert "fewer than 16 iterations" in text and backends == [1], text


#: a step an index in 32-byte units: a row (8), half a row, none, or any up to a row
STEPS = st.sampled_from([-8, -4, 0, 4, 8]) | st.integers(-8, 8)


@settings(max_examples=200, deadline=None)
@given(
    kernel=st.sampled_from([shifted, shifted_down, every_other]),
    n=st.integers(16, 24),
    a0=st.integers(-96, 96),
    a1=STEPS,
    b0=st.integers(-96, 96),
    b1=STEPS,
)
def test_the_judgement_is_the_brute_force_where_the_steps_agree(
    kernel: Callable[..., None], n: int, a0: int, a1: int, b0: int, b1: int
) -> None:
    """Offsets from the middle of the tensor and steps an index in 32-byte units (8 int32 elements; every row inside
    the tensor): bits as in order; an up-front hazard only where the rows meet, and where the load's and the store's
    steps agree, exactly there."""
    a0, a1, b0, b1 = SIZE // 2 + 8 * a0, 8 * a1, SIZE // 2 + 8 * b0, 8 * b1
    text = run(kernel, n, a0, a1, b0, b1, seed=n)
    judged = UP_FRONT in text
    assert not judged or meet(kernel, n, a0, a1, b0, b1), text
    if a1 == b1:
        assert judged == meet(kernel, n, a0, a1, b0, b1), text


@rs.simd_vf
def mask_made_after(p: rs.UbPtr[rs.int32], n: int) -> None:
    """A store's mask the VF makes only after the loop: unbound when the loop starts (the names' values not read)."""
    x = Reg.RegTensor(rs.int32)
    for i in range(n):
        Reg.LoadAlign(x, p + i * LANES)
        Reg.StoreAlign(p + (i + 1) * LANES, x, m)  # noqa: F821 (`m` is made below: the loop raises)
    m = Reg.CreateMask(rs.int32)  # noqa: F841


def test_a_name_unbound_when_the_loop_starts_is_raised_by_the_body_in_either_mode() -> None:
    raised = []
    for mode in ("sequential", "auto"):
        ub = rs.UnifiedBuffer(SIZE * 4)
        t = ub.alloc(rs.int32, SIZE)
        t.set(np.arange(SIZE, dtype=np.int32))
        forget_hazards()
        with rs.configure(loops=mode), pytest.raises(UnboundLocalError) as info:
            mask_made_after(t.GetPhyAddr(), 20)
        raised.append((str(info.value), [int(v) for v in t.numpy()]))
    assert raised[0] == raised[1]
