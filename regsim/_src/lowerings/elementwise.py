"""The elementwise memory-level (`LocalTensor`) APIs, lowered onto the Reg layer as the 950 library builds them.

On Ascend 950 the library implements `AscendC::Add(dst, src0, src1, ...)` and its siblings as vector
functions over Reg ops (the "基于指针的C语言编程" guide: "在Memory矢量计算接口内部实现软件封装的Reg矢量计算");
regsim runs the same VFs (`regsim._src.lowerings.skeletons`), so each API is its Reg op (or a callee of a few Reg
ops) run by a skeleton, never a second numpy implementation. Here: `Binary` (dst = src0 op src1: Add, Sub, Mul, Max,
Min, And, Or, and the compounds of `regsim._src.lowerings.fused`), `Unary` (dst = op(src[, scalar]): Abs, Relu, Not,
and the tensor-scalar Adds, Muls, Maxs, Mins, Subs, Divs, Ands, Ors, LeakyRelu with their flexible-scalar overloads)
and the Reg callees of the tensor-scalar APIs the library writes as a `Duplicate` and a tensor-tensor op.

A call is bound to its interface by `regsim._src.lowerings.spec.bind` and validated before it runs; should a Reg op
inside the lowering still fail, the error is raised as the high-level call's, the Reg op's message kept as context
("Add: ... (from Reg StoreAlign: ...)"), and whatever the call changed is put back (`checks.unchanged_on_error`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from regsim._src.lowerings import direct
from regsim._src.lowerings.checks import check_count, check_tensors, flexible_operands, run_flexible, run_lowering
from regsim._src.lowerings.skeletons import (
    binary_continuous_vf,
    trait_for,
    unary_continuous_vf,
    vec_binary_vf,
    vec_unary_vf,
)
from regsim._src.lowerings.spec import FLEXIBLE, SCALAR_FIRST, Call, Form
from regsim._src.lowerings.vector_mask import repeat_plan
from regsim._src.model import dtypes as dt
from regsim._src.model.config import current_config
from regsim._src.model.memory import LocalTensor
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.loops import explaining
from regsim._src.vf.runtime import simd_callee
from regsim._src.vf.trace import current_trace


@attrs.frozen
class Binary:
    """A binary API's lowering (dst = src0 op src1): the first-n `binary_continuous_vf`, the mask/repeat
    `vec_binary_vf`, each over `op` (`dst_input`: dst is an operand too, `BinaryFuncMode::DST_SRC_INPUT`)."""

    op: Callable[..., None]
    dst_input: bool = False
    #: the plans of a kernel's first-n calls run at once, by their static values (`quick`), the oldest dropped past 512
    known: dict[tuple[Any, ...], direct.BinaryPlan] = attrs.field(factory=dict, init=False, eq=False, repr=False)

    def __call__(self, c: Call) -> None:
        if not self.direct(c):
            self.lowered(c)

    def direct(self, c: Call) -> bool:
        """The first-n form's common case at once (`direct.run_binary`), or False (nothing done: `lowered` runs it).
        Its checks and the pipes' records change nothing a journal keeps, and its store is its last act: a call no
        other memory-level call is part of needs no journal for it (`spec.Entry`)."""
        if c.form is not Form.COUNT or self.dst_input:
            return False
        names = ("dst", "src0", "src1")
        dst, src0, src1 = ts = (c["dst"], c["src0"], c["src1"])
        check_tensors(c.api, c.iface.dtypes, names, ts)
        n = check_count(c.api, c["count"], names, ts)
        if not direct.run_binary(c.api, self.op, dst, src0, src1, n):
            return False
        limit = current_config().max_loop_iterations
        key = _static(c.api, (*ts, c["count"]), limit)
        if key is not None and direct.kernel_pipes(dst.ub) is not None and all(c[p.name] is p.default for p in c.iface.keywords):
            plan = direct.binary_plan(self.op, dst, src0, src1, n, limit)  # (not None: the call just ran at once)
            if plan is not None:
                if len(self.known) >= 512:
                    del self.known[next(iter(self.known))]
                self.known[key] = plan
        return True

    def quick(self, api: str, args: tuple[Any, ...]) -> bool:
        """A kernel's first-n call `api(dst, src0, src1, count)` (positional, the keywords' defaults) made before with
        the same static values (`_static`: the tensors' dtypes, UB, addresses and sizes, the count, the loop-length
        limit), which bound to the same interface, passed the same checks and ran at once then: run at once from that
        run's plan, the dynamic conditions checked again (no explanation recording, the sources' bytes written, no
        race; under a trace, `direct.run_binary` with that plan: `rs.profile`'s detailed trace gives the call the
        records of its kind's loop); False (nothing done: the call is bound and run as any other)."""
        config = current_config()
        key = _static(api, args, config.max_loop_iterations)
        plan = self.known.get(key) if key is not None else None
        if plan is None or explaining():
            return False
        dst, src0, src1, count = args
        if current_trace() is not None:  # (`rs.profile`'s detailed trace: the records of its kind's loop; else none)
            return direct.run_binary(api, self.op, dst, src0, src1, count, plan)
        pipes = direct.kernel_pipes(dst.ub)
        if pipes is None or not direct.written(plan, src0, src1, config.check_uninitialized):
            return False
        return direct.run_in_kernel(plan, dst, src0, src1, pipes)

    def lowered(self, c: Call) -> None:
        """The call as the library's VF runs it."""
        names = ("dst", "src0", "src1")
        ts = tuple(c[n] for n in names)
        dtype = check_tensors(c.api, c.iface.dtypes, names, ts)
        ptrs = tuple(t.GetPhyAddr() for t in ts)
        if c.form is Form.COUNT:  # tensor 前n个数据计算
            n = check_count(c.api, c["count"], names, ts)
            run_lowering(c.api, binary_continuous_vf, self.op, *ptrs, n, trait_for(dtype), -1, self.dst_input)
            return
        count, repeats, normal, spr = repeat_plan(c.api, dtype, c["mask"], c["repeat_time"], c["is_set_mask"])
        run_lowering(c.api, vec_binary_vf, self.op, *ptrs, count, repeats, c["repeat_params"], normal, spr, -1, self.dst_input)


