"""Cross-lane op shapes: fill, index, rearrange, compress, histogram, reduce, sync, the AR register."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src.engine import backend
from regsim._src.engine.context import VfContext
from regsim._src.engine.executors.access import _POST_UPDATE
from regsim._src.engine.executors.base import Executor, _trait_one
from regsim._src.engine.executors.streams import _stream_store
from regsim._src.engine.spec import Call, Kind, OpSpec, Plan, Role
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import (
    RegTensor,
    UnalignRegForStore,
    lane_count,
    mask_stride,
)
from regsim.errors import ParameterError, message

ZEROING = MaskMergeMode.ZEROING


@attrs.frozen
class _CrossLane:
    inputs: tuple[tuple[int, str, Kind], ...]  #: (index, name, kind) of the lane function's inputs, in operand order
    outputs: tuple[tuple[int, Kind], ...]  #: (index, kind) of the written registers / MaskRegs, in operand order
    pred: int | None  #: the governing predicate
    governs: int | None  #: the register whose lanes the predicate selects
    mode: MaskMergeMode | None  #: with `masked`: how inactive destination lanes end
    options: Mapping[str, Any]  #: the template values the lane function takes by keyword


class CrossLane(Executor):
    """Whole registers in, whole registers out: `outputs = lane(*inputs, **options)`.

    The lane function gets, in operand order, the lanes of every input register (whole, read
    only; an in-out destination too), the 256 bits of every input MaskReg, scalars as numpy
    scalars of the first register's element type and, unless `masked`, the governing predicate
    as one bool per lane of the register it governs (`governs`). It returns one array per
    output (a tuple for several): lanes of a register (every lane is written) or 256 MaskReg bits.

    `masked`: the predicate selects destination lanes instead (Duplicate, Move): the result is
    committed under the op's MaskMergeMode and the lane function never sees the mask.
    `options`: the template operands passed on to the lane function by keyword.
    `sized`: the lane function also gets `n` and `dtype`, the lane count and numpy dtype of the
    first output register (for results not shaped like an input: Arange, Pack, Reduce, ...).
    `check`: a per-call check of the operands' types the static dtype rules cannot state
    (pairs of widths), raising before anything is written.
    """

    batching_note = "the lane axis stays last; lane functions take leading axes"
    batchable = True

    def __init__(
        self,
        governs: str | None = None,
        *,
        masked: bool = False,
        options: tuple[str, ...] = (),
        check: Callable[[str, Sequence[Any], Mapping[str, Any]], None] | None = None,
        sized: bool = False,
    ) -> None:
        self.governs, self.masked, self.options, self.check, self.sized = governs, masked, options, check, sized

    def prepare(self, spec: OpSpec, plan: Plan) -> _CrossLane:
        ops = spec.operands
        pred = next((i for i, o in enumerate(ops) if o.kind is Kind.PRED), None)
        return _CrossLane(
            inputs=tuple(
                (i, o.name, o.kind)
                for i, o in enumerate(ops)
                if (o.role in (Role.IN, Role.INOUT) and o.kind in (Kind.REG, Kind.MASK, Kind.SCALAR))
                or (o.kind is Kind.PRED and not self.masked)
            ),
            outputs=tuple((i, o.kind) for i, o in enumerate(ops) if o.role in (Role.OUT, Role.INOUT)),
            pred=pred,
            governs=None if self.governs is None else spec.slots[self.governs],
            mode=plan.values.get("mode", ZEROING) if self.masked else None,
            # the template operands asked for; a non-deducible `T` given positionally is the plan's dtype
            options={k: v for k, v in plan.values.items() if k in self.options}
            | ({"T": plan.dtype} if "T" in self.options else {}),
        )

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> Any:
        p: _CrossLane = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        if self.check is not None:
            self.check(api, values, plan.values)
        active = None
        if p.pred is not None:
            ruled = values[p.governs if p.governs is not None else p.outputs[0][0]]
            active = be.predicate(api, "mask", values[p.pred], mask_stride(ruled.dtype, ruled.trait))
        operands = []
        scalars = set()  #: which operands are scalars (no lane axis)
        for i, name, kind in p.inputs:
            if kind is Kind.REG:
                operands.append(be.lanes(api, name, values[i], active if i == p.governs else None))
            elif kind is Kind.MASK:
                operands.append(be.predicate_bits(api, name, values[i], None))
            elif kind is Kind.PRED:
                operands.append(active[0])  # type: ignore[index]
            else:  # (one value per iteration in a batched loop: a column, here its leading axis alone)
                value = be.scalar(api, name, values[i], plan.dtype)
                scalars.add(len(operands))
                operands.append(value[:, 0] if np.ndim(value) == 2 else value)
        operands = _same_leading_axes(operands, scalars)
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        options = p.options
        if self.sized:
            first = values[p.outputs[0][0]]
            options = {**options, "n": lane_count(first.dtype, first.trait), "dtype": first.dtype.np_dtype}
            if type(lane) is Leading:  # (one register out, every lane written: its first lanes alone)
                be.commit_leading(first, lane.lead(*operands, **options))
                return self.after(ctx, plan, values, ())
        out = lane(*operands, **options)
        results = out if isinstance(out, tuple) else (out,)
        for (i, kind), result in zip(p.outputs, results, strict=True):
            if kind is Kind.MASK:
                be.write_bits(values[i], result)
            elif p.mode is not None:
                assert active is not None  # (a masked op has a predicate)
                be.commit(values[i], result, active, p.mode)
            else:
                be.commit_all(values[i], result)
        return self.after(ctx, plan, values, results)

    def after(self, ctx: VfContext, plan: Plan, values: Sequence[Any], results: tuple[Any, ...]) -> Any:
        """What a call does besides writing its outputs (a special register); returns the call's value."""
        return None

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        if type(self).run is not CrossLane.run or type(self).after is not CrossLane.after:
            return None  # (a shape of its own: the generic run)
        p: _CrossLane = plan.prepared
        kinds = {Kind.REG: "reg", Kind.MASK: "mask", Kind.PRED: "pred", Kind.SCALAR: "scalar"}
        lane: Callable[..., Any] = spec.lane  # type: ignore[assignment]
        return backend.in_order_cross_lane(
            spec.name,
            lane,
            tuple((i, name, kinds[kind]) for i, name, kind in p.inputs),
            tuple((i, kind is Kind.MASK) for i, kind in p.outputs),
            p.pred,
            p.governs if p.governs is not None else p.outputs[0][0],
            p.mode,
            dict(p.options),
            self.sized,
            plan.dtype,
            self.check is None,
            generic,
        )


