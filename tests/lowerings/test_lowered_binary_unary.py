"""The memory-level (LocalTensor) APIs lowered onto Reg ops: every API x interface x dtype against the
independent addressing oracle (regsim.testing.lowering_reference), Hypothesis over masks, strides, repeats
and mask modes, constraint violations that raise and write nothing, both loop modes, the lowering
explorer, and the seed pages' worked examples."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import (
    B16_B32,
    COUNT_DTYPES,
    SCALAR_B16_B32,
    assert_same,
    counter_mode,
    run_both,
    tensors,
    values,
)

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
BLK_PARAMS = A.BinaryRepeatParams

REPEAT_DTYPES = {
    **{name: B16_B32 for name in ("Add", "Sub", "Mul", "Max", "Min")},
    "And": [rs.int16, rs.uint16, rs.uint32, rs.int32],
    "Or": [rs.int16, rs.uint16, rs.uint32, rs.int32],
    "Not": [rs.half, rs.float32, rs.uint16, rs.int16, rs.uint32, rs.int32],
    "Abs": [rs.half, rs.int16, rs.float32, rs.int32],
    "Relu": [rs.half, rs.float32, rs.int32],
    "Adds": SCALAR_B16_B32,
    "Muls": SCALAR_B16_B32,
    "Maxs": SCALAR_B16_B32,
    "Mins": SCALAR_B16_B32,
}
KIND = {
    **dict.fromkeys(("Add", "Sub", "Mul", "Max", "Min", "And", "Or"), "binary"),
    **dict.fromkeys(("Abs", "Relu", "Not"), "unary"),
    **dict.fromkeys(("Adds", "Muls", "Maxs", "Mins"), "scalar"),
}
API_NAMES = list(COUNT_DTYPES)
COUNT_CASES = [(n, d) for n in API_NAMES for d in COUNT_DTYPES[n]]
REPEAT_CASES = [(n, d) for n in API_NAMES for d in REPEAT_DTYPES[n]]


def scalar_for(dtype: Any) -> Any:
    if dtype in (rs.complex32, rs.complex64):
        return 2 - 3j
    if dtype in (rs.half, rs.bfloat16, rs.float32):
        return -1.5
    return -5 if np.dtype(dtype.np_dtype).kind == "i" else 7


def invoke(api: str, ts: list[Any], *rest: Any, **kw: Any) -> None:
    """The API called as C++ calls it: (dst, src0, src1, ...), (dst, src, ...) or (dst, src, scalarValue, ...)."""
    f = getattr(A, api)
    kind = KIND[api]
    if kind == "binary":
        f(ts[0], ts[1], ts[2], *rest, **kw)
    elif kind == "unary":
        f(ts[0], ts[1], *rest, **kw)
    else:
        f(ts[0], ts[1], scalar_for(ts[0].dtype), *rest, **kw)


def oracle_srcs(api: str, arrays: list[np.ndarray], dtype: Any) -> tuple[list[np.ndarray], Any]:
    """The oracle's source arrays and scalar for `api` on the tensors' arrays [dst, src0, src1]."""
    kind = KIND[api]
    if kind == "binary":
        return arrays[1:3], None
    return arrays[1:2], None if kind == "unary" else scalar_for(dtype)


def repeat_params(api: str, strides: tuple[int, ...]) -> tuple[Any, tuple[int, ...]]:
    """The repeat-parameter struct for `api` from a 6-stride tuple, and the strides the oracle reads."""
    if KIND[api] == "binary":
        return BLK_PARAMS(*strides), strides
    unary = (strides[0], strides[1], strides[3], strides[4])
    return A.UnaryRepeatParams(*unary), unary


# --- the first-n interface ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("api", "dtype"), COUNT_CASES, ids=[f"{a}-{d.name}" for a, d in COUNT_CASES])
def test_first_n_every_dtype(api: str, dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        n = 3 * lanes
        ub, ts = tensors(dtype, n, seed=count)
        arrays = [t.numpy() for t in ts]
        run_both(lambda: invoke(api, ts, count), ub)  # noqa: B023
        srcs, scalar = oracle_srcs(api, arrays, dtype)
        assert_same(ts[0].numpy(), MO.first_n(api, arrays[0], srcs, count, scalar), f"{api}({dtype.name}, count={count})")
        assert_same(ts[1].numpy(), arrays[1], "src0 unchanged")


# --- the mask/repeat interfaces --------------------------------------------------------------------------------
STRIDE_SETS = [(1, 1, 1, 8, 8, 8), (2, 1, 3, 16, 8, 24), (1, 0, 2, 9, 1, 4)]


def _repeat_case(api: str, dtype: Any, mask: Any, repeats: int, strides: tuple[int, ...], seed: int, **kw: Any) -> None:
    n = (
        max(MO.touched_elements(dtype.itemsize, max(repeats, 1), strides[i], strides[i + 3]) for i in range(3))
        + 256 // dtype.itemsize
    )
    ub, ts = tensors(dtype, n, seed)
    arrays = [t.numpy() for t in ts]
    params, oracle_strides = repeat_params(api, strides)
    run_both(lambda: invoke(api, ts, mask, repeats, params, **kw), ub)
    srcs, scalar = oracle_srcs(api, arrays, dtype)
    want = MO.normal_mode(api, arrays[0], srcs, mask, repeats, oracle_strides, scalar)
    assert_same(ts[0].numpy(), want, f"{api}({dtype.name}, mask={mask}, repeat={repeats}, {strides})")


@pytest.mark.parametrize(("api", "dtype"), REPEAT_CASES, ids=[f"{a}-{d.name}" for a, d in REPEAT_CASES])
@pytest.mark.parametrize("strides", STRIDE_SETS, ids=["contiguous", "strided", "gaps"])
def test_repeat_every_dtype(api: str, dtype: Any, strides: tuple[int, ...]) -> None:
    lanes = 256 // dtype.itemsize
    _repeat_case(api, dtype, lanes // 2 + 3, 3, strides, seed=1)  # mask continuous mode
    bit_mask = [0x8000_0000_0000_0009, 0x5 if lanes > 64 else 0]  # mask bit mode, mask[2]
    _repeat_case(api, dtype, bit_mask, 2, strides, seed=2)


@settings(max_examples=max(10, settings.default.max_examples))
@given(data=st.data())
def test_repeat_hypothesis(data: st.DataObject) -> None:
    api, dtype = data.draw(st.sampled_from(REPEAT_CASES), "case")
    lanes = 256 // dtype.itemsize
    if data.draw(st.booleans(), "bit mode"):
        lo = data.draw(st.integers(0, 2**64 - 1) if lanes > 32 else st.integers(0, 2**32 - 1))
        hi = data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0
        mask: Any = [lo, hi] if lo or hi else [1, 0]
    else:
        mask = data.draw(st.integers(1, min(lanes, 128)), "mask")
    repeats = data.draw(st.integers(0, 5), "repeat_time")
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3), st.integers(0, 3)), "block strides")
    rep = data.draw(st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(0, 20)), "repeat strides")
    _repeat_case(api, dtype, mask, repeats, (*blk, *rep), seed=data.draw(st.integers(0, 99)))


@pytest.mark.parametrize("dtype", [rs.int16, rs.float32, rs.half])
@pytest.mark.parametrize("count", [1, 70, 200, 300])
def test_counter_mode(dtype: Any, count: int) -> None:
    """SetMaskCount: the mask is an element count, repeats = ceil(count / elements per repeat)."""
    strides = (1, 2, 1, 8, 16, 8)
    n = MO.touched_elements(dtype.itemsize, -(-count // (256 // dtype.itemsize)), 2, 16) + 128
    for bit_mode in (False, True):
        ub, (dst, s0, s1) = tensors(dtype, n, seed=count)
        d0, a, b = dst.numpy(), s0.numpy(), s1.numpy()
        mask: Any = [count, 0] if bit_mode else count
        with counter_mode():
            run_both(lambda: A.Add(dst, s0, s1, mask, 1, BLK_PARAMS(*strides)), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.counter_mode("Add", d0, [a, b], count, strides), f"counter {count}")
    assert not rs._src.lowerings.vector_mask.counter_mode()


def test_is_set_mask_false_reads_the_vector_mask() -> None:
    """isSetMask = false: the mask argument is MASK_PLACEHOLDER and the elements come from SetVectorMask."""
    ub, (dst, s0, s1) = tensors(rs.int16, 512, seed=3)
    d0, a, b = dst.numpy(), s0.numpy(), s1.numpy()
    A.SetVectorMask(rs.int16, 0x3, 0xF0F0)
    try:
        run_both(lambda: A.Sub(dst, s0, s1, A.MASK_PLACEHOLDER, 4, BLK_PARAMS(), is_set_mask=False), ub)
    finally:
        A.ResetMask()
    assert_same(dst.numpy(), MO.normal_mode("Sub", d0, [a, b], [0xF0F0, 0x3], 4, (1, 1, 1, 8, 8, 8)), "SPR mask")
    ub, (dst, s0, s1) = tensors(rs.float32, 256, seed=4)  # a new core: its vector mask is all ones
    d0, a, b = dst.numpy(), s0.numpy(), s1.numpy()
    A.SetVectorMask(rs.float32, 10)  # the first 10 elements
    try:
        A.Max(dst, s0, s1, A.MASK_PLACEHOLDER, 2, BLK_PARAMS(), is_set_mask=False)
    finally:
        A.ResetMask()
    assert_same(dst.numpy(), MO.normal_mode("Max", d0, [a, b], 10, 2, (1, 1, 1, 8, 8, 8)), "SetVectorMask(len)")


def test_bit_mode_sets_the_vector_mask() -> None:
    """The library sets SPR.MASK from mask[] before the VF (SetVectorMask<T>(mask[1], mask[0]))."""
    _, (dst, s0, s1) = tensors(rs.int16, 256, seed=5)
    A.Add(dst, s0, s1, [5, 7], 1, BLK_PARAMS())
    try:
        assert rs._src.lowerings.vector_mask.vector_mask() == (7, 5)
    finally:
        A.ResetMask()


def test_repeat_params_struct() -> None:
    p = BLK_PARAMS(1, 2, 3, 8, 9, 10)
    assert (p.dstBlkStride, p.src0BlkStride, p.src1BlkStride, p.dstRepStride, p.src0RepStride, p.src1RepStride) == (
        1,
        2,
        3,
        8,
        9,
        10,
    )
    assert BLK_PARAMS() == BLK_PARAMS(1, 1, 1, 8, 8, 8) == BLK_PARAMS(dstRepStride=8)
    u = A.UnaryRepeatParams(srcBlkStride=300)
    assert (u.dstBlkStride, u.srcBlkStride, u.dstRepStride, u.srcRepStride) == (1, 300, 8, 8)
    with pytest.raises(AttributeError):
        p.dstBlkStride = 2  # type: ignore[misc]
    for bad in ({"dstRepStride": 256}, {"src0BlkStride": -1}, {"src1RepStride": 1.0}):
        with pytest.raises(errors.ParameterError, match="BinaryRepeatParams"):
            BLK_PARAMS(**bad)
    with pytest.raises(errors.ParameterError, match="UnaryRepeatParams"):
        A.UnaryRepeatParams(2**16)


# --- constraint violations raise and write nothing -----------------------------------------------------------------
def _violations() -> list[tuple[str, Any, Any]]:
    """(description, call on (dst, s0, s1, ub), expected error class)."""
    p = BLK_PARAMS()
    return [
        ("count > size", lambda d, a, b: A.Add(d, a, b, 1025), errors.ParameterError),
        ("negative count", lambda d, a, b: A.Add(d, a, b, -1), errors.ParameterError),
        ("repeat 256", lambda d, a, b: A.Add(d, a, b, 64, 256, p), errors.ParameterError),
        ("mask 0", lambda d, a, b: A.Add(d, a, b, 0, 1, p), errors.ParameterError),
        ("mask 65 for b32", lambda d, a, b: A.Add(d, a, b, 65, 1, p), errors.ParameterError),
        ("mask[1] for b32", lambda d, a, b: A.Mul(d, a, b, [1, 1], 1, p), errors.ParameterError),
        ("mask both 0", lambda d, a, b: A.Mul(d, a, b, [0, 0], 1, p), errors.ParameterError),
        ("mask[3]", lambda d, a, b: A.Mul(d, a, b, [1, 0, 0], 1, p), errors.ParameterError),
        ("mask 2**64", lambda d, a, b: A.Mul(d, a, b, [2**64, 0], 1, p), errors.ParameterError),
        ("placeholder needed", lambda d, a, b: A.Max(d, a, b, 64, 1, p, is_set_mask=False), errors.ParameterError),
        ("params type", lambda d, a, b: A.Min(d, a, b, 64, 1, (1, 1, 1, 8, 8, 8)), errors.ParameterError),
        ("argument count", lambda d, a, b: A.Min(d, a, b, 64, 1), errors.ParameterError),
        ("misaligned dst", lambda d, a, b: A.Add(d[1], a, b, 8), errors.AlignmentError),
        ("dtype mismatch", lambda d, a, b: A.Add(d, a.ub.alloc(rs.int32, 64), b, 8), errors.DTypeError),
        # a Reg-level failure inside the lowering: the last repeat's store leaves dst
        ("store past dst", lambda d, a, b: A.Add(d, a, b, 64, 3, BLK_PARAMS(1, 1, 1, 100, 8, 8)), errors.OutOfBoundsError),
    ]


def _unary_violations() -> list[tuple[str, Any, Any]]:
    u = A.UnaryRepeatParams()
    return [
        ("Abs wrong struct", lambda d, a, b: A.Abs(d, a, 64, 1, BLK_PARAMS()), errors.ParameterError),
        ("Adds no scalar", lambda d, a, b: A.Adds(d, a), errors.ParameterError),
        ("Adds argument count", lambda d, a, b: A.Adds(d, a, 1.0, 64, 1), errors.ParameterError),
        ("Relu count > size", lambda d, a, b: A.Relu(d, a, 2000), errors.ParameterError),
        ("Muls repeat 300", lambda d, a, b: A.Muls(d, a, 2.0, 64, 300, u), errors.ParameterError),
        ("Maxs mask 100 for b32", lambda d, a, b: A.Maxs(d, a, 2.0, 100, 1, u), errors.ParameterError),
        ("Mins is_set_mask on first-n", lambda d, a, b: A.Mins(d, a, 2.0, 8, is_set_mask=False), errors.ParameterError),
        ("Relu store past dst", lambda d, a, b: A.Relu(d, a, 64, 3, A.UnaryRepeatParams(1, 1, 100, 8)), errors.OutOfBoundsError),
        ("Abs misaligned src", lambda d, a, b: A.Abs(d, a[3], 8), errors.AlignmentError),
    ]


@pytest.mark.parametrize(("what", "call", "error"), _unary_violations(), ids=[v[0] for v in _unary_violations()])
def test_unary_violations_raise_and_write_nothing(what: str, call: Any, error: type[Exception]) -> None:
    ub, (dst, s0, s1) = tensors(rs.float32, 1024, seed=15)
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        call(dst, s0, s1)
    assert str(info.value).split(":")[0] == what.split()[0], str(info.value)
    assert np.array_equal(ub.storage.data, before), f"{what}: the UB changed"


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(data=st.data())
def test_counter_mode_hypothesis(data: st.DataObject) -> None:
    """Counter mode over every family: the mask is a count, the predicate recomputed each repeat."""
    api, dtype = data.draw(st.sampled_from(REPEAT_CASES), "case")
    lanes = 256 // dtype.itemsize
    count = data.draw(st.integers(1, 4 * lanes), "count")
    strides = (
        *data.draw(st.tuples(st.integers(1, 2), st.integers(0, 2), st.integers(0, 2))),
        *data.draw(st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 12))),
    )
    n = max(MO.touched_elements(dtype.itemsize, -(-count // lanes), strides[i], strides[i + 3]) for i in range(3)) + lanes
    ub, ts = tensors(dtype, n, seed=count)
    arrays = [t.numpy() for t in ts]
    params, oracle_strides = repeat_params(api, strides)
    with counter_mode():
        run_both(lambda: invoke(api, ts, count, data.draw(st.integers(0, 255), "repeat_time (unused)"), params), ub)
    srcs, scalar = oracle_srcs(api, arrays, dtype)
    assert_same(ts[0].numpy(), MO.counter_mode(api, arrays[0], srcs, count, oracle_strides, scalar), f"{api} counter {count}")


def test_counter_mode_without_set_mask_reads_the_count_from_the_vector_mask() -> None:
    ub, ts = tensors(rs.half, 1024, seed=16)
    arrays = [t.numpy() for t in ts]
    with counter_mode():
        A.SetVectorMask(rs.half, 300)
        try:
            run_both(lambda: A.Abs(ts[0], ts[1], A.MASK_PLACEHOLDER, 1, A.UnaryRepeatParams(), is_set_mask=False), ub)
        finally:
            A.ResetMask()
    assert_same(ts[0].numpy(), MO.counter_mode("Abs", arrays[0], arrays[1:2], 300, (1, 1, 8, 8)), "counter from SPR")


@pytest.mark.parametrize(("what", "call", "error"), _violations(), ids=[v[0] for v in _violations()])
def test_violations_raise_and_write_nothing(what: str, call: Any, error: type[Exception]) -> None:
    ub, (dst, s0, s1) = tensors(rs.float32, 1024, seed=7)
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        call(dst, s0, s1)
    assert str(info.value).split(":")[0] in ("Add", "Mul", "Max", "Min"), str(info.value)
    assert np.array_equal(ub.storage.data[: 3 * 4096], before[: 3 * 4096]), f"{what}: the UB changed"


def test_reg_failure_is_reported_as_the_high_level_call() -> None:
    _, (dst, s0, s1) = tensors(rs.float32, 1024, seed=8)
    with pytest.raises(errors.OutOfBoundsError, match=r"^Add: .*from Reg StoreAlign") as info:
        A.Add(dst, s0, s1, 64, 3, BLK_PARAMS(1, 1, 1, 100, 8, 8))
    assert isinstance(info.value.__cause__, errors.OutOfBoundsError)


@pytest.mark.parametrize(
    ("api", "dtype"), [("Add", rs.int8), ("Add", rs.int64), ("Add", rs.complex64), ("Mul", rs.uint8), ("Max", rs.uint64)]
)
def test_repeat_interface_refuses_8_and_64_bit(api: str, dtype: Any) -> None:
    """On 950, 8- and 64-bit (and complex) types have only the first-n interface."""
    ub, (dst, s0, s1) = tensors(dtype, 256, seed=9)
    before = ub.storage.data.copy()
    with pytest.raises(errors.DTypeError, match=f"^{api}: dst"):
        getattr(A, api)(dst, s0, s1, 1, 1, BLK_PARAMS())
    assert np.array_equal(ub.storage.data, before)


@pytest.mark.parametrize(("api", "dtype"), [("Mul", rs.int8), ("Max", rs.complex32), ("Min", rs.complex64)])
def test_first_n_refuses_unsupported_dtypes(api: str, dtype: Any) -> None:
    _, (dst, s0, s1) = tensors(dtype, 64, seed=10)
    with pytest.raises(errors.DTypeError):
        getattr(A, api)(dst, s0, s1, 8)


def test_memory_level_calls_are_host_side() -> None:
    _, (dst, s0, s1) = tensors(rs.int16, 128, seed=11)
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^Add"):
        A.Add(dst, s0, s1, 8)
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^SetMaskCount"):
        A.SetMaskCount()


def test_set_vector_mask_ranges() -> None:
    rs.UnifiedBuffer(1024)
    with pytest.raises(errors.ParameterError):
        A.SetVectorMask(rs.int16, 2**64, 0)
    with pytest.raises(errors.ParameterError):
        A.SetVectorMask(rs.float32, 65)
    with pytest.raises(errors.ParameterError):
        A.SetVectorMask(rs.float32, 1, 2, 3)  # type: ignore[call-overload]
    with counter_mode():
        A.SetVectorMask(rs.float32, 1000)
        assert rs._src.lowerings.vector_mask.vector_mask() == (0, 1000)
    A.ResetMask()
    assert rs._src.lowerings.vector_mask.vector_mask() == (2**64 - 1, 2**64 - 1)


# --- the lowering explorer -----------------------------------------------------------------------------------------
def test_lower_lists_the_reg_ops_with_counts_and_bytes() -> None:
    _, (dst, s0, s1) = tensors(rs.int16, 300, seed=12)
    low = rs.lower(A.Add, dst, s0, s1, 300)
    assert [r.api for r in low.records] == ["UpdateMask", "LoadAlign", "LoadAlign", "Add", "StoreAlign"] * 3
    assert low.counts() == {"UpdateMask": 3, "LoadAlign": 6, "Add": 3, "StoreAlign": 3}
    assert low.bytes()["StoreAlign"] == (0, 600)  # 300 int16 written
    assert low.bytes()["LoadAlign"] == (6 * 256, 0)  # whole registers read
    assert "Add(" in low.table() and "15 Reg calls" in str(low)
    low = rs.lower(A.Max, dst, s0, s1, [0b101, 0], 2, BLK_PARAMS(1, 1, 1, 4, 8, 8))
    assert low.counts() == {"MoveMask": 1, "LoadAlign/block": 4, "Max": 2, "StoreAlign/block": 2}
    assert [r.active for r in low.records if r.api == "Max"] == [2, 2]
    ub = rs.UnifiedBuffer(2048)
    dst, src, off = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64), ub.alloc(rs.uint32, 64)
    src.set(np.arange(64, dtype=np.float32))
    off.set(np.arange(63, -1, -1, dtype=np.uint32) * 4)
    low = rs.lower(A.Gather, dst, src, off, 0, 64)
    assert low.counts() == {"CreateMask": 1, "UpdateMask": 1, "LoadAlign": 1, "ShiftRights": 1, "Gather/ub": 1, "StoreAlign": 1}
    assert low.call.startswith("Gather(") and dst.numpy().tolist() == list(range(63, -1, -1))


def test_lower_cli(python_m_regsim: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    out = python_m_regsim("lower", "Add(int16, count=256)", check=True).stdout
    assert "Add(int16, count=256): 10 Reg calls" in out
    summary = {line.split()[0]: line.split()[1:] for line in out.splitlines()[-4:]}
    assert summary == {
        "UpdateMask": ["2", "0", "0"],
        "LoadAlign": ["4", "1024", "0"],
        "Add": ["2", "0", "0"],
        "StoreAlign": ["2", "0", "512"],
    }
    out = python_m_regsim(
        "lower", "Mul(float32, mask=[3, 0], repeat_time=2, repeat_params=(1, 1, 1, 8, 8, 8))", check=True
    ).stdout
    assert "LoadAlign/block" in out and "Mul" in out
    bad = python_m_regsim("lower", "Nope(int16, count=1)")
    assert bad.returncode == 2 and "Nope" in bad.stderr


@pytest.mark.parametrize(
    ("call", "ops"),
    [
        ("And(int16, count=512)", {"UpdateMask": 4, "LoadAlign": 8, "And": 4, "StoreAlign": 4}),
        ("Gather(half, count=128)", {"Gather/ub": 1, "StoreAlign": 1}),
        ("Gather(half, mask=128, repeat_time=4, dst_rep_stride=8)", {"Gather/ub": 4, "StoreAlign": 4}),
        ("asc_eq(half, repeat=2)", {"Compare": 2, "StoreUnAlign/mask": 2}),
        ("asc_eq_sync(float32, repeat=1, cmp_mask=True)", {"MoveMask": 1, "Compare": 1, "Select/mask": 1}),
        ("asc_eq_scalar(float32, repeat=3, value=0.5)", {"Compares": 3}),
    ],
)
def test_lower_explains_every_seed_api(call: str, ops: dict[str, int], capsys: pytest.CaptureFixture[str]) -> None:
    """`regsim lower` on the seed pages' memory-level APIs (And, Gather, asc_eq / asc_eq_sync): their Reg calls."""
    from regsim._src.frontends import cli

    assert cli.main(["lower", call]) == 0
    out = capsys.readouterr().out
    assert out.startswith(call + ": ")
    counts = {line.split()[0]: int(line.split()[1]) for line in out.split("UB bytes written")[-1].strip().splitlines()}
    assert ops.items() <= counts.items(), counts


