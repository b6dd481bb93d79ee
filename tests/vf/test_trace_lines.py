"""A traced call's kernel line and loop iterations, in both loop modes, at the depths a call is made from: a VF's
body, a nested loop (a batched loop inside another loop), a `simd_callee` helper. The oracle: the source text of
the line each record names, and the loop numbers the VF's loops count."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import regsim as rs

Reg = rs.Reg
f32 = rs.float32


@rs.simd_callee
def _add_one(dst: rs.UbPtr[f32], src: rs.UbPtr[f32], mask: Reg.MaskReg) -> None:
    x = Reg.RegTensor(f32)
    Reg.LoadAlign(x, src)
    Reg.Adds(x, x, 1.0, mask)
    Reg.StoreAlign(dst, x, mask)


@rs.simd_vf
def _nested(dst: rs.UbPtr[f32], src: rs.UbPtr[f32]) -> None:
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    x = Reg.RegTensor(f32)
    for i in range(2):
        for j in range(3):
            Reg.LoadAlign(x, src + (i * 3 + j) * 64)
            Reg.Muls(x, x, 2.0, mask)
            Reg.StoreAlign(dst + (i * 3 + j) * 64, x, mask)
        _add_one(dst + (6 + i) * 64, src + (6 + i) * 64, mask)


_SOURCE = Path(__file__).read_text().splitlines()


@pytest.mark.parametrize("loops", ["sequential", "batched"])
def test_each_record_names_its_calls_line_and_iterations(loops: str) -> None:
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(f32, 8 * 64), ub.alloc(f32, 8 * 64)
    x = np.arange(8 * 64, dtype=np.float32)
    src.set(x)
    with rs.trace(detailed=True) as t, rs.configure(loops=loops):  # type: ignore[arg-type]
        _nested(dst.GetPhyAddr(), src.GetPhyAddr())
    np.testing.assert_array_equal(dst.numpy(), np.concatenate([x[:384] * 2, x[384:] + 1]))
    assert len(t) > 1
    for r in t.records:  # (the line of the call itself: in the VF, or in the helper for its calls)
        assert r.line.startswith(f"{Path(__file__).name}:"), r.line
        text = _SOURCE[int(r.line.split(":")[1]) - 1]
        assert f"Reg.{r.api.split('/')[0]}(" in text, (r.api, r.line, text)
    helper = {inspect.getsourcelines(inspect.unwrap(_add_one))[1] + k for k in range(6)}
    assert {int(r.line.split(":")[1]) in helper for r in t.records if r.api == "Adds"} == {True}
    if loops == "sequential":  # a record a call: the loops' numbers as the VF counts them
        body = ("LoadAlign", "Muls", "StoreAlign")
        inner = [(r.api, r.iteration) for r in t.records if r.api in body and len(r.iteration) == 2]
        assert inner == [(api, (i, j)) for i in range(2) for j in range(3) for api in body]
        assert [r.iteration for r in t.records if r.api == "Adds"] == [(0,), (1,)]
    else:  # every record's iteration tuple names its loops (a batched call's innermost its rows)
        assert all(len(r.iteration) <= 2 for r in t.records)
        body = ("LoadAlign", "Muls", "StoreAlign")
        inner = [r for r in t.records if r.api in body and len(r.iteration) == 2]  # (the inner loop's batched calls)
        assert [(r.api, r.iteration[0]) for r in inner] == [(api, i) for i in range(2) for api in body]
        rows = [r.iteration[1] for r in inner]  # (one batch's calls share its rows; the next batch has its own)
        assert all(x is rows[0] for x in rows[:3]) and all(x is rows[3] for x in rows[3:]) and rows[0] is not rows[3]
        assert [r.iteration for r in t.records if r.api == "Adds"] == [(0,), (1,)]  # (the helper's, in order)
    assert t.records[0].api == "CreateMask" and t.records[0].iteration == ()
