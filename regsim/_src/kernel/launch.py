"""A grid of cores: `@rs.kernel` (a `__global__ __aicore__` function) and `rs.launch(kernel, block_dim, *args)`
(`kernel<<<blockDim, nullptr, stream>>>(args...)`, also spelled `kernel[block_dim](*args)`).

Each block runs on a core of its own: its own UB (and so its own CTRL, masks and AR), its own pipes, sharing
the GM: the numpy arrays passed for the kernel's `GmPtr` parameters, written in place. Blocks run one at a time,
in order of their index, each until it ends or reaches a `SyncAll`; when every block has reached it, they go on
in order again (a block runs in a thread of its own so that `SyncAll` can pause it; only one runs at a time, so
a run is deterministic and `pdb` stops in the block that hit a breakpoint). A kernel's error stops the launch;
what ran before stays in GM, as on a device.

`workers=N` runs the blocks in N processes, each running its share of the blocks as above, the `SyncAll`s met
across processes: the same GM bytes as the in-order run. Forked, the launching process runs the first share itself,
on the host's arrays; a worker reads the host's arrays as the fork left them (nothing copied) and writes its own copy
of them, until the grid's first `SyncAll`, from which on every process's GM is the launch's shared memory. At the end
the bytes the workers wrote come back into the host's arrays: from the shared memory after a `SyncAll`, else read
from each worker's memory (or, where the system refuses that, pushed by it through the shared memory); each block's
events are sent pickled.

Across cores, two accesses to the same GM bytes (one a write) between the same two `SyncAll`s race: a
`RaceError` naming both (at each `SyncAll` and at the end in order; at the end with workers).
"""

from __future__ import annotations

import contextvars
import ctypes
import errno
import functools
import gc
import importlib
import inspect
import mmap
import multiprocessing
import pickle
import threading
import traceback
import typing
from collections.abc import Callable, Iterable, Sequence
from multiprocessing import connection, shared_memory
from typing import Any, Generic, ParamSpec

import attrs
import numpy as np
import numpy.typing as npt

from regsim._src.kernel.block import Block, use_block
from regsim._src.kernel.gm import GmBuffer, GmPtr
from regsim._src.kernel.pipes import PIPE_NAMES, PipeEvent, Ranges, Row, byte_ranges
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, binding_error, host_api
from regsim._src.model.config import _CONFIG, Config, current_config
from regsim._src.model.memory import UnifiedBuffer
from regsim._src.vf.trace import kernel_line
from regsim.errors import ParameterError, RaceError, SyncError, UnsupportedError, VfContextError, message

P = ParamSpec("P")
MAX_BLOCK_DIM = 65535  #: the largest blockDim a launch takes
#: how worker processes start: None, forked where the platform can ("fork"), else spawned ("spawn")
START_METHOD: str | None = None


class Kernel(Generic[P]):
    """A `__global__ __aicore__` function: launch it with `rs.launch(k, block_dim, *args)` or `k[block_dim](*args)`."""

    def __init__(self, f: Callable[P, None]) -> None:
        self.f = f
        self.name = getattr(f, "__name__", repr(f))
        self.signature = inspect.signature(f)
        try:
            hints = typing.get_type_hints(f)
        except Exception:  # (annotations that do not resolve: the arrays' pointers are GM_ADDR)
            hints = {}
        #: the element type of each GmPtr parameter (`GM_ADDR`: uint8)
        self.pointers = {
            name: (typing.get_args(h) or (dt.uint8,))[0] for name, h in hints.items() if (typing.get_origin(h) or h) is GmPtr
        }
        functools.update_wrapper(self, f)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> None:
        raise VfContextError(
            message(
                self.name,
                "call",
                "called like a function",
                f"a launch: rs.launch({self.name}, block_dim, ...) or {self.name}[block_dim](...)",
            )
        )

    def __getitem__(self, config: int | tuple[Any, ...]) -> Callable[..., KernelRun]:
        """`k[block_dim]` or `k[block_dim, l2ctrl, stream]`: the `<<<...>>>` of C++ (l2ctrl None or 0, any stream)."""
        block_dim, *rest = config if isinstance(config, tuple) else (config,)
        if len(rest) > 2 or (rest and rest[0] not in (None, 0)):
            raise ParameterError(
                message(self.name, "launch configuration", repr(config), "[block_dim] or [block_dim, None, stream]")
            )
        return functools.partial(launch, self, block_dim)

    def __repr__(self) -> str:
        return f"<kernel {self.name}>"

    def __reduce__(self) -> tuple[Any, ...]:
        """By reference, as a function pickles: a spawned worker process imports the kernel's module."""
        return (_kernel_named, (self.f.__module__, self.f.__qualname__))


