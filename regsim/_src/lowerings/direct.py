"""Memory-level calls' common cases run at once, where nothing can tell them from the library loop: the first-n
elementwise lowering (`run_binary`, below), the first-n Compare (`run_compare`), ReduceSum (`run_reduce_sum`) and
Gather (`run_gather`), each with the lane function of the Reg op its loop runs, or its bytes (their conditions in
their docstrings).

What `binary_continuous_vf`'s iterations together compute, in one call of its Reg op's lane function:

`binary_continuous_vf(op, dst, src0, src1, n)` over a Reg op of the elementwise shape (`dst = lane(src0, src1)` on the
active lanes, ZEROING) makes, for each register i of the first n elements, `UpdateMask` (the lanes left, up to a
register), a whole-register `LoadAlign` of each source, the op and a `StoreAlign` of the active lanes: dst's first n
elements become `lane(src0[:n], src1[:n])` and no other byte changes, when no iteration reads what an earlier one
stored. `run_binary` computes that directly where nothing else could tell the two apart, and otherwise returns False,
leaving the call to the skeleton (so every check and message stays the skeleton's). It runs only when:

- the op's overload for registers of T is an `Elementwise` executor over the two source registers (no carry out),
  T is one register wide (b8, b16, b32; not complex32), and n > 0;
- no `rs.trace` and no `rs.explain` records: they record the loop's Reg calls. Under `rs.profile`'s detailed trace
  the first call of a kind (op, dtype, n, the three addresses, the configuration, the kernel line) runs the skeleton
  and keeps the records its loop made; a later call of the same kind is computed at once and its VF given those same
  records (they depend on nothing else: the loop's masks on n, its accesses on the addresses, its batching on both and
  the configuration), so a profile counts, prices and checks for bank conflicts exactly what the loop would record;
- each source's registers lie inside the UB, and each source is dst itself or disjoint from the bytes dst gets;
- every source byte the active lanes read was written (when the uninitialised-read check is on).

A kernel's pipes see the accesses the batched loop reports (the registers each source's loads read, the n elements
the stores write) as one V instruction (`run_in_kernel`); should they report a race, nothing is recorded and the
skeleton runs and raises it as the loop does. A kernel's call made again with the same static values (the API, the
tensors' dtypes, UB, addresses and sizes, the count) runs from the plan its first run made, unbound and unchecked
again (`elementwise.Binary.quick`; under `rs.profile`, through `run_binary` with that plan): its checks depend on
nothing else. The outermost memory-level call
writes dst without a journal record: the write is its last act, after every check (`checks.outermost`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

import attrs
import numpy as np

from regsim._src.engine.executors.elementwise import Elementwise
from regsim._src.engine.spec import FACES, REGISTRY, Kind
from regsim._src.lowerings.checks import outermost, run_lowering
from regsim._src.lowerings.skeletons import binary_continuous_vf, trait_for
from regsim._src.model import dtypes as dt
from regsim._src.model.config import current_config
from regsim._src.model.enums import CMPMODE, MaskMergeMode
from regsim._src.model.memory import LocalTensor, UnifiedBuffer
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.ops.compare import compare as compare_lanes
from regsim._src.ops.reduce import tree_sum
from regsim._src.vf.loops import explaining
from regsim._src.vf.runtime import ignore_fp_errors, on_core, restore_fp_errors
from regsim._src.vf.trace import Record, current_trace, kernel_line
from regsim.errors import RegsimError

Lane = tuple[Callable[..., Any], bool] | None
_LANES: Final[dict[tuple[object, object], Lane]] = {}
#: the records the skeleton's loop made under a detailed trace, by the call's kind (`run_binary`), the oldest dropped
#: past `_KEPT`
_RECORDED: Final[dict[tuple[object, ...], list[Record]]] = {}
_KEPT = 512


def _lane(op: Callable[..., None], dtype: type[dt.DType]) -> Lane:
    """The lane function of Reg op `op` on one-register tensors of `dtype` and whether it takes `ctrl=` (found once
    per op and dtype); None where the op is not of the elementwise shape over two source registers (or refuses the
    dtype: the skeleton says so)."""
    key = (op, dtype)
    if key not in _LANES:
        _LANES[key] = _find_lane(op, dtype)
    return _LANES[key]


def _find_lane(op: Callable[..., None], dtype: type[dt.DType]) -> Lane:
    name = getattr(op, "__name__", "")
    if dtype.itemsize not in (1, 2, 4) or dtype is dt.complex32 or FACES.get(name) is not op:
        return None
    args = (RegTensor(dtype), RegTensor(dtype), RegTensor(dtype), MaskReg())
    kwargs = {"mode": MaskMergeMode.ZEROING}
    try:
        spec = REGISTRY.entry(name).resolve(args, kwargs)
        plan = spec.validate(spec.bind(args, kwargs))
    except RegsimError:
        return None
    executor, p = spec.executor, plan.prepared
    kinds = tuple(kind for _, _, kind in p.inputs)
    if type(executor) is not Elementwise or kinds != (Kind.REG, Kind.REG) or p.predicates_out or spec.lane is None:
        return None
    return spec.lane, executor.ctrl


class BinaryPlan(NamedTuple):
    """What a first-n binary call run at once does that follows from its static values alone (op, dtype, n, the
    tensors' addresses, the UB's size, the loop-length limit): `binary_plan`'s answer."""

    lane: tuple[Callable[..., Any], bool]  #: the op's lane function and whether it takes `ctrl=`
    #: the UB accesses the batched loop reports, in its order: each source's registers (ordered by the tensor's
    #: bytes), then the n elements stored (as a UB observer is told them)
    accesses: tuple[tuple[bool, str, int, int, tuple[int, int] | None], ...]
    #: the same as a kernel's pipes take them (`Block.observe_vf`): memory, is a write, the bytes ordering it, moved, op
    ordered: tuple[tuple[str, bool, tuple[int, int], int, str], ...]
    size: int  #: the bytes of n elements: what the active lanes read of each source and write of dst


