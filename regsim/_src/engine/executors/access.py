"""Aligned loads and stores (the distribution tables), address registers and DataBlock copies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src.engine import backend, dists
from regsim._src.engine.backend import INT32, UINT32_MAX
from regsim._src.engine.context import VfContext
from regsim._src.engine.dists import Dist
from regsim._src.engine.executors.base import Executor, _int, _slot, _trait_one
from regsim._src.engine.per_iteration import Affine, InOrderOnly
from regsim._src.engine.spec import Call, Kind, OpSpec, Plan
from regsim._src.model.enums import MaskMergeMode, PostLiteral
from regsim._src.model.memory import UbPtr, UbRead
from regsim._src.model.registers import (
    VL,
    AddrReg,
    Bools,
    RegTensor,
    mask_stride,
)
from regsim.errors import DTypeError, ParameterError, UnsupportedError, message

ZEROING = MaskMergeMode.ZEROING


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


@attrs.frozen
class Access:
    dist: Dist
    extra: int | None  #: index of the post-update stride or AddrReg operand, if any
    post: bool  #: the operand at `extra` is a post-update stride
    unit: int  #: bytes per unit of the post-update stride (an element of T; a byte for a MaskReg)
    itemsize: int
    regs: int  #: registers in the tensor (RegTraitNumTwo: 2)
    pred: int | None  #: index of the governing predicate (register stores)
    ptr: int  #: index of the pointer operand
    data: tuple[int, ...]  #: indices of the register operands (two for the dual forms)


def _access(spec: OpSpec, plan: Plan, table: dict[Any, Dist], is_mask: bool, dual: bool = False) -> Access:
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
    return Access(dist, extra, post, 1 if is_mask else itemsize, itemsize, regs, pred, ptr, data)


def _address(ctx: VfContext, plan: Plan, a: Access, values: Sequence[Any], param: str) -> tuple[UbPtr[Any], int, int | None]:
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

    def prepare(self, spec: OpSpec, plan: Plan) -> Access:
        return _access(spec, plan, dists.MASK_LOAD if self.is_mask else dists.LOAD, self.is_mask, self.dual)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        a: Access = plan.prepared
        be = ctx.backend
        ptr, addr, advance = _address(ctx, plan, a, values, "src_addr")
        raw, valid = be.read(plan.spec.name, "src_addr", ptr, addr, a.dist.ub_bytes * a.regs)
        if self.is_mask:
            be.fill_predicate(values[0], raw, valid, a.dist.index)
        else:
            identity = a.dist.index is None and a.regs == 1 and len(a.data) == 1  # (register byte k = UB byte addr + k)
            origin = "" if valid is None else UbRead(plan.spec.name, ptr, addr, a.dist.ub_bytes * a.regs, identity)
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
        a: Access = plan.prepared
        if self.is_mask or self.dual or (a.extra is not None and not a.post) or a.dist.index is not None:
            return None
        halves = a.itemsize if a.regs == 2 else 0
        return backend.in_order_load(a.dist.ub_bytes * a.regs, a.dist.align, halves, a.extra, a.unit, generic)

    def specialise_batched(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        a: Access = plan.prepared
        if self.is_mask or self.dual or (a.extra is not None and not a.post) or a.dist.index is not None:
            return None
        nbytes, align, post, unit = a.dist.ub_bytes * a.regs, a.dist.align, a.extra, a.unit
        low, high = INT32

        def call(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            be: Any = ctx.backend
            ptr = args[1]
            step = 0 if post is None else args[post]
            if type(step) is not int or not low <= step <= high:
                return generic(ctx, args, kwargs)
            at = be.rows_at(ptr, align, nbytes, False)
            if at is None or not be.load_rows(args[0], ptr, at, nbytes):
                return generic(ctx, args, kwargs)
            if post is not None:
                be.advance(ptr, step * unit)

        return call


class StoreAligned(Executor):
    """A register's active lanes (or a predicate's bits; or two registers interleaved) written to
    UB by the distribution."""

    batchable = True

    def __init__(self, is_mask: bool, dual: bool = False) -> None:
        self.is_mask = is_mask
        self.dual = dual

    def prepare(self, spec: OpSpec, plan: Plan) -> Access:
        return _access(spec, plan, dists.MASK_STORE if self.is_mask else dists.STORE, self.is_mask, self.dual)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        a: Access = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        ptr, addr, advance = _address(ctx, plan, a, values, "dst_addr")
        if self.is_mask:
            be.store(api, "dst_addr", ptr, [(addr, be.predicate_bytes(api, "mask", values[1], a.dist.index), None)], 1)
        elif a.dist.index is not None:  # a distribution other than NORM: a byte map, lanes of its width
            if be.rows:  # (a batched loop)
                raise InOrderOnly(f"StoreAlign with {a.dist.name} runs in order only")
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
                use: Bools = np.asarray(needed[k * VL : (k + 1) * VL].reshape(-1, a.itemsize).any(axis=1))
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
        a: Access = plan.prepared
        if self.is_mask and not self.dual and a.extra is None:
            return backend.in_order_mask_store(spec.name, a.dist.ub_bytes, a.dist.align, a.dist.index, generic)
        # a register: one (or two, without a post-update) with the identity distribution
        if self.is_mask or self.dual or (a.extra is not None and not (a.post and a.regs == 1)) or a.dist.index is not None:
            return None
        assert a.pred is not None
        stride = mask_stride(plan.dtype, plan.trait)
        at = (a.ptr, a.data[0], a.pred)
        return backend.in_order_store(
            spec.name,
            a.dist.ub_bytes * a.regs,
            a.dist.align,
            stride,
            a.itemsize if a.regs == 2 else 0,
            at,
            a.extra,
            a.unit,
            generic,
        )

    def specialise_batched(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        a: Access = plan.prepared
        if self.dual or (a.extra is not None and not (a.post and not self.is_mask)) or a.dist.index is not None:
            return None
        if a.regs == 2 and a.extra is not None:  # (the second register's address follows the post-update stride)
            return None
        api, nbytes, align, post, unit = spec.name, a.dist.ub_bytes, a.dist.align, a.extra, a.unit
        low, high = INT32
        if self.is_mask:

            def mask(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                be: Any = ctx.backend
                ptr = args[0]
                if be.rows_at(ptr, align, nbytes, True) is None:
                    return generic(ctx, args, kwargs)
                be.store_rows(api, ptr, be.predicate_bytes(api, "mask", args[1], None), None, 1)

            return mask
        assert a.pred is not None
        stride, itemsize, i_ptr, i_src, i_mask = mask_stride(plan.dtype, plan.trait), a.itemsize, a.ptr, a.data[0], a.pred
        if a.regs == 2:  # whole elements, stored as `_two_registers` splits them: two one-register stores, VL apart
            half = VL // itemsize

            def two(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                be: Any = ctx.backend
                ptr = args[i_ptr]
                if be.rows_at(ptr, align, 2 * nbytes, True) is None:
                    return generic(ctx, args, kwargs)
                active = be.predicate(api, "mask", args[i_mask], stride)
                act = None if active[1] == active[0].size else active[0]
                if act is not None and ptr.ub.storage.partial():  # (the store's note: one of both registers' lanes,
                    return generic(ctx, args, kwargs)  # as in order; two `store_rows` would note each half apart)
                if act is None and be.store_deferred(api, ptr, args[i_src], itemsize):
                    return
                raw = be.lanes(api, "src_reg", args[i_src], active).view(np.uint8)
                if act is None:  # every lane: the two stores' bytes are one run of 2·VL a row, stored as one
                    be.store_rows(api, ptr, raw, None, itemsize)
                    return
                be.store_rows(api, ptr, raw[..., :VL], act[..., :half], itemsize)
                be.store_rows(api, ptr, raw[..., VL:], act[..., half:], itemsize, VL)

            return two

        def call(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            be: Any = ctx.backend
            ptr = args[i_ptr]
            step = 0 if post is None else args[post]
            if type(step) is not int or not low <= step <= high or be.rows_at(ptr, align, nbytes, True) is None:
                return generic(ctx, args, kwargs)
            active = be.predicate(api, "mask", args[i_mask], stride)
            full = active[1] == active[0].size
            # (a result computed when read exists only from DEFER_ROWS rows: `store_deferred` not asked under them)
            if not (full and be.defers and be.store_deferred(api, ptr, args[i_src], itemsize)):
                raw = be.lane_bytes(api, "src_reg", args[i_src], active)
                be.store_rows(api, ptr, raw, None if full else active[0], itemsize)
            if post is not None:
                be.advance(ptr, step * unit)

        return call

    @staticmethod
    def _two_registers(
        ctx: VfContext, plan: Plan, a: Access, ptr: UbPtr[Any], addr: int, advance: int | None, raw: Any, act: Any
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


BLOCK = 32  #: bytes in one DataBlock


UINT16_MAX = 2**16 - 1


_POST_UPDATE = PostLiteral.POST_MODE_UPDATE


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
    POST_MODE_NORMAL: access at A + repeatStride * 32 B, A unchanged. Batched: the base and the mask may
    differ by iteration (a leading rows axis); a load's blocks are the rows' gather of their active blocks,
    a store's one chunk a block; the backend checks the rows' bytes."""

    batchable = True

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
        addr = be.post_address(ptr) if update else ptr.addr + (repeat * BLOCK if b.post is not None else 0)
        be.check_aligned(api, param, ptr, addr, BLOCK, "DATA_BLOCK_COPY")
        size = plan.dtype.itemsize
        per_block = BLOCK // size
        lanes, count = be.predicate(api, "mask", values[b.pred], size)
        per = lanes.reshape(*lanes.shape[:-1], -1, per_block)  # (a batched loop's rows lead)
        offsets = np.arange(VL // BLOCK) * stride * BLOCK
        if self.load and (per.ndim > 2 or np.ndim(addr)):  # a batched loop: every row's active blocks at once
            batched: Any = be  # (its `read_blocks`)
            on: Bools = np.asarray(per.any(axis=-1))
            raw, valid = batched.read_blocks(api, param, ptr, np.expand_dims(addr, -1) + offsets, BLOCK, on)
            lead = raw.shape[:-2]
            origin = f"{api} (DATA_BLOCK_COPY) of UB blocks from byte {ptr.lo}"
            be.fill(values[b.reg], raw.reshape(*lead, VL), None if valid is None else valid.reshape(*lead, VL), origin)
        elif self.load:
            starts = addr + offsets
            on = np.asarray(per.any(axis=1))
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
            data = be.lanes(api, "src_reg", src, (lanes, count)).view(np.uint8)
            data = data.reshape(*data.shape[:-1], VL)
            chunks = [
                (addr + int(offsets[k]), data[..., k * BLOCK : (k + 1) * BLOCK], None if per[..., k, :].all() else per[..., k, :])
                for k in range(VL // BLOCK)
                if per[..., k, :].any()
            ]
            if chunks:
                be.store(api, param, ptr, chunks, size)
        if update:
            be.advance(ptr, repeat * BLOCK)


# --- unaligned streams ---------------------------------------------------------------------------
