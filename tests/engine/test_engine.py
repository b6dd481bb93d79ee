"""The op engine's contract, one test per rule a review or a mutation run found untested:
masking never destroys what it reads, refused calls write nothing, stores check each active lane
against its tensor, two-register tensors keep their documented layout and written flags, and the
library's quirks regsim reproduces (two-register post-update stores, b64 DIST_NORM_B32)."""

from __future__ import annotations

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim.errors import AlignmentError, DTypeError, OutOfBoundsError
from regsim.testing import reference as O

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE
ZEROING, MERGING = Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING


def _bits(values: np.ndarray) -> list[int]:
    return O.bits_of(values)


# --- masking -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("dtype", "trait"), [(rs.int32, Reg.RegTraitNumOne), (rs.int64, Reg.RegTraitNumTwo)], ids=["one", "two"])
@pytest.mark.parametrize("mode", [ZEROING, MERGING], ids=lambda m: m.name)
def test_masked_add_into_a_dirty_destination(dtype: type[rs.DType], trait: Reg.RegTrait, mode: Reg.MaskMergeMode) -> None:
    """Inactive lanes of a dirty dst become 0 (ZEROING) or keep their value (MERGING)."""
    n = O.lanes_of(dtype.name, trait is Reg.RegTraitNumTwo)
    a = np.arange(n, dtype=dtype.np_dtype) * 3 - 50
    b = np.arange(n, dtype=dtype.np_dtype) + 7
    dirty = np.full(n, -12345, dtype.np_dtype)
    active = [i % 3 != 1 for i in range(n)]
    dst = Reg.RegTensor.from_numpy(dirty, trait=trait)
    with rs.VEC_SCOPE():
        Reg.Add(
            dst,
            Reg.RegTensor.from_numpy(a, trait=trait),
            Reg.RegTensor.from_numpy(b, trait=trait),
            Reg.MaskReg.from_lanes(dtype, active, trait),
            mode=mode,
        )
    old = [int(x) for x in dirty] if mode is MERGING else None
    want = O.add_oracle(dtype.name, [int(x) for x in a], [int(x) for x in b], active, old)
    O.assert_lanes(dst.numpy(), want, itemsize=dtype.itemsize, what=f"Add {mode.name} into a dirty {dtype.name} dst")


@pytest.mark.parametrize("mode", [ZEROING, MERGING], ids=lambda m: m.name)
def test_a_destination_that_is_also_a_source_is_read_before_it_is_written(mode: Reg.MaskMergeMode) -> None:
    """Add(d, d, d, mask): the result of every active lane is 2·d, not 2·0."""
    d0 = np.arange(64, dtype=np.int32) + 1
    d = Reg.RegTensor.from_numpy(d0)
    active = [i < 40 for i in range(64)]
    with rs.VEC_SCOPE():
        Reg.Add(d, d, d, Reg.MaskReg.from_lanes(rs.int32, active), mode=mode)
    d0_ints = [int(x) for x in d0]
    want = O.add_oracle("int32", d0_ints, d0_ints, active, d0_ints if mode is MERGING else None)
    O.assert_lanes(d.numpy(), want, itemsize=4, what="Add(d, d, d)")


def test_operands_of_one_dtype_but_two_traits_are_refused() -> None:
    one = Reg.RegTensor.from_numpy(np.zeros(32, np.int64))
    two = Reg.RegTensor.from_numpy(np.zeros(64, np.int64), trait=Reg.RegTraitNumTwo)
    with (
        rs.VEC_SCOPE(),
        pytest.raises(
            DTypeError,
            match=r"Add: src_reg0 = RegTensor\[int64\] \(RegTraitNumTwo\); "
            r"accepted: the type of dst_reg: RegTensor\[int64\] \(RegTraitNumOne\)",
        ),
    ):
        Reg.Add(one, two, two, Reg.CreateMask(rs.int64))


def test_written_flags_of_a_masked_merge_into_a_never_written_two_register_tensor() -> None:
    """MERGING writes only active lanes: the others stay never-written, so reading them raises."""
    a = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.int64), trait=Reg.RegTraitNumTwo)
    dst = Reg.RegTensor(rs.int64, Reg.RegTraitNumTwo)
    first = Reg.MaskReg.from_lanes(rs.int64, np.arange(64) < 10, Reg.RegTraitNumTwo)
    with rs.VEC_SCOPE():
        Reg.Add(dst, a, a, first, mode=MERGING)
        Reg.Add(a, dst, dst, first)  # the written lanes read fine
        with pytest.raises(rs.errors.UninitializedReadError, match=r"Add: src_reg0 lane 10 "):
            Reg.Add(a, dst, dst, Reg.CreateMask(rs.int64, trait=Reg.RegTraitNumTwo))


# --- stores ---------------------------------------------------------------------------------------
def test_a_fully_masked_store_past_the_ub_end_writes_nothing() -> None:
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.int16, 1024)
    before = ub.storage.data.copy()
    reg = Reg.RegTensor.from_numpy(np.ones(128, np.int16))
    with rs.VEC_SCOPE():
        none = Reg.UpdateMask(rs.int16, rs.Ref(0))
        Reg.StoreAlign(t.GetPhyAddr() + 131072, reg, none)  # 256 KiB on: past the 248 KiB UB
    assert np.array_equal(ub.storage.data, before)


