"""One executor per op shape. Each prepares what the static checks allow it to precompute (once
per operand types and template values) and runs a call through the backend.

Shapes so far: elementwise (with predicate outputs, e.g. carry), mask generation (CreateMask),
the UpdateMask counter, address registers, aligned loads and aligned stores (registers and
MaskRegs alike, driven by the distribution tables). A new shape is a new executor here, never an
`if` in an old one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src import dists
from regsim._src.context import VfContext
from regsim._src.dists import Dist
from regsim._src.enums import MaskMergeMode
from regsim._src.memory import UbPtr
from regsim._src.registers import VL, AddrReg, MaskReg, RegTensor, lane_count, mask_stride, natural_to_halves
from regsim._src.spec import Kind, OpSpec, Plan, Role
from regsim.errors import DTypeError, ParameterError, UnsupportedError, message

ZEROING = MaskMergeMode.ZEROING


class Executor:
    """The shape of an op: `prepare` once per static signature, `run` per call.

    `batchable`: `run` is correct when the backend is the batched one (lane arrays with a leading
    iteration axis, pointer addresses as arrays); a batched loop meeting an op whose executor is
    not batchable runs sequentially instead.
    """

    batchable = False

    def prepare(self, spec: OpSpec, plan: Plan) -> Any:
        return None

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> Any:
        raise NotImplementedError


def _int(api: str, name: str, value: Any, bounds: tuple[int, int], ctype: str) -> int:
    """A scalar operand as a Python int within its C++ type's range (bools are not ints)."""
    if type(value) is not int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ParameterError(message(api, name, repr(value), f"an int ({ctype})"))
        value = int(value)
    if not bounds[0] <= value <= bounds[1]:
        raise ParameterError(message(api, name, value, f"a {ctype}: an int in [{bounds[0]}, {bounds[1]}]"))
    return int(value)


# --- elementwise ------------------------------------------------------------------------------
@attrs.frozen
class _Elementwise:
    stride: int
    dst: int  #: index of the destination register
    predicates_out: tuple[int, ...]  #: MaskReg outputs (carry), written as lane predicates
    inputs: tuple[tuple[int, str, Kind], ...]  #: (index, name, kind) of the lane function's inputs
    pred: int
    mode: MaskMergeMode


class Elementwise(Executor):
    """dst[i] = active[i] ? lane(inputs...)[i] : (ZEROING ? 0 : dst[i]); predicate outputs (carry)
    are lane predicates, 0 on inactive lanes. The lane function gets, in operand order, whole
    lane arrays of the input registers (read-only), the lanes of input MaskRegs, and scalars as
    numpy scalars of the op's element type; an in-out destination is an input too."""

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> _Elementwise:
        ops = spec.operands
        return _Elementwise(
            stride=mask_stride(plan.dtype, plan.trait),
            dst=next(i for i, o in enumerate(ops) if o.kind is Kind.REG and o.role in (Role.OUT, Role.INOUT)),
            predicates_out=tuple(i for i, o in enumerate(ops) if o.kind is Kind.MASK and o.role is Role.OUT),
            inputs=tuple(
                (i, o.name, o.kind)
                for i, o in enumerate(ops)
                if o.role in (Role.IN, Role.INOUT) and o.kind in (Kind.REG, Kind.MASK, Kind.SCALAR)
            ),
            pred=spec.slots["mask"],
            mode=plan.values.get("mode", ZEROING),
        )

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        p: _Elementwise = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        active = be.predicate(api, "mask", values[p.pred], p.stride)
        if be.scan(plan, p, values, active):  # a batched loop's register or carry carried across iterations
            return
        operands = [
            be.lanes(api, name, values[i], active)
            if kind is Kind.REG
            else be.predicate(api, name, values[i], p.stride)[0]
            if kind is Kind.MASK
            else be.scalar(api, name, values[i], plan.dtype)
            for i, name, kind in p.inputs
        ]
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        out = lane(*operands)
        if not p.predicates_out:
            be.commit(values[p.dst], out, active, p.mode)
            return
        result, *preds = out
        be.commit(values[p.dst], result, active, p.mode)
        full = active[1] == active[0].size
        for i, lanes in zip(p.predicates_out, preds, strict=True):
            be.write_predicate(values[i], lanes if full else lanes & active[0], plan.dtype, plan.trait)


# --- mask generation --------------------------------------------------------------------------
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


UINT32_MAX = 2**32 - 1


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


class AddrGen(Executor):
    """offset = Σ index_k · stride_k elements of T (CreateAddrReg)."""

    batchable = True

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> AddrReg:
        api = plan.spec.name
        offset = 0
        for o, index, stride in zip(plan.spec.operands[1::2], values[1::2], values[2::2], strict=False):
            assert o.bounds is not None
            k = o.name[-1]
            offset += _int(api, f"index{k}", index, o.bounds, o.ctype) * _int(
                api, f"stride{k}", stride, (0, UINT32_MAX), "uint32_t"
            )
        return AddrReg(plan.dtype, offset)


