"""More memory-level (`LocalTensor`) Ascend C APIs lowered onto Reg ops as the 950 library builds them:
`Compare`, `Compares` (bit-packed uint8 results), `Duplicate`, `ShiftLeft`, `ShiftRight`.

Each API is a `@simd_vf` kernel over `Reg` calls, the same VF the 950 library (dav_3510) runs, on the
skeletons of `regsim._src.lowerings.elementwise` (parameter checks, the vector-mask register and mask mode, the
"a failed call writes nothing" wrapper, the lowering explorer):

- `Compare` / `Compares`: `CompareLevel2` / `CompareScalarLevel2` (kernel_operator_vec_compare_continuous_impl.h,
  kernel_operator_vec_cmp_impl.h) for the first-n interface and `CompareLevel0{Normal,Counter}Mode` /
  `CompareScalarLevel0{Normal,Counter}Mode` for the mask/repeat interfaces: `Reg::Compare` into a MaskReg,
  the predicate packed to one bit per element by `StoreUnAlign` (b16/b32/b64) or `StoreAlign` (b8);
- `Duplicate`: `DuplicateFromScalarImpl` / `DuplicateFromTensorImpl` / `VecDupLevel0VFImpl`
  (kernel_operator_vec_duplicate_impl.h): one `Reg::Duplicate` under a full mask, then stores;
- `ShiftLeft` / `ShiftRight`: `VecBinaryScalarLevel2ImplTemplate` / `VecBinaryScalarLevel0Template` over
  `Reg::ShiftLefts<T, int16_t>` / `Reg::ShiftRights<T, int16_t>` (kernel_operator_vec_binary_scalar_impl.h).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar, cast

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import (
    arguments_error,
    as_uint,
    check_config,
    check_count,
    check_set_mask,
    check_tensors,
    flexible_operands,
    host_only,
    run_flexible,
    run_lowering,
    unchanged_on_error,
)
from regsim._src.lowerings.cmpmask import compare_to_cmp_mask, select_by_cmp_mask
from regsim._src.lowerings.elementwise import APIS, SPEC_BUILDERS, Lowering, UnaryApi, lower
from regsim._src.lowerings.skeletons import (
    binary_continuous_vf,
    load_blocks,
    load_scalar,
    select_blocks,
    store_blocks,
    trait_for,
    vec_micro_mask,
)
from regsim._src.lowerings.structs import REPEAT_BYTES, BinaryConfig, BinaryRepeatParams, UnaryRepeatParams
from regsim._src.lowerings.vector_mask import repeat_plan
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import host_api, host_method
from regsim._src.model.config import ONE_BLOCK_SIZE, configure, current_config
from regsim._src.model.enums import CMPMODE, SELMODE, expected_member
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf
from regsim.errors import DTypeError, ParameterError, UninitializedReadError, UnsupportedError, message

T = TypeVar("T", bound=dt.DType)

_B16_B32: Final = frozenset({dt.half, dt.uint16, dt.int16, dt.bfloat16, dt.uint32, dt.int32, dt.float32})
_INTS8: Final = frozenset({dt.uint8, dt.int8})
_WIDE: Final = frozenset({dt.int64, dt.uint64})


def _two(dtype: type[dt.DType]) -> Any:
    """b64 runs two registers per iteration (RegTraitNumTwo), as the library's continuous VFs do."""
    return Reg.RegTraitNumTwo if dtype.itemsize == 8 else Reg.RegTraitNumOne


# --- Compare / Compares ----------------------------------------------------------------------------------------
#: the Compare page (Ascend 950): T for the first-n interface and for the mask/repeat interfaces (double,
#: which the page lists for the first-n interface, has no regsim dtype); U (dst): int8_t, uint8_t
COMPARE_COUNT: Final = _B16_B32 | _INTS8 | _WIDE
COMPARE_REPEAT: Final = _B16_B32
COMPARE_DST: Final = frozenset({dt.uint8, dt.int8})
COMPARES_DST: Final = frozenset({dt.uint8})  #: the Compares page: U is uint8_t only


def _cmp_elements(dtype: type[dt.DType]) -> int:
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
    trait = _two(T)
    repeat_elm = _cmp_elements(T)  # GetVecLen() / sizeof(T) (* 2 for b64)
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


def _check_cmp_mode(api: str, cmp_mode: object) -> CMPMODE:
    if not isinstance(cmp_mode, CMPMODE):
        raise ParameterError(message(api, "cmp_mode", repr(cmp_mode), expected_member(CMPMODE, cmp_mode, "rs.AscendC")))
    return cmp_mode


def _check_dst_bytes(api: str, dst: LocalTensor[Any], needed: int) -> None:
    if dst.nbytes < needed:
        accepted = f"a LocalTensor of at least {needed} bytes (one bit per compared element, whole iterations)"
        raise ParameterError(message(api, "dst", f"a LocalTensor of {dst.nbytes} bytes", accepted))


def _check_cmp_dst(api: str, dst: object, accepted: frozenset[type[dt.DType]], src: LocalTensor[Any]) -> LocalTensor[Any]:
    if not isinstance(dst, LocalTensor):
        raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor"))
    check_tensors(api, accepted, ("dst",), (dst,))
    if dst.ub is not src.ub:
        raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor in the same UnifiedBuffer as src0"))
    return dst


