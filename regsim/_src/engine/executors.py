"""One executor per op shape. Each prepares what the static checks allow it to precompute (once
per operand types and template values) and runs a call through the backend.

Shapes so far: elementwise (with predicate outputs, e.g. carry), mask generation (CreateMask),
the UpdateMask counter, address registers, aligned loads and aligned stores (registers and
MaskRegs alike, driven by the distribution tables). A new shape is a new executor here, never an
`if` in an old one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src.engine import backend, dists
from regsim._src.engine.context import VfContext
from regsim._src.engine.dists import Dist
from regsim._src.engine.per_iteration import Affine, Unbatchable
from regsim._src.engine.spec import Call, Kind, OpSpec, Plan, Role
from regsim._src.model import dtypes as dt
from regsim._src.model import formats
from regsim._src.model.enums import MaskMergeMode, PostLiteral, RegLayout, RoundMode
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import (
    VL,
    AddrReg,
    MaskReg,
    RegTensor,
    UnalignRegForLoad,
    UnalignRegForStore,
    lane_count,
    mask_stride,
    natural_to_halves,
)
from regsim.errors import AlignmentError, DTypeError, ParameterError, UnsupportedError, VfContextError, message

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

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        """The plan's call on the in-order backend (`NumpyBackend`, no trace) as one closure
        `call(ctx, args, kwargs)`, made once per signature; None: `generic` (bind, then `run`).

        Only calls binding directly (every positional operand given; keyword operands are the
        plan's values) get here. A closure does the common case only and hands every other
        call to `generic` before it changes anything, so each check and message stays `run`'s."""
        return None


def _int(api: str, name: str, value: Any, bounds: tuple[int, int], ctype: str) -> int:
    """A scalar operand as a Python int within its C++ type's range (bools are not ints)."""
    if type(value) is not int:
        if isinstance(value, Affine):  # (a batched loop: this operand takes one value per call)
            raise Unbatchable(f"{api}'s {name}, an integer operand of one value per call, differs by iteration")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ParameterError(message(api, name, repr(value), f"an int ({ctype})"))
        value = int(value)
    if not bounds[0] <= value <= bounds[1]:
        raise ParameterError(message(api, name, value, f"a {ctype}: an int in [{bounds[0]}, {bounds[1]}]"))
    return int(value)


#: a scalar operand of a fixed C type (not the op's T), e.g. the shift amount `int16_t scalarValue`
SCALAR_CTYPES: dict[str, Any] = {"int16_t": dt.int16}


# --- elementwise ------------------------------------------------------------------------------
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

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        p: _Elementwise = plan.prepared
        kinds = {Kind.REG: "reg", Kind.MASK: "mask", Kind.SCALAR: "scalar"}
        inputs = tuple((i, name, kinds[kind], fixed) for (i, name, kind), fixed in zip(p.inputs, p.scalar_types, strict=True))
        return backend.in_order_elementwise(
            spec.name,
            self.lane(plan),
            self.ctrl,
            inputs,
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

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        return backend.in_order_prefix(plan.prepared, plan.dtype, plan.trait, generic)


class AddrGen(Executor):
    """offset = Σ index_k · stride_k elements of T (CreateAddrReg)."""

    batchable = True

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> AddrReg:
        api = plan.spec.name
        offset: Any = 0
        for o, index, stride in zip(plan.spec.operands[1::2], values[1::2], values[2::2], strict=False):
            assert o.bounds is not None
            k = o.name[-1]
            if isinstance(index, Affine):  # a batched loop's index: one offset per iteration
                offset = offset + index.within(o.bounds) * _int(api, f"stride{k}", stride, (0, UINT32_MAX), "uint32_t")
                continue
            offset += _int(api, f"index{k}", index, o.bounds, o.ctype) * _int(
                api, f"stride{k}", stride, (0, UINT32_MAX), "uint32_t"
            )
        return AddrReg(plan.dtype, offset) if type(offset) is int else ctx.backend.addr_reg(plan.dtype, offset)


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
    ptr: int  #: index of the pointer operand
    data: tuple[int, ...]  #: indices of the register operands (two for the dual forms)


def _access(spec: OpSpec, plan: Plan, table: dict[Any, Dist], is_mask: bool, dual: bool = False) -> _Access:
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
        moved = 2 if dual else 1
        what = f"RegTensor[{plan.dtype.name}]" + (" (two registers)" if dual else "")
        if itemsize not in dist.widths or (dist.regs != moved and not dist.unmodelled):
            raise ParameterError(message(api, "dist", dist.name, f"{dists.accepted(table, itemsize, moved)} for {what}"))
        if dist.unmodelled:
            raise UnsupportedError(
                message(api, "dist", dist.name, f"{dists.accepted(table, itemsize, moved)} ({dist.unmodelled})")
            )
        if regs == 2 and (dual or (extra is not None and not post)):
            raise DTypeError(
                message(
                    api,
                    "offset" if not dual else "dst_reg0" if "dst_reg0" in spec.slots else "src_reg0",
                    f"{'the dual-register form' if dual else 'an AddrReg'} with RegTensor[{plan.dtype.name}] (RegTraitNumTwo)",
                    "a one-register tensor (the library static_asserts this)",
                )
            )
        if regs == 2 and dist.index is not None:
            raise ParameterError(
                message(
                    api, "dist", dist.name, f"DIST_NORM for RegTensor[{plan.dtype.name}] (RegTraitNumTwo; 950 supports no other)"
                )
            )
    pred = next((i for i, o in enumerate(spec.operands) if o.kind is Kind.PRED), None)
    ptr = next(i for i, o in enumerate(spec.operands) if o.kind is Kind.PTR)
    data = tuple(i for i, o in enumerate(spec.operands) if o.kind in (Kind.REG, Kind.MASK))
    return _Access(dist, extra, post, 1 if is_mask else itemsize, itemsize, regs, pred, ptr, data)


def _address(ctx: VfContext, plan: Plan, a: _Access, values: Sequence[Any], param: str) -> tuple[UbPtr[Any], int, int | None]:
    """The pointer, the UB byte address of the access (aligned-checked) and the post-advance."""
    ptr: UbPtr[Any] = values[a.ptr]
    addr, advance = ptr.addr, None
    if a.extra is not None:
        extra = values[a.extra]
        if a.post:
            advance = _int(plan.spec.name, "post_update_stride" if a.unit > 1 else "offset", extra, INT32, "int32_t") * a.unit
            addr = ctx.backend.post_address(ptr)  # (a batched loop: one address per iteration)
        else:
            addr += extra.byte_offset
    ctx.backend.check_aligned(plan.spec.name, param, ptr, addr, a.dist.align, a.dist.name)
    return ptr, addr, advance


def _mapped(raw: Any, valid: Any, index: Any) -> tuple[Any, Any]:
    """UB bytes (a leading iteration axis allowed) through a distribution's index array (-1: a
    zero byte, always written)."""
    raw, valid = raw[..., index], None if valid is None else valid[..., index]
    if index.min() < 0:
        zero = index < 0
        raw = np.where(zero, np.uint8(0), raw)
        valid = None if valid is None else valid | zero
    return raw, valid


class LoadAligned(Executor):
    """A register (or, by the MaskReg table, a predicate; or two registers, by a dual-register
    distribution) filled from UB by its distribution."""

    batchable = True

    def __init__(self, is_mask: bool, dual: bool = False) -> None:
        self.is_mask = is_mask
        self.dual = dual

    def prepare(self, spec: OpSpec, plan: Plan) -> _Access:
        return _access(spec, plan, dists.MASK_LOAD if self.is_mask else dists.LOAD, self.is_mask, self.dual)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        a: _Access = plan.prepared
        be = ctx.backend
        ptr, addr, advance = _address(ctx, plan, a, values, "src_addr")
        raw, valid = be.read(plan.spec.name, "src_addr", ptr, addr, a.dist.ub_bytes * a.regs)
        if self.is_mask:
            be.fill_predicate(values[0], raw, valid, a.dist.index)
        else:
            origin = "" if valid is None else f"{plan.spec.name} of UB bytes [{addr}, {addr + raw.size})"
            if a.dist.index is not None:
                raw, valid = _mapped(raw, valid, a.dist.index)
            if a.regs == 2:  # whole elements in UB → low halves in reg[0], high halves in reg[1]
                be.fill_elements(values[a.data[0]], raw, valid, origin)
            elif len(a.data) == 1:
                be.fill(values[a.data[0]], raw, valid, origin)
            else:  # dual: the first 256 bytes to dst_reg0, the next to dst_reg1
                for k, i in enumerate(a.data):
                    part = slice(k * VL, (k + 1) * VL)
                    be.fill(values[i], raw[..., part], None if valid is None else valid[..., part], origin)
        if advance is not None:
            be.advance(ptr, advance)

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        a: _Access = plan.prepared
        if self.is_mask or self.dual or a.extra is not None or a.dist.index is not None:
            return None
        return backend.in_order_load(a.dist.ub_bytes * a.regs, a.dist.align, a.itemsize if a.regs == 2 else 0, generic)


class StoreAligned(Executor):
    """A register's active lanes (or a predicate's bits; or two registers interleaved) written to
    UB by the distribution."""

    batchable = True

    def __init__(self, is_mask: bool, dual: bool = False) -> None:
        self.is_mask = is_mask
        self.dual = dual

    def prepare(self, spec: OpSpec, plan: Plan) -> _Access:
        return _access(spec, plan, dists.MASK_STORE if self.is_mask else dists.STORE, self.is_mask, self.dual)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        a: _Access = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        ptr, addr, advance = _address(ctx, plan, a, values, "dst_addr")
        if self.is_mask:
            be.store(api, "dst_addr", ptr, [(addr, be.predicate_bytes(api, "mask", values[1], a.dist.index), None)], 1)
        elif a.dist.index is not None:  # a distribution other than NORM: a byte map, lanes of its width
            if getattr(be, "rows", None) is not None:
                raise Unbatchable(f"StoreAlign with {a.dist.name} runs in order only")
            act = None
            if a.dist.lane:
                lanes, count = be.predicate(api, "mask", values[a.pred], a.dist.lane)  # type: ignore[index]
                units = a.dist.ub_bytes // a.dist.unit
                act = None if count == lanes.size else lanes[:units]
            # the register bytes the stored lanes come from: only their lanes must have been written
            needed = np.zeros(VL * len(a.data), np.bool_)
            needed[a.dist.index if act is None else a.dist.index.reshape(-1, a.dist.unit)[act].reshape(-1)] = True
            parts = []
            for k, i in enumerate(a.data):
                reg: RegTensor[Any] = values[i]
                use = needed[k * VL : (k + 1) * VL].reshape(-1, a.itemsize).any(axis=1)
                parts.append(be.lanes(api, plan.spec.operands[i].name, reg, (use, int(use.sum()))).view(np.uint8).reshape(-1))
            out = np.concatenate(parts)[a.dist.index]
            be.store(api, "dst_addr", ptr, [(addr, out, act)], a.dist.unit)
        else:
            src: RegTensor[Any] = values[a.data[0]]
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

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        a: _Access = plan.prepared
        if self.dual or a.extra is not None:
            return None
        if self.is_mask:
            return backend.in_order_mask_store(a.dist.ub_bytes, a.dist.align, a.dist.index, generic)
        if a.dist.index is not None:
            return None
        halves = a.itemsize if a.regs == 2 else 0
        return backend.in_order_store(
            a.dist.ub_bytes * a.regs, a.dist.align, mask_stride(plan.dtype, plan.trait), halves, generic
        )

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


# --- data movement: DataBlock copies, unaligned streams, gathers and scatters ----------------------
BLOCK = 32  #: bytes in one DataBlock
UINT16_MAX = 2**16 - 1
_POST_UPDATE = PostLiteral.POST_MODE_UPDATE


def _slot(spec: OpSpec, *names: str) -> int | None:
    """The index of the first operand named one of `names` (None: the overload has none)."""
    return next((spec.slots[n] for n in names if n in spec.slots), None)


def _trait_one(spec: OpSpec, plan: Plan, form: str) -> None:
    if plan.trait.REG_NUM == 2:
        raise DTypeError(
            message(
                spec.name,
                "trait",
                f"RegTraitNumTwo with {plan.dtype!r} in the {form} form",
                "a one-register tensor (the library static_asserts RegTraitNumOne here)",
            )
        )


@attrs.frozen
class _Block:
    reg: int
    ptr: int
    block_stride: int
    repeat_stride: int | None
    pred: int
    post: int | None


class BlockCopy(Executor):
    """DataCopyMode.DATA_BLOCK_COPY: register block k (32 B) <-> UB [A + k * dataBlockStride * 32, +32).

    A load reads a block iff any of its lanes is active, else zero-fills it without reading
    ("所有元素都被mask筛选成无效元素时 … 对应位置的元素设置为0，即使UB越界也不会报错"); a store
    writes the active lanes. POST_MODE_UPDATE: access at A, then A += repeatStride * 32 B;
    POST_MODE_NORMAL: access at A + repeatStride * 32 B, A unchanged."""

    def __init__(self, load: bool) -> None:
        self.load = load

    def prepare(self, spec: OpSpec, plan: Plan) -> _Block:
        _trait_one(spec, plan, "DATA_BLOCK_COPY")
        reg = spec.slots["dst_reg" if self.load else "src_reg"]
        return _Block(
            reg,
            spec.slots["src_addr" if self.load else "dst_addr"],
            spec.slots["data_block_stride"],
            _slot(spec, "repeat_stride"),
            spec.slots["mask"],
            _slot(spec, "post_mode"),
        )

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        b: _Block = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        param = "src_addr" if self.load else "dst_addr"
        ptr: UbPtr[Any] = values[b.ptr]
        field = (0, UINT16_MAX)
        stride = _int(api, "data_block_stride", values[b.block_stride], field, "uint32_t holding a 16-bit field")
        repeat = (
            0
            if b.repeat_stride is None
            else _int(api, "repeat_stride", values[b.repeat_stride], field, "uint32_t holding a 16-bit field")
        )
        update = b.post is not None and values[b.post] is _POST_UPDATE
        addr = ptr.addr + (repeat * BLOCK if b.post is not None and not update else 0)
        be.check_aligned(api, param, ptr, addr, BLOCK, "DATA_BLOCK_COPY")
        size = plan.dtype.itemsize
        per_block = BLOCK // size
        lanes, count = be.predicate(api, "mask", values[b.pred], size)
        starts = addr + np.arange(VL // BLOCK) * stride * BLOCK
        if self.load:
            on = lanes.reshape(-1, per_block).any(axis=1)
            raw = np.zeros(VL, np.uint8)
            valid = np.ones(VL, np.bool_)
            reads = [(k, *be.read(api, param, ptr, int(starts[k]), BLOCK)) for k in np.flatnonzero(on)]
            for k, data, ok in reads:
                raw[k * BLOCK : (k + 1) * BLOCK] = data
                if ok is not None:
                    valid[k * BLOCK : (k + 1) * BLOCK] = ok
            clean = valid.all()
            be.fill(
                values[b.reg],
                raw,
                None if clean else valid,
                "" if clean else f"{api} (DATA_BLOCK_COPY) of UB blocks at {starts[on].tolist()}",
            )
        else:
            src: RegTensor[Any] = values[b.reg]
            data = be.lanes(api, "src_reg", src, (lanes, count)).view(np.uint8).reshape(-1)
            per = lanes.reshape(-1, per_block)
            chunks = [
                (int(starts[k]), data[k * BLOCK : (k + 1) * BLOCK], None if per[k].all() else per[k])
                for k in range(VL // BLOCK)
                if per[k].any()
            ]
            if chunks:
                be.store(api, param, ptr, chunks, size)
        if update:
            be.advance(ptr, repeat * BLOCK)


# --- unaligned streams ---------------------------------------------------------------------------
def _floor(addr: int) -> int:
    return addr - addr % BLOCK


@attrs.frozen
class _Stream:
    reg: int | None
    ureg: int
    ptr: int
    extra: int | None  #: the post-update stride / count, or the AddrReg
    post: bool  #: `extra` is a post-update stride
    itemsize: int
    regs: int


def _stream(spec: OpSpec, plan: Plan) -> _Stream:
    """Where a stream op's operands are (`ureg` -1: Load / Store, which use a private buffer)."""
    extra = _slot(spec, "post_update_stride", "count", "areg")
    return _Stream(
        _slot(spec, "dst_reg", "src_reg"),
        spec.slots.get("ureg", -1),
        next(i for i, o in enumerate(spec.operands) if o.kind is Kind.PTR),
        extra,
        extra is not None and spec.operands[extra].kind is Kind.INT,
        plan.dtype.itemsize,
        plan.trait.REG_NUM,
    )


def _stream_addr(plan: Plan, s: _Stream, values: Sequence[Any]) -> tuple[UbPtr[Any], int]:
    ptr: UbPtr[Any] = values[s.ptr]
    if s.extra is not None and not s.post:
        return ptr, ptr.addr + values[s.extra].byte_offset
    return ptr, ptr.addr


class UnalignPre(Executor):
    """LoadUnAlignPre: the unaligned-load buffer <- the 32 UB bytes of the block holding src."""

    def prepare(self, spec: OpSpec, plan: Plan) -> _Stream:
        return _stream(spec, plan)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        s: _Stream = plan.prepared
        ptr, addr = _stream_addr(plan, s, values)
        base = _floor(addr)
        raw, valid = ctx.backend.read(plan.spec.name, "src_addr", ptr, base, BLOCK)
        u: UnalignRegForLoad = values[s.ureg]
        u.data, u.valid, u.base = raw.copy(), None if valid is None else valid.copy(), base


def _unaligned_step(
    be: Any, api: str, ptr: UbPtr[Any], u_base: int | None, u_data: Any, u_valid: Any, addr: int, reread: bool
) -> tuple[Any, Any, int, Any, Any]:
    """One `vldus`: dst = the buffer's bytes from addr % 32 on, then the next aligned bytes; the
    buffer then holds the 32 bytes after them. Returns (dst bytes, their flags, new base, data, flags).

    `reread` (`vldus`: the plain and post-update LoadUnAlign, Load): an address outside the
    buffered block reads its own block first, so dst is UB[addr : addr + 256] for any address
    (docs/decisions/datamove.md#unaligned-load: the 950 library's 64-bit Select streams its mask that way). The AddrReg form
    (`vldu`) still needs the address where the stream left off."""
    if u_base is None:
        raise VfContextError(
            message(
                api,
                "ureg",
                "an UnalignRegForLoad no LoadUnAlignPre filled",
                "LoadUnAlignPre(ureg, src) before the first LoadUnAlign",
            )
        )
    if _floor(addr) != u_base and reread:
        u_base = _floor(addr)
        u_data, u_valid = be.read(api, "src_addr", ptr, u_base, BLOCK)
    if _floor(addr) != u_base:
        raise VfContextError(
            message(
                api,
                "src_addr",
                f"UB byte {addr}, but ureg holds UB bytes [{u_base}, {u_base + BLOCK}) (the stream's next block)",
                "the address where the previous LoadUnAlign of this stream left off, or a new LoadUnAlignPre for this address",
            )
        )
    tmp, ok = be.read(api, "src_addr", ptr, u_base + BLOCK, VL)
    off = addr - u_base
    dst = np.concatenate([u_data[off:], tmp[: VL - (BLOCK - off)]])
    flags = None
    if u_valid is not None or ok is not None:
        uv = np.ones(BLOCK, np.bool_) if u_valid is None else u_valid
        tv = np.ones(VL, np.bool_) if ok is None else ok
        flags = np.concatenate([uv[off:], tv[: VL - (BLOCK - off)]])
    return dst, flags, u_base + VL, tmp[VL - BLOCK :].copy(), None if ok is None else ok[VL - BLOCK :].copy()


class UnalignLoad(Executor):
    """LoadUnAlign (and Load = LoadUnAlignPre + LoadUnAlign): 256 bytes from any UB address,
    spliced from the stream buffer and the next aligned 256 bytes (the LoadUnAlign page's figure)."""

    def __init__(self, fresh: bool = False) -> None:
        self.fresh = fresh  #: Load: a private buffer primed at src

    def prepare(self, spec: OpSpec, plan: Plan) -> _Stream:
        if self.fresh or not (spec.variant.startswith("post")):
            _trait_one(spec, plan, "Load" if self.fresh else "plain or AddrReg LoadUnAlign")
        return _stream(spec, plan)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        s: _Stream = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        ptr, addr = _stream_addr(plan, s, values)
        if self.fresh:
            start = _floor(addr)
            d, v = be.read(api, "src_addr", ptr, start, BLOCK)
            u = UnalignRegForLoad()
            u.data, u.valid, u.base = d.copy(), None if v is None else v.copy(), start
        else:
            u = values[s.ureg]
        if "inc" in plan.spec.slots:  # the AddrReg form's `inc`: "未使用，设置为0即可" (unused)
            _int(api, "inc", values[plan.spec.slots["inc"]], (0, UINT32_MAX), "uint32_t")
        n = VL // s.itemsize  # elements per register (the TraitTwo split's one_repeat_num)
        stride: int | None = None
        if s.post:
            stride = _int(api, "post_update_stride", values[s.extra], (0, UINT32_MAX), "uint32_t")  # type: ignore[index]
        steps: list[int] = [0] if stride is None or s.regs == 1 else [min(stride, n), stride - min(stride, n)]
        base: int | None = u.base
        data, valid = u.data, u.valid
        parts, flags = [], []
        for k in range(len(steps)):
            at = addr + sum(steps[:k]) * s.itemsize
            raw, ok, base, data, valid = _unaligned_step(be, api, ptr, base, data, valid, at, s.extra is None or s.post)
            parts.append(raw)
            flags.append(ok)
        raw = np.concatenate(parts)
        ok_all = (
            None if all(f is None for f in flags) else np.concatenate([np.ones(VL, np.bool_) if f is None else f for f in flags])
        )
        if s.regs == 2:
            raw = natural_to_halves(raw, s.itemsize)
            ok_all = None if ok_all is None else natural_to_halves(ok_all, s.itemsize)
        be.fill(values[s.reg], raw, ok_all, "" if ok_all is None else f"{api} of UB bytes from {addr}")  # type: ignore[index]
        u.base, u.data, u.valid = base, data, valid
        if stride is not None:
            be.advance(ptr, stride * s.itemsize)


def _watch(ctx: VfContext, u: UnalignRegForStore) -> None:
    """At the end of the VF, an unaligned store stream with bytes still buffered is an error."""
    if u.watched is ctx:
        return
    u.watched = ctx

    def check() -> None:
        if u.pending.size and u.watched is ctx:
            raise VfContextError(
                f"{u.origin}: left UB bytes [{u.start}, {u.start + u.pending.size}) in its UnalignRegForStore, never written: "
                "the vector function ended without StoreUnAlignPost(dst, ureg, ...) flushing the stream"
            )

    ctx.exit_checks.append(check)


def _stream_store(ctx: VfContext, api: str, ptr: UbPtr[Any], u: UnalignRegForStore, addr: int, data: Any, origin: str) -> None:
    """Append `data` at `addr` to the stream: write every byte before the last 32-byte boundary
    it reaches, keep the rest buffered (the StoreUnAlign page's two scenarios)."""
    be = ctx.backend
    end = addr + data.size
    be.check_span(api, "dst_addr", ptr, addr, data.size)  # every byte of this call lies in its tensor
    if u.pending.size:
        if u.start + u.pending.size != addr:
            raise VfContextError(
                message(
                    api,
                    "dst_addr",
                    f"UB byte {addr}, but ureg buffers UB bytes [{u.start}, {u.start + u.pending.size}) (left by {u.origin})",
                    f"UB byte {u.start + u.pending.size}, where the stream left off (or StoreUnAlignPost first)",
                )
            )
        start, stream = u.start, np.concatenate([u.pending, data])
    else:
        start, stream = addr, data
    cut = max(start, _floor(end))
    if cut > start:
        be.store(api, "dst_addr", ptr, [(start, stream[: cut - start], None)], 1)
    u.pending, u.start, u.origin, u.ptr = stream[cut - start :].copy(), cut, origin, ptr
    if u.pending.size:
        _watch(ctx, u)


class UnalignStore(Executor):
    """StoreUnAlign (registers and MaskRegs) and Store: `count` elements appended to the stream."""

    def __init__(self, kind: str) -> None:
        self.kind = kind  #: "reg", "mask" or "store" (Store: its own stream, flushed at once)

    def prepare(self, spec: OpSpec, plan: Plan) -> _Stream:
        if spec.variant.endswith("addr"):
            _trait_one(spec, plan, "AddrReg")
        return _stream(spec, plan)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        s: _Stream = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        ptr: UbPtr[Any] = values[0]
        addr = ptr.addr
        if self.kind == "mask":
            w = s.itemsize
            be.check_aligned(api, "dst_addr", ptr, addr, VL // 8 // w, f"a MaskReg StoreUnAlign of {plan.dtype!r}")
            bits = be.predicate_bits(api, "mask", values[1], np.arange(0, VL, w))
            data, advance = np.packbits(bits, bitorder="little"), VL // 8 // w
        else:
            src: RegTensor[Any] = values[s.reg]  # type: ignore[index]
            total = lane_count(src.dtype, src.trait)
            if self.kind == "store":
                count = VL // s.itemsize if s.extra is None else _int(api, "count", values[s.extra], (0, UINT32_MAX), "uint32_t")
                limit = VL // s.itemsize
            elif s.post:
                count = _int(api, "post_update_stride", values[s.extra], (0, UINT32_MAX), "uint32_t")  # type: ignore[index]
                limit = total
            else:  # AddrReg: one whole register at dst_addr + areg, the pointer unchanged
                count, limit = total, total
                addr += values[s.extra].byte_offset  # type: ignore[index]
            if count > limit:
                raise ParameterError(
                    message(
                        api,
                        "count" if self.kind == "store" else "post_update_stride",
                        count,
                        f"at most {limit} elements (one {'register' if limit == total else 'VL'} of RegTensor[{src.dtype.name}])",
                    )
                )
            active = (np.arange(total) < count, count)
            lanes = be.lanes(api, "src_reg", src, active)
            raw = lanes.view(np.uint8).reshape(-1)  # whole elements, in natural order
            data, advance = raw[: count * s.itemsize], (count * s.itemsize if s.post or self.kind == "store" else 0)
        if self.kind == "store":
            u = UnalignRegForStore()
            _stream_store(ctx, api, ptr, u, addr, data, api)
            if u.pending.size:
                be.store(api, "dst_addr", ptr, [(u.start, u.pending, None)], 1)
                u.pending = u.pending[:0]
            return
        u = values[s.ureg]
        _stream_store(ctx, api, ptr, u, addr, data, f"{api} at UB byte {addr}")
        if advance:
            be.advance(ptr, advance)


class UnalignFlush(Executor):
    """StoreUnAlignPost: write the bytes the stream still buffers (where they belong); then
    POST_MODE_UPDATE moves dst by post_update_stride elements."""

    def prepare(self, spec: OpSpec, plan: Plan) -> _Stream:
        return _stream(spec, plan)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        s: _Stream = plan.prepared
        api = plan.spec.name
        ptr: UbPtr[Any] = values[0]
        u: UnalignRegForStore = values[s.ureg]
        stride = 0
        if s.post:
            stride = _int(api, "post_update_stride", values[s.extra], INT32, "int32_t")  # type: ignore[index]
        if u.pending.size:
            ctx.backend.store(api, "dst_addr", u.ptr, [(u.start, u.pending, None)], 1)
            u.pending = u.pending[:0]
        if s.post and plan.values.get("post_mode") is _POST_UPDATE:
            ctx.backend.advance(ptr, stride * s.itemsize)


# --- gathers and scatters ------------------------------------------------------------------------
def _index_words(be: Any, api: str, index: RegTensor[Any], count: int, active: Any) -> Any:
    """The first `count` index lanes as int64 (a u64 index: its low 32 bits, as the library's
    DeInterleave keeps them; a RegTraitNumTwo u64 index: reg[0], the low words)."""
    lanes = be.lanes(api, "index", index, None)
    if index.dtype.itemsize == 8:
        lanes = lanes.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    return lanes[:count].astype(np.int64)


#: Gather's documented (dst, src, index) type triples, by dtype name (the 离散搬入 Gather page, table 3)
GATHER_TRIPLES = frozenset(
    [("int16", "int8", "uint16"), ("int16", "int16", "uint16"), ("uint16", "uint8", "uint16"), ("uint16", "uint16", "uint16")]
    + [(t, t, "uint16") for t in ("half", "bfloat16")]
    + [(t, t, "uint32") for t in ("int32", "uint32", "float32")]
    + [(t, t, i) for t in ("int64", "uint64") for i in ("uint32", "uint64")]
)
GATHER_ACCEPTED = (
    "(int16, int8|int16, uint16), (uint16, uint8|uint16, uint16), (half|bfloat16, the same, uint16), "
    "(int32|uint32|float32, the same, uint32), (int64|uint64, the same, uint32|uint64)"
)


def _index_type(api: str, data: Any, index: RegTensor[Any], param: str) -> None:
    """A b8/b16 data type takes a uint16 index, b32 uint32, b64 uint32 or uint64 (Scatter page)."""
    want = {1: (2,), 2: (2,), 4: (4,), 8: (4, 8)}[data.itemsize]
    if index.dtype.itemsize not in want or not issubclass(index.dtype, dt.UnsignedInteger):
        names = " or ".join(f"uint{8 * w}" for w in want)
        raise DTypeError(message(api, "index", f"RegTensor[{index.dtype.name}]", f"a {names} index for {param} of {data!r}"))


def _index_trait(api: str, index: RegTensor[Any], data: RegTensor[Any], param: str) -> None:
    """A RegTraitNumTwo data tensor cannot take a RegTraitNumOne uint64 index (static_assert)."""
    if index.trait.REG_NUM == 1 and index.dtype.itemsize == 8 and data.trait.REG_NUM == 2:
        raise DTypeError(
            message(
                api,
                "index",
                f"a RegTraitNumOne uint64 index with a RegTraitNumTwo {param}",
                "a RegTraitNumTwo uint64 index, or a uint32 index (the library static_asserts this)",
            )
        )


class UbGather(Executor):
    """Gather from UB: dst[i] = active[i] ? base[index[i]] : 0 (index in elements of the source
    type; a b8 source is zero-extended into the b16 lane)."""

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        be = ctx.backend
        api = plan.spec.name
        dst: RegTensor[Any] = values[0]
        ptr: UbPtr[Any] = values[1]
        index: RegTensor[Any] = values[2]
        if (dst.dtype.name, ptr.dtype.name, index.dtype.name) not in GATHER_TRIPLES:
            raise DTypeError(
                message(
                    api,
                    "src_addr",
                    f"UbPtr[{ptr.dtype.name}] with dst RegTensor[{dst.dtype.name}] and index RegTensor[{index.dtype.name}]",
                    f"(dst, src, index) one of {GATHER_ACCEPTED}",
                )
            )
        _index_trait(api, index, dst, "dst")
        be.check_aligned(api, "src_addr", ptr, ptr.addr, BLOCK, "Gather base")
        n = lane_count(dst.dtype, dst.trait)
        stride = mask_stride(dst.dtype, dst.trait)
        active = be.predicate(api, "mask", values[3], stride)
        src = ptr.dtype.itemsize
        idx = _index_words(be, api, index, n, active)
        raw, valid = be.gather(api, "src_addr", ptr, ptr.addr + idx * src, src, active[0])
        out = np.zeros((n, dst.dtype.itemsize), np.uint8)
        out[:, :src] = raw
        ok = None
        if valid is not None:
            ok = np.ones((n, dst.dtype.itemsize), np.bool_)
            ok[:, :src] = valid
            ok = ok.reshape(-1)
        out = out.reshape(-1)
        if dst.trait.REG_NUM == 2:
            out = natural_to_halves(out, dst.dtype.itemsize)
            ok = None if ok is None else natural_to_halves(ok, dst.dtype.itemsize)
        be.fill(dst, out, ok, "" if ok is None else f"{api} from the UB tensor at byte {ptr.lo}")


class BlockGather(Executor):
    """GatherB: dst block k = active[k] ? UB[base + index[k], +32) : 0, k < 8 (index in bytes,
    32-byte aligned; block k governed by mask bit 4k, the b32 layout)."""

    def prepare(self, spec: OpSpec, plan: Plan) -> None:
        _trait_one(spec, plan, "GatherB")

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        be = ctx.backend
        api = plan.spec.name
        ptr: UbPtr[Any] = values[1]
        be.check_aligned(api, "src_addr", ptr, ptr.addr, BLOCK, "GatherB base")
        lanes, _ = be.predicate(api, "mask", values[3], 4)
        on = lanes[: VL // BLOCK]
        offsets = be.lanes(api, "index", values[2], (np.arange(64) < 8, 8))[:8].astype(np.int64)
        bad = on & (offsets % BLOCK != 0)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise AlignmentError(
                message(
                    api, "index", f"{int(offsets[k])} in lane {k}", "byte offsets that are multiples of 32 (one DataBlock each)"
                )
            )
        raw, valid = be.gather(api, "src_addr", ptr, ptr.addr + offsets, BLOCK, on)
        be.fill(
            values[0], raw.reshape(-1), None if valid is None else valid.reshape(-1), f"{api} from the UB tensor at byte {ptr.lo}"
        )


class UbScatter(Executor):
    """Scatter: base[index[i]] = src[i] for active lanes (index in elements of T). A b8 source
    scatters its even bytes (lane k: byte 2k, mask bit 2k). Two active lanes with one index and
    different values are an error: the page keeps one of them, which one undefined (with equal
    values every choice writes the same bytes)."""

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        be = ctx.backend
        api = plan.spec.name
        ptr: UbPtr[Any] = values[0]
        src: RegTensor[Any] = values[1]
        index: RegTensor[Any] = values[2]
        _index_type(api, src.dtype, index, "src_reg")
        _index_trait(api, index, src, "src_reg")
        be.check_aligned(api, "dst_addr", ptr, ptr.addr, BLOCK, "Scatter base")
        size = src.dtype.itemsize
        if size == 1:  # lanes of the u16 index: byte 2k of the source, mask bit 2k
            n, stride = VL // 2, 2
        else:
            n, stride = lane_count(src.dtype, src.trait), mask_stride(src.dtype, src.trait)
        active = be.predicate(api, "mask", values[3], stride)
        idx = _index_words(be, api, index, n, active)
        lanes = be.lanes(api, "src_reg", src, None if size == 1 else active)
        raw = lanes.view(np.uint8).reshape(-1)  # whole elements, in natural order
        raw = raw.reshape(-1, 2)[:, :1] if size == 1 else raw.reshape(n, size)
        on = active[0]
        lanes_on = np.flatnonzero(on)
        order = np.argsort(idx[lanes_on], kind="stable")
        hit, rows = idx[lanes_on][order], raw[lanes_on][order]
        clash = (hit[1:] == hit[:-1]) & (rows[1:] != rows[:-1]).any(axis=1)
        if clash.any():
            dup = int(hit[1:][clash][0])
            who = np.flatnonzero(on & (idx == dup)).tolist()
            raise ParameterError(
                message(
                    api,
                    "index",
                    f"{dup} in active lanes {who} with different values",
                    "distinct indices in active lanes, or equal values where they repeat (the page keeps one "
                    "of the duplicates, which one undefined)",
                )
            )
        be.scatter(api, "dst_addr", ptr, ptr.addr + idx * size, np.ascontiguousarray(raw), on)


# --- arithmetic: two register outputs (Mull), complex magnitude into the component type (Abs) ----------
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
    (Compare, Compares), in the MaskReg layout of the operands' type (`backend.write_predicate`)."""

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
        out = lane(*operands, **options)
        results = out if isinstance(out, tuple) else (out,)
        for (i, kind), result in zip(p.outputs, results, strict=True):
            if kind is Kind.MASK:
                be.write_bits(values[i], result)
            elif p.mode is not None:
                be.commit(values[i], result, active, p.mode)
            else:
                be.commit_all(values[i], result)
        return self.after(ctx, plan, values, results)

    def after(self, ctx: VfContext, plan: Plan, values: Sequence[Any], results: tuple[Any, ...]) -> Any:
        """What a call does besides writing its outputs (a special register); returns the call's value."""
        return None


def _same_leading_axes(operands: list[Any], scalars: set[int]) -> list[Any]:
    """The lane function's operands broadcast to one leading shape: in a batched loop some carry an
    iteration axis (written in the body, or a scalar that differs by iteration) and others not (set
    before the loop). A scalar's axes are all leading; a lane array's last axis is its lanes."""
    leads = [np.shape(x) if k in scalars else np.shape(x)[:-1] for k, x in enumerate(operands) if np.ndim(x) > 0]
    if all(lead == () for lead in leads):
        return operands
    lead = np.broadcast_shapes(*leads)
    return [
        x if np.ndim(x) == 0 else np.broadcast_to(x, lead if k in scalars else lead + np.shape(x)[-1:])
        for k, x in enumerate(operands)
    ]


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
@attrs.frozen
class _Conversion:
    """One Cast signature, checked and laid out: which source element feeds which destination
    element, and which source lane's mask bit governs it."""

    src_idx: Any  #: per converted element: its source element (4-bit sources: nibble index)
    out_idx: Any  #: per converted element: its destination element (4-bit destinations: nibble)
    act_idx: Any  #: per converted element: the source lane whose mask bit governs it
    used: Any  #: source lanes read
    n_out: int  #: destination elements (4-bit: nibbles)
    round_mode: Any
    pair: Any  #: the pair's `Pair` row (its saturation is read per call, with the CTRL register)
    sat_mode: Any  #: the trait's satMode


class Convert(Executor):
    """dst = Cast(src) by the pair's rules; the mask is read in the source's layout (bit
    `i * sizeof(src)`); narrow elements sit at `ratio * i + layout` of each group of wide ones;
    every destination element no active source element fills is 0 (ZEROING).

    Batched loops: every array keeps its leading (iteration) axes and the lane axis last; the
    saturation comes from the trait and the CTRL register the VF started with, per call."""

    batchable = True

    def __init__(self, pairs: Mapping[Any, Any], saturation: Callable[..., tuple[bool, bool]]) -> None:
        """`pairs`: (src dtype, dst dtype) → the pair's rules (the Cast page's table); `saturation`: the
        pair's saturation and NaN keeping from its trait's satMode and the CTRL bits (regsim._src.ops.convert)."""
        self._cache: dict[Any, _Conversion] = {}
        self.pairs, self.saturation = pairs, saturation

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        dst: RegTensor[Any] = values[0]
        src: RegTensor[Any] = values[1]
        key = (src.dtype, src.trait.REG_NUM, dst.dtype, dst.trait.REG_NUM, values[3])
        c = self._cache.get(key)
        if c is None:
            c = self._cache[key] = self._layout(plan.spec, src, dst, values[3])
        be = ctx.backend
        api = plan.spec.name
        lanes, _ = be.predicate(api, "mask", values[2], mask_stride(src.dtype, src.trait))
        used = np.zeros(lanes.shape[-1], np.bool_)
        used[c.used] = True
        read = used & lanes
        x = be.lanes(api, "src_reg", src, (read, int(read.sum())))
        four_src = src.dtype.itemsize == 1 and src.dtype.bits_only and src.dtype.name != "hifloat8"
        elems = formats.unpack_nibbles(x) if four_src else x
        sat, keep_nan = self.saturation(c.pair, c.sat_mode, dst.dtype, ctx.ctrl)
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        converted = lane(elems[..., c.src_idx], src.dtype, dst.dtype, c.round_mode, sat, keep_nan=keep_nan)
        four_dst = dst.dtype.itemsize == 1 and dst.dtype.bits_only and dst.dtype.name != "hifloat8"
        keep = lanes[..., c.act_idx]
        filled = np.where(keep, converted, np.zeros((), converted.dtype))
        out = np.zeros((*filled.shape[:-1], c.n_out), np.uint8 if four_dst else dst.dtype.np_dtype)
        out[..., c.out_idx] = filled
        if four_dst:
            out = formats.pack_nibbles(out)
        n = out.shape[-1]
        be.commit(dst, np.ascontiguousarray(out).view(dst.dtype.np_dtype), (np.ones(n, np.bool_), n), ZEROING)

    def _layout(self, spec: OpSpec, src: RegTensor[Any], dst: RegTensor[Any], trait: Any) -> _Conversion:
        api = spec.name
        pair = self.pairs.get((src.dtype, dst.dtype))
        if pair is None:
            accepted = ", ".join(t.name for s, t in self.pairs if s is src.dtype) or "none"
            raise DTypeError(
                message(
                    api,
                    "dst_reg",
                    f"RegTensor[{dst.dtype.name}] from RegTensor[{src.dtype.name}]",
                    f"a destination of {accepted} for a {src.dtype.name} source on Ascend 950",
                )
            )
        two = max(src.trait.REG_NUM, dst.trait.REG_NUM) == 2
        if trait.mrgMode is MaskMergeMode.MERGING:
            raise UnsupportedError(message(api, "trait.mrgMode", "MERGING", "ZEROING (the Cast page lists no other)"))
        if trait.mrgMode is not MaskMergeMode.ZEROING:
            raise ParameterError(message(api, "trait.mrgMode", trait.mrgMode.name, "MaskMergeMode.ZEROING"))
        for field, allowed in (("layoutMode", pair.layouts), ("satMode", pair.sats)):
            value = getattr(trait, field)
            if allowed and value not in allowed:
                raise ParameterError(
                    message(
                        api,
                        f"trait.{field}",
                        value.name,
                        f"{', '.join(v.name for v in allowed)} for {src.dtype.name} to {dst.dtype.name}",
                    )
                )
        rnd = trait.roundMode
        if pair.rounds:
            if rnd is RoundMode.CAST_NONE and pair.none_is_rint:
                rnd = RoundMode.CAST_RINT
            if rnd not in pair.rounds:
                raise ParameterError(
                    message(
                        api,
                        "trait.roundMode",
                        rnd.name,
                        f"{', '.join(v.name for v in pair.rounds)} for {src.dtype.name} to {dst.dtype.name}",
                    )
                )
        else:
            rnd = RoundMode.UNKNOWN
        layout = trait.layoutMode.value if trait.layoutMode is not RegLayout.UNKNOWN else 0
        n_src = lane_count(src.dtype, src.trait)
        n_dst = lane_count(dst.dtype, dst.trait)
        four_src = src.dtype in (dt.int4x2, dt.fp4x2_e2m1, dt.fp4x2_e1m2)
        four_dst = dst.dtype in (dt.int4x2, dt.fp4x2_e2m1, dt.fp4x2_e1m2)
        if four_src:  # byte 4k + layout (two nibbles) → destination elements 2k, 2k + 1
            i = np.arange(n_dst)
            k, h = i // 2, i % 2
            src_idx, out_idx, act_idx, n_out = 8 * k + 2 * layout + h, i, 4 * k + layout, n_dst
            used = 4 * k + layout
        elif four_dst:  # source elements 2k, 2k + 1 → nibbles of byte 4k + layout; the even lane's bit
            i = np.arange(n_src)
            k, h = i // 2, i % 2
            src_idx, out_idx, act_idx, n_out = i, 8 * k + 2 * layout + h, 2 * k, 2 * n_dst
            used = i
        elif two or src.dtype.itemsize == dst.dtype.itemsize:
            i = np.arange(min(n_src, n_dst))
            src_idx = out_idx = act_idx = used = i
            n_out = n_dst
        elif n_src > n_dst:  # widening: source element ratio * i + layout → destination element i
            r = n_src // n_dst
            i = np.arange(n_dst)
            src_idx = act_idx = used = r * i + layout
            out_idx, n_out = i, n_dst
        else:  # narrowing: source element i → destination element ratio * i + layout
            r = n_dst // n_src
            i = np.arange(n_src)
            src_idx = act_idx = used = i
            out_idx, n_out = r * i + layout, n_dst
        return _Conversion(src_idx, out_idx, act_idx, used, n_out, rnd, pair, trait.satMode)


# --- transcendental: a *SpecificMode struct as `mode=` (Div, Exp, Sqrt) ------------------------------
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