# --- aligned loads and stores ---------------------------------------------------------------------
INT32 = (-(2**31), 2**31 - 1)


@attrs.frozen
class _Access:
    dist: Dist
    extra: int | None  #: index of the post-update stride or AddrReg operand, if any
    post: bool  #: the operand at `extra` is a post-update stride
    unit: int  #: bytes per unit of the post-update stride (an element of T; a byte for a MaskReg)
    itemsize: int
    regs: int  #: registers in the tensor (RegTraitNumTwo: 2)
    pred: int | None  #: index of the governing predicate (register stores)


def _access(spec: OpSpec, plan: Plan, table: dict[Any, Dist], is_mask: bool) -> _Access:
    """The static part of an aligned access: its distribution and address form."""
    api = spec.name
    member = plan.values["dist"]
    dist = table.get(member)
    if dist is None:  # (a MaskReg store names MaskDist 1 DIST_PACK, a load DIST_US: the table's name)
        raise ParameterError(
            message(api, "dist", member.name, f"{dists.accepted(table)} for {'a MaskReg' if is_mask else 'a RegTensor'}")
        )
    itemsize = plan.dtype.itemsize if plan.dtype is not None else 1
    regs = 1 if is_mask else plan.trait.REG_NUM
    extra = next((i for i, o in enumerate(spec.operands) if o.name in ("post_update_stride", "offset")), None)
    post = extra is not None and spec.operands[extra].kind is Kind.INT
    if not is_mask:
        if itemsize not in dist.widths:
            raise ParameterError(
                message(api, "dist", dist.name, f"{dists.accepted(table, itemsize)} for RegTensor[{plan.dtype.name}]")
            )
        if dist.unmodelled:
            raise UnsupportedError(message(api, "dist", dist.name, f"{dists.accepted(table, itemsize)} ({dist.unmodelled})"))
        if regs == 2 and extra is not None and not post:
            raise DTypeError(
                message(
                    api,
                    "offset",
                    f"an AddrReg with RegTensor[{plan.dtype.name}] (RegTraitNumTwo)",
                    "a one-register tensor (the library static_asserts this)",
                )
            )
    pred = next((i for i, o in enumerate(spec.operands) if o.kind is Kind.PRED), None)
    return _Access(dist, extra, post, 1 if is_mask else itemsize, itemsize, regs, pred)


def _address(ctx: VfContext, plan: Plan, a: _Access, values: Sequence[Any], param: str) -> tuple[UbPtr[Any], int, int | None]:
    """The pointer, the UB byte address of the access (aligned-checked) and the post-advance."""
    ptr: UbPtr[Any] = values[0 if param == "dst_addr" else 1]
    addr, advance = ptr.addr, None
    if a.extra is not None:
        extra = values[a.extra]
        if a.post:
            advance = _int(plan.spec.name, "post_update_stride" if a.unit > 1 else "offset", extra, INT32, "int32_t") * a.unit
        else:
            addr += extra.byte_offset
    ctx.backend.check_aligned(plan.spec.name, param, ptr, addr, a.dist.align, a.dist.name)
    return ptr, addr, advance


class LoadAligned(Executor):
    """A register (or, by the MaskReg table, a predicate) filled from UB by its distribution."""

    batchable = True

    def __init__(self, is_mask: bool) -> None:
        self.is_mask = is_mask

    def prepare(self, spec: OpSpec, plan: Plan) -> _Access:
        return _access(spec, plan, dists.MASK_LOAD if self.is_mask else dists.LOAD, self.is_mask)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        a: _Access = plan.prepared
        be = ctx.backend
        ptr, addr, advance = _address(ctx, plan, a, values, "src_addr")
        raw, valid = be.read(plan.spec.name, "src_addr", ptr, addr, a.dist.ub_bytes * a.regs)
        if self.is_mask:
            be.fill_predicate(values[0], raw, valid, a.dist.index)
        else:
            if a.dist.index is not None:
                raw, valid = raw[..., a.dist.index], None if valid is None else valid[..., a.dist.index]
            if a.regs == 2:  # whole elements in UB → low halves in reg[0], high halves in reg[1]
                raw, valid = natural_to_halves(raw, a.itemsize), None if valid is None else natural_to_halves(valid, a.itemsize)
            be.fill(values[0], raw, valid, "" if valid is None else f"{plan.spec.name} of UB bytes [{addr}, {addr + raw.size})")
        if advance is not None:
            be.advance(ptr, advance)


