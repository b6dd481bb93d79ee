"""ExpSub (half or float sources, float destination) and MulsCast (float source, half destination)."""

from typing import assert_type

import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.half)
    h = Reg.RegTensor(rs.half)
    f = Reg.RegTensor(rs.float32)
    assert_type(Reg.ExpSub(f, h, h, mask), None)
    assert_type(Reg.ExpSub(f, h, h, mask, layout=Reg.RegLayout.ONE, mode=Reg.MaskMergeMode.ZEROING), None)
    assert_type(Reg.ExpSub(f, f, f, mask), None)
    assert_type(Reg.FusedExpSub(f, f, f, mask), None)
    assert_type(Reg.MulsCast(h, f, 0.5, mask), None)
    assert_type(Reg.MulsCast(h, f, 2, mask, layout=Reg.RegLayout.ONE), None)
    assert_type(Reg.FusedMulsCast(h, f, 0.5, mask), None)
