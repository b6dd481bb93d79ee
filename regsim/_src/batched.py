"""The batched backend: a VF loop's body run once over all its iterations.

Registers and masks written in the body get a leading iteration axis (row b = iteration b);
the loop index is an `Affine` array, so `p + i * k` is a `BatchedPtr` whose address is one per
row; loads gather and stores scatter. Everything that could make the result differ from running
the iterations in order is detected and raises `Unbatchable` (the loop runner then restores
the state and runs the loop in order): a register or mask read before it is written in the body
(carried across iterations, MERGING into one included), UB bytes one iteration writes and another
reads or writes, a data check (alignment, bounds, never-written bytes) failing in any row, the
loop index used as a Python value, a post-update pointer, an op whose executor has no batching
rule. So batching is exact or not used at all.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from regsim._src import dtypes as dt
from regsim._src.backend import NumpyBackend, group_pattern
from regsim._src.context import _VF
from regsim._src.enums import MaskMergeMode
from regsim._src.memory import UbPtr, UnifiedBuffer
from regsim._src.registers import (
    LSB,
    MASK_BITS,
    Active,
    Bools,
    Bytes,
    MaskReg,
    RegTensor,
    RegTrait,
    Storage,
    halves_to_natural,
    natural_to_halves,
)
from regsim._src.spec import Kind

ZEROING = MaskMergeMode.ZEROING


class Unbatchable(Exception):  # noqa: N818 (a signal to the loop runner, never seen by users)
    """The loop cannot run batched exactly; `args[0]` says why."""


class Affine:
    """A loop-index expression over the iterations: one integer per iteration (row)."""

    __slots__ = ("values",)

    def __init__(self, values: npt.NDArray[np.int64]) -> None:
        self.values = values

    def _with(self, other: object, op: Any) -> Affine:
        if isinstance(other, Affine):
            return Affine(op(self.values, other.values))
        if isinstance(other, (int, np.integer)) and not isinstance(other, bool):
            return Affine(op(self.values, int(other)))
        raise Unbatchable(f"the loop index is combined with {type(other).__name__}")

    def __add__(self, other: object) -> Affine:
        return self._with(other, np.add)

    __radd__ = __add__

    def __sub__(self, other: object) -> Affine:
        return self._with(other, np.subtract)

    def __rsub__(self, other: object) -> Affine:
        return self._with(other, lambda a, b: b - a)

    def __mul__(self, other: object) -> Affine:
        return self._with(other, np.multiply)

    __rmul__ = __mul__

    def __neg__(self) -> Affine:
        return Affine(-self.values)

    def __floordiv__(self, other: object) -> Affine:
        return self._with(other, np.floor_divide)

    def __mod__(self, other: object) -> Affine:
        return self._with(other, np.mod)

    def _offset_pointer(self, ptr: UbPtr[Any]) -> BatchedPtr:
        """`ptr + i * k`: one address per iteration."""
        return BatchedPtr(ptr.ub, ptr.dtype, ptr.addr + self.values * ptr.dtype.itemsize, ptr.lo, ptr.hi)

    def _python_value(self, *args: object) -> Any:
        raise Unbatchable("the loop index is used as a Python value (control flow, an int, a comparison)")

    __bool__ = __index__ = __int__ = __float__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _python_value
    __hash__ = None  # type: ignore[assignment]


class BatchedPtr(UbPtr[Any]):
    """A pointer with one address per iteration (`addr` is an int64 array). The batched backend
    keeps each one, to leave it at the last iteration's address when the loop ends."""

    __slots__ = ()

    def __init__(self, ub: UnifiedBuffer, dtype: Any, addr: Any, lo: int, hi: int) -> None:
        super().__init__(ub, dtype, addr, lo, hi)
        ctx = _VF.get()
        if ctx is not None and isinstance(ctx.backend, BatchedBackend):
            ctx.backend.pointers.append(self)

    def __add__(self, n: Any) -> BatchedPtr:
        step = n.values if isinstance(n, Affine) else n
        if not isinstance(step, np.ndarray) and (isinstance(step, bool) or not isinstance(step, (int, np.integer))):
            raise Unbatchable(f"a batched pointer plus {type(n).__name__}")
        return BatchedPtr(self.ub, self.dtype, self.addr + step * self.dtype.itemsize, self.lo, self.hi)

    def __sub__(self, n: Any) -> Any:
        raise Unbatchable("pointer arithmetic other than + on a per-iteration pointer")

    def reinterpret(self, dtype: Any) -> BatchedPtr:
        return BatchedPtr(self.ub, dtype, self.addr, self.lo, self.hi)

    def copy(self) -> BatchedPtr:
        return BatchedPtr(self.ub, self.dtype, self.addr, self.lo, self.hi)

    def __getitem__(self, i: Any) -> Any:
        raise Unbatchable("a scalar UB read through a per-iteration pointer")

    def __setitem__(self, i: Any, value: Any) -> None:
        raise Unbatchable("a scalar UB write through a per-iteration pointer")

    def __eq__(self, other: object) -> bool:
        raise Unbatchable("a per-iteration pointer compared")

    __hash__ = None


