"""An elementwise op reading one register as both inputs (`Add(d, x, x)`, `Mul(d, x, x)`) in a batched loop: the result of
every active lane is the float64 result rounded once to float32 (exact for these ops), inactive lanes leave the UB as it
was, the same in both loop modes."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg

LANES = 64
SENTINEL = np.float32(-7.5)
OPS = {"Add": np.add, "Mul": np.multiply, "Sub": np.subtract, "Max": np.maximum}


def _vf(op: str) -> Any:
    face = getattr(Reg, op)

    @rs.simd_vf
    def twice_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], n: int, count: int) -> None:
        x = Reg.RegTensor(rs.float32)
        y = Reg.RegTensor(rs.float32)
        left = rs.Ref(count)
        for i in range(n):
            m = Reg.UpdateMask(rs.float32, left)
            Reg.LoadAlign(x, src + i * LANES)
            face(y, x, x, m)
            face(x, x, x, m)  # (in place too)
            Reg.StoreAlign(dst + i * LANES, y, m)
            Reg.StoreAlign(dst + (n + i) * LANES, x, m)

    return twice_vf


_VFS = {op: _vf(op) for op in OPS}


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(OPS)),
    st.integers(2, 6),
    st.data(),
)
def test_one_register_read_twice_matches_the_oracle_in_both_modes(op: str, n: int, data: st.DataObject) -> None:
    count = data.draw(st.integers(1, n * LANES))
    values = np.array(
        data.draw(st.lists(st.floats(-(2.0**60), 2.0**60, width=32), min_size=n * LANES, max_size=n * LANES)), np.float32
    )
    x64 = values.astype(np.float64)
    once = OPS[op](x64, x64).astype(np.float32)  # (exact in float64, rounded once)
    active = np.arange(n * LANES) < count
    want = np.full(2 * n * LANES, SENTINEL, np.float32)
    want[: n * LANES][active] = once[active]
    want[n * LANES :][active] = once[active]
    for config in ({"loops": "sequential"}, {"batch_min_iterations": 2}):
        with rs.configure(**config):  # type: ignore[arg-type]
            ub = rs.UnifiedBuffer(64 * 1024)
            src, dst = ub.alloc(rs.float32, n * LANES), ub.alloc(rs.float32, 2 * n * LANES)
            src.set(values)
            dst.set(np.full(2 * n * LANES, SENTINEL, np.float32))
            how = rs.explain(_VFS[op], dst.GetPhyAddr(), src.GetPhyAddr(), n, count)
            assert (": batched" in how) == ("batch_min_iterations" in config), how
            np.testing.assert_array_equal(dst.numpy(), want)
