"""The memory-level `Compare` and `Compares` (bit-packed uint8 results), lowered onto Reg ops as the 950 library builds
them: `CompareLevel2` / `CompareScalarLevel2` (kernel_operator_vec_compare_continuous_impl.h, kernel_operator_vec_cmp_impl.h)
for the first-n interface and `CompareLevel0{Normal,Counter}Mode` / `CompareScalarLevel0{Normal,Counter}Mode` for the
mask/repeat interfaces: `Reg::Compare` into a MaskReg, the predicate packed to one bit per element by `StoreUnAlign`
(b16/b32/b64) or `StoreAlign` (b8); the flexible-scalar Compares (`CompareScalarBothTensor*`, `CompareSrc0Scalar*`)
broadcast the scalar element once, before the loop. `Compare(src0, src1, cmpMode, mask, repeatParams)`, into the
compare-mask register, is `regsim._src.lowerings.cmpmask`'s.
"""

from __future__ import annotations

from typing import Any, cast

from regsim._src.engine.context import Ref
from regsim._src.lowerings import direct
from regsim._src.lowerings.checks import check_count, check_tensors, flexible_operands, run_flexible, run_lowering
from regsim._src.lowerings.cmpmask import compare_to_cmp_mask
from regsim._src.lowerings.fresh import FreshCall, arguments, fresh, member, repeat_extent
from regsim._src.lowerings.skeletons import load_blocks, load_scalar, vec_micro_mask
from regsim._src.lowerings.spec import CMP_MASK, FLEXIBLE, SCALAR_FIRST, Call, Form
from regsim._src.lowerings.structs import REPEAT_BYTES, BinaryRepeatParams, UnaryRepeatParams
from regsim._src.lowerings.vector_mask import repeat_plan
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE
from regsim._src.model.enums import CMPMODE
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import VL
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import ParameterError, message


def two_registers(dtype: type[dt.DType]) -> Any:
    """b64 runs two registers per iteration (RegTraitNumTwo), as the library's continuous VFs do."""
    return Reg.RegTraitNumTwo if dtype.itemsize == 8 else Reg.RegTraitNumOne


def cmp_elements(dtype: type[dt.DType]) -> int:
    """Elements one iteration of the first-n lowering compares: a register's, two for b64 (RegTraitNumTwo)."""
    return VL // dtype.itemsize * (2 if dtype.itemsize == 8 else 1)


