"""The backend seam: the only code that touches register bytes, predicate bits and UB bytes.

Executors (one per op shape) compute lane values with pure lane functions and hand them here:
read the lanes of a register, the lanes a predicate selects, commit a result under ZEROING or
MERGING, write a predicate in the MaskReg layout, read UB bytes, store lanes. Data checks
(alignment, bounds, never-written bytes) live here too, so another backend (a batched one, a
tracing one) can do them its own way; static checks (dtypes, traits, enums) are the op specs'.

Masking happens once, here (Sail's `init_masked_result`): lane functions never see a mask.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Callable
from operator import index
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from regsim._src.model import dtypes as dt
from regsim._src.model.core import Core, current_core
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.memory import JOURNALING, UbPtr, UbRead
from regsim._src.model.registers import (
    LSB,
    MASK_BITS,
    Active,
    AddrReg,
    Bools,
    Bytes,
    MaskReg,
    RegTensor,
    RegTrait,
    _prefix,
    count_nonzero,
    lane_count,
    lanes_to_bits,
    mask_stride,
    natural_to_halves,
    packbits,
    put_halves,
    put_natural,
    putmask,
)
from regsim.errors import AlignmentError, OutOfBoundsError, ParameterError, UninitializedReadError, VfContextError, message

ZEROING = MaskMergeMode.ZEROING
UINT32_MAX = 2**32 - 1
INT32 = (-(2**31), 2**31 - 1)

Lanes = npt.NDArray[Any]


def merge_into(view: Lanes, values: Any, lanes: Bools, mode: MaskMergeMode) -> None:
    """view[i] = lanes[i] ? values[i] : (ZEROING ? 0 : view[i]), in place: the MaskMergeMode rule, written once
    (both backends commit through it). Active lanes first, inactive ones zeroed after, so `values` may be a view
    of `view` itself."""
    np.copyto(view, values, where=lanes)
    if mode is ZEROING:
        np.copyto(view, np.zeros((), view.dtype), where=~lanes)  # zero bits (e8m0 has no 0; bool takes no int)


def merged(values: Any, old: Lanes, lanes: Bools, mode: MaskMergeMode) -> Lanes:
    """`merge_into` as a new array (for lanes that are not one view: a two-register tensor's elements)."""
    out = np.array(np.broadcast_to(old, np.broadcast_shapes(np.shape(old), np.shape(values), np.shape(lanes))))
    merge_into(out, values, lanes, mode)
    return out


@functools.cache
@functools.cache
def group_pattern(dtype: type[dt.DType], trait: RegTrait, fill: str) -> bytes:
    """The bits a mask-producing op sets in an active lane's group of `sizeof(T)` bits.

    "lsb": only the lowest bit (the Add page: "每4bit的最低位写1"). "group": the bits the
    hardware's `pset` of that width sets; a one-register b64 or complex type's masks are made at
    half width and then `punpack`ed, which doubles each bit into an even bit and a zero odd bit.
    """
    stride = dtype.itemsize // trait.REG_NUM
    pattern = np.zeros(stride, np.bool_)
    if fill == "lsb":
        pattern[0] = True
    elif stride > pset_width(dtype):
        pattern[::2] = True
    else:
        pattern[:] = True
    return pattern.tobytes()


def pset_width(dtype: type[dt.DType]) -> int:
    """Bytes per lane of the `pset` instruction that makes masks for `dtype` (b8, b16 or b32)."""
    return 2 if dtype is dt.complex32 else min(dtype.itemsize, 4)


class Backend(Protocol):
    """What an executor may ask of the backend its VF runs on (the only code touching register,
    predicate and UB bytes): `NumpyBackend` one call at a time, `BatchedBackend` (regsim._src.vf.batched)
    every iteration of a loop at once, `TracingBackend` in order while noting what each call touches.
    Each method's contract is `NumpyBackend`'s docstring."""

    core: Core  #: the core the VF runs on (its special registers)
    mask_fill: str  #: `Config.mask_fill`
    check: bool  #: `Config.check_uninitialized`
    rows: int  #: iterations run at once (a batched loop's); 0: one call at a time

    def predicate(self, api: str, param: str, mask: MaskReg, stride: int) -> Active: ...

    def write_predicate(self, dst: MaskReg, lanes: Bools, dtype: type[dt.DType], trait: RegTrait) -> None: ...

    def predicate_bits(self, api: str, param: str, mask: MaskReg, index: Any) -> Bools: ...

    def predicate_bytes(self, api: str, param: str, mask: MaskReg, index: Any) -> Bytes: ...

    def fill_predicate(self, dst: MaskReg, raw: Bytes, valid: Bools | None, index: Any) -> None: ...

    def write_prefix(self, dst: MaskReg, count: int, dtype: type[dt.DType], trait: RegTrait) -> None: ...

    def scan(self, plan: Any, prepared: Any, values: Any, active: Active) -> bool: ...

    def new_ref(self, ref: Any) -> None: ...

    def read_ref(self, ref: Any) -> Any: ...

    def write_ref(self, ref: Any, value: Any) -> None: ...

    def count_down(self, api: str, ref: Any, n: int) -> Any: ...

    def scalar(self, api: str, param: str, value: Any, dtype: type[dt.DType]) -> Any: ...

    def lanes(self, api: str, param: str, reg: RegTensor[Any], active: Active | None) -> Lanes: ...

    def commit(self, dst: RegTensor[Any], values: Lanes, active: Active, mode: MaskMergeMode) -> None: ...

    def fill_elements(self, dst: RegTensor[Any], raw: Bytes, valid: Bools | None, origin: object) -> None: ...

    def fill(self, dst: RegTensor[Any], raw: Bytes, valid: Bools | None, origin: object) -> None: ...

    def check_aligned(self, api: str, param: str, ptr: UbPtr[Any], addr: int, align: int, why: str) -> None: ...

    def read(self, api: str, param: str, ptr: UbPtr[Any], addr: int, nbytes: int) -> tuple[Bytes, Bools | None]: ...

    def store(self, api: str, param: str, ptr: UbPtr[Any], chunks: list[tuple[int, Bytes, Bools | None]], unit: int) -> None: ...

    def new_pointer(self, ptr: UbPtr[Any], prog: tuple[int, int] | None) -> None: ...
    def prog(self, addr: Any) -> tuple[int, int] | None: ...

    def post_address(self, ptr: UbPtr[Any]) -> Any: ...

    def addr_reg(self, dtype: type[dt.DType], offset: Any) -> AddrReg: ...

    def advance(self, ptr: UbPtr[Any], nbytes: int) -> None: ...

    def check_span(self, api: str, param: str, ptr: UbPtr[Any], addr: int, nbytes: int) -> None: ...

    def gather(
        self, api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], unit: int, active: Bools
    ) -> tuple[Bytes, Bools | None]: ...

    def scatter(self, api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], raw: Bytes, active: Bools) -> None: ...

    def write_bits(self, dst: MaskReg, bits: Bools) -> None: ...

    def commit_all(self, dst: RegTensor[Any], values: Lanes) -> None: ...

    def commit_leading(self, dst: RegTensor[Any], lead: Lanes) -> None: ...

    def ar_add(self, nbytes: int) -> None: ...

    def ar_clear(self) -> None: ...

    def ar_take(self, api: str) -> tuple[int, int]: ...

    def copy_register(self, dst: RegTensor[Any], src: RegTensor[Any]) -> None: ...

    def copy_mask(self, dst: MaskReg, src: MaskReg) -> None: ...


