"""Fill, index, rearrange, move and reduce misuse: a dtype the page does not list, a mode the op
refuses, a missing template parameter."""

import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.float32)
    f32, g32 = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    u8, i8 = Reg.RegTensor(rs.uint8), Reg.RegTensor(rs.int8)
    u32 = Reg.RegTensor(rs.uint32)
    i32 = Reg.RegTensor(rs.int32)

    Reg.Arange(u32, 0)  # E: type-var
    Reg.Move(g32, f32, mask, mode=Reg.MaskMergeMode.ZEROING)  # E: call-overload
    Reg.Reduce(g32, f32, mask, mode=Reg.MaskMergeMode.MERGING)  # E: call-overload
    Reg.Histograms(u8, u8, mask, mode=Reg.HistogramsBinType.BIN0, type=Reg.HistogramsType.FREQUENCY)  # E: arg-type
    Reg.Histograms(Reg.RegTensor(rs.uint16), u8, mask, mode=Reg.HistogramsBinType.BIN2, type=Reg.HistogramsType.FREQUENCY)  # E: arg-type
    Reg.Squeeze(Reg.RegTensor(rs.int64), Reg.RegTensor(rs.int64), mask)  # E: type-var
    Reg.PairReduceElem(i32, i32, mask)  # E: type-var
    Reg.Unsqueeze(f32, mask)  # E: type-var
    Reg.ClearSpr()  # E: call-arg
    Reg.LocalMemBar(src=Reg.MemType.VEC_STORE)  # E: call-arg
    Reg.Interleave(rs.int64, Reg.MaskReg(), Reg.MaskReg(), Reg.MaskReg(), Reg.MaskReg())  # E: type-var