class StoreAligned(Executor):
    """A register's active lanes (or a predicate's bits) written to UB by the distribution."""

    batchable = True

    def __init__(self, is_mask: bool) -> None:
        self.is_mask = is_mask

    def prepare(self, spec: OpSpec, plan: Plan) -> _Access:
        return _access(spec, plan, dists.MASK_STORE if self.is_mask else dists.STORE, self.is_mask)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        a: _Access = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        ptr, addr, advance = _address(ctx, plan, a, values, "dst_addr")
        if self.is_mask:
            bits = be.predicate_bits(api, "mask", values[1], a.dist.index)
            be.store(api, "dst_addr", ptr, [(addr, np.packbits(bits, axis=-1, bitorder="little"), None)], 1)
        else:
            src: RegTensor[Any] = values[1]
            active = be.predicate(api, "mask", values[a.pred], mask_stride(src.dtype, src.trait))  # type: ignore[index]
            lanes = be.lanes(api, "src_reg", src, active)
            raw = lanes.view(np.uint8)
            act = None if active[1] == active[0].size else active[0]
            if a.regs == 1:
                chunks = [(addr, raw, act)]
            else:
                chunks = self._two_registers(ctx, plan, a, ptr, addr, advance, raw, act)
            be.store(api, "dst_addr", ptr, chunks, a.itemsize)
        if advance is not None:
            be.advance(ptr, advance)

    @staticmethod
    def _two_registers(
        ctx: VfContext, plan: Plan, a: _Access, ptr: UbPtr[Any], addr: int, advance: int | None, raw: Any, act: Any
    ) -> list[tuple[int, Any, Any]]:
        """The library stores a two-register tensor as two one-register stores of whole
        elements; with a post-update stride the second lands where the first left the pointer:
        `stride` elements on when `stride < VL_T / 2` as an unsigned compare (a negative stride
        is a huge unsigned value), else the natural VL_T / 2 elements on."""
        half_elems = VL // a.itemsize
        second = VL
        if advance is not None and 0 <= advance // a.itemsize < half_elems:
            second = advance
            ctx.backend.check_aligned(
                plan.spec.name,
                "dst_addr",
                ptr,
                addr + second,
                a.dist.align,
                "the second register's store, at dst_addr + post_update_stride",
            )
        half = raw.shape[-1] // 2  # (along the last axis: a batched loop's rows come first)
        n = half // a.itemsize
        return [
            (addr, raw[..., :half], None if act is None else act[..., :n]),
            (addr + second, raw[..., half:], None if act is None else act[..., n:]),
        ]


class Unmodelled(Executor):
    """A documented overload regsim does not model yet: its spec's validation refuses it."""


# --- rearrange, reduce, sync (the fill / index / rearrange / compress / histogram / reduce / sync pages) ----
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
        for i, name, kind in p.inputs:
            if kind is Kind.REG:
                operands.append(be.lanes(api, name, values[i], active if i == p.governs else None))
            elif kind is Kind.MASK:
                operands.append(be.predicate_bits(api, name, values[i], None))
            elif kind is Kind.PRED:
                operands.append(active[0])  # type: ignore[index]
            else:
                operands.append(be.scalar(api, name, values[i], plan.dtype))
        operands = _same_leading_axes(operands)
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        options = p.options
        if self.sized:
            first = values[p.outputs[0][0]]
            options = {**options, "n": lane_count(first.dtype, first.trait), "dtype": first.dtype.np_dtype}
        out = lane(*operands, **options)
        results = out if isinstance(out, tuple) else (out,)
        for (i, kind), result in zip(p.outputs, results, strict=True):
            if kind is Kind.MASK:
                be.assign_bits(values[i], result)
            elif p.mode is not None:
                be.commit(values[i], result, active, p.mode)
            else:
                be.commit_all(values[i], result)
        return self.after(ctx, plan, values, results)

    def after(self, ctx: VfContext, plan: Plan, values: Sequence[Any], results: tuple[Any, ...]) -> Any:
        """What a call does besides writing its outputs (a special register); returns the call's value."""
        return None


def _same_leading_axes(operands: list[Any]) -> list[Any]:
    """The lane function's array operands broadcast to one leading shape: in a batched loop some
    carry an iteration axis (written in the body) and others not (set before the loop)."""
    leads = [np.shape(x)[:-1] for x in operands if np.ndim(x) > 0]
    if all(lead == () for lead in leads):
        return operands
    lead = np.broadcast_shapes(*leads)
    return [np.broadcast_to(x, lead + np.shape(x)[-1:]) if np.ndim(x) > 0 else x for x in operands]


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


class ClearSpecial(Executor):
    """ClearSpr<AR>: the core's AR special register = 0."""

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        ctx.backend.ar_clear()
