"""One executor per op shape. Each prepares what the static checks allow it to precompute (once
per operand types and template values) and runs a call through the backend.

Shapes so far: elementwise (with predicate outputs, e.g. carry), mask generation (CreateMask),
the UpdateMask counter, address registers, aligned loads and aligned stores (registers and
MaskRegs alike, driven by the distribution tables). A new shape is a new executor here, never an
`if` in an old one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src import dists
from regsim._src import dtypes as dt
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
    numpy scalars of the op's element type; an in-out destination is an input too."""

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

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        p: _Elementwise = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        active = be.predicate(api, "mask", values[p.pred], p.stride)
        if be.scan(plan, p, values, active):  # a batched loop's register or carry carried across iterations
            return
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        out = lane(*_read_inputs(be, api, plan, p, values, active))
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
        from regsim._src.memory import current_core

        high, low = current_core(plan.spec.name).vector_mask
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
