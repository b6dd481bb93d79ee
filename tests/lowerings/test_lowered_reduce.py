"""The memory-level Div, Exp, ReduceSum, ReduceMax and ReduceMin (regsim._src.lowerings.reduce): every API x
interface x dtype against the independent oracles of regsim.testing.lowering_reference (the addressing
model, and for the reductions the 950 library's order of float adds computed step by step), Hypothesis
over masks, repeats, strides and mask modes, constraint violations that raise and write nothing, the
in-order and the default loop runs agreeing bit for bit, the lowering explorer and the pages' examples."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import bits, counter_mode, run_both  # (run_both: loops="sequential" vs the default, same UB bytes)

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC

#: 950 dtype lists, written from the pages' "数据类型" and the dav_3510 static_asserts
FLOATS = [rs.half, rs.float32]
SUM_COUNT = [rs.half, rs.float32, rs.int32, rs.uint32, rs.int64, rs.uint64]
SUM_REPEAT = [rs.half, rs.float32, rs.int32, rs.uint32]
MINMAX_COUNT = [rs.int16, rs.uint16, rs.half, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
MINMAX_REPEAT = [rs.int16, rs.uint16, rs.half, rs.int32, rs.uint32, rs.float32]
#: GetMinValue / GetMaxValue of the library: floats start from the largest finite magnitude
INIT_BITS = {rs.half: (0xFBFF, 0x7BFF), rs.float32: (0xFF7FFFFF, 0x7F7FFFFF)}


def init_for(dtype: Any, kind: str) -> Any:
    npd = np.dtype(dtype.np_dtype)
    if dtype in INIT_BITS:
        return np.array(INIT_BITS[dtype][kind == "min"], f"u{npd.itemsize}").view(npd)[()]
    info = np.iinfo(npd)
    return npd.type(info.min if kind == "max" else info.max)


def lanes_of(dtype: Any) -> int:
    return 256 // dtype.itemsize


def index_bits(dtype: Any) -> int:
    return 16 if dtype.itemsize == 2 else 32


def values(dtype: Any, n: int, rng: np.random.Generator, api: str = "") -> np.ndarray:
    """Random elements: floats in [-100, 100) (Div: |x| >= 0.5; Exp: a range whose results stay normal and
    finite); integers: any bits but the reductions' initial values, with repeats (ties) now and then."""
    npd = np.dtype(dtype.np_dtype)
    if dtype in (rs.complex32, rs.complex64):
        return (rng.integers(-9, 10, n) + 1j * rng.integers(-9, 10, n)).astype(npd)
    if npd.kind == "f":
        if api == "Exp":
            bound = 9.0 if dtype is rs.half else 80.0
            return rng.uniform(-bound, bound, n).astype(npd)
        v = rng.uniform(-100, 100, n)
        if api == "Div":
            v = np.where(np.abs(v) < 0.5, 1.0 + np.abs(v), v)
        return v.astype(npd)
    info = np.iinfo(npd)
    if npd.itemsize == 8:
        v = rng.integers(info.min + 1, info.max, n, dtype=npd, endpoint=False)
    else:
        v = rng.integers(int(info.min) + 1, int(info.max), n, endpoint=False).astype(npd)
    if n > 4 and rng.random() < 0.5:
        v[rng.integers(0, n, n // 4)] = v[rng.integers(0, n)]
    return v


def assert_same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    g, w = bits(got).reshape(got.size, -1), bits(want).reshape(want.size, -1)
    bad = np.nonzero((g != w).any(axis=1))[0]
    assert bad.size == 0, (
        f"{what}: {bad.size} elements differ, first {bad[:5].tolist()}: got {got[bad[:5]]!r} want {want[bad[:5]]!r}"
        f" (hex got {g[bad[:1]].tobytes()[::-1].hex()} want {w[bad[:1]].tobytes()[::-1].hex()})"
    )


def setup(
    dtype: Any, n_src: int, seed: int, api: str = "", n_work: int = 0, count: int = 3
) -> tuple[rs.UnifiedBuffer, list[Any]]:
    """A UB with dst (16 elements), src (n_src elements, whole registers of slack after) and a work tensor;
    for the elementwise APIs `count` tensors of n_src elements."""
    rng = np.random.default_rng(seed)
    lanes = lanes_of(dtype)
    if api in ("Div", "Exp"):
        size = count * (-(-n_src // lanes) + 1) * 256 + 256
        ub = rs.UnifiedBuffer(size)
        ts = [ub.alloc(dtype, n_src) for _ in range(count)]
        for t in ts:
            t.set(values(dtype, n_src, rng, api))
        return ub, ts
    n_work = max(n_work, lanes)
    regs = -(-n_src // lanes) + 2
    ub = rs.UnifiedBuffer(256 + regs * 256 + -(-n_work // lanes) * 256 + 256 + 2048)  # (slack for more tensors)
    dst, src, work = ub.alloc(dtype, 16 * 8 // dtype.itemsize), ub.alloc(dtype, regs * lanes), ub.alloc(dtype, n_work)
    dst.set(values(dtype, dst.size, rng))
    src.set(values(dtype, src.size, rng))
    work.set(values(dtype, work.size, rng))
    return ub, [dst, src, work]


# --- Div and Exp ------------------------------------------------------------------------------------------------
ELEMENTWISE = [(api, d) for api in ("Div", "Exp") for d in FLOATS]


def _call_elementwise(api: str, ts: list[Any], *rest: Any) -> None:
    if api == "Div":
        A.Div(ts[0], ts[1], ts[2], *rest)
    else:
        A.Exp(ts[0], ts[1], *rest)


@pytest.mark.parametrize(("api", "dtype"), ELEMENTWISE, ids=[f"{a}-{d.name}" for a, d in ELEMENTWISE])
def test_div_exp_first_n(api: str, dtype: Any) -> None:
    lanes = lanes_of(dtype)
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, ts = setup(dtype, 3 * lanes, seed=count, api=api)
        arrays = [t.numpy() for t in ts]
        run_both(lambda: _call_elementwise(api, ts, count), ub)  # noqa: B023
        srcs = arrays[1:3] if api == "Div" else arrays[1:2]
        assert_same(ts[0].numpy(), MO.first_n(api, arrays[0], srcs, count), f"{api}({dtype.name}, count={count})")


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(data=st.data())
def test_div_exp_repeat_hypothesis(data: st.DataObject) -> None:
    """The mask/repeat interfaces (continuous, bit and counter mask modes) with random strides; integer Div with
    its special operands (x / 0, MIN / -1)."""
    api, dtype = data.draw(st.sampled_from([*ELEMENTWISE, *(("Div", d) for d in DIV_INT)]), "case")
    lanes = lanes_of(dtype)
    form = data.draw(st.sampled_from(["continuous", "bit", "counter"]), "form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    binary = api == "Div"
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3), st.integers(0, 3)), "block strides")
    rep = data.draw(st.tuples(st.integers(0, 16), st.integers(0, 16), st.integers(0, 16)), "repeat strides")
    strides = (*blk, *rep) if binary else (blk[0], blk[1], rep[0], rep[1])
    params = A.BinaryRepeatParams(*strides) if binary else A.UnaryRepeatParams(*strides)
    half = len(strides) // 2
    count = data.draw(st.integers(1, 4 * lanes), "count")
    reps = -(-count // lanes) if form == "counter" else max(repeats, 1)
    n = max(MO.touched_elements(dtype.itemsize, reps, strides[i], strides[i + half]) for i in range(half)) + lanes
    seed = data.draw(st.integers(0, 99))
    ub, ts = div_setup(dtype, n, seed)[:2] if dtype in DIV_INT else setup(dtype, n, seed=seed, api=api)
    arrays = [t.numpy() for t in ts]
    srcs = arrays[1:3] if binary else arrays[1:2]
    if form == "counter":
        with counter_mode():
            run_both(lambda: _call_elementwise(api, ts, count, repeats, params), ub)
        want = MO.counter_mode(api, arrays[0], srcs, count, strides)
    else:
        if form == "continuous":
            mask: Any = data.draw(st.integers(1, lanes), "mask")
        else:
            lo = data.draw(st.integers(1, 2**64 - 1 if lanes > 32 else 2**32 - 1), "mask[0]")
            mask = [lo, data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0]
        run_both(lambda: _call_elementwise(api, ts, mask, repeats, params), ub)
        A.ResetMask()
        want = MO.normal_mode(api, arrays[0], srcs, mask, repeats, strides)
    assert_same(ts[0].numpy(), want, f"{api} {dtype.name} {form}")


def test_div_operator_form() -> None:
    """`dst = src0 / src1;` is Div over dst's whole length, on every type of the page (the 64-bit and
    complex ones too: "仅支持tensor前n个数据计算接口和整个tensor参与计算的运算符重载"); int8 is refused."""
    for dtype in (rs.float32, rs.int16, rs.uint64, rs.complex64):
        ub, ts = setup(dtype, 300, seed=3, api="Div")
        arrays = [t.numpy() for t in ts]
        ts[0][:] = ts[1] / ts[2]
        want = MO.first_n("Div", arrays[0], arrays[1:3], 300)
        assert_same(nan_as_nan(ts[0].numpy()), nan_as_nan(want), f"dst = src0 / src1 ({dtype.name})")
    ub = rs.UnifiedBuffer(4096)
    a, b, c = (ub.alloc(rs.int8, 64) for _ in range(3))
    with pytest.raises(errors.DTypeError, match=r"^Div: dst"):
        a[:] = b / c


# --- Div on the integer and complex types (docs/decisions/transcendental.md#memory-div-exp) ----------------------------
#: the Div page's "数据类型" for 950: these four in every interface, the 64-bit and complex types first-n only
DIV_INT = [rs.int16, rs.uint16, rs.int32, rs.uint32]
DIV_FIRST_N_ONLY = [rs.int64, rs.uint64, rs.complex32, rs.complex64]


def div_operands(dtype: Any, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Dividends and divisors with the special cases: x / 0, MIN / -1, ±1, small divisors, equal and
    larger magnitudes; complex: small integer parts, zero parts, a zero divisor."""
    npd = np.dtype(dtype.np_dtype)
    if dtype in (rs.complex32, rs.complex64):
        a = (rng.integers(-9, 10, n) + 1j * rng.integers(-9, 10, n)).astype(npd)
        b = (rng.integers(-9, 10, n) + 1j * rng.integers(-9, 10, n)).astype(npd)
        b[:3] = 0
        return a, b
    info = np.iinfo(npd)
    a = rng.integers(0, 256, n * npd.itemsize, dtype=np.uint8).view(npd).copy()
    b = rng.integers(0, 256, n * npd.itemsize, dtype=np.uint8).view(npd).copy()
    small = rng.integers(-9 if info.min else 0, 10, n).astype(npd)
    b = np.where(rng.random(n) < 0.5, small, b).astype(npd)
    specials_a = [info.min, info.max, 7, 7, 0, info.min, info.max, 5]
    specials_b = [npd.type(-1) if info.min else 1, 0, 0, 2, 0, info.min, info.max, info.max]
    a[: len(specials_a)] = np.array([int(v) for v in specials_a], npd)  # (exact: uint64's max went through float64)
    b[: len(specials_b)] = np.array([int(v) for v in specials_b], npd)
    return a, b


def div_setup(dtype: Any, n: int, seed: int) -> tuple[rs.UnifiedBuffer, list[Any], list[np.ndarray]]:
    ub, ts = setup(dtype, n, seed=seed, api="Div")
    a, b = div_operands(dtype, n, np.random.default_rng(seed))
    ts[1].set(a)
    ts[2].set(b)
    return ub, ts, [t.numpy() for t in ts]


@pytest.mark.parametrize("dtype", DIV_INT + DIV_FIRST_N_ONLY, ids=lambda d: d.name)
def test_div_int_complex_first_n(dtype: Any) -> None:
    """First-n integer Div truncates toward zero, x / 0 is all ones, MIN / -1 wraps; complex Div is the
    Div page's (Smith's) quotient; both loop modes give the same bytes."""
    lanes = lanes_of(dtype) * (2 if dtype.itemsize == 8 or dtype is rs.complex32 else 1)
    for count in (0, 9, lanes - 1, 2 * lanes + 3):
        ub, ts, arrays = div_setup(dtype, 3 * lanes, seed=count)
        run_both(lambda: A.Div(ts[0], ts[1], ts[2], count), ub)  # noqa: B023
        want = MO.first_n("Div", arrays[0], arrays[1:3], count)
        assert_same(nan_as_nan(ts[0].numpy()), nan_as_nan(want), f"Div({dtype.name}, count={count})")


def nan_as_nan(x: np.ndarray) -> np.ndarray:
    """Complex elements with every NaN component one NaN (the complex Div tests compare NaNs as NaN: a
    component's NaN may come from a Mul or a Div step); other types unchanged."""
    if x.dtype not in (np.dtype(rs.complex32.np_dtype), np.dtype(rs.complex64.np_dtype)):
        return x
    comp = np.float16 if x.dtype.itemsize == 4 else np.float32
    parts = x.copy().view(comp)
    parts[np.isnan(parts)] = comp(np.nan)
    return parts.view(x.dtype)


def test_div_int_complex_refusals_write_nothing() -> None:
    """64-bit and complex types have no mask/repeat interface; the integer types take INTRINSIC and
    PRECISION_1ULP_FTZ_TRUE only, complex32 too, complex64 also the FTZ 0-ulp algorithms; nothing is written."""
    params = A.BinaryRepeatParams()
    for dtype in DIV_FIRST_N_ONLY:
        ub, ts, _ = div_setup(dtype, 128, seed=1)
        before = ub.storage.data.copy()
        with pytest.raises(errors.DTypeError, match=r"^Div: dst"):
            A.Div(ts[0], ts[1], ts[2], 16, 1, params)
        assert np.array_equal(ub.storage.data, before)
    for dtype in [*DIV_INT, rs.int64, rs.complex32, rs.complex64]:
        ub, ts, arrays = div_setup(dtype, 128, seed=2)
        for algo in rs.Reg.DivAlgo:
            config = A.DivConfig(algo)
            ok = algo.name in ("INTRINSIC", "PRECISION_1ULP_FTZ_TRUE") or (
                dtype is rs.complex64 and algo.name in ("DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE")
            )
            before = ub.storage.data.copy()
            if ok:
                A.Div(ts[0], ts[1], ts[2], 100, config=config)
                want = MO.first_n("Div", arrays[0], arrays[1:3], 100)
                assert_same(nan_as_nan(ts[0].numpy()), nan_as_nan(want), f"Div {dtype.name} {algo.name}")
                ts[0].set(arrays[0])
            else:
                with pytest.raises(errors.DTypeError, match=r"^Div: dst"):
                    A.Div(ts[0], ts[1], ts[2], 100, config=config)
                assert np.array_equal(ub.storage.data, before)


# --- ReduceSum ----------------------------------------------------------------------------------------------------
def sum_counts(dtype: Any) -> list[int]:
    """Counts reaching every shapeScope of the counter-mode dispatch: 1 register, 2, 3, 4, up to L*L, beyond."""
    lanes = lanes_of(dtype)
    if dtype.itemsize == 8:
        return [0, 1, 31, 32, 33, 64, 65, 200]
    return [0, 1, lanes - 1, lanes, lanes + 1, 2 * lanes + 5, 3 * lanes, 3 * lanes + 7, 4 * lanes, 4 * lanes + 1, 9 * lanes + 3]


def check_sum_count(dtype: Any, count: int, seed: int, *, stride: int | None = None) -> None:
    lanes = lanes_of(dtype)
    e = 32 // dtype.itemsize
    rep_offset = lanes if stride is None else stride * e
    regs = max(-(-count // lanes), 1)
    n_src = (regs - 1) * rep_offset + lanes
    ub, (dst, src, work) = setup(dtype, n_src, seed, n_work=regs + lanes)
    d0, s0 = dst.numpy(), src.numpy()
    if stride is None:
        run_both(lambda: A.ReduceSum(dst, src, work, count), ub)
    else:
        with counter_mode():
            run_both(lambda: A.ReduceSum(dst, src, work, count, 7, stride), ub)
    want = MO.reduce_dst(d0, MO.reduce_sum_count(s0, count, rep_offset), None)
    assert_same(dst.numpy(), want, f"ReduceSum({dtype.name}, count={count}, stride={stride})")
    assert_same(src.numpy(), s0, "src unchanged")


@pytest.mark.parametrize("dtype", SUM_COUNT, ids=[d.name for d in SUM_COUNT])
def test_reduce_sum_first_n(dtype: Any) -> None:
    for count in sum_counts(dtype):
        check_sum_count(dtype, count, seed=count)


def test_reduce_sum_three_levels() -> None:
    """Past L * L elements the partial sums are summed twice more (shapeScope 6)."""
    check_sum_count(rs.float32, 64 * 64 + 70, seed=1)


@pytest.mark.parametrize("dtype", SUM_REPEAT, ids=[d.name for d in SUM_REPEAT])
def test_reduce_sum_counter_mode(dtype: Any) -> None:
    lanes = lanes_of(dtype)
    for count, stride in ((lanes - 3, 8), (2 * lanes + 1, 12), (4 * lanes, 0), (6 * lanes + 5, 9)):
        check_sum_count(dtype, count, seed=count, stride=stride)


def check_sum_normal(dtype: Any, mask: Any, repeats: int, stride: int, seed: int) -> None:
    lanes = lanes_of(dtype)
    e = 32 // dtype.itemsize
    n_src = (max(repeats, 1) - 1) * stride * e + lanes
    ub, (dst, src, work) = setup(dtype, n_src, seed, n_work=repeats + lanes)
    d0, s0 = dst.numpy(), src.numpy()
    run_both(lambda: A.ReduceSum(dst, src, work, mask, repeats, stride), ub)
    A.ResetMask()
    want = MO.reduce_dst(d0, MO.reduce_sum_normal(s0, mask, repeats, stride * e), None)
    assert_same(dst.numpy(), want, f"ReduceSum({dtype.name}, mask={mask}, repeat={repeats}, stride={stride})")


@pytest.mark.parametrize("dtype", SUM_REPEAT, ids=[d.name for d in SUM_REPEAT])
def test_reduce_sum_mask_forms(dtype: Any) -> None:
    lanes = lanes_of(dtype)
    bit_mask = [0x8000_0000_0000_0F09, 0x5 if lanes > 64 else 0]
    for mask in (lanes, lanes // 2 + 3, bit_mask):
        for repeats, stride in ((0, 8), (1, 8), (2, 8), (5, 3), (lanes, 8), (lanes + 3, 2), (4, 0)):
            check_sum_normal(dtype, mask, repeats, stride, seed=repeats)


# --- ReduceMax / ReduceMin ------------------------------------------------------------------------------------------
def check_extreme_count(api: str, dtype: Any, count: int, cal_index: bool, seed: int, *, stride: int | None = None) -> None:
    kind = "max" if api == "ReduceMax" else "min"
    lanes = lanes_of(dtype) * (2 if dtype.itemsize == 8 else 1)
    e = 32 // dtype.itemsize
    rep_offset = lanes if stride is None else stride * e
    regs = max(-(-count // lanes), 1)
    ub, (dst, src, work) = setup(dtype, (regs - 1) * rep_offset + lanes, seed)
    d0, s0 = dst.numpy(), src.numpy()
    if stride is None:
        run_both(lambda: getattr(A, api)(dst, src, work, count, cal_index), ub)
    else:
        with counter_mode():
            run_both(lambda: getattr(A, api)(dst, src, work, count, 3, stride, cal_index=cal_index), ub)
    value, index = MO.reduce_extreme_count(s0, kind, init_for(dtype, kind), count, rep_offset, index_bits(dtype))
    want = MO.reduce_dst(d0, value, index if cal_index else None)
    assert_same(dst.numpy(), want, f"{api}({dtype.name}, count={count}, cal_index={cal_index}, stride={stride})")


MINMAX_COUNT_CASES = [(api, d) for api in ("ReduceMax", "ReduceMin") for d in MINMAX_COUNT]
MINMAX_REPEAT_CASES = [(api, d) for api in ("ReduceMax", "ReduceMin") for d in MINMAX_REPEAT]


@pytest.mark.parametrize(("api", "dtype"), MINMAX_COUNT_CASES, ids=[f"{a}-{d.name}" for a, d in MINMAX_COUNT_CASES])
def test_reduce_extreme_first_n(api: str, dtype: Any) -> None:
    lanes = lanes_of(dtype)
    for count in (0, 1, lanes - 1, lanes + 1, 3 * lanes + 5):
        for cal_index in (False, True):
            check_extreme_count(api, dtype, count, cal_index, seed=count)


@pytest.mark.parametrize(("api", "dtype"), MINMAX_REPEAT_CASES, ids=[f"{a}-{d.name}" for a, d in MINMAX_REPEAT_CASES])
def test_reduce_extreme_counter_mode(api: str, dtype: Any) -> None:
    """Counter mode: the count form with the repeat stride; indices count the elements taken (r * L + k)."""
    lanes = lanes_of(dtype)
    for count, stride in ((lanes - 3, 8), (2 * lanes + 1, 12), (3 * lanes, 0)):
        check_extreme_count(api, dtype, count, True, seed=count, stride=stride)
        check_extreme_count(api, dtype, count, False, seed=count, stride=stride)


def check_extreme_normal(api: str, dtype: Any, mask: Any, repeats: int, stride: int, cal_index: bool, seed: int) -> None:
    kind = "max" if api == "ReduceMax" else "min"
    lanes = lanes_of(dtype)
    e = 32 // dtype.itemsize
    ub, (dst, src, work) = setup(dtype, (max(repeats, 1) - 1) * stride * e + lanes, seed)
    d0, s0 = dst.numpy(), src.numpy()
    run_both(lambda: getattr(A, api)(dst, src, work, mask, repeats, stride, cal_index), ub)
    A.ResetMask()
    value, index = MO.reduce_extreme_normal(s0, kind, init_for(dtype, kind), mask, repeats, stride * e, index_bits(dtype))
    want = MO.reduce_dst(d0, value, index if cal_index else None)
    assert_same(dst.numpy(), want, f"{api}({dtype.name}, mask={mask}, repeat={repeats}, stride={stride}, {cal_index})")


@pytest.mark.parametrize(("api", "dtype"), MINMAX_REPEAT_CASES, ids=[f"{a}-{d.name}" for a, d in MINMAX_REPEAT_CASES])
def test_reduce_extreme_mask_forms(api: str, dtype: Any) -> None:
    lanes = lanes_of(dtype)
    bit_mask = [0x8000_0000_0000_0F0A, 0x5 if lanes > 64 else 0]
    for mask in (lanes, 7, bit_mask):
        for repeats, stride in ((0, 8), (1, 8), (3, 8), (4, 3), (2, 0)):
            for cal_index in (False, True):
                check_extreme_normal(api, dtype, mask, repeats, stride, cal_index, seed=repeats)


@pytest.mark.parametrize("api", ["ReduceMax", "ReduceMin"])
def test_extreme_at_the_initial_value(api: str) -> None:
    """Every element at the initial value (or beyond it: -inf for ReduceMax): the value is the initial value
    (the largest finite magnitude, not -inf) and the index 0 (count form) or the first selected lane."""
    kind = "max" if api == "ReduceMax" else "min"
    _, (dst, src, work) = setup(rs.half, 256, seed=0)
    src.set(np.full(src.size, -np.inf if kind == "max" else np.inf, np.float16))
    d0, s0 = dst.numpy(), src.numpy()
    getattr(A, api)(dst, src, work, 200, True)
    assert dst.numpy()[0] == (-65504 if kind == "max" else 65504)
    value, index = MO.reduce_extreme_count(s0, kind, init_for(rs.half, kind), 200, 128, 16)
    assert_same(dst.numpy(), MO.reduce_dst(d0, value, index), "count form")
    assert index == 0
    getattr(A, api)(dst, src, work, [0b1100, 0], 2, 8, True)
    A.ResetMask()
    value, index = MO.reduce_extreme_normal(s0, kind, init_for(rs.half, kind), [0b1100, 0], 2, 128, 16)
    assert index == 2
    assert_same(dst.numpy(), MO.reduce_dst(d0, value, index), "mask form")


def test_reduce_max_ties_take_the_least_index() -> None:
    """The page: several maxima -> the least index; here 3.0 at 5, 70 and 200 (different lanes and repeats)."""
    _, (dst, src, work) = setup(rs.float32, 256, seed=1)
    v = np.zeros(src.size, np.float32)
    v[[70, 5, 200]] = 3.0
    src.set(v)
    A.ReduceMax(dst, src, work, 256, True)
    assert dst.numpy()[0] == 3.0 and dst.numpy()[1:2].view(np.uint32)[0] == 5
    A.ReduceMin(dst, src, work, 64, 4, 8, cal_index=True)
    assert dst.numpy()[0] == 0.0 and dst.numpy()[1:2].view(np.uint32)[0] == 0


@settings(max_examples=max(10, settings.default.max_examples))
@given(data=st.data())
def test_reductions_hypothesis(data: st.DataObject) -> None:
    """Random API, dtype, form (count, continuous / bit mask, counter mode), repeats, strides, cal_index."""
    api = data.draw(st.sampled_from(["ReduceSum", "ReduceMax", "ReduceMin"]), "api")
    form = data.draw(st.sampled_from(["count", "continuous", "bit", "counter"]), "form")
    pool = (
        (SUM_COUNT if api == "ReduceSum" else MINMAX_COUNT)
        if form == "count"
        else (SUM_REPEAT if api == "ReduceSum" else MINMAX_REPEAT)
    )
    dtype = data.draw(st.sampled_from(pool), "dtype")
    lanes = lanes_of(dtype)
    seed = data.draw(st.integers(0, 2**16), "seed")
    cal_index = api != "ReduceSum" and data.draw(st.booleans(), "cal_index")
    if form == "count":
        count = data.draw(st.integers(0, 6 * lanes), "count")
        if api == "ReduceSum":
            check_sum_count(dtype, count, seed)
        else:
            check_extreme_count(api, dtype, count, cal_index, seed)
        return
    stride = data.draw(st.integers(0, 20), "src_rep_stride")
    if form == "counter":
        count = data.draw(st.integers(0, 6 * lanes), "count")
        if api == "ReduceSum":
            check_sum_count(dtype, count, seed, stride=stride)
        else:
            check_extreme_count(api, dtype, count, cal_index, seed, stride=stride)
        return
    if form == "continuous":
        mask: Any = data.draw(st.integers(1, lanes), "mask")
    else:
        lo = data.draw(st.integers(0, 2**64 - 1 if lanes > 32 else 2**32 - 1), "mask[0]")
        hi = data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0
        mask = [lo, hi] if lo or hi else [1, 0]
    repeats = data.draw(st.integers(0, lanes + 4 if api == "ReduceSum" else 6), "repeat_time")
    if api == "ReduceSum":
        check_sum_normal(dtype, mask, repeats, stride, seed)
    else:
        check_extreme_normal(api, dtype, mask, repeats, stride, cal_index, seed)


# --- constraint violations raise and write nothing -----------------------------------------------------------------
def _violations() -> list[tuple[str, Any, type[Exception], str]]:
    """(description, call on (dst, src, work, ub), error class, parameter the message names)."""
    return [
        ("count > src", lambda d, s, w, ub: A.ReduceSum(d, s, w, s.size + 1), errors.ParameterError, "count"),
        ("negative count", lambda d, s, w, ub: A.ReduceMax(d, s, w, -1), errors.ParameterError, "count"),
        ("repeat 2**16", lambda d, s, w, ub: A.ReduceSum(d, s, w, 64, 2**16, 8), errors.ParameterError, "repeat_time"),
        ("stride 2**16", lambda d, s, w, ub: A.ReduceMin(d, s, w, 64, 1, 2**16), errors.ParameterError, "src_rep_stride"),
        ("mask 0", lambda d, s, w, ub: A.ReduceSum(d, s, w, 0, 1, 8), errors.ParameterError, "mask"),
        ("mask 65 for float", lambda d, s, w, ub: A.ReduceMax(d, s, w, 65, 1, 8), errors.ParameterError, "mask"),
        ("mask[1] for float", lambda d, s, w, ub: A.ReduceMin(d, s, w, [1, 1], 1, 8), errors.ParameterError, "mask[1]"),
        ("repeats past src", lambda d, s, w, ub: A.ReduceMax(d, s, w, 64, 40, 8), errors.ParameterError, "repeat_time"),
        (
            "work too small",
            lambda d, s, w, ub: A.ReduceSum(d, s, w[w.size - 8], 64, 10, 8),
            errors.ParameterError,
            "shared_tmp_buffer",
        ),
        (
            "work too small (count)",
            lambda d, s, w, ub: A.ReduceSum(d, s, w[w.size - 8], 64 * 9 + 1),
            errors.ParameterError,
            "shared_tmp_buffer",
        ),
        ("cal_index not bool", lambda d, s, w, ub: A.ReduceMax(d, s, w, 64, cal_index=1), errors.ParameterError, "cal_index"),
        ("ReduceSum has no cal_index", lambda d, s, w, ub: A.ReduceSum(d, s, w, 64, True), errors.ParameterError, "arguments"),
        ("count, cal_index 1", lambda d, s, w, ub: A.ReduceMin(d, s, w, 64, 1), errors.ParameterError, "cal_index"),
        ("argument count", lambda d, s, w, ub: A.ReduceMin(d, s, w), errors.ParameterError, "arguments"),
        ("misaligned dst", lambda d, s, w, ub: A.ReduceMax(d[d.size - 1], s, w, 8, True), errors.AlignmentError, "dst"),
        ("misaligned src", lambda d, s, w, ub: A.ReduceSum(d, s[3], w, 8), errors.AlignmentError, "src"),
        (
            "dtype mismatch",
            lambda d, s, w, ub: A.ReduceSum(d, s, ub.alloc(rs.int32, 64), 8),
            errors.DTypeError,
            "shared_tmp_buffer",
        ),
        (
            "int16 ReduceSum",
            lambda d, s, w, ub: A.ReduceSum(*(ub.alloc(rs.int16, 128) for _ in range(3)), 8),
            errors.DTypeError,
            "dst",
        ),
        (
            "int64 mask form",
            lambda d, s, w, ub: A.ReduceMax(*(ub.alloc(rs.int64, 32) for _ in range(3)), 8, 1, 8),
            errors.DTypeError,
            "dst",
        ),
        ("Div on int8", lambda d, s, w, ub: A.Div(*(ub.alloc(rs.int8, 64) for _ in range(3)), 8), errors.DTypeError, "dst"),
        ("Exp repeat 256", lambda d, s, w, ub: A.Exp(d, s, 8, 256, A.UnaryRepeatParams()), errors.ParameterError, "repeat_time"),
    ]


@pytest.mark.parametrize(("what", "call", "error", "param"), _violations(), ids=[v[0] for v in _violations()])
def test_violations_raise_and_write_nothing(what: str, call: Any, error: type[Exception], param: str) -> None:
    ub, (dst, src, work) = setup(rs.float32, 1024, seed=7, n_work=64)
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        call(dst, src, work, ub)
    text = str(info.value)
    assert text.split(":")[0] in ("ReduceSum", "ReduceMax", "ReduceMin", "Div", "Exp"), text
    assert param in text and "accepted" in text, text
    assert np.array_equal(ub.storage.data[: before.size], before), f"{what}: the UB changed"


def test_dst_must_hold_the_index() -> None:
    ub2 = rs.UnifiedBuffer(1024)
    d, s, w = ub2.alloc(rs.float32, 1), ub2.alloc(rs.float32, 64), ub2.alloc(rs.float32, 64)
    s.set(np.arange(64, dtype=np.float32))
    before = ub2.storage.data.copy()
    with pytest.raises(errors.ParameterError, match=r"^ReduceMax: dst .*at least 2"):
        A.ReduceMax(d, s, w, 64, True)
    assert np.array_equal(ub2.storage.data, before)
    A.ReduceMax(d, s, w, 64)
    assert d.numpy()[0] == 63.0


def test_reductions_are_host_side() -> None:
    _, (dst, src, work) = setup(rs.float32, 64, seed=9)
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^ReduceSum"):
        A.ReduceSum(dst, src, work, 8)


# --- the lowering explorer and the pages ------------------------------------------------------------------------
def test_lower_reductions() -> None:
    _, (dst, src, work) = setup(rs.half, 1000, seed=10, n_work=256)
    low = rs.lower(A.ReduceSum, dst, src, work, 1000)  # 8 registers: per-register sums, then their sum
    assert low.counts()["Reduce"] == 9 and low.counts()["LocalMemBar"] == 1
    low = rs.lower(A.ReduceSum, dst, src, work, 300)  # 3 registers: two Adds, one Reduce, one StoreAlign
    assert low.counts() == {
        "CreateMask": 2,
        "UpdateMask": 1,
        "LoadAlign": 3,
        "Add": 2,
        "Reduce": 1,
        "StoreAlign": 1,
    }
    low = rs.lower(A.ReduceMax, dst, src, work, 128, 2, 8, True)
    assert {"Squeeze", "Compare", "Arange"} <= set(low.counts())


def test_lower_cli(python_m_regsim: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    out = python_m_regsim("lower", "ReduceMax(half, count=300, cal_index=True)", check=True).stdout
    assert out.startswith("ReduceMax(half, count=300, cal_index=True):") and "Squeeze" in out
    out = python_m_regsim("lower", "ReduceSum(float32, mask=[3, 0], repeat_time=70, src_rep_stride=8)", check=True).stdout
    assert "LocalMemBar" in out and "MoveMask" in out
    out = python_m_regsim("lower", "Div(float32, count=100)", check=True).stdout
    assert "Div" in out
    bad = python_m_regsim("lower", "ReduceSum(half, count=8, cal_index=True)")
    assert bad.returncode == 2 and "cal_index" in bad.stderr


@pytest.mark.parametrize("interface", ["count", "mask continuous", "mask bit"])
def test_reduce_sum_seed_page(interface: str) -> None:
    """The ReduceSum page's example: 8320 halves of 1 (65 repeats of 128, repStride 8): the sum is 8320."""
    ub = rs.UnifiedBuffer(64 * 1024)
    dst, src, work = ub.alloc(rs.half, 16), ub.alloc(rs.half, 8320), ub.alloc(rs.half, 8320)
    src.set(np.ones(8320, np.float16))
    dst.set(np.zeros(16, np.float16))
    args = {"count": (8320,), "mask continuous": (128, 65, 8), "mask bit": ([2**64 - 1, 2**64 - 1], 65, 8)}[interface]
    A.ReduceSum(dst, src, work, *args)
    A.ResetMask()
    assert dst.numpy()[0] == 8320


def test_get_reduce_repeat_sum_spr() -> None:
    """GetReduceRepeatSumSpr<T>: the last first-n ReduceSum's result of that type (0 before any); the
    mask/repeat forms and other types leave it; only half and float."""
    ub = rs.UnifiedBuffer(8192)
    dst, src, work = ub.alloc(rs.float32, 16), ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 64)
    src.set(np.arange(256, dtype=np.float32) / 4)
    assert A.GetReduceRepeatSumSpr(rs.float32) == 0
    A.ReduceSum(dst, src, work, 200)
    want = MO.reduce_sum_count(src.numpy(), 200, 64)
    assert bits(np.array(A.GetReduceRepeatSumSpr(rs.float32))).tolist() == bits(np.array(want)).tolist()
    assert A.GetReduceRepeatSumSpr(rs.half) == 0
    A.ReduceSum(dst, src, work, 64, 2, 8)  # the mask/repeat form: unchanged
    assert A.GetReduceRepeatSumSpr(rs.float32) == want
    with pytest.raises(errors.DTypeError, match=r"^GetReduceRepeatSumSpr: T"):
        A.GetReduceRepeatSumSpr(rs.int32)
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^GetReduceRepeatSumSpr"):
        A.GetReduceRepeatSumSpr(rs.float32)


DIV_FLUSHING = {"INTRINSIC", "DIFF_COMPENSATION", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_0ULP_FTZ_TRUE"}
ZERO_ULP = {"DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE", "PRECISION_0ULP_FTZ_FALSE"}  # float only
CONFIG_CASES = [("Div", a, d) for a in rs.Reg.DivAlgo for d in FLOATS if d is rs.float32 or a.name not in ZERO_ULP] + [
    ("Exp", a, d) for a in rs.Reg.ExpAlgo for d in FLOATS
]


@pytest.mark.parametrize(("api", "algo", "dtype"), CONFIG_CASES, ids=[f"{a}-{g.name}-{d.name}" for a, g, d in CONFIG_CASES])
def test_div_exp_config(api: str, algo: Any, dtype: Any) -> None:
    """`config` (DivConfig / ExpConfig): each algorithm on subnormal inputs and results, in both interfaces;
    the *_FTZ_FALSE algorithms keep subnormals, the others flush them."""
    npd = np.dtype(dtype.np_dtype)
    tiny = float(np.finfo(npd).tiny)
    lanes = lanes_of(dtype)
    ub, ts = setup(dtype, 2 * lanes, seed=5, api=api)
    if api == "Div":  # subnormal / 1, normal / big (a subnormal quotient), normal / subnormal
        a = np.tile(np.array([tiny / 3, -tiny / 5, 1.0, 1e-3], np.float64), lanes // 2).astype(npd)
        big = float(np.finfo(npd).max)  # (1 / it is subnormal in half and float32; half's 4 / tiny overflowed to inf)
        b = np.tile(np.array([1.0, 1.0, big, tiny / 4], np.float64), lanes // 2).astype(npd)
        ts[1].set(a)
        ts[2].set(b)
    else:  # results below the smallest normal, and subnormal inputs
        low = -10.0 if dtype is rs.half else -88.0
        ts[1].set(np.tile(np.array([low, low - 0.5, tiny / 3, 1.0]), lanes // 2).astype(npd))
    arrays = [t.numpy() for t in ts]
    flushing = algo.name in DIV_FLUSHING if api == "Div" else algo.name != "PRECISION_1ULP_FTZ_FALSE"
    oracle = f"{api}:ftz" if flushing else api
    srcs = arrays[1:3] if api == "Div" else arrays[1:2]
    config = A.DivConfig(algo) if api == "Div" else A.ExpConfig(algo)
    f = getattr(A, api)
    operands = ts[:3] if api == "Div" else ts[:2]
    run_both(lambda: f(*operands, 2 * lanes, config=config), ub)
    assert_same(ts[0].numpy(), MO.first_n(oracle, arrays[0], srcs, 2 * lanes), f"{api} {algo.name} first-n")
    ts[0].set(arrays[0])
    params = A.BinaryRepeatParams() if api == "Div" else A.UnaryRepeatParams()
    run_both(lambda: f(*operands, lanes - 1, 2, params, config=config), ub)
    assert_same(
        ts[0].numpy(), MO.normal_mode(oracle, arrays[0], srcs, lanes - 1, 2, attrs_strides(api)), f"{api} {algo.name} repeat"
    )
    assert (ts[0].numpy()[0] == 0) == flushing


def attrs_strides(api: str) -> tuple[int, ...]:
    return (1, 1, 1, 8, 8, 8) if api == "Div" else (1, 1, 8, 8)


def test_config_type_is_checked() -> None:
    ub, ts = setup(rs.float32, 64, seed=6, api="Div")
    hub, hts = setup(rs.half, 128, seed=6, api="Div")
    hbefore = hub.storage.data.copy()
    for name in ZERO_ULP:  # the 0-ulp algorithms on half: refused before anything runs
        with pytest.raises(errors.DTypeError, match=r"^Div: dst .*float32"):
            A.Div(hts[0], hts[1], hts[2], 128, config=A.DivConfig(getattr(A.DivAlgo, name)))
    assert np.array_equal(hub.storage.data, hbefore)
    before = ub.storage.data.copy()
    with pytest.raises(errors.ParameterError, match=r"^Div: config .*DivConfig"):
        A.Div(ts[0], ts[1], ts[2], 64, config=A.ExpConfig())
    with pytest.raises(TypeError):
        A.DivConfig(A.ExpAlgo.INTRINSIC)  # type: ignore[arg-type]
    assert np.array_equal(ub.storage.data, before)


BATCHED = [*ELEMENTWISE, *(("Div", d) for d in (rs.int32, rs.uint16, rs.int64, rs.complex32, rs.complex64))]


@pytest.mark.parametrize(("api", "dtype"), BATCHED, ids=[f"{a}-{d.name}" for a, d in BATCHED])
def test_first_n_forced_batched(api: str, dtype: Any) -> None:
    """The first-n Div / Exp loop batches (loops="batched" does not refuse it) and gives the in-order bits.
    (The mask/repeat forms' DataBlock copies and the reductions' loop-carried registers run in order:
    run_both compares those with the default mode.)"""
    ub, ts = setup(dtype, 5 * lanes_of(dtype) + 7, seed=11, api=api)
    n = ts[0].size
    before = ub.storage.data.copy()
    with rs.configure(loops="sequential"):
        _call_elementwise(api, ts, n)
    seq = ub.storage.data.copy()
    ub.storage.data[:] = before
    with rs.configure(loops="batched"):
        _call_elementwise(api, ts, n)
    assert np.array_equal(seq, ub.storage.data)


@pytest.mark.parametrize("form", ["count", "repeat_time"])
def test_reduce_sum_past_the_three_levels_is_refused_not_summed_in_part(form: str) -> None:
    """The library's three summing levels cover lanes**3 elements (lanes**2 repeats): at the limit every element is
    summed (ones of int32: the sum is the element count), one past it is a ParameterError that writes nothing."""
    lanes = lanes_of(rs.int32)
    limit = lanes**3 if form == "count" else lanes**2
    n = limit * (1 if form == "count" else lanes) + lanes
    ub = rs.UnifiedBuffer(4 * n + 4 * limit + 1024)
    dst, src, work = ub.alloc(rs.int32, 8), ub.alloc(rs.int32, n), ub.alloc(rs.int32, limit)
    src.set(np.ones(n, np.int32))
    dst.set(np.zeros(8, np.int32))
    work.set(np.zeros(limit, np.int32))

    def call(k: int) -> None:
        if form == "count":
            A.ReduceSum(dst, src, work, k)
        else:
            A.ReduceSum(dst, src, work, lanes, k, 8)

    call(limit)
    assert int(dst.numpy()[0]) == limit * (1 if form == "count" else lanes)
    before = ub.storage.data.copy()
    with pytest.raises(errors.ParameterError, match=rf"ReduceSum: {form} = {limit + 1}.*at most {limit}"):
        call(limit + 1)
    assert np.array_equal(ub.storage.data, before)