def _kernel_named(module: str, qualname: str) -> Kernel[Any]:
    """The kernel `module.qualname` (a spawned worker's copy of the launch's kernel)."""
    k: Any = importlib.import_module(module)
    for part in qualname.split("."):
        k = getattr(k, part)
    if not isinstance(k, Kernel):
        raise TypeError(f"{module}.{qualname} is not an @rs.kernel")
    return k


@host_api("kernel")
def kernel(f: Callable[P, None]) -> Kernel[P]:
    """`@rs.kernel`: mark `f` as a kernel (`extern "C" __global__ __aicore__ void f(GM_ADDR x, ...)`). Parameters
    annotated `rs.GmPtr[T]` take numpy arrays (the GM); the others are passed as given."""
    if not callable(f):
        raise ParameterError(message("kernel", "f", repr(f), "a function"))
    return Kernel(f)


@attrs.frozen
class KernelRun:
    """What a launch did: each block's pipe activity (`events[block]`, in issue order)."""

    kernel: str
    block_dim: int
    workers: int | None
    #: each block's event log, as its core kept it (`PipeEvent` rows) or as a worker sent it (the rows pickled: read
    #: only if asked for)
    logs: tuple[Any, ...] = attrs.field(repr=False, eq=False)
    _cache: dict[str, Any] = attrs.field(factory=dict, init=False, repr=False, eq=False)

    @property
    def events(self) -> tuple[tuple[PipeEvent, ...], ...]:
        """Each block's events (`PipeEvent`s, made from the logs when first asked for)."""
        events = self._cache.get("events")
        if events is None:
            make = PipeEvent._make
            events = self._cache["events"] = tuple(
                tuple(map(make, pickle.loads(log) if isinstance(log, bytes) else log)) for log in self.logs
            )
        return events

    def pipe_events(self, block: int, pipe: str) -> list[PipeEvent]:
        """Block `block`'s events on one pipe ("S", "V", "MTE2", "MTE3"; "ALL" for PIPE_ALL barriers)."""
        return [e for e in self.events[block] if e.pipe == pipe]


@host_api("launch")
def launch(k: Kernel[Any], block_dim: int, *args: Any, workers: int | None = None, **kwargs: Any) -> KernelRun:
    """`k<<<block_dim, nullptr, stream>>>(args...)`: run kernel `k` on `block_dim` cores. Numpy arrays passed for
    its `GmPtr` parameters (or for unannotated ones) are the GM, written in place; keyword arguments are its
    keyword-only (C++ template) parameters. `workers=N`: the blocks run in N processes, with the same results."""
    if not isinstance(k, Kernel):
        raise ParameterError(message("launch", "kernel", repr(k), "a function decorated with @rs.kernel"))
    block_dim = as_int("launch", "block_dim", block_dim, 1, MAX_BLOCK_DIM)
    if workers is not None:
        workers = min(as_int("launch", "workers", workers, 1), block_dim)
    try:
        bound = k.signature.bind(*args, **kwargs)
    except TypeError:
        raise binding_error(k.name, k.signature, args, kwargs) from None
    buffers = _gm_buffers(k, bound.arguments)
    grid = _Grid(k, block_dim, bound, buffers)
    events = grid.run_in_order() if workers is None else grid.run_in_processes(workers)
    return KernelRun(k.name, block_dim, workers, tuple(events))


def _gm_buffers(k: Kernel[Any], arguments: dict[str, Any]) -> dict[str, GmBuffer]:
    """A GM buffer for each array argument (the same array twice: one buffer)."""
    out: dict[str, GmBuffer] = {}
    seen: list[tuple[npt.NDArray[Any], GmBuffer]] = []
    for name, value in arguments.items():
        if not isinstance(value, np.ndarray):
            if name in k.pointers and value is not None:
                raise ParameterError(message(k.name, name, repr(value), "a numpy array (the GM buffer), or None (nullptr)"))
            continue
        if not (value.flags.c_contiguous and value.flags.writeable and value.flags.aligned):
            raise ParameterError(
                message(
                    k.name,
                    name,
                    "a non-contiguous, read-only or unaligned array",
                    "a C-contiguous, writeable array (np.ascontiguousarray copies one)",
                )
            )
        same = next((b for a, b in seen if a is value), None)
        if same is None:
            other = next((b for a, b in seen if np.may_share_memory(a, value)), None)
            if other is not None:
                raise ParameterError(
                    message(
                        k.name,
                        name,
                        "an array sharing memory with " + other.name,
                        "separate arrays, or the same array object twice",
                    )
                )
            same = GmBuffer(name, value.reshape(-1).view(np.uint8))
            seen.append((value, same))
        out[name] = same
    return out


class _Cancelled(BaseException):
    """Unwinds a block paused at `SyncAll` when the launch stops."""