def test_lower_says_what_a_reg_op_is(capsys: pytest.CaptureFixture[str]) -> None:
    """The register-level seed API (AddC) is not lowered: the command says so, with its form."""
    from regsim._src.frontends import cli

    assert cli.main(["lower", "AddC(uint32)"]) == 0
    out = capsys.readouterr().out
    assert (
        out.startswith("AddC is a register-level (Reg) op") and "AddC(carry, dst_reg, src_reg0, src_reg1, carry_src, mask)" in out
    )


# --- the seed pages ----------------------------------------------------------------------------------------------
def test_and_seed_page() -> None:
    """The And page: src0 = [1 .. 512], src1 = [513, 512 .. 2], int16; every interface gives [1 0 3 ... 0]."""
    src0_vals = np.arange(1, 513, dtype=np.int16)
    src1_vals = np.arange(513, 1, -1, dtype=np.int16)
    want = src0_vals & src1_vals
    assert want[:3].tolist() == [1, 0, 3] and want[-1] == 0
    for args in ((512,), (128, 4, BLK_PARAMS(1, 1, 1, 8, 8, 8)), ([2**64 - 1, 2**64 - 1], 4, BLK_PARAMS(1, 1, 1, 8, 8, 8))):
        ub = rs.UnifiedBuffer(4096)
        dst, s0, s1 = (ub.alloc(rs.int16, 512) for _ in range(3))
        dst.set(np.zeros(512, np.int16))
        s0.set(src0_vals)
        s1.set(src1_vals)
        A.And(dst, s0, s1, *args)
        assert np.array_equal(dst.numpy(), want)