def _static(api: str, args: tuple[Any, ...], limit: int) -> tuple[Any, ...] | None:
    """What a first-n binary call's binding, checks and plan depend on: the API, the loop-length limit, the count and
    each tensor's dtype, UB (its identity and size) and bytes; None unless the arguments are three LocalTensors and an
    int."""
    if len(args) != 4:
        return None
    dst, src0, src1, count = args
    if type(dst) is not LocalTensor or type(src0) is not LocalTensor or type(src1) is not LocalTensor or type(count) is not int:
        return None
    ub = dst.ub
    return (
        api, limit, count, ub.size,
        dst.dtype, id(ub), dst.addr, dst.size,
        src0.dtype, id(src0.ub), src0.addr, src0.size,
        src1.dtype, id(src1.ub), src1.addr, src1.size,
    )  # fmt: skip


@attrs.frozen
class Unary:
    """A unary API's lowering (dst = op(src)), or a tensor-scalar one's (dst = op(src, scalarValue)): the first-n
    `unary_continuous_vf`, the mask/repeat `vec_unary_vf`, each over `op` (`dst_input`: Axpy's dst is an operand too).
    With `flex_op`, the 950 flexible-scalar overloads (灵活标量位置): both sources LocalTensors, the scalar one's element
    0 broadcast (`config.scalarTensorIndex`), the binary skeletons over the tensor-tensor `flex_op`; or an immediate
    scalar first, which the library runs as `(dst, srcLocal, scalar)` (`AddsCommon`: the op commutes) or over
    `first_op` (`SubsCommon`, `DivsCommon`: the library's `Subs2` / `Divs2`)."""

    op: Callable[..., None]
    flex_op: Callable[..., None] | None = None
    first_op: Callable[..., None] | None = None
    dst_input: bool = False

    def __call__(self, c: Call) -> None:
        if c.iface.variant == FLEXIBLE:
            self.flexible(c)
        elif c.iface.variant == SCALAR_FIRST:  # AddsCommon: `AddsImpl(dst, src1, src0, ...)`
            self.plain(c, c["src1"], (c["src0"],), self.first_op or self.op)
        else:
            self.plain(c, c["src"], (c["scalar_value"],) if "scalar_value" in c.args else (), self.op)

    def plain(self, c: Call, src: LocalTensor[Any], scalar: tuple[Any, ...], op: Callable[..., None]) -> None:
        names, ts = ("dst", "src"), (c["dst"], src)
        dtype = check_tensors(c.api, c.iface.dtypes, names, ts)
        ptrs = (ts[0].GetPhyAddr(), src.GetPhyAddr())
        if c.form is Form.COUNT:
            n = check_count(c.api, c["count"], names, ts)
            run_lowering(c.api, unary_continuous_vf, op, *ptrs, scalar, n, trait_for(dtype), self.dst_input)
            return
        count, repeats, normal, spr = repeat_plan(c.api, dtype, c["mask"], c["repeat_time"], c["is_set_mask"])
        run_lowering(c.api, vec_unary_vf, op, *ptrs, scalar, count, repeats, c["repeat_params"], normal, spr, self.dst_input)

    def flexible(self, c: Call) -> None:
        """`Adds<T, isSetMask, config>(dst, src0, src1, ...)` with both sources LocalTensors."""
        api, dst, src0, src1 = c.api, c["dst"], c["src0"], c["src1"]
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
        dtype, idx, vec_name, vec = flexible_operands(api, c.iface.dtypes, dst, src0, src1, c["config"])
        if c.form is Form.COUNT:
            n = check_count(api, c["count"], ("dst", vec_name), (dst, vec))
            trait = Reg.RegTraitNumTwo if dtype.itemsize == 8 else Reg.RegTraitNumOne  # complex32: one register
            run_flexible(api, (vec_name, vec, n), binary_continuous_vf, self.flex_op, *ptrs, n, trait, idx)
            return
        count, repeats, normal, spr = repeat_plan(api, dtype, c["mask"], c["repeat_time"], c["is_set_mask"])
        run_lowering(api, vec_binary_vf, self.flex_op, *ptrs, count, repeats, c["repeat_params"], normal, spr, idx)


