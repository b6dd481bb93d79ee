"""Elementwise op shapes: one lane function over the lanes under the predicate (with carry and multi outputs,
magnitudes, two widths)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src.engine import backend
from regsim._src.engine.context import VfContext
from regsim._src.engine.executors.base import SCALAR_CTYPES, Executor
from regsim._src.engine.spec import Call, Kind, OpSpec, Plan, Role
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.registers import (
    RegTensor,
    lane_count,
    mask_stride,
)
from regsim.errors import ParameterError, message

ZEROING = MaskMergeMode.ZEROING


@attrs.frozen
class _Elementwise:
    stride: int
    dst: int  #: index of the destination register
    predicates_out: tuple[int, ...]  #: MaskReg outputs (carry), written as lane predicates
    pred: int
    mode: MaskMergeMode
    inputs: tuple[tuple[int, str, Kind], ...]  #: (index, name, kind) of the lane function's inputs
    scalar_types: tuple[Any, ...]  #: per input, the dtype a scalar converts to (None: the op's T)


def _lane_inputs(spec: OpSpec) -> dict[str, tuple[Any, ...]]:
    """The lane function's inputs (registers, MaskRegs, scalars read, in operand order) and, per
    input, the fixed dtype a scalar converts to (None: the op's T)."""
    ins = [(i, o) for i, o in enumerate(spec.operands) if o.role in (Role.IN, Role.INOUT) and o.kind in _LANE_KINDS]
    return {
        "inputs": tuple((i, o.name, o.kind) for i, o in ins),
        "scalar_types": tuple(SCALAR_CTYPES.get(o.ctype) if o.kind is Kind.SCALAR else None for _, o in ins),
    }


_LANE_KINDS = (Kind.REG, Kind.MASK, Kind.SCALAR)
#: the lane inputs `Elementwise._batched_lanes` takes
_LANE_FORMS = ((Kind.REG,), (Kind.REG, Kind.REG), (Kind.REG, Kind.SCALAR))


def _read_inputs(be: Any, api: str, plan: Plan, p: _Elementwise, values: Sequence[Any], active: Any) -> list[Any]:
    """Whole lane arrays of the input registers, the lanes of input MaskRegs, scalars as numpy
    scalars of their type."""
    return [
        be.lanes(api, name, values[i], active)
        if kind is Kind.REG
        else be.predicate(api, name, values[i], p.stride)[0]
        if kind is Kind.MASK
        else be.scalar(api, name, values[i], fixed or plan.dtype)
        for (i, name, kind), fixed in zip(p.inputs, p.scalar_types, strict=True)
    ]


def positional_run(executor: Executor, spec: OpSpec, plan: Plan, p: _Elementwise) -> Call | None:
    """The batched call of an elementwise shape whose `run` reads only positional operands (the predicate, the
    destination, the lane inputs, the predicate outputs): `run` on the call's arguments as they are, unbound."""
    used = (p.pred, p.dst, *p.predicates_out, *(i for i, _, _ in p.inputs))
    if max(used) >= len(spec.positional):
        return None
    run = executor.run

    def call(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return run(ctx, plan, args)

    return call


def in_order_inputs(p: _Elementwise) -> tuple[backend.Input, ...]:
    """The lane function's inputs as the in-order closures take them (`backend.Input`)."""
    kinds = {Kind.REG: "reg", Kind.MASK: "mask", Kind.SCALAR: "scalar"}
    return tuple((i, name, kinds[kind], fixed) for (i, name, kind), fixed in zip(p.inputs, p.scalar_types, strict=True))


class Elementwise(Executor):
    """dst[i] = active[i] ? lane(inputs...)[i] : (ZEROING ? 0 : dst[i]); predicate outputs (carry)
    are lane predicates, 0 on inactive lanes. The lane function gets, in operand order, whole
    lane arrays of the input registers (read-only), the lanes of input MaskRegs, and scalars as
    numpy scalars of the op's element type; an in-out destination is an input too.

    With `ctrl=True` the lane function also gets `ctrl=`, the CTRL register the VF started with
    (the saturation bits of the SetCtrlSpr page), as a keyword: it stays a pure function."""

    def __init__(self, ctrl: bool = False) -> None:
        self.ctrl = ctrl

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> _Elementwise:
        ops = spec.operands
        return _Elementwise(
            stride=mask_stride(plan.dtype, plan.trait),
            dst=next(i for i, o in enumerate(ops) if o.kind is Kind.REG and o.role in (Role.OUT, Role.INOUT)),
            predicates_out=tuple(i for i, o in enumerate(ops) if o.kind is Kind.MASK and o.role is Role.OUT),
            pred=spec.slots["mask"],
            mode=plan.values.get("mode", ZEROING),
            **_lane_inputs(spec),
        )

    def lane(self, plan: Plan) -> Callable[..., Any]:
        """The lane function a call applies."""
        return plan.spec.lane  # type: ignore[return-value]

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        p: _Elementwise = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        active = be.predicate(api, "mask", values[p.pred], p.stride)
        if be.scan(plan, p, values, active):  # a batched loop's register or carry carried across iterations
            return
        lane = self.lane(plan)
        operands = _read_inputs(be, api, plan, p, values, active)
        out = lane(*operands, ctrl=ctx.ctrl) if self.ctrl else lane(*operands)
        if not p.predicates_out:
            be.commit(values[p.dst], out, active, p.mode)
            return
        result, *preds = out
        be.commit(values[p.dst], result, active, p.mode)
        full = active[1] == active[0].size
        for i, lanes in zip(p.predicates_out, preds, strict=True):
            be.write_predicate(values[i], lanes if full else lanes & active[0], plan.dtype, plan.trait)

    def specialise_batched(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        p: _Elementwise = plan.prepared
        call = positional_run(self, spec, plan, p)
        if call is None or len(p.predicates_out) > 1 or tuple(kind for _, _, kind in p.inputs) not in _LANE_FORMS:
            return call
        return self._batched_lanes(plan, p)

    def _batched_lanes(self, plan: Plan, p: _Elementwise) -> Call:
        """`run` of one register input, or two (a register, then a register or a scalar), and at most one predicate
        output, on a batched loop's backend: the plan's parts looked up once. A lane function taking `out=` is given
        the backend's `result_buffer` when the op writes every lane of every row (no predicate output): `commit` keeps
        it as the register's own when the lane function returns it. Such an op is first offered to the backend to
        compute later (`deferred`, committed as it is: a store of its result may then compute it straight into the UB)."""
        lane, ctrl, api, dtype, trait = self.lane(plan), self.ctrl, plan.spec.name, plan.dtype, plan.trait
        unary = len(p.inputs) == 1
        ia, na, _ = p.inputs[0]
        ib, nb, kb = p.inputs[-1]
        fixed, scalar = p.scalar_types[-1] or dtype, kb is Kind.SCALAR
        pred, dst, stride, mode = p.pred, p.dst, p.stride, p.mode
        carry = p.predicates_out[0] if p.predicates_out else -1
        into = carry < 0 and "out" in inspect.signature(lane).parameters

        def call(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            be: Any = ctx.backend  # (the batched backend: its `regs`, `deferred` and `result_buffer`)
            active = be.predicate(api, "mask", args[pred], stride)
            # (a register or carry carried across iterations; `scan` answers no at once for a destination the body
            # wrote already and no carry out: not asked then)
            if (carry >= 0 or id(args[dst]._storage) not in be.regs) and be.scan(plan, p, args, active):
                return
            a = be.lanes(api, na, args[ia], active)
            # (one register read twice, `Add(d, x, x)`: its lanes once; `lanes` changes nothing another call would see)
            b = args[ib]
            ins = (
                (a,)
                if unary
                else (a, be.scalar(api, nb, b, fixed) if scalar else a if b is args[ia] else be.lanes(api, nb, b, active))
            )
            batched = be
            full = into and active[1] == active[0].size
            # (`deferred` answers no at once under DEFER_ROWS rows: not asked then)
            later = (
                batched.deferred(args[dst], functools.partial(lane, ctrl=ctx.ctrl) if ctrl else lane, ins)
                if full and batched.defers
                else None
            )
            if later is not None:
                be.commit(args[dst], later, active, mode)
                return
            buffer = batched.result_buffer(args[dst], ins) if full else None
            if buffer is not None:
                out = lane(*ins, ctrl=ctx.ctrl, out=buffer) if ctrl else lane(*ins, out=buffer)
            else:
                out = lane(*ins, ctrl=ctx.ctrl) if ctrl else lane(*ins)
            if carry < 0:
                be.commit(args[dst], out, active, mode)
                return
            result, lanes = out
            be.commit(args[dst], result, active, mode)
            be.write_predicate(args[carry], lanes if active[1] == active[0].size else lanes & active[0], dtype, trait)

        return call

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        p: _Elementwise = plan.prepared
        return backend.in_order_elementwise(
            spec.name,
            self.lane(plan),
            self.ctrl,
            in_order_inputs(p),
            p.pred,
            p.dst,
            p.predicates_out,
            p.mode,
            plan.dtype,
            plan.trait,
            generic,
        )


class ElementwiseTemplated(Elementwise):
    """Elementwise, with the named template values (e.g. `round_mode`) passed to the lane function
    as keywords."""

    def __init__(self, *params: str) -> None:
        super().__init__()
        self.params = params

    def lane(self, plan: Plan) -> Callable[..., Any]:
        assert plan.spec.lane is not None
        return functools.partial(plan.spec.lane, **{k: plan.values[k] for k in self.params})


# --- mask generation --------------------------------------------------------------------------


class ElementwiseMulti(Executor):
    """Elementwise with several register outputs (`Mull`'s low and high words): the lane function
    returns one array per output register, in operand order; each is committed under the
    predicate, inactive lanes zeroed."""

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> tuple[_Elementwise, tuple[int, ...]]:
        outs = tuple(i for i, o in enumerate(spec.operands) if o.kind is Kind.REG and o.role is Role.OUT)
        return Elementwise().prepare(spec, plan), outs

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        p, outs = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        active = be.predicate(api, "mask", values[p.pred], p.stride)
        operands = [be.lanes(api, name, values[i], active) for i, name, _ in p.inputs]
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        results = lane(*operands)
        for i, result in zip(outs, results, strict=True):
            be.commit(values[i], result, active, p.mode)


class Magnitude(Executor):
    """`Abs` of a complex register into a register of its component type: the source's lanes
    (governed by the mask at the source's stride) give the first lanes of dst, the remaining dst
    lanes (a one-register complex source has half as many lanes) are zero. The lane function
    gets the source lanes and `ctrl=`."""

    batchable = True

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        be = ctx.backend
        api = plan.spec.name
        dst: RegTensor[Any] = values[0]
        src: RegTensor[Any] = values[1]
        lanes, count = be.predicate(api, "mask", values[2], mask_stride(src.dtype, src.trait))
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        result = lane(be.lanes(api, "src_reg", src, (lanes, count)), ctrl=ctx.ctrl)
        total = lane_count(dst.dtype, dst.trait)
        pad = total - result.shape[-1]
        if pad:
            result = np.concatenate([result, np.zeros((*result.shape[:-1], pad), result.dtype)], axis=-1)
            lanes = np.concatenate([lanes, np.zeros((*lanes.shape[:-1], pad), np.bool_)], axis=-1)
        be.commit(dst, result, (lanes, count), ZEROING)


# --- logic, compare and select (the 逻辑计算, 比较与选择 and MaskReg计算 pages) ------------------------------


class ElementwiseSpecific(Elementwise):
    """Elementwise whose `mode` is an Ascend C `*SpecificMode` struct {mrgMode, [precisionMode,] algo}
    (the Div / Exp / Sqrt pages: `mode` is a MaskMergeMode or such a struct): the merge mode is the
    struct's `mrgMode`, the lane function gets `algo=` and `ctrl=`. `check(api, dtype, struct)` raises for a
    struct the dtype does not accept, when the call's plan is made (before anything is written)."""

    def __init__(self, check: Callable[[str, Any, Any], None]) -> None:
        super().__init__(ctrl=True)
        self.check = check

    def prepare(self, spec: OpSpec, plan: Plan) -> _Elementwise:
        struct = plan.values["mode"]
        self.check(spec.name, plan.dtype, struct)
        return attrs.evolve(super().prepare(spec, plan), mode=struct.mrgMode)

    def lane(self, plan: Plan) -> Callable[..., Any]:
        assert plan.spec.lane is not None
        return functools.partial(plan.spec.lane, algo=plan.values["mode"].algo)


# --- compound ops between registers of two widths (ExpSub half → float, MulsCast float → half) -------


class Regrouped(Executor):
    """An elementwise op whose source and destination elements differ in width (the RegLayout page):
    the mask is read in the source's layout; widening takes source element `ratio * i + layout` (and
    its mask bit) into destination lane i; narrowing puts lane i's result at destination element
    `ratio * i + layout` and zeroes every other destination element. Equal widths are plain
    ZEROING elementwise. `scalars` gives each scalar operand's fixed element type (e.g. MulsCast's
    float `scalarValue`); `disjoint(src_dtype)` says whether dst may not share a register with a
    source (the pages' "重叠" constraints). The lane function gets the source lanes, the scalars
    and `ctrl=`."""

    batchable = True

    def __init__(self, scalars: Mapping[str, Any], disjoint: Callable[[Any], bool]) -> None:
        self.scalars = scalars
        self.disjoint = disjoint

    def prepare(self, spec: OpSpec, plan: Plan) -> Any:
        ops = spec.operands
        dst = next(i for i, o in enumerate(ops) if o.kind is Kind.REG and o.role is Role.OUT)
        srcs = tuple((i, o.name) for i, o in enumerate(ops) if o.kind is Kind.REG and o.role is Role.IN)
        scalars = tuple((i, o.name) for i, o in enumerate(ops) if o.kind is Kind.SCALAR)
        layout = plan.values.get("layout")
        return dst, srcs, scalars, spec.slots["mask"], 0 if layout is None else layout.value

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        dst_i, srcs, scalars, pred_i, layout = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        dst: RegTensor[Any] = values[dst_i]
        src: RegTensor[Any] = values[srcs[0][0]]
        if self.disjoint(src.dtype):
            for i, name in srcs:
                if values[i]._storage is dst._storage:
                    raise ParameterError(message(api, "dst_reg", f"the register of {name}", "a register no source uses"))
        consts = [be.scalar(api, name, values[i], self.scalars[name]) for i, name in scalars]
        lanes, _ = be.predicate(api, "mask", values[pred_i], mask_stride(src.dtype, src.trait))
        n_src, n_dst = lane_count(src.dtype, src.trait), lane_count(dst.dtype, dst.trait)
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        if n_src > n_dst:  # widening: source element ratio * i + layout → lane i
            take = (n_src // n_dst) * np.arange(n_dst) + layout
            read = np.zeros(lanes.shape, np.bool_)
            read[..., take] = lanes[..., take]
            xs = [be.lanes(api, name, values[i], (read, int(np.count_nonzero(read))))[..., take] for i, name in srcs]
            act = lanes[..., take]
            be.commit(dst, lane(*xs, *consts, ctrl=ctx.ctrl), (act, int(np.count_nonzero(act))), ZEROING)
            return
        active = (lanes, int(np.count_nonzero(lanes)))
        out = lane(*[be.lanes(api, name, values[i], active) for i, name in srcs], *consts, ctrl=ctx.ctrl)
        if n_src == n_dst:
            be.commit(dst, out, active, ZEROING)
            return
        # narrowing: lane i → destination element ratio * i + layout, every other element 0
        whole = np.zeros((*out.shape[:-1], n_dst), out.dtype)
        whole[..., (n_dst // n_src) * np.arange(n_src) + layout] = np.where(lanes, out, np.zeros((), out.dtype))
        be.commit(dst, whole, (np.ones(whole.shape, np.bool_), whole.size), ZEROING)


# --- Duplicate from a register: only the source's lowest lane is read ---------------------------------
