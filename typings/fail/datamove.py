"""LoadAlign / StoreAlign misuse: a pointer whose type is not the register's, wrong forms."""

import regsim as rs
from regsim import Reg

POST_MODE_UPDATE = Reg.PostLiteral.POST_MODE_UPDATE

ub = rs.UnifiedBuffer()
floats = ub.alloc(rs.float32, 1024).GetPhyAddr()
words = ub.alloc(rs.uint32, 1024).GetPhyAddr()
bits = ub.alloc(rs.uint8, 256).GetPhyAddr()

with rs.VEC_SCOPE():
    reg = Reg.RegTensor(rs.float32)
    mask = Reg.CreateMask(rs.float32)
    preg = Reg.MaskReg()
    areg = Reg.CreateAddrReg(rs.float32, 1, 64)

    # A RegTensor[float32] through a UbPtr[uint32]: C++ static_asserts the types agree.
    Reg.StoreAlign(words, reg, mask)  # E: misc
    Reg.StoreAlign(words, reg, 64, mask, post_mode=POST_MODE_UPDATE)  # E: misc
    Reg.StoreAlign(words, reg, areg, mask)  # E: misc
    Reg.LoadAlign(reg, words)  # E: misc
    Reg.LoadAlign(reg, words, 64, post_mode=POST_MODE_UPDATE)  # E: misc
    Reg.LoadAlign(reg, words, areg)  # E: misc
    Reg.StoreAlign(floats.reinterpret(rs.uint32), reg, mask)  # E: misc

    # The operands in the wrong order, or not a pointer.
    Reg.StoreAlign(reg, floats, mask)  # E: call-overload
    Reg.LoadAlign(floats, reg)  # E: call-overload
    Reg.LoadAlign(reg, 0)  # E: call-overload

    # A stride needs post_mode=; a RegTensor store needs a mask; a MaskReg store takes none.
    Reg.LoadAlign(reg, floats, 64)  # E: call-overload
    Reg.StoreAlign(floats, reg, 64, mask)  # E: call-overload
    Reg.StoreAlign(floats, reg)  # E: call-overload
    Reg.StoreAlign(bits, preg, mask)  # E: call-overload
    Reg.LoadAlign(reg, floats, areg, post_mode=POST_MODE_UPDATE)  # E: call-overload

    # dist= must be the enum of the operand: LoadDist/StoreDist for a RegTensor, MaskDist for a MaskReg.
    Reg.LoadAlign(reg, floats, dist=Reg.MaskDist.DIST_NORM)  # E: call-overload
    Reg.StoreAlign(floats, reg, mask, dist=Reg.LoadDist.DIST_NORM)  # E: call-overload
    Reg.LoadAlign(preg, bits, dist=Reg.LoadDist.DIST_NORM)  # E: call-overload
    Reg.StoreAlign(bits, preg, dist=Reg.StoreDist.DIST_NORM)  # E: call-overload
    Reg.LoadAlign(reg, floats, post_mode=0)  # E: call-overload
