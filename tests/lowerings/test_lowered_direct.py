"""The first-n binary lowering's common case run at once (`regsim._src.lowerings.direct`) leaves exactly what the
skeleton's loop leaves: the UB's bytes and written flags, bit for bit, for every elementwise binary API, one-register
dtypes, counts around register edges, the saturating CTRL modes, dst disjoint from or equal to a source, and the
layouts it hands to the skeleton (a source overlapping dst at another address, a never-written source byte); the
skeleton runs under `rs.trace()` (which records its Reg calls, so nothing is done at once there), its loop in order
or batched. In a kernel, the pipe event log is the skeleton's too. The values themselves are checked against the
oracle by the API tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim._src.lowerings import direct
from regsim._src.model.core import GLOBAL_SAT, HALF_NONSAT, INT_SAT, LAUNCH_CTRL
from regsim._src.model.registers import VL
from vf_examples import add_high_performance as ex

A = rs.AscendC
APIS = {
    "Add": [rs.int8, rs.uint16, rs.int16, rs.half, rs.bfloat16, rs.int32, rs.float32],
    "Sub": [rs.uint8, rs.int16, rs.half, rs.int32, rs.float32],
    "Mul": [rs.int16, rs.half, rs.bfloat16, rs.uint32, rs.float32],
    "Max": [rs.int8, rs.half, rs.int32, rs.float32],
    "Min": [rs.uint8, rs.half, rs.int32, rs.float32],
    "And": [rs.uint8, rs.int16, rs.int32],
    "Or": [rs.int8, rs.uint16, rs.uint32],
}
CTRLS = [LAUNCH_CTRL, LAUNCH_CTRL | 1 << INT_SAT, (LAUNCH_CTRL | 1 << GLOBAL_SAT) & ~(1 << HALF_NONSAT)]
LAYOUTS = ["apart", "dst is src0", "dst is src1", "src1 inside dst", "unwritten"]


def state(ub: rs.UnifiedBuffer) -> tuple[Any, Any, str]:
    """The UB's bytes, its written flags and its core's special registers."""
    s = ub.storage
    return s.data.copy(), None if s.valid is None else s.valid.copy(), repr(ub.core.snapshot())


@contextlib.contextmanager
def spying(name: str, traced: bool) -> Iterator[list[bool]]:
    """Inside: the direct path `name`'s answers, listed as it gives them (under `rs.trace()` if `traced`)."""
    answers: list[bool] = []
    real = getattr(direct, name)

    def spy(*args: Any) -> bool:
        answers.append(real(*args))
        return answers[-1]

    with mock.patch.object(direct, name, spy), rs.trace() if traced else contextlib.nullcontext():
        yield answers


def same_state(got: tuple[Any, Any, str], want: tuple[Any, Any, str]) -> None:
    """Two `state`s alike: bytes, written flags, special registers."""
    assert np.array_equal(got[0], want[0]), f"UB bytes {np.flatnonzero(got[0] != want[0])[:8]} differ"
    assert (got[1] is None) == (want[1] is None) and (got[1] is None or np.array_equal(got[1], want[1])), "written flags"
    assert got[2] == want[2], "special registers"


def values(rng: np.random.Generator, dtype: Any, n: int) -> Any:
    if np.issubdtype(dtype.np_dtype, np.integer):
        info = np.iinfo(dtype.np_dtype)
        return rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype.np_dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6e4, -6e4], np.float32)
    x = np.where(rng.random(n) < 0.1, rng.choice(special, n), rng.uniform(-1e3, 1e3, n))
    return x.astype(np.float32).astype(dtype.np_dtype)


