"""The memory-level compound APIs, each the Reg ops the 950 library runs in its body, on the binary and tensor-scalar
skeletons of `regsim._src.lowerings.elementwise` (kernel_operator_vec_binary_impl.h,
kernel_operator_vec_binary_continuous_impl.h, kernel_operator_vec_ternary_scalar_impl.h for dav_3510):

- `AddRelu`, `SubRelu`: the op, then `Maxs(dst, dst, 0)`;
- `FusedMulAdd` (dst = src0 * dst + src1), `MulAddRelu` (its max with 0), `MulAddDst` (dst = src0 * src1 + dst) and
  `Axpy` (dst = src * scalar + dst): dst is an operand too (`BinaryFuncMode::DST_SRC_INPUT`); MulAddDst and Axpy also
  have the pages' half-sources / float-dst row, each source's lower 64 halves widened to float
  (decisions/arithmetic.md#memory-half-float-rows).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import check_count, check_tensors, check_written, run_lowering
from regsim._src.lowerings.dtype_sets import FLOAT32, HALF
from regsim._src.lowerings.elementwise import Binary, Unary
from regsim._src.lowerings.skeletons import unary_continuous_vf, vec_binary_vf, vec_unary_vf
from regsim._src.lowerings.spec import HALF_TO_FLOAT as WIDENING
from regsim._src.lowerings.spec import Call, Form
from regsim._src.lowerings.vector_mask import repeat_plan
from regsim._src.model import dtypes as dt
from regsim._src.model.config import configure
from regsim._src.model.enums import RoundMode
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf
from regsim.errors import ParameterError, message


# --- AddRelu, SubRelu: the binary skeletons over the op and `Maxs(dst, dst, 0)` --------------------------------------------
@simd_callee
def reg_add_relu(
    dst_reg: RegTensor[Any], src_reg0: RegTensor[Any], src_reg1: RegTensor[Any], mask: MaskReg, *, mode: Any
) -> None:
    """`RegAddRelu::AddRelu` (and the body of the first-n `AddReluImpl` VF): `Add`, then `Maxs(dst, dst, (T)0)`."""
    Reg.Add(dst_reg, src_reg0, src_reg1, mask, mode=mode)  # Reg::Add(dstReg, srcReg0, srcReg1, mask);
    Reg.Maxs(dst_reg, dst_reg, 0, mask, mode=mode)  # Reg::Maxs(dstReg, dstReg, (T)0, mask);


@simd_callee
def reg_sub_relu(
    dst_reg: RegTensor[Any], src_reg0: RegTensor[Any], src_reg1: RegTensor[Any], mask: MaskReg, *, mode: Any
) -> None:
    """`RegSubRelu::SubRelu` (and the body of the first-n `SubReluImpl` VF): `Sub`, then `Maxs(dst, dst, (T)0)`."""
    Reg.Sub(dst_reg, src_reg0, src_reg1, mask, mode=mode)  # Reg::Sub(dstReg, srcReg0, srcReg1, mask);
    Reg.Maxs(dst_reg, dst_reg, 0, mask, mode=mode)  # Reg::Maxs(dstReg, dstReg, (T)0, mask);


ADD_RELU: Final = Binary(reg_add_relu)
SUB_RELU: Final = Binary(reg_sub_relu)


# --- FusedMulAdd, MulAddRelu, MulAddDst: dst is an operand too (BinaryFuncMode::DST_SRC_INPUT) ------------------------------
@simd_callee
def reg_fused_mul_add(dst_reg: RegTensor[Any], src0: RegTensor[Any], src1: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
    """`FusedMulAddImpl`: dst = src0 * dst + src1 — `Reg::FusedMulDstAdd` (fused); 64-bit types (the first-n VF's
    RegTraitNumTwo branch) `Mul(tmp, src0, dst)` then `Add(dst, tmp, src1)`."""
    if dst_reg.dtype.itemsize == 8:
        tmp = Reg.RegTensor(dst_reg.dtype, trait=Reg.RegTraitNumTwo)  # RegTensor<T, RegTraitNumTwo> vDstReg1;
        Reg.Mul(tmp, src0, dst_reg, mask, mode=mode)  # Reg::Mul(vDstReg1, vSrcReg0, vDstReg0, mask);
        Reg.Add(dst_reg, tmp, src1, mask, mode=mode)  # Reg::Add(vDstReg0, vDstReg1, vSrcReg1, mask);
        return
    Reg.FusedMulDstAdd(dst_reg, src0, src1, mask, mode=mode)  # Reg::FusedMulDstAdd(dstReg, src0Reg, src1Reg, mask);


@simd_callee
def reg_fused_mul_add_relu(
    dst_reg: RegTensor[Any], src0: RegTensor[Any], src1: RegTensor[Any], mask: MaskReg, *, mode: Any
) -> None:
    """`FusedMulAddReluImpl` (the MulAddRelu page): `reg_fused_mul_add`, then `Maxs(dst, dst, (T)0)`."""
    reg_fused_mul_add(dst_reg, src0, src1, mask, mode=mode)
    Reg.Maxs(dst_reg, dst_reg, 0, mask, mode=mode)  # Reg::Maxs(dstReg, dstReg, scalarValue, mask);


FUSED_MUL_ADD: Final = Binary(reg_fused_mul_add, dst_input=True)
MUL_ADD_RELU: Final = Binary(reg_fused_mul_add_relu, dst_input=True)
#: `CastParam::mulAddDstTrait` and `RegAxpy::CastParam::half2floatTrait`: half → float, the even lanes (ZERO layout)
HALF_TO_FLOAT: Final = Reg.CastTrait(Reg.RegLayout.ZERO, Reg.SatMode.UNKNOWN, Reg.MaskMergeMode.ZEROING, RoundMode.UNKNOWN)


@simd_callee
def widen_low_half(dst_reg: RegTensor[dt.float32], src_reg: RegTensor[dt.half], mask: MaskReg) -> None:
    """The lower 64 halves of `src_reg` as floats: `UnPack<uint32_t, uint16_t, HighLowPart::LOWEST>(tmp, src)` (each
    half in the even half-lane of a 32-bit lane), then `Cast<float, half, trait>(dst, tmp, mask)` (ZERO layout)."""
    tmp_reg = Reg.RegTensor(dt.half)  # RegTensor<half> fp16RegTemp;
    Reg.UnPack(tmp_reg.reinterpret(dt.uint32), src_reg.reinterpret(dt.uint16), part=Reg.HighLowPart.LOWEST)
    Reg.Cast(dst_reg, tmp_reg, mask, trait=HALF_TO_FLOAT)  # Cast<float, half, CastParam::...Trait>(cvt, tmp, mask);


@simd_callee
def reg_mul_add_dst(dst_reg: RegTensor[Any], src0: RegTensor[Any], src1: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
    """`RegMulAddDst::MulAddDst`: the same-type pairs `Reg::MulAddDst` (src0 * src1 + dst, fused); half sources and a
    float dst: "the first 64 half is needed to do muladddst in each repeat" — each source's lower 64 halves widened
    (`widen_low_half`), then `Reg::MulAddDst` on floats."""
    if dst_reg.dtype is src0.dtype:
        Reg.MulAddDst(dst_reg, src0, src1, mask, mode=mode)  # Reg::MulAddDst(dstReg, srcReg0, srcReg1, mask);
        return
    cast_reg1 = Reg.RegTensor(dt.float32)  # Reg::RegTensor<float> castReg1, castReg2;
    cast_reg2 = Reg.RegTensor(dt.float32)
    widen_low_half(cast_reg1, src0, mask)
    widen_low_half(cast_reg2, src1, mask)
    Reg.MulAddDst(dst_reg, cast_reg1, cast_reg2, mask, mode=mode)  # Reg::MulAddDst(dstReg, castReg1, castReg2, mask);


@simd_vf
def mul_add_dst_cast_vf(dst: UbPtr[dt.float32], src0: UbPtr[dt.half], src1: UbPtr[dt.half], count: int) -> None:
    """The first-n `MulAddDstImpl(float* dst, half* src0, half* src1, calCount)` overload: 64 elements a repeat,
    each source's 64 halves loaded one per 32-bit lane (`LoadAlign<half, DIST_UNPACK_B16>`), cast to float
    (`mulAddDstTrait`), `Reg::MulAddDst` into the dst floats."""
    sreg = Ref(count)  # uint32_t sregB32 = static_cast<uint32_t>(calCount);
    num_per_rep = VL // dt.float32.itemsize  # GetVecLen() / sizeof(float)
    src0_reg = Reg.RegTensor(dt.half)  # Reg::RegTensor<half> src0Reg, src1Reg;
    src1_reg = Reg.RegTensor(dt.half)
    dst_reg = Reg.RegTensor(dt.float32)  # Reg::RegTensor<float> dstReg, castReg1, castReg2;
    cast_reg1 = Reg.RegTensor(dt.float32)
    cast_reg2 = Reg.RegTensor(dt.float32)
    for i in range(-(-count // num_per_rep)):
        mask = Reg.UpdateMask(dt.float32, sreg)  # maskB32 = Reg::UpdateMask<float>(sregB32);
        Reg.LoadAlign(src0_reg, src0 + i * num_per_rep, dist=Reg.LoadDist.DIST_UNPACK_B16)  # 64 half
        Reg.LoadAlign(src1_reg, src1 + i * num_per_rep, dist=Reg.LoadDist.DIST_UNPACK_B16)  # 64 half
        Reg.Cast(cast_reg1, src0_reg, mask, trait=HALF_TO_FLOAT)  # Cast<float, half, mulAddDstTrait>(castReg1, ...)
        Reg.Cast(cast_reg2, src1_reg, mask, trait=HALF_TO_FLOAT)
        Reg.LoadAlign(dst_reg, dst + i * num_per_rep)  # Reg::LoadAlign(dstReg, dst + i * numPerRep);
        Reg.MulAddDst(dst_reg, cast_reg1, cast_reg2, mask)  # Reg::MulAddDst(dstReg, castReg1, castReg2, maskB32);
        Reg.StoreAlign(dst + i * num_per_rep, dst_reg, mask)  # Reg::StoreAlign(dst + i * numPerRep, dstReg, maskB32);


def _check_cast_pair(api: str, names: tuple[str, ...], ts: tuple[LocalTensor[Any], ...]) -> None:
    """dst float, the sources half, one UnifiedBuffer, 32-byte aligned starts (the checks `check_tensors` makes)."""
    check_tensors(api, HALF, names[1:], ts[1:])
    if ts[0].ub is not ts[1].ub:
        raise ParameterError(message(api, names[0], repr(ts[0]), f"a LocalTensor in the same UnifiedBuffer as {names[1]}"))
    check_tensors(api, FLOAT32, names[:1], ts[:1])
    dst = ts[0]
    for name, t in zip(names[1:], ts[1:], strict=True):  # the pages: "…half、…float的情况下，不支持地址重叠"
        if t.addr < dst.addr + dst.nbytes and dst.addr < t.addr + t.nbytes:
            accepted = f"a LocalTensor that does not overlap {names[0]} (half sources, float dst: no address overlap)"
            raise ParameterError(message(api, name, f"UB bytes [{t.addr}, {t.addr + t.nbytes})", accepted))


def mul_add_dst(c: Call) -> None:
    """`MulAddDst(dst, src0, src1, ...)`: the same-type rows on the binary skeletons; the half-sources / float-dst row
    (`WIDENING`) runs the first-n `mul_add_dst_cast_vf` or, for the mask/repeat interfaces, `vec_binary_vf` with U = half
    (`VecBinaryVFImpl<..., float, half>`)."""
    if c.iface.variant != WIDENING:
        Binary(reg_mul_add_dst, dst_input=True)(c)
        return
    api, names = c.api, ("dst", "src0", "src1")
    ts = tuple(c[n] for n in names)
    _check_cast_pair(api, names, ts)
    ptrs = tuple(t.GetPhyAddr() for t in ts)
    if c.form is Form.COUNT:
        n = check_count(api, c["count"], names, ts)
        run_lowering(api, mul_add_dst_cast_vf, *ptrs, n)
        return
    count, repeats, normal, spr = repeat_plan(api, dt.float32, c["mask"], c["repeat_time"], c["is_set_mask"])
    run_lowering(api, vec_binary_vf, reg_mul_add_dst, *ptrs, count, repeats, c["repeat_params"], normal, spr, -1, True)


# --- Axpy: dst = src * scalar + dst (kernel_operator_vec_ternary_scalar_impl.h) ----------------------------------------------
@simd_callee
def reg_axpy(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegAxpy::Axpy`: `Reg::Axpy` (fused) for half, float, int64, uint64; bfloat16 unfused:
    `Duplicate(tmp, scalar)`, `Mul(tmp, src, tmp)`, `Add(dst, tmp, dst)`; a half src and a float dst: the lower 64
    halves widened (`widen_low_half`), `Muls` by the scalar as a float (exact: a product of two halves fits a
    float), `Add` to dst (rounded once, by the Add)."""
    if dst_reg.dtype is not src_reg.dtype:  # SupportType<Tuple<T, U>, Tuple<float, half>>
        cvt_reg = Reg.RegTensor(dt.float32)  # RegT cvtReg;
        widen_low_half(cvt_reg, src_reg, mask)
        Reg.Muls(cvt_reg, cvt_reg, scalar_value, mask, mode=mode)  # Muls(cvtReg, cvtReg, static_cast<T>(scalarValue), mask);
        Reg.Add(dst_reg, cvt_reg, dst_reg, mask, mode=mode)  # Reg::Add(dstReg, cvtReg, dstReg, mask);
        return
    if dst_reg.dtype is dt.bfloat16:
        tmp_reg = Reg.RegTensor(dt.bfloat16)  # RegT tmpReg;
        Reg.Duplicate(tmp_reg, scalar_value, mask)  # Reg::Duplicate(tmpReg, scalarValue, mask);
        Reg.Mul(tmp_reg, src_reg, tmp_reg, mask, mode=mode)  # Reg::Mul(tmpReg, srcReg, tmpReg, mask);
        Reg.Add(dst_reg, tmp_reg, dst_reg, mask, mode=mode)  # Reg::Add(dstReg, tmpReg, dstReg, mask);
        return
    Reg.Axpy(dst_reg, src_reg, scalar_value, mask, mode=mode)  # Reg::Axpy(dstReg, srcReg, scalarValue, mask);


