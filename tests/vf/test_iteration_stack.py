"""The iteration numbers of the loops running in order (`loops.iterations()`, the numbers a UB's `Writes` notes with
each store): a loop in order keeps one stack for its run and changes its last number in place, so whatever keeps the
numbers must keep a copy. Expected values are the loops' own counters, written out here."""

from __future__ import annotations

from typing import Any

import numpy as np

import regsim as rs
from regsim import Reg
from regsim._src.vf.loops import iterations

LANES = 64  #: float32 lanes a register
seen: list[Any] = []  #: what the kernels below record (module state: the loops run in order)


@rs.simd_vf
def nested_vf(rows: int, cols: int) -> None:
    seen.append(iterations())
    for i in range(rows):
        for j in range(cols):
            seen.append(iterations())
            if i == 1 and j == 1:
                break  # (a loop left early: the outer loop's numbers are back after it)
        seen.append(iterations())
    seen.append(iterations())


def test_nested_in_order_loops_give_each_iteration_its_numbers_kept_as_they_were() -> None:
    seen.clear()
    with rs.configure(loops="sequential"):
        nested_vf(3, 4)
    want: list[Any] = [()]
    for i in range(3):
        want += [(i, j) for j in range(2 if i == 1 else 4)] + [(i,)]
    want.append(())
    assert seen == want
    assert all(type(numbers) is tuple for numbers in seen)
    assert iterations() == ()


@rs.simd_vf
def copy_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], repeat: int) -> None:
    r = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    for _ in range(repeat):
        Reg.LoadAlign(r, src, LANES, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)
        Reg.StoreAlign(dst, r, LANES, m, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)


def test_each_store_in_order_is_noted_with_its_own_iteration() -> None:
    with rs.configure(loops="sequential"):
        ub = rs.UnifiedBuffer(64 * 1024)  # (most of it never written: its stores are noted)
        x, y = (ub.alloc(rs.float32, 4 * LANES) for _ in range(2))
        x.set(np.arange(4 * LANES, dtype=np.float32))
        before = len(ub.writes.entries)
        copy_vf(y.GetPhyAddr(), x.GetPhyAddr(), 4)
    noted = [entry[6] for entry in ub.writes.entries[before:]]
    assert noted == [(0,), (1,), (2,), (3,)]
    assert np.array_equal(y.numpy(), np.arange(4 * LANES, dtype=np.float32))
