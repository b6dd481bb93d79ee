"""A UB is freed as soon as nothing refers to it: the store log (`memory.Writes`) keeps no frame that holds the UB (a
UB reachable from its own log was a reference cycle, its bytes freed only by the cyclic collector, a fresh 256 KiB UB
a call never reused warm). Checked with the collector off, after host writes and a VF's stores in both loop modes."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import regsim as rs
from regsim import Reg


@rs.simd_vf
def double(src: rs.UbPtr[rs.float32], dst: rs.UbPtr[rs.float32], trips: int) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)
    reg = Reg.RegTensor(rs.float32)
    for i in range(trips):
        Reg.LoadAlign(reg, src + 64 * i)
        Reg.Add(reg, reg, reg, mask)
        Reg.StoreAlign(dst + 64 * i, reg, mask)


@pytest.mark.parametrize("loops", ["sequential", "batched"])
@pytest.mark.parametrize("profiled", [False, True])
def test_a_ub_is_freed_when_dropped(loops: str, profiled: bool, no_collector: None) -> None:
    trips = 16

    def run() -> tuple[weakref.ref[rs.UnifiedBuffer], list[float]]:
        ub = rs.UnifiedBuffer(size=2 * 256 * trips)
        src, dst = ub.alloc(rs.float32, 64 * trips), ub.alloc(rs.float32, 64 * trips)
        src.set(np.arange(64 * trips, dtype=np.float32))
        with rs.configure(loops=loops):
            if profiled:
                rs.profile(double, src.GetPhyAddr(), dst.GetPhyAddr(), trips)
            else:
                double(src.GetPhyAddr(), dst.GetPhyAddr(), trips)
        return weakref.ref(ub), dst.numpy().tolist()

    gone, got = run()
    assert got == [2.0 * k for k in range(64 * trips)]  # (the VF ran: each element doubled, exact in float32)
    assert gone() is None