@simd_vf
def compare_continuous_vf(
    dst: UbPtr[Any],
    src0: UbPtr[Any] | None,
    src1: UbPtr[Any] | None,
    scalar: tuple[Any, ...],
    cmp_mode: CMPMODE,
    count: int,
    scalar_idx: int = -1,
) -> None:
    """`CompareLevel2` / `CompareScalarLevel2`: per iteration `UpdateMask`, `LoadAlign`, `Reg::Compare` (or
    `Compares`) into a MaskReg, the predicate stored one bit per element: b8 by `StoreAlign` (32 bytes at
    dst + i * 32), b16/b32 by `StoreUnAlign` through `(T*&)dst`, b64 through `(uint32_t*&)dst` (its
    RegTraitNumTwo predicate holds element i at bit 4i); `StoreUnAlignPost` flushes the stream. With
    `scalar_idx` 0 or 1, `CompareScalarBothTensorLevel2` / `CompareScalarLevel2B64` (the flexible-scalar
    Compares): source `scalar_idx` broadcast from its element 0 once, before the loop, then `Reg::Compare`; with
    `scalar_idx` 0 and `scalar` given, `CompareSrc0ScalarLevel2` (an immediate first: `Duplicate` of it)."""
    p0 = cast("UbPtr[Any]", src0)  # (None only for an immediate first, which is never loaded)
    T = (src1 if src1 is not None and scalar_idx == 0 else p0).dtype
    trait = two_registers(T)
    repeat_elm = cmp_elements(T)  # GetVecLen() / sizeof(T) (* 2 for b64)
    repeat_time = -(-count // repeat_elm)  # CeilDivision(calCount, repeatElm)
    sreg = Ref(count)  # uint32_t sreg = calCount;
    dst_reg = Reg.MaskReg()  # MaskReg dstReg;
    ureg = Reg.UnalignRegForStore()  # UnalignReg uReg;
    src0_reg = Reg.RegTensor(T, trait=trait)
    src1_reg = Reg.RegTensor(T, trait=trait)
    stream = dst.reinterpret(dt.uint32 if T.itemsize == 8 else T)  # (__ubuf__ T*&)dst / (__ubuf__ uint32_t*&)dst
    if scalar_idx == 0 and scalar:  # CompareSrc0Scalar*: an immediate first
        Reg.Duplicate(src0_reg, scalar[0])  # Duplicate(src0Reg, src0);
    elif scalar_idx == 0:
        load_scalar(src0_reg, p0)  # LoadAlign<T, pattern>(src0Reg, src0);
    elif scalar_idx == 1:
        assert src1 is not None
        load_scalar(src1_reg, src1)  # LoadAlign<T, pattern>(src1Reg, src1);
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # mask = UpdateMask<T[, RegTraitNumTwo]>(sreg);
        if scalar_idx != 0:
            Reg.LoadAlign(src0_reg, p0 + i * repeat_elm)  # LoadAlign(src0Reg, src0 + i * repeatElm);
        if src1 is None:
            Reg.Compares(dst_reg, src0_reg, scalar[0], mask, mode=cmp_mode)  # CompareScalar<T, cmpMode>(...)
        else:
            if scalar_idx != 1:
                Reg.LoadAlign(src1_reg, src1 + i * repeat_elm)  # LoadAlign(src1Reg, src1 + i * repeatElm);
            Reg.Compare(dst_reg, src0_reg, src1_reg, mask, mode=cmp_mode)  # Compare<T, cmpMode>(dstReg, ...);
        if T.itemsize == 1:
            Reg.StoreAlign(dst + i * (repeat_elm // 8), dst_reg)  # StoreAlign(dst + i * offset, dstReg);
        else:
            Reg.StoreUnAlign(stream, dst_reg, ureg)  # StoreUnAlign(dstT, dstReg, uReg);
    if T.itemsize > 1:
        Reg.StoreUnAlignPost(stream, ureg, 0)  # StoreUnAlignPost<T, POST_MODE_NORMAL>(dstT, uReg, 0): a post-update by 0


@simd_vf
def compare_repeat_vf(
    dst: UbPtr[Any],
    src0: UbPtr[Any] | None,
    src1: UbPtr[Any] | None,
    scalar: tuple[Any, ...],
    cmp_mode: CMPMODE,
    strides: tuple[int, ...],
    mask_count: int,
    repeat_time: int,
    normal_mode: bool,
    spr_mask: bool,
    scalar_idx: int = -1,
) -> None:
    """`CompareLevel0NormalMode` / `CompareLevel0CounterMode` (and the `CompareScalarLevel0*` twins): the
    sources read as DataBlocks with their block strides at their repeat strides, the predicate of each
    repeat appended to dst as one bit per element (`StoreUnAlign`): dst's strides are not used. `strides`:
    (src0Blk, src0Rep[, src1Blk, src1Rep]). With `scalar_idx` 0 or 1, `CompareScalarBothTensorLevel0*Mode`
    (the flexible-scalar Compares): source `scalar_idx` broadcast from its element 0 once, before the loop;
    the other read with `strides` (the UnaryRepeatParams' src strides); with `scalar_idx` 0 and `scalar` given,
    `CompareSrc0ScalarLevel0*Mode` (an immediate first: `Duplicate` of it)."""
    p0 = cast("UbPtr[Any]", src0)  # (None only for an immediate first, which is never loaded)
    T = (src1 if src1 is not None and scalar_idx == 0 else p0).dtype
    count, new_repeat_times, mask_reg = vec_micro_mask(T, mask_count, repeat_time, normal_mode, spr_mask)
    e = ONE_BLOCK_SIZE // T.itemsize
    src0_reg = Reg.RegTensor(T)
    src1_reg = Reg.RegTensor(T)
    dst_reg = Reg.MaskReg()
    ureg = Reg.UnalignRegForStore()
    stream = dst.reinterpret(T)
    if scalar_idx == 0 and scalar:  # CompareSrc0Scalar*: an immediate first
        Reg.Duplicate(src0_reg, scalar[0])  # Duplicate(src0Reg, src0);
    elif scalar_idx == 0:
        load_scalar(src0_reg, p0)  # LoadAlign<T, pattern>(src0Reg, src0);
    elif scalar_idx == 1:
        assert src1 is not None
        load_scalar(src1_reg, src1)  # LoadAlign<T, pattern>(src1Reg, src1);
    for i in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(T, count)  # maskReg = UpdateMask<T>(sreg);
        if scalar_idx != 0:
            load_blocks(src0_reg, p0 + i * strides[1] * e, strides[0], mask_reg)
        if src1 is None:
            Reg.Compares(dst_reg, src0_reg, scalar[0], mask_reg, mode=cmp_mode)
        else:
            if scalar_idx == 0:
                load_blocks(src1_reg, src1 + i * strides[1] * e, strides[0], mask_reg)
            elif scalar_idx != 1:
                load_blocks(src1_reg, src1 + i * strides[3] * e, strides[2], mask_reg)
            Reg.Compare(dst_reg, src0_reg, src1_reg, mask_reg, mode=cmp_mode)
        Reg.StoreUnAlign(stream, dst_reg, ureg)  # StoreUnAlign((__ubuf__ T*&)dst, dstReg, uReg);
    Reg.StoreUnAlignPost(stream, ureg, 0)  # StoreUnAlignPost<U, POST_MODE_NORMAL>(dst, uReg, 0): a post-update by 0


def _check_dst_bytes(api: str, dst: LocalTensor[Any], needed: int) -> None:
    if dst.nbytes < needed:
        accepted = f"a LocalTensor of at least {needed} bytes (one bit per compared element, whole iterations)"
        raise ParameterError(message(api, "dst", f"a LocalTensor of {dst.nbytes} bytes", accepted))


def _check_dst(api: str, c: Call, src: LocalTensor[Any]) -> LocalTensor[Any]:
    dst: LocalTensor[Any] = c["dst"]
    check_tensors(api, c.iface.param("dst").dtypes, ("dst",), (dst,))  # type: ignore[arg-type]
    if dst.ub is not src.ub:
        raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor in the same UnifiedBuffer as src0"))
    return dst


def _check_whole_count(api: str, c: Call, dtype: type[dt.DType], names: tuple[str, ...], ts: tuple[Any, ...]) -> int:
    """The first-n count: whole 256 bytes of elements (the pages), dst long enough for its bits."""
    n = check_count(api, c["count"], names, ts)
    if n * dtype.itemsize % REPEAT_BYTES:
        accepted = f"a count whose elements fill whole 256 bytes (a multiple of {REPEAT_BYTES // dtype.itemsize})"
        raise ParameterError(message(api, "count", n, accepted))
    per = cmp_elements(dtype)
    _check_dst_bytes(api, c["dst"], -(-n // per) * per // 8)
    return n


def _repeat(api: str, c: Call, dtype: type[dt.DType]) -> tuple[int, int, bool, bool]:
    """`repeat_plan` (which sets the vector mask register for a bit mask), then dst's bytes for the iterations it makes
    (should that check fail, the API's entry puts the vector mask register back)."""
    plan = repeat_plan(api, dtype, c["mask"], c["repeat_time"], c["is_set_mask"])
    lanes = VL // dtype.itemsize
    iterations = plan[1] if plan[2] else -(-plan[0] // lanes)
    _check_dst_bytes(api, c["dst"], iterations * lanes // 8)
    return plan


def compare(c: Call) -> None:
    """`Compare(dst, src0, src1, cmpMode, count)` / `(..., mask, repeatTime, repeatParams)`; without dst, into the
    compare-mask register (`regsim._src.lowerings.cmpmask`)."""
    if c.iface.variant == CMP_MASK:
        compare_to_cmp_mask(c)
        return
    api, mode = c.api, c["cmp_mode"]
    names, srcs = ("src0", "src1"), (c["src0"], c["src1"])
    dtype = check_tensors(api, c.iface.dtypes, names, srcs)
    _check_dst(api, c, srcs[0])
    ptrs = (c["dst"].GetPhyAddr(), srcs[0].GetPhyAddr(), srcs[1].GetPhyAddr())
    if c.form is Form.COUNT:  # tensor 前n个数据计算
        n = _check_whole_count(api, c, dtype, names, srcs)
        if direct.run_compare(api, mode, c["dst"], srcs[0], srcs[1], n):  # (the common case at once)
            return
        run_lowering(api, compare_continuous_vf, *ptrs, (), mode, n)
        return
    mask_count, repeats, normal, spr = _repeat(api, c, dtype)
    p = c["repeat_params"]
    strides = (p.src0BlkStride, p.src0RepStride, p.src1BlkStride, p.src1RepStride)
    run_lowering(api, compare_repeat_vf, *ptrs, (), mode, strides, mask_count, repeats, normal, spr)


def compares(c: Call) -> None:
    """`Compares(dst, src0, src1Scalar, cmpMode, count)` / `(..., mask, repeatTime, repeatParams)`, and the 950
    flexible-scalar overloads (灵活标量位置): both sources LocalTensors (`config.scalarTensorIndex` says which one's
    element 0 is the scalar: `VcmpvsImpl<..., scalarIdx>`) or an immediate first (`VcmpvsImpl(dst, src0, src1Ptr, ...)`)."""
    api, mode = c.api, c["cmp_mode"]
    scalar: tuple[Any, ...] = ()
    idx = -1
    if c.iface.variant == FLEXIBLE:
        dtype, idx, vec_name, vec = flexible_operands(
            api, c.iface.dtypes, c["dst"], c["src0"], c["src1"], c["config"], dst_typed=False
        )
    elif c.iface.variant == SCALAR_FIRST:
        vec_name, vec, idx, scalar = "src1", c["src1"], 0, (c["src0"],)
        dtype = check_tensors(api, c.iface.dtypes, (vec_name,), (vec,))
    else:
        vec_name, vec, scalar = "src0", c["src0"], (c["src1_scalar"],)
        dtype = check_tensors(api, c.iface.dtypes, (vec_name,), (vec,))
    _check_dst(api, c, vec)
    first = None if c.iface.variant != FLEXIBLE and vec_name == "src1" else c["src0"].GetPhyAddr()
    second = c["src1"].GetPhyAddr() if c.iface.variant else None
    ptrs = (c["dst"].GetPhyAddr(), first, second)
    if c.form is Form.COUNT:  # tensor 前n个数据计算
        n = _check_whole_count(api, c, dtype, (vec_name,), (vec,))
        if idx < 0 and direct.run_compare(api, mode, c["dst"], vec, direct.Scalar(scalar[0]), n):  # (at once)
            return
        if idx < 0:
            run_lowering(api, compare_continuous_vf, *ptrs, scalar, mode, n)
        else:
            run_flexible(api, (vec_name, vec, n), compare_continuous_vf, *ptrs, scalar, mode, n, idx)
        return
    mask_count, repeats, normal, spr = _repeat(api, c, dtype)
    p = c["repeat_params"]
    strides = (p.srcBlkStride, p.srcRepStride)
    run_lowering(api, compare_repeat_vf, *ptrs, scalar, mode, strides, mask_count, repeats, normal, spr, idx)


def explore(scalar: bool) -> Any:
    """`regsim lower "Compare(float32, cmp_mode=LT, count=256)"` / `"Compares(half, cmp_mode=GE, scalar_value=1.5,
    mask=64, repeat_time=2)"`: the call on fresh tensors of random data, dst a uint8 bit array."""

    def build(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
        mode = member("cmp_mode", CMPMODE, kw.pop("cmp_mode", None))
        value = kw.pop("scalar_value", 0)
        if set(kw) == {"count"}:
            n, rest = int(kw["count"]), (kw["count"],)
        elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "repeat_params"}:
            n, rest = repeat_extent(dtype, kw, UnaryRepeatParams if scalar else BinaryRepeatParams)
        else:
            raise arguments(kw, "cmp_mode=M and count=N, or mask=M, repeat_time=R [, repeat_params]")
        bits = -(-max(n, 1) // 8) + 2 * ONE_BLOCK_SIZE
        dst, *srcs = fresh([(dt.uint8, bits), *[(dtype, n)] * (1 if scalar else 2)])
        return (dst, srcs[0], value if scalar else srcs[1], mode, *rest), {}

    return build