@attrs.define(eq=False)
class _Regs:
    """One register storage's bytes in every iteration."""

    storage: Storage
    data: Bytes  #: (rows, bytes)
    valid: Bools | None  #: (rows, bytes); None: every byte written in every row

    def summarise(self) -> None:
        if self.valid is not None and self.valid.all():
            self.valid = None


@attrs.define(eq=False)
class _Mask:
    mask: MaskReg
    bits: Bools  #: (rows, 256), or (256,) when the same in every row
    written: Bools | None


class BatchedBackend(NumpyBackend):
    """The sequential backend's interface over all iterations of one loop at once."""

    def __init__(self, check_uninitialized: bool, mask_fill: str, rows: int) -> None:
        super().__init__(check_uninitialized, mask_fill)
        self.rows = rows
        self.regs: dict[int, _Regs] = {}
        self.masks: dict[int, _Mask] = {}
        self.outside: set[int] = set()  #: registers and masks read before the body wrote them
        self.counted: dict[int, tuple[Any, Any]] = {}  #: Ref counters: id → (ref, value before)
        #: what stores overwrote, to undo them: (storage, where, bytes before, flags before)
        self.undo: list[tuple[Storage, Any, Bytes, Bools | None]] = []
        #: UB accesses: (ub id, starts, ends, row of each (None: every row), is a write)
        self.accesses: list[tuple[int, Any, Any, Any, bool]] = []
        self.pointers: list[BatchedPtr] = []
        self.scanned: set[int] = set()  #: registers and masks a scan wrote: no other op may write them

    # --- state -----------------------------------------------------------------------------------
    def _reg(self, reg: RegTensor[Any], writing: bool, whole: bool = False) -> _Regs | None:
        """The batched state of `reg`'s storage; a first write makes it (`whole`: the write covers
        every byte of the storage, so its old bytes need not be copied in)."""
        st = reg._storage
        state = self.regs.get(id(st))
        if writing and id(st) in self.scanned:
            raise Unbatchable("a register a scan carries across iterations is written again")
        if state is None and writing:
            if id(st) in self.outside:
                raise Unbatchable("a register is read before the loop body writes it (carried across iterations)")
            whole = whole and reg._span.stop - reg._span.start == st.data.size
            shape = (self.rows, st.data.size)
            data = np.empty(shape, np.uint8) if whole else np.broadcast_to(st.data, shape).copy()
            valid = None if whole or st.valid is None else np.broadcast_to(st.valid, shape).copy()
            state = self.regs[id(st)] = _Regs(st, data, valid)
        elif state is None:
            self.outside.add(id(st))
        return state

    def _mask(self, mask: MaskReg) -> tuple[Bools, Bools | None]:
        state = self.masks.get(id(mask))
        if state is None:
            self.outside.add(id(mask))
            return mask._bits, mask._written
        return state.bits, state.written

    def _set_mask(self, mask: MaskReg, bits: Bools, written: Bools | None) -> None:
        if id(mask) in self.scanned:
            raise Unbatchable("a MaskReg a scan carries across iterations is written again")
        if id(mask) in self.outside:
            raise Unbatchable("a MaskReg is read before the loop body writes it (carried across iterations)")
        self.masks[id(mask)] = _Mask(mask, bits, written)

    # --- loop-carried operands: scans ----------------------------------------------------------------
    def scan(self, plan: Any, prepared: Any, values: Any, active: Active) -> bool:
        """An elementwise op reading its own output of the previous iteration (an input register
        that is its destination, or an input MaskReg that is its carry output, not yet written in
        this iteration and not read by an earlier op) runs as its spec's scan over the rows."""
        spec = plan.spec
        if spec.scan is None:
            return False
        dst = values[prepared.dst]
        outs = {id(values[i]) for i in prepared.predicates_out}
        carried = None
        for k, (i, _, kind) in enumerate(prepared.inputs):
            v = values[i]
            if (kind is Kind.REG and v._storage is dst._storage and v._span == dst._span) or (
                kind is Kind.MASK and id(v) in outs
            ):
                carried = k
        if carried is None:
            return False
        i, _, kind = prepared.inputs[carried]
        key = id(dst._storage) if kind is Kind.REG else id(values[i])
        if key in self.regs or key in self.masks or key in self.outside:
            return False  # written before in the body, or read stale by an earlier op: the usual rules
        api = spec.name
        operands = []
        for k, (j, param, kind_k) in enumerate(prepared.inputs):
            v = values[j]
            if k == carried:  # the value before the loop, as the first iteration reads it
                operands.append(
                    super().lanes(api, param, v, None)
                    if kind_k is Kind.REG
                    else super().predicate(api, param, v, prepared.stride)[0]
                )
            elif kind_k is Kind.REG:
                operands.append(self.lanes(api, param, v, active))
            elif kind_k is Kind.MASK:
                operands.append(self.predicate(api, param, v, prepared.stride)[0])
            else:
                operands.append(self.scalar(api, param, v, plan.dtype))
        lanes = np.broadcast_to(active[0], (self.rows, active[0].shape[-1]))
        ctx = _VF.get()
        out = spec.scan(operands, carried, lanes, prepared.mode, ctrl=ctx.ctrl if ctx is not None else 0)
        if out is None:
            raise Unbatchable(f"Reg.{api} carries a value across iterations that has no exact scan here")
        everything: Active = (np.ones(lanes.shape, np.bool_), lanes.size)
        result, *preds = out if prepared.predicates_out else (out,)
        self.commit(dst, result, everything, ZEROING)
        for j, bits in zip(prepared.predicates_out, preds, strict=True):
            self.write_predicate(values[j], bits, plan.dtype, plan.trait)
        self.scanned.add(key)
        return True

    # --- predicates ------------------------------------------------------------------------------
    def predicate(self, api: str, param: str, mask: MaskReg, stride: int) -> Active:
        bits, written = self._mask(mask)
        if written is not None and self.check and not written[..., ::stride].all():
            raise Unbatchable("a never-written predicate bit")
        lanes = bits[..., ::stride]
        return lanes, int(np.count_nonzero(lanes))

    def write_predicate(self, dst: MaskReg, lanes: Bools, dtype: type[dt.DType], trait: RegTrait) -> None:
        pattern = group_pattern(dtype, trait, self.mask_fill)
        if pattern == LSB[len(pattern)]:
            bits = np.zeros((*lanes.shape[:-1], MASK_BITS), np.bool_)
            bits[..., :: len(pattern)] = lanes
        else:
            bits = np.logical_and(lanes[..., None], np.frombuffer(pattern, np.bool_)).reshape(*lanes.shape[:-1], MASK_BITS)
        self._set_mask(dst, bits, None)

    def write_bits(self, dst: MaskReg, bits: Bools) -> None:
        self._set_mask(dst, np.array(bits, np.bool_), None)

    def write_prefix(self, dst: MaskReg, count: Any, dtype: type[dt.DType], trait: RegTrait) -> None:
        n = MASK_BITS * trait.REG_NUM // dtype.itemsize
        self.write_predicate(dst, np.arange(n) < np.asarray(count)[..., None], dtype, trait)

    def count_down(self, api: str, ref: Any, n: int) -> Any:
        """UpdateMask's counter in closed form: iteration b selects clip(count - b·n, 0, n)."""
        if id(ref) in self.counted:
            raise Unbatchable("a counter updated twice per iteration")
        before = ref.value
        super().count_down(api, ref, n)  # the checks, on the value before the loop
        self.counted[id(ref)] = (ref, before)
        start = np.maximum(before - np.arange(self.rows, dtype=np.int64) * n, 0)
        ref.value = max(before - self.rows * n, 0)
        return np.minimum(start, n)

    def predicate_bits(self, api: str, param: str, mask: MaskReg, index: Any) -> Bools:
        bits, written = self._mask(mask)
        if index is not None:
            bits = bits[..., index]
            written = None if written is None else written[..., index]
        if written is not None and self.check and not written.all():
            raise Unbatchable("a never-written predicate bit")
        return bits

    def fill_predicate(self, dst: MaskReg, raw: Bytes, valid: Bools | None, index: Any) -> None:
        bits = np.unpackbits(raw, axis=-1, bitorder="little").view(np.bool_)
        written = None if valid is None else np.repeat(valid, 8, axis=-1)
        if index is not None:
            bits = bits[..., index]
            written = None if written is None else written[..., index]
        self._set_mask(dst, bits, None if written is None or written.all() else written)

    # --- registers -------------------------------------------------------------------------------
    def lanes(self, api: str, param: str, reg: RegTensor[Any], active: Active | None) -> Any:
        state = self._reg(reg, writing=False)
        span = reg._span
        if state is None:
            data, valid = reg._storage.data[span], reg._storage.valid
            valid = None if valid is None else valid[span]
        else:
            data = state.data[:, span]
            valid = None if state.valid is None else state.valid[:, span]
        size = reg.dtype.itemsize
        if reg.trait.REG_NUM == 2:  # low halves, then high halves → whole elements
            data = halves_to_natural(data, size)
            valid = None if valid is None else halves_to_natural(valid, size)
        if valid is not None and self.check:
            per_lane = valid.reshape(*valid.shape[:-1], -1, size).all(axis=-1)
            if ((~per_lane) if active is None else (active[0] & ~per_lane)).any():
                raise Unbatchable("an active lane reads a never-written register lane")
        lanes = np.ascontiguousarray(data).view(reg.dtype.np_dtype)
        lanes.flags.writeable = False
        return lanes

    def commit(self, dst: RegTensor[Any], values: Any, active: Active, mode: MaskMergeMode) -> None:
        lanes, count = active
        if mode is not ZEROING and count != lanes.size and id(dst._storage) not in self.regs:
            self._reg(dst, writing=False)  # MERGING reads the destination: carried unless written before
        state = self._reg(dst, writing=True, whole=count == lanes.size or mode is ZEROING)
        assert state is not None
        size, full = dst.dtype.itemsize, count == lanes.size
        two = dst.trait.REG_NUM == 2
        if two:  # compute in whole elements, then split into the two registers
            old = np.ascontiguousarray(halves_to_natural(state.data[:, dst._span], size)).view(dst.dtype.np_dtype)
            merged = np.broadcast_to(values, old.shape) if full else np.where(lanes, values, old if mode is not ZEROING else 0)
            state.data[:, dst._span] = natural_to_halves(np.ascontiguousarray(merged).view(np.uint8), size)
        else:
            view = state.data[:, dst._span].view(dst.dtype.np_dtype)
            if full:
                view[...] = values
            else:
                np.copyto(view, values, where=lanes)
                if mode is ZEROING:
                    np.copyto(view, np.zeros((), view.dtype), where=~lanes)  # zero bits (e8m0 has no 0; bool takes no int)
        if state.valid is not None:
            span = state.valid[:, dst._span]
            if full or mode is ZEROING:
                span[...] = True
                state.summarise()
            else:
                per_byte = np.repeat(np.broadcast_to(lanes, (self.rows, lanes.shape[-1])), size, axis=-1)
                span |= natural_to_halves(per_byte, size) if two else per_byte

    def fill(self, dst: RegTensor[Any], raw: Bytes, valid: Bools | None, origin: str) -> None:
        state = self._reg(dst, writing=True, whole=True)
        assert state is not None
        state.data[:, dst._span] = raw
        if valid is None:
            if state.valid is not None:
                state.valid[:, dst._span] = True
                state.summarise()
        else:
            if state.valid is None:
                state.valid = np.ones(state.data.shape, np.bool_)
            state.valid[:, dst._span] = valid

    # --- copies -----------------------------------------------------------------------------------
    def copy_register(self, dst: RegTensor[Any], src: RegTensor[Any]) -> None:
        state = self._reg(src, writing=False)
        if state is None:
            super().copy_register(dst, src)
            return
        valid = None if state.valid is None else state.valid[:, src._span].copy()
        self.fill(dst, state.data[:, src._span].copy(), valid, src._storage.origin)

    def copy_mask(self, dst: MaskReg, src: MaskReg) -> None:
        bits, written = self._mask(src)
        self._set_mask(dst, bits, written)

    # --- the Unified Buffer ----------------------------------------------------------------------
    def check_aligned(self, api: str, param: str, ptr: UbPtr[Any], addr: Any, align: int, why: str) -> None:
        if isinstance(addr, np.ndarray):
            if (addr % align).any():
                raise Unbatchable("a misaligned address in some iteration")
            return
        super().check_aligned(api, param, ptr, addr, align, why)

    def read(self, api: str, param: str, ptr: UbPtr[Any], addr: Any, nbytes: int) -> tuple[Bytes, Bools | None]:
        if not isinstance(addr, np.ndarray):
            raw, valid = super().read(api, param, ptr, addr, nbytes)
            self.accesses.append((id(ptr.ub), np.array([addr]), np.array([addr + nbytes]), None, False))
            return raw, valid
        ub = ptr.ub
        if int(addr.min()) < 0 or int(addr.max()) + nbytes > ub.size:
            raise Unbatchable("a load outside the UB in some iteration")
        st = ub.storage
        raw, valid = _rows(st.data, addr, nbytes), None if st.valid is None else _rows(st.valid, addr, nbytes)
        self.accesses.append((id(ub), addr, addr + nbytes, np.arange(self.rows), False))
        return raw, None if valid is None or valid.all() else valid

    def store(self, api: str, param: str, ptr: UbPtr[Any], chunks: list[tuple[int, Bytes, Bools | None]], unit: int) -> None:
        for addr, raw, active in chunks:  # (a failing check raises before the first chunk is written)
            self._check_store(ptr, addr, raw, active, unit)
        for addr, raw, active in chunks:
            self._store_chunk(ptr, addr, raw, active, unit)

    def _check_store(self, ptr: UbPtr[Any], addr: Any, raw: Bytes, active: Bools | None, unit: int) -> None:
        rows, lanes = self.rows, raw.shape[-1] // unit
        addrs = np.broadcast_to(np.asarray(addr, np.int64), (rows,))
        act = None if active is None else np.broadcast_to(active, (rows, lanes))
        if act is None:
            lo, hi = addrs, addrs + lanes * unit
        else:
            used = np.flatnonzero(act.any(axis=-1))
            lo = addrs[used] + act[used].argmax(axis=-1) * unit
            hi = addrs[used] + (lanes - act[used, ::-1].argmax(axis=-1)) * unit
        if lo.size and (int(lo.min()) < ptr.lo or int(hi.max()) > ptr.hi):
            raise Unbatchable("a store outside its tensor in some iteration")

    def _store_chunk(self, ptr: UbPtr[Any], addr: Any, raw: Bytes, active: Bools | None, unit: int) -> None:
        rows = self.rows
        lanes = raw.shape[-1] // unit
        addrs = np.broadcast_to(np.asarray(addr, np.int64), (rows,))
        act = None if active is None else np.broadcast_to(active, (rows, lanes))
        if act is None:
            used, first, last = np.arange(rows), np.zeros(rows, np.int64), np.full(rows, lanes)
        else:
            any_row = act.any(axis=-1)
            used = np.flatnonzero(any_row)
            first = act[used].argmax(axis=-1)
            last = lanes - act[used, ::-1].argmax(axis=-1)
        lo, hi = addrs[used] + first * unit, addrs[used] + last * unit
        ub = ptr.ub
        st = ub.storage
        values = np.broadcast_to(raw.reshape(*raw.shape[:-1], lanes, unit), (rows, lanes, unit))
        where = None if act is None else np.broadcast_to(act[..., None], values.shape)
        step = _step(addrs)
        if step is not None and step >= lanes * unit:  # rows do not overlap: a strided view of the UB
            at: Any = (int(addrs[0]), values.shape, (step, unit, 1))
            target, flags = _strided(st.data, at), None if st.valid is None else _strided(st.valid, at)
            self.undo.append((st, at, target.copy(), None if flags is None else flags.copy()))
            np.copyto(target, values, where=True if where is None else where)
            if flags is not None:
                np.copyto(flags, True, where=True if where is None else where)
        else:  # rows in order, so a later iteration's byte lands last (the hazard check refuses it anyway)
            idx = addrs[:, None, None] + np.arange(lanes)[:, None] * unit + np.arange(unit)
            at = idx[np.ones(values.shape, np.bool_) if where is None else where]
            self.undo.append((st, at, st.data[at], None if st.valid is None else st.valid[at]))
            st.data[at] = values[np.ones(values.shape, np.bool_) if where is None else where]
            if st.valid is not None:
                st.valid[at] = True
        self.accesses.append((id(ub), lo, hi, used, True))

    def advance(self, ptr: UbPtr[Any], nbytes: int) -> None:
        raise Unbatchable("a post-update pointer (carried across iterations)")

    # --- the end of the loop ---------------------------------------------------------------------
    def check_independent(self) -> None:
        """No UB byte written by one iteration is read or written by another (nor written twice
        in one iteration: refused too, to keep the check simple and exact)."""
        by_ub: dict[int, list[tuple[Any, Any, Any, bool]]] = {}
        for ub, lo, hi, rows, write in self.accesses:
            by_ub.setdefault(ub, []).append((lo, hi, rows, write))
        for accesses in by_ub.values():
            writes = [(lo, hi, rows) for lo, hi, rows, write in accesses if write]
            if not writes:
                continue
            w_lo, w_hi, w_row = (np.concatenate(parts) for parts in zip(*writes, strict=True))
            order = np.argsort(w_lo, kind="stable")
            w_lo, w_hi, w_row = w_lo[order], w_hi[order], w_row[order]
            if (w_lo[1:] < np.maximum.accumulate(w_hi)[:-1]).any():
                raise Unbatchable("UB bytes written twice in the loop (by two iterations, or twice in one)")
            changes = np.concatenate(([0], np.cumsum(w_row[1:] != w_row[:-1])))  # row changes up to each write
            for lo, hi, rows, write in accesses:
                if write:
                    continue
                # the disjoint, sorted writes overlapping each read: indices [s, e)
                s_idx = np.searchsorted(w_hi, lo, side="right")
                e_idx = np.searchsorted(w_lo, hi, side="left")
                hit = e_idx > s_idx
                if not hit.any():
                    continue
                if rows is None:
                    raise Unbatchable("an iteration reads UB bytes another iteration writes")
                # the writes a read overlaps must all be its own iteration's: one row over [s, e)
                s_hit, e_hit = s_idx[hit], e_idx[hit]
                if (changes[e_hit - 1] != changes[s_hit]).any() or (w_row[s_hit] != rows[hit]).any():
                    raise Unbatchable("an iteration reads UB bytes another iteration writes")

    def collapse(self) -> None:
        """Leave every register, mask and pointer as the last iteration left it."""
        for st in {id(u[0]): u[0] for u in self.undo}.values():
            st.summarise()
        for state in self.regs.values():
            st = state.storage
            st.data[...] = state.data[-1]
            st.valid = None if state.valid is None else state.valid[-1].copy()
            st.summarise()
        for m in self.masks.values():
            bits = m.bits if m.bits.ndim == 1 else m.bits[-1]
            written = None if m.written is None else (m.written if m.written.ndim == 1 else m.written[-1])
            m.mask._assign(np.ascontiguousarray(bits), None if written is None else np.ascontiguousarray(written))
        for p in self.pointers:
            p.addr = int(np.asarray(p.addr)[-1])

    def rollback(self) -> None:
        """Undo what the attempt changed outside its own state: UB bytes (last store first) and
        counters."""
        for st, at, data, valid in reversed(self.undo):
            if isinstance(at, tuple):
                _strided(st.data, at)[...] = data
                if valid is not None and st.valid is not None:
                    _strided(st.valid, at)[...] = valid
            else:
                st.data[at] = data
                if valid is not None and st.valid is not None:
                    st.valid[at] = valid
        for ref, before in self.counted.values():
            ref.value = before


