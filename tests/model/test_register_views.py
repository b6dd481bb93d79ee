"""`RegTensor.reg` (the hardware registers of a tensor, C++ `reg.reg[k]`) and the two-register
forms regsim does not model yet."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim.errors import AlignmentError
from regsim.testing import reference as O

U32 = 0xFFFFFFFF


@given(st.lists(st.integers(0, 2**64 - 1), min_size=64, max_size=64))
def test_reg_views_of_a_two_register_b64_tensor_are_its_word_halves(values: list[int]) -> None:
    r = Reg.RegTensor.from_numpy(np.array(values, np.uint64), trait=Reg.RegTraitNumTwo)
    lo, hi = (part.reinterpret(rs.uint32).numpy() for part in r.reg)
    O.assert_lanes(lo, [v & U32 for v in values], itemsize=4, what="reg[0] = low words")
    O.assert_lanes(hi, [v >> 32 for v in values], itemsize=4, what="reg[1] = high words")


@pytest.mark.parametrize(("dtype", "part"), [(rs.complex64, rs.float32), (rs.complex32, rs.half)])
@given(data=st.data())
def test_reg_views_of_a_two_register_complex_tensor_are_its_real_and_imaginary_parts(
    dtype: type[rs.DType], part: type[rs.DType], data: st.DataObject
) -> None:
    """Real parts in reg[0], imaginary parts in reg[1], lane by lane; the lanes read back as written."""
    n = 512 // dtype.np_dtype.itemsize
    width = 8 * part.np_dtype.itemsize
    re, im = (data.draw(st.lists(st.integers(0, 2**width - 1), min_size=n, max_size=n)) for _ in "ri")
    bits = np.array([(i << width) | r for r, i in zip(re, im, strict=True)], f"u{2 * part.np_dtype.itemsize}")
    r = Reg.RegTensor.from_numpy(bits.view(dtype.np_dtype), trait=Reg.RegTraitNumTwo)
    real, imag = (p.reinterpret(part).numpy().view(f"u{part.np_dtype.itemsize}").tolist() for p in r.reg)
    assert (real, imag) == (re, im)
    assert r.numpy().view(bits.dtype).tolist() == bits.tolist()


def test_writing_through_reg_1_changes_only_the_high_words() -> None:
    low = list(range(64))
    r = Reg.RegTensor.from_numpy(np.array(low, np.uint64), trait=Reg.RegTraitNumTwo)
    ones = Reg.RegTensor.from_numpy(np.ones(64, np.uint32))
    with rs.VEC_SCOPE():
        high = r.reg[1].reinterpret(rs.uint32)
        Reg.Add(high, ones, ones, Reg.CreateMask(rs.uint32))  # high words := 2
    O.assert_lanes(r.numpy(), [(2 << 32) | v for v in low], itemsize=8, what="uint64 lanes after writing reg[1]")


def test_a_one_register_tensor_has_itself_as_its_only_register() -> None:
    r = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.int32))
    (only,) = r.reg
    assert only.dtype is rs.int32
    O.assert_lanes(only.numpy(), list(range(64)), itemsize=4, what="reg[0] of a one-register tensor")


def test_dual_register_load_and_store_forms_round_trip(ub: rs.UnifiedBuffer) -> None:
    """DINTLV_B32 splits even and odd words; INTLV_B32 puts them back (the mask ignored)."""
    t = ub.alloc(rs.uint32, 256)
    t.set(np.arange(128, dtype=np.uint32))
    a, b = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)
    with rs.VEC_SCOPE():
        Reg.LoadAlign(a, b, t.GetPhyAddr(), dist=Reg.LoadDist.DIST_DINTLV_B32)
        Reg.StoreAlign(
            t.GetPhyAddr() + 128, a, b, Reg.CreateMask(rs.uint32, pattern=Reg.MaskPattern.VL1), dist=Reg.StoreDist.DIST_INTLV_B32
        )
        with pytest.raises(
            rs.errors.ParameterError,
            match=r"LoadAlign: dist = DIST_NORM; accepted: DIST_DINTLV_B32 for RegTensor\[uint32\] \(two",
        ):
            Reg.LoadAlign(a, b, t.GetPhyAddr(), dist=Reg.LoadDist.DIST_NORM)
    assert a.numpy().tolist() == list(range(0, 128, 2)) and b.numpy().tolist() == list(range(1, 128, 2))
    assert t.numpy()[128:].tolist() == list(range(128))


def test_two_register_post_update_store_checks_the_second_halfs_alignment(ub: rs.UnifiedBuffer) -> None:
    """With a stride under 32 elements the second register is stored `stride` elements after the
    first (docs/decisions/datamove.md#two-register-load-store); that address must be 32-byte aligned too."""
    t = ub.alloc(rs.uint64, 256)
    before = ub.storage.data.copy()
    r = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint64), trait=Reg.RegTraitNumTwo)
    p = t.GetPhyAddr()
    with rs.VEC_SCOPE():
        mask = Reg.CreateMask(rs.uint64, trait=Reg.RegTraitNumTwo)
        with pytest.raises(AlignmentError, match=r"StoreAlign: dst_addr = UB byte 8[,;].*second register"):
            Reg.StoreAlign(p, r, 1, mask, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)
        assert p.addr == t.addr and np.array_equal(ub.storage.data, before)
        Reg.StoreAlign(p, r, 4, mask, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)  # 4 * 8 B = 32 B: aligned
    assert p.addr == t.addr + 32
    got = t.numpy()[:36]
    # lanes 0-31 at elements 0-31, lanes 32-63 from element 4 on (overwriting 4-31), so element k
    # holds lane 32 + (k - 4) for k >= 4 and lane k below
    O.assert_lanes(got, [k if k < 4 else 32 + k - 4 for k in range(36)], itemsize=8, what="two post-updating stores")
