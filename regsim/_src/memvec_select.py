"""More memory-level (`LocalTensor`) Ascend C APIs lowered onto Reg ops as the 950 library builds them:
`Compare`, `Compares` (bit-packed uint8 results), `Duplicate`, `ShiftLeft`, `ShiftRight`.

Each API is a `@simd_vf` kernel over `Reg` calls, the same VF the 950 library (dav_3510) runs, on the
skeletons of `regsim._src.memvec` (parameter checks, the vector-mask register and mask mode, the
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
from typing import Any, Final, TypeVar

import attrs
import numpy as np

from regsim._src import dtypes as dt
from regsim._src import memvec as mv
from regsim._src import reg as Reg
from regsim._src.binding import host_api
from regsim._src.context import Ref, configure, current_config, simd_callee, simd_vf
from regsim._src.enums import CMPMODE
from regsim._src.memory import ONE_BLOCK_SIZE, LocalTensor, UbPtr
from regsim._src.registers import VL, MaskReg, RegTensor
from regsim.errors import ParameterError, UninitializedReadError, UnsupportedError, message

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
    dst: UbPtr[Any], src0: UbPtr[Any], src1: UbPtr[Any] | None, scalar: tuple[Any, ...], cmp_mode: CMPMODE, count: int
) -> None:
    """`CompareLevel2` / `CompareScalarLevel2`: per iteration `UpdateMask`, `LoadAlign`, `Reg::Compare` (or
    `Compares`) into a MaskReg, the predicate stored one bit per element: b8 by `StoreAlign` (32 bytes at
    dst + i * 32), b16/b32 by `StoreUnAlign` through `(T*&)dst`, b64 through `(uint32_t*&)dst` (its
    RegTraitNumTwo predicate holds element i at bit 4i); `StoreUnAlignPost` flushes the stream."""
    T = src0.dtype
    trait = _two(T)
    repeat_elm = _cmp_elements(T)  # GetVecLen() / sizeof(T) (* 2 for b64)
    repeat_time = -(-count // repeat_elm)  # CeilDivision(calCount, repeatElm)
    sreg = Ref(count)  # uint32_t sreg = calCount;
    dst_reg = Reg.MaskReg()  # MaskReg dstReg;
    ureg = Reg.UnalignRegForStore()  # UnalignReg uReg;
    src0_reg = Reg.RegTensor(T, trait=trait)
    src1_reg = Reg.RegTensor(T, trait=trait)
    stream = dst.reinterpret(dt.uint32 if T.itemsize == 8 else T)  # (__ubuf__ T*&)dst / (__ubuf__ uint32_t*&)dst
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # mask = UpdateMask<T[, RegTraitNumTwo]>(sreg);
        Reg.LoadAlign(src0_reg, src0 + i * repeat_elm)  # LoadAlign(src0Reg, src0 + i * repeatElm);
        if src1 is None:
            Reg.Compares(dst_reg, src0_reg, scalar[0], mask, mode=cmp_mode)  # CompareScalar<T, cmpMode>(...)
        else:
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
    src0: UbPtr[Any],
    src1: UbPtr[Any] | None,
    scalar: tuple[Any, ...],
    cmp_mode: CMPMODE,
    strides: tuple[int, ...],
    mask_count: int,
    repeat_time: int,
    normal_mode: bool,
    spr_mask: bool,
) -> None:
    """`CompareLevel0NormalMode` / `CompareLevel0CounterMode` (and the `CompareScalarLevel0*` twins): the
    sources read as DataBlocks with their block strides at their repeat strides, the predicate of each
    repeat appended to dst as one bit per element (`StoreUnAlign`): dst's strides are not used. `strides`:
    (src0Blk, src0Rep[, src1Blk, src1Rep])."""
    T = src0.dtype
    count, new_repeat_times, mask_reg = mv.vec_micro_mask(T, mask_count, repeat_time, normal_mode, spr_mask)
    e = ONE_BLOCK_SIZE // T.itemsize
    src0_reg = Reg.RegTensor(T)
    src1_reg = Reg.RegTensor(T)
    dst_reg = Reg.MaskReg()
    ureg = Reg.UnalignRegForStore()
    stream = dst.reinterpret(T)
    for i in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(T, count)  # maskReg = UpdateMask<T>(sreg);
        mv.load_blocks(src0_reg, src0 + i * strides[1] * e, strides[0], mask_reg)
        if src1 is None:
            Reg.Compares(dst_reg, src0_reg, scalar[0], mask_reg, mode=cmp_mode)
        else:
            mv.load_blocks(src1_reg, src1 + i * strides[3] * e, strides[2], mask_reg)
            Reg.Compare(dst_reg, src0_reg, src1_reg, mask_reg, mode=cmp_mode)
        Reg.StoreUnAlign(stream, dst_reg, ureg)  # StoreUnAlign((__ubuf__ T*&)dst, dstReg, uReg);
    Reg.StoreUnAlignPost(stream, ureg, 0)  # StoreUnAlignPost<U, POST_MODE_NORMAL>(dst, uReg, 0): a post-update by 0


def _check_cmp_mode(api: str, cmp_mode: object) -> CMPMODE:
    if not isinstance(cmp_mode, CMPMODE):
        raise ParameterError(message(api, "cmp_mode", repr(cmp_mode), "a CMPMODE (LT, GT, EQ, LE, GE, NE)"))
    return cmp_mode


def _check_dst_bytes(api: str, dst: LocalTensor[Any], needed: int) -> None:
    if dst.nbytes < needed:
        accepted = f"a LocalTensor of at least {needed} bytes (one bit per compared element, whole iterations)"
        raise ParameterError(message(api, "dst", f"a LocalTensor of {dst.nbytes} bytes", accepted))


def _check_cmp_dst(api: str, dst: object, accepted: frozenset[type[dt.DType]], src: LocalTensor[Any]) -> LocalTensor[Any]:
    if not isinstance(dst, LocalTensor):
        raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor"))
    mv._check_tensors(api, accepted, ("dst",), (dst,))
    if dst.ub is not src.ub:
        raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor in the same UnifiedBuffer as src0"))
    return dst


class _CompareApi:
    """`Compare(dst, src0, src1, cmpMode, ...)` (`scalar=False`) or `Compares(dst, src0, src1Scalar, cmpMode, ...)`."""

    def __init__(self, name: str, scalar: bool) -> None:
        self.name = name
        self.scalar = scalar
        self.__name__ = name

    def __repr__(self) -> str:
        return f"AscendC.{self.name}"

    def __call__(
        self, dst: LocalTensor[Any], src0: LocalTensor[T], src1: Any, cmp_mode: CMPMODE, *args: Any, is_set_mask: bool = True
    ) -> None:
        api = self.name
        mv._host(api)
        src_names = ("src0",) if self.scalar else ("src0", "src1")
        srcs = (src0,) if self.scalar else (src0, src1)
        head = "(dst, src0, src1_scalar, cmp_mode, " if self.scalar else "(dst, src0, src1, cmp_mode, "
        if len(args) not in (1, 3):
            raise mv._arguments_error(api, len(args) + 4, f"{head}count) or {head}mask, repeat_time, repeat_params)")
        mode = _check_cmp_mode(api, cmp_mode)
        if not self.scalar and not is_set_mask:
            raise ParameterError(message(api, "is_set_mask", repr(is_set_mask), "True (a reserved parameter: keep the default)"))
        if len(args) == 1:  # tensor 前n个数据计算
            mv._check_set_mask(api, is_set_mask)
            dtype = mv._check_tensors(api, COMPARE_COUNT, src_names, srcs)
            _check_cmp_dst(api, dst, COMPARES_DST if self.scalar else COMPARE_DST, src0)
            n = mv._check_count(api, args[0], src_names, srcs)
            if n * dtype.itemsize % mv.REPEAT_BYTES:
                accepted = f"a count whose elements fill whole 256 bytes (a multiple of {mv.REPEAT_BYTES // dtype.itemsize})"
                raise ParameterError(message(api, "count", n, accepted))
            per = _cmp_elements(dtype)
            _check_dst_bytes(api, dst, -(-n // per) * per // 8)
            scalar = (self._scalar(dtype, src1),) if self.scalar else ()
            ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), None if self.scalar else src1.GetPhyAddr())
            mv._run_lowering(api, (src0,), compare_continuous_vf, *ptrs, scalar, mode, n)
            return
        dtype = mv._check_tensors(api, COMPARE_REPEAT, src_names, srcs)
        _check_cmp_dst(api, dst, COMPARES_DST if self.scalar else COMPARE_DST, src0)
        params_type = mv.UnaryRepeatParams if self.scalar else mv.BinaryRepeatParams
        lanes = VL // dtype.itemsize
        if not isinstance(args[2], params_type):  # checked here so that a bad struct writes no vector mask
            raise ParameterError(message(api, "repeat_params", repr(args[2]), f"a {params_type.__name__}"))
        mask_count, repeats, normal, spr = mv._repeat_plan(api, dtype, args[0], args[1], args[2], params_type, is_set_mask)
        iterations = repeats if normal else -(-mask_count // lanes)
        _check_dst_bytes(api, dst, iterations * lanes // 8)
        p: Any = args[2]
        if self.scalar:
            strides: tuple[int, ...] = (p.srcBlkStride, p.srcRepStride)
        else:
            strides = (p.src0BlkStride, p.src0RepStride, p.src1BlkStride, p.src1RepStride)
        scalar = (self._scalar(dtype, src1),) if self.scalar else ()
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), None if self.scalar else src1.GetPhyAddr())
        mv._run_lowering(api, (src0,), compare_repeat_vf, *ptrs, scalar, mode, strides, mask_count, repeats, normal, spr)

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
    count, new_repeat_times, mask_reg = mv.vec_micro_mask(T, mask_count, repeat_time, normal_mode, spr_mask)
    mask_full = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL)
    dst_reg = Reg.RegTensor(T)
    e = ONE_BLOCK_SIZE // T.itemsize
    Reg.Duplicate(dst_reg, value, mask_full)  # Duplicate(dstVreg, scalarValue, maskFull);
    for i in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(T, count)
        mv.store_blocks(dst + i * dst_repeat_stride * e, dst_reg, dst_block_stride, mask_reg)


@host_api("Duplicate")
def Duplicate(dst: LocalTensor[T], value: Any, *args: Any, is_set_mask: bool = True) -> None:
    """`AscendC::Duplicate(dst, scalarValue, count)`, `Duplicate(dst, src, count)` (src's element 0; Ascend 950
    only) and `Duplicate(dst, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride)`."""
    api = "Duplicate"
    mv._host(api)
    forms = (
        "(dst, scalar_value, count), (dst, src, count) or "
        "(dst, scalar_value, mask, repeat_time, dst_block_stride, dst_repeat_stride)"
    )
    if len(args) not in (1, 4):
        raise mv._arguments_error(api, len(args) + 2, forms)
    if len(args) == 1:
        mv._check_set_mask(api, is_set_mask)
        if isinstance(value, LocalTensor):
            dtype = mv._check_tensors(api, DUPLICATE_COUNT, ("dst", "src"), (dst, value))
            n = mv._check_count(api, args[0], ("dst",), (dst,))
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
                mv._run_lowering(api, (dst,), duplicate_continuous_vf, dst.GetPhyAddr(), None, value.GetPhyAddr(), n)
            return
        dtype = mv._check_tensors(api, DUPLICATE_COUNT, ("dst",), (dst,))
        n = mv._check_count(api, args[0], ("dst",), (dst,))
        mv._run_lowering(api, (dst,), duplicate_continuous_vf, dst.GetPhyAddr(), value, None, n)
        return
    if isinstance(value, LocalTensor):
        raise ParameterError(
            message(api, "scalar_value", repr(value), "a scalar (the mask/repeat interfaces take no src tensor)")
        )
    dtype = mv._check_tensors(api, DUPLICATE_REPEAT, ("dst",), (dst,))
    mask, repeat_time, blk, rep = args
    blk = mv._uint(api, "dst_block_stride", blk, 16)
    rep = mv._uint(api, "dst_repeat_stride", rep, 8)
    plan = mv._repeat_plan(api, dtype, mask, repeat_time, mv.UnaryRepeatParams(), mv.UnaryRepeatParams, is_set_mask)
    mv._run_lowering(api, (dst,), duplicate_repeat_vf, dst.GetPhyAddr(), value, plan[0], plan[1], blk, rep, plan[2], plan[3])


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


class _ShiftApi(mv.UnaryApi):
    """`ShiftLeft` / `ShiftRight(dst, src, scalarValue, ...)`: the tensor-scalar skeleton over `Reg::ShiftLefts` /
    `ShiftRights`; the scalar (the shift amount, of type T) must be >= 0 (the pages) and at most 2**15 - 1 (the
    library passes it on as an int16_t); `ShiftRight`'s `roundEn` must be false on Ascend 950."""

    def __call__(
        self, dst: LocalTensor[T], src: LocalTensor[T], *args: Any, is_set_mask: bool = True, round_en: bool = False
    ) -> None:
        api = self.name
        mv._host(api)
        rest = list(args)
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


