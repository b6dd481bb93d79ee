"""The memory-level `GatherMask` (the GatherMask page of "Memory矢量计算/比较与选择"), lowered onto Reg ops as the
950 library builds it (kernel_operator_vec_gather_mask_impl.h for dav_3510):

- a built-in pattern `src1Pattern` 1..6 (`GatherMaskSqueeze{Normal,Reduce}`): the pattern predicate from the
  core's vector-mask register (`SetVectorMask` with 0x5555..., 0xaaaa..., 0x1111..., 0x2222..., 0x4444...,
  0x8888..., then `MoveMask<T>()`), for b8 from a `Duplicate` of the pattern byte stored to a 32-byte temporary
  buffer and loaded back as a MaskReg; per register `Squeeze<T, STORE_REG>` (the `Reg::GatherMask` alias) and
  the AR-form `StoreUnAlign`; rsvdCnt = AR / sizeof(T);
- pattern 7 (`GatherMaskAll{Normal,Reduce}`): in normal mode every register stored whole (`StoreUnAlign` of
  GetVecLen / sizeof(T) elements, rsvdCnt = that * repeatTimes), in counter mode a `Squeeze` under the count mask;
- a user pattern tensor (`GatherMaskCalOneRepMask`, `GatherMaskReduce`): the predicate loaded from its bits
  (b8: a MaskReg `LoadAlign`; b16: `LoadAlign<U, MaskDist::DIST_US>`; b32: `LoadUnAlign` + `MaskGenWithRegTensor`),
  ANDed with the load mask, then `Squeeze` and `StoreUnAlign` as above.

`reduceMode` false (normal: each repeat one register of 256 bytes) or true (counter: each repeat `mask` elements,
ceil(mask / lanes) registers, each under `UpdateMask`). Decisions: docs/decisions/datamove.md#memory-gathermask.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import as_uint, check_tensors, run_lowering
from regsim._src.lowerings.fresh import FreshCall, arguments
from regsim._src.lowerings.spec import PATTERN_TENSOR, Call
from regsim._src.lowerings.structs import GatherMaskParams
from regsim._src.lowerings.vector_mask import set_vector_mask
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE
from regsim._src.model.core import current_core, use_core
from regsim._src.model.enums import SpecialPurposeReg
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.model.registers import VL
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import DTypeError, ParameterError, message

#: the src1Pattern type of each width (the page's Ascend 950 table)
PATTERN_TYPE: Final = {1: dt.uint8, 2: dt.uint16, 4: dt.uint32}
#: the built-in patterns 1..6 as one byte of bits (element k of a group of 8 selected by bit k)
PATTERN_BYTE: Final = {1: 0x55, 2: 0xAA, 3: 0x11, 4: 0x22, 5: 0x44, 6: 0x88}
_BLOCK: Final = Reg.DataCopyMode.DATA_BLOCK_COPY
_POST: Final = Reg.PostLiteral.POST_MODE_UPDATE
_MAX_INNER: Final = 0xFFFF  #: `uint16_t innerRepeatTimes = CeilDivision(mask, ElePerVec)`


def _squeeze(dst_reg: Any, src_reg: Any, mask: Any) -> None:
    """`Reg::GatherMask<T, GatherMaskMode::STORE_REG>(dstReg, srcReg, mask)`; bfloat16 through
    `(RegTensor<uint16_t>&)` views, as the library casts it."""
    if dst_reg.dtype is dt.bfloat16:
        dst_reg, src_reg = dst_reg.reinterpret(dt.uint16), src_reg.reinterpret(dt.uint16)
    Reg.Squeeze(dst_reg, src_reg, mask, store=Reg.GatherMaskMode.STORE_REG)


def _builtin_pattern_mask(T: type[dt.DType], temp_buf: UbPtr[Any] | None, solid: int) -> Any:
    """The pattern predicate of `GatherMaskSqueeze*TmpBuffer`: b16/b32 `MoveMask<T>()` (the vector mask the host
    set); b8 `Duplicate(patternReg, byte)`, `StoreAlign(tempBuf, patternReg, VL32 mask)`,
    `LocalMemBar<VEC_STORE, VEC_LOAD>`, `LoadAlign(patternMask, tempBuf)`."""
    if T.itemsize != 1:
        return Reg.MoveMask(T)  # type: ignore[type-var]  # (b16/b32 here)  patternMask = Reg::MoveMask<T>();
    assert temp_buf is not None
    pattern_reg = Reg.RegTensor(dt.uint8)
    tmp_mask = Reg.CreateMask(dt.uint8, pattern=Reg.MaskPattern.VL32)  # CreateMask<uint8_t, MaskPattern::VL32>();
    Reg.Duplicate(pattern_reg, PATTERN_BYTE[solid])  # Reg::Duplicate(patternReg, 0x55 / 0xaa / ...);
    Reg.StoreAlign(temp_buf, pattern_reg, tmp_mask)  # Reg::StoreAlign(tempBuf, patternReg, tmpMask);
    Reg.LocalMemBar(src=Reg.MemType.VEC_STORE, dst=Reg.MemType.VEC_LOAD)
    pattern_mask = Reg.MaskReg()
    Reg.LoadAlign(pattern_mask, temp_buf)  # Reg::LoadAlign(patternMask, tempBuf);
    return pattern_mask


@simd_vf
def all_normal_vf(dst: UbPtr[Any], src0: UbPtr[Any], blk: int, repeat_times: int, rep: int) -> None:
    """`GatherMaskAllNormalElePerVec` (pattern 7, normal mode): per repeat a DATA_BLOCK_COPY load (POST_MODE_UPDATE
    by src0RepeatStride) under a full mask and `StoreUnAlign` of the whole register."""
    T = dst.dtype
    ele_per_vec = VL // T.itemsize
    src_reg = Reg.RegTensor(T)
    load_mask = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL)  # CreateMask<T, MaskPattern::ALL>();
    ureg = Reg.UnalignRegForStore()
    for _ in range(repeat_times):
        Reg.LoadAlign(  # LoadAlign<T, DATA_BLOCK_COPY, POST_MODE_UPDATE>(srcReg, src0, blkStride, repStride, loadMask);
            src_reg, src0, blk, rep, load_mask, data_mode=_BLOCK, post_mode=_POST
        )
        Reg.StoreUnAlign(dst, src_reg, ureg, ele_per_vec)  # Reg::StoreUnAlign(dst, srcReg, ureg, ElePerVec);
    Reg.StoreUnAlignPost(dst, ureg, 0)  # Reg::StoreUnAlignPost(dst, ureg, 0);


@simd_vf
def squeeze_normal_vf(
    dst: UbPtr[Any], src0: UbPtr[Any], temp_buf: UbPtr[Any] | None, solid: int, blk: int, repeat_times: int, rep: int
) -> None:
    """`GatherMaskSqueezeNormalTmpBuffer` (patterns 1..6, normal mode): the pattern predicate ANDed with a full
    mask once; per repeat a DATA_BLOCK_COPY load (POST_MODE_UPDATE), `Squeeze<STORE_REG>` and the AR-form store."""
    T = dst.dtype
    dst_reg = Reg.RegTensor(T)
    src_reg = Reg.RegTensor(T)
    load_mask = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL)
    ureg = Reg.UnalignRegForStore()
    Reg.ClearSpr(spr=SpecialPurposeReg.AR)  # Reg::ClearSpr<SpecialPurposeReg::AR>();
    pattern_mask = _builtin_pattern_mask(T, temp_buf, solid)
    Reg.MaskAnd(pattern_mask, pattern_mask, load_mask, load_mask)  # MaskAnd(patternMask, patternMask, loadMask, loadMask);
    for _ in range(repeat_times):
        Reg.LoadAlign(src_reg, src0, blk, rep, load_mask, data_mode=_BLOCK, post_mode=_POST)
        _squeeze(dst_reg, src_reg, pattern_mask)
        Reg.StoreUnAlign(dst, dst_reg, ureg)  # Reg::StoreUnAlign(dst, dstReg, ureg);  (the AR form)
    Reg.StoreUnAlignPost(dst, ureg)  # Reg::StoreUnAlignPost(dst, ureg);


@simd_vf
def counter_vf(
    dst: UbPtr[Any],
    src0: UbPtr[Any],
    src1: UbPtr[Any] | None,
    temp_buf: UbPtr[Any] | None,
    solid: int,
    mask: int,
    blk: int,
    repeat_times: int,
    rep: int,
    src1_rep: int,
    inner_repeat_times: int,
) -> None:
    """Counter mode (reduceMode true): `GatherMaskAllReduceElePerVec` (solid 7), `GatherMaskSqueezeReduceTmpBuffer`
    (solid 1..6) and `GatherMaskReduceElePerVec` (a pattern tensor `src1`, solid 0). Per repeat i and register j:
    `UpdateMask<T>(maskValue)` (maskValue = mask again each repeat), a DATA_BLOCK_COPY load at
    src0 + i * src0RepeatStride * E + j * 8 * src0BlockStride * E, the predicate (the load mask, or the pattern
    ANDed with it), `Squeeze<STORE_REG>` and the AR-form store."""
    T = dst.dtype
    e = ONE_BLOCK_SIZE // T.itemsize  # ElePerBlkT
    dst_reg = Reg.RegTensor(T)
    src_reg = Reg.RegTensor(T)
    ureg = Reg.UnalignRegForStore()
    Reg.ClearSpr(spr=SpecialPurposeReg.AR)
    pattern_mask = _builtin_pattern_mask(T, temp_buf, solid) if 1 <= solid <= 6 else Reg.MaskReg()
    if src1 is not None:
        U = src1.dtype
        e_u = ONE_BLOCK_SIZE // U.itemsize  # ElePerBlkU
        one_rep_mask_offset = src1_rep * e_u  # src1RepeatStride * ElePerBlkU
        mask_ureg = Reg.UnalignRegForLoad()
        pattern_reg = Reg.RegTensor(U)
    for i in range(repeat_times):
        mask_value = Ref(mask)  # maskValue = mask;
        for j in range(inner_repeat_times):
            load_mask = Reg.UpdateMask(T, mask_value)  # loadMask = Reg::UpdateMask<T>(maskValue);
            Reg.LoadAlign(
                src_reg, src0 + i * rep * e + j * 8 * blk * e, blk, load_mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY
            )
            if solid == 7:
                execute_mask = load_mask
            elif solid:
                execute_mask = Reg.MaskReg()
                Reg.MaskAnd(execute_mask, pattern_mask, load_mask, load_mask)  # MaskAnd(executeMask, patternMask, ...);
            else:
                assert src1 is not None
                pattern_mask = _user_pattern(src1, i * one_rep_mask_offset + j * e_u // T.itemsize, mask_ureg, pattern_reg)
                Reg.MaskAnd(pattern_mask, pattern_mask, load_mask, load_mask)
                execute_mask = pattern_mask
            _squeeze(dst_reg, src_reg, execute_mask)
            Reg.StoreUnAlign(dst, dst_reg, ureg)
    Reg.StoreUnAlignPost(dst, ureg)


def _user_pattern(src1: UbPtr[Any], offset: int, mask_ureg: Any, pattern_reg: Any) -> Any:
    """The predicate of one register from the pattern tensor at `src1 + offset` (U elements): b8 a MaskReg
    `LoadAlign` (32 bytes, a bit per lane); b16 `LoadAlign<U, MaskDist::DIST_US>` (16 bytes, each bit doubled);
    b32 `LoadUnAlignPre` + `LoadUnAlign` of a register and `MaskGenWithRegTensor<U, 0>` (its first 8 bytes)."""
    U = src1.dtype
    pattern_mask = Reg.MaskReg()
    at = src1 + offset
    if U.itemsize == 1:
        Reg.LoadAlign(pattern_mask, at)  # Reg::LoadAlign(patternMask, src1 + ...);
    elif U.itemsize == 2:
        Reg.LoadAlign(pattern_mask, at, dist=Reg.MaskDist.DIST_US)  # LoadAlign<U, MaskDist::DIST_US>(patternMask, ...);
    else:
        Reg.LoadUnAlignPre(mask_ureg, at)  # Reg::LoadUnAlignPre(maskUreg, src1 + ...);
        Reg.LoadUnAlign(pattern_reg, mask_ureg, at)  # Reg::LoadUnAlign(patternReg, maskUreg, src1 + ...);
        Reg.MaskGenWithRegTensor(pattern_mask, pattern_reg, offset=0)  # MaskGenWithRegTensor<U, 0>(patternMask, patternReg);
    return pattern_mask


@simd_vf
def user_normal_vf(
    dst: UbPtr[Any], src0: UbPtr[Any], src1: UbPtr[Any], blk: int, repeat_times: int, rep: int, src1_rep: int
) -> None:
    """`GatherMaskCalOneRepMask` (a pattern tensor, normal mode): per repeat a DATA_BLOCK_COPY load at
    src0 + i * src0RepeatStride * E under a full mask, the pattern predicate at src1 + i * src1RepeatStride * 32 / sizeof(T)
    (`oneRepMaskOffset`), ANDed with the load mask, `Squeeze<STORE_REG>` and the AR-form store."""
    T = dst.dtype
    e = ONE_BLOCK_SIZE // T.itemsize  # ElePerBlk
    one_rep_mask_offset = src1_rep * ONE_BLOCK_SIZE // T.itemsize  # src1RepeatStride * GetDataBlockSizeInBytes() / sizeof(T)
    dst_reg = Reg.RegTensor(T)
    src_reg = Reg.RegTensor(T)
    load_mask = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL)
    ureg = Reg.UnalignRegForStore()
    mask_ureg = Reg.UnalignRegForLoad()
    pattern_reg = Reg.RegTensor(src1.dtype)
    Reg.ClearSpr(spr=SpecialPurposeReg.AR)
    for i in range(repeat_times):
        Reg.LoadAlign(src_reg, src0 + i * rep * e, blk, load_mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)
        pattern_mask = _user_pattern(src1, i * one_rep_mask_offset, mask_ureg, pattern_reg)
        Reg.MaskAnd(pattern_mask, pattern_mask, load_mask, load_mask)
        _squeeze(dst_reg, src_reg, pattern_mask)
        Reg.StoreUnAlign(dst, dst_reg, ureg)
    Reg.StoreUnAlignPost(dst, ureg)


def _vector_mask_for(T: type[dt.DType], solid: int) -> tuple[int, int]:
    """`SetVectorMaskForGatherMaskSqueeze<T, solidPattern>`: b16 the pattern in both words, b32 in the low word."""
    word = int.from_bytes(bytes([PATTERN_BYTE[solid]]) * 8, "little")
    return (word, word) if T.itemsize == 2 else (0, word)


# --- the host API ------------------------------------------------------------------------------------------------------
def _blocks_needed(T: type[dt.DType], reduce_mode: bool, mask: int, p: GatherMaskParams) -> int:
    """DataBlocks from src0's start to the end of the last block the lowering's loads read (a DATA_BLOCK_COPY load
    reads the blocks holding an active lane)."""
    r = p.repeatTimes
    if r == 0:
        return 0
    e, lanes = ONE_BLOCK_SIZE // T.itemsize, VL // T.itemsize
    if not reduce_mode:
        return (r - 1) * p.src0RepeatStride + 7 * p.src0BlockStride + 1
    inner = -(-mask // lanes)
    last = mask - (inner - 1) * lanes  # active lanes of the last register
    return (r - 1) * p.src0RepeatStride + (inner - 1) * 8 * p.src0BlockStride + (-(-last // e) - 1) * p.src0BlockStride + 1


def _pattern_bytes(T: type[dt.DType], reduce_mode: bool, mask: int, p: GatherMaskParams) -> int:
    """Bytes from the pattern tensor's start to the end of the last pattern bits a register's predicate is built
    from (lanes / 8 bytes per register: 32 for b8, 16 for b16, 8 for b32)."""
    r = p.repeatTimes
    if r == 0:
        return 0
    per = VL // T.itemsize // 8
    inner = -(-mask // (VL // T.itemsize)) if reduce_mode else 1
    return (r - 1) * p.src1RepeatStride * ONE_BLOCK_SIZE + inner * per


def gather_mask(c: Call) -> None:
    """`AscendC::GatherMask(dst, src0, src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt)`: the elements of src0
    whose gather-mask bit is 1 (a built-in pattern 1..7 or the bits of a pattern tensor: element k of repeat i is bit
    i * src1RepeatStride * 256 + k of it), packed from dst's start; `rsvd_cnt.value` (a `Ref`, the C++ `uint64_t&`)
    is set to the number kept. `reduce_mode` False: `repeatTimes` repeats of 256 bytes each (`mask` unused); True:
    each repeat the first `mask` elements at the repeat's address. Patterns 1..6 on b16/b32 leave the core's vector
    mask register holding the pattern (the library sets it with `SetVectorMask`)."""
    api, dst, src0, src1_pattern = c.api, c["dst"], c["src0"], c["src1_pattern"]
    reduce_mode, mask, gather_mask_params, rsvd_cnt = c["reduce_mode"], c["mask"], c["gather_mask_params"], c["rsvd_cnt"]
    dtype = check_tensors(api, c.iface.dtypes, ("dst", "src0"), (dst, src0))
    user = c.iface.variant == PATTERN_TENSOR
    if user:
        want = PATTERN_TYPE[dtype.itemsize]
        if src1_pattern.dtype is not want:
            accepted = f"a LocalTensor[{want.name}] for {dtype.name} src0 (the page's 950 table)"
            raise DTypeError(message(api, "src1_pattern", f"a LocalTensor[{src1_pattern.dtype.name}]", accepted))
        check_tensors(api, frozenset({want}), ("src1_pattern",), (src1_pattern,))
        if src1_pattern.ub is not dst.ub:
            raise ParameterError(
                message(api, "src1_pattern", repr(src1_pattern), "a LocalTensor in the same UnifiedBuffer as dst")
            )
        solid = 0
    else:
        solid = int(src1_pattern)
        if not 1 <= solid <= 7:
            raise ParameterError(message(api, "src1_pattern", solid, "a built-in pattern in [1, 7] (the page: 取值范围为[1, 7])"))
    reduce = bool(reduce_mode)
    m = as_uint(api, "mask", mask, 32)
    lanes = VL // dtype.itemsize
    if reduce and m == 0:
        raise ParameterError(message(api, "mask", 0, "an int in [1, 2**32 - 1] in counter mode (reduce_mode=True)"))
    if reduce and -(-m // lanes) > _MAX_INNER:
        accepted = f"at most {_MAX_INNER * lanes} for {dtype.name} (uint16_t innerRepeatTimes = ceil(mask / {lanes}))"
        raise ParameterError(message(api, "mask", m, accepted))
    p = gather_mask_params
    blocks = _blocks_needed(dtype, reduce, m, p)
    if blocks * ONE_BLOCK_SIZE > src0.nbytes:
        accepted = f"a src0 of at least {blocks * ONE_BLOCK_SIZE} bytes (the DataBlocks the repeats read)"
        raise ParameterError(message(api, "src0", f"a LocalTensor of {src0.nbytes} bytes", accepted))
    if user:
        need = _pattern_bytes(dtype, reduce, m, p)
        if need > src1_pattern.nbytes:
            accepted = f"a src1_pattern of at least {need} bytes (the pattern bits the repeats read)"
            raise ParameterError(message(api, "src1_pattern", f"a LocalTensor of {src1_pattern.nbytes} bytes", accepted))
    _run(api, dst, src0, src1_pattern if user else None, solid, reduce, m, p, rsvd_cnt)


def _run(
    api: str,
    dst: LocalTensor[Any],
    src0: LocalTensor[Any],
    src1: LocalTensor[Any] | None,
    solid: int,
    reduce: bool,
    mask: int,
    p: GatherMaskParams,
    rsvd_cnt: Ref[int],
) -> None:
    """`GatherMaskCal`: the host part (the vector mask for patterns 1..6, the temporary buffer for b8), the VF, then
    rsvdCnt = GetSpr<AR>() / sizeof(T) (pattern 7, normal mode: ElePerVec * repeatTimes)."""
    T = dst.dtype
    ub = dst.ub
    lanes = VL // T.itemsize
    d, s0 = dst.GetPhyAddr(), src0.GetPhyAddr()
    blk, r, rep = p.src0BlockStride, p.repeatTimes, p.src0RepeatStride
    temp_buf = None
    if 1 <= solid <= 6:
        if T.itemsize == 1:
            # GetTemporaryBufferAddr<uint8_t>(GetRuntimeUBSize(), 32): the 32 bytes past the UB the kernel sees
            # (decisions/datamove.md#memory-gathermask)
            core = current_core()
            temp_buf = UnifiedBuffer(ONE_BLOCK_SIZE).alloc(dt.uint8, ONE_BLOCK_SIZE).GetPhyAddr()
            use_core(core)  # (the scratch is not the kernel's core: the call's core stays current)
        else:
            set_vector_mask(*_vector_mask_for(T, solid))  # SetVectorMaskForGatherMaskSqueeze<T, solidPattern>();
    if src1 is None and solid == 7 and not reduce:
        run_lowering(api, all_normal_vf, d, s0, blk, r, rep)
        rsvd_cnt.value = lanes * r  # rsvdCnt = ElePerVec * repeatTimes;
        return
    if reduce:
        inner = -(-mask // lanes)
        s1 = None if src1 is None else src1.GetPhyAddr()
        run_lowering(api, counter_vf, d, s0, s1, temp_buf, solid, mask, blk, r, rep, p.src1RepeatStride, inner)
    elif src1 is None:
        run_lowering(api, squeeze_normal_vf, d, s0, temp_buf, solid, blk, r, rep)
    else:
        run_lowering(api, user_normal_vf, d, s0, src1.GetPhyAddr(), blk, r, rep, p.src1RepeatStride)
    rsvd_cnt.value = ub.core.ar // T.itemsize  # rsvdCnt = GetSpr<SpecialPurposeReg::AR>() / sizeof(T);


def explore(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """`regsim lower "GatherMask(half, src1_pattern=2, reduce_mode=False, params=(1, 4, 8, 0))"` (`src1_pattern=0`:
    a pattern tensor of random bits; `mask=` for counter mode): the call on fresh tensors of random data."""

    allowed = {"src1_pattern", "reduce_mode", "mask", "params"}
    if not {"src1_pattern", "params"} <= set(kw) <= allowed:
        accepted = "src1_pattern=1..7 or 0 (a random pattern tensor), params=(blk, repeatTimes, rep, src1Rep)"
        accepted += " [, reduce_mode, mask]"
        raise arguments(kw, accepted)
    params = GatherMaskParams(*kw["params"])
    reduce, m = bool(kw.get("reduce_mode", False)), int(kw.get("mask", 0))
    n_src = max(_blocks_needed(dtype, reduce, m, params), 1) * ONE_BLOCK_SIZE
    per_rep = m if reduce else VL // dtype.itemsize
    n_dst = max(per_rep * params.repeatTimes * dtype.itemsize, 1)
    n_pat = max(_pattern_bytes(dtype, reduce, m, params), 1)

    def pad(n: int) -> int:
        return -(-n // VL) * VL + VL

    ub = UnifiedBuffer(pad(n_src) + pad(n_dst) + pad(n_pat))
    dst = ub.alloc(dtype, pad(n_dst) // dtype.itemsize)
    src0 = ub.alloc(dtype, pad(n_src) // dtype.itemsize)
    rng = np.random.default_rng(0)
    ub.storage.write(src0.addr, rng.integers(0, 256, src0.nbytes, dtype=np.uint8))
    pattern: Any = int(kw["src1_pattern"])
    if pattern == 0:
        U = PATTERN_TYPE[dtype.itemsize]
        pattern = ub.alloc(U, pad(n_pat) // U.itemsize)
        ub.storage.write(pattern.addr, rng.integers(0, 256, pattern.nbytes, dtype=np.uint8))
    return (dst, src0, pattern, reduce, m, params, Ref(0)), {}
