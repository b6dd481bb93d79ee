"""The memory-level APIs of the compare-mask register (CmpMask), as the 950 library builds them
(kernel_operator_vec_cmp_impl.h for dav_3510): `Compare(src0, src1, cmpMode, mask, repeatParams)` (no dst: the
result goes to the register, `CompareWithoutDst{Normal,Counter}ModeImplVF`), `GetCmpMask(dst)` and
`SetCmpMask(src)` (`GetCmpMaskImpl` / `SetCmpMaskImpl`: 16 bytes, the register's low and high 64 bits).

The register is the core's `UnifiedBuffer.cmp_mask`, the state the C API's `asc_get_cmp_mask` /
`asc_set_cmp_mask` and register-form compares share (regsim._src.lowerings.capi_compare). The compare is one repeat
(256 bytes) under the predicate the library makes; its bits are element i at bit i, the bits the predicate
leaves out 0, and for float the high 64 bits 0 (docs/decisions/compare.md#compare-cmpmask).
"""

from __future__ import annotations

from typing import Any, Final

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import check_repeat, check_tensors, run_lowering
from regsim._src.lowerings.skeletons import load_blocks, select_blocks, vec_micro_mask
from regsim._src.lowerings.spec import Call
from regsim._src.lowerings.vector_mask import counter_mode, repeat_plan, spr_count
from regsim._src.model import dtypes as dt
from regsim._src.model.config import configure, current_config
from regsim._src.model.core import current_core
from regsim._src.model.enums import CMPMODE, SELMODE
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import VL, MaskReg
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf
from regsim.errors import AlignmentError, DTypeError, ParameterError, UninitializedReadError, message

CMP_MASK_BYTES: Final = 16  #: the 128-bit register: GetCmpMask writes and SetCmpMask reads 16 bytes
#: the bytes GetCmpMask writes; the page asks 128 ("dst的空间大小不能少于128字节"), its own example's dst holds 32
#: (decisions/compare.md#compare-cmpmask)
GET_CMP_MASK_MIN_BYTES: Final = CMP_MASK_BYTES
CMP_MASK_ALIGN: Final = 16  #: both pages: "LocalTensor的起始地址需要16字节对齐"


@simd_vf
def compare_cmp_mask_vf(
    mode: CMPMODE, src0: UbPtr[Any], src1: UbPtr[Any], blk0: int, blk1: int, count: int, from_spr: bool, out: MaskReg
) -> None:
    """`CompareWithoutDstNormalModeImplVF` / `...CounterModeImplVF`: the predicate is `MoveMask<T>()` (a bit mask,
    or isSetMask false, in normal mode) or `UpdateMask<T>(sreg)` (the continuous mask, or the counter-mode count);
    DataBlock loads at the block strides, `Compare<T, cmpMode>` into `out`."""
    T = src0.dtype
    mask = Reg.MoveMask(T) if from_spr else Reg.UpdateMask(T, Ref(count))
    src_reg0 = Reg.RegTensor(T)
    src_reg1 = Reg.RegTensor(T)
    load_blocks(src_reg0, src0, blk0, mask)
    load_blocks(src_reg1, src1, blk1, mask)
    Reg.Compare(out, src_reg0, src_reg1, mask, mode=mode)


def compare_to_cmp_mask(c: Call) -> None:
    """`AscendC::Compare(src0, src1, cmpMode, mask[] / mask, repeatParams)` (`VcmpImpl`): one repeat into the
    compare-mask register."""
    api, mode, p = c.api, c["cmp_mode"], c["repeat_params"]
    src0, src1 = c["src0"], c["src1"]
    dtype = check_tensors(api, c.iface.dtypes, ("src0", "src1"), (src0, src1))
    core = current_core()
    count, _, _, from_spr = repeat_plan(api, dtype, c["mask"], 1, c["is_set_mask"])
    out = Reg.MaskReg()
    ptrs = (src0.GetPhyAddr(), src1.GetPhyAddr())
    run_lowering(api, compare_cmp_mask_vf, mode, *ptrs, p.src0BlkStride, p.src1BlkStride, count, from_spr, out)
    bits = out.lanes(dtype)  # b16: 128 bits (g_cmpMaskLow, g_cmpMaskHigh); b32: 64 bits, g_cmpMaskHigh = 0
    core.cmp_mask = int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little")


def check_cmp_mask_addr(api: str, name: str, addr: int) -> None:
    """The compare-mask register moves to and from UB at a 16-byte aligned address: the GetCmpMask and SetCmpMask
    pages' rule, for the instruction `asc_get_cmp_mask` / `asc_set_cmp_mask` run too (their pages state none)."""
    if addr % CMP_MASK_ALIGN:
        raise AlignmentError(message(api, name, f"UB byte {addr}", "a start address aligned to 16 bytes"))


