"""The four worked carry examples of the AddC API page (the Ascend C `AddC` API page), run through
Reg.AddC inside a VF: the carry is read from the MaskReg at bit 4i and stored to UB with
StoreAlign(MaskDist.DIST_NORM) (bit k = byte k // 8, bit k % 8)."""

from __future__ import annotations

import numpy as np
import pytest

import regsim as rs
from regsim import Reg

# (a_i, b_i, carrySrc_i) -> (dst_i as u32, carry_i), values from the page; dst worked by hand
INT32_CASES = [((-2147483648, -2, 1), (0x7FFFFFFF, 1)), ((2, 5, 1), (8, 0))]
UINT32_CASES = [((4294967295, 2, 0), (1, 1)), ((3, 2, 0), (5, 0))]
LANE_SLOTS = [0, 1, 17, 63]  # where the examples sit: first lanes, an odd middle lane, the last lane


@rs.simd_vf
def addc_vf(dst, carry_out, src0, src1, carry_in, regs: dict) -> None:
    a = Reg.RegTensor(src0.dtype)
    b = Reg.RegTensor(src0.dtype)
    d = Reg.RegTensor(src0.dtype)
    carry_src = Reg.MaskReg()
    carry = Reg.MaskReg()
    mask = Reg.CreateMask(src0.dtype)
    Reg.LoadAlign(a, src0)
    Reg.LoadAlign(b, src1)
    Reg.LoadAlign(carry_src, carry_in, dist=Reg.MaskDist.DIST_NORM)
    Reg.AddC(carry, d, a, b, carry_src, mask)
    Reg.StoreAlign(dst, d, mask)
    Reg.StoreAlign(carry_out.reinterpret(rs.uint32), carry, dist=Reg.MaskDist.DIST_NORM)
    regs["carry"] = carry  # registers may be read after the VF ends


@pytest.mark.parametrize(("dtype", "cases"), [(rs.int32, INT32_CASES), (rs.uint32, UINT32_CASES)], ids=["int32", "uint32"])
@pytest.mark.parametrize("slot", [0, 1, 2, 3])
def test_addc_page_examples(dtype, cases, slot):
    ub = rs.UnifiedBuffer()
    src0, src1, dst = (ub.alloc(dtype, 64) for _ in range(3))
    carry_in, carry_out = ub.alloc(rs.uint8, 32), ub.alloc(rs.uint8, 32)
    a = np.zeros(64, dtype.np_dtype)
    b = np.zeros(64, dtype.np_dtype)
    cin = np.zeros(32, np.uint8)
    lanes = {}
    for k, ((x, y, c), want) in enumerate(cases):
        i = LANE_SLOTS[(slot + k) % 4]
        a[i], b[i] = x, y
        cin[(4 * i) // 8] |= c << ((4 * i) % 8)  # carrySrc_i at bit 4i
        lanes[i] = want
    src0.set(a)
    src1.set(b)
    carry_in.set(cin)
    carry_out.set(np.full(32, 0xA5, np.uint8))  # overwritten entirely by the DIST_NORM store
    dst.set(np.zeros(64, dtype.np_dtype))
    regs: dict = {}
    addc_vf(dst.GetPhyAddr(), carry_out.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), carry_in.GetPhyAddr(), regs)
    carry = regs["carry"]
    stored = carry_out.numpy()
    for i, (want_dst, want_carry) in lanes.items():
        assert int(dst.numpy().view(np.uint32)[i]) == want_dst, f"lane {i}: dst 0x{int(dst.numpy().view(np.uint32)[i]):08x}"
        assert int(carry.bits()[4 * i]) == want_carry, f"lane {i}: carry bit {4 * i}"
        assert (stored[(4 * i) // 8] >> ((4 * i) % 8)) & 1 == want_carry, (
            f"lane {i}: stored carry byte {stored[(4 * i) // 8]:#04x}"
        )
    # every other lane: 0 + 0 + 0, no carry; and with mask_fill "lsb" no bit but 4i is ever set
    others = [i for i in range(64) if i not in lanes]
    assert not carry.lanes(dtype)[others].any()
    assert not np.delete(carry.bits(), np.arange(0, 256, 4)).any()
    assert stored.tobytes() == np.packbits(carry.bits(), bitorder="little").tobytes()