def binary_plan(
    op: Callable[..., None], dst: LocalTensor[Any], src0: LocalTensor[Any], src1: LocalTensor[Any], n: int, limit: int
) -> BinaryPlan | None:
    """The plan of `dst[:n] = lane(src0[:n], src1[:n])` at once, or None where the call is not the common case by its
    static values (the module's conditions but the uninitialised-read one; `limit`: the configuration's
    `max_loop_iterations`)."""
    lane = _lane(op, dst.dtype)
    if lane is None or n <= 0:
        return None
    ub, d, size = dst.ub, dst.addr, n * dst.dtype.itemsize
    loaded = -(-size // VL) * VL  # the bytes each source's registers read
    if loaded // VL > limit:
        return None
    for s in (src0.addr, src1.addr):
        if s + loaded > ub.size or (s != d and s < d + size and d < s + loaded):
            return None
    loads = ((False, "LoadAlign", t.addr, t.addr + loaded, (t.addr, t.addr + t.nbytes)) for t in (src0, src1))
    ordered = (
        *(("UB", False, (t.addr, t.addr + min(loaded, t.nbytes)), loaded, "LoadAlign") for t in (src0, src1)),
        ("UB", True, (d, d + size), size, "StoreAlign"),
    )
    return BinaryPlan(lane, (*loads, (True, "StoreAlign", d, d + size, None)), ordered, size)


def run_binary(
    api: str,
    op: Callable[..., None],
    dst: LocalTensor[Any],
    src0: LocalTensor[Any],
    src1: LocalTensor[Any],
    n: int,
    plan: BinaryPlan | None = None,
) -> bool:
    """dst[:n] = op's lane(src0[:n], src1[:n]), as `binary_continuous_vf` computes it, when the call is the common case
    (the module's conditions; the tensors are checked: one dtype, one UB, 32-byte aligned, n within each); False
    (nothing done) otherwise. (`plan`: the call's `binary_plan`, where a kernel's call made again has it.)"""
    if n <= 0 or explaining():
        return False
    tr = current_trace()
    if tr is not None and not tr.detailed:
        return False
    config = current_config()
    plan = plan or binary_plan(op, dst, src0, src1, n, config.max_loop_iterations)
    if plan is None or not written(plan, src0, src1, config.check_uninitialized):
        return False
    ub = dst.ub
    pipes = kernel_pipes(ub)
    recorded: list[Record] | None = None
    if tr is None:
        if pipes is not None:
            return run_in_kernel(plan, dst, src0, src1, pipes)
    else:  # (rs.profile: the records of the loop's first run of this kind of call; host times taken or not, as `tr`)
        key = (op, dst.dtype, n, dst.addr, src0.addr, src1.addr, config, kernel_line(), tr.timed)
        recorded = _RECORDED.get(key)
        if recorded is None:
            mark = len(tr.records)
            ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
            run_lowering(api, binary_continuous_vf, op, *ptrs, n, trait_for(dst.dtype), -1, False)
            if len(_RECORDED) >= _KEPT:
                del _RECORDED[next(iter(_RECORDED))]
            _RECORDED[key] = tr.records[mark:]
            return True
        if pipes is not None:  # (a kernel's block: run as `run_in_kernel` runs it, one VF given those records)
            start = len(tr.records)
            if not run_in_kernel(plan, dst, src0, src1, pipes):
                return False
            tr.records.extend(recorded)
            tr.vf_ended(start)
            return True
    with on_core(ub.core) as ctx:
        if ub.observer is not None:
            try:
                for write, name, lo, hi, within in plan.accesses:
                    ub.observer("write" if write else "read", name, lo, hi, within=within)
            except RegsimError:
                return False
        _store(plan, dst, src0, src1, ctx.ctrl)
        if tr is not None and recorded is not None:
            tr.records.extend(recorded)
    return True


def written(plan: BinaryPlan, src0: LocalTensor[Any], src1: LocalTensor[Any], check: bool) -> bool:
    """Whether every source byte the active lanes read was written (or `check`, the uninitialised-read check, is off)."""
    st = src0.ub.storage
    return not check or (st.all_written(src0.addr, src0.addr + plan.size) and st.all_written(src1.addr, src1.addr + plan.size))


def kernel_pipes(ub: UnifiedBuffer) -> Callable[[Sequence[tuple[str, bool, tuple[int, int], int, str]]], None] | None:
    """Where a running kernel's block hears a whole VF's accesses at once (its UB's observer's `observe_vf`), or None
    (no kernel: no observer, or one without it)."""
    return getattr(ub.observer, "observe_vf", None)


def run_in_kernel(
    plan: BinaryPlan,
    dst: LocalTensor[Any],
    src0: LocalTensor[Any],
    src1: LocalTensor[Any],
    pipes: Callable[[Sequence[tuple[str, bool, tuple[int, int], int, str]]], None],
) -> bool:
    """A planned call on the UB of a running kernel's block: the loop's accesses told to the block's pipes (`pipes`,
    one V instruction), then the lanes computed under the core's CTRL, as the VF would; False (nothing done) where the
    pipes report a race (the skeleton then runs and raises it as the loop does)."""
    try:
        pipes(plan.ordered)
    except RegsimError:
        return False
    token = ignore_fp_errors()
    try:
        _store(plan, dst, src0, src1, dst.ub.core.ctrl)
    finally:
        restore_fp_errors(token)
    return True


def _store(plan: BinaryPlan, dst: LocalTensor[Any], src0: LocalTensor[Any], src1: LocalTensor[Any], ctrl: int) -> None:
    """dst's first bytes = the lanes of the sources' under CTRL `ctrl`, marked written (journalled unless the call is
    the outermost: its store is its last act)."""
    ub, np_dtype, size, d = dst.ub, dst.dtype.np_dtype, plan.size, dst.addr
    st = ub.storage
    lanes = st.data.view(np_dtype)  # (the UB as elements: 32-byte aligned tensors start at whole ones)
    lanes.flags.writeable = False  # (the sources read-only, as the lane function's register views)
    w = dst.dtype.itemsize
    a, b = lanes[src0.addr // w : (src0.addr + size) // w], lanes[src1.addr // w : (src1.addr + size) // w]
    f, takes_ctrl = plan.lane
    out = f(a, b, ctrl=ctrl) if takes_ctrl else f(a, b)
    if ub.journal is not None and not outermost():
        ub.journal.record(d, d + size, d + dst.nbytes)
    st.data[d : d + size].view(np_dtype)[...] = out
    st.mark_stored(d, d + size)


def run_compare(
    api: str, mode: CMPMODE, dst: LocalTensor[Any], src0: LocalTensor[Any], src1: LocalTensor[Any] | Scalar, n: int
) -> bool:
    """dst's first n / 8 bytes = the bits of `src0[:n] <mode> src1[:n]` (`Compare`) or `src0[:n] <mode> scalar`
    (`Compares`: `src1` a `Scalar`, converted to the type as the Reg `Compares` converts it), eight elements a byte
    from the lowest bit, as `compare.compare_continuous_vf` leaves them (its registers' predicates through the unaligned
    store stream, b8's through `StoreAlign`), when nothing could tell the two apart; False (nothing done) otherwise.
    The call is checked (`compare.compare` / `compares`: the dtypes, one UB, n filling whole registers, dst long
    enough); it runs at once only when:

    - n > 0 (b64: two registers an iteration, so the last may be half used: its bits past n stored as 0), and no
      `rs.trace` / `rs.profile` / `rs.explain` records;
    - the UB has no observer: in a kernel the loop runs (the pipe event log is its);
    - the registers the loop loads of each source tensor lie inside the UB, disjoint from the bytes of dst it
      stores;
    - every source byte was written (when the uninitialised-read check is on), and a scalar converts (else the
      loop raises as it does)."""
    w = src0.dtype.itemsize
    if n <= 0 or current_trace() is not None or explaining():
        return False
    ub = dst.ub
    per = VL // w * (2 if w == 8 else 1)  # (the elements an iteration compares)
    whole = -(-n // per) * per
    st, d, size, loaded, out_bytes = ub.storage, dst.addr, n * w, whole * w, whole // 8
    config = current_config()
    if ub.observer is not None or whole // per > config.max_loop_iterations:
        return False
    tensors = (src0,) if isinstance(src1, Scalar) else (src0, src1)
    for s in (t.addr for t in tensors):
        if s + loaded > ub.size or (s < d + out_bytes and d < s + loaded):
            return False
        if config.check_uninitialized and not st.all_written(s, s + size):
            return False
    np_dtype = src0.dtype.np_dtype
    with on_core(ub.core) as ctx:
        a, *b = (st.data[t.addr : t.addr + size].view(np_dtype) for t in tensors)
        if isinstance(src1, Scalar):
            try:
                b = [ctx.backend.scalar("Compares", "scalar_value", src1.value, src0.dtype)]
            except RegsimError:
                return False
        lanes = compare_lanes(mode, a, b[0])
        if whole > n:  # (the inactive lanes' bits: 0)
            lanes = np.concatenate([lanes, np.zeros(whole - n, np.bool_)])
        bits = np.packbits(lanes, bitorder="little")
        if ub.journal is not None and not outermost():
            ub.journal.record(d, d + out_bytes, d + dst.nbytes)
        st.data[d : d + out_bytes] = bits
        st.mark_stored(d, d + out_bytes)
    return True


@attrs.frozen
class Scalar:
    """A `Compares` call's scalar operand, as `run_compare` takes it."""

    value: Any


def run_reduce_sum(dst: LocalTensor[Any], src: LocalTensor[Any], work: LocalTensor[Any], count: int) -> bool:
    """dst[0] = the sum `reduce.reduce_sum_counter_vf` computes over src's first `count` elements, computed at once
    with the Reg `Reduce`'s lane function, and work holding what its levels left there, when nothing could tell the
    two apart; False (nothing done) otherwise. The loop sums each register of the level below by `Reduce<SUM>` (its
    tree, inactive lanes +0), one element per register through the unaligned store stream: into work while more
    than a register is left, the last into dst. The call is checked (`reduce.Reduce`: the dtypes, count within src,
    work long enough); it runs at once only when:

    - src is half, float32, int32 or uint32 (the sums wrap), and no `rs.trace` / `rs.profile` / `rs.explain`
      records (two to four registers the loop adds lane-wise first, by the Reg `Add`'s lane function under the
      core's CTRL, the last one MERGING under the tail mask, and reduces once: so does this);
    - the UB has no observer: in a kernel the loop runs (the pipe event log is its);
    - the registers each level loads lie inside the UB; src, work and dst's first element are disjoint;
    - src's first count elements were written (when the uninitialised-read check is on)."""
    T, lanes = src.dtype, VL // src.dtype.itemsize
    if T not in (dt.half, dt.float32, dt.int32, dt.uint32) or count <= 0 or current_trace() is not None or explaining():
        return False
    few = -(-count // lanes) if lanes < count <= 4 * lanes else 0  # (registers added lane-wise first)
    add = _lane(Reg.Add, T) if few else None
    if few and add is None:
        return False
    ub, w = src.ub, T.itemsize
    st, config = ub.storage, current_config()
    sizes = [count]  # the elements each level sums
    while sizes[-1] > lanes and not few:
        sizes.append(-(-sizes[-1] // lanes))
    s, wk, d = src.addr, work.addr, dst.addr
    reads = -(-count // lanes) * VL  # (src's registers)
    work_reads = -(-sizes[1] // lanes) * VL if len(sizes) > 1 else 0  # (work's registers, from the second level)
    if ub.observer is not None or reads // VL > config.max_loop_iterations:
        return False
    if s + reads > ub.size or wk + work_reads > ub.size or wk + w * sizes[min(1, len(sizes) - 1)] > ub.size:
        return False
    spans = [(s, s + reads), (d, d + w)] + ([(wk, wk + max(work_reads, w * sizes[1]))] if len(sizes) > 1 else [])
    if any(a < y and x < b for k, (a, b) in enumerate(spans) for x, y in spans[k + 1 :]):
        return False
    if config.check_uninitialized and not st.all_written(s, s + count * w):
        return False
    np_dtype = T.np_dtype
    with on_core(ub.core) as ctx, np.errstate(all="ignore"):
        values = st.data[s : s + count * w].view(np_dtype)
        results = []
        if few and add is not None:
            f, ctrl = add
            registers = st.data[s : s + reads].view(np_dtype).reshape(few, lanes)
            tail = count - (few - 1) * lanes
            values = _added(*registers, tail=tail, plus=lambda a, b: f(a, b, ctrl=ctx.ctrl) if ctrl else f(a, b))
            sizes = [lanes]
        for n in sizes:
            padded = values[:n]
            if n % lanes:  # (the last register's inactive lanes: +0)
                padded = np.zeros(-(-n // lanes) * lanes, np_dtype)
                padded[:n] = values[:n]
            values = tree_sum(padded.reshape(-1, lanes))
            results.append(values)
        writes = [(wk, r) for r in results[:-1]] + [(d, results[-1])]
        if ub.journal is not None and not outermost():
            for at, r in writes:
                ub.journal.record(at, at + r.nbytes, at + (dst.nbytes if at == d else work.nbytes))
        for at, r in writes:
            st.data[at : at + r.nbytes].view(np_dtype)[...] = r
            st.mark_stored(at, at + r.nbytes)
    return True


def _added(r0: Any, r1: Any, *rest: Any, tail: int, plus: Callable[[Any, Any], Any]) -> Any:
    """`reduce_sum_counter_vf`'s two to four registers added lane-wise as it adds them (`plus`: the Reg `Add` on whole
    registers; the last add MERGING under the first `tail` lanes)."""
    last = np.arange(r0.size) < tail
    if not rest:  # Add<MERGING>(dst, dst, src1, mask)
        return np.where(last, plus(r0, r1), r0)
    if len(rest) == 1:  # Add(dst, dst, src1, full); Add<MERGING>(dst, dst, src2, mask)
        d = plus(r0, r1)
        return np.where(last, plus(d, rest[0]), d)
    return plus(plus(r0, r1), np.where(last, plus(rest[0], rest[1]), rest[0]))  # (src2 + src3 merged, then added)


def run_gather(dst: LocalTensor[Any], src: LocalTensor[Any], src_offset: LocalTensor[Any], base: int, n: int) -> bool:
    """dst[:n] = the elements at bytes `base + src_offset[i]` of src, as `gather.gather_b8_vf` / `gather_b16_vf` /
    `gather_b32_vf` / `gather_b64_vf` leave them (offset registers loaded whole, `Reg::Gather` (b64: of the elements'
    two 32-bit words) and a `StoreAlign` of the active lanes),
    when nothing could tell the two apart; False (nothing done) otherwise. The call is checked (`gather.gather`: the
    dtypes, base, and every offset an element uses: written, a multiple of the width, in range, inside src; the loop
    reads src without the uninitialised-read check, as this does); it runs at once only when:

    - n > 0, and no `rs.trace` / `rs.profile` / `rs.explain` records;
    - the UB has no observer: in a kernel the loop runs (the pipe event log is its);
    - the offset registers the loop loads lie inside the UB, and dst's n elements are disjoint from them and
      from src."""
    w = dst.dtype.itemsize
    if n <= 0 or current_trace() is not None or explaining():
        return False
    ub = dst.ub
    st, d, size, o = ub.storage, dst.addr, n * w, src_offset.addr
    per = VL // 2 if w == 1 else VL // w  # (elements an iteration gathers: b8 in 16-bit lanes)
    iterations = -(-n // per)
    # (the offset registers' bytes: b64 loads a whole register each iteration but uses its first half)
    offsets = (iterations - 1) * per * 4 + VL if w == 8 else iterations * per * 4
    if ub.observer is not None or iterations > current_config().max_loop_iterations or o + offsets > ub.size:
        return False
    if (d < src.addr + src.nbytes and src.addr < d + size) or (d < o + offsets and o < d + size):
        return False
    unsigned = np.dtype(f"u{w}")
    with on_core(ub.core):
        at = (src.addr + base) // w + st.data[o : o + n * 4].view(np.uint32) // w  # (offsets: multiples of w)
        values = st.data.view(unsigned)[at]
        if ub.journal is not None and not outermost():
            ub.journal.record(d, d + size, d + dst.nbytes)
        st.data[d : d + size].view(unsigned)[...] = values
        st.mark_stored(d, d + size)
    return True