def _step(addrs: npt.NDArray[np.int64]) -> int | None:
    """The constant positive step of per-iteration addresses, if they have one."""
    if addrs.size < 2:
        return None
    step = int(addrs[1] - addrs[0])
    if step <= 0 or not (np.diff(addrs) == step).all():
        return None
    return step


def _rows(data: npt.NDArray[Any], addrs: npt.NDArray[np.int64], nbytes: int) -> npt.NDArray[Any]:
    """`nbytes` of `data` from each address: a read-only strided view where the addresses step
    evenly, else a gather."""
    step = _step(addrs)
    if step is not None:
        view = np.lib.stride_tricks.as_strided(data[int(addrs[0]) :], (addrs.size, nbytes), (step, data.itemsize))
        view.flags.writeable = False
        return view
    gathered: npt.NDArray[Any] = data[addrs[:, None] + np.arange(nbytes)]
    return gathered


def _strided(data: npt.NDArray[Any], at: tuple[int, tuple[int, ...], tuple[int, ...]]) -> npt.NDArray[Any]:
    """A writable strided view of `data` from byte `at[0]`, of shape `at[1]` and strides `at[2]`."""
    start, shape, strides = at
    view: npt.NDArray[Any] = np.lib.stride_tricks.as_strided(data[start:], shape, strides)
    return view