def _cmp_mask_tensor(api: str, name: str, t: LocalTensor[Any], dtypes: frozenset[type[dt.DType]], min_bytes: int) -> UbPtr[Any]:
    if t.dtype not in dtypes:
        accepted = ", ".join(sorted(d.name for d in dtypes))
        raise DTypeError(message(api, name, f"LocalTensor[{t.dtype.name}]", f"one of {accepted}"))
    check_cmp_mask_addr(api, name, t.addr)
    if t.nbytes < min_bytes:
        raise ParameterError(message(api, name, f"a LocalTensor of {t.nbytes} bytes", f"at least {min_bytes} bytes"))
    return t.GetPhyAddr()


def get_cmp_mask(c: Call) -> None:
    """`AscendC::GetCmpMask(dst)`: the compare-mask register's 128 bits to dst's first 16 bytes, little-endian
    (element i of the last register compare at bit i % 8 of byte i // 8)."""
    p = _cmp_mask_tensor(c.api, "dst", c["dst"], c.iface.dtypes, GET_CMP_MASK_MIN_BYTES)
    core = current_core()
    p.ub.write(p.addr, np.frombuffer(core.cmp_mask.to_bytes(CMP_MASK_BYTES, "little"), np.uint8))


def set_cmp_mask(c: Call) -> None:
    """`AscendC::SetCmpMask(src)`: src's first 16 bytes into the compare-mask register (what the Select forms
    without a selMask tensor read)."""
    api = c.api
    p = _cmp_mask_tensor(api, "src", c["src"], c.iface.dtypes, CMP_MASK_BYTES)
    core = current_core()
    st = p.ub.storage
    if current_config().check_uninitialized and not st.all_written(p.addr, p.addr + CMP_MASK_BYTES):
        raise UninitializedReadError(
            message(api, "src", f"UB bytes [{p.addr}, {p.addr + CMP_MASK_BYTES})", "16 bytes that were written before")
        )
    core.cmp_mask = int.from_bytes(st.data[p.addr : p.addr + CMP_MASK_BYTES].tobytes(), "little")


# --- Select without a mask argument (kernel_operator_vec_sel_impl.h for dav_3510: SelectCal) ------------------------


