"""The memory-level `Select` (the Select page): dst[i] = bit i of selMask ? src0[i] : src1[i], in the first-n and the
mask/repeat interfaces, lowered onto Reg ops as the 950 library builds it (kernel_operator_vec_sel_impl.h for dav_3510:
`SelectMode{0,1,2}Level2` / `SelectMode{0,1,2}Level0`, the flexible-scalar `SelectBothTensorMode1*` and
`SelectSrc0ScalarMode1*`). Mode 0 (VSEL_CMPMASK_SPR) reuses the first 256 / sizeof(T) bits for every iteration, modes 1
(VSEL_TENSOR_SCALAR_MODE: src1 a scalar) and 2 (VSEL_TENSOR_TENSOR_MODE) consume them iteration by iteration. The forms
without a mask argument, which read the compare-mask register, are `regsim._src.lowerings.cmpmask`'s.
"""

from __future__ import annotations

from typing import Any, Final, cast

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import check_count, check_tensors, check_written, flexible_operands, run_lowering
from regsim._src.lowerings.cmpmask import select_by_cmp_mask
from regsim._src.lowerings.compare import cmp_elements, two_registers
from regsim._src.lowerings.fresh import FreshCall, arguments, fresh, member, repeat_extent
from regsim._src.lowerings.skeletons import load_scalar, select_blocks, vec_micro_mask
from regsim._src.lowerings.spec import CMP_MASK, FLEXIBLE, SCALAR_FIRST, Call, Form
from regsim._src.lowerings.structs import BinaryRepeatParams
from regsim._src.lowerings.vector_mask import repeat_plan
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE, configure
from regsim._src.model.enums import SELMODE
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import VL, MaskReg
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf
from regsim.errors import ParameterError, message

#: Select moves bits: complex32 / complex64 run as uint32 / uint64 (the Reg Select takes no complex registers)
_SELECT_BITS: Final[dict[type[dt.DType], type[dt.DType]]] = {dt.complex32: dt.uint32, dt.complex64: dt.uint64}
S1: Final = SELMODE.VSEL_TENSOR_SCALAR_MODE


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
    trait = two_registers(T)
    repeat_elm = cmp_elements(T)
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
            # the library recomputes this count wrongly (decisions/compare.md#select-local-tensors); regsim continues the count
            if not normal_mode:
                mask_reg = Reg.UpdateMask(T, count)
            select_blocks(repeats - 1, dst, src0, src1, regs, sel_load(T, sel, repeats - 1), mask_reg, p, scalar_idx)
    else:
        for i in range(repeats):
            if not normal_mode:
                mask_reg = Reg.UpdateMask(T, count)
            select_blocks(i, dst, src0, src1, regs, sel_load(T, sel, i), mask_reg, p, scalar_idx)


def _check_sel_mask(api: str, c: Call) -> LocalTensor[Any]:
    sel_mask: LocalTensor[Any] = c["sel_mask"]
    check_tensors(api, c.iface.param("sel_mask").dtypes, ("sel_mask",), (sel_mask,))  # type: ignore[arg-type]
    if sel_mask.ub is not c["dst"].ub:
        raise ParameterError(message(api, "sel_mask", repr(sel_mask), "a LocalTensor in the same UnifiedBuffer as dst"))
    return sel_mask


def _bits(dtype: type[dt.DType], value: Any) -> Any:
    """A complex scalar as the bits of its unsigned twin (Select moves bits)."""
    bits_type = _SELECT_BITS.get(dtype, dtype)
    return value if bits_type is dtype else np.array([value], dtype.np_dtype).view(bits_type.np_dtype)[0]