class NumpyBackend:
    """The sequential backend: one call at a time on the registers' and the UB's numpy bytes."""

    rows = 0  #: iterations run at once (a batched loop's backend); 0: one call at a time

    def __init__(self, check_uninitialized: bool, mask_fill: str, core: Core | None = None) -> None:
        self.check = check_uninitialized
        self.mask_fill = mask_fill
        #: whether `advance` does nothing but move the pointer in place (the in-order fast paths then move it themselves):
        #: not on a batched loop's backend, nor while a loop records the moves of its iteration 0 (`LoopRun._peel`) (an
        #: instance attribute: read faster than a class one)
        self.moves_in_place = True
        #: the core's special registers (AR): `core`, else the current one's (a VF started with a UB pointer argument
        #: runs on that UB's core, a `VEC_SCOPE` block on the current one)
        self.core: Core = current_core() if core is None else core
        if JOURNALING.get():  # made while a write journal is open: every store records in its UB's journal first
            self.store, self.scatter = _journaled_store(self.store), _journaled_scatter(self.scatter)  # type: ignore[method-assign]

    # --- predicates ------------------------------------------------------------------------------
    def predicate(self, api: str, param: str, mask: MaskReg, stride: int) -> Active:
        """The lanes `mask` selects at `stride` (bit `i * stride`); a never-written bit raises."""
        written = mask._written
        if written is not None and self.check and not written[::stride].all():
            lane = int(np.argmin(written[::stride]))
            raise UninitializedReadError(
                f"{api}: {param} is a MaskReg whose bit for lane {lane} (bit {lane * stride}) was never written"
            )
        return mask._active(stride)

    def write_predicate(self, dst: MaskReg, lanes: Bools, dtype: type[dt.DType], trait: RegTrait) -> None:
        """dst = the predicate with `lanes` set, in the MaskReg layout of `dtype`."""
        dst._assign(lanes_to_bits(lanes, group_pattern(dtype, trait, self.mask_fill)))

    def predicate_bits(self, api: str, param: str, mask: MaskReg, index: Any) -> Bools:
        """The bits of `mask` a mask store writes (`index`: which; None: all 256)."""
        bits, written = mask._bits, mask._written
        if index is not None:
            bits = bits[index]
            written = None if written is None else written[index]
        if written is not None and self.check and not written.all():
            raise UninitializedReadError(f"{api}: {param} is a MaskReg with bits that were never written")
        return bits

    def predicate_bytes(self, api: str, param: str, mask: MaskReg, index: Any) -> Bytes:
        """`predicate_bits` packed into bytes as a MaskReg store writes them (bit 0 of byte 0 first)."""
        return np.packbits(self.predicate_bits(api, param, mask, index), axis=-1, bitorder="little")

    def fill_predicate(self, dst: MaskReg, raw: Bytes, valid: Bools | None, index: Any) -> None:
        """dst = the bits of `raw` (bit 0 of byte 0 first), mapped by `index` (None: as they are)."""
        bits = np.unpackbits(raw, bitorder="little").view(np.bool_)
        written = None if valid is None else np.repeat(valid, 8)
        if index is not None:
            bits = bits[index]
            written = None if written is None else written[index]
        dst._assign(bits, None if written is None or written.all() else written)

    def write_prefix(self, dst: MaskReg, count: int, dtype: type[dt.DType], trait: RegTrait) -> None:
        """dst = the predicate selecting lanes [0, count) of `dtype` (cached)."""
        dst._assign_prefix(count, group_pattern(dtype, trait, self.mask_fill))

    # --- loop-carried operands ----------------------------------------------------------------------
    def scan(self, plan: Any, prepared: Any, values: Any, active: Active) -> bool:
        """Run an elementwise op whose operand a batched loop carries across iterations, as a
        scan over the iterations; False where there is none (always, here: no loop axis)."""
        return False

    # --- counters (rs.Ref) -------------------------------------------------------------------------
    def new_ref(self, ref: Any) -> None:
        """A `rs.Ref` was made inside the VF (nothing to note here: one iteration at a time)."""

    def read_ref(self, ref: Any) -> Any:
        """`ref.value` read inside the VF."""
        return ref._value

    def write_ref(self, ref: Any, value: Any) -> None:
        """`ref.value = value` inside the VF."""
        ref._value = value

    def count_down(self, api: str, ref: Any, n: int) -> Any:
        """UpdateMask's `uint32_t&` counter: the lanes this call selects, min(count, n); the
        counter drops by them (to 0 below n)."""
        count = ref._value
        if type(count) is not int or not 0 <= count <= UINT32_MAX:
            if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 0 <= count <= UINT32_MAX:
                raise ParameterError(message(api, "scalar_value.value", repr(count), f"a uint32_t: an int in [0, {UINT32_MAX}]"))
            count = int(count)
        ref._value = count - n if count > n else 0
        return count if count < n else n

    # --- scalars -----------------------------------------------------------------------------------
    def scalar(self, api: str, param: str, value: Any, dtype: type[dt.DType]) -> Any:
        """A scalar operand as a numpy scalar of `dtype`: integers must fit the type (C++ would
        wrap silently, which is never what a kernel meant); floats round to the type once."""
        made, lo, hi, rounds, seen = _scalar_rule(dtype)
        kind = type(value)
        if kind is made:  # (already a numpy scalar of the type)
            return value
        if (kind is int and lo <= value <= hi) or (kind is float and rounds):  # (the common cases, converted at once)
            return made(value)
        # any other number (a bfloat16 operand, a numpy scalar of another type): converted once per value and type
        # (keyed by both: 1 and 1.0 may cast apart), but a zero (-0.0 == 0.0) or NaN (unequal to itself) each time
        key = (kind, value) if isinstance(value, _NUMBERS) and value and value == value else None
        made_before = seen.get(key) if key is not None else None
        if made_before is not None:
            return made_before
        converted = self._convert(api, param, value, dtype)
        if key is not None and len(seen) < _SEEN_SCALARS:
            seen[key] = converted
        return converted

    @staticmethod
    def _convert(api: str, param: str, value: Any, dtype: type[dt.DType]) -> Any:
        """`scalar`'s conversion of the values it does not convert at once: checked, then cast."""
        target = dtype.np_dtype
        if np.issubdtype(target, np.integer):
            if isinstance(value, (float, complex, np.floating, np.complexfloating)) or not (
                np.iinfo(target).min <= int(value) <= np.iinfo(target).max
            ):
                info = np.iinfo(target)
                raise ParameterError(message(api, param, repr(value), f"an int in [{info.min}, {info.max}] ({dtype.name})"))
            return target.type(int(value))
        if isinstance(value, (complex, np.complexfloating)) and target.kind != "c":  # (complex32's kind is "c" too)
            raise ParameterError(message(api, param, repr(value), f"a real number ({dtype.name} has no imaginary part)"))
        return np.asarray(value).astype(target)[()]

    # --- registers -------------------------------------------------------------------------------
    def lanes(self, api: str, param: str, reg: RegTensor[Any], active: Active | None) -> Lanes:
        """The lanes of a source register (read-only); an active lane never written raises."""
        if self.check and reg._storage.valid is not None:
            valid = reg._lane_valid()
            if valid is not None:
                bad = ~valid if active is None else active[0] & ~valid
                if bad.any():
                    lane = int(np.flatnonzero(bad)[0])
                    origin = reg._storage.origin
                    raise UninitializedReadError(
                        f"{api}: {param} lane {lane} is read by an active lane but was never written"
                        + (f" (its bytes came from {_origin(origin, reg, bad)})" if origin else "")
                    )
        return reg._rview if reg._rview is not None else reg._get()

    def commit(self, dst: RegTensor[Any], values: Lanes, active: Active, mode: MaskMergeMode) -> None:
        """dst[i] = active[i] ? values[i] : (ZEROING ? 0 : dst[i]) — the one place masking happens.

        Active lanes are written first and inactive lanes zeroed after, so a result that is a
        view of dst itself is never destroyed.
        """
        lanes, count = active
        full = count == lanes.size
        view = dst._view
        if view is not None:
            if full:
                view[...] = values
            else:
                merge_into(view, values, lanes, mode)
        elif full:
            dst._put(values)
        else:
            dst._put(merged(values, dst._get(), lanes, mode))
        if dst._storage.valid is not None:
            dst._mark_lanes(None if full or mode is ZEROING else lanes)

    def fill_elements(self, dst: RegTensor[Any], raw: Bytes, valid: Bools | None, origin: object) -> None:
        """`fill` of a two-register tensor from whole elements in UB order (low halves go to the
        first register, high halves to the second)."""
        size = dst.dtype.itemsize
        self.fill(dst, natural_to_halves(raw, size), None if valid is None else natural_to_halves(valid, size), origin)

    def fill(self, dst: RegTensor[Any], raw: Bytes, valid: Bools | None, origin: object) -> None:
        """dst's bytes = raw (already in register order), with their written flags; `origin`
        names where they came from (its `str()`, built only then), for the message of a later read of
        never-written bytes."""
        dst._raw[...] = raw
        st = dst._storage
        if valid is None:
            if st.valid is not None:
                st.valid[dst._span] = True
                st.summarise()
        else:
            if st.valid is None:
                st.valid = np.ones(st.data.size, np.bool_)
            st.valid[dst._span] = valid
            st.origin = origin

    # --- the Unified Buffer ----------------------------------------------------------------------
    def check_aligned(self, api: str, param: str, ptr: UbPtr[Any], addr: int, align: int, why: str) -> None:
        if addr % align:
            raise AlignmentError(
                message(api, param, f"UB byte {addr}{_where(ptr, addr)}", f"a multiple of {align} bytes ({why})")
            )

    def read(self, api: str, param: str, ptr: UbPtr[Any], addr: int, nbytes: int) -> tuple[Bytes, Bools | None]:
        """`nbytes` of UB from `addr` and their written flags (None: all written).

        Loads read whole registers unpredicated, so they are checked against the UB, not the
        tensor: reading past a LocalTensor's end is legal, as the library's tail loops do.
        """
        ub = ptr.ub
        end = addr + nbytes
        if addr < 0 or end > ub.size:
            raise OutOfBoundsError(
                message(api, param, f"UB bytes [{addr}, {end}){_where(ptr, addr)}", f"within the UB [0, {ub.size})")
            )
        if ub.observer is not None:
            ub.observer("read", api, addr, end, within=(ptr.lo, ptr.hi))
        st = ub.storage
        return st.data[addr:end], st.flags(addr, end)

    def store(self, api: str, param: str, ptr: UbPtr[Any], chunks: list[tuple[int, Bytes, Bools | None]], unit: int) -> None:
        """Write each chunk's bytes at its address, `unit` bytes per lane, the lanes where its
        `active` says (None: all). Every chunk is checked before any is written.

        Each active lane must lie inside the pointer's LocalTensor; inactive lanes leave their
        UB bytes untouched and are not checked (a fully masked store writes nothing).
        """
        ub = ptr.ub
        st = ub.storage
        if len(chunks) == 1 and ub.observer is None:  # the common case: one register, every lane active, inside its tensor
            addr, raw, active = chunks[0]
            end = addr + raw.size
            if active is None and ptr.lo <= addr and end <= ptr.hi:
                st.data[addr:end] = raw
                if st.partial():
                    n = raw.size // unit if unit > 1 else 0
                    ub.writes.note(api, addr, end, n, n)
                    st.mark_stored(addr, end)
                return
        writes = [self._store_range(api, param, ptr, addr, raw, active, unit) for addr, raw, active in chunks]
        if st.partial():  # noted once: each chunk's span from its first to its last active lane, all their lanes
            spans = [_active_span(addr, raw.size // unit, a, unit) for addr, raw, a in writes]
            kept = [span for span in spans if span[2]]
            if kept:
                total = sum(raw.size for _, raw, _ in chunks) // unit if unit > 1 else 0  # (bytes: no mask said)
                lo, hi, on = np.array(kept).T
                ub.writes.note(api, lo, hi, int(on.sum()), total)
        if ub.observer is not None:
            for addr, raw, active in writes:
                if active is None or active.any():
                    lanes = np.flatnonzero(active) if active is not None else np.arange(raw.size // unit)
                    ub.observer("write", api, addr + lanes * unit, addr + (lanes + 1) * unit)
        for addr, raw, active in writes:
            end = addr + raw.size
            if active is None:
                st.data[addr:end] = raw
                st.mark_stored(addr, end)
            elif active.size:
                np.copyto(st.data[addr:end].reshape(-1, unit), raw.reshape(-1, unit), where=active[:, None])
                st.mark_where(addr, np.repeat(active, unit))

    def _store_range(
        self, api: str, param: str, ptr: UbPtr[Any], addr: int, raw: Bytes, active: Bools | None, unit: int
    ) -> tuple[int, Bytes, Bools | None]:
        """Check a store's active lanes against the tensor; trim it to its active span."""
        end = addr + raw.size
        if ptr.lo <= addr and end <= ptr.hi:
            return addr, raw, active
        lanes = np.arange(raw.size // unit) if active is None else np.flatnonzero(active)
        if lanes.size == 0:
            return addr, raw[:0], active[:0]  # type: ignore[index]
        first, last = int(lanes[0]), int(lanes[-1]) + 1
        lo, hi = addr + first * unit, addr + last * unit
        if lo < ptr.lo or hi > ptr.hi:
            self._out_of_tensor(api, param, ptr, addr, unit, lanes)
        return lo, raw[first * unit : last * unit], None if active is None else active[first:last]

    def new_pointer(self, ptr: UbPtr[Any], prog: tuple[int, int] | None) -> None:
        """A pointer with one address per iteration was made (a batched loop's: nothing to do here)."""

    def prog(self, addr: Any) -> tuple[int, int] | None:
        """(start, step) of per-iteration addresses that are an arithmetic progression (none here)."""
        return None

    def post_address(self, ptr: UbPtr[Any]) -> Any:
        """The address a post-update access of `ptr` uses (before the pointer moves)."""
        return ptr.addr

    def addr_reg(self, dtype: type[dt.DType], offset: Any) -> AddrReg:
        """CreateAddrReg's result (a batched loop's has one offset per iteration)."""
        return AddrReg(dtype, offset)

    def advance(self, ptr: UbPtr[Any], nbytes: int) -> None:
        """The post-update of a load or store: the pointer moves in place (C++ `T*&`)."""
        ptr.addr += nbytes

    def check_span(self, api: str, param: str, ptr: UbPtr[Any], addr: int, nbytes: int) -> None:
        """An unaligned store's bytes `[addr, addr + nbytes)` must all lie in the pointer's tensor."""
        ptr.check_tensor(api, param, addr, nbytes)

    # --- gathers and scatters (UB Gather / GatherB / Scatter) ----------------------------------
    def gather(
        self, api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], unit: int, active: Bools
    ) -> tuple[Bytes, Bools | None]:
        """`unit` bytes at each active lane's address (lanes x unit; inactive lanes read 0, unchecked)
        and their written flags (None: all written). Active lanes are checked against the tensor."""
        _gather_scatter_bounds(api, param, ptr, addrs, unit, active)
        if ptr.ub.observer is not None:
            ptr.ub.observer("read", api, addrs[active], addrs[active] + unit)
        return gathered(ptr.ub.storage, addrs, unit, active)

    def scatter(self, api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], raw: Bytes, active: Bools) -> None:
        """Write raw[lane] (lanes x unit bytes) at each active lane's address, checked first."""
        unit = raw.shape[1]
        _gather_scatter_bounds(api, param, ptr, addrs, unit, active)
        if ptr.ub.observer is not None:
            ptr.ub.observer("write", api, addrs[active], addrs[active] + unit)
        st = ptr.ub.storage
        where = addrs[active][:, None] + np.arange(unit)
        st.data[where] = raw[active]
        if st.partial():
            on = int(np.count_nonzero(active))
            ptr.ub.writes.note(api, addrs[active], addrs[active] + unit, on, active.size)
            st.mark_at(where)

    def _out_of_tensor(self, api: str, param: str, ptr: UbPtr[Any], addr: int, unit: int, lanes: npt.NDArray[Any]) -> None:
        starts = addr + lanes * unit
        bad = lanes[(starts < ptr.lo) | (starts + unit > ptr.hi)]
        first, last = int(bad[0]), int(bad[-1])
        lo, hi = addr + first * unit, addr + (last + 1) * unit
        raise OutOfBoundsError(
            message(
                api,
                param,
                f"lanes {first}..{last} at UB bytes [{lo}, {hi}){_where(ptr, lo)}",
                f"active lanes within its LocalTensor, UB bytes [{ptr.lo}, {ptr.hi})",
            )
        )

    # --- logic, compare and select ------------------------------------------------------------------
    def write_bits(self, dst: MaskReg, bits: Bools) -> None:
        """dst = the 256 predicate bits `bits` as they are (MaskReg logic, Interleave, Pack, Move,
        MoveMask, MaskGenWithRegTensor)."""
        dst._assign(np.array(bits, np.bool_))

    # --- whole-register writes, MaskReg bits and special registers (rearrange, reduce, sync) ----------
    def commit_all(self, dst: RegTensor[Any], values: Lanes) -> None:
        """dst = values, every lane (ops without a destination predicate: Arange, Gather, Reduce, ...)."""
        self.commit(dst, values, _every_lane(lane_count(dst.dtype, dst.trait)), ZEROING)

    def commit_leading(self, dst: RegTensor[Any], lead: Lanes) -> None:
        """dst = `lead`'s lanes (..., k), the others +0: every lane (a result zero past its first lanes: Reduce's)."""
        self.commit_all(dst, padded(lead, lane_count(dst.dtype, dst.trait)))

    def ar_add(self, nbytes: int) -> None:
        """AR += nbytes (Squeeze with GatherMaskMode STORE_REG); `last` keeps this call's count."""
        self.core.ar += nbytes
        self.core.last = nbytes
        self.core.unstored = True

    def ar_clear(self) -> None:
        """ClearSpr<AR>: AR = 0."""
        self.core.ar = 0
        self.core.last = 0
        self.core.unstored = False

    def ar_take(self, api: str) -> tuple[int, int]:
        """For the AR-form StoreUnAlign: (AR before the latest Squeeze, that Squeeze's bytes); a
        store without a STORE_REG Squeeze since the last one (or since ClearSpr) is an error."""
        if not self.core.unstored:
            raise VfContextError(
                message(
                    api,
                    "AR",
                    "no Squeeze<T, GatherMaskMode::STORE_REG> since the last AR-form StoreUnAlign or ClearSpr",
                    "Squeeze (STORE_REG) and StoreUnAlign called alternately (the Squeeze page)",
                )
            )
        self.core.unstored = False
        return self.core.ar - self.core.last, self.core.last

    # --- copies: a C++ register copy (`RegTensor<T> b = a;`, `MaskReg m = full;`, `b = a;`) -------------
    def copy_register(self, dst: RegTensor[Any], src: RegTensor[Any]) -> None:
        """dst's bytes and written flags = src's (dst a register of src's type, not sharing its storage)."""
        st = src._storage
        self.fill(dst, src._raw.copy(), None if st.valid is None else st.valid[src._span].copy(), st.origin)

    def copy_mask(self, dst: MaskReg, src: MaskReg) -> None:
        """dst's bits and written flags = src's (bits are never written in place, so they may be shared)."""
        dst._assign(src._bits, src._written)


#: the numbers whose values `NumpyBackend.scalar` remembers converted (hashable, equal by value)
_NUMBERS: Final = (int, float, np.integer, np.floating)
_SEEN_SCALARS: Final = 1024  #: at most this many values remembered per element type


@functools.cache
def _scalar_rule(dtype: type[dt.DType]) -> tuple[type, int | float, int | float, bool, dict[Any, Any]]:
    """How `NumpyBackend.scalar` converts the common operands to `dtype` at once: (its numpy scalar type, the range
    of Python ints it converts exactly, whether a Python float rounds to it by that type's constructor as by a cast,
    the other values converted so far by (type, value)). An int type takes its range; half, float32 and float64 take
    floats and the ints of at most 53 bits (exact in a double, so one rounding either way); every other value goes
    through the checks and the cast (once per value)."""
    target = dtype.np_dtype
    if np.issubdtype(target, np.integer):
        info = np.iinfo(target)
        return target.type, int(info.min), int(info.max), False, {}
    if target in (np.float16, np.float32, np.float64):
        return target.type, -(2**53), 2**53, True, {}
    return target.type, 1, 0, False, {}  # (an empty range: ints go the checked way)


def padded(lead: Lanes, n: int, out: Lanes | None = None) -> Lanes:
    """`lead`'s lanes (..., k), then +0 lanes (all bits zero) up to n lanes (into `out` when given)."""
    k = lead.shape[-1]
    if out is None:
        out = np.zeros((*lead.shape[:-1], n), lead.dtype)
    else:
        out[..., k:] = 0
    out[..., :k] = lead
    return out


@functools.cache
def _every_lane(n: int) -> Active:
    lanes = np.ones(n, np.bool_)
    lanes.flags.writeable = False
    return lanes, n


def _active_span(addr: int, lanes: int, active: Bools | None, unit: int) -> tuple[int, int, int]:
    """The UB bytes from the first to the last active lane of a store of `lanes` lanes at `addr`, and how many lanes
    are active (`active` None: all)."""
    if active is None:
        return addr, addr + lanes * unit, lanes
    on = np.flatnonzero(active)
    return (addr + int(on[0]) * unit, addr + (int(on[-1]) + 1) * unit, on.size) if on.size else (addr, addr, 0)


def _origin(origin: object, reg: RegTensor[Any], bad: Bools) -> str:
    """Where the never-written bytes of `reg`'s lanes `bad` came from, as a message says it: a load (`UbRead`) says
    which of the bytes those lanes read were never written and who wrote their neighbours; a plain text names the call
    that read them."""
    if isinstance(origin, UbRead):
        lanes, size = np.flatnonzero(bad), reg.dtype.itemsize
        return origin.describe((int(lanes[0]) * size, (int(lanes[-1]) + 1) * size) if reg._view is not None else None)
    return f"{origin}, which were never written" if isinstance(origin, str) else str(origin)


def _where(ptr: UbPtr[Any], addr: int) -> str:
    """Where `addr` is in the pointer's tensor, in elements: ' (element 1000 of the tensor at ...)'."""
    size = ptr.dtype.itemsize
    offset = (addr - ptr.lo) / size
    shown = int(offset) if offset == int(offset) else round(offset, 2)
    return f", element {shown} of the {ptr.dtype.name} tensor at UB byte {ptr.lo} ({(ptr.hi - ptr.lo) // size} elements)"


#: the unsigned type of each width a gather reads whole elements of (see `gathered`), and its value of written flags
_WORDS: Final = {w: (np.dtype(f"u{w}"), int.from_bytes(b"\x01" * w, "little")) for w in (2, 4, 8)}


def gathered(st: Any, addrs: npt.NDArray[Any], unit: int, active: Bools) -> tuple[Bytes, Bools | None]:
    """`unit` bytes of the storage at each active lane's address (lanes x unit, behind any leading axes; inactive
    lanes read 0) and their written flags (None: all written; an inactive lane's count as written). Addresses that
    are all multiples of `unit` (the common case) are read as one gather of `unit`-byte words."""
    every = bool(active.all())
    at = addrs if every else np.where(active, addrs, 0)
    word, ones = _WORDS.get(unit, (None, 0))
    if word is not None and at.shape == active.shape and st.data.size % unit == 0 and not (at & (unit - 1)).any():
        index = np.ascontiguousarray(at >> (unit.bit_length() - 1))  # (at // unit; C order: the words are viewed as bytes)
        words = st.data.view(word)[index]
        raw = (words if every else np.where(active, words, 0).astype(word, copy=False)).view(np.uint8).reshape(*at.shape, unit)
        if not st.partial() or index.size == 0:
            return raw, None
        lo, hi = int(index.min()), int(index.max()) + 1  # (the words read: their flags, None if all written)
        flags = st.flags(lo * unit, hi * unit)
        if flags is None:
            return raw, None
        written = flags.view(word)[index - lo] == ones
        if written.all() if every else (written | ~active).all():
            return raw, None
    where = at[..., None] + np.arange(unit)
    raw = np.where(active[..., None], st.data[where], np.uint8(0))
    if not st.partial():
        return raw, None
    valid = st.flags_at(where) | ~active[..., None]
    return raw, None if valid.all() else valid


def _gather_scatter_bounds(api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], unit: int, active: Bools) -> None:
    """Every active lane's `unit` bytes at addrs[lane] must lie inside the pointer's LocalTensor."""
    bad = active & ((addrs < ptr.lo) | (addrs + unit > ptr.hi))
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        lo = int(addrs[lane])
        raise OutOfBoundsError(
            message(
                api,
                param,
                f"lane {lane} at UB bytes [{lo}, {lo + unit}){_where(ptr, lo)}",
                f"active lanes within its LocalTensor, UB bytes [{ptr.lo}, {ptr.hi})",
            )
        )


# --- in-order calls, one closure per plan (`Executor.specialise`) -----------------------------------
# Each factory below makes the closure of one op shape's common case on the sequential backend:
# clean operands (every byte written, no per-byte flags to keep), an aligned address inside its
# tensor, a full predicate where that matters. Anything else goes to `generic` (bind, then the
# executor's `run` on the backend methods above) before anything is written, so every check,
# message and partial state stays theirs; the closures only skip what the common case never needs.
Call = Callable[[Any, tuple[Any, ...], dict[str, Any]], Any]
_FILLS = ("lsb", "group")
# _PARTIAL: a UB's storage (a `RangeStorage`) keeps flags, `st.partial()`, tested inline by the loads and stores below
# (its two fields, without the method call: a UB every byte of which was written, the common case, answers at once)


def in_order_prefix(n: int, dtype: type[dt.DType], trait: RegTrait, generic: Call) -> Call:
    """UpdateMask: mask = lanes [0, min(count, n)) of `dtype`; count -= that (see `count_down`)."""
    patterns = {fill: group_pattern(dtype, trait, fill) for fill in _FILLS}
    stride = mask_stride(dtype, trait)
    #: per mask_fill and lane count: the bits and the lanes cache (shared: masks of equal bits
    #: select equal lanes, and a MaskReg's bits and cache are replaced, never changed in place)
    made: dict[str, list[tuple[Bools, dict[int, Active]] | None]] = {fill: [None] * (n + 1) for fill in _FILLS}
    new = object.__new__

    def call(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        ref = args[1]
        count = ref._value
        if type(count) is not int:
            if not isinstance(count, np.integer):
                return generic(ctx, args, kwargs)
            count = int(count)  # (as `count_down` takes it)
        if not 0 <= count <= UINT32_MAX:
            return generic(ctx, args, kwargs)
        k = count if count < n else n
        ref._value = count - k
        fill = ctx.backend.mask_fill
        entry = made[fill][k]
        if entry is None:
            bits, active = _prefix(k, patterns[fill])
            entry = made[fill][k] = (bits, {stride: active})
        dst = new(MaskReg)
        dst._made, dst._lanes = entry
        dst._written = None
        return dst

    return call


def _span(addr: Any, nbytes: int) -> tuple[int, int]:
    """The UB bytes a write of `nbytes` at `addr` (an int, or one per iteration of a batched loop) may reach."""
    if type(addr) is int:
        return addr, addr + nbytes
    addrs = np.asarray(addr)
    return int(addrs.min()), int(addrs.max()) + nbytes


def _record(ptr: UbPtr[Any], addr: Any, nbytes: int) -> None:
    """Before a write through `ptr` of `nbytes` at `addr`: its bytes (within the pointer's tensor, which no write
    leaves) saved in the UB's journal, if one is open."""
    journal = ptr.ub.journal
    if journal is not None:
        lo, hi = _span(addr, nbytes)
        journal.record(max(lo, ptr.lo), min(hi, ptr.hi), ptr.hi)


def _journaled_store(store: Callable[..., None]) -> Callable[..., None]:
    """A backend's `store` that records the bytes of each chunk in the journal first (`_record`)."""

    def journaled(api: str, param: str, ptr: UbPtr[Any], chunks: list[tuple[Any, Bytes, Bools | None]], unit: int) -> None:
        for addr, raw, _ in chunks:
            _record(ptr, addr, raw.shape[-1])
        store(api, param, ptr, chunks, unit)

    return journaled


def _journaled_scatter(scatter: Callable[..., None]) -> Callable[..., None]:
    """A backend's `scatter` that records the span of its lanes' addresses in the journal first (`_record`)."""

    def journaled(api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], raw: Bytes, active: Bools) -> None:
        _record(ptr, addrs, raw.shape[-1])
        scatter(api, param, ptr, addrs, raw, active)

    return journaled


def in_order_load(nbytes: int, align: int, halves: int, post: int | None, unit: int, generic: Call) -> Call:
    """LoadAlign, identity distribution: dst's bytes = `nbytes` of UB at ptr; with `halves` (the
    itemsize of a two-register tensor; 0: one register) in the RegTraitNumTwo order. `post`: the
    index of a post-update stride (in units of `unit` bytes): the pointer then moves by it."""
    low, high = INT32

    def call(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if post is not None:  # (a stride to check only where the form has one)
            step = args[post]
            if type(step) is not int or not low <= step <= high:
                return generic(ctx, args, kwargs)
        dst, ptr = args[0], args[1]
        addr = ptr.addr
        end = addr + nbytes
        ub = ptr.ub
        st = ub.storage
        if (
            addr % align
            or addr < 0
            or end > ub.size
            or ub.observer is not None
            or not (dst._whole or dst._storage.valid is None)
            # (_PARTIAL: kept as ranges, `RangeStorage.all_written`'s test inlined, no call; as per-byte flags, asked)
            or ((starts := st.starts) is not None and ((k := bisect_right(starts, addr) - 1) < 0 or st.ends[k] < end))
            or (st._flags is not None and not st.all_written(addr, end))
        ):
            return generic(ctx, args, kwargs)
        if halves:
            put_halves(dst._raw, st.data[addr:end], halves)
        else:
            dst._bytes[:] = st.buffer[addr:end]
        dst._storage.valid = None  # (every byte of it written now, as `fill` notes)
        if post is not None:  # (through the backend, as `run`, where a loop learning its strides listens there)
            be = ctx.backend
            if be.moves_in_place:
                ptr.addr += step * unit  # (`advance`, inlined: no call)
            else:
                be.advance(ptr, step * unit)

    return call


def in_order_store(
    api: str,
    nbytes: int,
    align: int,
    stride: int,
    halves: int,
    at: tuple[int, int, int],
    post: int | None,
    unit: int,
    generic: Call,
) -> Call:
    """StoreAlign, identity distribution: UB at ptr = src's bytes; with `halves` (a two-register tensor's itemsize;
    no post-update, so its second register follows the first) its whole elements. Under a partial predicate (one
    register, into a UB every byte of which was written: no flags to keep) only the active lanes' bytes. `at`: the
    indices of the pointer, the source and the predicate; `post`: of a post-update stride (in units of `unit` bytes;
    one register only): the pointer then moves by it."""
    lanes = MASK_BITS // stride
    low, high = INT32
    i_ptr, i_src, i_mask = at
    word = np.dtype(f"u{stride}")  #: a lane's bytes as one unsigned integer (moved bit for bit)

    def call(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if post is not None:  # (a stride to check only where the form has one)
            step = args[post]
            if type(step) is not int or not low <= step <= high:
                return generic(ctx, args, kwargs)
        ptr, src, mask = args[i_ptr], args[i_src], args[i_mask]
        addr = ptr.addr
        end = addr + nbytes
        ub = ptr.ub
        st = ub.storage
        if (
            addr % align
            or addr < ptr.lo
            or end > ptr.hi
            or ub.observer is not None
            or mask._written is not None
            or src._storage.valid is not None
        ):
            return generic(ctx, args, kwargs)
        active = mask._lanes.get(stride) or mask._active(stride)
        partial = active[1] != lanes
        flagged = st.starts is not None or st._flags is not None  # (_PARTIAL)
        if partial and (halves or flagged):
            return generic(ctx, args, kwargs)
        if ub.journal is not None:
            ub.journal.record(addr, end, ptr.hi)
        if partial:
            putmask(st.data[addr:end].view(word), active[0], src._raw.view(word))
        elif halves:
            put_natural(st.data[addr:end], src._raw, halves)
        else:
            st.buffer[addr:end] = src._bytes
        if flagged:
            n = lanes if stride > 1 else 0  # (as `store` notes it)
            ub.writes.note(api, addr, end, n, n, 2)  # (called by the op's face, called by the kernel line)
            st.mark_stored(addr, end)
        if post is not None:  # (through the backend, as `run`, where a loop learning its strides listens there)
            be = ctx.backend
            if be.moves_in_place:
                ptr.addr += step * unit  # (`advance`, inlined: no call)
            else:
                be.advance(ptr, step * unit)

    return call


def in_order_mask_store(api: str, nbytes: int, align: int, index: Any, generic: Call) -> Call:
    """StoreAlign of a MaskReg: UB at ptr = its bits (those `index` picks), packed 8 a byte."""

    def call(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        ptr, mask = args
        addr = ptr.addr
        end = addr + nbytes
        if addr % align or addr < ptr.lo or end > ptr.hi or mask._written is not None or ptr.ub.observer is not None:
            return generic(ctx, args, kwargs)
        ub = ptr.ub
        if ub.journal is not None:
            ub.journal.record(addr, end, ptr.hi)
        st = ub.storage
        bits = mask._made
        if bits is None:  # (a Compare's: made now)
            bits = mask._bits
        st.buffer[addr:end] = packbits(bits if index is None else bits[index], None, "little")  # (positional: cheaper)
        if st.starts is not None or st._flags is not None:  # (_PARTIAL)
            ub.writes.note(api, addr, end, 0, 0, 2)  # (called by the op's face, called by the kernel line)
            st.mark_stored(addr, end)

    return call


Input = tuple[int, str, str, Any]  #: (index, name, kind "reg", "mask" or "scalar", the dtype a scalar converts to or None)


def _operands(api: str, inputs: tuple[Input, ...], stride: int, dtype: type[dt.DType]) -> Callable[[Any, tuple[Any, ...]], Any]:
    """`read(ctx, args)`: a lane function's operands (registers' lanes, MaskRegs' lanes at `stride`, scalars of their
    type), or None where `generic` must run (a register or MaskReg with never-written bytes or bits: flags to check).
    A scalar that does not convert raises here as `generic` would (every register before it is clean)."""
    regs = tuple(i for i, _, kind, _ in inputs if kind == "reg")

    def read(ctx: Any, args: tuple[Any, ...]) -> list[Any] | None:
        for i in regs:
            if args[i]._storage.valid is not None:
                return None
        operands = []
        for i, name, kind, fixed in inputs:
            if kind == "reg":
                view = args[i]._rview
                operands.append(args[i]._get() if view is None else view)  # (`_get`: two registers)
            elif kind == "mask":
                m = args[i]
                if m._written is not None:
                    return None
                operands.append((m._lanes.get(stride) or m._active(stride))[0])
            else:
                operands.append(ctx.backend.scalar(api, name, args[i], fixed or dtype))
        return operands

    return read


def _patterns(dtype: type[dt.DType], trait: RegTrait) -> dict[str, bytes]:
    """Per mask_fill, the group pattern a predicate of `dtype` sets for an active lane (each sets the lane's lowest
    bit: the bit `_active` reads at the stride of `dtype`)."""
    patterns = {fill: group_pattern(dtype, trait, fill) for fill in _FILLS}
    assert all(pattern[0] for pattern in patterns.values())
    return patterns


def _predicate_writer(dtype: type[dt.DType], trait: RegTrait) -> Callable[[Any, MaskReg, Bools, Active, bool], None]:
    """`write(ctx, dst, lanes, active, keep)`: dst = the predicate of `lanes` (a new array, as a lane function returns
    it) on the active lanes (`write_predicate`). `keep` (a Compare's predicate, read by a Select or a store under it):
    the lanes it selects kept in it as `_active` would count them (its bits at the stride of `dtype`: every pattern
    sets a lane's lowest bit), its bits made when first read (`MaskReg._assign_lanes`); else (a carry, stored or
    read as bits) its bits made now."""
    stride = mask_stride(dtype, trait)
    lanes = MASK_BITS // stride
    patterns = _patterns(dtype, trait)
    lsb = {fill: pattern == LSB[stride] for fill, pattern in patterns.items()}
    zeros, bool_ = np.zeros, np.bool_

    def write(ctx: Any, m: MaskReg, p: Bools, active: Active, keep: bool) -> None:
        if active[1] != lanes:
            p = p & active[0]
        fill = ctx.backend.mask_fill
        if keep:
            m._assign_lanes(p, patterns[fill], {stride: (p, index(count_nonzero(p)))})
        elif lsb[fill]:  # (`lanes_to_bits`, inlined)
            bits = zeros(MASK_BITS, bool_)
            bits[::stride] = p
            m._made, m._written, m._lanes = bits, None, {}
        else:
            m._assign(lanes_to_bits(p, patterns[fill]))

    return write


def _committer(mode: MaskMergeMode) -> Callable[[Any, RegTensor[Any], Any, Active, int], None]:
    """`commit(ctx, dst, values, active, lanes)`: a plain copy for a full predicate (of `lanes` lanes) into a
    destination it writes whole (clean, or all of its storage); `merge_into` by numpy's C putmask for a partial one
    into a clean one-register destination (values of its type); else the backend's `commit` under `mode`."""
    zeroing = mode is ZEROING

    def commit(ctx: Any, d: RegTensor[Any], out: Any, active: Active, lanes: int) -> None:
        st = d._storage
        view = d._view
        if active[1] == lanes and (d._whole or st.valid is None):
            d._put(out)
            st.valid = None  # (every byte written, as `commit` notes)
        elif st.valid is None and view is not None and getattr(out, "dtype", None) == view.dtype:
            putmask(view, active[0], out)  # (active lanes first: `out` may be a view of dst)
            if zeroing:
                putmask(view, ~active[0], np.zeros((), view.dtype))
        else:
            ctx.backend.commit(d, out, active, mode)

    return commit


def in_order_elementwise(
    api: str,
    lane: Callable[..., Any],
    ctrl: bool,
    inputs: tuple[Input, ...],
    pred: int,
    dst: int | None,
    predicates_out: tuple[int, ...],
    mode: MaskMergeMode,
    dtype: type[dt.DType],
    trait: RegTrait,
    generic: Call,
) -> Call:
    """An elementwise op (see `executors.Elementwise`): dst = lane(inputs) under the predicate,
    predicate outputs (carry) written as lane predicates. `dst` None: no register written, the lane function's
    result is the one predicate output (Compare, Compares: see `executors.PredicateOut`), and the lanes it selects
    are kept in the MaskReg as `_active` would count them (a Select on it reads them as they are)."""
    stride = mask_stride(dtype, trait)
    lanes = MASK_BITS // stride
    read = _operands(api, inputs, stride, dtype)
    write = _predicate_writer(dtype, trait)
    commit = _committer(mode)

    def call(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        mask = args[pred]
        if mask._written is not None:  # (checked first, as `run` does)
            return generic(ctx, args, kwargs)
        operands = read(ctx, args)
        if operands is None:
            return generic(ctx, args, kwargs)
        active = mask._lanes.get(stride) or mask._active(stride)
        out = lane(*operands, ctrl=ctx.ctrl) if ctrl else lane(*operands)
        if dst is None:
            preds = [out]
        elif predicates_out:
            out, *preds = out
        if dst is not None:
            commit(ctx, args[dst], out, active, lanes)
        if predicates_out:
            for i, p in zip(predicates_out, preds, strict=True):
                write(ctx, args[i], p, active, dst is None)

    kinds = tuple(kind for _, _, kind, _ in inputs)
    if len(predicates_out) > 1 or kinds not in (("reg", "reg"), ("reg", "scalar")):
        return call
    (ia, _, _, _), (ib, name, _, fixed) = inputs
    scalar = "scalar" in kinds
    carry = bool(predicates_out)
    out_index = predicates_out[0] if carry else -1
    patterns = _patterns(dtype, trait)

    def binary(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Two inputs, a register and a register or a scalar; at most one predicate output (Add, Mul, AddC, Add with
        carry out, Adds, Muls, ...): `call`, inlined."""
        mask, ra, rb = args[pred], args[ia], args[ib]
        if ra._storage.valid is not None or mask._written is not None or (not scalar and rb._storage.valid is not None):
            return generic(ctx, args, kwargs)
        a = ra._rview
        if a is None:  # two registers: their lanes assembled
            a = ra._get()
        if scalar:
            b = ctx.backend.scalar(api, name, rb, fixed or dtype)
        else:
            b = rb._rview
            if b is None:
                b = rb._get()
        active = mask._lanes.get(stride) or mask._active(stride)
        out = lane(a, b, ctrl=ctx.ctrl) if ctrl else lane(a, b)
        full = active[1] == lanes
        if dst is None:  # a predicate only, kept with its lanes (`write`'s `keep`, inlined)
            if not full:
                out = out & active[0]
            m = args[out_index]  # (`MaskReg._assign_lanes`, inlined: its bits made when first read)
            m._made, m._pending, m._written = None, (out, patterns[ctx.backend.mask_fill]), None
            m._lanes = {stride: (out, index(count_nonzero(out)))}
            return
        if carry:
            out, p = out
        d = args[dst]
        view = d._view
        st = d._storage
        if full and (d._whole or st.valid is None):  # (`commit`, inlined)
            if view is not None:
                view[...] = out
            else:  # (two registers)
                d._put(out)
            st.valid = None
        else:
            commit(ctx, d, out, active, lanes)
        if carry:
            write(ctx, args[out_index], p, active, False)

    return binary


def in_order_select(stride: int, generic: Call) -> Call:
    """Select (see `executors.SelectLanes`): dst = mask ? src0 : src1 on every lane (one register: src1's bytes
    copied, then src0's lanes put on the selected ones, unless dst shares src0's bytes)."""
    lanes = MASK_BITS // stride
    where = np.where

    def call(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        dst, ra, rb, mask = args
        if mask._written is not None or ra._storage.valid is not None or rb._storage.valid is not None:
            return generic(ctx, args, kwargs)
        a, b = ra._rview, rb._rview
        active = mask._lanes.get(stride) or mask._active(stride)
        view = dst._view
        st = dst._storage
        if a is None or b is None or view is None or not (dst._whole or st.valid is None):
            if a is None or b is None:  # two registers: their lanes assembled
                a, b = ra._get(), rb._get()
            ctx.backend.commit_all(dst, np.array(a if active[1] == lanes else where(active[0], a, b)))
            return
        if active[1] == lanes:
            dst._bytes[:] = ra._bytes  # (the lanes' bytes: memoryviews copy them faster than numpy)
        elif st is ra._storage:
            view[...] = where(active[0], a, b)
        else:
            dst._bytes[:] = rb._bytes
            # (src0's writable lanes: numpy's putmask copies values that are not writable before it reads them)
            putmask(view, active[0], ra._view)
        st.valid = None  # (every byte written, as `commit` notes)

    return call


def in_order_mask(lanes: Bools, dtype: type[dt.DType], trait: RegTrait) -> Call:
    """CreateMask (see `executors.MaskGen`): a new MaskReg selecting `lanes`, its bits made once per mask_fill (shared:
    a MaskReg's bits are replaced, never changed in place)."""
    made = {fill: lanes_to_bits(lanes, group_pattern(dtype, trait, fill)) for fill in _FILLS}
    for bits in made.values():
        bits.flags.writeable = False
    new = object.__new__

    def call(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        dst = new(MaskReg)
        dst._made, dst._written, dst._lanes = made[ctx.backend.mask_fill], None, {}
        return dst

    return call


def in_order_cross_lane(
    api: str,
    lane: Callable[..., Any],
    inputs: tuple[tuple[int, str, str], ...],
    outputs: tuple[tuple[int, bool], ...],
    pred: int | None,
    ruled: int,
    mode: MaskMergeMode | None,
    options: dict[str, Any],
    sized: bool,
    dtype: type[dt.DType],
    checked: bool,
    generic: Call,
) -> Call:
    """A cross-lane op (see `executors.CrossLane`) on clean operands: outputs = lane(inputs, **options), a register
    written whole (`mode` given: under the predicate), a MaskReg's bits replaced. `inputs`: (index, name, kind "reg",
    "mask", "pred" or "scalar"); `outputs`: (index, whether a MaskReg); `ruled`: the register whose lanes the predicate
    selects. `checked` False: the op has a per-call check of the operands' types, which depends on the signature alone,
    so the first call runs `generic` (which checks) and the later ones are as clean as it was."""
    #: made at the first call (from static types): the predicate's stride, the lane function's options, the outputs'
    #: lane counts
    ready = False
    stride, keywords, counts = 0, options, [0] * len(outputs)
    commit = _committer(ZEROING if mode is None else mode)

    def call(ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        nonlocal checked, ready, stride, keywords
        if not checked:
            generic(ctx, args, kwargs)
            checked = True
            return
        if not ready:
            if pred is not None:
                stride = mask_stride(args[ruled].dtype, args[ruled].trait)
            if sized:
                first = args[outputs[0][0]]
                keywords = {**options, "n": lane_count(first.dtype, first.trait), "dtype": first.dtype.np_dtype}
            counts[:] = [0 if is_mask else lane_count(args[i].dtype, args[i].trait) for i, is_mask in outputs]
            ready = True
        active: Any = None
        if pred is not None:
            m = args[pred]
            if m._written is not None:
                return generic(ctx, args, kwargs)
            active = m._lanes.get(stride) or m._active(stride)
        operands = []
        for i, name, kind in inputs:
            v = args[i]
            if kind == "reg":
                if v._storage.valid is not None:
                    return generic(ctx, args, kwargs)
                operands.append(v._get() if v._rview is None else v._rview)
            elif kind == "mask":
                if v._written is not None:
                    return generic(ctx, args, kwargs)
                operands.append(v._bits)
            elif kind == "pred":
                operands.append(active[0])
            else:
                operands.append(ctx.backend.scalar(api, name, v, dtype))
        out = lane(*operands, **keywords)
        for (i, is_mask), n, result in zip(outputs, counts, out if isinstance(out, tuple) else (out,), strict=True):
            d = args[i]
            if is_mask:
                d._made, d._written, d._lanes = np.array(result, np.bool_), None, {}  # (`write_bits`)
            else:
                commit(ctx, d, result, _every_lane(n) if mode is None else active, n)
        return None

    return call
