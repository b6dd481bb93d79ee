"""The high-level math library's APIs (the pages under 高阶API/数学计算) that the operator kernels call and that
Ascend 950 runs as one Reg op per register, each with its calCount interface (adv_api/detail/math, the 3510
implementations): `Log` (`LogImpl`: `Reg::Log`), `Trunc` (`TruncImpl`: the memory-level `Truncate<T, CAST_TRUNC>`)
and `Fma` (`FmaImplVF`: `Reg::FusedMulDstAdd` of the three sources, dst = src0 * src1 + src2 rounded once). Their
sharedTmpBuffer overloads (the temporary space 950's implementations do not use) run the same; the whole-tensor
overloads without calCount are not modelled (`regsim._src.lowerings.table`)."""

from __future__ import annotations

from typing import Any, Final

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import check_count, check_tensors, run_lowering
from regsim._src.lowerings.elementwise import Unary
from regsim._src.lowerings.isasi import truncate_op
from regsim._src.lowerings.spec import Call
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import RoundMode
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import VL
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import DTypeError, message

LOG: Final = Unary(Reg.Log)  #: `LogImpl`: UpdateMask, LoadAlign, `Reg::Log`, StoreAlign per register
_TRUNC: Final = Unary(truncate_op(RoundMode.CAST_TRUNC))


def _check_tmp_buffer(c: Call) -> None:
    """The sharedTmpBuffer overloads' temporary space: a `LocalTensor<uint8_t>` (the pages), unused on 950."""
    tmp = c.args.get("shared_tmp_buffer")
    if tmp is not None and tmp.dtype is not dt.uint8:
        raise DTypeError(message(c.api, "shared_tmp_buffer", f"a LocalTensor[{tmp.dtype.name}]", "a LocalTensor[uint8]"))


def trunc(c: Call) -> None:
    """`AscendC::Trunc(dst, src[, sharedTmpBuffer], calCount)` (the Trunc page): `TruncImpl`, the memory-level
    `Truncate<T, RoundMode::CAST_TRUNC>` (dst[i] = src[i] rounded toward zero, i < calCount; half, float)."""
    _check_tmp_buffer(c)
    _TRUNC(c)


@simd_vf
def fma_vf(dst: UbPtr[Any], src0: UbPtr[Any], src1: UbPtr[Any], src2: UbPtr[Any], count: int) -> None:
    """`FmaImplVF`: per register src0 * src1 + src2, fused (`Reg::FusedMulDstAdd(srcVreg0, srcVreg1, srcVreg2)`)."""
    T = dst.dtype
    one_rep = VL // T.itemsize  # GetVecLen() / sizeof(T)
    repeat_times = -(-count // one_rep)  # CeilDivision(count, oneRepElm)
    sreg = Ref(count)
    reg0, reg1, reg2 = (Reg.RegTensor(T) for _ in range(3))
    for i in range(repeat_times):
        mask = Reg.UpdateMask(T, sreg)  # mask = UpdateMask<T>(count);
        Reg.LoadAlign(reg0, src0 + i * one_rep)
        Reg.LoadAlign(reg1, src1 + i * one_rep)
        Reg.LoadAlign(reg2, src2 + i * one_rep)
        Reg.FusedMulDstAdd(reg0, reg1, reg2, mask)  # srcVreg0 = srcVreg0 * srcVreg1 + srcVreg2
        Reg.StoreAlign(dst + i * one_rep, reg0, mask)


def fma(c: Call) -> None:
    """`AscendC::Fma(dst, src0, src1, src2[, sharedTmpBuffer], count)` (the Fma page): dst[i] = src0[i] * src1[i] +
    src2[i] rounded once, for i < count (half, float)."""
    _check_tmp_buffer(c)
    names = ("dst", "src0", "src1", "src2")
    ts = tuple(c[n] for n in names)
    check_tensors(c.api, c.iface.dtypes, names, ts)
    n = check_count(c.api, c["count"], names, ts)
    run_lowering(c.api, fma_vf, *(t.GetPhyAddr() for t in ts), n)