class _BlockRun:
    """One block, run in a thread of its own one turn at a time: until it ends or reaches a `SyncAll`."""

    def __init__(self, grid: _Grid, idx: int) -> None:
        self.grid, self.idx = grid, idx
        self.state = "new"  #: "new", "running", "sync" (paused at SyncAll), "done"
        self.error: BaseException | None = None
        self.epoch = 0  #: the SyncAlls passed
        self.sync_line = ""
        self.cancelled = False
        self.events: list[Row] = []
        self.gm_logs: list[list[Any]] = []  #: the block's GM accesses, by epoch
        self.extents: list[Extent] = []  #: their `extent`s
        self._go, self._back = threading.Semaphore(0), threading.Semaphore(0)
        ctx = contextvars.copy_context()
        self.thread = threading.Thread(target=ctx.run, args=(self._main,), name=f"regsim block {idx}", daemon=True)

    def resume(self) -> None:
        """Run the block's next turn (in its thread, while this one waits)."""
        if self.state == "new":
            self.thread.start()
        self.state = "running"
        self._go.release()
        self._back.acquire()

    def cancel(self) -> None:
        if self.state == "sync":
            self.cancelled = True
            self._go.release()
            self.thread.join()

    def _main(self) -> None:
        self._go.acquire()
        block = None
        try:
            block = Block(self.idx, self.grid.block_dim, UnifiedBuffer(), self._sync_all)
            use_block(block)
            args, kwargs = self.grid.arguments()
            self.grid.kernel.f(*args, **kwargs)
            block.finish()
        except _Cancelled:
            pass
        except BaseException as e:
            e.add_note(f"(in block {self.idx} of {self.grid.block_dim} of kernel {self.grid.kernel.name})")
            e._regsim_where = (self.epoch, self.idx)  # type: ignore[attr-defined]  # (which error a launch raises)
            self.error = e
        finally:
            if block is not None:
                self._hand_over(block)
                self.events = block.pipes.events
                block.release()
            self.state = "done"
            self._back.release()

    def _hand_over(self, block: Block) -> None:
        """Keep the epoch's GM accesses, and their extent."""
        self.gm_logs.append(block.pipes.gm_log)
        self.extents.append(extent(block.pipes.gm_log))

    def _sync_all(self, block: Block) -> None:
        """SyncAll, in the block's thread: hand over the epoch's GM accesses, wait for the next turn."""
        self._hand_over(block)
        block.pipes.gm_log = []
        self.state, self.sync_line = "sync", kernel_line()
        self._back.release()
        self._go.acquire()
        if self.cancelled:
            raise _Cancelled
        self.epoch += 1


