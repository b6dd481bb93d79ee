"""The batched backend: a VF loop's body run once over all its iterations.

Registers and masks written in the body get a leading iteration axis (row b = iteration b);
the loop index is an `Affine` array, so `p + i * k` is a `BatchedPtr` whose address is one per
row; loads gather and stores scatter. Everything that could make the result differ from running
the iterations in order is detected and raises `Unbatchable` (the loop runner then restores
the state and runs the loop in order): a register or mask read before it is written in the body
(carried across iterations, MERGING into one included), UB bytes one iteration writes and another
reads or writes, a data check (alignment, bounds, never-written bytes) failing in any row, the
loop index used as a Python value, a scalar UB access, a post-update pointer whose stride is not
known yet (`PostUpdate`: the runner runs iteration 0 in order to learn it, then posts the
pointer: row b at base + b·stride), an op whose executor has no batching rule. So batching is
exact or not used at all.

Nothing is copied that need not be: a load's register is a strided view of the UB (copied only
before something writes those bytes), a result becomes its register as it is (an elementwise op
writing every lane computes into its destination's own rows, `result_buffer`), masks stay in lane
form (bits made when something reads bits), two-register tensors stay whole elements, stores wait
(`pending`) until the loop is kept (a load of bytes they write makes them first, recording what
they overwrite), and an accumulator's running sums are computed only if the body reads them.
From `DEFER_ROWS` iterations nothing is computed that need not be either: an elementwise result
writing every lane of every row waits until read (`_Lazy`; a store of all its lanes computes it
straight into the UB bytes it stores, the loop's end its last row alone), and a Reduce keeps its
first lanes alone (`commit_leading`: an Add accumulating it adds those, the +0 lanes never made).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from regsim._src.engine.backend import UINT32_MAX, NumpyBackend, gathered, group_pattern, merge_into, merged, padded
from regsim._src.engine.per_iteration import Affine, BatchedPtr, PostUpdate, Unbatchable, iota, progression_rows
from regsim._src.engine.spec import Kind
from regsim._src.model import dtypes as dt
from regsim._src.model.config import _VF
from regsim._src.model.core import Core
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.memory import UbPtr, UbRead, Write, Writes
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
    Storage,
    UnalignRegForStore,
    halves_to_natural,
    natural_to_halves,
    put_halves,
)
from regsim.errors import UninitializedReadError

ZEROING = MaskMergeMode.ZEROING
#: the hazards between iterations the UB accesses' check finds (`Hazard`'s reasons)
WRITTEN_TWICE = "UB bytes written twice in the loop (by two iterations, or twice in one)"
READS_ANOTHERS = "an iteration reads UB bytes another iteration writes"
#: the verdicts of `check_independent` for loops whose every UB access is a box: (rows, (ub, write, exact, box) each,
#: the ub numbered by its first access)
#: → whether a box was judged (a hazard raises, and is never kept); at most VERDICTS, then forgotten all at once
_VERDICTS: dict[tuple[Any, ...], bool] = {}
VERDICTS = 1024
#: from this many iterations a batched loop leaves results to compute until read (`_Lazy`): the bookkeeping, a few
#: microseconds a call, pays for itself in the copies and +0 lanes it saves; fewer rows compute them at once
DEFER_ROWS = 128


class Hazard(Unbatchable):
    """UB bytes one iteration writes and another reads or writes (or one writes twice): the iterations depend on each
    other through the UB. What addresses and masks the loop's run had decides it, so the loop's site takes it as a
    prediction for its next runs, never as certain (`vf.loops`: they run in order for a while without an attempt)."""


@attrs.define(eq=False)
class _Posted:
    """A post-update pointer of the loop: row b starts at `base + b * stride`; the body must move
    it by exactly `stride` bytes (as iteration 0, run in order, did)."""

    ptr: UbPtr[Any]
    cls: type
    base: int
    stride: int
    moved: int = 0


class _Regs:
    """One register storage's bytes in every iteration: `data` (rows, bytes) in register order,
    and for a two-register tensor possibly `natural`, the same bytes as whole elements (UB order),
    which is what its ops read and write; each is made from the other when first needed."""

    __slots__ = (
        "_data",
        "itemsize",
        "last",
        "lazy",
        "natural",
        "origin",
        "shared",
        "storage",
        "thunk",
        "thunk_inputs",
        "typed",
        "valid",
    )

    def __init__(self, storage: Storage, data: Bytes | None, valid: Bools | None, shared: bool = False) -> None:
        self.storage = storage
        self._data = data
        self.valid = valid  #: (rows, bytes); None: every byte written in every row
        #: `data` (or `natural`) is not this state's own (a load's view of the UB, an op's result that
        #: may be another array's view): copied before it is written in place, or before what it views
        #: is written
        self.shared = shared
        self.origin: object = ""  #: where the last iteration's never-written bytes came from (for error messages)
        self.natural: Bytes | None = None
        self.itemsize = 0  #: with `natural`: the element size
        #: rows not computed yet (the body may never read them): what sets `_data` (or `natural`), what it reads
        #: (computed before anything writes those), and the last row: a scan's, known already, or an elementwise
        #: result's (`lazy`), computed alone when asked for
        self.thunk: Callable[[], None] | None = None
        self.thunk_inputs: list[Any] = []
        self.last: Bytes | None = None
        self.lazy: _Lazy | None = None
        #: the lanes `lanes` gave last: (the `_data` they view, dtype, byte offset, the read-only typed view), again
        #: while `_data` is that array (in-place writes show through the view; a new array is a new view)
        self.typed: tuple[Bytes, Any, int, Any] | None = None

    @property
    def data(self) -> Bytes:
        if self._data is None:
            if self.thunk is not None:
                self.fill()
            if self._data is None:
                assert self.natural is not None
                self._data = natural_to_halves(self.natural, self.itemsize)
        return self._data

    @data.setter
    def data(self, data: Bytes) -> None:
        self._data, self.natural = data, None
        self.thunk, self.thunk_inputs, self.lazy = None, [], None

    def fill(self) -> None:
        """Compute the rows `thunk` leaves to compute."""
        thunk, self.thunk, self.thunk_inputs = self.thunk, None, []
        if thunk is not None:
            thunk()

    def defer(self, lazy: _Lazy) -> None:
        """The state's bytes in every row are `lazy`'s result, computed when first read."""
        self._data = self.natural = self.valid = self.typed = None
        self.shared, self.lazy, self.thunk, self.thunk_inputs = False, lazy, self._take_lazy, lazy.inputs()

    def _take_lazy(self) -> None:
        lazy, self.lazy = self.lazy, None
        assert lazy is not None
        result = lazy.evaluate().view(np.uint8)
        self.shared = lazy.in_ub  # (computed into the UB by a store: its bytes, copied before they are written)
        if lazy.halves:
            self._data, self.natural, self.itemsize = None, result, lazy.halves
        else:
            self._data = result

    def arrays(self) -> list[Bytes]:
        """The arrays holding the state's bytes now (to test for aliasing without making any)."""
        return [a for a in (self._data, self.natural) if a is not None]

    def last_row(self) -> tuple[Bytes, int]:
        """The last iteration's bytes, and, where they are whole elements (`natural`: a copy, its halves not yet in
        register order), their size, else 0 (register bytes, a view)."""
        if self._data is None and self.thunk is not None:
            if self.lazy is not None:
                first: Bytes = self.lazy.last().view(np.uint8)
                return first, self.lazy.halves
            assert self.last is not None
            return self.last, 0
        if self._data is None:
            assert self.natural is not None
            return np.array(self.natural[-1]), self.itemsize
        return self._data[-1], 0

    def summarise(self) -> None:
        if self.valid is not None and self.valid.all():
            self.valid = None


class _Lazy:
    """An elementwise op's result in every row, (rows, lanes) of `dtype`, not computed yet: `fn(*ins, out=...)`, computed
    when its register is first read, into `own` (the register's rows, reused) or a new array, or by a store waiting for
    it straight into the UB bytes it stores (`in_ub`: no copy). `halves`: a two-register tensor's element size (the
    result is whole elements), else 0. A lane function may return another array than `out`: it is copied into `out`,
    as `commit` would."""

    __slots__ = ("dtype", "fn", "halves", "in_ub", "ins", "lead", "own", "owner", "result", "shape")

    def __init__(
        self, fn: Callable[..., Any], ins: tuple[Any, ...], own: Any, shape: tuple[int, int], dtype: Any, halves: int
    ) -> None:
        self.fn, self.ins, self.own, self.shape, self.dtype, self.halves = fn, ins, own, shape, dtype, halves
        self.result: npt.NDArray[Any] | None = None
        self.in_ub = False
        self.owner: _Regs | None = None  #: the register state holding it (until it is computed or overwritten)
        #: with `padded`: the first lanes, (rows, k), `ins[0]` (every other lane +0)
        self.lead: npt.NDArray[Any] | None = None

    @classmethod
    def padded(cls, lead: npt.NDArray[Any], n: int) -> _Lazy:
        """`lead`'s lanes (rows, k) in every row, then +0 lanes up to n."""
        lazy = cls(_pad, (lead,), None, (lead.shape[0], n), lead.dtype, 0)
        lazy.lead = lead
        return lazy

    def padded_rows(self) -> npt.NDArray[Any]:
        """Every lane of a `padded` one's rows, made anew from its first lanes."""
        assert self.lead is not None
        return padded(self.lead, self.shape[1])

    @property
    def nbytes(self) -> int:
        """A row's bytes."""
        return int(self.shape[1] * self.dtype.itemsize)

    def inputs(self) -> list[Any]:
        """The arrays it reads (nothing, once computed)."""
        return [x for x in self.ins if isinstance(x, np.ndarray)]

    def into(self, out: npt.NDArray[Any]) -> None:
        result = self.fn(*self.ins, out=out)
        if result is not out:
            out[...] = result
        self.result, self.ins, self.own = out, (), None  # (what it read, no longer held)

    def evaluate(self) -> npt.NDArray[Any]:
        if self.result is None:
            self.into(np.empty(self.shape, self.dtype) if self.own is None else self.own)
        assert self.result is not None
        return self.result

    def last(self) -> npt.NDArray[Any]:
        """The last row alone (an elementwise lane function's row does not depend on the others)."""
        if self.result is not None:
            return np.ascontiguousarray(self.result[-1])
        rows = self.shape[0]
        out = np.empty((1, self.shape[1]), self.dtype)
        result = self.fn(*(x[-1:] if np.ndim(x) == 2 and x.shape[0] == rows else x for x in self.ins), out=out)
        if result is not out:
            out[...] = result
        row: npt.NDArray[Any] = out[0]
        return row


