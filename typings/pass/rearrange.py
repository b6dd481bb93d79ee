"""Fill, index, rearrange, compress, histogram, move, reduce and sync calls mypy accepts."""

import numpy as np

import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.float32)
    f32, g32 = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    u8, u16 = Reg.RegTensor(rs.uint8), Reg.RegTensor(rs.uint16)
    i16, i32 = Reg.RegTensor(rs.int16), Reg.RegTensor(rs.int32)
    u32 = Reg.RegTensor(rs.uint32)
    m0, m1 = Reg.MaskReg(), Reg.MaskReg()

    Reg.Duplicate(f32, 3.14)
    Reg.Duplicate(f32, np.float32(0), mask, mode=Reg.MaskMergeMode.MERGING)
    Reg.Duplicate(g32, f32, mask)
    Reg.Arange(f32, 0.0, order=Reg.IndexOrder.DECREASE_ORDER)
    Reg.Gather(g32, f32, u32)
    Reg.Interleave(f32, g32, f32, g32)
    Reg.DeInterleave(rs.uint16, m0, m1, m0, m1)
    Reg.MaskInterleave(rs.uint32, m0, m1, m0, m1)
    Reg.Pack(u8, i16, part=Reg.HighLowPart.HIGHEST)
    Reg.UnPack(i32, i16)
    Reg.Pack(m0, m1)
    Reg.Squeeze(g32, f32, mask, store=Reg.GatherMaskMode.STORE_REG)
    Reg.Unsqueeze(i32, mask)
    Reg.Histograms(u16, u8, mask, mode=Reg.HistogramsBinType.BIN1, type=Reg.HistogramsType.ACCUMULATE)
    Reg.Move(g32, f32, mask)
    Reg.Copy(g32, f32)
    Reg.Move(m0, m1, mask)
    Reg.Reduce(i32, i16, mask)
    Reg.Reduce(g32, f32, mask, type=Reg.ReduceType.MAX)
    Reg.ReduceMin(g32, f32, mask)
    Reg.ReduceDataBlock(g32, f32, mask, type=Reg.ReduceType.SUM)
    Reg.PairReduceSum(g32, f32, mask)
    Reg.LocalMemBar(src=Reg.MemType.VEC_STORE, dst=Reg.MemType.VEC_LOAD)
    Reg.ClearSpr(spr=rs.AscendC.SpecialPurposeReg.AR)