class _Grid:
    """The blocks of one launch and the GM they share."""

    def __init__(self, k: Kernel[Any], block_dim: int, bound: inspect.BoundArguments, buffers: dict[str, GmBuffer]) -> None:
        self.kernel, self.block_dim, self.bound, self.buffers = k, block_dim, bound, buffers

    def arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The kernel's arguments for one block: a fresh pointer to each GM buffer."""
        b = inspect.BoundArguments(self.bound.signature, self.bound.arguments.copy())
        for name, buf in self.buffers.items():
            b.arguments[name] = GmPtr(buf, self.kernel.pointers.get(name, dt.uint8))
        return b.args, b.kwargs

    def run_in_order(self) -> list[Any]:
        # (the objects made before the launch out of its collections: the blocks' records, which stay, grow the oldest
        # generation, and each full collection they cause would walk the whole heap again; none if a caller froze some)
        freeze = gc.get_freeze_count() == 0
        if freeze:
            gc.freeze()
        try:
            runs = _run_blocks(self, [_BlockRun(self, i) for i in range(self.block_dim)], _local_round)
        finally:
            if freeze:
                gc.unfreeze()
        return [r.events for r in runs]

    def _spawnable(self, workers: int) -> _Grid:
        """This grid as a spawned worker gets it: the kernel by reference, no arrays (GM is the shared memory)."""
        try:
            same = _kernel_named(self.kernel.f.__module__, self.kernel.f.__qualname__) is self.kernel
        except (ImportError, AttributeError, TypeError):
            same = False
        if not same:
            raise UnsupportedError(
                message(
                    "launch",
                    "workers",
                    f"{workers} with kernel {self.kernel.name} ({self.kernel.f.__qualname__} in {self.kernel.f.__module__})",
                    "a kernel a module defines at its top level where worker processes are spawned (they import it), "
                    "or workers=None",
                )
            )
        arguments = {name: None if name in self.buffers else v for name, v in self.bound.arguments.items()}
        spaces = {b.space: GmBuffer(b.name, np.empty(0, np.uint8)) for b in self.buffers.values()}
        buffers = {name: spaces[b.space] for name, b in self.buffers.items()}
        return _Grid(self.kernel, self.block_dim, inspect.BoundArguments(self.bound.signature, arguments), buffers)

    def _start(
        self,
        ctx: Any,
        method: str,
        grid: _Grid,
        workers: int,
        memory: dict[str, Any],
        sizes: dict[str, int],
        hosts: dict[str, npt.NDArray[np.uint8]],
        procs: list[Any],
    ) -> tuple[list[Report], bool]:
        """Start the workers, each with its share of the blocks; forked, the launching process runs the first share
        itself (its GM the host's arrays) and meets the others at each round's end. Their reports (the launching
        process's first, if it ran a share), and whether the blocks' GM became the shared memory (a SyncAll was met:
        every block's writes are there, to be copied back). If not, the bytes each forked worker wrote are read from
        its copy of the host's arrays into them (`_Meeting.fetch`) before it ends. The workers' processes, into `procs`
        (to be joined: released, they end while the launch checks its races)."""
        own = method == "fork"
        shares = np.array_split(np.arange(self.block_dim), workers)
        config = current_config()
        results = ctx.SimpleQueue()
        downs = {w: ctx.Pipe(duplex=False) for w in range(1 if own else 0, workers)}
        made = [
            ctx.Process(
                target=_worker,
                args=(grid, w, list(map(int, shares[w])), memory, sizes, config, results, down[0]),
                daemon=True,
            )
            for w, down in downs.items()
        ]
        meeting = _Meeting(results, {w: down[1] for w, down in downs.items()}, made)
        # (the objects of this process out of the workers' collections: no copy of its heap in each; and, as in
        # order, out of the collections the launching process's own blocks cause)
        freeze = gc.get_freeze_count() == 0
        if freeze:
            gc.freeze()
        try:
            for p in made:
                p.start()
                procs.append(p)  # (those started: to be ended, should the launch fail, and joined)
            if own:
                report, shared = _run_share(grid, 0, list(map(int, shares[0])), memory, sizes, meeting.meet, local=True)
            else:
                states, shared = meeting.meet(None), True
                while all(s == "sync" for s in states):
                    states = meeting.meet(None)
        except BaseException:
            _end(procs)
            raise
        finally:
            if freeze:
                gc.unfreeze()
        try:
            reports = ([report] if own else []) + meeting.reports()
            if not shared:  # (each worker's writes are in its copy of the host's arrays: it waits while they are read)
                for w, (_, _, _, extents, _) in zip(meeting.downs, reports[1:], strict=True):
                    meeting.fetch(w, _written(e for es in extents for e in es), hosts, memory, sizes)
            meeting.release()
        except BaseException:
            _end(procs)
            raise
        return reports, shared

    def run_in_processes(self, workers: int) -> list[Any]:
        procs: list[Any] = []
        try:
            return self._run_in_processes(workers, procs)
        finally:
            for p in procs:
                p.join()

    def _run_in_processes(self, workers: int, procs: list[Any]) -> list[Any]:
        method = START_METHOD or ("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        ctx = multiprocessing.get_context(method)
        buffers = {b.space: b for b in self.buffers.values()}
        hosts = {space: b.data for space, b in buffers.items()}  # (the launching process's GM may become the twins)
        # each buffer's shared twin: every process's GM from the grid's first SyncAll on (forked processes read and
        # write the host's arrays, or the fork's copy of them, until then), all of it from the start where workers are
        # spawned (they have no copy of the host's arrays); a forked worker's writes pushed through it where they
        # cannot be read from its memory. The bytes the blocks wrote there are copied back.
        memory: dict[str, Any]
        if method == "fork":
            memory = {space: mmap.mmap(-1, max(b.nbytes, 1)) for space, b in buffers.items()}
            grid = self
        else:
            grid = self._spawnable(workers)
            memory = {space: shared_memory.SharedMemory(create=True, size=max(b.nbytes, 1)) for space, b in buffers.items()}
            for space, b in buffers.items():
                _twin(memory[space], b.nbytes)[:] = b.data
        sizes = {space: b.nbytes for space, b in buffers.items()}
        try:
            reports, shared = self._start(ctx, method, grid, workers, memory, sizes, hosts, procs)
            by_block: dict[int, tuple[Any, list[list[Any]], list[Extent]]] = {}
            errors: list[tuple[int, int, BaseException]] = []
            for indices, events, gm_logs, extents, error in reports:
                for idx, log, logs, e in zip(indices, events, gm_logs, extents, strict=True):
                    by_block[idx] = (log, logs, e)
                if error is not None:
                    errors.append(error)
            if shared:  # the GM bytes the blocks wrote, from the shared memory back into the host's arrays
                written = _written(e for _, _, es in by_block.values() for e in es)
                for space in buffers:
                    if space in written:
                        _copy_ranges(hosts[space], _twin(memory[space], sizes[space]), written[space])
        finally:
            for b in buffers.values():
                b.data = hosts[b.space]
            for m in memory.values():
                try:
                    m.close()
                except BufferError:  # (a view still held, by an error's traceback: the mapping goes with it)
                    pass
                if method != "fork":
                    m.unlink()
        if errors:
            first = [min(errors, key=lambda e: (e[0], e[1]))[2]]
            del errors, reports, by_block  # (nothing here keeping the error its traceback keeps this frame of)
            _raise_alone(first)
        epochs = max(len(logs) for _, logs, _ in by_block.values())
        for epoch in range(epochs):
            ran = [(idx, logs[epoch], es[epoch]) for idx, (_, logs, es) in sorted(by_block.items()) if epoch < len(logs)]
            check_gm_races([(idx, log) for idx, log, _ in ran], [e for _, _, e in ran])
        return [by_block[i][0] for i in range(self.block_dim)]


GmLog = Sequence[tuple[str, bool, Ranges, int, str, str]]  #: a block's GM accesses of one epoch, as its pipes log them
#: a block's GM accesses of one epoch by memory: (the bytes it touched, those it wrote or None), each sorted and disjoint
Extent = dict[str, tuple[Ranges, Ranges | None]]


def extent(log: GmLog) -> Extent:
    """The bytes a GM access log touched and wrote, by memory (what `_written` and `_shared_spaces` read: a block's
    log summed up where it ran, by the worker that ran it)."""
    parts: dict[str, tuple[list[Ranges], list[Ranges]]] = {}
    for space, write, ranges, *_ in log:
        both = parts.get(space)
        if both is None:
            both = parts[space] = ([], [])
        both[0].append(ranges)
        if write:
            both[1].append(ranges)
    out: Extent = {}
    for space, (every, writes) in parts.items():
        touched = _union(every)
        if touched is not None:
            out[space] = (touched, _union(writes))
    return out


def _union(ranges: Sequence[Ranges]) -> Ranges | None:
    """The bytes of several `Ranges` (int pairs, or arrays of several ranges), sorted and disjoint; None if none."""
    if not ranges:
        return None
    if all(type(r[0]) is int for r in ranges):
        los, his = zip(*ranges, strict=True)  # (two arrays of ints: half the time of one array of pairs)
        return byte_ranges(np.array(los, np.int64), np.array(his, np.int64))
    return byte_ranges(
        np.concatenate([np.atleast_1d(r[0]) for r in ranges]), np.concatenate([np.atleast_1d(r[1]) for r in ranges])
    )


def _written(extents: Iterable[Extent]) -> dict[str, Ranges]:
    """The GM bytes blocks wrote, by memory: sorted, disjoint ranges."""
    parts: dict[str, list[Ranges]] = {}
    for e in extents:
        for space, (_, writes) in e.items():
            if writes is not None:
                parts.setdefault(space, []).append(writes)
    out = {}
    for space, ranges in parts.items():
        merged = _union(ranges)
        if merged is not None:
            out[space] = merged
    return out


def _twin(memory: Any, nbytes: int) -> npt.NDArray[np.uint8]:
    """The bytes of a buffer's shared twin (an mmap, or a SharedMemory's buffer)."""
    return np.frombuffer(memory if isinstance(memory, mmap.mmap) else memory.buf, np.uint8)[:nbytes]


def _copy_ranges(dst: npt.NDArray[np.uint8], src: npt.NDArray[np.uint8], ranges: Ranges) -> None:
    """dst[lo:hi] = src[lo:hi] for each range [lo, hi)."""
    for lo, hi in zip(np.atleast_1d(ranges[0]).tolist(), np.atleast_1d(ranges[1]).tolist(), strict=True):
        dst[lo:hi] = src[lo:hi]


#: a round's end: this share's state ("sync", "done", "error") and blocks -> every share's state
Round = Callable[[str, Sequence["_BlockRun"]], list[str]]


def _local_round(state: str, runs: Sequence[_BlockRun]) -> list[str]:
    return [state]


def _run_blocks(grid: _Grid, runs: Sequence[_BlockRun], round_end: Round) -> Sequence[_BlockRun]:
    """Run the blocks of `runs` (some of the grid's) turn by turn: each until it ends or reaches a SyncAll. When
    every block of the grid waits at a SyncAll (`round_end` tells of the other shares), the next turn starts; in
    order, the epoch's GM accesses are checked first. Raises the first block's error (after stopping the others)."""
    in_order = round_end is _local_round
    try:
        while True:
            for r in runs:
                if r.state != "done":
                    r.resume()
                if r.error is not None:
                    round_end("error", runs)
                    _raise_alone(r)
            waiting = [r for r in runs if r.state == "sync"]
            states = round_end("done" if not waiting else "sync" if len(waiting) == len(runs) else "mixed", runs)
            if "error" in states:
                raise _Cancelled
            if in_order:
                check_gm_races([(r.idx, r.gm_logs[-1]) for r in runs], [r.extents[-1] for r in runs])
            if all(s == "done" for s in states):
                return runs
            if any(s != "sync" for s in states):
                ended = [r.idx for r in runs if r.state == "done"]
                told = f"block {waiting[0].idx} waits at {waiting[0].sync_line}" if waiting else "blocks of another worker wait"
                told += f" while blocks {ended} ended without reaching it" if ended else " while blocks of another worker ended"
                raise SyncError(
                    message(
                        "SyncAll",
                        "blocks",
                        told,
                        "every block of the grid reaching each SyncAll (on the device the others wait for ever)",
                    )
                )
    finally:
        for r in runs:
            r.cancel()


def _raise_alone(holder: Any) -> None:
    """Raise the error `holder` keeps (a block's run: `.error`; a list: its one item), taken off it first: an error
    whose traceback keeps a frame that keeps the error is a reference cycle, which would keep the block's objects (its
    UB) until the cyclic collector ran."""
    if isinstance(holder, list):
        error = holder.pop()
    else:
        error, holder.error = holder.error, None
    del holder
    try:
        raise error
    finally:
        del error


def _from_its_block(e: BaseException) -> BaseException:
    """A block's error with its traceback from the block's thread on: the frames of the launch that passed it on, which
    keep it (and their callers, the error's holders), dropped from it (else a reference cycle)."""
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code is not _BlockRun._main.__code__:
        tb = tb.tb_next
    return e.with_traceback(tb) if tb is not None else e


def check_gm_races(logs: Sequence[tuple[int, GmLog]], extents: Sequence[Extent] | None = None) -> None:
    """The GM accesses of one epoch (between two SyncAlls), by block (with their `extent`s, in the same order, if
    known): two blocks touching the same bytes, one of them writing, race. A sweep over the accesses sorted by start
    address, keeping for reads-or-writes and for writes the two furthest-reaching accesses of different blocks; only in
    the memories where two blocks' accesses overlap at all (`_shared_spaces`: in the usual grid, each block on its own
    slice, none)."""
    shared = _shared_spaces(extents if extents is not None else [extent(log) for _, log in logs])
    if not shared:
        return
    by_space: dict[str, list[tuple[int, int, int, bool, int, str, str]]] = {}
    for idx, log in logs:
        for space, write, ranges, pipe, api, line in log:
            if space not in shared:
                continue
            los, his = np.atleast_1d(ranges[0]), np.atleast_1d(ranges[1])
            rows = by_space.setdefault(space, [])
            rows.extend((int(lo), int(hi), idx, write, pipe, api, line) for lo, hi in zip(los, his, strict=True))
    for space, rows in by_space.items():
        rows.sort(key=lambda r: r[0])
        reach: tuple[list[Any], list[Any]] = ([None, None], [None, None])  # (any access, writes): best, second
        for row in rows:
            lo, idx, write = row[0], row[2], row[3]
            best, second = reach[0] if write else reach[1]
            other = best if best is not None and best[2] != idx else second
            if other is not None and other[1] > lo:
                raise RaceError(_gm_race(space, other, row))
            for t in reach if write else reach[:1]:
                _keep(t, row)


def _shared_spaces(extents: Sequence[Extent]) -> set[str]:
    """The memories some bytes of which two blocks both access (where a race may be): every block's touched ranges (each
    block's disjoint) sorted together, checked for one starting before an earlier one ends (then of another block)."""
    parts: dict[str, list[Ranges]] = {}
    for e in extents:
        for space, (touched, _) in e.items():
            parts.setdefault(space, []).append(touched)
    shared = set()
    for space, ranges in parts.items():
        if len(ranges) < 2:
            continue
        lo = np.concatenate([np.atleast_1d(r[0]) for r in ranges])
        hi = np.concatenate([np.atleast_1d(r[1]) for r in ranges])
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], hi[order]
        if (lo[1:] < np.maximum.accumulate(hi)[:-1]).any():
            shared.add(space)
    return shared