def _pad(lead: npt.NDArray[Any], *, out: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return padded(lead, out.shape[-1], out)


@attrs.define(eq=False)
class _Mask:
    """A MaskReg written in the body: its bits, or (as an op wrote it) its lanes and the bit pattern
    an active lane sets, turned into bits only when something reads them as bits."""

    mask: MaskReg
    bits: Bools | None  #: (rows, 256), or (256,) when the same in every row
    written: Bools | None
    lanes: Bools | None = None  #: (rows, lanes), or (lanes,) when the same in every row
    pattern: bytes = b""  #: with `lanes`: the bits of an active lane's group
    count: int | None = None  #: with `lanes`: its active lanes (all rows), once counted

    def get_bits(self) -> Bools:
        if self.bits is None:
            assert self.lanes is not None
            self.bits = _lanes_to_bits(self.lanes, self.pattern)
        return self.bits


class Access:
    """One call's UB bytes in a batched attempt, for the hazard check: `spans` (starts, ends, the row of each;
    rows None: one range every row reads alike), made when first asked for (by `make`, or, with none, from the exact
    box over the loop's `rows`); `box` (start, step, width) where row b's bytes lie in [start + b·step, +width): exactly
    those where `exact`, else within them."""

    __slots__ = ("_make", "_spans", "box", "exact", "rows", "ub", "write")

    def __init__(
        self,
        ub: int,
        write: bool,
        spans: tuple[Any, Any, Any] | None = None,
        box: tuple[int, int, int] | None = None,
        exact: bool = True,
        make: Callable[[], tuple[Any, Any, Any]] | None = None,
        rows: int = 0,
    ) -> None:
        self.ub = ub  # (one field a statement: cheaper than a tuple's unpacking)
        self.write = write
        self._spans = spans
        self.box = box
        self.exact = exact
        self._make = make
        self.rows = rows

    @property
    def spans(self) -> tuple[Any, Any, Any]:
        if self._spans is None:
            if self._make is None:  # (an exact box: row b's bytes [start + b·step, + width), no closure made for them)
                assert self.box is not None and self.exact and self.rows
                start, step, width = self.box
                starts = progression_rows(start, step, self.rows)
                self._spans = starts, starts + width, iota(self.rows)
            else:
                self._spans, self._make = self._make(), None
        return self._spans


@attrs.define(eq=False)
class _Store:
    """A store not yet made (UB bytes are written when the loop is kept, or when a read needs them):
    `values` (rows, lanes, unit) to the strided view `at` of `storage`, where `where` says."""

    storage: Storage
    at: tuple[int, tuple[int, ...], tuple[int, ...]]
    values: npt.NDArray[Any] | _Lazy  #: (a result not computed yet: computed into the UB bytes when the store is made)
    where: Bools | None
    lo: int  #: the UB bytes [lo, hi) it may write
    hi: int
    whole: bool = False  #: it writes every byte of [lo, hi) (rows back to back, every lane): `at` is that slice

    def reads(self) -> list[Any]:
        """The arrays making the store reads."""
        v = self.values
        return [v] if type(v) is not _Lazy else [v.result] if v.result is not None else v.inputs()


#: regsim's frames at least above `BatchedBackend.store_rows` before the kernel line's: the executor's call that calls it
#: (directly, or through its own helper or `store_deferred`), and what calls that (an op's face, a trace, the C API)
STORE_ROWS_CALLERS = 2


class BatchedBackend(NumpyBackend):
    """The sequential backend's interface over all iterations of one loop at once."""

    current: Any = None  #: the trace record of the call running, when `rs.trace()` records (regsim._src.vf.trace)

    @staticmethod
    def host_read(api: str, what: str) -> None:
        """Python is about to read values that differ by iteration, or to print (`registers.host_read`, asked of the
        running VF's backend): the loop runs in order."""
        raise Unbatchable(f"{api} {what}")

    def __init__(self, check_uninitialized: bool, mask_fill: str, rows: int, core: Core | None = None) -> None:
        NumpyBackend.__init__(self, check_uninitialized, mask_fill, core)  # (named: cheaper than super() on this hot path)
        self.moves_in_place = False  # (its `advance` moves a pointer of every iteration)
        self.rows = rows
        self.defers = rows >= DEFER_ROWS  #: results of every lane wait until read (`deferred`)
        self.regs: dict[int, _Regs] = {}
        self.masks: dict[int, _Mask] = {}
        self.outside: set[int] = set()  #: registers and masks read before the body wrote them
        self.counted: dict[int, tuple[Any, Any]] = {}  #: counters made before the loop: id → (ref, value before)
        self.made_refs: dict[int, Any] = {}  #: counters (rs.Ref) made in the body, by id: one per iteration
        self.ref_reads: dict[int, Any] = {}  #: counters made before the loop whose value the body read
        self.facts: set[str] = set()  #: what the attempt relied on, for rs.explain
        #: what stores overwrote, to undo them: (storage, where, bytes before, flags before)
        self.undo: list[tuple[Storage, Any, Bytes, Bools | None]] = []
        self.pending: list[_Store] = []  #: stores not yet made, in program order
        #: UB bytes [lo, hi) of unaligned store streams: no later access of the attempt may touch them (a stream's
        #: bytes reach the UB at 32-byte boundaries, not when stored), and the stream buffers as the attempt found them
        self.streams: list[tuple[int, int]] = []
        self.uregs: dict[int, tuple[UnalignRegForStore, tuple[Any, ...]]] = {}
        self.origin: object = ""  #: the latest gather's bytes, named as an in-order message names them (a load brings its own)
        self.noted: list[tuple[Writes, Write]] = []  #: the stores made, for their UBs' `Writes` once the loop is kept
        self.accesses: list[Access] = []  #: the UB bytes each call read or wrote, in program order
        #: pointers made in the body, each with its addresses when made and their progression (None: none known)
        self.pointers: list[tuple[BatchedPtr, Any, tuple[int, int] | None]] = []
        #: per-iteration address arrays that are arithmetic progressions: id → (the array, (start, step))
        self.progs: dict[int, tuple[Any, tuple[int, int]]] = {}
        self.scanned: set[int] = set()  #: registers and masks a scan wrote: no other op may write them
        self.posted: dict[int, _Posted] = {}  #: post-update pointers, by id
        self.peeled = False  #: iteration 0 ran in order: every pointer the loop carries is posted
        self.addr_regs: list[AddrReg] = []  #: AddrRegs with one offset per iteration
        self.handed: npt.NDArray[Any] | None = None  #: the latest `result_buffer`, until committed

    # --- state -----------------------------------------------------------------------------------
    def _reg(self, reg: RegTensor[Any], writing: bool, whole: bool = False) -> _Regs | None:
        """The batched state of `reg`'s storage, ready to be written in place when `writing`; a
        first write makes it (`whole`: the write covers every byte of the storage, so its old
        bytes need not be copied in)."""
        st = reg._storage
        state = self.regs.get(id(st))
        if writing:
            self._check_writable(st)
        if state is None and writing:
            whole = whole and reg._whole
            shape = (self.rows, st.data.size)
            data = np.empty(shape, np.uint8) if whole else np.broadcast_to(st.data, shape).copy()
            valid = None if whole or st.valid is None else np.broadcast_to(st.valid, shape).copy()
            state = self.regs[id(st)] = _Regs(st, data, valid)
        elif state is None:
            self.outside.add(id(st))
        elif writing:
            self._own(state)
        return state

    def _check_writable(self, st: Storage) -> None:
        if id(st) in self.scanned:
            raise Unbatchable("a register a scan carries across iterations is written again")
        if id(st) not in self.regs and id(st) in self.outside:
            raise Unbatchable("a register is read before the loop body writes it (carried across iterations)")

    def _adopt(self, reg: RegTensor[Any], data: Bytes, shared: bool = True) -> _Regs | None:
        """reg's bytes in every row = `data` (rows, bytes), kept as it is (no copy) when it covers
        the whole storage: its state; None (nothing done) when it does not. `shared`: `data` may be another's."""
        st = reg._storage
        if not reg._whole or data.shape != (self.rows, st.data.size):
            return None
        key = id(st)
        if key in self.outside or key in self.scanned:  # (`_check_writable`'s cases)
            self._check_writable(st)
        state = self.regs.get(key)
        if state is None:
            state = self.regs[key] = _Regs(st, data, None, shared)
        else:
            state.data, state.valid, state.shared = data, None, shared
        return state

    def _own(self, state: _Regs) -> None:
        """Before `state.data` is written in place: stores waiting to be made that read it are
        made first, and data that is not the state's own is copied."""
        if any(np.may_share_memory(v, a) for p in self.pending for v in p.reads() for a in state.arrays()):
            self._flush()
        if state.shared:
            state.data, state.shared = np.array(state.data, order="C"), False
        else:
            state.data = state.data  # (the element-order copy goes stale)
        self._release(state.data, state)

    def _release(self, target: npt.NDArray[Any], but: _Regs | None = None) -> None:
        """Before `target` is written in place: states that view its bytes get copies of their own; results not
        computed yet that read them are computed (a store's too)."""
        for p in self.pending:
            lazy = p.values
            if type(lazy) is _Lazy and lazy.result is None and any(np.may_share_memory(a, target) for a in lazy.inputs()):
                lazy.evaluate()
        for other in self.regs.values() if self.regs else ():
            if other.thunk is not None and any(np.may_share_memory(a, target) for a in other.thunk_inputs):
                other.data  # noqa: B018 (a scan not computed yet: computed from its inputs as they are now)
            if other.shared and other is not but and any(np.may_share_memory(a, target) for a in other.arrays()):
                if other._data is not None:
                    other._data = np.array(other._data, order="C")
                if other.natural is not None:
                    other.natural = np.array(other.natural, order="C")
                other.shared = False

    def _adopt_elements(self, reg: RegTensor[Any], natural: Bytes) -> bool:
        """A two-register tensor's bytes in every row = `natural` (rows, bytes) as whole elements,
        kept as they are; False (nothing done) unless it covers the whole storage."""
        if self._adopt(reg, natural) is None:
            return False
        state = self.regs[id(reg._storage)]
        state._data, state.natural, state.itemsize = None, natural, reg.dtype.itemsize
        return True

    def _mask(self, mask: MaskReg) -> tuple[Bools, Bools | None]:
        state = self.masks.get(id(mask))
        if state is None:
            self.outside.add(id(mask))
            return mask._bits, mask._written
        return state.get_bits(), state.written

    def _set_mask(self, mask: MaskReg, state: _Mask) -> None:
        if id(mask) in self.scanned:
            raise Unbatchable("a MaskReg a scan carries across iterations is written again")
        if id(mask) in self.outside:
            raise Unbatchable("a MaskReg is read before the loop body writes it (carried across iterations)")
        self.masks[id(mask)] = state

    # --- loop-carried operands: scans ----------------------------------------------------------------
    def scan(self, plan: Any, prepared: Any, values: Any, active: Active) -> bool:
        """An elementwise op reading its own output of the previous iteration (an input register
        that is its destination, or an input MaskReg that is its carry output, not yet written in
        this iteration and not read by an earlier op) runs as its spec's scan over the rows."""
        dst = values[prepared.dst]
        outs = prepared.predicates_out
        if not outs and id(dst._storage) in self.regs:  # (the body wrote dst already: nothing it reads is carried)
            return False
        carried = None
        for k, (i, _, kind) in enumerate(prepared.inputs):
            v = values[i]
            if (kind is Kind.REG and v._storage is dst._storage and v._span == dst._span) or (
                kind is Kind.MASK and outs and any(v is values[j] for j in outs)
            ):
                carried = k
        if carried is None:
            return False
        spec = plan.spec
        lane = getattr(spec.executor, "lane", None)
        if spec.scan is None and lane is None:
            return False
        i, _, kind = prepared.inputs[carried]
        key = id(dst._storage) if kind is Kind.REG else id(values[i])
        if key in self.regs or key in self.masks or key in self.outside:
            return False  # written before in the body, or read stale by an earlier op: the usual rules
        api = spec.name
        operands: list[Any] = []
        zero_terms = getattr(spec.scan, "zero_terms", False)
        for k, (j, param, kind_k) in enumerate(prepared.inputs):
            v = values[j]
            if k == carried:  # the value before the loop, as the first iteration reads it
                try:
                    operands.append(
                        super().lanes(api, param, v, None)
                        if kind_k is Kind.REG
                        else super().predicate(api, param, v, prepared.stride)[0]
                    )
                except UninitializedReadError:  # (in order an error only where an iteration's active lane reads them)
                    raise Unbatchable("a value carried into the loop has never-written lanes") from None
            elif kind_k is Kind.REG:  # (a result +0 past its first lanes kept so, for `_scan_later`)
                lead = self._leading(v) if zero_terms else None
                operands.append(self.lanes(api, param, v, active) if lead is None else lead)
            elif kind_k is Kind.MASK:
                operands.append(self.predicate(api, param, v, prepared.stride)[0])
            else:
                operands.append(self.scalar(api, param, v, plan.dtype))
        lanes = _rows_of(active[0], self.rows)
        ctx = _VF.get()
        ctrl = ctx.ctrl if ctx is not None else 0
        what = "its destination" if kind is Kind.REG else "its carry"
        self.facts.add(f"Reg.{api} carries {what} across iterations: an exact scan")
        every = active[1] == active[0].size
        if spec.scan is not None and self._scan_later(spec, dst, kind, prepared, operands, carried, lanes, ctrl, every):
            self.scanned.add(key)
            return True
        operands = [o.evaluate() if type(o) is _Lazy else o for o in operands]
        out = None if spec.scan is None else spec.scan(operands, carried, lanes, prepared.mode, ctrl=ctrl)
        if out is None:  # no closed form (a float sum rounds at every step): the rows in order, one lane call each
            if kind is not Kind.REG or prepared.predicates_out or lane is None:
                raise Unbatchable(f"Reg.{api} carries a value across iterations that has no exact scan here")
            self.facts.discard(f"Reg.{api} carries {what} across iterations: an exact scan")
            self.facts.add(f"Reg.{api} carries its destination across iterations: its rows run in order, one lane call each")
            out = _rows_in_order(
                lane(plan), spec.executor.ctrl, operands, carried, lanes, prepared.mode, ctrl, dst.dtype.np_dtype
            )
        everything: Active = (np.ones(lanes.shape, np.bool_), lanes.size)
        result, *preds = out if prepared.predicates_out else (out,)
        self.commit(dst, result, everything, ZEROING)
        for j, bits in zip(prepared.predicates_out, preds, strict=True):
            self.write_predicate(values[j], bits, plan.dtype, plan.trait)
        self.scanned.add(key)
        return True

    def _scan_later(
        self,
        spec: Any,
        dst: RegTensor[Any],
        kind: Kind,
        prepared: Any,
        operands: list[Any],
        carried: int,
        lanes: Any,
        ctrl: int,
        every: bool,
    ) -> bool:
        """A one-register accumulator whose scan can give its last row alone: that row now (the
        loop leaves it in the register), the other rows only if something in the body reads them.
        An operand +0 past its first lanes (`_leading`) adds those alone (`_leading_last`)."""
        last_row = getattr(spec.scan, "last", None)
        st = dst._storage
        if last_row is None or kind is not Kind.REG or prepared.predicates_out or dst.trait.REG_NUM != 1:
            return False
        if not dst._whole:
            return False
        lead = next((o for o in operands if type(o) is _Lazy), None)
        if lead is None:
            last = last_row(operands, carried, lanes, prepared.mode, ctrl=ctrl)
        else:
            last = _leading_last(last_row, operands, lead, carried, lanes, prepared.mode, ctrl) if every else None
        np_dtype = dst.dtype.np_dtype
        if last is None or last.dtype != np_dtype:
            return False
        self._check_writable(st)
        state = _Regs(st, None, None)
        reads = [o.lead if type(o) is _Lazy else o for o in operands]

        def rows() -> None:  # (a leading operand's every lane made from its first ones, not from its register)
            full = [o.padded_rows() if isinstance(o, _Lazy) else o for o in operands]
            out = spec.scan(full, carried, lanes, prepared.mode, ctrl=ctrl)
            state._data = np.ascontiguousarray(np.broadcast_to(out, lanes.shape), np_dtype).view(np.uint8)

        state.thunk, state.thunk_inputs = rows, [o for o in reads if isinstance(o, np.ndarray)]
        state.last = np.ascontiguousarray(last).view(np.uint8)
        self.regs[id(st)] = state
        return True

    def _leading(self, reg: RegTensor[Any]) -> _Lazy | None:
        """`reg`'s result +0 past its first lanes, not made (`commit_leading`), where reg is its whole storage."""
        state = self.regs.get(id(reg._storage))
        lazy = None if state is None else state.lazy
        if lazy is None or lazy.lead is None or lazy.result is not None or reg.dtype.np_dtype != lazy.dtype:
            return None
        return lazy if reg._whole else None

    # --- predicates ------------------------------------------------------------------------------
    def predicate(self, api: str, param: str, mask: MaskReg, stride: int) -> Active:
        state = self.masks.get(id(mask))
        if state is not None and state.lanes is not None and len(state.pattern) == stride:
            if state.count is None:
                state.count = int(np.count_nonzero(state.lanes))
            active: Active = (state.lanes, state.count)
        elif state is None and mask._written is None:  # a mask made before the loop, every bit written: its cached lanes
            self.outside.add(id(mask))
            active = mask._active(stride)
        else:
            bits, written = self._mask(mask)
            if written is not None and self.check and not written[..., ::stride].all():
                raise Unbatchable("a never-written predicate bit")
            lanes = bits[..., ::stride]
            active = lanes, int(np.count_nonzero(lanes))
        if self.current is not None and param == "mask" and self.current.active is None:
            self._note(*active)
        return active

    def _note(self, lanes: Bools, count: int) -> None:
        """A traced call's active lanes, over every iteration (lanes the same in every row: `count` is one row's)."""
        assert self.current is not None
        per_row = lanes.ndim == 1
        self.current.active = count * self.rows if per_row else count
        self.current.lanes = lanes.shape[-1] * self.rows

    def write_predicate(self, dst: MaskReg, lanes: Bools, dtype: type[dt.DType], trait: RegTrait) -> None:
        if self.current is not None and self.current.active is None:  # a mask maker: the lanes it selects
            self._note(lanes, int(np.count_nonzero(lanes)))
        self._set_mask(dst, _Mask(dst, None, None, lanes, group_pattern(dtype, trait, self.mask_fill)))

    def write_bits(self, dst: MaskReg, bits: Bools) -> None:
        self._set_mask(dst, _Mask(dst, np.array(bits, np.bool_, order="C"), None))

    def write_prefix(self, dst: MaskReg, count: Any, dtype: type[dt.DType], trait: RegTrait) -> None:
        n = MASK_BITS * trait.REG_NUM // dtype.itemsize
        if (count >= n) if type(count) is int else (np.asarray(count) >= n).all():  # every lane of every row: one row
            lanes, active = _all_lanes(n), n
        else:
            counts = np.asarray(count)
            lanes, active = np.arange(n) < counts[..., None], int(np.minimum(counts, n).sum())
        if self.current is not None:
            self._note(lanes, active)
        pattern = group_pattern(dtype, trait, self.mask_fill)
        self._set_mask(dst, _Mask(dst, None, None, lanes, pattern, active))

    # --- counters (rs.Ref) ----------------------------------------------------------------------------
    def new_ref(self, ref: Any) -> None:
        """A counter made in the body: one per iteration (its value may differ by iteration)."""
        self.facts.add("a counter made in the body is one per iteration")
        self.made_refs[id(ref)] = ref

    def read_ref(self, ref: Any) -> Any:
        key = id(ref)
        if key in self.made_refs:
            value = ref._value
            return Affine(value) if isinstance(value, np.ndarray) else value
        if key in self.counted:
            raise Unbatchable("the body reads a counter made before the loop (an rs.Ref) that UpdateMask counts down in it")
        self.ref_reads[key] = ref
        return ref._value

    def write_ref(self, ref: Any, value: Any) -> None:
        if id(ref) not in self.made_refs:
            raise Unbatchable("the body writes a counter made before the loop (an rs.Ref)")
        ref._value = value.values if isinstance(value, Affine) else value

    def count_down(self, api: str, ref: Any, n: int) -> Any:
        """UpdateMask's counter. One made in the body counts down per iteration, as many times as
        the body asks; one made before the loop, once per iteration, in closed form: iteration b
        selects clip(count - b·n, 0, n) and the counter ends where the in-order loop leaves it."""
        key = id(ref)
        if key in self.made_refs:
            value = ref._value
            if not isinstance(value, (np.ndarray, Affine)):  # the same in every iteration: the in-order rule
                return super().count_down(api, ref, n)
            counts = value.values if isinstance(value, Affine) else value
            if int(counts.min()) < 0 or int(counts.max()) > UINT32_MAX:
                raise Unbatchable("a counter outside the uint32_t range in some iteration")
            ref._value = np.where(counts > n, counts - n, 0)
            return np.minimum(counts, n)
        if key in self.counted:
            raise Unbatchable("UpdateMask counts a counter made before the loop down twice in one iteration")
        if key in self.ref_reads:
            raise Unbatchable("the body reads a counter made before the loop (an rs.Ref) before UpdateMask counts it down")
        before = ref._value
        super().count_down(api, ref, n)  # the checks, on the value before the loop
        self.counted[key] = (ref, before)
        self.facts.add(f"the counter made before the loop counts down {n} lanes an iteration, in closed form")
        ref._value = max(before - self.rows * n, 0)
        if before >= self.rows * n:  # n lanes in every iteration
            return n
        return np.minimum(np.maximum(before - np.arange(self.rows, dtype=np.int64) * n, 0), n)

    def predicate_bits(self, api: str, param: str, mask: MaskReg, index: Any) -> Bools:
        bits, written = self._mask(mask)
        if index is not None:
            bits = bits[..., index]
            written = None if written is None else written[..., index]
        if written is not None and self.check and not written.all():
            raise Unbatchable("a never-written predicate bit")
        return bits

    def predicate_bytes(self, api: str, param: str, mask: MaskReg, index: Any) -> Bytes:
        state = self.masks.get(id(mask))
        if state is not None and state.bits is None and index is None:
            assert state.lanes is not None
            return _pack_lanes(state.lanes, state.pattern)
        return super().predicate_bytes(api, param, mask, index)

    def fill_predicate(self, dst: MaskReg, raw: Bytes, valid: Bools | None, index: Any) -> None:
        bits = np.unpackbits(raw, axis=-1, bitorder="little").view(np.bool_)
        written = None if valid is None else np.repeat(valid, 8, axis=-1)
        if index is not None:
            bits = bits[..., index]
            written = None if written is None else written[..., index]
        self._set_mask(dst, _Mask(dst, bits, None if written is None or written.all() else written))

    # --- registers -------------------------------------------------------------------------------
    def lanes(self, api: str, param: str, reg: RegTensor[Any], active: Active | None) -> Any:
        state = self.regs.get(id(reg._storage))
        span = reg._span
        if state is not None:
            typed = state.typed  # (the lanes given last, again: checked first, as below)
            if (
                typed is not None
                and typed[1] is reg.dtype
                and typed[2] == span.start
                and state.thunk is None
                and state.valid is None
                and typed[0] is (state._data if reg.trait.REG_NUM == 1 else state.natural if reg._whole else None)
            ):
                return typed[3]
            if state.thunk is not None:
                state.fill()
            if state.valid is None:
                # the common cases: a one-register tensor the body wrote in full, a two-register one held as whole elements
                one = reg.trait.REG_NUM == 1
                held = state._data if one else state.natural if reg._whole else None
                if held is not None:
                    dtype, typed = reg.dtype, state.typed
                    if typed is not None and typed[0] is held and typed[1] is dtype and typed[2] == span.start:
                        return typed[3]
                    data = held if not one or (span.start == 0 and span.stop == held.shape[-1]) else held[:, span]
                    lanes = (data if data.strides[-1] == 1 else np.ascontiguousarray(data)).view(dtype.np_dtype)
                    lanes.setflags(write=False)
                    state.typed = (held, dtype, span.start, lanes)
                    return lanes
        state = self._reg(reg, writing=False)
        if state is None:
            data, valid = reg._storage.data[span], reg._storage.valid
            valid = None if valid is None else valid[span]
        else:
            whole = reg.trait.REG_NUM == 2 and reg._whole
            if whole and state.natural is None and state.valid is None:
                state.natural, state.itemsize = halves_to_natural(state.data, reg.dtype.itemsize), reg.dtype.itemsize
            data = state.natural if whole and state.natural is not None else state.data[:, span]
            valid = None if state.valid is None else state.valid[:, span]
        size = reg.dtype.itemsize
        if reg.trait.REG_NUM == 2 and (state is None or data is not state.natural):  # low halves, then high → whole elements
            data = halves_to_natural(data, size)
            valid = None if valid is None else halves_to_natural(valid, size)
        if valid is not None and self.check:
            per_lane = valid.reshape(*valid.shape[:-1], -1, size).all(axis=-1)
            if ((~per_lane) if active is None else (active[0] & ~per_lane)).any():
                raise Unbatchable("an active lane reads a never-written register lane")
        lanes = (data if data.strides[-1] == 1 else np.ascontiguousarray(data)).view(reg.dtype.np_dtype)
        lanes.setflags(write=False)
        return lanes

    def lane_bytes(self, api: str, param: str, reg: RegTensor[Any], active: Active) -> Bytes:
        """`lanes` as their bytes, (rows, bytes): a whole one-register tensor the body wrote in full gives its rows as
        it holds them (what `lanes` views, no view made)."""
        state = self.regs.get(id(reg._storage))
        if state is not None and state.thunk is None and state.valid is None and reg._whole and reg.trait.REG_NUM == 1:
            data = state._data
            if data is not None and data.strides[-1] == 1:
                return data
        raw: Bytes = self.lanes(api, param, reg, active).view(np.uint8)
        return raw

    def commit(self, dst: RegTensor[Any], values: Any, active: Active, mode: MaskMergeMode) -> None:
        if type(values) is _Lazy:  # (`deferred`'s: every lane)
            self._defer(dst, values)
            return
        lanes, count = active
        size, full = dst.dtype.itemsize, count == lanes.size
        two = dst.trait.REG_NUM == 2
        if full:  # the result becomes the register as it is: no copy
            handed, self.handed = self.handed, None
            if handed is not None and values is handed:
                state = self._adopt(dst, raw := handed.view(np.uint8), shared=False)
                if state is not None:  # (`result_buffer`'s, kept as dst's own: its typed lanes what `lanes` gives next)
                    handed.setflags(write=False)
                    state.typed = (raw, dst.dtype, 0, handed)
                    return
            rows = _rows_of(values, self.rows)
            if rows.dtype == dst.dtype.np_dtype and rows.strides[-1] == size:
                if self._adopt_elements(dst, rows.view(np.uint8)) if two else self._adopt(dst, rows.view(np.uint8)) is not None:
                    return
        if mode is not ZEROING and count != lanes.size and id(dst._storage) not in self.regs:
            self._reg(dst, writing=False)  # MERGING reads the destination: carried unless written before
        state = self._reg(dst, writing=True, whole=count == lanes.size or mode is ZEROING)
        assert state is not None
        if two:  # compute in whole elements, then split into the two registers
            old = np.ascontiguousarray(halves_to_natural(state.data[:, dst._span], size)).view(dst.dtype.np_dtype)
            result = np.broadcast_to(values, old.shape) if full else merged(values, old, lanes, mode)
            state.data[:, dst._span] = natural_to_halves(np.ascontiguousarray(result).view(np.uint8), size)
        else:
            view = state.data[:, dst._span].view(dst.dtype.np_dtype)
            if full:
                view[...] = values
            else:
                merge_into(view, values, lanes, mode)
        if state.valid is not None:
            span = state.valid[:, dst._span]
            if full or mode is ZEROING:
                span[...] = True
                state.summarise()
            else:
                per_byte = np.repeat(np.broadcast_to(lanes, (self.rows, lanes.shape[-1])), size, axis=-1)
                span |= natural_to_halves(per_byte, size) if two else per_byte

    def result_buffer(self, dst: RegTensor[Any], inputs: tuple[Any, ...]) -> npt.NDArray[Any] | None:
        """Where an elementwise op writing every lane of one-register `dst` in every row may compute its result: dst's
        own rows when it holds its own bytes and nothing else reads them (no store waiting, no other state viewing
        them: an op reading dst as an input reads it lane for lane as it writes it), else a new array (no copy made to
        free dst's); typed as dst, (rows, lanes). Committed as it is, it stays dst's own (`handed`). None where that is
        not the plain case: dst part of its storage or of two registers, an input of another type, or no input with a
        row an iteration (the result is one row: `commit` broadcasts it)."""
        st = dst._storage
        np_dtype = dst.dtype.np_dtype
        if dst.trait.REG_NUM != 1 or not dst._whole:
            return None
        if not _rowed_of(inputs, np_dtype):
            return None
        self._check_writable(st)
        state = self.regs.get(id(st))
        if state is not None and not state.shared and state._data is not None and not self._read_elsewhere(state):
            self._own(state)  # (nothing to make or copy first: the bookkeeping of an in-place write)
            buffer: npt.NDArray[Any] = state._data.view(np_dtype)
        else:
            buffer = np.empty((self.rows, st.data.size // np_dtype.itemsize), np_dtype)
        self.handed = buffer
        return buffer

    def deferred(self, dst: RegTensor[Any], fn: Callable[..., Any], ins: tuple[Any, ...]) -> _Lazy | None:
        """An elementwise op writing every lane of `dst` in every row, `fn(*ins, out=...)`, as a result to compute
        when first read (`_Lazy`), which `commit` makes dst's: a store of all its lanes then computes it straight into
        the UB (`store_deferred`), and the loop's end computes only its last row. Where `result_buffer` would give
        dst's own rows, they are kept for it. None where that is not the plain case: dst part of its storage, an input
        of another type, no input with a row an iteration, or fewer than `DEFER_ROWS` rows."""
        st = dst._storage
        np_dtype = dst.dtype.np_dtype
        if not self.defers or not dst._whole:
            return None
        if not _rowed_of(ins, np_dtype):
            return None
        self._check_writable(st)
        halves = dst.dtype.itemsize if dst.trait.REG_NUM == 2 else 0
        state = self.regs.get(id(st))
        own = None
        if not halves and state is not None and not state.shared and state._data is not None and not self._read_elsewhere(state):
            self._own(state)  # (nothing to make or copy first: the bookkeeping of an in-place write)
            own = state._data.view(np_dtype)
        return _Lazy(fn, ins, own, (self.rows, st.data.size // dst.dtype.itemsize), np_dtype, halves)

    def commit_leading(self, dst: RegTensor[Any], lead: Any) -> None:
        """As the sequential backend's, the +0 lanes not made (`_Lazy.padded`) where dst is a whole one-register tensor
        and `lead` has a row an iteration (at least `DEFER_ROWS`): a scan adding them needs only the first lanes."""
        st = dst._storage
        np_dtype = dst.dtype.np_dtype
        whole = dst.trait.REG_NUM == 1 and dst._whole
        if not whole or np.ndim(lead) != 2 or lead.shape[0] != self.rows or lead.dtype != np_dtype or self.rows < DEFER_ROWS:
            super().commit_leading(dst, lead)
            return
        self._check_writable(st)
        lazy = _Lazy.padded(lead, st.data.size // np_dtype.itemsize)
        self.commit(dst, lazy, (_all_lanes(lazy.shape[1]), lazy.shape[1]), ZEROING)

    def _defer(self, dst: RegTensor[Any], lazy: _Lazy) -> None:
        st = dst._storage
        state = self.regs.get(id(st))
        if state is None:
            state = self.regs[id(st)] = _Regs(st, None, None)
        lazy.owner = state
        state.defer(lazy)

    def _read_elsewhere(self, state: _Regs) -> bool:
        """Whether a store waiting, or another state (its bytes, or the inputs of a scan not computed yet), may read
        `state`'s bytes: writing them in place would first make that store or copy those bytes (`_own`)."""
        data = state._data
        return any(np.may_share_memory(v, data) for p in self.pending for v in p.reads()) or any(
            other is not state and any(np.may_share_memory(a, data) for a in (*other.arrays(), *other.thunk_inputs))
            for other in self.regs.values()
        )

    def fill_elements(self, dst: RegTensor[Any], raw: Bytes, valid: Bools | None, origin: object) -> None:
        if valid is None and self._adopt_elements(dst, _rows_of(raw, self.rows)):
            return
        super().fill_elements(dst, raw, valid, origin)

    def fill(self, dst: RegTensor[Any], raw: Bytes, valid: Bools | None, origin: object) -> None:
        if valid is None and self._adopt(dst, _rows_of(raw, self.rows)) is not None:
            return  # (a load's bytes stay a view of the UB until something writes them)
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
            if not np.broadcast_to(valid, (self.rows, valid.shape[-1]))[-1].all():  # (the last iteration's, as in order)
                state.origin = origin.last() if isinstance(origin, UbRead) else self.origin

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
        self._set_mask(dst, _Mask(dst, bits.copy(), None if written is None else written.copy()))

    # --- the Unified Buffer ----------------------------------------------------------------------
    def check_aligned(self, api: str, param: str, ptr: UbPtr[Any], addr: Any, align: int, why: str) -> None:
        if isinstance(addr, np.ndarray):
            prog = self.prog(addr)
            if (prog[0] % align or prog[1] % align) if prog is not None else (addr % align).any():
                raise Unbatchable("a misaligned address in some iteration")
            return
        super().check_aligned(api, param, ptr, addr, align, why)

    def read(self, api: str, param: str, ptr: UbPtr[Any], addr: Any, nbytes: int) -> tuple[Bytes, Bools | None]:
        if self.streams:
            self._stream_guard(addr, np.add(addr, nbytes))
        if not isinstance(addr, np.ndarray):
            self._sync(addr, addr + nbytes)
            raw, valid = super().read(api, param, ptr, addr, nbytes)
            self.accesses.append(Access(id(ptr.ub), False, make=lambda: (np.array([addr]), np.array([addr + nbytes]), None)))
            return raw, valid
        ub = ptr.ub
        prog = self.prog(addr)
        lo, hi = _span(addr, prog)
        hi += nbytes
        if lo < 0 or hi > ub.size:
            raise Unbatchable("a load outside the UB in some iteration")
        self._sync(lo, hi)
        st = ub.storage
        if ub.observer is not None:
            ub.observer("read", api, addr, addr + nbytes, within=(ptr.lo, ptr.hi))
        step = _step(addr) if prog is None else prog[1]
        flags = st.flags(lo, hi)  # (of the bytes any row reads; None: all written)
        raw, valid = _rows(st.data, addr, nbytes, step), None if flags is None else _rows(flags, addr - lo, nbytes, step)
        box = (prog[0], prog[1], nbytes) if prog is not None and self.rows > 1 else None
        self.accesses.append(Access(id(ub), False, box=box, make=lambda: (addr, addr + nbytes, iota(self.rows))))
        return raw, None if valid is None or valid.all() else valid

    def rows_at(self, ptr: UbPtr[Any], align: int, nbytes: int, tensor: bool) -> tuple[int, int] | None:
        """(start, step) of an aligned access of `nbytes` a row through `ptr` in the common case, where `read` and
        `store` would take their plainest path: the rows' addresses a progression p + b·step of `align`-aligned
        start and step, its rows apart (step >= nbytes), inside the UB (`tensor`: inside the pointer's tensor), no
        observer, no write journal, no unaligned store stream in the loop. None otherwise (the
        executor's generic run then checks and raises as it always does); nothing is changed either way."""
        addr = ptr.addr
        hit = self.progs.get(id(addr))
        if hit is None or hit[0] is not addr or self.streams:
            return None
        ub = ptr.ub
        if ub.observer is not None or ub.journal is not None:
            return None
        start, step = prog = hit[1]
        rows = self.rows
        if step < nbytes or start % align or step % align or rows < 2:
            return None
        end = start + step * (rows - 1) + nbytes
        if (start < ptr.lo or end > ptr.hi) if tensor else (start < 0 or end > ub.size):
            return None
        return prog

    def load_rows(self, dst: RegTensor[Any], ptr: UbPtr[Any], at: tuple[int, int], nbytes: int) -> bool:
        """A load at `rows_at`'s addresses `at` (LoadAlign, identity distribution): dst adopts the UB's strided view,
        as `read` then `fill` (a two-register tensor: `fill_elements`) leave it. False (nothing done) when dst is part
        of its storage or a byte it reads was never written (flags to carry)."""
        st = dst._storage
        if not dst._whole or st.data.size != nbytes:
            return False
        start, step = at
        rows = self.rows
        ub = ptr.ub
        ust = ub.storage
        end = start + step * (rows - 1) + nbytes
        access = Access(id(ub), False, None, (start, step, nbytes), True, None, rows)
        if self.accesses:  # (what `_adopt` refuses first, as the load without the check below refuses it)
            if self.outside or self.scanned:
                self._check_writable(st)
            self._meet(access)
        if step == nbytes:  # rows back to back: one range (inside the UB: `rows_at`), a slice of it
            if ust.partial() and not ust.all_written(start, end):
                return False
            if self.pending:
                self._sync(start, end)
            view = ust.data[start:end].reshape(rows, nbytes)
        else:
            where = (start, (rows, nbytes), (step, 1))
            if ust.partial() and np.count_nonzero(ust.flags_at(where)) != rows * nbytes:  # type: ignore[arg-type]  # (partial)
                return False
            if self.pending:
                self._sync(start, end)
            view = _strided(ust.data, where)
        view.setflags(write=False)
        if dst.trait.REG_NUM == 2:  # (whole elements, as `fill_elements` keeps them)
            self._adopt_elements(dst, view)
        else:
            self._adopt(dst, view)
        self.accesses.append(access)
        return True

    def gather(
        self, api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], unit: int, active: Bools
    ) -> tuple[Bytes, Bools | None]:
        """Every iteration's gather at once, (rows, lanes, unit): an active lane outside the tensor in some
        iteration sends the loop in order (which raises there); each row's reads, as the span of its active
        lanes, go to the hazard check (a conservative span: a byte between two lanes another iteration writes
        sends the loop in order too)."""
        shape = (self.rows, max(np.shape(addrs)[-1], np.shape(active)[-1]))
        at, on = np.broadcast_to(addrs, shape), np.broadcast_to(active, shape)
        first = np.where(on, at, np.iinfo(np.int64).max).min(axis=-1)
        last = np.where(on, at, np.iinfo(np.int64).min).max(axis=-1)
        used = np.flatnonzero(on.any(axis=-1))
        lo, hi = first[used], last[used] + unit
        if used.size and (int(lo.min()) < ptr.lo or int(hi.max()) > ptr.hi):
            raise Unbatchable("a gather outside its tensor in some iteration")
        if used.size:
            self._stream_guard(lo, hi)
            self._sync(int(lo.min()), int(hi.max()))
        if ptr.ub.observer is not None:
            ptr.ub.observer("read", api, at[on], at[on] + unit)
        self._points(False, at, on, unit)
        self.accesses.append(Access(id(ptr.ub), False, (lo, hi, used)))
        self.origin = f"{api} from the UB tensor at byte {ptr.lo}"
        return gathered(ptr.ub.storage, at, unit, on)

    def read_blocks(
        self, api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], unit: int, active: Bools
    ) -> tuple[Bytes, Bools | None]:
        """Every iteration's reads of `unit` bytes at each active address at once, (rows, n, unit), inactive ones
        zero: what the in-order run reads with one `read` each (a DATA_BLOCK_COPY load's active blocks), so each
        goes to the hazard check and the trace as a read of its own (not a gather's lanes); one outside the UB in
        some iteration sends the loop in order (which raises there)."""
        shape = (self.rows, max(addrs.shape[-1], active.shape[-1]))
        at, on = np.broadcast_to(addrs, shape), np.broadcast_to(active, shape)
        row, lane = np.nonzero(on)
        starts = at[row, lane]
        if starts.size:
            lo, hi = int(starts.min()), int(starts.max()) + unit
            if lo < 0 or hi > ptr.ub.size:
                raise Unbatchable("a load outside the UB in some iteration")
            if self.streams:
                self._stream_guard(starts, starts + unit)
            self._sync(lo, hi)
        if ptr.ub.observer is not None:
            ptr.ub.observer("read", api, starts, starts + unit, within=(ptr.lo, ptr.hi))
        self.accesses.append(Access(id(ptr.ub), False, (starts, starts + unit, row)))
        self.origin = f"{api} of UB blocks from byte {ptr.lo}"
        return gathered(ptr.ub.storage, at, unit, on)

    def scatter(self, api: str, param: str, ptr: UbPtr[Any], addrs: npt.NDArray[Any], raw: Bytes, active: Bools) -> None:
        """Every iteration's scatter at once: `raw` (rows, lanes, unit) to `addrs` (rows, lanes) where `active`
        (each may lack the rows axis: the same in every row). An active lane outside the tensor in some iteration
        sends the loop in order (which raises there); the bytes are written now (the rows' lanes in order, what
        they overwrite recorded), and each row's, one range a lane, go to the hazard check (a byte two rows write,
        or one row writes and another reads, sends the loop in order)."""
        unit = raw.shape[-1]
        shape = (self.rows, max(addrs.shape[-1], active.shape[-1], raw.shape[-2]))
        row, lane = np.nonzero(np.broadcast_to(active, shape))
        starts = np.broadcast_to(addrs, shape)[row, lane]
        if starts.size and (int(starts.min()) < ptr.lo or int(starts.max()) + unit > ptr.hi):
            raise Unbatchable("a scatter outside its tensor in some iteration")
        if self.streams:
            self._stream_guard(starts, starts + unit)
        if ptr.ub.observer is not None:
            ptr.ub.observer("write", api, starts, starts + unit)
        self._points(True, np.broadcast_to(addrs, shape), np.broadcast_to(active, shape), unit)
        self._flush()
        st = ptr.ub.storage
        if st.partial():  # (as the in-order scatter notes it: each active lane's bytes, with its row's active lanes)
            on_row = np.count_nonzero(np.broadcast_to(active, shape), axis=-1)
            self.noted.append((ptr.ub.writes, Writes.entry(api, starts, starts + unit, on_row[row], shape[1], row)))
        at = starts[:, None] + np.arange(unit)
        if at.size:
            self._release(st.data[int(starts.min()) : int(starts.max()) + unit])
        self.undo.append((st, at, st.data[at], st.flags_at(at)))
        st.data[at] = np.broadcast_to(raw, (*shape, unit))[row, lane]
        st.mark_at(at)
        # one range a lane (a lane an active duplicate of another in its row writes the same bytes: once)
        key = np.unique(row * (st.data.size + 1) + starts)
        row, starts = key // (st.data.size + 1), key % (st.data.size + 1)
        self.accesses.append(Access(id(ptr.ub), True, (starts, starts + unit, row)))

    def _points(self, write: bool, at: npt.NDArray[Any], on: Bools, unit: int) -> None:
        """A traced gather's or scatter's active lanes, row by row (as the in-order run records them, an
        iteration each: a cost model prices each row's lanes on their own)."""
        if self.current is not None:
            self.current.points += [(write, at[b][on[b]], unit) for b in np.flatnonzero(on.any(axis=-1))]

    def stream_write(
        self, api: str, ptr: UbPtr[Any], u: UnalignRegForStore, start: int, raw: Bytes, rows: tuple[Any, Any, Any], end: int
    ) -> None:
        """An unaligned store stream over every iteration at once: `raw` written at `start` now, the bytes up to `end`
        left in the stream buffer `u` (saved first, for a rollback); `rows` (starts, ends, row numbers) are the bytes
        each iteration stored, for the hazard check."""
        self.uregs.setdefault(id(u), (u, (u.pending, u.start, u.origin, u.ptr)))
        self._stream_guard(start, end)
        self._flush()
        if ptr.ub.journal is not None:  # (a memory-level call's write journal: the bytes before they change)
            ptr.ub.journal.record(start, start + raw.size, ptr.hi)
        if ptr.ub.observer is not None:
            ptr.ub.observer("write", api, start, start + raw.size)
        self._write(_Store(ptr.ub.storage, (start, (raw.size,), (1,)), raw, None, start, start + raw.size, True), undo=True)
        self.accesses.append(Access(id(ptr.ub), True, rows))
        self.streams.append((start, end))
        if ptr.ub.storage.partial():
            self.noted.append((ptr.ub.writes, Writes.entry(api, rows[0], rows[1], 0, 0, rows[2])))

    def _stream_guard(self, lo: Any, hi: Any) -> None:
        """An access of UB bytes an unaligned store stream of this attempt stored sends the loop in order."""
        if self.streams and np.size(lo):
            lo, hi = int(np.min(lo)), int(np.max(hi))
            if any(a < hi and lo < b for a, b in self.streams):
                raise Unbatchable("an access of UB bytes an unaligned store stream of the loop stored")

    def _sync(self, lo: int, hi: int) -> None:
        """Before UB bytes [lo, hi) are read: the stores waiting to be made that may write them are
        made (all of them, in order)."""
        for p in self.pending:
            if p.lo < hi and lo < p.hi:
                self._flush()
                return

    def _flush(self) -> None:
        """Make the waiting stores now, recording what they overwrite (the attempt may yet fail). Each waits in
        `pending` until made (a later one's result not computed yet is computed before an earlier one overwrites
        what it reads)."""
        for p in self.pending:
            self._write(p, undo=True)
        self.pending = []

    def _write(self, p: _Store, undo: bool) -> None:
        st = p.storage
        whole = p.whole
        target = st.data[p.lo : p.hi].reshape(p.at[1]) if whole else _strided(st.data, p.at)
        self._release(target)
        if undo:
            self.undo.append((st, p.at, target.copy(), st.flags_at(p.at)))
        values = p.values
        if isinstance(values, _Lazy):  # (every lane: `where` is None)
            if values.result is None:  # computed into the UB bytes
                values.into(target.view(values.dtype))
                values.in_ub = True
                owner = values.owner
                if owner is not None and owner.lazy is values:  # (its register's rows view those bytes, from now)
                    owner.fill()
            else:
                target[...] = values.result.view(np.uint8)
        elif p.where is None:
            target[...] = values
        else:
            np.copyto(target, values, where=p.where)
        if whole:
            st.mark(p.lo, p.hi)
        else:
            st.mark_at(p.at, p.where)

    def store(self, api: str, param: str, ptr: UbPtr[Any], chunks: list[tuple[int, Bytes, Bools | None]], unit: int) -> None:
        for addr, raw, active in chunks:  # (a failing check raises before the first chunk is written)
            self._check_store(ptr, addr, raw, active, unit)
            if self.streams:
                self._stream_guard(addr, np.add(addr, raw.shape[-1]))
        if ptr.ub.observer is not None:  # every active lane of every iteration
            for addr, raw, active in chunks:
                lanes = raw.shape[-1] // unit
                starts = np.broadcast_to(np.asarray(addr, np.int64), (self.rows,))[:, None] + np.arange(lanes) * unit
                picked = starts.ravel() if active is None else starts[np.broadcast_to(active, starts.shape)]
                ptr.ub.observer("write", api, picked, picked + unit)
        written = [self._store_chunk(api, ptr, addr, raw, active, unit) for addr, raw, active in chunks]
        self._note_store(api, ptr, written, sum(raw.shape[-1] for _, raw, _ in chunks) // unit if unit > 1 else 0)

    def _note_store(self, api: str, ptr: UbPtr[Any], written: list[_Spans | None], lanes: int) -> None:
        """A store's note, as the in-order store makes it (none if the UB's flags are dropped): each row's span of each
        register stored, with the row's active lanes of all of them, of all their `lanes`."""
        if written[0] is None:
            return
        if len(written) == 1:
            lo, hi, used, on = written[0]
        else:  # (several registers: a two-register tensor's)
            spans = [w for w in written if w is not None]
            on_row = np.zeros(self.rows, np.int64)
            for _, _, rows, active in spans:
                np.add.at(on_row, rows, active)
            lo, hi, used = (np.concatenate([span[i] for span in spans]) for i in range(3))
            order = np.argsort(used, kind="stable")  # (in the order written: row by row, each row's registers in turn)
            lo, hi, used = lo[order], hi[order], used[order]
            on = on_row[used]
        self.noted.append((ptr.ub.writes, Writes.entry(api, lo, hi, on, lanes, used)))

    def store_deferred(self, api: str, ptr: UbPtr[Any], reg: RegTensor[Any], unit: int) -> bool:
        """`store_rows` of every lane of `reg` in every row, where it holds an elementwise result not computed yet
        (`defer`): the store waits with it, to compute it straight into the UB bytes it stores when made (`_write`).
        False (nothing done) otherwise, or where a store waiting may overwrite what the result reads."""
        state = self.regs.get(id(reg._storage))
        lazy = None if state is None else state.lazy
        if lazy is None or not reg._whole:
            return False
        ins = lazy.inputs()
        if any(np.may_share_memory(a, _strided(p.storage.data, p.at)) for p in self.pending for a in ins):
            return False
        self.store_rows(api, ptr, lazy, None, unit)
        return True

    def store_rows(self, api: str, ptr: UbPtr[Any], raw: Bytes | _Lazy, active: Bools | None, unit: int, offset: int = 0) -> None:
        """A store at addresses `rows_at` found in the common case (so inside the tensor, no stream, no observer),
        `offset` bytes on from them: what `store` does after its checks."""
        addr = ptr.addr
        start, step = self.progs[id(addr)][1]
        if offset:
            start += offset
            addr = addr + offset
            self.progs[id(addr)] = (addr, (start, step))
        rows = self.rows
        if active is None and type(raw) is np.ndarray and raw.ndim == 2 and raw.shape[0] == rows:
            # the plainest store: every lane, a row an iteration, rows apart inside the tensor (`_store_chunk`'s first
            # case, its facts known here)
            nbytes = raw.shape[1]
            end = start + step * (rows - 1) + nbytes
            if step >= nbytes and end <= ptr.hi:
                ub = ptr.ub
                st = ub.storage
                box = (start, step, nbytes)
                if st.partial():  # (as the in-order store notes it, row by row; `_note_store`'s note of one register)
                    ends, used = progression_rows(start + nbytes, step, rows), iota(rows)
                    access = Access(id(ub), True, (addr, ends, used), box)
                    self._meet(access)
                    lanes = nbytes // unit
                    # (the kernel line looked for from the caller's caller on: an executor's call, reached from an op's
                    # face or a trace, calls this)
                    entry = Writes.entry(api, addr, ends, lanes, lanes if unit > 1 else 0, used, STORE_ROWS_CALLERS)
                    self.noted.append((ub.writes, entry))
                else:
                    access = Access(id(ub), True, None, box, True, None, rows)
                    self._meet(access)
                self.accesses.append(access)
                self._wait(st, (start, (rows, nbytes), (step, 1)), raw, None, start, end, step == nbytes)
                return
        written = self._store_chunk(api, ptr, addr, raw, active, unit)
        self._note_store(api, ptr, [written], (raw.nbytes if type(raw) is _Lazy else raw.shape[-1]) // unit if unit > 1 else 0)

    def _check_store(self, ptr: UbPtr[Any], addr: Any, raw: Bytes, active: Bools | None, unit: int) -> None:
        rows, lanes = self.rows, raw.shape[-1] // unit
        prog = self.prog(addr) if isinstance(addr, np.ndarray) else None
        if prog is not None:  # every lane of every row within the tensor (the progression's ends): its active lanes too
            first, last = _span(addr, prog)
            if ptr.lo <= first and last + lanes * unit <= ptr.hi:
                return
            if active is None:
                raise Unbatchable("a store outside its tensor in some iteration")
        lo, hi, _ = _row_spans(rows, addr, active, lanes, unit)
        if lo.size and (int(lo.min()) < ptr.lo or int(hi.max()) > ptr.hi):
            raise Unbatchable("a store outside its tensor in some iteration")

    def _store_chunk(
        self, api: str, ptr: UbPtr[Any], addr: Any, raw: Bytes | _Lazy, active: Bools | None, unit: int
    ) -> _Spans | None:
        """Store one register's lanes in every row (`raw`: their bytes, or a result not computed yet, every lane
        stored); return their spans and active lane counts for the store's note (None if the UB's flags are dropped:
        no note)."""
        rows = self.rows
        lazy = type(raw) is _Lazy
        nbytes = raw.nbytes if lazy else raw.shape[-1]
        lanes = nbytes // unit
        addrs = (
            addr
            if type(addr) is np.ndarray and addr.shape == (rows,) and addr.dtype == np.int64
            else _shaped(np.asarray(addr, np.int64), (rows,))
        )
        act = None if active is None else _shaped(active, (rows, lanes))

        def spans() -> tuple[Any, Any, Any]:
            return _row_spans(rows, addrs, act, lanes, unit)

        ub = ptr.ub
        st = ub.storage
        hit = self.progs.get(id(addr))
        prog = hit[1] if hit is not None and hit[0] is addr else None
        made = written = None
        if st.partial():  # (as the in-order store notes it, row by row; a progression's ends the shared rows of one)
            ends = addrs + nbytes if prog is None else progression_rows(prog[0] + nbytes, prog[1], rows)
            made = lo, hi, used = (addrs, ends, iota(rows)) if act is None else spans()
            written = lo, hi, used, lanes if act is None else act[used].sum(axis=-1)
        step = _step(addrs) if prog is None else prog[1]
        box = (prog[0], prog[1], nbytes) if prog is not None and rows > 1 else None
        access = Access(id(ub), True, made, box, act is None, spans)  # (the spans made once)
        self._meet(access)
        self.accesses.append(access)
        start = int(addrs[0]) if prog is None else prog[0]
        end = None if step is None else start + (rows - 1) * step + nbytes
        # rows that do not overlap, all inside the UB (rows of no active lane may lie beyond it): a strided view, written later
        apart = step is not None and step >= nbytes and end is not None and end <= st.data.size
        if lazy:  # (`store_rows`' rows: apart; computed into those bytes when the store is made)
            assert step is not None and end is not None and apart
            self.pending.append(_Store(st, (start, (rows, nbytes), (step, 1)), raw, None, start, end, step == nbytes))
            return written
        assert isinstance(raw, np.ndarray)
        plain = act is None and apart and raw.shape == (rows, nbytes)  # (every lane, a row an iteration: rows of bytes)
        values = raw if plain else _shaped(raw.reshape(*raw.shape[:-1], lanes, unit), (rows, lanes, unit))
        where = None if act is None else _shaped(act[..., None], values.shape)
        if step is not None and end is not None and apart:
            at = (start, (rows, nbytes), (step, 1)) if plain else (start, values.shape, (step, unit, 1))
            self._wait(st, at, values, where, start, end, plain and step == nbytes)
            return written
        # rows in order, so a later iteration's byte lands last (the hazard check refuses it anyway); only the active bytes
        self._flush()
        idx = addrs[:, None, None] + np.arange(lanes)[:, None] * unit + np.arange(unit)
        at = idx[np.ones(values.shape, np.bool_) if where is None else where]
        if at.size:
            self._release(st.data[int(at.min()) : int(at.max()) + 1])
        self.undo.append((st, at, st.data[at], st.flags_at(at)))
        st.data[at] = values[np.ones(values.shape, np.bool_) if where is None else where]
        st.mark_at(at)
        return written

    def _wait(self, st: Storage, at: _At, values: Any, where: Any, lo: int, hi: int, whole: bool) -> None:
        """A store of `values` to the strided view `at` of `st` (UB bytes [lo, hi), every one of them where `whole`)
        waits in `pending` until made."""
        for p in self.pending:
            if np.may_share_memory(values, p.storage.data) and np.may_share_memory(values, _strided(p.storage.data, p.at)):
                values = values.copy()  # bytes a waiting store will overwrite (a load's view): as they are now
                break
        self.pending.append(_Store(st, at, values, where, lo, hi, whole))

    def new_pointer(self, ptr: UbPtr[Any], prog: tuple[int, int] | None) -> None:
        addr = ptr.addr
        self.pointers.append((ptr, addr, prog))  # type: ignore[arg-type]  # (a BatchedPtr: left at the last iteration's address)
        if prog is not None:
            self.progs[id(addr)] = (addr, prog)

    def prog(self, addr: Any) -> tuple[int, int] | None:
        hit = self.progs.get(id(addr))
        return hit[1] if hit is not None and hit[0] is addr else None

    def scalar(self, api: str, param: str, value: Any, dtype: type[dt.DType]) -> Any:
        """A scalar operand; one that differs by iteration (the loop index, a counter made in the
        body) is a column (rows, 1) of the type, converted as the in-order call converts it."""
        if not isinstance(value, Affine):
            return super().scalar(api, param, value, dtype)
        target, values = dtype.np_dtype, value.values
        if np.issubdtype(target, np.integer):
            info = np.iinfo(target)
            if int(values.min()) < info.min or int(values.max()) > info.max:
                raise Unbatchable(f"{param}, which differs by iteration, is outside {dtype.name}'s range in some iteration")
        self.facts.add(f"{param} differs by iteration (one value per row)")
        return values.astype(target)[:, None]

    # --- post-update pointers and address registers --------------------------------------------
    def post_update(self, ptr: UbPtr[Any], stride: int) -> None:
        """`ptr` moves `stride` bytes per iteration (as iteration 0 showed): row b sees base + b·stride,
        and every use of the pointer in the body (`p + k` included) is per iteration."""
        base = ptr.addr
        if type(ptr) is not UbPtr or isinstance(base, np.ndarray):
            raise Unbatchable("a post-update pointer that is already per-iteration")
        base = int(base)
        self.peeled = True
        self.posted[id(ptr)] = _Posted(ptr, type(ptr), base, stride)
        ptr.addr = base + np.arange(self.rows, dtype=np.int64) * stride  # type: ignore[assignment]
        ptr.__class__ = BatchedPtr
        self.progs[id(ptr.addr)] = (ptr.addr, (base, stride))

    def post_address(self, ptr: UbPtr[Any]) -> Any:
        if isinstance(ptr.addr, np.ndarray) or self.peeled:
            # a posted pointer, one per iteration (p + i * k), or (once iteration 0 has shown which
            # pointers the loop carries) one the body made, at the same address in every iteration
            return ptr.addr
        raise PostUpdate("a post-update pointer: its stride per iteration is not known yet")

    def advance(self, ptr: UbPtr[Any], nbytes: int) -> None:
        if not isinstance(ptr.addr, np.ndarray):
            if not self.peeled:
                raise Unbatchable("a post-update pointer (carried across iterations)")
            ptr.addr += nbytes
            return
        posted = self.posted.get(id(ptr))
        if posted is not None:
            posted.moved += nbytes
        prog = self.prog(ptr.addr)
        ptr.addr = ptr.addr + nbytes
        if prog is not None:
            self.progs[id(ptr.addr)] = (ptr.addr, (prog[0] + nbytes, prog[1]))

    def addr_reg(self, dtype: type[dt.DType], offset: Any) -> AddrReg:
        """An AddrReg with one offset per iteration (CreateAddrReg of the loop index); the loop
        leaves it holding the last iteration's."""
        areg = AddrReg(dtype, offset)
        self.addr_regs.append(areg)
        return areg

    def _meet(self, new: Access) -> None:
        """An access's rows, known before they are read or written (before a store writes or waits, before a load
        makes the stores waiting on its bytes, with their undo copies): checked now against the accesses this attempt
        made before it (`meet`), and a hazard two exact boxes of one step make certain raises `Hazard` at once, no undo
        copy or later call made. Whatever the boxes do not settle is left to the final check (`check_independent`),
        which stays."""
        why = meet(self.accesses, new, self.rows)
        if why:
            raise Hazard(why)

    # --- the end of the loop ---------------------------------------------------------------------
    def check_independent(self) -> None:
        """No UB byte written by one iteration is read or written by another (nor written twice
        in one iteration: refused too, to keep the check simple and exact)."""
        for p in self.posted.values() if self.posted else ():  # (0: a pointer iteration 0 made and moved, not the loop's)
            if p.moved not in (p.stride, 0):
                raise Unbatchable(f"a post-update pointer moves {p.moved} B in the batched body, {p.stride} B in iteration 0")
        # (where every access is a box, the verdict is a function of the boxes alone: kept for the next run with the same)
        # (each UB by the place of its first access: the verdict asks only which accesses share one, so a run on a new
        # UB object of the same layout, the VF's tensors made again, finds it; ids would rarely repeat)
        key: list[Any] | None = [self.rows]
        ubs: dict[int, int] = {}
        for a in self.accesses:
            if a.box is None:
                key = None
                break
            key.append((ubs.setdefault(a.ub, len(ubs)), a.write, a.exact, a.box))  # type: ignore[union-attr]
        verdict = None if key is None else _VERDICTS.get(tuple(key))
        if verdict is None:
            verdict, by_boxes = self._hazards()
            if key is not None and by_boxes:
                if len(_VERDICTS) >= VERDICTS:
                    _VERDICTS.clear()
                _VERDICTS[tuple(key)] = verdict
        if verdict:
            self.facts.add("no UB byte an iteration writes is read or written by another (checked)")

    def _hazards(self) -> tuple[bool, bool]:
        """`check_independent`'s check of the UB accesses (raising `Unbatchable` for a hazard): whether an access of
        known box was judged by it (the fact rs.explain reports), and whether the boxes alone settled it (no exact
        check of the bytes, which may depend on the masks: then the same boxes give the same verdict)."""
        by_ub: dict[int, list[Access]] = {}
        for a in self.accesses:
            by_ub.setdefault(a.ub, []).append(a)
        by_boxes = True
        for accesses in by_ub.values():
            if not _disjoint(accesses, self.rows):
                _check_rows([(*a.spans, a.write) for a in accesses])
                by_boxes = False
        return any(a.box is not None and a.exact for a in self.accesses), by_boxes

    def collapse(self) -> None:
        """Leave every register, mask and pointer as the last iteration left it; make the stores."""
        last_rows = []  # (all made before any storage changes; a loop, not a comprehension: no function object made)
        for state in self.regs.values():
            last_rows.append((state, *state.last_row()))
        for state, last_row, natural in last_rows:
            st = state.storage
            if natural:  # (one register pair's elements in memory order)
                put_halves(st.data, last_row, natural)
            else:
                st.data[...] = last_row
            st.valid = None if state.valid is None else state.valid[-1].copy()
            st.origin = state.origin or st.origin
            st.summarise()
        for m in self.masks.values() if self.masks else ():  # (no view of an empty dict made)
            if m.lanes is not None and m.lanes is _all_lanes(m.lanes.shape[-1]):  # (every lane: the cached prefix)
                m.mask._assign_prefix(m.lanes.shape[-1], m.pattern)
                continue
            if m.bits is None:
                assert m.lanes is not None
                bits = _lanes_to_bits(m.lanes if m.lanes.ndim == 1 else m.lanes[-1], m.pattern)
            else:
                bits = m.bits if m.bits.ndim == 1 else m.bits[-1]
            written = None if m.written is None else (m.written if m.written.ndim == 1 else m.written[-1])
            m.mask._assign(np.ascontiguousarray(bits), None if written is None else np.ascontiguousarray(written))
        last, progs = self.rows - 1, self.progs
        for p, made, prog in self.pointers:  # (the last row of a progression without numpy)
            addr = p.addr
            if addr is not made:  # (moved since: its progression, if any, is its addresses')
                hit = progs.get(id(addr))
                prog = hit[1] if hit is not None and hit[0] is addr else None
            p.addr = int(np.asarray(addr)[-1]) if prog is None else int(prog[0] + prog[1] * last)
        for posted in self.posted.values() if self.posted else ():  # where the in-order loop leaves it: base + rows·stride
            last = int(np.asarray(posted.ptr.addr)[-1]) if posted.moved else posted.base
            posted.ptr.addr, posted.ptr.__class__ = last, posted.cls
        for areg in self.addr_regs:
            object.__setattr__(areg, "offset", int(np.asarray(areg.offset)[-1]))
        for ref in self.made_refs.values() if self.made_refs else ():  # the last iteration's counter its name holds
            if isinstance(ref._value, np.ndarray):
                ref._value = int(ref._value[-1])
        self.regs.clear()
        # (the storages written, once each: those the stores made already wrote, then those of the stores made now)
        written = {id(u[0]): u[0] for u in self.undo} if self.undo else {}
        for store in self.pending:
            self._write(store, undo=False)
            written[id(store.storage)] = store.storage
        for writes, entry in self.noted:
            writes.add(entry)
        self.noted = []
        for st in written.values():
            st.summarise()
        self.pending = []

    def rollback(self) -> None:
        """Undo what the attempt changed outside its own state: UB bytes (last store first) and
        counters. Stores still waiting are dropped, and so is the attempt's own state (its registers' rows, its
        accesses, which hold the backend in a cycle): the loop's run in order after it holds none of it."""
        self.pending, self.noted = [], []
        self.regs, self.masks, self.accesses, self.pointers, self.progs, self.handed = {}, {}, [], [], {}, None
        for st, at, data, valid in reversed(self.undo):
            if isinstance(at, tuple):
                _strided(st.data, at)[...] = data
            else:
                st.data[at] = data
            if valid is not None:
                st.put_at(at, valid)
        for ref, before in self.counted.values():
            ref._value = before
        for posted in self.posted.values():
            posted.ptr.addr, posted.ptr.__class__ = posted.base, posted.cls
        for u, saved in self.uregs.values():
            u.pending, u.start, u.origin, u.ptr = saved
        self.undo = []


def _leading_last(
    last_row: Callable[..., Any], operands: list[Any], lead: _Lazy, carried: int, lanes: Any, mode: Any, ctrl: int
) -> Any:
    """The last row of a scan (`LastRowScan` with `zero_terms`: a binary op's) of the carried operand and `lead`, +0 past
    its first k lanes, every lane active: lanes below k from its first lanes alone, the others from one row of +0
    terms (any number of rows of them leave what one does). None where the scan has no last row alone."""
    assert lead.lead is not None and len(operands) == 2
    init = operands[carried]
    k, n = lead.lead.shape[-1], lead.shape[1]

    def pair(acc: Any, x: Any) -> list[Any]:
        return [acc, x] if carried == 0 else [x, acc]

    head = last_row(pair(init[:k], lead.lead), carried, lanes[:, :k], mode, ctrl=ctrl)
    tail = last_row(pair(init[k:], np.zeros((1, n - k), lead.dtype)), carried, lanes[:1, k:], mode, ctrl=ctrl)
    return None if head is None or tail is None else np.concatenate([head, tail])


def meet(earlier: list[Access], new: Access, rows: int) -> str:
    """The hazard certain between the access `new` and the accesses `earlier` of one loop of `rows` iterations ("" if
    none is): a store against every earlier access and its own rows, a load against the earlier stores, where both
    are exact boxes of one step (`_meets`). Rows closer than a row is wide write their bytes twice; two equal boxes
    are in place (each row meets its own alone: a hazard only where both write)."""
    box = new.box
    if box is None or not new.exact or rows < 2:
        return ""
    write, ub = new.write, new.ub
    if write and abs(box[1]) < box[2]:  # (its own rows meet where they are closer than a row is wide)
        return WRITTEN_TWICE
    for a in earlier:
        if a.ub != ub or not (write or a.write) or not a.exact:
            continue
        other = a.box
        if other == box:  # (in place: rows a row apart at least, so each meets its own alone)
            if write and a.write:
                return WRITTEN_TWICE
            continue
        why = "" if other is None else _meets(other, box, rows - 1, write and a.write)
        if why:
            return why
    return ""


def _disjoint(accesses: list[Access], rows: int) -> bool:
    """Whether one UB's accesses certainly have no hazard: each write's rows are in ascending,
    non-overlapping order, and every two accesses (one a write) either have disjoint address
    ranges or are both affine in the iteration with one step, at offsets where iteration b of
    one meets no iteration of the other but b (none at all for two writes). An access known to
    lie within an affine box is judged by its box (no hazard between boxes: none between what they hold)."""
    boxes: list[tuple[int, int, bool, tuple[int, int, int] | None]] = []
    for a in accesses:
        write, affine = a.write, a.box
        if affine is not None:  # (start, step, width), known: no arrays to look at
            start, step, width = affine
            if write and (step < width):  # rows out of order or overlapping
                return False
            last = start + step * (rows - 1)
            boxes.append((start, last + width, write, affine) if step >= 0 else (last, start + width, write, affine))
            continue
        lo, hi, used = a.spans
        if not lo.size:
            continue
        if write and lo.size > 1 and not (lo[1:] >= hi[:-1]).all():
            return False
        boxes.append((int(lo.min()), int(hi.max()), write, _affine(lo, hi, used, rows)))
    for k, (lo_a, hi_a, write_a, affine_a) in enumerate(boxes):
        for lo_b, hi_b, write_b, affine_b in boxes[k + 1 :]:
            if (
                (write_a or write_b)
                and lo_a < hi_b
                and lo_b < hi_a
                and not _apart(affine_a, affine_b, write_a and write_b, rows - 1)
            ):
                return False
    return True


def _affine(lo: Any, hi: Any, used: Any, rows: int) -> tuple[int, int, int] | None:
    """(start, step, width) of an access made by every iteration at start + b·step, `width` bytes."""
    if used is None or lo.size != rows or rows < 2:
        return None
    step = _step(lo)
    width = int(hi[0] - lo[0])
    if step is None or not (hi - lo == width).all():
        return None
    return int(lo[0]), step, width


def _apart(a: tuple[int, int, int] | None, b: tuple[int, int, int] | None, both_write: bool, last: int) -> bool:
    """Whether iteration r of one affine access overlaps iteration r + k of the other, over rows 0..`last`, only for
    k = 0 (for two writes: for no k)."""
    if a is None or b is None or a[1] != b[1]:
        return False
    k_min, k_max = _offsets(a, b, last)
    return k_min > k_max or (not both_write and k_min == k_max == 0)


def _meets(a: tuple[int, int, int], b: tuple[int, int, int], last: int, writes: bool) -> str:
    """The hazard, if one is certain, between two exact boxes of one step over rows 0..`last`, an access's `b` and an
    earlier one's `a`, one of them a write (both where `writes`): some row of one shares a byte with another row of
    the other, or, where both write, with any row of it (one byte written twice).
    "" where none is, or the boxes do not settle it (steps that differ: the exact check's)."""
    if a[1] != b[1] or last < 1 or _apart(a, b, writes, last):
        return ""
    return WRITTEN_TWICE if writes else READS_ANOTHERS


def _offsets(a: tuple[int, int, int], b: tuple[int, int, int], last: int) -> tuple[int, int]:
    """The least and greatest k in [-last, last] for which row r of box `a` may share a byte with row r + k of box `b`
    (boxes of one step; k_min > k_max: none). Row r of `a` covers [sa + r·s, +wa), row r + k of `b`
    [sb + (r + k)·s, +wb): they meet when k·s lies in (sa - sb - wb, sa - sb + wa)."""
    (sa, s, wa), (sb, _, wb) = a, b
    low, high = sa - sb - wb, sa - sb + wa
    if s == 0:
        return (-last, last) if low < 0 < high else (1, 0)
    if s < 0:
        s, low, high = -s, -high, -low
    return max(low // s + 1, -last), min(-(-high // s) - 1, last)


def _check_rows(accesses: list[tuple[Any, Any, Any, bool]]) -> None:
    """The exact check: every byte a write covers is touched by no other row."""
    writes = [(lo, hi, rows) for lo, hi, rows, write in accesses if write]
    if not writes:
        return
    w_lo, w_hi, w_row = (np.concatenate(parts) for parts in zip(*writes, strict=True))
    order = np.argsort(w_lo, kind="stable")
    w_lo, w_hi, w_row = w_lo[order], w_hi[order], w_row[order]
    if (w_lo[1:] < np.maximum.accumulate(w_hi)[:-1]).any():
        raise Hazard(WRITTEN_TWICE)
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
            raise Hazard(READS_ANOTHERS)
        # the writes a read overlaps must all be its own iteration's: one row over [s, e)
        s_hit, e_hit = s_idx[hit], e_idx[hit]
        if (changes[e_hit - 1] != changes[s_hit]).any() or (w_row[s_hit] != rows[hit]).any():
            raise Hazard(READS_ANOTHERS)


def _step(addrs: npt.NDArray[np.int64]) -> int | None:
    """The constant positive step of per-iteration addresses, if they have one."""
    if addrs.size < 2:
        return None
    step = int(addrs[1] - addrs[0])
    if step <= 0 or not (np.diff(addrs) == step).all():
        return None
    return step


def _rows_in_order(
    lane: Callable[..., Any], uses_ctrl: bool, operands: list[Any], carried: int, active: Bools, mode: Any, ctrl: int, dtype: Any
) -> npt.NDArray[Any]:
    """An elementwise op whose destination is its input `carried`, over the rows one after another, as
    the iterations run in order: row b = lane(row b - 1's result, the other operands' row b), committed
    under row b's predicate (`merged`: ZEROING zeroes the inactive lanes, MERGING keeps row b - 1's)."""
    rows = active.shape[0]
    acc = np.asarray(operands[carried])
    out = np.empty((rows, active.shape[-1]), dtype)
    for b in range(rows):
        args = [
            acc if k == carried else (x[b] if isinstance(x, np.ndarray) and x.ndim == 2 else x) for k, x in enumerate(operands)
        ]
        result = lane(*args, ctrl=ctrl) if uses_ctrl else lane(*args)
        row = active[b]
        acc = np.asarray(result, dtype) if row.all() else merged(np.asarray(result, dtype), acc, row, mode)
        out[b] = acc
    return out


def _span(addrs: npt.NDArray[np.int64], prog: tuple[int, int] | None) -> tuple[int, int]:
    """The lowest and highest of per-iteration addresses (from their progression when known)."""
    if prog is None:
        return int(addrs.min()), int(addrs.max())
    last = prog[0] + prog[1] * (addrs.size - 1)
    return min(prog[0], last), max(prog[0], last)


def _rows(data: npt.NDArray[Any], addrs: npt.NDArray[np.int64], nbytes: int, step: int | None) -> npt.NDArray[Any]:
    """`nbytes` of `data` from each address: a read-only strided view where the addresses step
    evenly (by a positive `step`), else a gather."""
    if step is not None and step > 0:
        view = _strided(data, (int(addrs[0]), (addrs.size, nbytes), (step, data.itemsize)))
        view.flags.writeable = False
        return view
    gathered: npt.NDArray[Any] = data[addrs[:, None] + np.arange(nbytes)]
    return gathered


def _strided(data: npt.NDArray[Any], at: tuple[int, tuple[int, ...], tuple[int, ...]]) -> npt.NDArray[Any]:
    """A writable strided view of `data` (contiguous, one-byte items) from byte `at[0]`, of shape `at[1]`
    and strides `at[2]` (numpy's `as_strided`, without its Python-level overhead)."""
    start, shape, strides = at
    if len(shape) == 2:  # (the common case, rows of bytes: no loop)
        rows, width = shape
        size = rows * width if strides[1] == 1 and strides[0] == width else -1
    else:
        size = 1
        for n, stride in zip(reversed(shape), reversed(strides), strict=True):
            if stride != size:  # (not rows back to back)
                size = -1
                break
            size *= n
    if 0 <= size and 0 <= start and start + size <= data.size:  # back to back: a slice, reshaped (cheaper than the constructor)
        return data[start : start + size].reshape(shape)
    return _ndarray(shape, data.dtype, data, start, strides)  # (positional: keywords cost more than the view)


_ndarray = np.ndarray


def _rowed_of(inputs: tuple[Any, ...], np_dtype: Any) -> bool:
    """Whether an elementwise op's inputs are the plain case of `result_buffer` and `deferred`: some input with a row an
    iteration (an array of two axes), every input of `np_dtype`."""
    rowed = False
    for x in inputs:
        if getattr(x, "ndim", 0) >= 2:
            rowed = True
            break
    if rowed:
        for x in inputs:
            d = x.dtype
            if d is not np_dtype and d != np_dtype:  # (numpy's own dtypes: the same object)
                return False
    return rowed


def _rows_of(x: npt.NDArray[Any], rows: int) -> npt.NDArray[Any]:
    """`np.broadcast_to(x, (rows, x.shape[-1]))` to read (cheaper for one contiguous row; `x` itself where it has a
    row an iteration already: a state adopting it treats it as shared, copied before it is written)."""
    if x.ndim == 2 and x.shape[0] == rows:  # (one row an iteration already)
        return x
    if x.ndim == 1 and x.flags.c_contiguous:
        view = _ndarray((rows, x.shape[0]), x.dtype, x, 0, (0, x.itemsize))
        view.flags.writeable = False
        return view
    return np.broadcast_to(x, (rows, x.shape[-1]))


def _row_spans(rows: int, addr: Any, active: Bools | None, lanes: int, unit: int) -> tuple[Any, Any, Any]:
    """A store's bytes in each row from its first to its last active lane: (starts, ends, the rows with an active
    lane)."""
    addrs = _shaped(np.asarray(addr, np.int64), (rows,))
    if active is None:
        return addrs, addrs + lanes * unit, iota(rows)
    act = _shaped(active, (rows, lanes))
    used = np.flatnonzero(act.any(axis=-1))
    first, last = act[used].argmax(axis=-1), lanes - act[used, ::-1].argmax(axis=-1)
    return addrs[used] + first * unit, addrs[used] + last * unit, used


#: a strided view of a storage's bytes: (start, shape, strides)
_At = tuple[int, tuple[int, ...], tuple[int, ...]]

#: a store's spans in each row (`_row_spans`) with each row's active lanes: what its note records
_Spans = tuple[Any, Any, Any, Any]


def _shaped(x: npt.NDArray[Any], shape: tuple[int, ...]) -> npt.NDArray[Any]:
    """`np.broadcast_to(x, shape)` (read it only), `x` itself where it has that shape already."""
    return x if x.shape == shape else np.broadcast_to(x, shape)


@functools.cache
def _all_lanes(n: int) -> Bools:
    lanes = np.ones(n, np.bool_)
    lanes.flags.writeable = False
    return lanes


def _lanes_to_bits(lanes: Bools, pattern: bytes) -> Bools:
    """Lanes (leading axes allowed) in the MaskReg layout: active lane i sets `pattern`'s bits from
    bit i * len(pattern)."""
    if pattern == LSB[len(pattern)]:
        bits = np.zeros((*lanes.shape[:-1], MASK_BITS), np.bool_)
        bits[..., :: len(pattern)] = lanes
        return bits
    return np.logical_and(lanes[..., None], np.frombuffer(pattern, np.bool_)).reshape(*lanes.shape[:-1], MASK_BITS)


def _pack_lanes(lanes: Bools, pattern: bytes) -> Bytes:
    """`np.packbits(_lanes_to_bits(lanes, pattern), axis=-1, bitorder="little")` without the bits."""
    s, lead = len(pattern), lanes.shape[:-1]
    bits = np.frombuffer(pattern, np.bool_)
    lane_bytes = lanes.view(np.uint8)
    if pattern == b"\x01":
        return np.packbits(lanes, axis=-1, bitorder="little")
    if pattern == LSB.get(s):  # one bit a lane: the bits made by a strided copy, then packed (cheaper than the products)
        packed: Bytes = np.packbits(_lanes_to_bits(lanes, pattern), axis=-1, bitorder="little")
        return packed
    if s >= 8:  # whole bytes per lane
        group = np.packbits(bits, bitorder="little")
        return (lane_bytes[..., None] * group).reshape(*lead, MASK_BITS // 8)
    per_byte = 8 // s
    group_value = int(np.packbits(bits, bitorder="little")[0])
    out = np.zeros((*lead, MASK_BITS // 8), np.uint8)
    for j in range(per_byte):
        out |= lane_bytes[..., j::per_byte] * np.uint8(group_value << (j * s))
    return out
