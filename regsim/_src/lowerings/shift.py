"""The memory-level `ShiftLeft` and `ShiftRight` (the ShiftLeft / ShiftRight pages), lowered onto Reg ops as the 950
library builds them: a scalar shift amount on the tensor-scalar skeletons (`VecBinaryScalarLevel2ImplTemplate` /
`VecBinaryScalarLevel0Template` over `Reg::ShiftLefts<T, int16_t>` / `Reg::ShiftRights<T, int16_t>`,
kernel_operator_vec_binary_scalar_impl.h), and a LocalTensor of shift amounts (the pages "ShiftLeft（左移位数为Tensor）",
"ShiftRight（右移位数为Tensor）"; `ShiftLeftImpl<T, U>` in kernel_operator_vec_binary_continuous_impl.h for dav_3510) on
the two-type binary first-n skeleton over the tensor-tensor `Reg::ShiftLeft<T, U>` / `ShiftRight<T, U>`.
"""

from __future__ import annotations

from typing import Any, Final

import attrs
import numpy as np

from regsim._src.lowerings.checks import check_count, check_tensors, run_lowering
from regsim._src.lowerings.elementwise import Unary
from regsim._src.lowerings.skeletons import binary_continuous_vf, trait_for
from regsim._src.lowerings.spec import AMOUNTS, Call
from regsim._src.model import dtypes as dt
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee
from regsim.errors import DTypeError, ParameterError, UnsupportedError, message

_INT16_MAX: Final = 2**15 - 1
#: the shift-amount tensor's type per element width (ShiftLeftImpl<T, U>'s Tuple list: U is the signed type of T's width)
SHIFT_AMOUNT: Final = {1: dt.int8, 2: dt.int16, 4: dt.int32, 8: dt.int64}


@simd_callee
def reg_shift_lefts(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`Reg::ShiftLefts<T, int16_t, ZEROING>`: the library passes the T scalar on as an int16_t."""
    Reg.ShiftLefts(dst_reg, src_reg, np.int16(scalar_value), mask, mode=mode)


@simd_callee
def reg_shift_rights(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`Reg::ShiftRights<T, int16_t, ZEROING>`: the library passes the T scalar on as an int16_t."""
    Reg.ShiftRights(dst_reg, src_reg, np.int16(scalar_value), mask, mode=mode)


@attrs.frozen
class Shift:
    """`ShiftLeft` / `ShiftRight(dst, src, scalarValue, ...)`: the tensor-scalar skeleton over `scalar_op`; the scalar (the
    shift amount, of type T) must be >= 0 (the pages) and at most 2**15 - 1 (the library passes it on as an int16_t);
    `ShiftRight`'s `roundEn` must be false on Ascend 950. With a LocalTensor of amounts (`AMOUNTS`): the first-n
    interface, src1 the signed type of src0's width (int8 ... int64), its used amounts >= 0 ("不支持设置为负数"), the
    binary skeleton over `tensor_op` (two registers per iteration for 64-bit types)."""

    scalar_op: Any
    tensor_op: Any

    def __call__(self, c: Call) -> None:
        api = c.api
        if c.iface.variant == AMOUNTS:
            self.amounts(c)
            return
        if c.args.get("round_en", False) is not False:
            raise UnsupportedError(message(api, "round_en", repr(c["round_en"]), "False (Ascend 950 does not support rounding)"))
        amount, dst = c["scalar_value"], c["dst"]
        if dst.dtype in c.iface.dtypes:
            if type(amount) is not int and not isinstance(amount, np.integer):
                raise ParameterError(message(api, "scalar_value", repr(amount), f"an int shift amount of {dst.dtype.name}"))
            if not 0 <= int(amount) <= _INT16_MAX:
                raise ParameterError(message(api, "scalar_value", int(amount), f"a shift amount in [0, {_INT16_MAX}]"))
        Unary(self.scalar_op).plain(c, c["src"], (amount,), self.scalar_op)

    def amounts(self, c: Call) -> None:
        """`ShiftLeft(dst, src0, src1, count)` / `ShiftRight(...)` with a LocalTensor of shift amounts."""
        api, dst, src0, src1 = c.api, c["dst"], c["src0"], c["src1"]
        dtype = check_tensors(api, c.iface.dtypes, ("dst", "src0"), (dst, src0))
        amount_type = SHIFT_AMOUNT[dtype.itemsize]
        if src1.dtype is not amount_type:
            given, accepted = f"a LocalTensor[{src1.dtype.name}]", f"a LocalTensor[{amount_type.name}] for {dtype.name}"
            raise DTypeError(message(api, "src1", given, accepted))
        check_tensors(api, frozenset({amount_type}), ("src1",), (src1,))
        if src1.ub is not dst.ub:
            raise ParameterError(message(api, "src1", repr(src1), "a LocalTensor in the same UnifiedBuffer as dst"))
        names, ts = ("dst", "src0", "src1"), (dst, src0, src1)
        n = check_count(api, c["count"], names, ts)
        amounts = src1.numpy()[:n]
        valid = src1.ub.storage.flags(src1.addr, src1.addr + n * src1.dtype.itemsize)  # (None: all written)
        if valid is not None and n:  # (an unwritten amount is the lowering's UninitializedReadError)
            amounts = amounts[valid.reshape(n, -1).all(axis=1)]
        negative = amounts[amounts < 0]
        if negative.size:
            raise ParameterError(message(api, "src1", f"[..., {int(negative[0])}, ...]", "shift amounts >= 0"))
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
        run_lowering(api, binary_continuous_vf, self.tensor_op, *ptrs, n, trait_for(dtype))


SHIFT_LEFT: Final = Shift(reg_shift_lefts, Reg.ShiftLeft)
SHIFT_RIGHT: Final = Shift(reg_shift_rights, Reg.ShiftRight)