@simd_callee
def sel_bits(T: type[dt.DType], sel: UbPtr[Any], i: int) -> MaskReg:
    """Repeat i's predicate from the selMask bits at `sel + i * 256 / 8 / sizeof(T)` bytes, as the no-mask modes 1
    and 2 load it: b16 `LoadAlign<uint8_t, DIST_US>`; b32 `LoadUnAlign` + `MaskGenWithRegTensor<uint32_t, 0>`."""
    sel_mask = Reg.MaskReg()
    at = sel + i * (VL // 8 // T.itemsize)
    if T.itemsize == 2:
        Reg.LoadAlign(sel_mask, at, dist=Reg.MaskDist.DIST_US)
    else:
        ureg = Reg.UnalignRegForLoad()
        sel_reg = Reg.RegTensor(dt.uint8)
        Reg.LoadUnAlignPre(ureg, at)
        Reg.LoadUnAlign(sel_reg, ureg, at)
        Reg.MaskGenWithRegTensor(sel_mask, sel_reg.reinterpret(dt.uint32), offset=0)
    return sel_mask


@simd_vf
def select_no_mask_vf(
    dst: UbPtr[Any],
    src0: UbPtr[Any],
    src1: UbPtr[Any] | None,
    scalar: tuple[Any, ...],
    sel: UbPtr[Any] | MaskReg,
    p: tuple[int, ...],
    count: int,
    repeat_time: int,
    normal_mode: bool,
) -> None:
    """`SelectWithoutMaskMode{0,1,2}ImplVF`: the predicate `MoveMask<T>()` (normal mode: `repeatTime` repeats) or, in
    counter mode, `UpdateMask<T>` over the vector mask's count (ceil(count / E) repeats); per repeat the sources'
    DataBlocks, `Reg::Select` on the selection predicate (mode 0: the register's, the same every repeat; modes 1
    and 2: the selMask bits of that repeat), dst's DataBlocks stored under the predicate. Mode 1: src1 is a
    register of the scalar (`Duplicate`)."""
    T = dst.dtype
    sreg, repeats, mask_reg = vec_micro_mask(T, count, repeat_time, normal_mode, True)
    regs = (Reg.RegTensor(T), Reg.RegTensor(T), Reg.RegTensor(T))
    if src1 is None:
        Reg.Duplicate(regs[1], scalar[0])  # Duplicate(srcReg1, scalar);
    for i in range(repeats):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(T, sreg)
        sel_mask = sel if isinstance(sel, MaskReg) else sel_bits(T, sel, i)
        select_blocks(i, dst, src0, src1, regs, sel_mask, mask_reg, p)


def select_by_cmp_mask(c: Call) -> None:
    """`Select<T, selMode>(dst, src0, src1, repeatTime, repeatParams)` (`sel_mode` given: modes 0 and 2) and
    `Select<T, U>(dst, selMask, src0, repeatTime, repeatParams)` (mode 1), after `SetCmpMask` / a register
    Compare and `SetVectorMask` (docs/decisions/compare.md#select-without-mask)."""
    api, dst, params = c.api, c["dst"], c["repeat_params"]
    sel_mode = c.args.get("sel_mode")
    names: tuple[str, ...]
    ts: tuple[Any, ...]
    if sel_mode is None:
        sel_mask, names, ts = c["sel_mask"], ("dst", "src0"), (dst, c["src0"])
    elif sel_mode in (SELMODE.VSEL_CMPMASK_SPR, SELMODE.VSEL_TENSOR_TENSOR_MODE):
        sel_mask, names, ts = None, ("dst", "src0", "src1"), (dst, c["src0"], c["src1"])
    else:
        accepted = "SELMODE.VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE (mode 1 is Select(dst, sel_mask, src0, ...))"
        raise ParameterError(message(api, "sel_mode", repr(sel_mode), accepted))
    dtype = check_tensors(api, c.iface.dtypes, names, ts)
    if sel_mask is not None:
        check_tensors(api, c.iface.param("sel_mask").dtypes, ("sel_mask",), (sel_mask,))  # type: ignore[arg-type]
        if sel_mask.ub is not dst.ub:
            raise ParameterError(message(api, "sel_mask", repr(sel_mask), "a LocalTensor in the same UnifiedBuffer as dst"))
    repeat = check_repeat(api, c["repeat_time"])
    core = current_core()
    if core is not dst.ub.core:
        raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor of the current core's UnifiedBuffer"))
    normal = not counter_mode()
    count = 0 if normal else spr_count(api, dtype)  # the vector mask's low word (MoveMask<uint16_t>)
    lanes = VL // dtype.itemsize
    repeats = repeat if normal else -(-count // lanes)
    cmp = core.cmp_mask
    ptrs = [t.GetPhyAddr() for t in ts]
    src1 = ptrs[2] if len(ptrs) == 3 else None
    scalar: tuple[Any, ...] = ()
    sel: UbPtr[Any] | MaskReg
    if sel_mask is not None:  # mode 1: scalar = *reinterpret_cast<T*>(&g_cmpMaskLow)
        scalar = (np.frombuffer((cmp & (1 << 64) - 1).to_bytes(8, "little")[: dtype.itemsize], dtype.np_dtype)[0],)
        sel_ptr = sel_mask.GetPhyAddr().reinterpret(dt.uint8)
        _check_sel_written(api, "sel_mask", sel_ptr, repeats * lanes)
        sel = sel_ptr
    elif sel_mode is SELMODE.VSEL_CMPMASK_SPR:  # the register's first E bits, every repeat
        sel = MaskReg.from_lanes(dtype, np.array([cmp >> k & 1 for k in range(lanes)], np.bool_))
    else:  # mode 2: `(__ubuf__ uint8_t*)g_cmpMaskLow`: a UB address is 32 bits, the register's low 32
        addr = cmp & 0xFFFFFFFF
        sel = UbPtr(dst.ub, dt.uint8, addr, 0, dst.ub.size)
        _check_sel_written(api, "the compare-mask register (selMask's address)", sel, repeats * lanes)
    fields = attrs.astuple(params)
    with configure(check_uninitialized=False):  # Reg::Select reads every lane; the selMask bits are checked above
        run_lowering(api, select_no_mask_vf, ptrs[0], ptrs[1], src1, scalar, sel, fields, count, repeat, normal)


def _check_sel_written(api: str, name: str, sel: UbPtr[Any], bits: int) -> None:
    """The selMask bytes the call reads lie in the UB (in its tensor) and were written."""
    nbytes = -(-bits // 8)
    if sel.addr + nbytes > sel.hi:
        raise ParameterError(
            message(api, name, f"UB bytes [{sel.addr}, {sel.addr + nbytes})", f"within UB bytes [{sel.lo}, {sel.hi})")
        )
    if current_config().check_uninitialized and not sel.ub.storage.all_written(sel.addr, sel.addr + nbytes):
        raise UninitializedReadError(
            message(api, name, f"UB bytes [{sel.addr}, {sel.addr + nbytes})", "selMask bits written before")
        )