class Leading:
    """A sized cross-lane op's lane function whose one register result is +0 past its first lanes (Reduce's): `lead`
    gives those lanes, (..., k), from the lane function's arguments; called, it gives every lane. `CrossLane.run`
    commits the first lanes alone (`commit_leading`: a batched loop keeps them so until something reads the rest)."""

    def __init__(self, lead: Callable[..., Any]) -> None:
        self.lead = lead
        functools.update_wrapper(self, lead)

    def __call__(self, *args: Any, n: int, **options: Any) -> Any:
        return backend.padded(self.lead(*args, n=n, **options), n)


def _same_leading_axes(operands: list[Any], scalars: set[int]) -> list[Any]:
    """The lane function's operands broadcast to one leading shape: in a batched loop some carry an
    iteration axis (written in the body, or a scalar that differs by iteration) and others not (set
    before the loop). A scalar's axes are all leading; a lane array's last axis is its lanes."""
    leads = [np.shape(x) if k in scalars else np.shape(x)[:-1] for k, x in enumerate(operands) if np.ndim(x) > 0]
    shapes = set(leads) - {()}
    if not shapes:
        return operands
    lead = shapes.pop() if len(shapes) == 1 else np.broadcast_shapes(*leads)
    shaped = [lead if k in scalars else (*lead, *np.shape(x)[-1:]) for k, x in enumerate(operands)]
    pairs = zip(operands, shaped, strict=True)
    return [x if np.ndim(x) == 0 or np.shape(x) == shape else np.broadcast_to(x, shape) for x, shape in pairs]