ShiftLeft: Final = _ShiftApi("ShiftLeft", reg_shift_lefts, SHIFT_COUNT, SHIFT_REPEAT, scalar=True)
ShiftRight: Final = _ShiftApi("ShiftRight", reg_shift_rights, SHIFT_COUNT, SHIFT_REPEAT, scalar=True)


# --- the lowering explorer (`regsim lower "Compare(float32, cmp_mode=LT, count=256)"`) ------------------------------
def _fresh(tensors: Sequence[tuple[type[dt.DType], int]]) -> list[LocalTensor[Any]]:
    """Tensors of (dtype, elements), each rounded up to whole registers, of random bytes in one fresh UB."""
    from regsim._src.memory import UnifiedBuffer

    sizes = [-(-max(n, 1) * d.itemsize // mv.REPEAT_BYTES) * mv.REPEAT_BYTES for d, n in tensors]
    ub = UnifiedBuffer(sum(sizes) + 2 * mv.REPEAT_BYTES)
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


def _compare_spec(api: _CompareApi) -> Callable[[type[dt.DType], dict[str, Any]], mv.Lowering]:
    def build(dtype: type[dt.DType], kw: dict[str, Any]) -> mv.Lowering:
        mode_name = kw.pop("cmp_mode", None)
        mode = getattr(CMPMODE, str(mode_name), None)
        if not isinstance(mode, CMPMODE):
            raise ParameterError(message("lower", "cmp_mode", repr(mode_name), "one of LT, GT, EQ, LE, GE, NE"))
        scalar = kw.pop("scalar_value", 0)
        if set(kw) == {"count"}:
            n, rest = int(kw["count"]), (kw["count"],)
        elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "repeat_params"}:
            n, rest = _spec_repeat(dtype, kw, mv.UnaryRepeatParams if api.scalar else mv.BinaryRepeatParams)
        else:
            forms = "cmp_mode=M and count=N, or mask=M, repeat_time=R [, repeat_params]"
            raise ParameterError(message("lower", "arguments", sorted(kw), forms))
        bits = -(-max(n, 1) // 8) + 2 * ONE_BLOCK_SIZE
        dst, *srcs = _fresh([(dt.uint8, bits), *[(dtype, n)] * (1 if api.scalar else 2)])
        return mv.lower(api, dst, srcs[0], scalar if api.scalar else srcs[1], mode, *rest)

    return build


def _duplicate_spec(dtype: type[dt.DType], kw: dict[str, Any]) -> mv.Lowering:
    value = kw.pop("scalar_value", 1)
    if set(kw) == {"count"}:
        (dst,) = _fresh([(dtype, int(kw["count"]))])
        return mv.lower(Duplicate, dst, value, kw["count"])
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
    return mv.lower(Duplicate, dst, value, *args)


mv.SPEC_BUILDERS.update({"Compare": _compare_spec(Compare), "Compares": _compare_spec(Compares), "Duplicate": _duplicate_spec})
mv.APIS.update({"ShiftLeft": ShiftLeft, "ShiftRight": ShiftRight})
