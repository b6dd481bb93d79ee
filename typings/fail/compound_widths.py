"""ExpSub / MulsCast misuse: a destination or source of another type, mixed sources, a layout or mode the op
refuses."""

import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.half)
    h = Reg.RegTensor(rs.half)
    f = Reg.RegTensor(rs.float32)
    i = Reg.RegTensor(rs.int32)

    Reg.ExpSub(h, h, h, mask)  # E: arg-type
    Reg.ExpSub(f, h, f, mask)  # E: misc
    Reg.ExpSub(f, i, i, mask)  # E: type-var
    Reg.ExpSub(f, f, f, mask, layout=Reg.RegLayout.TWO)  # E: arg-type
    Reg.ExpSub(f, f, f, mask, mode=Reg.MaskMergeMode.MERGING)  # E: arg-type
    Reg.MulsCast(f, f, 0.5, mask)  # E: arg-type
    Reg.MulsCast(h, h, 0.5, mask)  # E: arg-type
    Reg.MulsCast(h, f, 0.5, mask, layout=Reg.RegLayout.THREE)  # E: arg-type