def _keep(t: list[Any], row: tuple[Any, ...]) -> None:
    """Keep in `t` the furthest-reaching row, and the furthest-reaching row of another block."""
    best, second = t
    if best is None:
        t[0] = row
    elif row[2] == best[2]:
        if row[1] > best[1]:
            t[0] = row
    elif row[1] > best[1]:
        t[0], t[1] = row, best
    elif second is None or row[1] > second[1]:
        t[1] = row


def _gm_race(space: str, a: tuple[Any, ...], b: tuple[Any, ...]) -> str:
    lo, hi = max(a[0], b[0]), min(a[1], b[1])

    def who(r: tuple[Any, ...]) -> str:
        return f"block {r[2]} {'writes' if r[3] else 'reads'} them ({r[5]} on {PIPE_NAMES[r[4]]}, at {r[6]})"

    return (
        f"{space} bytes [{lo}, {hi}): {who(a)} and {who(b)} with no SyncAll between the two; "
        "accepted: a SyncAll() between them, or disjoint bytes for each block"
    )


# --- worker processes ----------------------------------------------------------------------------------------
#: a share's report: its blocks, their events (each block's rows; pickled, from a worker process), GM accesses and
#: extents by epoch, and its first error as (epoch, block, error)
Report = tuple[list[int], list[Any], list[list[list[Any]]], list[list[Extent]], tuple[int, int, BaseException] | None]


