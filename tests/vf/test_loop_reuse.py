"""One loop site run again and again with different dynamic facts: what a batched run keeps for the next ones (the
hazard verdict of its UB boxes, the static signature made only when its site's memo is asked) never applies where
those facts differ. Each call is checked against an oracle of its own (the iterations in order over Python ints,
wrapped to the element type once a lane) and against what `rs.explain` says of the loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.vf.loops import forget_hazards

VL = 256


@rs.simd_vf
def doubled(src: rs.UbPtr[Any], dst: rs.UbPtr[Any], n: int, k: int) -> None:
    x = Reg.RegTensor(src.dtype)
    m = Reg.CreateMask(src.dtype)
    for i in range(n):
        row = src + i * k
        Reg.LoadAlign(x, row)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(dst + i * k, x, m)


@rs.simd_vf
def reread(p: rs.UbPtr[Any]) -> None:
    x = Reg.RegTensor(p.dtype)
    Reg.LoadAlign(x, p)
    Reg.Add(x, x, x, Reg.CreateMask(p.dtype))


def _oracle(start: list[int], bits: int, src: int, dst: int, n: int, k: int, lanes: int) -> list[int]:
    """The tensor after the loop run in order: iteration b doubles elements [src + b·k, +lanes) into [dst + b·k, ...),
    each lane a Python int wrapped to `bits` signed bits."""
    out = list(start)
    for b in range(n):
        row = out[src + b * k : src + b * k + lanes]
        for j, v in enumerate(row):
            w = (2 * v) & ((1 << bits) - 1)
            out[dst + b * k + j] = w - (1 << bits) if w >> (bits - 1) else w
    return out


def _run(dtype: Any, src: int, dst: int, n: int, k: int, seed: int) -> str:
    """`doubled` over one tensor of `dtype` (src and dst element offsets in it), its bits checked against the oracle
    (a fresh UB each time: the site, and what it keeps, is the module's)."""
    size = 8192
    ub = rs.UnifiedBuffer(64 * 1024)
    t = ub.alloc(dtype, size)
    info = np.iinfo(dtype.np_dtype)
    start = np.random.default_rng(seed).integers(info.min, info.max, size, endpoint=True).astype(dtype.np_dtype)
    t.set(start)
    forget_hazards()  # (each run's decision its own: what an earlier run's attempt found predicts nothing here)
    text = rs.explain(doubled, t.GetPhyAddr() + src, t.GetPhyAddr() + dst, n, k)
    lanes = VL // dtype.itemsize
    want = _oracle([int(v) for v in start], 8 * dtype.itemsize, src, dst, n, k, lanes)
    assert t.numpy().astype(np.int64).tolist() == want
    return text


def test_a_site_batches_again_after_runs_whose_facts_rule_batching_out() -> None:
    """Disjoint rows batch; the same site's next runs, the store meeting the next iteration's load, rows overlapping,
    another dtype, too few iterations, each get the in-order bits and their own decision; disjoint rows batch again."""
    # (name, dtype, src, dst, n, k, how, why)
    runs = [
        ("disjoint", rs.int32, 0, 2048, 16, 64, "batched", "no UB byte an iteration writes is read or written by another"),
        ("store feeds the next load", rs.int32, 0, 64, 16, 64, "sequential", "an iteration reads UB bytes another"),
        ("rows overlap", rs.int32, 0, 4096, 16, 32, "sequential", "UB bytes written twice"),
        ("int16 rows", rs.int16, 0, 4096, 16, 128, "batched", "no UB byte an iteration writes is read or written"),
        ("too few", rs.int32, 0, 2048, 15, 64, "sequential", "fewer than 16 iterations"),
        ("disjoint again", rs.int32, 0, 2048, 16, 64, "batched", "no UB byte an iteration writes is read or written"),
        ("store feeds the next load again", rs.int32, 0, 64, 16, 64, "sequential", "an iteration reads UB bytes another"),
    ]
    for seed, (name, dtype, src, dst, n, k, how, why) in enumerate(runs):
        with rs.configure(batch_min_iterations=16):  # (the default: the suite's conftest batches from 2)
            text = _run(dtype, src, dst, n, k, seed)
        assert f"{how} ({n} iterations)" in text and why in text, (name, text)


def test_overlapping_runs_never_take_a_kept_verdict_of_disjoint_ones() -> None:
    """The same boxes a different distance apart each time: every overlapping run is refused, every disjoint one
    batched, whatever ran before."""
    for seed, gap in enumerate([4096, 64, 4096, 32 * 64, 16 * 64, 15 * 64, 16 * 64 + 64, 128]):
        text = _run(rs.int32, 0, gap, 16, 64, 100 + seed)
        assert ("batched" if gap >= 16 * 64 else "sequential") in text, (gap, text)


def test_a_kept_verdict_holds_for_new_ubs_of_the_same_layout_never_for_accesses_sharing_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kept hazard verdict is found again for the same boxes on new UB objects (the check not made again), and
    never given to the same boxes where the load and the store share a UB (the store feeding the next iteration's
    load: refused, the in-order bits). The early check of exact boxes is off here, so the kept verdict is all that
    stands between that run and a wrong batch. The oracle: iteration b doubles src elements [64b, +64) into dst
    elements [64 + 64b, +64), in order, over Python ints wrapped to int32."""
    from regsim._src.vf import batched

    checks = []
    original = batched.BatchedBackend._hazards

    def counting(self: Any) -> tuple[bool, bool]:
        checks.append(self.rows)
        return original(self)

    monkeypatch.setattr(batched.BatchedBackend, "_hazards", counting)
    monkeypatch.setattr(batched.BatchedBackend, "_meet", lambda self, new: None)
    kept = []  # (every UB alive to the end: each run's a new object, its id another's)
    for run, shared in enumerate([False, False, False, True, False, True]):
        src_ub = rs.UnifiedBuffer(64 * 1024)
        src = src_ub.alloc(rs.int32, 8192)
        start = np.random.default_rng(run).integers(-(2**31), 2**31, 8192).astype(np.int32)
        src.set(start)
        dst = src if shared else rs.UnifiedBuffer(64 * 1024).alloc(rs.int32, 8192)
        if not shared:
            dst.set(np.zeros(8192, np.int32))
        kept.append((src, dst))
        forget_hazards()
        checks.clear()
        text = rs.explain(doubled, src.GetPhyAddr(), dst.GetPhyAddr() + 64, 16, 64)
        want = [int(v) for v in start] if shared else [0] * 8192
        for b in range(16):
            for j in range(64):
                w = (2 * want[64 * b + j] if shared else 2 * int(start[64 * b + j])) & 0xFFFFFFFF
                want[64 + 64 * b + j] = w - (1 << 32) if w >> 31 else w
        assert dst.numpy().astype(np.int64).tolist() == want, run
        assert ("sequential" if shared else "batched") + " (16 iterations)" in text, (run, text)
        assert len(checks) == (1 if run == 0 or shared else 0), (run, checks)  # (a hazard found is never kept)


def test_errors_of_a_batched_loop_name_the_op_the_parameter_and_the_iteration() -> None:
    """A store leaving its tensor in iteration 5 raises the in-order error (the op, its parameter, the bytes), with
    rows 0-4 stored; a never-written row read after a batched loop names the store and the iterations beside it."""
    ub = rs.UnifiedBuffer(64 * 1024)
    a, d = ub.alloc(rs.int32, 64 * 8), ub.alloc(rs.int32, 64 * 5)
    a.set(np.arange(64 * 8, dtype=np.int32))
    with pytest.raises(rs.errors.OutOfBoundsError, match=r"^StoreAlign: dst_addr = lanes 0\.\.63 at UB bytes \[3328, 3584\)"):
        doubled(a.GetPhyAddr(), d.GetPhyAddr(), 16, 64)
    assert d.numpy().tolist() == [2 * v for v in range(64 * 5)]

    ub = rs.UnifiedBuffer(64 * 1024)
    a, d = ub.alloc(rs.int32, 64 * 32), ub.alloc(rs.int32, 64 * 40)
    a.set(np.arange(64 * 32, dtype=np.int32))
    assert "batched (16 iterations)" in rs.explain(doubled, a.GetPhyAddr(), d.GetPhyAddr(), 16, 128)
    with pytest.raises(rs.errors.UninitializedReadError) as raised:
        reread(d.GetPhyAddr() + 64 * 13)  # between the rows of iterations 6 and 7
    text = str(raised.value)
    assert "last written by StoreAlign at test_loop_reuse.py:29 (in doubled), iteration 6" in text, text
    assert "last written by StoreAlign at test_loop_reuse.py:29 (in doubled), iteration 7" in text, text
