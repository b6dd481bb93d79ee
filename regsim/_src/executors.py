"""One executor per op shape. Each prepares what the static checks allow it to precompute (once
per operand types and template values) and runs a call through the backend.

Shapes so far: elementwise (with predicate outputs, e.g. carry), mask generation (CreateMask),
the UpdateMask counter, address registers, aligned loads and aligned stores (registers and
MaskRegs alike, driven by the distribution tables). A new shape is a new executor here, never an
`if` in an old one.
"""

from __future__ import annotations

import functools
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
    """The shape of an op: `prepare` once per static signature, `run` per call."""

    batching_note = ""

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

    def lane(self, plan: Plan) -> Callable[..., Any]:
        """The lane function a call applies."""
        return plan.spec.lane  # type: ignore[return-value]

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> None:
        p: _Elementwise = plan.prepared
        be = ctx.backend
        api = plan.spec.name
        active = be.predicate(api, "mask", values[p.pred], p.stride)
        operands = [
            be.lanes(api, name, values[i], active)
            if kind is Kind.REG
            else be.predicate(api, name, values[i], p.stride)[0]
            if kind is Kind.MASK
            else be.scalar(api, name, values[i], plan.dtype)
            for i, name, kind in p.inputs
        ]
        out = self.lane(plan)(*operands)
        if not p.predicates_out:
            be.commit(values[p.dst], out, active, p.mode)
            return
        result, *preds = out
        be.commit(values[p.dst], result, active, p.mode)
        full = active[1] == active[0].size
        for i, lanes in zip(p.predicates_out, preds, strict=True):
            be.write_predicate(values[i], lanes if full else lanes & active[0], plan.dtype, plan.trait)


class ElementwiseTemplated(Elementwise):
    """Elementwise, with the named template values (e.g. `round_mode`) passed to the lane function
    as keywords."""

    def __init__(self, *params: str) -> None:
        self.params = params

    def lane(self, plan: Plan) -> Callable[..., Any]:
        assert plan.spec.lane is not None
        return functools.partial(plan.spec.lane, **{k: plan.values[k] for k in self.params})


# --- mask generation --------------------------------------------------------------------------
class MaskGen(Executor):
    """A predicate from a static pattern (CreateMask): computed once per dtype, trait and pattern."""

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

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> MaskReg:
        ref = values[1]
        count = ref.value
        if type(count) is not int:
            count = _int(plan.spec.name, "scalar_value.value", count, (0, UINT32_MAX), "uint32_t")
        elif not 0 <= count <= UINT32_MAX:
            raise ParameterError(message(plan.spec.name, "scalar_value.value", count, f"a uint32_t: an int in [0, {UINT32_MAX}]"))
        n: int = plan.prepared
        dst = MaskReg()
        ctx.backend.write_prefix(dst, count if count < n else n, plan.dtype, plan.trait)
        ref.value = count - n if count > n else 0
        return dst


class AddrGen(Executor):
    """offset = Σ index_k · stride_k elements of T (CreateAddrReg)."""

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
                raw, valid = raw[a.dist.index], None if valid is None else valid[a.dist.index]
            if a.regs == 2:  # whole elements in UB → low halves in reg[0], high halves in reg[1]
                raw, valid = natural_to_halves(raw, a.itemsize), None if valid is None else natural_to_halves(valid, a.itemsize)
            be.fill(values[0], raw, valid, "" if valid is None else f"{plan.spec.name} of UB bytes [{addr}, {addr + raw.size})")
        if advance is not None:
            be.advance(ptr, advance)


class StoreAligned(Executor):
    """A register's active lanes (or a predicate's bits) written to UB by the distribution."""

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
            be.store(api, "dst_addr", ptr, [(addr, np.packbits(bits, bitorder="little"), None)], 1)
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
        half = raw.size // 2
        n = half // a.itemsize
        return [
            (addr, raw[:half], None if act is None else act[:n]),
            (addr + second, raw[half:], None if act is None else act[n:]),
        ]


class Unmodelled(Executor):
    """A documented overload regsim does not model yet: its spec's validation refuses it."""


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
    sat: bool


class Convert(Executor):
    """dst = Cast(src) by the pair's rules; the mask is read in the source's layout (bit
    `i * sizeof(src)`); narrow elements sit at `ratio * i + layout` of each group of wide ones;
    every destination element no active source element fills is 0 (ZEROING)."""

    def __init__(self) -> None:
        self._cache: dict[Any, _Conversion] = {}

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
        read = np.zeros(lanes.shape, np.bool_)
        read[c.used] = True
        read &= lanes
        x = be.lanes(api, "src_reg", src, (read, int(read.sum())))
        from regsim._src import formats

        four_src = src.dtype.itemsize == 1 and src.dtype.bits_only and src.dtype.name != "hifloat8"
        elems = formats.unpack_nibbles(x) if four_src else x
        lane: Callable[..., Any] = plan.spec.lane  # type: ignore[assignment]
        converted = lane(elems[..., c.src_idx], src.dtype, dst.dtype, c.round_mode, c.sat)
        four_dst = dst.dtype.itemsize == 1 and dst.dtype.bits_only and dst.dtype.name != "hifloat8"
        out = np.zeros(c.n_out, np.uint8 if four_dst else dst.dtype.np_dtype)
        keep = lanes[c.act_idx]
        out[c.out_idx] = np.where(keep, converted, np.zeros((), converted.dtype))
        if four_dst:
            out = formats.pack_nibbles(out)
        n = out.shape[-1]
        be.commit(dst, out.view(dst.dtype.np_dtype), (np.ones(n, np.bool_), n), ZEROING)

    def _layout(self, spec: OpSpec, src: RegTensor[Any], dst: RegTensor[Any], trait: Any) -> _Conversion:
        from regsim._src.enums import RegLayout, RoundMode
        from regsim._src.ops.convert import PAIRS, saturating

        api = spec.name
        pair = PAIRS.get((src.dtype, dst.dtype))
        if pair is None:
            accepted = ", ".join(t.name for s, t in PAIRS if s is src.dtype) or "none"
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
        sat = saturating(trait.satMode) if pair.sats else issubclass(dst.dtype, dt.Integer)
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
        return _Conversion(src_idx, out_idx, act_idx, used, n_out, rnd, sat)
