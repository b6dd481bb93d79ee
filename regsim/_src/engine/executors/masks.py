"""Mask op shapes: predicates from patterns, counters, bits, compares, selects and the vector-mask register."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from regsim._src.engine import backend
from regsim._src.engine.context import VfContext
from regsim._src.engine.executors.base import Executor
from regsim._src.engine.executors.elementwise import _Elementwise, _lane_inputs, _read_inputs, in_order_inputs, positional_run
from regsim._src.engine.spec import Call, OpSpec, Plan, Role
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.registers import (
    VL,
    MaskReg,
    RegTensor,
    lane_count,
    mask_stride,
)
from regsim.errors import DTypeError, ParameterError, message

ZEROING = MaskMergeMode.ZEROING


class MaskGen(Executor):
    """A predicate from a static pattern (CreateMask): computed once per dtype, trait and pattern."""

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> Any:
        assert spec.lane is not None
        return spec.lane(spec.name, plan.dtype, plan.values["pattern"], plan.trait)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> MaskReg:
        dst = MaskReg()
        ctx.backend.write_predicate(dst, plan.prepared, plan.dtype, plan.trait)
        return dst

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        return backend.in_order_mask(plan.prepared, plan.dtype, plan.trait)


class UpdateMaskCounter(Executor):
    """mask = lanes [0, min(count, VL_T)); count -= min(count, VL_T) (a `uint32_t&` counter)."""

    def prepare(self, spec: OpSpec, plan: Plan) -> int:
        return lane_count(plan.dtype, plan.trait)

    batchable = True

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> MaskReg:
        dst = MaskReg()
        be = ctx.backend
        be.write_prefix(dst, be.count_down(plan.spec.name, values[1], plan.prepared), plan.dtype, plan.trait)
        return dst

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        return backend.in_order_prefix(plan.prepared, plan.dtype, plan.trait, generic)

    def specialise_batched(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        run = self.run

        def call(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            return run(ctx, plan, args)  # (`run` reads the counter, a positional operand given: the arguments will do)

        return call


class MaskBits(Executor):
    """dst = lane(bits of each input MaskReg, in operand order, the governing mask last): ops on the
    256 raw predicate bits (MaskReg Not/And/Or/Xor/Select). Inputs are read before dst is
    written, so dst may alias a source (the library writes `MaskNot(dst, dst, mask)`)."""

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> tuple[int, tuple[tuple[int, str], ...]]:
        ops = spec.operands
        dst = next(i for i, o in enumerate(ops) if o.role is Role.OUT)
        return dst, tuple((i, o.name) for i, o in enumerate(ops) if o.role is Role.IN)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        dst, inputs = plan.prepared
        be = ctx.backend
        bits = [be.predicate_bits(plan.spec.name, name, values[i], None) for i, name in inputs]
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        be.write_bits(values[dst], lane(*bits))


class PredicateOut(Executor):
    """dst = the predicate of lane(template value, inputs...) on the active lanes, 0 on the others
    (Compare, Compares), in the MaskReg layout of the operands' type (`backend.write_predicate`).

    `fixed(value, dtype)`: the lane function with its template value and element type fixed (`lane(value, ...)`
    itself, made once per signature for the in-order calls)."""

    def __init__(self, fixed: Callable[[Any, Any], Callable[..., Any]]) -> None:
        self.fixed = fixed

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> _Elementwise:
        return _Elementwise(
            stride=mask_stride(plan.dtype, plan.trait),
            dst=0,
            predicates_out=(0,),
            pred=spec.slots["mask"],
            mode=ZEROING,
            **_lane_inputs(spec),
        )

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        p: _Elementwise = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        active = be.predicate(api, "mask", values[p.pred], p.stride)
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        lanes = lane(plan.values["mode"], *_read_inputs(be, api, plan, p, values, active))
        be.write_predicate(values[0], lanes & active[0], plan.dtype, plan.trait)

    def specialise_batched(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        return positional_run(self, spec, plan, plan.prepared)

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        p: _Elementwise = plan.prepared
        return backend.in_order_elementwise(
            spec.name,
            self.fixed(plan.values["mode"], plan.dtype),
            False,
            in_order_inputs(p),
            p.pred,
            None,
            (0,),
            ZEROING,
            plan.dtype,
            plan.trait,
            generic,
        )


class SelectLanes(Executor):
    """dst[i] = mask[i] ? src0[i] : src1[i] on every lane (nothing zeroed), bit for bit."""

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> int:
        return mask_stride(plan.dtype, plan.trait)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        be = ctx.backend
        api = plan.spec.name
        lanes, count = be.predicate(api, "mask", values[3], plan.prepared)
        a = be.lanes(api, "src_reg0", values[1], (lanes, count))
        b = be.lanes(api, "src_reg1", values[2], (~lanes, lanes.size - count))
        result = np.where(lanes, a, b) if count < lanes.size else np.array(a)
        be.commit(values[0], result, (np.ones_like(lanes), lanes.size), ZEROING)

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        return backend.in_order_select(plan.prepared, generic)

    def specialise_batched(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        if len(spec.positional) != len(spec.operands):
            return None
        run = self.run

        def call(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            return run(ctx, plan, args)  # (every operand positional, every one given: the arguments are the values)

        return call


class MaskFromVectorMask(Executor):
    """A predicate from the core's vector-mask special register (MoveMask<T>): each of its bits
    repeated over a lane's group of `sizeof(T)` predicate bits."""

    batchable = True

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> MaskReg:
        high, low = ctx.backend.core.vector_mask  # (the core the VF runs on)
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        dst = MaskReg()
        ctx.backend.write_bits(dst, lane(plan.dtype.itemsize, high, low))
        return dst


class MaskFromRegister(Executor):
    """A predicate from one block of a register's bytes (MaskGenWithRegTensor<T, offset>): the
    block's bits, each repeated over a lane's group of `sizeof(T)` predicate bits."""

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> tuple[int, int]:
        if plan.trait.REG_NUM != 1:
            raise DTypeError(
                message(
                    spec.name, "src_reg", f"RegTensor[{plan.dtype.name}] (RegTraitNumTwo)", "a one-register b16 or b32 tensor"
                )
            )
        size = plan.dtype.itemsize
        blocks = VL // (VL // (8 * size))  # b16: 16 blocks of 16 bytes; b32: 32 blocks of 8 bytes
        offset = plan.values["offset"]
        if type(offset) is not int or not 0 <= offset < blocks:
            raise ParameterError(
                message(spec.name, "offset", repr(offset), f"an int16_t in [0, {blocks - 1}] for RegTensor[{plan.dtype.name}]")
            )
        return size, offset

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        size, offset = plan.prepared
        be = ctx.backend
        src: RegTensor[Any] = values[1]
        block_lanes = VL // (8 * size) // size  # lanes of T in one block
        read = np.zeros(VL // size, np.bool_)
        read[offset * block_lanes : (offset + 1) * block_lanes] = True
        lanes = be.lanes(plan.spec.name, "src_reg", src, (read, block_lanes))
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        be.write_bits(values[0], lane(np.ascontiguousarray(lanes).view(np.uint8), size, offset))


# --- rearrange, reduce, sync (the fill / index / rearrange / compress / histogram / reduce / sync pages) ----
