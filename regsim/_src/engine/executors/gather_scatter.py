"""Gathers and scatters between registers and the UB."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from regsim._src.engine.context import VfContext
from regsim._src.engine.executors.access import BLOCK
from regsim._src.engine.executors.base import Executor, _trait_one
from regsim._src.engine.per_iteration import Unbatchable
from regsim._src.engine.spec import OpSpec, Plan
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import (
    VL,
    RegTensor,
    lane_count,
    mask_stride,
    natural_to_halves,
)
from regsim.errors import AlignmentError, DTypeError, ParameterError, message

ZEROING = MaskMergeMode.ZEROING


def _index_words(be: Any, api: str, index: RegTensor[Any], count: int, active: Any) -> Any:
    """The first `count` index lanes as int64 (a u64 index: its low 32 bits, as the library's
    DeInterleave keeps them; a RegTraitNumTwo u64 index: reg[0], the low words)."""
    lanes = be.lanes(api, "index", index, None)
    if index.dtype.itemsize == 8:
        lanes = lanes.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    return lanes[..., :count].astype(np.int64)  # (a batched loop's rows lead)


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
    type; a b8 source is zero-extended into the b16 lane). Batched: the index, the mask and the
    base may differ by iteration (a leading rows axis); the backend checks the rows' reads."""

    batchable = True

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
        addrs = np.expand_dims(ptr.addr, -1) + idx * src  # (a batched pointer: one base per row)
        raw, valid = be.gather(api, "src_addr", ptr, addrs, src, active[0])
        out = np.zeros((*raw.shape[:-1], dst.dtype.itemsize), np.uint8)
        out[..., :src] = raw
        ok = None
        if valid is not None:
            ok = np.ones(out.shape, np.bool_)
            ok[..., :src] = valid
            ok = ok.reshape(*ok.shape[:-2], -1)
        out = out.reshape(*out.shape[:-2], -1)
        if dst.trait.REG_NUM == 2:
            out = natural_to_halves(out, dst.dtype.itemsize)
            ok = None if ok is None else natural_to_halves(ok, dst.dtype.itemsize)
        be.fill(dst, out, ok, "" if ok is None else f"{api} from the UB tensor at byte {ptr.lo}")


class BlockGather(Executor):
    """GatherB: dst block k = active[k] ? UB[base + index[k], +32) : 0, k < 8 (index in bytes,
    32-byte aligned; block k governed by mask bit 4k, the b32 layout). Batched: the index, the mask
    and the base may differ by iteration (a leading rows axis); the backend checks the rows' reads."""

    batchable = True

    def prepare(self, spec: OpSpec, plan: Plan) -> None:
        _trait_one(spec, plan, "GatherB")

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        be = ctx.backend
        api = plan.spec.name
        ptr: UbPtr[Any] = values[1]
        be.check_aligned(api, "src_addr", ptr, ptr.addr, BLOCK, "GatherB base")
        lanes, _ = be.predicate(api, "mask", values[3], 4)
        on = lanes[..., : VL // BLOCK]
        offsets = be.lanes(api, "index", values[2], (np.arange(64) < 8, 8))[..., :8].astype(np.int64)
        bad = on & (offsets % BLOCK != 0)
        if bad.any():
            if bad.ndim > 1:
                raise Unbatchable(f"{api}: a misaligned block offset in some iteration")
            k = int(np.flatnonzero(bad)[0])
            raise AlignmentError(
                message(
                    api, "index", f"{int(offsets[k])} in lane {k}", "byte offsets that are multiples of 32 (one DataBlock each)"
                )
            )
        raw, valid = be.gather(api, "src_addr", ptr, np.expand_dims(ptr.addr, -1) + offsets, BLOCK, on)
        lead = raw.shape[:-2]  # (a batched loop's rows)
        be.fill(
            values[0],
            raw.reshape(*lead, -1),
            None if valid is None else valid.reshape(*lead, -1),
            f"{api} from the UB tensor at byte {ptr.lo}",
        )


class UbScatter(Executor):
    """Scatter: base[index[i]] = src[i] for active lanes (index in elements of T). A b8 source
    scatters its even bytes (lane k: byte 2k, mask bit 2k). Two active lanes with one index and
    different values are an error: the page keeps one of them, which one undefined (with equal
    values every choice writes the same bytes). Batched: the index, the source, the mask and the base
    may differ by iteration (a leading rows axis); the backend checks the rows' writes."""

    batchable = True

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
        lead = lanes.shape[:-1]  # (a batched loop's rows)
        raw = lanes.view(np.uint8).reshape(*lead, -1)  # whole elements, in natural order
        raw = raw.reshape(*lead, -1, 2)[..., :1] if size == 1 else raw.reshape(*lead, n, size)
        on = active[0]
        dup = _clash(idx, raw, on)
        if dup is not None:
            if max(idx.ndim, on.ndim, raw.ndim - 1) > 1:
                raise Unbatchable(f"{api}: one index in two active lanes with different values in some iteration")
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
        be.scatter(api, "dst_addr", ptr, np.expand_dims(ptr.addr, -1) + idx * size, np.ascontiguousarray(raw), on)


def _clash(idx: Any, raw: Any, on: Any) -> int | None:
    """An index two active lanes of one row share with different values (the first in index order), else None:
    idx and on (rows, lanes) or (lanes,), raw (rows, lanes, unit) or (lanes, unit)."""
    rows = max(idx.shape[:-1] + on.shape[:-1] + raw.shape[:-2], default=1)
    shape = (rows, max(idx.shape[-1], on.shape[-1], raw.shape[-2]))
    row, lane = np.nonzero(np.broadcast_to(on, shape))
    hit = np.broadcast_to(idx, shape)[row, lane]
    values = np.broadcast_to(raw, (*shape, raw.shape[-1]))[row, lane]
    order = np.lexsort((hit, row))
    row, hit, values = row[order], hit[order], values[order]
    clash = (row[1:] == row[:-1]) & (hit[1:] == hit[:-1]) & (values[1:] != values[:-1]).any(axis=-1)
    return int(hit[1:][clash][0]) if clash.any() else None


# --- arithmetic: two register outputs (Mull), complex magnitude into the component type (Abs) ----------