def _worker(
    grid: _Grid,
    w: int,
    indices: list[int],
    memory: dict[str, Any],
    sizes: dict[str, int],
    config: Config,
    results: Any,
    down: Any,
) -> None:
    """A worker process: runs share `w` of the blocks with the launch's configuration, meeting the other shares at
    each round's end through the launching process (its state sent up on `results`, every share's read from `down`),
    and sends its report up (each block's rows pickled: the host reads them only if asked for)."""
    _CONFIG.set(config)  # (the launch's configuration: a spawned process starts with the default)

    def meet(state: str) -> list[str]:
        results.put(("meet", w, state))
        states: list[str] = down.recv()
        return states

    (indices, events, gm_logs, extents, error), _ = _run_share(grid, w, indices, memory, sizes, meet, local=False)
    if error is not None:
        error = (error[0], error[1], _picklable(error[2]))
    pickled = [pickle.dumps(rows, pickle.HIGHEST_PROTOCOL) for rows in events]
    results.put(("report", w, (indices, pickled, gm_logs, extents, error)))
    while down.recv() == "push":  # (the launching process could not read the bytes written here itself)
        written = _written(e for es in extents for e in es)
        for b in {b.space: b for b in grid.buffers.values()}.values():
            if b.space in written:
                _copy_ranges(_twin(memory[b.space], sizes[b.space]), b.data, written[b.space])
        results.put(("pushed", w, None))