def axpy(c: Call) -> None:
    """`Axpy(dst, src, scalarValue, ...)`: the same-type rows on the tensor-scalar skeletons; the half-src / float-dst row
    (`WIDENING`): `VecAxpyLevel2VFImpl<..., float, half>` (`unary_continuous_vf`, its src register half) and
    `VecAxpyVFImpl<..., float, half>` (`vec_unary_vf` with U = half); the scalar is the C++ `const U& scalarValue`, a
    half."""
    if c.iface.variant != WIDENING:
        Unary(reg_axpy, dst_input=True)(c)
        return
    api, dst, src = c.api, c["dst"], c["src"]
    names, ts = ("dst", "src"), (dst, src)
    scalar = half_scalar(api, c["scalar_value"])
    ptrs = (dst.GetPhyAddr(), src.GetPhyAddr())
    _check_cast_pair(api, names, ts)
    if c.form is Form.COUNT:
        n = check_count(api, c["count"], names, ts)
        # The VF loads a whole register of halves (128) at every 64 elements and unpacks it: the upper 64 lanes
        # never reach dst, but `UnPack` reads every lane; the elements used are checked here
        # (decisions/arithmetic.md#memory-half-float-rows).
        check_written(api, "src", src, n * dt.half.itemsize)
        with configure(check_uninitialized=False):
            run_lowering(api, unary_continuous_vf, reg_axpy, *ptrs, (scalar,), n, Reg.RegTraitNumOne, True)
        return
    count, repeats, normal, spr = repeat_plan(api, dt.float32, c["mask"], c["repeat_time"], c["is_set_mask"])
    run_lowering(api, vec_unary_vf, reg_axpy, *ptrs, (scalar,), count, repeats, c["repeat_params"], normal, spr, True)


def half_scalar(api: str, value: object) -> float:
    """`const half& scalarValue`: a real number, rounded to half (to nearest, ties to even) as the C++ conversion does."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ParameterError(message(api, "scalar_value", repr(value), "a real number (converted to half)"))
    with np.errstate(over="ignore"):
        return float(np.float16(float(value)))