# --- the Reg callees of the tensor-scalar APIs (kernel_operator_vec_binary_scalar_impl.h for dav_3510) ----------------
# Subs, Divs, Ands, Ors: the tensor-scalar forms broadcast the scalar (`Duplicate`) into dstReg and run the tensor-tensor
# op; the flexible-scalar forms are Adds' (BinaryScalarOp).
@simd_callee
def reg_muls(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegMuls::Muls` (kernel_operator_vec_binary_scalar_impl.h): bfloat16 has no Reg Muls, so the library
    broadcasts the scalar (`Duplicate`) and multiplies (`Mul`); other types use `Reg::Muls`."""
    if dst_reg.dtype is dt.bfloat16:
        Reg.Duplicate(dst_reg, scalar_value, mask)
        Reg.Mul(dst_reg, src_reg, dst_reg, mask, mode=mode)
    else:
        Reg.Muls(dst_reg, src_reg, scalar_value, mask, mode=mode)


# Subs, Divs, Ands, Ors (kernel_operator_vec_binary_scalar_impl.h for dav_3510): the tensor-scalar forms broadcast the
# scalar (`Duplicate`) into dstReg and run the tensor-tensor op; the flexible-scalar forms are Adds' (BinaryScalarOp).
@simd_callee
def reg_subs(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegSubs::Subs`: dst = src - scalar."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Sub(dst_reg, src_reg, dst_reg, mask, mode=mode)  # Reg::Sub(dstReg, srcReg, dstReg, mask);


@simd_callee
def reg_subs2(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegSubs::Subs2` (an immediate scalar first): dst = scalar - src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Sub(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Sub(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_divs(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegDivs::Divs`: dst = src / scalar (`Reg::Div` with its default mode: the INTRINSIC algorithm)."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Div(dst_reg, src_reg, dst_reg, mask, mode=mode)  # Reg::Div(dstReg, srcReg, dstReg, mask);


@simd_callee
def reg_divs2(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegDivs::Divs2` (an immediate scalar first): dst = scalar / src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Div(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Div(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_ands(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegAnds::Ands`: dst = scalar & src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.And(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::And(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_ors(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegOrs::Ors`: dst = scalar | src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Or(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Or(dstReg, dstReg, srcReg, mask);