def test_a_store_one_element_past_its_tensor_names_the_lane_and_writes_nothing() -> None:
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.uint32, 64)
    after = ub.alloc(rs.uint32, 64)
    after.set(np.full(64, 7, np.uint32))
    before = ub.storage.data.copy()
    reg = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32))
    with rs.VEC_SCOPE():
        Reg.StoreAlign(t.GetPhyAddr() + 8, reg, Reg.UpdateMask(rs.uint32, rs.Ref(56)))  # lanes 0..55 end at element 64: legal
        with pytest.raises(
            OutOfBoundsError,
            match=r"StoreAlign: dst_addr = lanes 56\.\.56 at UB bytes \[256, 260\), element 64 of the uint32 tensor",
        ):
            Reg.StoreAlign(t.GetPhyAddr() + 8, reg, Reg.UpdateMask(rs.uint32, rs.Ref(57)))
    assert np.array_equal(after.numpy(), np.full(64, 7, np.uint32)), "the refused store wrote nothing"
    assert np.array_equal(ub.storage.data[256:], before[256:])


@pytest.mark.parametrize("offset", [1, 2, 4], ids=lambda k: f"{4 * k}B")
def test_misaligned_loads_and_stores_are_refused(offset: int) -> None:
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.uint32, 256)
    t.set(np.zeros(256, np.uint32))
    reg = Reg.RegTensor.from_numpy(np.zeros(64, np.uint32))
    with rs.VEC_SCOPE():
        with pytest.raises(AlignmentError, match=rf"LoadAlign: src_addr = UB byte {4 * offset}"):
            Reg.LoadAlign(reg, t.GetPhyAddr() + offset)
        with pytest.raises(AlignmentError, match=rf"StoreAlign: dst_addr = UB byte {4 * offset}"):
            Reg.StoreAlign(t.GetPhyAddr() + offset, reg, Reg.CreateMask(rs.uint32))


def test_a_load_ending_exactly_at_the_ub_end_is_legal() -> None:
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(rs.uint8, 1024)
    t.set(np.arange(1024) % 251)
    reg = Reg.RegTensor(rs.uint8)
    with rs.VEC_SCOPE():
        Reg.LoadAlign(reg, t.GetPhyAddr() + 768)
        with pytest.raises(OutOfBoundsError, match=r"\[800, 1056\)"):
            Reg.LoadAlign(reg, t.GetPhyAddr() + 800)
    assert reg.numpy().tolist() == [i % 251 for i in range(768, 1024)]


def test_masked_store_written_flags() -> None:
    """A masked store marks only the active lanes' UB bytes as written."""
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(rs.uint16, 128)
    reg = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.uint16))
    odd = Reg.MaskReg.from_lanes(rs.uint16, np.arange(128) % 2 == 1)
    with rs.VEC_SCOPE():
        Reg.StoreAlign(t.GetPhyAddr(), reg, odd)
    assert ub.storage.valid is not None
    assert ub.storage.valid[:256].tolist() == [(i // 2) % 2 == 1 for i in range(256)]


# --- two-register tensors -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [rs.int64, rs.complex32], ids=lambda d: d.name)
@pytest.mark.parametrize("stride", [-1, -64, -(2**31)], ids=lambda s: f"stride{s}")
def test_two_register_store_with_a_negative_stride_lands_naturally(dtype: type[rs.DType], stride: int) -> None:
    """The library compares the int32 stride with an unsigned VL_T/2: a negative stride is huge,
    so the second register lands at the natural VL_T/2 elements on."""
    ub = rs.UnifiedBuffer()
    n = O.lanes_of(dtype.name, True)
    t = ub.alloc(dtype, 3 * n)
    t.set(np.zeros(3 * n, dtype.np_dtype))
    raw = np.random.default_rng(5).integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    reg = Reg.RegTensor.from_numpy(raw.view(dtype.np_dtype), dtype=dtype, trait=Reg.RegTraitNumTwo)
    p = t.GetPhyAddr() + n
    with rs.VEC_SCOPE():
        Reg.StoreAlign(p, reg, stride, Reg.CreateMask(dtype, trait=Reg.RegTraitNumTwo), post_mode=UPDATE)
    assert t.numpy()[n : 2 * n].tobytes() == raw.tobytes()
    assert p.addr == t.addr + (n + stride) * dtype.itemsize


def test_b64_store_with_explicit_norm_b32_is_legal() -> None:
    ub = rs.UnifiedBuffer()
    a, b = ub.alloc(rs.uint64, 32), ub.alloc(rs.uint64, 32)
    reg = Reg.RegTensor.from_numpy(np.arange(32, dtype=np.uint64) << np.uint64(33))
    with rs.VEC_SCOPE():
        m = Reg.CreateMask(rs.uint64)
        Reg.StoreAlign(a.GetPhyAddr(), reg, m)
        Reg.StoreAlign(b.GetPhyAddr(), reg, m, dist=Reg.StoreDist.DIST_NORM_B32)
        with pytest.raises(
            rs.errors.ParameterError,
            match=r"StoreAlign: dist = DIST_NORM_B16; accepted: DIST_NORM, DIST_NORM_B32, DIST_PACK_B64 for RegTensor\[uint64\]",
        ):
            Reg.StoreAlign(b.GetPhyAddr(), reg, m, dist=Reg.StoreDist.DIST_NORM_B16)
    assert a.numpy().tolist() == b.numpy().tolist() == [i << 33 for i in range(32)]


def test_vl128_on_one_register_complex32_selects_every_lane() -> None:
    with rs.VEC_SCOPE():
        m = Reg.CreateMask(rs.complex32, pattern=Reg.MaskPattern.VL128)
    assert m.lanes(rs.complex32).all()


def test_pointers_are_not_hashable() -> None:
    """A pointer moves in place (post-update), so it cannot be a dict key or a set member."""
    p = rs.UnifiedBuffer(1024).alloc(rs.uint8, 32).GetPhyAddr()
    with pytest.raises(TypeError):
        hash(p)
    assert p == p + 0
