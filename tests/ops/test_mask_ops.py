"""Predicates made from data: `MoveMask<T>` (from the vector-mask register `AscendC::SetVectorMask`
sets) and `MaskGenWithRegTensor<T, offset>` (from one block of a register's bytes), against their
oracles for every b16/b32 type and offset, with their documented refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.errors import DTypeError, ParameterError, UninitializedReadError
from regsim.testing import reference as O

#: b16 and b32 types (MoveMask and MaskGenWithRegTensor accept 2- and 4-byte types), written here
B16 = [rs.int16, rs.uint16, rs.half, rs.bfloat16]
B32 = [rs.int32, rs.uint32, rs.float32, rs.complex32]
U64 = st.integers(0, 2**64 - 1)


@pytest.mark.parametrize("dtype", B16 + B32, ids=lambda d: d.name)
@settings(max_examples=max(10, settings.default.max_examples // 3))
@given(high=U64, low=U64)
def test_move_mask_matches_oracle(dtype, high, low):
    """b16: the 128 bits {MASK1, MASK0}, each doubled; b32: MASK0's 64 bits, each repeated 4 times."""
    rs.UnifiedBuffer(size=1024)
    rs.AscendC.SetVectorMask(dtype, high, low)
    with rs.VEC_SCOPE():
        mask = Reg.MoveMask(dtype)
    want = O.move_mask_oracle(dtype.itemsize, high, low)
    O.assert_lanes(mask.bits().astype(np.uint8), want, itemsize=1, what=f"MoveMask {dtype!r} {high:#x} {low:#x}")


def test_move_mask_after_init_is_all_ones_and_follows_the_last_ub():
    """A new core's vector mask is all ones (as InitSocState leaves it); SetVectorMask writes the
    register of the core of the last UnifiedBuffer."""
    rs.UnifiedBuffer(size=1024)
    with rs.VEC_SCOPE():
        assert Reg.MoveMask(rs.float32).bits().all()
    rs.AscendC.SetVectorMask(rs.half, 0, 0b101)
    with rs.VEC_SCOPE():
        assert np.flatnonzero(Reg.MoveMask(rs.half).bits()).tolist() == [0, 1, 4, 5]
        assert np.flatnonzero(Reg.MoveMask(rs.float32).bits()).tolist() == [0, 1, 2, 3, 8, 9, 10, 11]


def test_move_mask_and_set_vector_mask_refusals():
    rs.UnifiedBuffer(size=1024)
    with rs.VEC_SCOPE(), pytest.raises(DTypeError, match="MoveMask"):
        Reg.MoveMask(rs.uint8)  # b16 and b32 only
    with pytest.raises(ParameterError, match="mask_low"):
        rs.AscendC.SetVectorMask(rs.half, 0, 2**64)
    with pytest.raises(ParameterError, match="mask_high"):
        rs.AscendC.SetVectorMask(rs.half, -1, 0)


@pytest.mark.parametrize("dtype", B16 + B32, ids=lambda d: d.name)
@settings(max_examples=max(10, settings.default.max_examples // 3))
@given(data=st.data())
def test_mask_gen_with_reg_tensor_matches_oracle(dtype, data):
    """Block `offset` of the register (16 B for b16, 8 B for b32), bit j broadcast to lane j's group."""
    src = data.draw(rst.registers(dtype), "src")
    offset = data.draw(st.integers(0, 15 if dtype.itemsize == 2 else 31), "offset")
    dst = data.draw(rst.masks(), "dirty dst")
    with rs.VEC_SCOPE():
        Reg.MaskGenWithRegTensor(dst, src, offset=offset)
    want = O.mask_gen_oracle(src.numpy().tobytes(), dtype.itemsize, offset)
    O.assert_lanes(dst.bits().astype(np.uint8), want, itemsize=1, what=f"MaskGenWithRegTensor {dtype!r} offset={offset}")


def test_mask_gen_with_reg_tensor_reg_move_example():
    """The vendor's reg_move example: int32 cond[0] = 1, cond[1] = 0xFFFFFFFF, offset 0 → lane 0
    and lanes 32..63 (bits 4j..4j+3 of each) set."""
    cond = np.zeros(64, np.int32)
    cond[0], cond[1] = 1, -1
    dst = Reg.MaskReg()
    with rs.VEC_SCOPE():
        Reg.MaskGenWithRegTensor(dst, Reg.RegTensor.from_numpy(cond), offset=0)
    assert np.flatnonzero(dst.lanes(rs.int32)).tolist() == [0, *range(32, 64)]
    assert dst.bits()[:4].all() and not dst.bits()[4:128].any()


def test_mask_gen_with_reg_tensor_refusals():
    u16 = Reg.RegTensor.from_numpy(np.zeros(128, np.uint16))
    u8 = Reg.RegTensor.from_numpy(np.zeros(256, np.uint8))
    with rs.VEC_SCOPE():
        with pytest.raises(ParameterError, match="offset"):
            Reg.MaskGenWithRegTensor(Reg.MaskReg(), u16, offset=16)  # [0, 15] for b16
        with pytest.raises(ParameterError, match="offset"):
            Reg.MaskGenWithRegTensor(Reg.MaskReg(), u16)  # a required template parameter
        with pytest.raises(DTypeError, match="src_reg"):
            Reg.MaskGenWithRegTensor(Reg.MaskReg(), u8, offset=0)
        with pytest.raises(DTypeError, match="RegTraitNumTwo"):
            two = Reg.RegTensor.from_numpy(np.zeros(128, rs.complex32.np_dtype), dtype=rs.complex32, trait=Reg.RegTraitNumTwo)
            Reg.MaskGenWithRegTensor(Reg.MaskReg(), two, offset=0)
        # only the block read must be written
        partial = Reg.RegTensor(rs.uint32)
        with pytest.raises(UninitializedReadError, match="src_reg"):
            Reg.MaskGenWithRegTensor(Reg.MaskReg(), partial, offset=3)