GATHER_DTYPES = [
    rs.int8,
    rs.uint8,
    rs.uint16,
    rs.int16,
    rs.half,
    rs.bfloat16,
    rs.uint32,
    rs.int32,
    rs.float32,
    rs.int64,
    rs.uint64,
]


@settings(max_examples=max(10, settings.default.max_examples))
@given(data=st.data())
def test_gather_hypothesis(data: st.DataObject) -> None:
    """Gather against the page's addressing: random byte offsets (element-aligned, inside src), srcBaseAddr,
    the first-n and the mask/repeat interfaces (continuous, bit, counter mode; b8: first-n only) with dstRepStride."""
    dtype = data.draw(st.sampled_from(GATHER_DTYPES), "dtype")
    w, lanes = dtype.itemsize, 256 // dtype.itemsize
    src_n = data.draw(st.integers(1, 300), "src elements")
    base = 32 * data.draw(st.integers(0, (src_n - 1) * w // 32), "srcBaseAddr / 32")
    forms = ["count"] if w == 1 else ["count", "continuous", "bit", "counter"]  # b8: the first-n interface only
    form = data.draw(st.sampled_from(forms), "form")
    repeats = data.draw(st.integers(0, 3), "repeat_time")
    stride = data.draw(st.integers(0, 12), "dstRepStride")
    if form == "count":
        count = data.draw(st.integers(0, 3 * lanes), "count")
        dst_n, off_n = max(count, 1), max(count, 1)
    elif form == "counter":
        count = data.draw(st.integers(1, 3 * lanes), "count")
        dst_n, off_n = max(1, (-(-count // lanes) - 1) * stride * (32 // w) + lanes), -(-count // lanes) * lanes
    else:
        dst_n, off_n = max(1, max(repeats - 1, 0) * stride * (32 // w) + lanes), max(repeats, 1) * lanes
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), "seed"))
    ub = rs.UnifiedBuffer(-(-(dst_n * w) // 256) * 256 + -(-(src_n * w) // 256) * 256 + -(-(off_n * 4) // 256) * 256 + 512)
    dst, src, off = ub.alloc(dtype, dst_n), ub.alloc(dtype, src_n), ub.alloc(rs.uint32, off_n)
    for t in (dst, src):
        t.set(values(dtype, t.size, rng))
    off.set(rng.integers(0, src_n - base // w, off_n).astype(np.uint32) * w)
    d0, s0, o0 = dst.numpy(), src.numpy(), off.numpy()
    step = stride * (32 // w)
    if form == "count":
        run_both(lambda: A.Gather(dst, src, off, base, count), ub)
        want = MO.gather(d0, s0, o0, base, lambda r, k: r * lanes + k < count, -(-count // lanes), lanes)
    elif form == "counter":
        with counter_mode():
            run_both(lambda: A.Gather(dst, src, off, base, count, repeats, stride), ub)
        want = MO.gather(d0, s0, o0, base, lambda r, k: r * lanes + k < count, -(-count // lanes), step)
    else:
        if form == "continuous":
            mask: Any = data.draw(st.integers(1, lanes), "mask")
        else:
            lo = data.draw(st.integers(1, 2**64 - 1 if lanes > 32 else 2**32 - 1), "mask[0]")
            mask = [lo, data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0]
        run_both(lambda: A.Gather(dst, src, off, base, mask, repeats, stride), ub)
        sel = MO.mask_elements(w, mask)
        want = MO.gather(d0, s0, o0, base, lambda r, k: sel[k], repeats, step)
    assert_same(dst.numpy(), want, f"Gather {dtype.name} {form}")


@pytest.mark.parametrize(
    ("what", "args", "error"),
    [
        ("int8 mask/repeat (b8: first-n only)", "int8", errors.DTypeError),
        ("unaligned srcBaseAddr", (1, 8), errors.ParameterError),
        ("srcBaseAddr not 32-byte aligned", (2, 8), errors.AlignmentError),
        ("unaligned offset", "odd offset", errors.ParameterError),
        ("offset past 2**17 - 1 for b16", "big offset", errors.ParameterError),
        ("offset outside src", "far offset", errors.OutOfBoundsError),
        ("count > dst", (0, 129), errors.ParameterError),
        ("mask 129", (0, 129, 1, 8), errors.ParameterError),
        ("repeat 256", (0, 128, 256, 8), errors.ParameterError),
        ("dstRepStride 2**16", (0, 128, 1, 2**16), errors.ParameterError),
        ("offsets tensor too short", (0, 128, 2, 8), errors.ParameterError),
        ("float offsets", "float offsets", errors.DTypeError),
    ],
)
def test_gather_violations_write_nothing(what: str, args: Any, error: type[Exception]) -> None:
    ub = rs.UnifiedBuffer(4096)
    dst, src, off = ub.alloc(rs.half, 128), ub.alloc(rs.half, 128), ub.alloc(rs.uint32, 128)
    rng = np.random.default_rng(0)
    dst.set(values(rs.half, 128, rng))
    src.set(values(rs.half, 128, rng))
    offsets = np.arange(0, 256, 2, dtype=np.uint32)
    if args == "odd offset":
        offsets[5] = 3
    elif args == "big offset":
        offsets[5] = 2**17
    elif args == "far offset":
        offsets[5] = 2048
    off.set(offsets)
    before = ub.storage.data.copy()
    with pytest.raises(error, match=r"^Gather"):
        if args == "int8":
            A.Gather(ub.alloc(rs.int8, 64), ub.alloc(rs.int8, 64), off, 0, 8, 1, 8)
        elif args == "float offsets":
            A.Gather(dst, src, ub.alloc(rs.float32, 64), 0, 8)  # type: ignore[arg-type]
        elif isinstance(args, str):
            A.Gather(dst, src, off, 0, 128)
        else:
            A.Gather(dst, src, off, *args)
    assert np.array_equal(ub.storage.data[: before.size], before) or args in ("int8", "float offsets")
    assert np.array_equal(dst.numpy(), before[dst.addr : dst.addr + 256].view(np.float16))


@pytest.mark.parametrize("interface", ["count", "mask continuous", "mask bit"])
def test_gather_seed_page(interface: str) -> None:
    """The Gather page: srcOffset = [254 252 ... 2 0] bytes, src = 128 halves [0 .. 127], srcBaseAddr 0:
    dst = [127 126 ... 0]; its three calls (count 512; mask 128, repeat 4, dstRepStride 8; mask[2] all
    ones, repeat 4, dstRepStride 8), the offsets repeated for each 128 elements."""
    offsets = np.tile(np.arange(254, -1, -2, dtype=np.uint32), 4)
    src_vals = np.arange(128).astype(np.float16)
    want = np.tile(src_vals[::-1], 4)
    ub = rs.UnifiedBuffer(8192)
    dst = ub.alloc(rs.half, 512)
    src = ub.alloc(rs.half, 128)
    off = ub.alloc(rs.uint32, 512)
    dst.set(np.zeros(512, np.float16))
    src.set(src_vals)
    off.set(offsets)
    args = {"count": (512,), "mask continuous": (128, 4, 8), "mask bit": ([2**64 - 1, 2**64 - 1], 4, 8)}[interface]
    run_both(lambda: A.Gather(dst, src, off, 0, *args), ub)
    assert np.array_equal(dst.numpy(), want)
    assert dst.numpy()[:3].tolist() == [127, 126, 125] and dst.numpy()[-1] == 0


def test_asc_eq_seed_page() -> None:
    """The asc_eq page's example: 128 halves, repeat 1, block strides 1, repeat strides 8; the result read
    from the compare-mask register (asc_get_cmp_mask, 16 bytes) and written to dst (uint8_t[16]), bit i of
    the little-endian bit array = (src0[i] == src1[i])."""
    a = np.arange(128).astype(np.float16)
    b = a.copy()
    b[::3] = -1  # every third element differs
    want = np.packbits(a == b, bitorder="little")
    ub = rs.UnifiedBuffer(4096)
    src0, src1 = ub.alloc(rs.half, 128), ub.alloc(rs.half, 128)
    from_reg, to_dst = ub.alloc(rs.uint8, 16), ub.alloc(rs.uint8, 16)
    src0.set(a)
    src1.set(b)
    capi = rs.capi
    capi.asc_eq(src0.GetPhyAddr(), src1.GetPhyAddr(), 1, 1, 1, 1, 8, 8, 8)
    capi.asc_get_cmp_mask(from_reg.GetPhyAddr())
    capi.asc_eq(to_dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), 1, 1, 1, 1, 8, 8, 8)
    assert np.array_equal(from_reg.numpy(), want)
    assert np.array_equal(to_dst.numpy(), want)


# --- the whole-tensor operator form --------------------------------------------------------------------------------
OPERATOR_CASES = [
    (op, api, d) for op, api in (("+", "Add"), ("-", "Sub"), ("*", "Mul")) for d in (rs.int16, rs.float32, rs.uint8, rs.int64)
]


@pytest.mark.parametrize(("op", "api", "dtype"), OPERATOR_CASES, ids=[f"{a}-{d.name}" for _, a, d in OPERATOR_CASES])
def test_operator_form(op: str, api: str, dtype: Any) -> None:
    """C++ `dst = src0 + src1;` is `dst[:] = src0 + src1`: the API over dst's whole length (a dtype the
    API does not take, e.g. uint8 Mul, is refused and writes nothing)."""
    ub, ts = tensors(dtype, 300, seed=13)
    dst, s0, s1 = ts
    arrays = [t.numpy() for t in ts]
    expr = {"+": lambda: s0 + s1, "-": lambda: s0 - s1, "*": lambda: s0 * s1}[op]()
    if dtype not in COUNT_DTYPES[api]:
        with pytest.raises(errors.DTypeError, match=f"^{api}: dst"):
            dst[:] = expr
        assert_same(dst.numpy(), arrays[0], "dst unchanged")
        return
    run_both(lambda: dst.__setitem__(slice(None), expr), ub)
    assert_same(dst.numpy(), MO.first_n(api, arrays[0], arrays[1:], 300), f"dst = src0 {op} src1")


def test_operator_form_errors() -> None:
    ub, (dst, s0, s1) = tensors(rs.int16, 128, seed=14)
    before = ub.storage.data.copy()
    with pytest.raises(errors.ParameterError):
        dst[1:] = s0 + s1
    with pytest.raises(errors.ParameterError):
        dst[:] = s0  # type: ignore[assignment]
    assert np.array_equal(ub.storage.data, before)
    ub8, (d8, a8, b8) = tensors(rs.int8, 128, seed=14)
    before8 = ub8.storage.data.copy()
    with pytest.raises(errors.DTypeError, match=r"^Div: dst"):  # Div has no 8-bit type
        d8[:] = a8 / b8
    assert np.array_equal(ub8.storage.data, before8)
    arrays = [t.numpy() for t in (dst, s0, s1)]
    dst[:] = s0 & s1
    assert_same(dst.numpy(), MO.first_n("And", arrays[0], arrays[1:], 128), "dst = src0 & src1")
    dst[:] = s0 | s1
    assert_same(dst.numpy(), MO.first_n("Or", arrays[0], arrays[1:], 128), "dst = src0 | src1")
