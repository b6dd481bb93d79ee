"""LoadAlign / StoreAlign in every form, for RegTensors and MaskRegs."""

from typing import assert_type

import regsim as rs
from regsim import Reg

POST_MODE_UPDATE = Reg.PostLiteral.POST_MODE_UPDATE

ub = rs.UnifiedBuffer()
src = ub.alloc(rs.float32, 1024).GetPhyAddr()
dst = ub.alloc(rs.float32, 1024).GetPhyAddr()
bits = ub.alloc(rs.uint8, 256).GetPhyAddr()
words = ub.alloc(rs.uint32, 256).GetPhyAddr()

with rs.VEC_SCOPE():
    reg = Reg.RegTensor(rs.float32)
    mask = Reg.CreateMask(rs.float32)
    areg = Reg.CreateAddrReg(rs.float32, 1, 64)
    assert_type(areg, Reg.AddrReg)

    # RegTensor forms.
    assert_type(Reg.LoadAlign(reg, src), None)
    assert_type(Reg.LoadAlign(reg, src + 64), None)
    assert_type(Reg.LoadAlign(reg, src, dist=Reg.LoadDist.DIST_NORM), None)
    assert_type(Reg.LoadAlign(reg, src, 64, post_mode=POST_MODE_UPDATE), None)
    assert_type(Reg.LoadAlign(reg, src, 64, post_mode=POST_MODE_UPDATE, dist=Reg.LoadDist.DIST_NORM), None)
    assert_type(Reg.LoadAlign(reg, src, areg), None)
    assert_type(Reg.LoadAlign(reg, src, areg, dist=Reg.LoadDist.DIST_NORM), None)
    assert_type(Reg.LoadAlign(reg, words.reinterpret(rs.float32)), None)
    assert_type(Reg.LoadAlign(reg.reinterpret(rs.uint32), words), None)

    assert_type(Reg.StoreAlign(dst, reg, mask), None)
    assert_type(Reg.StoreAlign(dst + 64, reg, mask, dist=Reg.StoreDist.DIST_NORM_B32), None)
    assert_type(Reg.StoreAlign(dst, reg, 64, mask, post_mode=POST_MODE_UPDATE), None)
    assert_type(Reg.StoreAlign(dst, reg, 64, mask, post_mode=POST_MODE_UPDATE, dist=Reg.StoreDist.DIST_NORM), None)
    assert_type(Reg.StoreAlign(dst, reg, areg, mask), None)
    assert_type(Reg.StoreAlign(dst, reg, areg, mask, dist=Reg.StoreDist.DIST_NORM), None)
    assert_type(Reg.StoreAlign(words, reg.reinterpret(rs.uint32), mask), None)

    # MaskReg forms: any pointer type, dist is a MaskDist.
    preg = Reg.MaskReg()
    assert_type(Reg.LoadAlign(preg, bits), None)
    assert_type(Reg.LoadAlign(preg, bits, dist=Reg.MaskDist.DIST_NORM), None)
    assert_type(Reg.LoadAlign(preg, bits, dist=Reg.MaskDist.DIST_US), None)
    assert_type(Reg.LoadAlign(preg, words, dist=Reg.MaskDist.DIST_DS), None)
    assert_type(Reg.LoadAlign(preg, bits, 32, post_mode=POST_MODE_UPDATE), None)
    assert_type(Reg.LoadAlign(preg, bits, 32, post_mode=POST_MODE_UPDATE, dist=Reg.MaskDist.DIST_NORM), None)
    assert_type(Reg.LoadAlign(preg, bits, Reg.CreateAddrReg(rs.uint8, 1, 32), dist=Reg.MaskDist.DIST_NORM), None)

    assert_type(Reg.StoreAlign(bits, preg), None)
    assert_type(Reg.StoreAlign(bits, preg, dist=Reg.MaskDist.DIST_NORM), None)
    assert_type(Reg.StoreAlign(words + 8, preg, dist=Reg.MaskDist.DIST_PACK), None)
    assert_type(Reg.StoreAlign(bits, preg, 32, post_mode=POST_MODE_UPDATE, dist=Reg.MaskDist.DIST_NORM), None)
    assert_type(Reg.StoreAlign(bits, preg, Reg.CreateAddrReg(rs.uint8, 1, 32), dist=Reg.MaskDist.DIST_PACK), None)

    # Legacy name.
    assert_type(Reg.DataCopy(reg, src), None)
