"""The memory-level APIs of the ISASI pages Ascend 950 lowers on its own (kernel_operator_vec_binary_impl.h,
kernel_operator_vec_vconv_impl.h for dav_3510), each with the first-n interface only: `Mull` (`MullImpl`: the 64-bit
product's low and high words) and `Truncate` (`TruncateImpl`: round to an integral value of the same type); `Neg`,
`Prelu` and `AbsSub` are the unary / binary first-n skeletons over `Reg::Neg`, `Reg::Prelu`, `Reg::FusedAbsSub`
(`regsim._src.lowerings.table`).
"""

from __future__ import annotations

from typing import Any, Final

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import check_count, check_tensors, run_lowering
from regsim._src.lowerings.elementwise import Unary
from regsim._src.lowerings.spec import Call
from regsim._src.model.enums import RoundMode, expected_member
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import ParameterError, message


@simd_vf
def mull_vf(dst0: UbPtr[Any], dst1: UbPtr[Any], src0: UbPtr[Any], src1: UbPtr[Any], cal_count: int) -> None:
    """`MullImpl`: per register `Reg::Mull` of the two sources into the product's low words (dst0) and high words (dst1)."""
    T = dst0.dtype
    sreg_lower = VL // T.itemsize  # GetVecLen() / sizeof(T)
    repeat_time = -(-cal_count // sreg_lower)  # CeilDivision(calCount, sregLower)
    sreg = Ref(cal_count)
    dst_reg0, dst_reg1, src_reg0, src_reg1 = (Reg.RegTensor(T) for _ in range(4))
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg)  # mask = UpdateMask<T>(sreg);
        Reg.LoadAlign(src_reg0, src0 + i * sreg_lower)
        Reg.LoadAlign(src_reg1, src1 + i * sreg_lower)
        Reg.Mull(dst_reg0, dst_reg1, src_reg0, src_reg1, mask)  # Mull(vDstReg0, vDstReg1, vSrcReg0, vSrcReg1, mask);
        Reg.StoreAlign(dst0 + i * sreg_lower, dst_reg0, mask)
        Reg.StoreAlign(dst1 + i * sreg_lower, dst_reg1, mask)


def mull(c: Call) -> None:
    """`AscendC::Mull(dst0, dst1, src0, src1, count)` (the Mull(ISASI) page): the 64-bit product of src0[i] and src1[i],
    its low 32 bits to dst0[i], its high 32 bits to dst1[i], for i < count (int32, uint32)."""
    names = ("dst0", "dst1", "src0", "src1")
    ts = tuple(c[n] for n in names)
    check_tensors(c.api, c.iface.dtypes, names, ts)
    n = check_count(c.api, c["count"], names, ts)
    run_lowering(c.api, mull_vf, *(t.GetPhyAddr() for t in ts), n)


# --- Truncate (ISASI): round to an integral value in the same type (kernel_operator_vec_vconv_impl.h) -------------------------
#: `Truncate<T, roundMode>`'s roundMode (TruncateImpl's static_assert): no default, CAST_NONE not among them
_TRUNCATE_MODES: Final = (
    RoundMode.CAST_RINT,
    RoundMode.CAST_FLOOR,
    RoundMode.CAST_CEIL,
    RoundMode.CAST_ROUND,
    RoundMode.CAST_TRUNC,
)


def truncate_op(round_mode: RoundMode) -> Any:
    def call(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
        Reg.Truncate(dst_reg, src_reg, mask, round_mode=round_mode, mode=mode)  # Reg::Truncate<T, roundMode>(...);

    return call


def truncate(c: Call) -> None:
    """`AscendC::Truncate<T, roundMode>(dst, src, count)` (the Truncate(ISASI) page): dst[i] = src[i] rounded to an
    integral value of the same type by `round_mode` (the template argument, required: CAST_RINT, CAST_FLOOR, CAST_CEIL,
    CAST_ROUND, CAST_TRUNC), i < count; `TruncateImpl`, the unary first-n skeleton over `Reg::Truncate`."""
    round_mode = c["round_mode"]
    if round_mode not in _TRUNCATE_MODES:
        accepted = expected_member(RoundMode, round_mode, "rs.AscendC", _TRUNCATE_MODES)
        raise ParameterError(message(c.api, "round_mode", repr(round_mode), accepted))
    Unary(truncate_op(round_mode))(c)