def _run_share(
    grid: _Grid,
    w: int,
    indices: list[int],
    memory: dict[str, Any],
    sizes: dict[str, int],
    meet: Callable[[str], list[str]],
    local: bool,
) -> tuple[Report, bool]:
    """Share `w` of the blocks, run in this process; its report, and whether its GM ended as the shared memory.

    A forked worker's GM is the host's arrays as the fork left them (its own copy, made as it writes; the launching
    process's share: the arrays themselves) until the grid's first SyncAll; from there on the shared memory, which
    every share fills then (each a share of every buffer's bytes, side by side, then the bytes each wrote). A spawned
    worker's GM is the shared memory throughout (the launch filled it). `meet(state)`: every share's state at a
    round's end. `local`: this is the launching process (an error not a block's, such as a worker's death, is
    raised: the workers are ended)."""
    buffers = list({b.space: b for b in grid.buffers.values()}.values())
    twins = {b.space: _twin(memory[b.space], sizes[b.space]) for b in buffers}
    forked = all(b.data.size == sizes[b.space] for b in buffers)  #: GM is the host's arrays (or the fork's copy)
    if not forked:
        for b in buffers:
            b.data = twins[b.space]

    def round_end(state: str, runs: Sequence[_BlockRun]) -> list[str]:
        nonlocal forked
        states = meet(state)
        if forked and all(s == "sync" for s in states):  # the first SyncAll: from here on, GM is the shared memory
            for b in buffers:
                lo, hi = b.nbytes * w // len(states), b.nbytes * (w + 1) // len(states)
                twins[b.space][lo:hi] = b.data[lo:hi]
            meet("copied")  # (every share copied, as the fork left it or as its process wrote it)
            written = _written(e for r in runs for e in r.extents)  # (each process's writes copied again)
            for b in buffers:
                if b.space in written:
                    _copy_ranges(twins[b.space], b.data, written[b.space])
            meet("copied")
            for b in buffers:
                b.data = twins[b.space]
            forked = False
        return states

    error = None
    runs = [_BlockRun(grid, i) for i in indices]
    try:
        _run_blocks(grid, runs, round_end)
    except _Cancelled:
        pass
    except BaseException as e:
        if local and not hasattr(e, "_regsim_where"):
            raise
        epoch, idx = getattr(e, "_regsim_where", (0, indices[0]))
        error = (epoch, idx, _from_its_block(e))
    finally:
        twins.clear()  # (no view of the shared memory kept by this frame, in an error's traceback)
    return ([r.idx for r in runs], [r.events for r in runs], [r.gm_logs for r in runs], [r.extents for r in runs], error), (
        not forked
    )


