"""Small VF loops in the default mode, and what a loop's site remembers from one run to the next.

- A loop with a post-update pointer (iteration 0 runs in order first, to learn the stride) batches in the "auto" mode
  only when a quarter more than `batch_min_iterations` iterations follow iteration 0; shorter ones run in order, and
  `rs.explain` says why. A forced "batched" batches them all the same.
- A loop's site remembers per static signature of the VF's locals that its body post-updates (so a later run peels at
  once, without a batched attempt finding that out again). The verdict is forgotten when the signature changes (a
  dtype, a trip count, a mask pattern), is a site's own (a different function of the same name has its own), and holds
  nothing the data or the UB layout decide (a hazard between iterations is found again every run).

Every result is checked against per-lane Python ints, and each kernel runs alike under `loops="sequential"`
(`tests/loop_support.py::run_both`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from loop_support import failed_attempts, run_both

import regsim as rs
from regsim import Reg

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE
U32 = rs.uint32


def _doubled_post() -> Callable[..., None]:
    """A VF (its loop a site of its own each call): d = a + a, a register a repeat, through post-update loads and
    stores."""

    @rs.simd_vf
    def doubled_post(a: rs.UbPtr[Any], d: rs.UbPtr[Any], n: int, lanes: int) -> None:
        x = Reg.RegTensor(a.dtype)
        m = Reg.CreateMask(a.dtype)
        for _ in range(n):
            Reg.LoadAlign(x, a, lanes, post_mode=UPDATE)
            Reg.Add(x, x, x, m)
            Reg.StoreAlign(d, x, lanes, m, post_mode=UPDATE)

    return doubled_post


doubled_post = _doubled_post()


def _doubling(n: int, dtype: Any = U32, seed: int = 0) -> tuple[rs.UnifiedBuffer, Callable[[], Any], list[int]]:
    """A UB with a source of `n` registers of `dtype` and a destination; a run of `doubled_post` over them; the
    expected destination, per lane in Python ints (uint32: a + a mod 2**32; float32 values are small integers, so
    a + a is exact)."""
    lanes = 256 // dtype.np_dtype.itemsize
    ub = rs.UnifiedBuffer(64 * 1024)
    src, dst = ub.alloc(dtype, n * lanes), ub.alloc(dtype, n * lanes)
    rng = np.random.default_rng(seed)
    values = [int(v) for v in rng.integers(0, 2**32 if dtype is U32 else 2**20, n * lanes)]
    src.set(np.array(values, dtype.np_dtype))
    want = [(2 * v) % 2**32 for v in values]

    def run() -> Any:
        doubled_post(src.GetPhyAddr(), dst.GetPhyAddr(), n, lanes)
        return [int(v) for v in dst.numpy()]

    return ub, run, want


def _checked(n: int, dtype: Any = U32, seed: int = 0) -> list[str]:
    """Run `doubled_post` over `n` registers in both loop modes; check the result; the default mode's decisions."""
    made: list[list[int]] = []

    def make() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub, run, want = _doubling(n, dtype, seed)
        made.append(want)
        return ub, run

    decisions, result = run_both(make)
    assert result == made[-1]
    return [str(d) for d in decisions]


@pytest.mark.parametrize(
    ("few", "n", "how"),
    [(16, 16, "sequential"), (16, 20, "sequential"), (16, 21, "batched"), (8, 10, "sequential"), (8, 11, "batched")],
)
def test_auto_runs_a_short_post_update_loop_in_order_and_explains_why(few: int, n: int, how: str) -> None:
    with rs.configure(batch_min_iterations=few):
        for _ in range(2):  # the first run (a batched attempt meets the post-update) and the next (the site remembers)
            (decision,) = _checked(n)
            assert f": {how} ({n} iterations)" in decision, decision
            if how == "sequential":
                assert f"{n - 1} iterations after it are fewer than {few + few // 4}" in decision, decision
            else:
                assert "iteration 0 ran in order to learn the post-update strides" in decision, decision


def test_a_forced_batched_mode_batches_a_short_post_update_loop() -> None:
    _, run, want = _doubling(16)
    with rs.configure(loops="batched", batch_min_iterations=16):
        text = rs.explain(run)
        assert run() == want  # (run again: the stores of a second run land alike)
    assert ": batched (16 iterations)" in text, text


def test_the_site_remembers_a_post_update_per_signature_dtype_and_trip_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new dtype or trip count is a new signature: its first run finds the post-update with an attempt of its own;
    the signatures seen before peel at once."""
    failed = failed_attempts(monkeypatch)
    seen = []
    for dtype, n in [(U32, 5), (U32, 5), (rs.float32, 5), (rs.float32, 5), (U32, 6), (U32, 5), (rs.float32, 6)]:
        failed.clear()
        decisions = _checked(n, dtype)
        assert "iteration 0 ran in order" in decisions[0], decisions
        seen.append(failed.count("PostUpdate"))
    # run_both runs each twice (sequential first: no attempt), so a new signature's default run makes the one attempt
    assert seen == [1, 0, 1, 0, 1, 0, 1]


def test_a_short_loop_that_post_updated_before_runs_in_order_without_a_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once every run of a site so far post-updated, a loop of it too short to batch after iteration 0 runs in order at
    once, a new signature (another dtype) too: no batched attempt, no look at the VF's locals; rs.explain says so."""
    from regsim._src.vf import loops

    failed = failed_attempts(monkeypatch)
    looks: list[int] = []
    look = loops.LoopRun._look
    monkeypatch.setattr(loops.LoopRun, "_look", lambda self: (looks.append(1), look(self))[1])
    monkeypatch.setitem(globals(), "doubled_post", _doubled_post())  # (a site of its own, which `_doubling` runs)
    with rs.configure(batch_min_iterations=16):
        first = _checked(16)
        assert failed == ["PostUpdate"] and len(looks) == 1, (failed, looks)
        assert "every earlier run" not in first[0] and "15 iterations after it are fewer than 20" in first[0], first
        for dtype, n in [(U32, 16), (rs.float32, 16), (rs.float32, 20)]:
            (decision,) = _checked(n, dtype)
            assert f"{n - 1} iterations after it are fewer than 20" in decision, decision
            assert "every earlier run of this loop post-updated a pointer" in decision, decision
        assert failed == ["PostUpdate"] and len(looks) == 1, (failed, looks)
        (decision,) = _checked(21, rs.float32)  # (long enough: a signature of its own, looked at, peeled at once)
        assert ": batched (21 iterations)" in decision and len(looks) == 2, (decision, looks)