def select(c: Call) -> None:
    """`Select(dst, selMask, src0, src1, selMode, count)` / `(..., selMode, mask, repeatTime, repeatParams)`: src1 a
    LocalTensor (modes 0 and 2) or a scalar (mode 1); mode 1 with both sources LocalTensors, or an immediate first, is the
    950 flexible-scalar overload (`Select<T0, T1, config>`, "Select（灵活标量位置）": `config=BinaryConfig(i)` says whose
    element 0 is the scalar, default 1: src1[0]). Without a mask argument: `regsim._src.lowerings.cmpmask`."""
    if c.iface.variant == CMP_MASK:
        select_by_cmp_mask(c)
        return
    if c.iface.variant in (FLEXIBLE, SCALAR_FIRST):
        _select_flexible(c)
        return
    api, sel_mode = c.api, c["sel_mode"]
    dst, sel_mask, src0, src1 = c["dst"], c["sel_mask"], c["src0"], c["src1"]
    scalar_form = sel_mode is S1
    if scalar_form == isinstance(src1, LocalTensor):
        accepted = "a scalar of T for VSEL_TENSOR_SCALAR_MODE" if scalar_form else f"a LocalTensor for {sel_mode.name}"
        raise ParameterError(message(api, "src1", repr(src1), accepted))
    names, ts = (("dst", "src0"), (dst, src0)) if scalar_form else (("dst", "src0", "src1"), (dst, src0, src1))
    dtype = check_tensors(api, c.iface.dtypes, names, ts)
    _check_sel_mask(api, c)
    scalar = (_bits(dtype, src1),) if scalar_form else ()
    bits_type = _SELECT_BITS.get(dtype, dtype)
    ptrs = (
        dst.GetPhyAddr().reinterpret(bits_type),
        sel_mask.GetPhyAddr(),
        src0.GetPhyAddr().reinterpret(bits_type),
        None if scalar_form else src1.GetPhyAddr().reinterpret(bits_type),
    )
    if c.form is Form.COUNT:
        n = check_count(api, c["count"], names, ts)
        _check_sel_bytes(sel_mask, min(n, VL // dtype.itemsize) if sel_mode is SELMODE.VSEL_CMPMASK_SPR else n)
        for name, t in zip(names[1:], ts[1:], strict=True):
            check_written(api, name, t, n * t.dtype.itemsize)
        # The lowering selects whole registers, past `count`: those lanes are never stored, so their source bytes
        # may be unwritten; the elements the call uses were checked above.
        with configure(check_uninitialized=False):
            run_lowering(api, select_continuous_vf, *ptrs, scalar, int(sel_mode), n)
        return
    lanes = VL // dtype.itemsize
    mask_count, repeats, normal, spr = repeat_plan(api, dtype, c["mask"], c["repeat_time"], True)
    iterations = repeats if normal else -(-mask_count // lanes)
    _check_sel_bytes(sel_mask, (lanes if sel_mode is SELMODE.VSEL_CMPMASK_SPR else iterations * lanes) if iterations else 0)
    # Reg::Select reads every lane, also those the mask does not load: the uninitialised-read check is left to the
    # selMask bits (above); a source element the mask selects is not checked in this interface
    fields = attrs.astuple(c["repeat_params"])
    with configure(check_uninitialized=False):
        run_lowering(api, select_repeat_vf, *ptrs, scalar, int(sel_mode), fields, mask_count, repeats, normal, spr)


def _select_flexible(c: Call) -> None:
    """`Select<T0, T1, config>(dst, selMask, src0, src1, VSEL_TENSOR_SCALAR_MODE, ...)` with both sources LocalTensors:
    `VselImpl<T, U, scalarIdx>`, the library's `SelectBothTensorMode1Level2` / `SelectBothTensorMode1Level0`; with an
    immediate first, `SelectSrc0ScalarMode1Level2` / `Level0`."""
    api, dst, sel_mask, src0, src1 = c.api, c["dst"], c["sel_mask"], c["src0"], c["src1"]
    if c["sel_mode"] is not S1:
        accepted = "VSEL_TENSOR_SCALAR_MODE with config= (the flexible-scalar overload is mode 1's)"
        raise ParameterError(message(api, "sel_mode", c["sel_mode"].name, accepted))
    scalar: tuple[Any, ...] = ()
    if c.iface.variant == FLEXIBLE:
        dtype, idx, vec_name, vec = flexible_operands(api, c.iface.dtypes, dst, src0, src1, c["config"])
    else:  # an immediate first: `VselImpl(dst, sel, src0, src1Ptr, ...)`
        dtype, idx, vec_name, vec = check_tensors(api, c.iface.dtypes, ("dst", "src1"), (dst, src1)), 0, "src1", src1
        scalar = (_bits(dtype, src0),)
    _check_sel_mask(api, c)
    bits_type = _SELECT_BITS.get(dtype, dtype)
    ptrs = (
        dst.GetPhyAddr().reinterpret(bits_type),
        sel_mask.GetPhyAddr(),
        None if scalar else src0.GetPhyAddr().reinterpret(bits_type),
        src1.GetPhyAddr().reinterpret(bits_type),
    )
    if c.form is Form.COUNT:
        n = check_count(api, c["count"], ("dst", vec_name), (dst, vec))
        _check_sel_bytes(sel_mask, n)
        check_written(api, vec_name, vec, n * dtype.itemsize)
        # Whole registers are selected, past `count` (and the b64 scalar load reads a register past the element):
        # those lanes are never stored; the elements the call uses were checked above.
        with configure(check_uninitialized=False):
            run_lowering(api, select_continuous_vf, *ptrs, scalar, 1, n, idx)
        return
    lanes = VL // dtype.itemsize
    mask_count, repeats, normal, spr = repeat_plan(api, dtype, c["mask"], c["repeat_time"], True)
    _check_sel_bytes(sel_mask, (repeats if normal else -(-mask_count // lanes)) * lanes)
    fields = attrs.astuple(c["repeat_params"])
    with configure(check_uninitialized=False):
        run_lowering(api, select_repeat_vf, *ptrs, scalar, 1, fields, mask_count, repeats, normal, spr, idx)


def _check_sel_bytes(sel_mask: LocalTensor[Any], bits: int) -> None:
    """selMask holds the bits the call reads, and they were written."""
    if sel_mask.nbytes * 8 < bits:
        accepted = f"a LocalTensor of at least {-(-bits // 8)} bytes (one bit per element the call selects from)"
        raise ParameterError(message("Select", "sel_mask", f"a LocalTensor of {sel_mask.nbytes} bytes", accepted))
    check_written("Select", "sel_mask", sel_mask, -(-bits // 8))


def explore(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """`regsim lower "Select(float32, sel_mode=VSEL_TENSOR_TENSOR_MODE, count=130)"`: the call on fresh tensors of random
    data (selMask random bits; `scalar_value=` mode 1's scalar)."""
    mode = member("sel_mode", SELMODE, kw.pop("sel_mode", None))
    scalar = kw.pop("scalar_value", 0)
    if set(kw) == {"count"}:
        n, rest = int(kw["count"]), (kw["count"],)
    elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "repeat_params"}:
        n, rest = repeat_extent(dtype, kw, BinaryRepeatParams)
    else:
        raise arguments(kw, "sel_mode=M [, scalar_value=V] and count=N, or mask=M, repeat_time=R [, repeat_params]")
    dst, s0, s1, sel = fresh([(dtype, n), (dtype, n), (dtype, n), (dt.uint8, 2 * n // 8 + ONE_BLOCK_SIZE)])
    return (dst, sel, s0, scalar if mode is S1 else s1, mode, *rest), {}