class _Meeting:
    """The launching process's side of the workers' meetings: at each round's end, every share's state (its own
    first, if it runs one), gathered from the workers and sent back to each; then their reports. A worker that dies
    is reported (`_collect`)."""

    def __init__(self, results: Any, downs: dict[int, Any], procs: list[Any]) -> None:
        self.results, self.downs, self.procs = results, downs, procs
        self.reported: dict[int, Report] = {}
        self.by_share = dict(zip(downs, procs, strict=True))

    def meet(self, state: str | None) -> list[str]:
        got: dict[int, str] = {}
        while len(got) + len(self.reported) < len(self.downs):
            kind, w, value = _collect(self.results, self.procs)
            if kind == "report":  # (a worker that failed outside its blocks' rounds: it meets no more)
                self.reported[w] = value
            else:
                got[w] = value
        states = ([] if state is None else [state]) + [got.get(w, "error") for w in sorted(self.downs)]
        for w in got:
            self.downs[w].send(states)
        return states

    def reports(self) -> list[Report]:
        while len(self.reported) < len(self.downs):
            kind, w, value = _collect(self.results, self.procs)
            if kind == "report":
                self.reported[w] = value
        return [self.reported[w] for w in sorted(self.downs)]

    def fetch(
        self,
        w: int,
        written: dict[str, Ranges],
        hosts: dict[str, npt.NDArray[np.uint8]],
        memory: dict[str, Any],
        sizes: dict[str, int],
    ) -> None:
        """The bytes forked worker `w` wrote (`written`, by memory), from its copy of the host's arrays into them: read
        from its memory where the system lets this process (`_pull`), else copied by it into the shared memory first."""
        try:
            for space, ranges in written.items():
                _pull(self.by_share[w].pid, hosts[space], ranges)
        except OSError:
            self.downs[w].send("push")
            while _collect(self.results, self.procs)[0] != "pushed":
                pass
            for space, ranges in written.items():
                _copy_ranges(hosts[space], _twin(memory[space], sizes[space]), ranges)

    def release(self) -> None:
        """Let the workers end (they wait, their reports sent, for `fetch`)."""
        for down in self.downs.values():
            down.send("end")


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


@functools.cache
def _process_vm_readv() -> Any:
    """Linux's process_vm_readv (None elsewhere)."""
    try:
        f = ctypes.CDLL(None, use_errno=True).process_vm_readv
    except (OSError, AttributeError):
        return None
    f.restype = ctypes.c_ssize_t
    return f


def _pull(pid: int, dst: npt.NDArray[np.uint8], ranges: Ranges) -> None:
    """dst[lo:hi] = process `pid`'s bytes at the same addresses, for each range [lo, hi) (a forked worker's copy of the
    host's arrays is where they are in this process); an OSError if the system does not let this process read them."""
    readv = _process_vm_readv()
    if readv is None:
        raise OSError(errno.ENOSYS, "process_vm_readv")
    los, his = np.atleast_1d(ranges[0]).tolist(), np.atleast_1d(ranges[1]).tolist()
    base = dst.ctypes.data
    for at in range(0, len(los), _IOV_MAX):
        iov = [(base + lo, hi - lo) for lo, hi in zip(los[at : at + _IOV_MAX], his[at : at + _IOV_MAX], strict=True)]
        vec = (_IoVec * len(iov))(*(_IoVec(*v) for v in iov))
        want = sum(n for _, n in iov)
        if readv(pid, vec, len(iov), vec, len(iov), 0) != want:
            raise OSError(ctypes.get_errno(), f"process_vm_readv from worker process {pid}")


_IOV_MAX = 1024  #: the ranges one process_vm_readv takes


def _picklable(e: BaseException) -> BaseException:
    try:
        pickle.dumps(e)
        return e
    except Exception:
        return RuntimeError("".join(traceback.format_exception(e)))


def _end(procs: list[Any]) -> None:
    """The workers still running, ended (a grid with a dead worker cannot go on: the others would wait for ever for
    the round it never ends; and a launch that fails leaves none behind)."""
    for p in procs:
        if p.exitcode is None:
            p.kill()
    for p in procs:
        p.join()


def _collect(results: Any, procs: list[Any]) -> Any:
    """One worker's report; should a worker die without one, the others are ended and its death reported.
    Waits on the queue and the workers' ends together (no polling)."""
    while True:
        if not results.empty():
            return results.get()
        codes = [p.exitcode for p in procs]  # (read once: a worker that dies between two reads is still waited on)
        dead = [code for code in codes if code not in (None, 0)]
        if dead:
            _end(procs)
            raise RuntimeError(f"launch: a worker process died (exit code {dead[0]})")
        running = [p.sentinel for p, code in zip(procs, codes, strict=True) if code is None]
        if not running and results.empty():
            raise RuntimeError("launch: a worker process ended without its report")
        connection.wait([results._reader, *running])