def call(api: str, dtype: Any, n: int, layout: str, ctrl: int, seed: int, traced: bool) -> tuple[tuple[Any, Any], list[bool]]:
    """The call on a fresh UB (under `rs.trace()`: the skeleton's loop): the UB's state after it, and what the direct
    path answered."""
    rng = np.random.default_rng(seed)
    size = -(-(n + 3 * VL // dtype.itemsize) // 32) * 32  # (room past n: the last register's loads, a shifted source)
    ub = rs.UnifiedBuffer(3 * size * dtype.itemsize + VL)
    x, y, z = (ub.alloc(dtype, size) for _ in range(3))
    for t in (x, y):
        t.set(values(rng, dtype, size))
    z.set(values(rng, dtype, size // 2))  # (z half written: the flags must come out the same)
    if layout == "unwritten":
        ub.storage.valid[y.addr + (n - 1) * dtype.itemsize] = False  # type: ignore[index]
    shifted = x[VL // dtype.itemsize]
    dst, src0, src1 = {"dst is src0": (x, x, y), "dst is src1": (y, x, y), "src1 inside dst": (x, y, shifted)}.get(
        layout, (z, x, y)
    )
    ub.core.ctrl = ctrl
    with spying("run_binary", traced) as answers:
        try:
            getattr(A, api)(dst, src0, src1, n)
        except rs.errors.UninitializedReadError:
            assert layout == "unwritten"
    return state(ub), answers


@settings(max_examples=80, deadline=None)
@given(
    api_dtype=st.sampled_from([(api, d) for api, ds in APIS.items() for d in ds]),
    regs=st.integers(0, 3),
    extra=st.sampled_from([-1, 0, 1]),
    layout=st.sampled_from(LAYOUTS),
    ctrl=st.sampled_from(CTRLS),
    seed=st.integers(0, 2**16),
    sequential=st.booleans(),
)
def test_the_direct_path_leaves_what_the_loop_leaves(
    api_dtype: tuple[str, Any], regs: int, extra: int, layout: str, ctrl: int, seed: int, sequential: bool
) -> None:
    api, dtype = api_dtype
    n = max(1, regs * (VL // dtype.itemsize) + extra)
    got, answers = call(api, dtype, n, layout, ctrl, seed, traced=False)
    with rs.configure(loops="sequential" if sequential else "auto"):  # (the loop in order, or batched where exact)
        want, traced = call(api, dtype, n, layout, ctrl, seed, traced=True)
    apart = layout != "src1 inside dst" or n * dtype.itemsize <= VL  # (one register: dst's bytes end before src1's)
    assert answers == [apart and layout != "unwritten"] and traced == [False]
    same_state(got, want)


@pytest.mark.parametrize("case", [2, 4])
def test_a_kernel_logs_the_loops_pipe_events(case: int) -> None:
    rows, cols, split = ex.SHAPES[case]
    rng = np.random.default_rng(case)
    x, y = (rng.uniform(1, 100, [rows, cols]).astype(np.float16) for _ in range(2))

    def launch() -> tuple[Any, Any]:
        z = np.zeros_like(x)
        with rs.configure(ub_size=ex.UB_SIZE):
            run = rs.launch(
                ex.add_custom, split, x, y, z, total_m=rows, total_n=cols, split_m=split, split_n=1,
                data_copy_len=ex.CASES[case][2], scenario=case,
            )  # fmt: skip
        return z, run.events

    z, events = launch()
    with rs.trace():
        z_loop, events_loop = launch()
    assert np.array_equal(z.view(np.uint16), (x + y).view(np.uint16)) and np.array_equal(
        z_loop.view(np.uint16), z.view(np.uint16)
    )
    assert events == events_loop


CMP_DTYPES = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
CMP_LAYOUTS = ["apart", "same source", "dst inside src0", "unwritten"]


def compare_call(
    dtype: Any, n: int, mode: Any, layout: str, seed: int, traced: bool, scalar: bool = False
) -> tuple[tuple[Any, Any], list[bool], Exception | None]:
    """`Compare(dst, src0, src1, mode, n)` (`scalar`: `Compares(dst, src0, value, mode, n)`, the value one of src0's, a
    small or an out-of-range int, a half, a NaN) on a fresh UB (under `rs.trace()`: the skeleton's loop): the UB's state
    after it, what the direct path answered and the error raised."""
    rng = np.random.default_rng(seed)
    ub = rs.UnifiedBuffer(-(-(2 * n * dtype.itemsize + n // 8 + 64) // 32) * 32 + 2 * VL)  # (b64: a half-used pair)
    dst = ub.alloc(rs.uint8, n // 8 + 32)
    x, y = ub.alloc(dtype, n), ub.alloc(dtype, n)
    for t in (x, y):
        t.set(values(rng, dtype, n) if rng.random() < 0.7 else rng.choice(values(rng, dtype, 4), n))  # (ties too)
    dst.set(rng.integers(0, 256, (n // 8) // 2 + 1).astype(np.uint8))  # (dst half written: the flags must match)
    if layout == "unwritten":
        ub.storage.valid[y.addr + rng.integers(0, n) * dtype.itemsize] = False  # type: ignore[index]
    if layout == "dst inside src0":
        dst = x.ReinterpretCast(rs.uint8)[n * dtype.itemsize // 2 // 32 * 32]
    src1 = x if layout == "same source" else y
    error = None
    wide = np.float64 if dtype.itemsize < 8 else dtype.np_dtype
    integer = np.issubdtype(dtype.np_dtype, np.integer)
    value = rng.choice([x.numpy()[int(rng.integers(0, n))].item(), -1, 3, 1000, 0.5 if not integer else 2**40, np.nan])
    value = int(value) if integer and float(value).is_integer() else value
    with spying("run_compare", traced) as answers:
        try:
            if scalar:
                A.Compares(dst, x, value, mode, n)
            else:
                A.Compare(dst, x, src1, mode, n)
        except rs.errors.RegsimError as e:
            error = e
    if error is None and layout != "dst inside src0":
        b = np.asarray(value).astype(dtype.np_dtype).astype(wide) if scalar else src1.numpy().astype(wide)
        want = np.packbits(ORACLE[mode](x.numpy().astype(wide), b), bitorder="little")  # (float64: every value exact)
        assert np.array_equal(dst.numpy()[: n // 8], want)
    return state(ub), answers, error


ORACLE = {
    A.CMPMODE.EQ: np.equal,
    A.CMPMODE.NE: np.not_equal,
    A.CMPMODE.GT: np.greater,
    A.CMPMODE.GE: np.greater_equal,
    A.CMPMODE.LT: np.less,
    A.CMPMODE.LE: np.less_equal,
}


@settings(max_examples=80, deadline=None)
@given(
    dtype=st.sampled_from(CMP_DTYPES),
    regs=st.integers(1, 4),
    mode=st.sampled_from(list(A.CMPMODE)),
    layout=st.sampled_from(CMP_LAYOUTS),
    seed=st.integers(0, 2**16),
    sequential=st.booleans(),
    fill=st.sampled_from(["lsb", "group"]),
    scalar=st.booleans(),
)
def test_compare_at_once_leaves_what_the_loop_leaves(
    dtype: Any, regs: int, mode: Any, layout: str, seed: int, sequential: bool, fill: Any, scalar: bool
) -> None:
    """The first-n Compare and Compares run at once (`direct.run_compare`) leave the UB's bytes and written flags the
    skeleton's loop (its unaligned store stream) leaves, raise what it raises (a scalar out of the type's range), or
    hand the call to the loop; the bits are the oracle's (numpy's compare of the sources, or of the source and the
    scalar converted to the type, packed from the lowest bit)."""
    n = regs * (VL // dtype.itemsize)  # (b64: two registers an iteration, the last half used for odd regs)
    with rs.configure(mask_fill=fill):
        got, answers, error = compare_call(dtype, n, mode, layout, seed, traced=False, scalar=scalar)
        with rs.configure(loops="sequential" if sequential else "auto"):
            want, traced, want_error = compare_call(dtype, n, mode, layout, seed, traced=True, scalar=scalar)
    apart = ("apart", "same source", "unwritten") if scalar else ("apart", "same source")  # (a scalar call reads no y)
    assert answers == [layout in apart and error is None] and traced == [False]
    assert type(error) is type(want_error) and (scalar or (error is None) == (layout != "unwritten"))
    same_state(got, want)


SUM_LAYOUTS = ["apart", "unwritten", "unwritten past count", "work is src", "dst in work"]


def reduce_call(
    dtype: Any, count: int, layout: str, seed: int, traced: bool, ctrl: int
) -> tuple[Any, list[bool], Exception | None]:
    """`ReduceSum(dst, src, work, count)` on a fresh UB, its core's CTRL `ctrl` (under `rs.trace()`: the skeleton's
    loops): the UB's state and the core's special registers after it (the accumulated value among them), what the
    direct path answered and the error raised."""
    rng = np.random.default_rng(seed)
    lanes = VL // dtype.itemsize
    room = -(-count // lanes) * lanes + lanes
    ub = rs.UnifiedBuffer(-(-(2 * room * dtype.itemsize + 2 * VL) // 32) * 32)
    src, work, dst = ub.alloc(dtype, room), ub.alloc(dtype, room // lanes + lanes), ub.alloc(dtype, lanes)
    x = values(rng, dtype, room)
    if np.issubdtype(dtype.np_dtype, np.floating):  # (subnormal and cancelling terms too)
        x = (x.astype(np.float64) * rng.choice([1.0, 1e-6, 1e-40, -1.0], room)).astype(dtype.np_dtype)
    src.set(x[: count if layout == "unwritten past count" else room])
    if layout == "unwritten":
        ub.storage.valid[src.addr + rng.integers(0, count) * dtype.itemsize] = False  # type: ignore[index]
    if layout == "work is src":
        work = src
    if layout == "dst in work":
        dst = work[lanes // 2 // (32 // dtype.itemsize) * (32 // dtype.itemsize)]
    ub.core.ctrl = ctrl
    error = None
    with spying("run_reduce_sum", traced) as answers:
        try:
            A.ReduceSum(dst, src, work, count)
        except rs.errors.RegsimError as e:
            error = e
    return state(ub), answers, error


@settings(max_examples=80, deadline=None)
@given(
    dtype=st.sampled_from([rs.half, rs.float32, rs.int32, rs.uint32, rs.int64]),
    count=st.one_of(st.integers(1, 300), st.integers(300, 5000), st.integers(4097, 20000)),
    layout=st.sampled_from(SUM_LAYOUTS),
    seed=st.integers(0, 2**16),
    sequential=st.booleans(),
    ctrl=st.sampled_from(CTRLS),
)
def test_reduce_sum_at_once_leaves_what_the_loops_leave(
    dtype: Any, count: int, layout: str, seed: int, sequential: bool, ctrl: int
) -> None:
    """The first-n ReduceSum run at once (`direct.run_reduce_sum`) leaves the UB's bytes and written flags (dst's sum,
    work's partial sums) and the core's registers (the accumulated value) the skeleton's loops leave, or hands the
    call to them; the sum itself is checked against the tree oracle by the API tests."""
    lanes = VL // dtype.itemsize
    got, answers, error = reduce_call(dtype, count, layout, seed, traced=False, ctrl=ctrl)
    with rs.configure(loops="sequential" if sequential else "auto"):
        want, traced, want_error = reduce_call(dtype, count, layout, seed, traced=True, ctrl=ctrl)
    summed = dtype is not rs.int64  # (b64: its own VF, in the loop)
    at_once = summed and layout in ("apart", "unwritten past count")
    at_once = at_once or (layout != "unwritten" and summed and count <= 4 * lanes)  # (work unused)
    assert answers == ([at_once] if answers else []) and traced in ([False], [])
    assert type(error) is type(want_error)
    same_state(got, want)


GATHER_DTYPES = [rs.int8, rs.uint8, rs.int16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64]
GATHER_LAYOUTS = ["apart", "based", "unwritten src", "dst in src", "dst on offsets", "unwritten offset"]


def gather_call(dtype: Any, n: int, layout: str, seed: int, traced: bool) -> tuple[Any, list[bool], Exception | None]:
    """`Gather(dst, src, src_offset, base, n)` on a fresh UB (under `rs.trace()`: the skeleton's loop), offsets random
    element offsets into src: the UB's state after it, what the direct path answered and the error raised; dst's
    elements are checked against the oracle (src's bytes at the offsets) when the call succeeds."""
    rng = np.random.default_rng(seed)
    w, elems = dtype.itemsize, 96 * 32 // dtype.itemsize  # (src: 3 KiB)
    per = -(-n // 64) * 64 + 64  # (room for the offset registers the loop loads whole)
    ub = rs.UnifiedBuffer(-(-(3 * 1024 + 4 * per + (n + 32) * w + 64) // 32) * 32 + 64)
    src, offsets, dst = ub.alloc(dtype, elems), ub.alloc(rs.uint32, per), ub.alloc(dtype, n + 32)
    base = 32 * int(rng.integers(0, 8)) if layout == "based" else 0
    picks = rng.integers(0, elems - base // w, n)
    src.set(values(rng, dtype, elems))
    offsets.set((picks * w).astype(np.uint32))
    dst.set(values(rng, dtype, (n + 32) // 2))  # (dst half written: the flags must come out the same)
    if layout == "unwritten src":
        ub.storage.valid[src.addr + int(picks[0]) * w] = False  # type: ignore[index]
    if layout == "unwritten offset":
        ub.storage.valid[offsets.addr + 4 * int(rng.integers(0, n))] = False  # type: ignore[index]
    if layout == "dst in src":
        dst = src[elems // 2 // (32 // w) * (32 // w)]
    if layout == "dst on offsets":
        dst = offsets.ReinterpretCast(dtype)[0]
    want = src.numpy().view(f"u{w}")[base // w + picks] if layout not in ("unwritten src",) else None
    error = None
    with spying("run_gather", traced) as answers:
        try:
            A.Gather(dst, src, offsets, base, n)
        except rs.errors.RegsimError as e:
            error = e
    if error is None and want is not None and layout not in ("dst in src", "dst on offsets"):
        assert np.array_equal(dst.numpy().view(f"u{w}")[:n], want)
    return state(ub), answers, error


@settings(max_examples=80, deadline=None)
@given(
    dtype=st.sampled_from(GATHER_DTYPES),
    n=st.integers(1, 600),
    layout=st.sampled_from(GATHER_LAYOUTS),
    seed=st.integers(0, 2**16),
    sequential=st.booleans(),
)
def test_gather_at_once_leaves_what_the_loop_leaves(dtype: Any, n: int, layout: str, seed: int, sequential: bool) -> None:
    """The first-n Gather run at once (`direct.run_gather`) leaves the UB's bytes and written flags the skeleton's loop
    leaves (a never-written src element gathered as the loop gathers it), raises what it raises, or hands the call to
    the loop; the elements are the oracle's."""
    got, answers, error = gather_call(dtype, n, layout, seed, traced=False)
    with rs.configure(loops="sequential" if sequential else "auto"):
        want, traced, want_error = gather_call(dtype, n, layout, seed, traced=True)
    at_once = layout in ("apart", "based", "unwritten src")
    assert answers == ([at_once] if answers else []) and traced == [False] * len(traced)
    assert type(error) is type(want_error)  # (a refused offset before either; dst on the offsets: the loop's own)
    assert error is None if layout in ("apart", "based", "unwritten src") else answers != [True]
    same_state(got, want)