def test_a_different_function_of_the_same_name_has_its_own_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two VFs named alike, with the same parameters and locals: what one's loop remembers (it post-updates) is not the
    other's (its loop offsets the pointers: a plain batched attempt, no iteration in order)."""

    def plain() -> Callable[..., None]:
        @rs.simd_vf
        def doubled_post(a: rs.UbPtr[Any], d: rs.UbPtr[Any], n: int, lanes: int) -> None:
            x = Reg.RegTensor(a.dtype)
            m = Reg.CreateMask(a.dtype)
            for i in range(n):
                Reg.LoadAlign(x, a + i * lanes)
                Reg.Add(x, x, x, m)
                Reg.StoreAlign(d + i * lanes, x, m)

        return doubled_post

    other = plain()
    assert other.__name__ == doubled_post.__name__ and other is not doubled_post
    _checked(4)  # (the module's doubled_post: its site remembers the post-update)
    failed = failed_attempts(monkeypatch)
    lanes = 64
    ub = rs.UnifiedBuffer(64 * 1024)
    a, d = ub.alloc(U32, 4 * lanes), ub.alloc(U32, 4 * lanes)
    values = list(range(4 * lanes))
    a.set(np.array(values, np.uint32))
    text = rs.explain(other, a.GetPhyAddr(), d.GetPhyAddr(), 4, lanes)
    assert [int(v) for v in d.numpy()] == [2 * v for v in values]
    assert ": batched (4 iterations)" in text and "iteration 0" not in text, text
    assert failed == []


def _overlapping(shift: int) -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
    """`doubled_post` from a source into the same tensor `shift` registers on (0: a disjoint destination)."""
    n, lanes = 4, 64
    ub = rs.UnifiedBuffer(64 * 1024)
    t = ub.alloc(U32, (n + max(shift, 0)) * lanes)
    other = ub.alloc(U32, n * lanes)
    t.set(np.arange(t.GetSize(), dtype=np.uint32))

    def run() -> Any:
        src = t.GetPhyAddr()
        dst = other.GetPhyAddr() if shift == 0 else src + shift * lanes
        doubled_post(src, dst, n, lanes)
        return [int(v) for v in (other if shift == 0 else t).numpy()]

    return ub, run


def _in_order(shift: int) -> list[int]:
    """The in-order result of `_overlapping(shift)`, register by register in Python ints."""
    n, lanes = 4, 64
    if shift == 0:
        return [2 * v for v in range(n * lanes)]
    t = list(range((n + shift) * lanes))
    for r in range(n):
        for j in range(lanes):
            t[(r + shift) * lanes + j] = 2 * t[r * lanes + j] % 2**32
    return t


def test_the_ub_layout_is_checked_every_run_not_remembered() -> None:
    """One static signature, three layouts: disjoint (batched), overlapping (iteration i writes what i + 1 reads: in
    order), disjoint again (batched again: a hazard is the data's, not the signature's)."""
    hows = []
    for shift in (0, 1, 0):
        decisions, result = run_both(lambda shift=shift: _overlapping(shift))
        assert result == _in_order(shift)
        hows.append(decisions[0].how)
    assert hows == ["batched", "sequential", "batched"]


@rs.simd_vf
def masked_copy(a: rs.UbPtr[rs.uint32], d: rs.UbPtr[rs.uint32], n: int, pattern: Any) -> None:
    x = Reg.RegTensor(rs.uint32)
    m = Reg.CreateMask(rs.uint32, pattern=pattern)
    for i in range(n):
        Reg.LoadAlign(x, a + i * 64)
        Reg.StoreAlign(d + i * 64, x, m)


@pytest.mark.parametrize("patterns", [("VL8", "VL16", "ALL", "VL8")])
def test_a_changed_mask_changes_the_lanes_stored(patterns: tuple[str, ...]) -> None:
    """The same loop with other mask patterns (each a signature of its own, seen again at the end): each run stores
    exactly its pattern's first lanes of every register; the rest keep what the destination held."""
    n = 3
    for name in patterns:
        k = {"VL8": 8, "VL16": 16, "ALL": 64}[name]
        ub = rs.UnifiedBuffer(64 * 1024)
        a, d = ub.alloc(rs.uint32, n * 64), ub.alloc(rs.uint32, n * 64)
        a.set(np.arange(n * 64, dtype=np.uint32) + 1000)
        d.set(np.zeros(n * 64, np.uint32))
        text = rs.explain(masked_copy, a.GetPhyAddr(), d.GetPhyAddr(), n, getattr(Reg.MaskPattern, name))
        assert ": batched (3 iterations)" in text, text
        want = [1000 + r * 64 + j if j < k else 0 for r in range(n) for j in range(64)]
        assert [int(v) for v in d.numpy()] == want, name