class CompressToAr(CrossLane):
    """Squeeze: as CrossLane; with GatherMaskMode STORE_REG the byte count of the selected
    elements is added to the core's AR special register (in order only: the count is per call)."""

    batchable = False

    def after(self, ctx: VfContext, plan: Plan, values: Sequence[Any], results: tuple[Any, ...]) -> None:
        if plan.values["store"].name == "STORE_REG":
            src = values[1]
            active = ctx.backend.predicate(plan.spec.name, "mask", values[2], mask_stride(src.dtype, src.trait))
            ctx.backend.ar_add(active[1] * src.dtype.itemsize)


class Barrier(Executor):
    """LocalMemBar: validates its (src, dst) pipe pair; a sequential model has nothing to wait for."""

    batchable = True

    def __init__(self, pairs: frozenset[tuple[Any, Any]]) -> None:
        self.pairs = pairs

    def prepare(self, spec: OpSpec, plan: Plan) -> None:
        pair = (plan.values["src"], plan.values["dst"])
        if pair not in self.pairs:
            accepted = ", ".join(
                f"({s.name}, {d.name})" for s, d in sorted(self.pairs, key=lambda sd: (sd[0].value, sd[1].value))
            )
            raise ParameterError(message(spec.name, "src, dst", f"({pair[0].name}, {pair[1].name})", f"one of {accepted}"))

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        return None

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        return _nothing


def _nothing(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """An in-order call with nothing to do (LocalMemBar: its pipe pair was checked with the plan)."""


class ClearSpecial(Executor):
    """ClearSpr<AR>: the core's AR special register = 0."""

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        ctx.backend.ar_clear()


class ArStore(Executor):
    """StoreUnAlign(dst, src, ureg), the AR form: the bytes the latest STORE_REG Squeeze counted
    (its share of AR) appended to the stream at dst + the AR before that Squeeze
    (POST_MODE_UPDATE), or at dst (POST_MODE_NORMAL: the kernel moves dst itself)."""

    def prepare(self, spec: OpSpec, plan: Plan) -> None:
        _trait_one(spec, plan, "AR")

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        be = ctx.backend
        api = plan.spec.name
        ptr: UbPtr[Any] = values[0]
        src: RegTensor[Any] = values[1]
        offset, nbytes = be.ar_take(api)
        size = src.dtype.itemsize
        count = nbytes // size
        total = lane_count(src.dtype, src.trait)
        if count > total:
            raise ParameterError(message(api, "AR", f"{nbytes} bytes", f"at most one register ({total * size} bytes)"))
        lanes = be.lanes(api, "src_reg", src, (np.arange(total) < count, count))
        addr = ptr.addr + (offset if plan.values["post_mode"] is _POST_UPDATE else 0)
        _stream_store(
            ctx, api, ptr, values[2], addr, lanes.view(np.uint8).reshape(-1)[:nbytes], f"{api} (AR form) at UB byte {addr}"
        )


class ArFlush(Executor):
    """StoreUnAlignPost(dst, ureg), the AR form: write the bytes the stream still buffers."""

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        u: UnalignRegForStore = values[1]
        if u.pending.size:
            ctx.backend.store(plan.spec.name, "dst_addr", u.ptr, [(u.start, u.pending, None)], 1)
            u.pending = u.pending[:0]


# --- type conversion (Cast) -------------------------------------------------------------------------


class BroadcastLowest(CrossLane):
    """`Duplicate(dst, src, mask)`: CrossLane(masked=True) whose source read is lane 0 alone ("将srcReg的最低位
    元素广播到寄存器", the Duplicate page), so a source whose other lanes were never written (a first-element
    store read back, as the softmax_high_performance example does) is no uninitialised read."""

    def __init__(self) -> None:
        super().__init__(masked=True)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> Any:
        p: _CrossLane = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        dst: RegTensor[Any] = values[p.outputs[0][0]]
        assert p.pred is not None and p.mode is not None
        active = be.predicate(api, "mask", values[p.pred], mask_stride(dst.dtype, dst.trait))
        ((i, name, _),) = [x for x in p.inputs if x[2] is Kind.REG]
        src: RegTensor[Any] = values[i]
        lowest = np.zeros(lane_count(src.dtype, src.trait), np.bool_)
        lowest[0] = True
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        be.commit(dst, lane(be.lanes(api, name, src, (lowest, 1))), active, p.mode)