def _plan(
    api: str,
    dtype: type[dt.DType],
    mask: object,
    repeat_time: object,
    params: Any,
    is_set_mask: bool,
    check: Callable[[int], None],
) -> tuple[int, int, bool, bool]:
    """`repeat_plan` (which sets the vector mask register for a bit mask), then `check(iterations)` (should
    that check fail, the API's entry puts the vector mask register back)."""
    plan = repeat_plan(api, dtype, mask, repeat_time, params, type(params), is_set_mask)
    check(plan[1] if plan[2] else -(-plan[0] // (VL // dtype.itemsize)))
    return plan


class _CompareApi:
    """`Compare(dst, src0, src1, cmpMode, ...)` (`scalar=False`) or `Compares(dst, src0, src1Scalar, cmpMode, ...)`;
    `Compare(src0, src1, cmpMode, mask, repeatParams)` (no dst: `cmp_mode` then holds the mask) is
    regsim._src.lowerings.cmpmask's."""

    def __init__(self, name: str, scalar: bool) -> None:
        self.name = name
        self.scalar = scalar
        self.__name__ = name

    def __repr__(self) -> str:
        return f"AscendC.{self.name}"

    @host_method
    @unchanged_on_error
    def __call__(
        self,
        dst: LocalTensor[Any],
        src0: Any,
        src1: Any,
        cmp_mode: Any,
        *args: Any,
        is_set_mask: bool = True,
        config: BinaryConfig | None = None,
    ) -> None:
        api = self.name
        if not self.scalar and config is not None:
            raise ParameterError(message(api, "config", repr(config), "no config (Compare has no BinaryConfig)"))
        if not self.scalar and isinstance(src1, CMPMODE) and len(args) == 1:  # Compare(src0, src1, cmpMode, mask, params)
            return compare_to_cmp_mask(dst, src0, src1, cmp_mode, args[0], is_set_mask)
        host_only(api)
        if self.scalar and (isinstance(src1, LocalTensor) or not isinstance(src0, LocalTensor)):
            return self._flexible(dst, src0, src1, cmp_mode, args, is_set_mask, config)
        if config is not None:
            check_config(api, config)  # (C++ ignores config when the scalar is not a LocalTensor element)
        src_names = ("src0",) if self.scalar else ("src0", "src1")
        srcs = (src0,) if self.scalar else (src0, src1)
        head = "(dst, src0, src1_scalar, cmp_mode, " if self.scalar else "(dst, src0, src1, cmp_mode, "
        if len(args) not in (1, 3):
            raise arguments_error(api, len(args) + 4, f"{head}count) or {head}mask, repeat_time, repeat_params)")
        mode = _check_cmp_mode(api, cmp_mode)
        if not self.scalar and not is_set_mask:
            raise ParameterError(message(api, "is_set_mask", repr(is_set_mask), "True (a reserved parameter: keep the default)"))
        if len(args) == 1:  # tensor 前n个数据计算
            check_set_mask(api, is_set_mask)
            dtype = check_tensors(api, COMPARE_COUNT, src_names, srcs)
            _check_cmp_dst(api, dst, COMPARES_DST if self.scalar else COMPARE_DST, src0)
            n = check_count(api, args[0], src_names, srcs)
            if n * dtype.itemsize % REPEAT_BYTES:
                accepted = f"a count whose elements fill whole 256 bytes (a multiple of {REPEAT_BYTES // dtype.itemsize})"
                raise ParameterError(message(api, "count", n, accepted))
            per = _cmp_elements(dtype)
            _check_dst_bytes(api, dst, -(-n // per) * per // 8)
            scalar = (self._scalar(dtype, src1),) if self.scalar else ()
            ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), None if self.scalar else src1.GetPhyAddr())
            run_lowering(api, compare_continuous_vf, *ptrs, scalar, mode, n)
            return
        dtype = check_tensors(api, COMPARE_REPEAT, src_names, srcs)
        _check_cmp_dst(api, dst, COMPARES_DST if self.scalar else COMPARE_DST, src0)
        params_type = UnaryRepeatParams if self.scalar else BinaryRepeatParams
        lanes = VL // dtype.itemsize
        if not isinstance(args[2], params_type):  # checked here so that a bad struct writes no vector mask
            raise ParameterError(message(api, "repeat_params", repr(args[2]), f"a {params_type.__name__}"))
        mask_count, repeats, normal, spr = _plan(
            api, dtype, args[0], args[1], args[2], is_set_mask, lambda it: _check_dst_bytes(api, dst, it * lanes // 8)
        )
        p: Any = args[2]
        if self.scalar:
            strides: tuple[int, ...] = (p.srcBlkStride, p.srcRepStride)
        else:
            strides = (p.src0BlkStride, p.src0RepStride, p.src1BlkStride, p.src1RepStride)
        scalar = (self._scalar(dtype, src1),) if self.scalar else ()
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), None if self.scalar else src1.GetPhyAddr())
        run_lowering(api, compare_repeat_vf, *ptrs, scalar, mode, strides, mask_count, repeats, normal, spr)

    def _flexible(
        self, dst: Any, src0: Any, src1: Any, cmp_mode: Any, args: tuple[Any, ...], is_set_mask: bool, config: object
    ) -> None:
        """`Compares<T0, T1, isSetMask, config>(dst, src0, src1, cmpMode, ...)`, the 灵活标量位置 overloads: both sources
        LocalTensors (`config.scalarTensorIndex` says which one's element 0 is the scalar: `VcmpvsImpl<..., scalarIdx>`)
        or an immediate first (`VcmpvsImpl(dst, src0, src1Ptr, ...)`)."""
        api = self.name
        head = "(dst, src0, src1, cmp_mode, "
        if len(args) not in (1, 3):
            raise arguments_error(api, len(args) + 4, f"{head}count) or {head}mask, repeat_time, repeat_params)")
        mode = _check_cmp_mode(api, cmp_mode)
        dtypes = COMPARE_COUNT if len(args) == 1 else COMPARE_REPEAT
        scalar: tuple[Any, ...] = ()
        if isinstance(src0, LocalTensor):
            dtype, idx, vec_name, vec = flexible_operands(api, dtypes, dst, src0, src1, config, dst_typed=False)
        elif isinstance(src1, LocalTensor):  # an immediate first: `VcmpvsImpl(dst, src0, src1Ptr, ...)`
            check_config(api, config)
            dtype, idx, vec_name, vec, scalar = check_tensors(api, dtypes, ("src1",), (src1,)), 0, "src1", src1, (src0,)
        else:
            raise ParameterError(message(api, "src1", repr(src1), "a LocalTensor (one of src0 and src1 must be a tensor)"))
        if len(args) == 1:  # tensor 前n个数据计算
            check_set_mask(api, is_set_mask)
            _check_cmp_dst(api, dst, COMPARES_DST, vec)
            n = check_count(api, args[0], (vec_name,), (vec,))
            if n * dtype.itemsize % REPEAT_BYTES:
                accepted = f"a count whose elements fill whole 256 bytes (a multiple of {REPEAT_BYTES // dtype.itemsize})"
                raise ParameterError(message(api, "count", n, accepted))
            per = _cmp_elements(dtype)
            _check_dst_bytes(api, dst, -(-n // per) * per // 8)
            ptrs = (dst.GetPhyAddr(), None if scalar else src0.GetPhyAddr(), src1.GetPhyAddr())
            run_flexible(api, (vec_name, vec, n), compare_continuous_vf, *ptrs, scalar, mode, n, idx)
            return
        _check_cmp_dst(api, dst, COMPARES_DST, vec)
        lanes = VL // dtype.itemsize
        if not isinstance(args[2], UnaryRepeatParams):  # checked here so that a bad struct writes no vector mask
            raise ParameterError(message(api, "repeat_params", repr(args[2]), "a UnaryRepeatParams"))
        mask_count, repeats, normal, spr = _plan(
            api, dtype, args[0], args[1], args[2], is_set_mask, lambda it: _check_dst_bytes(api, dst, it * lanes // 8)
        )
        strides = (args[2].srcBlkStride, args[2].srcRepStride)
        ptrs = (dst.GetPhyAddr(), None if scalar else src0.GetPhyAddr(), src1.GetPhyAddr())
        run_lowering(api, compare_repeat_vf, *ptrs, scalar, mode, strides, mask_count, repeats, normal, spr, idx)

    def _scalar(self, dtype: type[dt.DType], value: object) -> Any:
        if isinstance(value, LocalTensor):
            raise ParameterError(message(self.name, "src1_scalar", repr(value), f"a scalar of {dtype.name}"))
        return value


Compare: Final = _CompareApi("Compare", scalar=False)
Compares: Final = _CompareApi("Compares", scalar=True)


# --- Duplicate ---------------------------------------------------------------------------------------------------
#: the Duplicate page (Ascend 950): every type for the first-n interface; b16/b32 for the mask/repeat ones
DUPLICATE_COUNT: Final = (
    _B16_B32
    | _INTS8
    | _WIDE
    | {dt.bool_, dt.fp4x2_e2m1, dt.fp4x2_e1m2, dt.hifloat8, dt.fp8_e8m0, dt.fp8_e5m2, dt.fp8_e4m3fn, dt.complex32, dt.complex64}
)
DUPLICATE_REPEAT: Final = _B16_B32


def _dup_trait(dtype: type[dt.DType]) -> Any:
    """`DuplicateImpl`: uint64_t, int64_t, complex32 and complex64 run RegTraitNumTwo."""
    return Reg.RegTraitNumTwo if dtype.itemsize == 8 or dtype is dt.complex32 else Reg.RegTraitNumOne


@simd_vf
def duplicate_continuous_vf(dst: UbPtr[Any], value: Any, src: UbPtr[Any] | None, count: int) -> None:
    """`DuplicateFromScalarImpl` / `DuplicateFromTensorImpl`: one `Reg::Duplicate` under a full mask (of the
    scalar, or of element 0 of a register loaded from src), then `UpdateMask` + `StoreAlign` per register."""
    T = dst.dtype
    trait = _dup_trait(T)
    dst_reg = Reg.RegTensor(T, trait=trait)  # RegType dstReg;
    sreg = Ref(count)  # uint32_t sreg = calCount;
    repeat_stride = VL // T.itemsize * trait.REG_NUM
    repeat_time = -(-count // repeat_stride)
    mask_full = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL, trait=trait)  # CreateMask<T, ALL, trait>();
    if src is None:
        Reg.Duplicate(dst_reg, value, mask_full)  # Duplicate(dstReg, scalarValue, maskFull);
    else:
        src_reg = Reg.RegTensor(T, trait=trait)
        Reg.LoadAlign(src_reg, src)  # LoadAlign(srcReg, srcLocal);
        Reg.Duplicate(dst_reg, src_reg, mask_full)  # Duplicate(dstReg, srcReg, maskFull);
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # mask = UpdateMask<T, trait>(sreg);
        Reg.StoreAlign(dst + i * repeat_stride, dst_reg, mask)  # StoreAlign(dstLocal + i * repeatStride, dstReg, mask);


@simd_vf
def duplicate_repeat_vf(
    dst: UbPtr[Any],
    value: Any,
    mask_count: int,
    repeat_time: int,
    dst_block_stride: int,
    dst_repeat_stride: int,
    normal_mode: bool,
    spr_mask: bool,
) -> None:
    """`VecDupLevel0VFImpl`: the scalar broadcast once under a full mask, then one DATA_BLOCK_COPY store per
    repeat with the predicate of `vec_binary_vf`."""
    T = dst.dtype
    count, new_repeat_times, mask_reg = vec_micro_mask(T, mask_count, repeat_time, normal_mode, spr_mask)
    mask_full = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL)
    dst_reg = Reg.RegTensor(T)
    e = ONE_BLOCK_SIZE // T.itemsize
    Reg.Duplicate(dst_reg, value, mask_full)  # Duplicate(dstVreg, scalarValue, maskFull);
    for i in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(T, count)
        store_blocks(dst + i * dst_repeat_stride * e, dst_reg, dst_block_stride, mask_reg)


@host_api("Duplicate")
@unchanged_on_error
def Duplicate(dst: LocalTensor[T], value: Any, *args: Any, is_set_mask: bool = True) -> None:
    """`AscendC::Duplicate(dst, scalarValue, count)`, `Duplicate(dst, src, count)` (src's element 0; Ascend 950
    only) and `Duplicate(dst, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride)`."""
    api = "Duplicate"
    host_only(api)
    forms = (
        "(dst, scalar_value, count), (dst, src, count) or "
        "(dst, scalar_value, mask, repeat_time, dst_block_stride, dst_repeat_stride)"
    )
    if len(args) not in (1, 4):
        raise arguments_error(api, len(args) + 2, forms)
    if len(args) == 1:
        check_set_mask(api, is_set_mask)
        if isinstance(value, LocalTensor):
            dtype = check_tensors(api, DUPLICATE_COUNT, ("dst", "src"), (dst, value))
            n = check_count(api, args[0], ("dst",), (dst,))
            valid = value.ub.storage.valid
            if (
                valid is not None
                and current_config().check_uninitialized
                and not valid[value.addr : value.addr + dtype.itemsize].all()
            ):
                raise UninitializedReadError(f"{api}: src element 0 is read but was never written")
            # The library loads a whole register from src and broadcasts its element 0: only that element is
            # checked for initialisation (above); the rest of the register is never used.
            with configure(check_uninitialized=False):
                run_lowering(api, duplicate_continuous_vf, dst.GetPhyAddr(), None, value.GetPhyAddr(), n)
            return
        dtype = check_tensors(api, DUPLICATE_COUNT, ("dst",), (dst,))
        n = check_count(api, args[0], ("dst",), (dst,))
        run_lowering(api, duplicate_continuous_vf, dst.GetPhyAddr(), value, None, n)
        return
    if isinstance(value, LocalTensor):
        raise ParameterError(
            message(api, "scalar_value", repr(value), "a scalar (the mask/repeat interfaces take no src tensor)")
        )
    dtype = check_tensors(api, DUPLICATE_REPEAT, ("dst",), (dst,))
    mask, repeat_time, blk, rep = args
    blk = as_uint(api, "dst_block_stride", blk, 16)
    rep = as_uint(api, "dst_repeat_stride", rep, 8)
    plan = repeat_plan(api, dtype, mask, repeat_time, UnaryRepeatParams(), UnaryRepeatParams, is_set_mask)
    run_lowering(api, duplicate_repeat_vf, dst.GetPhyAddr(), value, plan[0], plan[1], blk, rep, plan[2], plan[3])


# --- ShiftLeft / ShiftRight --------------------------------------------------------------------------------------
SHIFT_COUNT: Final = frozenset({dt.uint8, dt.int8, dt.int16, dt.uint16, dt.int32, dt.uint32, dt.int64, dt.uint64})
SHIFT_REPEAT: Final = frozenset({dt.int16, dt.uint16, dt.int32, dt.uint32})
_INT16_MAX: Final = 2**15 - 1


@simd_callee
def reg_shift_lefts(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`Reg::ShiftLefts<T, int16_t, ZEROING>`: the library passes the T scalar on as an int16_t."""
    Reg.ShiftLefts(dst_reg, src_reg, np.int16(scalar_value), mask, mode=mode)


@simd_callee
def reg_shift_rights(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`Reg::ShiftRights<T, int16_t, ZEROING>`: the library passes the T scalar on as an int16_t."""
    Reg.ShiftRights(dst_reg, src_reg, np.int16(scalar_value), mask, mode=mode)


class _ShiftApi(UnaryApi):
    """`ShiftLeft` / `ShiftRight(dst, src, scalarValue, ...)`: the tensor-scalar skeleton over `Reg::ShiftLefts` /
    `ShiftRights`; the scalar (the shift amount, of type T) must be >= 0 (the pages) and at most 2**15 - 1 (the
    library passes it on as an int16_t); `ShiftRight`'s `roundEn` must be false on Ascend 950."""

    @host_method
    @unchanged_on_error
    def __call__(
        self,
        dst: LocalTensor[T],
        src: LocalTensor[T],
        *args: Any,
        is_set_mask: bool = True,
        config: BinaryConfig | None = None,
        round_en: bool = False,
    ) -> None:
        api = self.name
        host_only(api)
        if config is not None:
            raise ParameterError(message(api, "config", repr(config), f"no config ({api} has no BinaryConfig)"))
        rest = list(args)
        if rest and isinstance(rest[0], LocalTensor):  # 左移位数为Tensor / 右移位数为Tensor
            self._tensor_amounts(dst, src, rest[0], rest[1:], is_set_mask, round_en)
            return
        if api == "ShiftRight" and len(rest) == 5:  # (scalar, mask, repeat_time, repeat_params, roundEn)
            round_en = rest.pop()
        if round_en is not False:
            if api != "ShiftRight" or len(rest) != 4:
                raise ParameterError(
                    message(api, "round_en", repr(round_en), "only ShiftRight's mask/repeat interfaces take roundEn")
                )
            raise UnsupportedError(message(api, "round_en", repr(round_en), "False (Ascend 950 does not support rounding)"))
        if rest and isinstance(dst, LocalTensor) and dst.dtype in SHIFT_COUNT:
            amount = rest[0]
            if type(amount) is not int and not isinstance(amount, np.integer):
                raise ParameterError(message(api, "scalar_value", repr(amount), f"an int shift amount of {dst.dtype.name}"))
            if not 0 <= int(amount) <= _INT16_MAX:
                raise ParameterError(message(api, "scalar_value", int(amount), f"a shift amount in [0, {_INT16_MAX}]"))
        super().__call__(dst, src, *rest, is_set_mask=is_set_mask)

    def _tensor_amounts(
        self, dst: Any, src0: Any, src1: LocalTensor[Any], rest: list[Any], is_set_mask: bool, round_en: object
    ) -> None:
        """`ShiftLeft(dst, src0, src1, count)` / `ShiftRight(...)` with a LocalTensor of shift amounts (the pages
        "ShiftLeft（左移位数为Tensor）", "ShiftRight（右移位数为Tensor）"; `ShiftLeftImpl<T, U>` in
        kernel_operator_vec_binary_continuous_impl.h for dav_3510): the first-n interface only, src1 the signed type of
        src0's width (int8 ... int64), its used amounts >= 0 ("不支持设置为负数"); the two-type binary skeleton over the
        tensor-tensor `Reg::ShiftLeft<T, U>` / `ShiftRight<T, U>` (two registers per iteration for 64-bit types)."""
        api = self.name
        if len(rest) != 1:
            forms = "(dst, src0, src1, count): a shift-amount tensor has the first-n interface only"
            raise arguments_error(api, len(rest) + 3, forms)
        if round_en is not False:
            accepted = "only ShiftRight's mask/repeat interfaces take roundEn"
            raise ParameterError(message(api, "round_en", repr(round_en), accepted))
        check_set_mask(api, is_set_mask)
        dtype = check_tensors(api, SHIFT_COUNT, ("dst", "src0"), (dst, src0))
        amount_type = _SHIFT_AMOUNT[dtype.itemsize]
        if src1.dtype is not amount_type:
            given, accepted = f"a LocalTensor[{src1.dtype.name}]", f"a LocalTensor[{amount_type.name}] for {dtype.name}"
            raise DTypeError(message(api, "src1", given, accepted))
        check_tensors(api, frozenset({amount_type}), ("src1",), (src1,))
        if src1.ub is not dst.ub:
            raise ParameterError(message(api, "src1", repr(src1), "a LocalTensor in the same UnifiedBuffer as dst"))
        names, ts = ("dst", "src0", "src1"), (dst, src0, src1)
        n = check_count(api, rest[0], names, ts)
        amounts = src1.numpy()[:n]
        valid = src1.ub.storage.valid
        if valid is not None and n:  # (an unwritten amount is the lowering's UninitializedReadError)
            amounts = amounts[valid[src1.addr : src1.addr + n * src1.dtype.itemsize].reshape(n, -1).all(axis=1)]
        negative = amounts[amounts < 0]
        if negative.size:
            raise ParameterError(message(api, "src1", f"[..., {int(negative[0])}, ...]", "shift amounts >= 0"))
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
        run_lowering(api, binary_continuous_vf, self.tensor_op, *ptrs, n, trait_for(dtype))

    @property
    def tensor_op(self) -> Any:
        """The tensor-tensor Reg op of the shift-amount-tensor form."""
        return Reg.ShiftLeft if self.name == "ShiftLeft" else Reg.ShiftRight


#: the shift-amount tensor's type per element width (ShiftLeftImpl<T, U>'s Tuple list: U is the signed type of T's width)
_SHIFT_AMOUNT: Final = {1: dt.int8, 2: dt.int16, 4: dt.int32, 8: dt.int64}
ShiftLeft: Final = _ShiftApi("ShiftLeft", reg_shift_lefts, SHIFT_COUNT, SHIFT_REPEAT, scalar=True)
ShiftRight: Final = _ShiftApi("ShiftRight", reg_shift_rights, SHIFT_COUNT, SHIFT_REPEAT, scalar=True)


# --- the lowering explorer (`regsim lower "Compare(float32, cmp_mode=LT, count=256)"`) ------------------------------
def _fresh(tensors: Sequence[tuple[type[dt.DType], int]]) -> list[LocalTensor[Any]]:
    """Tensors of (dtype, elements), each rounded up to whole registers, of random bytes in one fresh UB."""

    sizes = [-(-max(n, 1) * d.itemsize // REPEAT_BYTES) * REPEAT_BYTES for d, n in tensors]
    ub = UnifiedBuffer(sum(sizes) + 2 * REPEAT_BYTES)
    rng = np.random.default_rng(0)
    out = []
    for (d, _), nbytes in zip(tensors, sizes, strict=True):
        t = ub.alloc(d, nbytes // d.itemsize)
        ub.storage.write(t.addr, rng.integers(0, 256, nbytes, dtype=np.uint8))
        out.append(t)
    return out


def _spec_repeat(dtype: type[dt.DType], kw: dict[str, Any], struct: type) -> tuple[int, tuple[Any, ...]]:
    """Elements a mask/repeat spec reaches, and its (mask, repeat_time, repeat_params) arguments."""
    params = struct(*kw.get("repeat_params", ()))
    strides = attrs.astuple(params)
    half = len(strides) // 2
    repeats = max(int(kw["repeat_time"]), 1)
    e = ONE_BLOCK_SIZE // dtype.itemsize
    n = max(strides[half:]) * (repeats - 1) * e + max(*strides[:half], 1) * 8 * e
    mask = kw["mask"]
    return n, (list(mask) if isinstance(mask, (list, tuple)) else mask, kw["repeat_time"], params)


def _compare_spec(api: _CompareApi) -> Callable[[type[dt.DType], dict[str, Any]], Lowering]:
    def build(dtype: type[dt.DType], kw: dict[str, Any]) -> Lowering:
        mode_name = kw.pop("cmp_mode", None)
        mode = getattr(CMPMODE, str(mode_name), None)
        if not isinstance(mode, CMPMODE):
            raise ParameterError(message("lower", "cmp_mode", repr(mode_name), "one of LT, GT, EQ, LE, GE, NE"))
        scalar = kw.pop("scalar_value", 0)
        if set(kw) == {"count"}:
            n, rest = int(kw["count"]), (kw["count"],)
        elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "repeat_params"}:
            n, rest = _spec_repeat(dtype, kw, UnaryRepeatParams if api.scalar else BinaryRepeatParams)
        else:
            forms = "cmp_mode=M and count=N, or mask=M, repeat_time=R [, repeat_params]"
            raise ParameterError(message("lower", "arguments", sorted(kw), forms))
        bits = -(-max(n, 1) // 8) + 2 * ONE_BLOCK_SIZE
        dst, *srcs = _fresh([(dt.uint8, bits), *[(dtype, n)] * (1 if api.scalar else 2)])
        return lower(api, dst, srcs[0], scalar if api.scalar else srcs[1], mode, *rest)

    return build


def _duplicate_spec(dtype: type[dt.DType], kw: dict[str, Any]) -> Lowering:
    value = kw.pop("scalar_value", 1)
    if set(kw) == {"count"}:
        (dst,) = _fresh([(dtype, int(kw["count"]))])
        return lower(Duplicate, dst, value, kw["count"])
    keys = {"mask", "repeat_time", "dst_block_stride", "dst_repeat_stride"}
    if set(kw) != keys:
        forms = "scalar_value=V and count=N, or mask=M, repeat_time=R, dst_block_stride=B, dst_repeat_stride=S"
        raise ParameterError(message("lower", "arguments", sorted(kw), forms))
    e = ONE_BLOCK_SIZE // dtype.itemsize
    n = int(kw["dst_repeat_stride"]) * max(int(kw["repeat_time"]) - 1, 0) * e + max(int(kw["dst_block_stride"]), 1) * 8 * e
    (dst,) = _fresh([(dtype, n)])
    mask = kw["mask"]
    args = (
        list(mask) if isinstance(mask, (list, tuple)) else mask,
        kw["repeat_time"],
        kw["dst_block_stride"],
        kw["dst_repeat_stride"],
    )
    return lower(Duplicate, dst, value, *args)


# --- Select ---------------------------------------------------------------------------------------------------------
#: the Select page (Ascend 950): T for the first-n interface and the mask/repeat interfaces; U (selMask)
SELECT_COUNT: Final = _B16_B32 | _INTS8 | _WIDE | {dt.complex32, dt.complex64}
SELECT_REPEAT: Final = _B16_B32
SELECT_MASK: Final = frozenset({dt.uint8, dt.uint16, dt.uint32, dt.uint64})
_SELECT_BITS: Final[dict[type[dt.DType], type[dt.DType]]] = {dt.complex32: dt.uint32, dt.complex64: dt.uint64}


@simd_callee
def sel_load(T: type[dt.DType], sel: UbPtr[Any], i: int) -> MaskReg:
    """The select predicate of iteration `i` (selMask bits `i * E` on, E elements per iteration) as the library loads
    it for b8 (`LoadAlign<uint8_t>`: 32 bytes), b16 (`LoadAlign<uint8_t, DIST_US>`: 16 bytes, each bit doubled), b32
    un-paired (`DIST_US` at the pair's 16 bytes + `MaskUnPack`: its low half) and b64 (`LoadUnAlign` of the bytes at
    i * 8 + `MaskGenWithRegTensor<uint32_t, 0>`: 64 bits, each to 4 predicate bits)."""
    sel_mask = Reg.MaskReg()
    u8 = sel.reinterpret(dt.uint8)
    if T.itemsize == 1:
        Reg.LoadAlign(sel_mask, u8 + i * 32)
    elif T.itemsize == 2:
        Reg.LoadAlign(sel_mask, u8 + i * 16, dist=Reg.MaskDist.DIST_US)
    elif T.itemsize == 4:
        Reg.LoadAlign(sel_mask, u8 + i * 8, dist=Reg.MaskDist.DIST_US)
        Reg.UnPack(sel_mask, sel_mask)
    else:
        ureg = Reg.UnalignRegForLoad()
        sel_reg = Reg.RegTensor(dt.uint8)
        Reg.LoadUnAlignPre(ureg, u8 + i * 8)
        Reg.LoadUnAlign(sel_reg, ureg, u8 + i * 8)
        Reg.MaskGenWithRegTensor(sel_mask, sel_reg.reinterpret(dt.uint32), offset=0)
    return sel_mask


@simd_callee
def sel_load_pair(sel: UbPtr[Any], p: int) -> tuple[MaskReg, MaskReg]:
    """b32: the predicates of iterations 2p and 2p + 1 from 16 selMask bytes, as the library's unrolled loops do:
    `LoadAlign<uint8_t, DIST_US>` + `MaskInterleave<uint16_t>(sel0, sel1, tmp, all ones)`."""
    tmp0, sel0, sel1 = Reg.MaskReg(), Reg.MaskReg(), Reg.MaskReg()
    tmp1 = Reg.CreateMask(dt.uint8, pattern=Reg.MaskPattern.ALL)  # CreateMask<uint8_t, MaskPattern::ALL>();
    Reg.LoadAlign(tmp0, sel.reinterpret(dt.uint8) + p * 16, dist=Reg.MaskDist.DIST_US)
    Reg.Interleave(dt.uint16, sel0, sel1, tmp0, tmp1)  # MaskInterleave<uint16_t>(selMask0, selMask1, tmpMask0, tmpMask1);
    return sel0, sel1


@simd_callee
def sel_load_first(T: type[dt.DType], sel: UbPtr[Any]) -> MaskReg:
    """Mode 0 (VSEL_CMPMASK_SPR): the predicate of the first E selMask bits, loaded once and used by every
    iteration (`SelectMode0Level2` / `SelectMode0Level0`)."""
    if T.itemsize != 8:
        return sel_load(T, sel, 0)
    sel_mask, tmp = Reg.MaskReg(), Reg.MaskReg()
    ureg = Reg.UnalignRegForLoad()
    sel_reg = Reg.RegTensor(dt.uint32)
    Reg.LoadUnAlignPre(ureg, sel.reinterpret(dt.uint32))
    Reg.LoadUnAlign(sel_reg, ureg, sel.reinterpret(dt.uint32))
    Reg.MaskGenWithRegTensor(sel_mask, sel_reg, offset=0)
    Reg.Interleave(dt.uint32, sel_mask, tmp, sel_mask, sel_mask)  # MaskInterleave<uint32_t>(selMask, tmpMask, selMask, selMask);
    Reg.DeInterleave(dt.uint32, sel_mask, tmp, sel_mask, sel_mask)  # MaskDeInterleave<uint32_t>(...);
    return sel_mask


@simd_vf
def select_continuous_vf(
    dst: UbPtr[Any],
    sel: UbPtr[Any],
    src0: UbPtr[Any] | None,
    src1: UbPtr[Any] | None,
    scalar: tuple[Any, ...],
    sel_mode: int,
    count: int,
    scalar_idx: int = -1,
) -> None:
    """`SelectMode0Level2` / `SelectMode1Level2` / `SelectMode2Level2`: per iteration (one register; two for b64)
    `UpdateMask`, `LoadAlign` of the sources (mode 1: a register of the scalar, `Duplicate`d once), `Reg::Select` on
    the selMask predicate, `StoreAlign` under the count mask; b32 runs its iterations in pairs. With `scalar_idx`
    0 or 1, `SelectBothTensorMode1Level2` (the flexible-scalar mode 1): source `scalar_idx` broadcast from its
    element 0 once, before the loop (`load_scalar`), the other loaded per iteration; with `scalar_idx` 0 and `scalar`
    given, `SelectSrc0ScalarMode1Level2` (an immediate first: `Duplicate` of it)."""
    T = dst.dtype
    p0 = cast("UbPtr[Any]", src0)  # (None only for an immediate first, which is never loaded)
    trait = _two(T)
    repeat_elm = _cmp_elements(T)
    repeat_time = -(-count // repeat_elm)
    sreg = Ref(count)
    src0_reg = Reg.RegTensor(T, trait=trait)
    src1_reg = Reg.RegTensor(T, trait=trait)
    dst_reg = Reg.RegTensor(T, trait=trait)
    if src1 is None:
        Reg.Duplicate(src1_reg, scalar[0])  # Duplicate(src1Reg, (const T&)src1);
    elif scalar_idx == 0 and scalar:  # SelectSrc0ScalarMode1Level2: an immediate first
        Reg.Duplicate(src0_reg, scalar[0])  # Duplicate(src0Reg, (const T&)src0);
    elif scalar_idx >= 0:
        load_scalar(src1_reg if scalar_idx else src0_reg, src1 if scalar_idx else p0)  # LoadAlign<T, pattern>(...)
    first = sel_load_first(T, sel) if sel_mode == 0 else Reg.MaskReg()

    def one(i: int, sel_mask: MaskReg) -> None:
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # maskReg = UpdateMask<T, RegT::trait>(sreg);
        if scalar_idx != 0:
            Reg.LoadAlign(src0_reg, p0 + i * repeat_elm)  # LoadAlign<T>(src0Reg, src0 + i * repeatElm);
        if src1 is not None and scalar_idx != 1:
            Reg.LoadAlign(src1_reg, src1 + i * repeat_elm)  # LoadAlign<T>(src1Reg, src1 + i * repeatElm);
        Reg.Select(dst_reg, src0_reg, src1_reg, sel_mask)  # Select(dstReg, src0Reg, src1Reg, selMask);
        Reg.StoreAlign(dst + i * repeat_elm, dst_reg, mask)  # StoreAlign<T>(dst + i * repeatElm, dstReg, maskReg);

    if sel_mode == 0:
        for i in range(repeat_time):
            one(i, first)
    elif T.itemsize == 4:
        for p in range(repeat_time // 2):
            sel0, sel1 = sel_load_pair(sel, p)
            one(2 * p, sel0)
            one(2 * p + 1, sel1)
        for _ in range(repeat_time % 2):  # the tail: DIST_US at the pair's 16 bytes + MaskUnPack
            one(repeat_time - 1, sel_load(T, sel, repeat_time - 1))
    else:
        for i in range(repeat_time):
            one(i, sel_load(T, sel, i))


@simd_vf
def select_repeat_vf(
    dst: UbPtr[Any],
    sel: UbPtr[Any],
    src0: UbPtr[Any] | None,
    src1: UbPtr[Any] | None,
    scalar: tuple[Any, ...],
    sel_mode: int,
    p: tuple[int, ...],
    mask_count: int,
    repeat_time: int,
    normal_mode: bool,
    spr_mask: bool,
    scalar_idx: int = -1,
) -> None:
    """`SelectMode0Level0` / `SelectMode1Level0` / `SelectMode2Level0`: the mask/repeat interfaces (b16/b32), the
    predicate made as in `vec_binary_vf` (counter mode: `UpdateMask` per repeat), b32 modes 1 and 2 in pairs. With
    `scalar_idx` 0 or 1, `SelectBothTensorMode1Level0` (the flexible-scalar mode 1): source `scalar_idx` broadcast
    from its element 0 once, before the loop, the other read with its own strides (`scalar_idx` 0 with `scalar`:
    `SelectSrc0ScalarMode1Level0`, the immediate `Duplicate`d)."""
    T = dst.dtype
    count, repeats, mask_reg = vec_micro_mask(T, mask_count, repeat_time, normal_mode, spr_mask)
    regs = (Reg.RegTensor(T), Reg.RegTensor(T), Reg.RegTensor(T))
    if src1 is None:
        Reg.Duplicate(regs[1], scalar[0])  # Duplicate(scalarReg, (const T&)src1);
    elif scalar_idx == 0 and scalar:  # SelectSrc0ScalarMode1Level0: an immediate first
        Reg.Duplicate(regs[0], scalar[0])  # Duplicate(src0Reg, (const T&)src0);
    elif scalar_idx >= 0:
        load_scalar(regs[scalar_idx], src1 if scalar_idx else cast("UbPtr[Any]", src0))  # LoadAlign<T, pattern>(...);
    if sel_mode == 0:
        first = sel_load_first(T, sel)
        for i in range(repeats):
            if not normal_mode:
                mask_reg = Reg.UpdateMask(T, count)
            select_blocks(i, dst, src0, src1, regs, first, mask_reg, p, scalar_idx)
    elif T.itemsize == 4:
        for q in range(repeats // 2):
            sel0, sel1 = sel_load_pair(sel, q)
            if not normal_mode:
                mask_reg = Reg.UpdateMask(T, count)
            select_blocks(2 * q, dst, src0, src1, regs, sel0, mask_reg, p, scalar_idx)
            if not normal_mode:
                mask_reg = Reg.UpdateMask(T, count)
            select_blocks(2 * q + 1, dst, src0, src1, regs, sel1, mask_reg, p, scalar_idx)
        for _ in range(repeats % 2):
            if not normal_mode:  # the library recomputes this count wrongly (§ decisions); regsim continues the count
                mask_reg = Reg.UpdateMask(T, count)
            select_blocks(repeats - 1, dst, src0, src1, regs, sel_load(T, sel, repeats - 1), mask_reg, p, scalar_idx)
    else:
        for i in range(repeats):
            if not normal_mode:
                mask_reg = Reg.UpdateMask(T, count)
            select_blocks(i, dst, src0, src1, regs, sel_load(T, sel, i), mask_reg, p, scalar_idx)


@host_api("Select")
@unchanged_on_error
def Select(
    dst: LocalTensor[T],
    sel_mask: Any,
    src0: Any,
    src1: Any,
    *args: Any,
    sel_mode: SELMODE | None = None,
    config: BinaryConfig | None = None,
) -> None:
    """`AscendC::Select(dst, selMask, src0, src1, selMode, count)` and `Select(dst, selMask, src0, src1, selMode, mask,
    repeatTime, repeatParams)`: dst[i] = bit i of selMask ? src0[i] : src1[i] (mode 1: the scalar src1); mode 0 reuses
    the first 256 / sizeof(T) bits for every iteration (two registers' worth for 64-bit types in the first-n
    interface), modes 1 and 2 consume them iteration by iteration. The forms without a mask argument,
    `Select<T, selMode>(dst, src0, src1, repeatTime, repeatParams)` (`sel_mode=` keyword: the template argument) and
    `Select(dst, selMask, src0, repeatTime, repeatParams)` (mode 1), are regsim._src.lowerings.cmpmask's. Mode 1 with
    both sources LocalTensors is the 950 flexible-scalar overload (`Select<T0, T1, config>`, "Select（灵活标量位置）"):
    `config=BinaryConfig(i)` says whose element 0 is the scalar (default 1: src1[0])."""
    api = "Select"
    if len(args) == 1 and isinstance(args[0], BinaryRepeatParams) and not isinstance(src1, SELMODE):
        if config is not None:
            accepted = "no config (the forms without a mask argument have no BinaryConfig)"
            raise ParameterError(message(api, "config", repr(config), accepted))
        return select_by_cmp_mask(dst, sel_mask, src0, src1, args[0], sel_mode)
    if sel_mode is None and args:
        sel_mode, args = args[0], args[1:]
    host_only(api)
    head = "(dst, sel_mask, src0, src1, sel_mode, "
    if len(args) not in (1, 3):
        raise arguments_error(api, len(args) + 5, f"{head}count) or {head}mask, repeat_time, repeat_params)")
    if not isinstance(sel_mode, SELMODE):
        raise ParameterError(message(api, "sel_mode", repr(sel_mode), expected_member(SELMODE, sel_mode, "rs.AscendC")))
    scalar_form = sel_mode is SELMODE.VSEL_TENSOR_SCALAR_MODE
    if config is not None:
        check_config(api, config)
        if not scalar_form:
            accepted = "VSEL_TENSOR_SCALAR_MODE with config= (the flexible-scalar overload is mode 1's)"
            raise ParameterError(message(api, "sel_mode", sel_mode.name, accepted))
    if scalar_form and (isinstance(src1, LocalTensor) or not isinstance(src0, LocalTensor)):
        _select_flexible(dst, sel_mask, src0, src1, args, config)
        return
    if scalar_form == isinstance(src1, LocalTensor):
        accepted = "a scalar of T for VSEL_TENSOR_SCALAR_MODE" if scalar_form else f"a LocalTensor for {sel_mode.name}"
        raise ParameterError(message(api, "src1", repr(src1), accepted))
    names, ts = (("dst", "src0"), (dst, src0)) if scalar_form else (("dst", "src0", "src1"), (dst, src0, src1))
    dtypes = SELECT_COUNT if len(args) == 1 else SELECT_REPEAT
    dtype = check_tensors(api, dtypes, names, ts)
    if not isinstance(sel_mask, LocalTensor):
        raise ParameterError(message(api, "sel_mask", repr(sel_mask), "a LocalTensor"))
    check_tensors(api, SELECT_MASK, ("sel_mask",), (sel_mask,))
    if sel_mask.ub is not dst.ub:
        raise ParameterError(message(api, "sel_mask", repr(sel_mask), "a LocalTensor in the same UnifiedBuffer as dst"))
    scalar = (src1,) if scalar_form else ()
    # Select moves bits: complex32 / complex64 run as uint32 / uint64 (the Reg Select takes no complex registers)
    bits_type = _SELECT_BITS.get(dtype, dtype)
    if scalar_form and bits_type is not dtype:
        scalar = (np.array([src1], dtype.np_dtype).view(bits_type.np_dtype)[0],)
    ptrs = (
        dst.GetPhyAddr().reinterpret(bits_type),
        sel_mask.GetPhyAddr(),
        src0.GetPhyAddr().reinterpret(bits_type),
        None if scalar_form else src1.GetPhyAddr().reinterpret(bits_type),
    )
    if len(args) == 1:
        n = check_count(api, args[0], names, ts)
        _check_sel_bytes(sel_mask, min(n, VL // dtype.itemsize) if sel_mode is SELMODE.VSEL_CMPMASK_SPR else n)
        for name, t in zip(names[1:], ts[1:], strict=True):
            _check_written(api, name, t, n * t.dtype.itemsize)
        # The lowering selects whole registers, past `count`: those lanes are never stored, so their source bytes
        # may be unwritten; the elements the call uses were checked above.
        with configure(check_uninitialized=False):
            run_lowering(api, select_continuous_vf, *ptrs, scalar, int(sel_mode), n)
        return
    lanes = VL // dtype.itemsize
    if not isinstance(args[2], BinaryRepeatParams):  # checked here so that a bad struct writes no vector mask
        raise ParameterError(message(api, "repeat_params", repr(args[2]), "a BinaryRepeatParams"))
    mask_count, repeats, normal, spr = _plan(
        api,
        dtype,
        args[0],
        args[1],
        args[2],
        True,
        lambda it: _check_sel_bytes(sel_mask, (lanes if sel_mode is SELMODE.VSEL_CMPMASK_SPR else it * lanes) if it else 0),
    )
    # Reg::Select reads every lane, also those the mask does not load: the uninitialised-read check is left to the
    # selMask bits (below); a source element the mask selects is not checked in this interface
    fields = attrs.astuple(args[2])
    with configure(check_uninitialized=False):
        run_lowering(api, select_repeat_vf, *ptrs, scalar, int(sel_mode), fields, mask_count, repeats, normal, spr)


def _select_flexible(dst: Any, sel_mask: Any, src0: Any, src1: Any, args: tuple[Any, ...], config: object) -> None:
    """`Select<T0, T1, config>(dst, selMask, src0, src1, VSEL_TENSOR_SCALAR_MODE, ...)` with both sources LocalTensors:
    `VselImpl<T, U, scalarIdx>`, the library's `SelectBothTensorMode1Level2` / `SelectBothTensorMode1Level0`; with an
    immediate first, `SelectSrc0ScalarMode1Level2` / `Level0`."""
    api = "Select"
    dtypes = SELECT_COUNT if len(args) == 1 else SELECT_REPEAT
    scalar: tuple[Any, ...] = ()
    if isinstance(src0, LocalTensor):
        dtype, idx, vec_name, vec = flexible_operands(api, dtypes, dst, src0, src1, config)
    elif isinstance(src1, LocalTensor):  # an immediate first: `VselImpl(dst, sel, src0, src1Ptr, ...)`
        check_config(api, config)
        dtype, idx, vec_name, vec = check_tensors(api, dtypes, ("dst", "src1"), (dst, src1)), 0, "src1", src1
        scalar = (src0,)
    else:
        raise ParameterError(message(api, "src1", repr(src1), "a LocalTensor (one of src0 and src1 must be a tensor)"))
    if not isinstance(sel_mask, LocalTensor):
        raise ParameterError(message(api, "sel_mask", repr(sel_mask), "a LocalTensor"))
    check_tensors(api, SELECT_MASK, ("sel_mask",), (sel_mask,))
    if sel_mask.ub is not dst.ub:
        raise ParameterError(message(api, "sel_mask", repr(sel_mask), "a LocalTensor in the same UnifiedBuffer as dst"))
    bits_type = _SELECT_BITS.get(dtype, dtype)  # Select moves bits: complex32 / complex64 as uint32 / uint64
    if scalar and bits_type is not dtype:
        scalar = (np.array([src0], dtype.np_dtype).view(bits_type.np_dtype)[0],)
    ptrs = (
        dst.GetPhyAddr().reinterpret(bits_type),
        sel_mask.GetPhyAddr(),
        None if scalar else src0.GetPhyAddr().reinterpret(bits_type),
        src1.GetPhyAddr().reinterpret(bits_type),
    )
    if len(args) == 1:
        n = check_count(api, args[0], ("dst", vec_name), (dst, vec))
        _check_sel_bytes(sel_mask, n)
        _check_written(api, vec_name, vec, n * dtype.itemsize)
        # Whole registers are selected, past `count` (and the b64 scalar load reads a register past the element):
        # those lanes are never stored; the elements the call uses were checked above.
        with configure(check_uninitialized=False):
            run_lowering(api, select_continuous_vf, *ptrs, scalar, 1, n, idx)
        return
    lanes = VL // dtype.itemsize
    if not isinstance(args[2], BinaryRepeatParams):  # checked here so that a bad struct writes no vector mask
        raise ParameterError(message(api, "repeat_params", repr(args[2]), "a BinaryRepeatParams"))
    mask_count, repeats, normal, spr = _plan(
        api, dtype, args[0], args[1], args[2], True, lambda it: _check_sel_bytes(sel_mask, it * lanes)
    )
    fields = attrs.astuple(args[2])
    with configure(check_uninitialized=False):
        run_lowering(api, select_repeat_vf, *ptrs, scalar, 1, fields, mask_count, repeats, normal, spr, idx)


def _check_written(api: str, name: str, t: LocalTensor[Any], nbytes: int) -> None:
    """The first `nbytes` of `t` were written (when the uninitialised-read check is on)."""
    valid = t.ub.storage.valid
    if valid is None or not current_config().check_uninitialized:
        return
    missing = np.flatnonzero(~valid[t.addr : t.addr + nbytes])
    if missing.size:
        element = int(missing[0]) // t.dtype.itemsize
        raise UninitializedReadError(f"{api}: {name} element {element} is read but was never written")


def _check_sel_bytes(sel_mask: LocalTensor[Any], bits: int) -> None:
    """selMask holds the bits the call reads, and they were written."""
    if sel_mask.nbytes * 8 < bits:
        accepted = f"a LocalTensor of at least {-(-bits // 8)} bytes (one bit per element the call selects from)"
        raise ParameterError(message("Select", "sel_mask", f"a LocalTensor of {sel_mask.nbytes} bytes", accepted))
    _check_written("Select", "sel_mask", sel_mask, -(-bits // 8))


def _select_spec(dtype: type[dt.DType], kw: dict[str, Any]) -> Lowering:
    mode_name = kw.pop("sel_mode", None)
    mode = getattr(SELMODE, str(mode_name), None)
    if not isinstance(mode, SELMODE):
        raise ParameterError(message("lower", "sel_mode", repr(mode_name), f"one of {', '.join(m.name for m in SELMODE)}"))
    scalar = kw.pop("scalar_value", 0)
    if set(kw) == {"count"}:
        n, rest = int(kw["count"]), (kw["count"],)
    elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "repeat_params"}:
        n, rest = _spec_repeat(dtype, kw, BinaryRepeatParams)
    else:
        forms = "sel_mode=M [, scalar_value=V] and count=N, or mask=M, repeat_time=R [, repeat_params]"
        raise ParameterError(message("lower", "arguments", sorted(kw), forms))
    dst, s0, s1, sel = _fresh([(dtype, n), (dtype, n), (dtype, n), (dt.uint8, 2 * n // 8 + ONE_BLOCK_SIZE)])
    return lower(Select, dst, sel, s0, scalar if mode is SELMODE.VSEL_TENSOR_SCALAR_MODE else s1, mode, *rest)


SPEC_BUILDERS.update(
    {"Compare": _compare_spec(Compare), "Compares": _compare_spec(Compares), "Duplicate": _duplicate_spec, "Select": _select_spec}
)
APIS.update({"ShiftLeft": ShiftLeft, "ShiftRight": ShiftRight})
