"""Type conversion (Cast): the pair table, layouts and saturation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src.engine.context import VfContext
from regsim._src.engine.executors.base import Executor
from regsim._src.engine.spec import OpSpec, Plan
from regsim._src.model import dtypes as dt
from regsim._src.model import formats
from regsim._src.model.enums import MaskMergeMode, RegLayout, RoundMode
from regsim._src.model.registers import (
    RegTensor,
    lane_count,
    mask_stride,
)
from regsim.errors import DTypeError, ParameterError, UnsupportedError, message

ZEROING = MaskMergeMode.ZEROING


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
