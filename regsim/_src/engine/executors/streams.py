"""The unaligned load and store streams (their buffered 32-byte blocks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src.engine.backend import INT32, UINT32_MAX
from regsim._src.engine.context import VfContext
from regsim._src.engine.executors.access import _POST_UPDATE, BLOCK
from regsim._src.engine.executors.base import Executor, _int, _slot, _trait_one
from regsim._src.engine.per_iteration import Unbatchable
from regsim._src.engine.spec import Kind, OpSpec, Plan
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import (
    VL,
    RegTensor,
    UnalignRegForLoad,
    UnalignRegForStore,
    lane_count,
    natural_to_halves,
)
from regsim.errors import ParameterError, VfContextError, message

ZEROING = MaskMergeMode.ZEROING


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


def _stream_store_rows(ctx: VfContext, api: str, ptr: UbPtr[Any], u: UnalignRegForStore, addrs: Any, data: Any) -> None:
    """`_stream_store` over a batched loop's iterations at once: row b appends its bytes at addrs[b]. Exact when the
    rows continue one stream (each starts where the one before ended), inside the tensor, where the stream left off;
    anything else runs the loop in order (which raises where the in-order run raises)."""
    batched: Any = ctx.backend  # (its `stream_write`)
    n = data.shape[-1]
    addrs = np.asarray(addrs, np.int64)
    if n == 0 or not (np.diff(addrs) == n).all():
        raise Unbatchable(f"{api}'s iterations do not continue one unaligned store stream")
    first, end = int(addrs[0]), int(addrs[-1]) + n
    if first < ptr.lo or end > ptr.hi or (u.pending.size and u.start + u.pending.size != first):
        raise Unbatchable(f"{api} outside its tensor, or off its stream, in some iteration")
    start = u.start if u.pending.size else first
    stream = np.concatenate([u.pending, np.broadcast_to(data, (addrs.size, n)).reshape(-1)])
    cut = max(start, _floor(end))
    # the bytes row b writes, as in order: those between the 32-byte boundary the stream had reached before it and the
    # one its own bytes reach (a row reaching none writes nothing; its bytes are written by a later row's store)
    hi = np.maximum(_floor(addrs + n), start)
    lo = np.concatenate(([start], hi[:-1]))
    used = np.flatnonzero(lo < hi)
    batched.stream_write(api, ptr, u, start, stream[: cut - start], (lo[used], hi[used], used), end)
    u.pending, u.start, u.origin, u.ptr = stream[cut - start :].copy(), cut, f"{api} at UB byte {int(addrs[-1])}", ptr
    if u.pending.size:
        _watch(ctx, u)


class UnalignStore(Executor):
    """StoreUnAlign (registers and MaskRegs) and Store: `count` elements appended to the stream. Batched
    (StoreUnAlign): the iterations' bytes at once, where they continue one stream (`_stream_store_rows`)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind  #: "reg", "mask" or "store" (Store: its own stream, flushed at once)
        self.batchable = kind != "store"

    def prepare(self, spec: OpSpec, plan: Plan) -> _Stream:
        if spec.variant.endswith("addr"):
            _trait_one(spec, plan, "AddrReg")
        return _stream(spec, plan)

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        s: _Stream = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        ptr: UbPtr[Any] = values[0]
        moves = self.kind == "mask" or (self.kind == "reg" and s.post)
        addr = be.post_address(ptr) if moves else ptr.addr  # (a batched loop: one address per iteration)
        if self.kind == "mask":
            w = s.itemsize
            be.check_aligned(api, "dst_addr", ptr, addr, VL // 8 // w, f"a MaskReg StoreUnAlign of {plan.dtype!r}")
            bits = be.predicate_bits(api, "mask", values[1], np.arange(0, VL, w))
            data, advance = np.packbits(bits, axis=-1, bitorder="little"), VL // 8 // w
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
            raw = lanes.view(np.uint8).reshape(*lanes.shape[:-1], -1)  # whole elements, in natural order
            data, advance = raw[..., : count * s.itemsize], (count * s.itemsize if s.post or self.kind == "store" else 0)
        if self.kind == "store":
            u = UnalignRegForStore()
            _stream_store(ctx, api, ptr, u, addr, data, api)
            if u.pending.size:
                be.store(api, "dst_addr", ptr, [(u.start, u.pending, None)], 1)
                u.pending = u.pending[:0]
            return
        u = values[s.ureg]
        if be.rows:  # a batched loop: one append an iteration (a pointer the body made: the same address in each)
            _stream_store_rows(ctx, api, ptr, u, np.broadcast_to(addr, (be.rows,)), data)
        else:
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
