"""The memory-level Ln, Sqrt, Rsqrt, Reciprocal (each algorithm of their `config`) and Neg
(regsim._src.lowerings.algorithms, elementwise): every API x algorithm x interface x dtype against the independent
addressing oracle (regsim.testing.lowering_reference;
the flushing algorithms against its ":ftz" element functions) on inputs with subnormals, Hypothesis over masks,
strides, repeats and mask modes, both loop modes, the lowerings (the library's callees), special values, and
violations that raise and write nothing (docs/decisions/transcendental.md#memory-ln-sqrt,
docs/decisions/transcendental.md#memory-rsqrt, docs/decisions/transcendental.md#memory-reciprocal,
docs/decisions/arithmetic.md#memory-neg)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import assert_same, counter_mode, draw_mask, repeat_span, run_both
from lowering_support import tensors as fresh_tensors

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
FLOATS = [rs.half, rs.float32]
#: the APIs with a config: (config struct, algorithm enum, the algorithms that flush subnormals, float-only algorithms)
CONFIGS = {
    "Ln": (A.LnConfig, A.LnAlgo, {"INTRINSIC", "PRECISION_1ULP_FTZ_TRUE"}, set()),
    "Sqrt": (A.SqrtConfig, A.SqrtAlgo, {"INTRINSIC", "PRECISION_1ULP_FTZ_TRUE"}, {"FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE"}),
    "Rsqrt": (A.RsqrtConfig, A.RsqrtAlgo, {"INTRINSIC", "PRECISION_1ULP_FTZ_TRUE"}, set()),
    "Reciprocal": (A.ReciprocalConfig, A.ReciprocalAlgo, {"INTRINSIC", "PRECISION_1ULP_FTZ_TRUE"}, set()),
}


def cases(interface: str) -> list[tuple[str, str, Any]]:
    out = []
    for api, (_, algos, _, f32_only) in CONFIGS.items():
        for algo in algos:
            for d in FLOATS:
                if d is rs.half and algo.name in f32_only:
                    continue
                out.append((api, algo.name, d))
    return out


COUNT_CASES = cases("count")
REPEAT_CASES = cases("repeat")


def oracle(api: str, algo: str, dtype: Any = None, first_n: bool = False) -> str:
    """The flushing algorithms' ":ftz" element function; the first-n Rsqrt of float with a precise algorithm is the
    library's fast-inverse VF, 1 / sqrt(x) rounded once (in the range the tests use, below 2**124:
    decisions/transcendental.md#memory-rsqrt)."""
    if api == "Rsqrt" and first_n and dtype is rs.float32 and algo not in CONFIGS[api][2]:
        return "Rsqrt:exact"
    return f"{api}:ftz" if algo in CONFIGS[api][2] else api


def positive_values(dtype: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """Positive inputs, one in eight subnormal (where the algorithms differ), the rest normal in [0.5, 100)."""
    npd = np.dtype(dtype.np_dtype)
    x = rng.uniform(0.5, 100, n)
    tiny = float(np.finfo(npd).tiny)
    sub = rng.integers(0, 8, n) == 0
    x[sub] = rng.uniform(0.02, 0.98, int(sub.sum())) * tiny
    return x.astype(npd)


def tensors(dtype: Any, n: int, seed: int) -> tuple[rs.UnifiedBuffer, Any, Any]:
    per = -(-n * dtype.itemsize // 256) * 256
    ub = rs.UnifiedBuffer(2 * per + 256)
    rng = np.random.default_rng(seed)
    dst, src = ub.alloc(dtype, n), ub.alloc(dtype, n)
    dst.set(rng.uniform(-9, 9, n).astype(np.dtype(dtype.np_dtype)))
    src.set(positive_values(dtype, n, rng))
    return ub, dst, src


def config(api: str, algo: str) -> Any:
    struct, algos, _, _ = CONFIGS[api]
    return struct(getattr(algos, algo))


@pytest.mark.parametrize(("api", "algo", "dtype"), COUNT_CASES, ids=[f"{a}-{g}-{d.name}" for a, g, d in COUNT_CASES])
def test_first_n_every_algorithm(api: str, algo: str, dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, dst, src = tensors(dtype, 3 * lanes, seed=count)
        d0, s0 = dst.numpy(), src.numpy()
        run_both(lambda: getattr(A, api)(dst, src, count, config=config(api, algo)), ub)  # noqa: B023
        want = MO.first_n(oracle(api, algo, dtype, first_n=True), d0, [s0], count)
        assert_same(dst.numpy(), want, f"{api}<{algo}>({dtype.name}, {count})")
        assert_same(src.numpy(), s0, "src unchanged")


@pytest.mark.parametrize(("api", "algo", "dtype"), REPEAT_CASES, ids=[f"{a}-{g}-{d.name}" for a, g, d in REPEAT_CASES])
def test_repeat_every_algorithm(api: str, algo: str, dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    for strides in ((1, 1, 8, 8), (2, 3, 16, 24), (1, 0, 9, 1)):
        for mask, repeats in ((lanes // 2 + 3, 3), ([0x8000_0000_0000_0009, 0x5 if lanes > 64 else 0], 2)):
            n = max(MO.touched_elements(dtype.itemsize, repeats, strides[j], strides[j + 2]) for j in range(2)) + lanes
            ub, dst, src = tensors(dtype, n, seed=repeats)
            d0, s0 = dst.numpy(), src.numpy()
            cfg = config(api, algo)
            run_both(lambda: getattr(A, api)(dst, src, mask, repeats, A.UnaryRepeatParams(*strides), config=cfg), ub)  # noqa: B023
            want = MO.normal_mode(oracle(api, algo), d0, [s0], mask, repeats, strides)
            assert_same(dst.numpy(), want, f"{api}<{algo}>({dtype.name}, mask={mask}, repeat={repeats}, {strides})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_repeat_hypothesis(data: st.DataObject) -> None:
    api, algo, dtype = data.draw(st.sampled_from(REPEAT_CASES), "case")
    lanes = 256 // dtype.itemsize
    mode = data.draw(st.sampled_from(["continuous", "bit", "counter", "spr"]), "mask form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    strides = (
        *data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3)), "block strides"),
        *data.draw(st.tuples(st.integers(0, 16), st.integers(0, 16)), "repeat strides"),
    )
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    _, n = repeat_span(dtype, mode, count, repeats, strides[:2], strides[2:], slack=lanes)
    ub, dst, src = tensors(dtype, n, seed=data.draw(st.integers(0, 999), "seed"))
    d0, s0 = dst.numpy(), src.numpy()
    mask = draw_mask(data, "bit" if mode == "spr" else mode, lanes, count)
    f, cfg, params = getattr(A, api), config(api, algo), A.UnaryRepeatParams(*strides)
    if mode == "counter":
        with counter_mode():
            run_both(lambda: f(dst, src, mask, repeats, params, config=cfg), ub)
        want = MO.counter_mode(oracle(api, algo), d0, [s0], count, strides)
    elif mode == "spr":
        A.SetVectorMask(dtype, mask[1], mask[0])
        try:
            run_both(lambda: f(dst, src, A.MASK_PLACEHOLDER, repeats, params, config=cfg, is_set_mask=False), ub)
        finally:
            A.ResetMask()
        want = MO.normal_mode(oracle(api, algo), d0, [s0], mask, repeats, strides)
    else:
        run_both(lambda: f(dst, src, mask, repeats, params, config=cfg), ub)
        want = MO.normal_mode(oracle(api, algo), d0, [s0], mask, repeats, strides)
    assert_same(dst.numpy(), want, f"{api}<{algo}>({dtype.name}, {mode}, mask={mask}, repeat={repeats}, {strides})")


def test_default_config_is_intrinsic() -> None:
    for api in CONFIGS:
        _, dst, src = tensors(rs.float32, 128, seed=1)
        d0, s0 = dst.numpy(), src.numpy()
        getattr(A, api)(dst, src, 128)
        assert_same(dst.numpy(), MO.first_n(f"{api}:ftz", d0, [s0], 128), api)
    assert A.DEFAULT_SQRT_CONFIG == A.SqrtConfig() == A.SqrtConfig(A.SqrtAlgo.INTRINSIC)
    assert (A.DEFAULT_LN_CONFIG.algo, A.DEFAULT_RSQRT_CONFIG.algo, A.DEFAULT_RECIPROCAL_CONFIG.algo) == (
        A.LnAlgo.INTRINSIC,
        A.RsqrtAlgo.INTRINSIC,
        A.ReciprocalAlgo.INTRINSIC,
    )


def test_rsqrt_fast_inverse_vf() -> None:
    """The first-n Rsqrt of float with FAST_INVERSE, PRECISION_0ULP_FTZ_FALSE or PRECISION_1ULP_FTZ_FALSE runs the
    library's `VecUnaryLevel2ImplFloat`: over the float range (subnormals included) up to 2**112 it is 1 / sqrt(x)
    rounded once; +0 → +inf, -0 → -inf, +inf → +0; above 2**126 it gives +0 (1 / x is flushed: the page's bound
    85070596800837026223494223584045301760); from about 2**114 to 2**126 the VF's own arithmetic (t = r - y * y is
    subnormal there) leaves a few results 1 ulp from the nearest (decisions/transcendental.md#memory-rsqrt)."""
    n = 2048
    ub = rs.UnifiedBuffer(2 * n * 4 + 256)
    dst, src = ub.alloc(rs.float32, n), ub.alloc(rs.float32, n)
    rng = np.random.default_rng(5)
    x = (2.0 ** rng.uniform(-150, 112, n)).astype(np.float32)
    x[x == 0] = np.float32(2.0**-149)
    x[:6] = [0.0, -0.0, np.inf, 2.0**126, 2.0**127, 3.5654007e37]
    src.set(x)
    for algo in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE", "PRECISION_1ULP_FTZ_FALSE"):
        low = rs.lower(A.Rsqrt, dst, src, n, config=A.RsqrtConfig(getattr(A.RsqrtAlgo, algo)))
        assert low.counts()["MulAddDst"] == 5 * n // 64
        got = dst.numpy()
        assert_same(got[6:], MO.first_n("Rsqrt:exact", dst.numpy(), [x], n)[6:], algo)
        assert got[:5].tolist() == [np.inf, -np.inf, 0.0, 2.0**-63, 0.0]
        assert got[5] == np.nextafter(np.float32(1 / np.sqrt(np.float64(x[5]))), np.float32(1))  # 1 ulp above


# --- Neg and the 64-bit Reciprocal: first-n only ---------------------------------------------------------------------
NEG_DTYPES = [rs.int8, rs.int16, rs.int32, rs.half, rs.float32, rs.int64]


@pytest.mark.parametrize("dtype", NEG_DTYPES, ids=[d.name for d in NEG_DTYPES])
def test_neg_first_n(dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        n = 3 * lanes
        ub = rs.UnifiedBuffer(2 * n * dtype.itemsize + 256)
        dst, src = ub.alloc(dtype, n), ub.alloc(dtype, n)
        rng = np.random.default_rng(count)
        npd = np.dtype(dtype.np_dtype)
        for t in (dst, src):
            if npd.kind == "i":
                t.set(rng.integers(0, 256, n * npd.itemsize, dtype=np.uint8).view(npd))
            else:
                t.set(rng.uniform(-100, 100, n).astype(npd))
        if npd.kind == "i":
            src.set(np.concatenate([[np.iinfo(npd).min, 0], src.numpy()[2:]]).astype(npd))  # -MIN wraps to MIN
        d0, s0 = dst.numpy(), src.numpy()
        run_both(lambda: A.Neg(dst, src, count), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.first_n("Neg", d0, [s0], count), f"Neg({dtype.name}, {count})")


@pytest.mark.parametrize("dtype", [rs.int64, rs.uint64])
def test_reciprocal_b64_first_n(dtype: Any) -> None:
    """`VecUnaryLevel2ImplB64`: 1 / x truncated (0 → all ones, 1 → 1, -1 → -1, else 0), every config alike."""
    npd = np.dtype(dtype.np_dtype)
    for algo in A.ReciprocalAlgo:
        for count in (0, 1, 31, 32, 70):
            ub = rs.UnifiedBuffer(2048)
            dst, src = ub.alloc(dtype, 96), ub.alloc(dtype, 96)
            rng = np.random.default_rng(count)
            dst.set(rng.integers(0, 256, 96 * 8, dtype=np.uint8).view(npd))
            vals = rng.integers(0, 256, 96 * 8, dtype=np.uint8).view(npd).copy()
            vals[::3] = rng.choice(np.array([0, 1, -1, 2] if npd.kind == "i" else [0, 1, 2, 3], npd), 32)
            src.set(vals)
            d0 = dst.numpy()
            run_both(lambda: A.Reciprocal(dst, src, count, config=A.ReciprocalConfig(algo)), ub)  # noqa: B023
            assert_same(dst.numpy(), MO.first_n("Reciprocal", d0, [vals], count), f"Reciprocal({dtype.name}, {count})")


def test_special_values() -> None:
    """IEEE special values through the lowerings (decisions/transcendental.md#transcendental-special-values): Ln(0) =
    -inf, Ln(-1) NaN, Sqrt(-0) = -0, Sqrt(-1) NaN, Rsqrt(+0) = +inf, Rsqrt(-0) = -inf, Rsqrt(+inf) = +0, Rsqrt(-4) NaN
    (the Sqrt's, by the Select), Reciprocal(±0) = ±inf."""
    ub = rs.UnifiedBuffer(2048)
    dst, src = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64)
    x = np.array([0.0, -0.0, -1.0, np.inf, -4.0, 4.0, 0.25, 1.0], np.float32)
    src.set(np.tile(x, 8))

    def run(api: str) -> np.ndarray:
        getattr(A, api)(dst, src, 8)
        return dst.numpy()[:8]

    with np.errstate(all="ignore"):
        got = {api: run(api) for api in ("Ln", "Sqrt", "Rsqrt", "Reciprocal")}
    assert got["Ln"][[0, 1, 3, 5]].tolist() == [-np.inf, -np.inf, np.inf, np.float32(np.log(np.float32(4)))]
    assert np.isnan(got["Ln"][[2, 4]]).all()
    assert got["Sqrt"][[0, 3, 5, 6]].tolist() == [0.0, np.inf, 2.0, 0.5] and np.signbit(got["Sqrt"][1])
    assert np.isnan(got["Sqrt"][[2, 4]]).all()
    assert got["Rsqrt"][[0, 1, 3, 5, 6, 7]].tolist() == [np.inf, -np.inf, 0.0, 0.5, 2.0, 1.0]
    assert np.isnan(got["Rsqrt"][[2, 4]]).all()
    assert got["Reciprocal"][[0, 1, 3, 5, 6]].tolist() == [np.inf, -np.inf, 0.0, 0.25, 4.0]


def test_lowerings() -> None:
    ub, dst, src = tensors(rs.half, 256, seed=2)
    assert rs.lower(A.Ln, dst, src, 256).counts() == {"UpdateMask": 2, "LoadAlign": 2, "Ln": 2, "StoreAlign": 2}
    low = rs.lower(A.Reciprocal, dst, src, 128)
    assert [r.api for r in low.records] == ["UpdateMask", "LoadAlign", "Duplicate/masked", "Div", "StoreAlign"]
    low = rs.lower(A.Rsqrt, dst, src, 128)
    assert [r.api for r in low.records][2:7] == ["Duplicate/masked", "Compares", "Sqrt", "Div", "Select"]
    low = rs.lower(A.Rsqrt, dst, src, 64, 1, A.UnaryRepeatParams(), config=A.RsqrtConfig(A.RsqrtAlgo.PRECISION_1ULP_FTZ_FALSE))
    assert "Select" not in low.counts() and low.counts()["Sqrt/specific"] == low.counts()["Div/specific"] == 1
    ub = rs.UnifiedBuffer(2048)
    d, s = ub.alloc(rs.int64, 64), ub.alloc(rs.int64, 64)
    s.set(np.arange(64))
    assert rs.lower(A.Reciprocal, d, s, 64).counts()["Select"] == 3
    assert rs.lower(A.Neg, d, s, 64).counts() == {"UpdateMask": 1, "LoadAlign": 1, "Neg": 1, "StoreAlign": 1}
    for spec in ("Ln(half, count=10)", "Sqrt(float32, mask=64, repeat_time=2)", "Rsqrt(half, count=3)", "Neg(int8, count=9)"):
        assert spec.split("(")[0].replace("Rsqrt", "Select") in rs._src.lowerings.explorer.lower_spec(spec).counts()


# --- violations raise and write nothing --------------------------------------------------------------------------------
U = A.UnaryRepeatParams()
SQRT = A.SqrtConfig
SQRT_0ULP = A.SqrtAlgo.PRECISION_0ULP_FTZ_FALSE
RSQ = A.RsqrtConfig(A.RsqrtAlgo.PRECISION_0ULP_FTZ_FALSE)
FAR = A.UnaryRepeatParams(1, 1, 100, 8)
VIOLATIONS: list[tuple[str, Any, type[Exception]]] = [
    ("Sqrt FAST_INVERSE on half", lambda h, f, i: A.Sqrt(*h, 8, config=A.SqrtConfig(A.SqrtAlgo.FAST_INVERSE)), errors.DTypeError),
    ("Sqrt 0ULP_FTZ_FALSE on half", lambda h, f, i: A.Sqrt(*h, 8, 1, U, config=SQRT(SQRT_0ULP)), errors.DTypeError),
    ("Rsqrt precise int32 first-n", lambda h, f, i: A.Rsqrt(*i, 8, config=RSQ), errors.DTypeError),
    ("Rsqrt precise float count > size", lambda h, f, i: A.Rsqrt(*f, 65, config=RSQ), errors.ParameterError),
    ("Rsqrt precise misaligned src", lambda h, f, i: A.Rsqrt(f[0], f[1][1], 8, config=RSQ), errors.AlignmentError),
    ("Rsqrt precise is_set_mask first-n", lambda h, f, i: A.Rsqrt(*f, 8, config=RSQ, is_set_mask=False), errors.ParameterError),
    ("Ln int32", lambda h, f, i: A.Ln(*i, 8), errors.DTypeError),
    ("Reciprocal int32", lambda h, f, i: A.Reciprocal(*i, 8), errors.DTypeError),
    # (no such form: the arguments are refused, the first-n form named)
    ("Neg mask/repeat (first-n only)", lambda h, f, i: A.Neg(*f, 8, 1, A.UnaryRepeatParams()), errors.ParameterError),
    ("Ln config of another API", lambda h, f, i: A.Ln(*f, 8, config=A.SqrtConfig()), errors.ParameterError),
    ("Sqrt count > size", lambda h, f, i: A.Sqrt(*f, 65), errors.ParameterError),
    ("Rsqrt mask 65 for float", lambda h, f, i: A.Rsqrt(*f, 65, 1, A.UnaryRepeatParams()), errors.ParameterError),
    ("Reciprocal store past dst", lambda h, f, i: A.Reciprocal(*f, 64, 3, FAR), errors.OutOfBoundsError),
    ("Neg misaligned dst", lambda h, f, i: A.Neg(f[0][1], f[1], 8), errors.AlignmentError),
]  # fmt: skip


@pytest.mark.parametrize(("what", "run", "error"), VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_violations_raise_and_write_nothing(what: str, run: Any, error: type[Exception]) -> None:
    ub = rs.UnifiedBuffer(4096)
    ub.storage.write(0, np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8))
    h = [ub.alloc(rs.half, 64) for _ in range(2)]
    f = [ub.alloc(rs.float32, 64) for _ in range(2)]
    i = [ub.alloc(rs.int32, 64) for _ in range(2)]
    for t in (*h, *f, *i):
        t.set(np.abs(t.numpy()) if t.dtype is not rs.int32 else t.numpy())
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        run(h, f, i)
    assert str(info.value).split(":")[0] == what.split()[0], str(info.value)
    assert np.array_equal(ub.storage.data, before), f"{what}: the UB changed"


def test_config_structs_refuse_other_algorithms() -> None:
    with pytest.raises(TypeError):
        A.LnConfig(A.SqrtAlgo.INTRINSIC)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        A.RsqrtConfig(1)  # type: ignore[arg-type]


# --- Prelu, AbsSub, Mull: the first-n interface only -------------------------------------------------------------------
@pytest.mark.parametrize("api", ["Prelu", "AbsSub"])
@pytest.mark.parametrize("dtype", FLOATS, ids=[d.name for d in FLOATS])
def test_prelu_abssub_first_n(api: str, dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    npd = np.dtype(dtype.np_dtype)
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        n = 3 * lanes
        ub = rs.UnifiedBuffer(3 * n * dtype.itemsize + 256)
        ts = [ub.alloc(dtype, n) for _ in range(3)]
        rng = np.random.default_rng(count)
        for t in ts:
            t.set(rng.uniform(-100, 100, n).astype(npd))
        # the sign bit decides (decisions/arithmetic.md#signbit-prelu-leakyrelu)
        ts[1].set(np.concatenate([[0.0, -0.0], ts[1].numpy()[2:]]).astype(npd))
        arrays = [t.numpy() for t in ts]
        run_both(lambda: getattr(A, api)(*ts, count), ub)  # noqa: B023
        assert_same(ts[0].numpy(), MO.first_n(api, arrays[0], arrays[1:], count), f"{api}({dtype.name}, {count})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_mull_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from([rs.int32, rs.uint32]), "dtype")
    n = data.draw(st.integers(1, 200), "size")
    count = data.draw(st.integers(0, n), "count")
    npd = np.dtype(dtype.np_dtype)
    ub = rs.UnifiedBuffer(4 * -(-n * 4 // 256) * 256 + 256)
    ts = [ub.alloc(dtype, n) for _ in range(4)]
    rng = np.random.default_rng(data.draw(st.integers(0, 999), "seed"))
    for t in ts:
        t.set(rng.integers(0, 256, n * 4, dtype=np.uint8).view(npd))
    d0, d1, a, b = (t.numpy() for t in ts)
    run_both(lambda: A.Mull(*ts, count), ub)
    lo, hi = MO.mull_first_n(d0, d1, a, b, count)
    assert_same(ts[0].numpy(), lo, f"Mull low ({dtype.name}, {count})")
    assert_same(ts[1].numpy(), hi, f"Mull high ({dtype.name}, {count})")


def test_binary_isasi_page_examples() -> None:
    """The AbsSub page ([1 .. 512] and [513 .. 1024] give 512 everywhere) and the Prelu page's formula (its printed
    -1045 for -3 * 515 is a misprint of -1545)."""
    ub = rs.UnifiedBuffer(8192)
    d, a, b = (ub.alloc(rs.float32, 512) for _ in range(3))
    a.set(np.arange(1, 513, dtype=np.float32))
    b.set(np.arange(513, 1025, dtype=np.float32))
    A.AbsSub(d, a, b, 512)
    assert d.numpy().tolist() == [512.0] * 512
    a.set(np.array([1, -2, -3, -512] * 128, np.float32))
    b.set(np.array([513, -514, 515, 1] * 128, np.float32))
    A.Prelu(d, a, b, 512)
    assert d.numpy()[:4].tolist() == [1.0, 1028.0, -1545.0, -512.0]
    lows, highs, x, y = (ub.alloc(rs.int32, 8) for _ in range(4))
    x.set(np.full(8, -2039520159, np.int32))
    y.set(np.full(8, 95829766, np.int32))
    A.Mull(lows, highs, x, y, 8)
    product = -2039520159 * 95829766
    assert int(highs.numpy()[0]) << 32 | int(lows.numpy()[0].view(np.uint32)) == product  # (the signed product)


BINARY_VIOLATIONS: list[tuple[str, Any, type[Exception]]] = [
    ("Prelu mask/repeat (first-n only)", lambda f, i: A.Prelu(*f, 8, 1, A.BinaryRepeatParams()), errors.ParameterError),
    ("AbsSub int32", lambda f, i: A.AbsSub(*i[:3], 8), errors.DTypeError),
    ("Mull float", lambda f, i: A.Mull(*f, f[0], 8), errors.DTypeError),
    ("Mull count > size", lambda f, i: A.Mull(*i, 65), errors.ParameterError),
    ("Mull misaligned dst1", lambda f, i: A.Mull(i[0], i[1][1], i[2], i[3], 8), errors.AlignmentError),
    ("Mull mixed types", lambda f, i: A.Mull(i[0], i[1], i[2], f[0], 8), errors.DTypeError),
]


@pytest.mark.parametrize(("what", "run", "error"), BINARY_VIOLATIONS, ids=[v[0] for v in BINARY_VIOLATIONS])
def test_binary_violations_raise_and_write_nothing(what: str, run: Any, error: type[Exception]) -> None:
    ub = rs.UnifiedBuffer(4096)
    ub.storage.write(0, np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8))
    f = [ub.alloc(rs.float32, 64) for _ in range(3)]
    i = [ub.alloc(rs.int32, 64) for _ in range(4)]
    for t in (*f, *i):
        t.set(t.numpy())
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        run(f, i)
    assert str(info.value).split(":")[0] == what.split()[0], str(info.value)
    assert np.array_equal(ub.storage.data, before), f"{what}: the UB changed"


# --- AddRelu, SubRelu: every interface ---------------------------------------------------------------------------------
RELU_COUNT = [rs.int16, rs.half, rs.float32, rs.int64, rs.uint64]
RELU_REPEAT = [rs.int16, rs.half, rs.float32]
RELU_CASES = [(api, d) for api in ("AddRelu", "SubRelu") for d in RELU_COUNT]


@pytest.mark.parametrize(("api", "dtype"), RELU_CASES, ids=[f"{a}-{d.name}" for a, d in RELU_CASES])
def test_add_sub_relu_first_n(api: str, dtype: Any) -> None:
    """max(src0 ± src1, 0) (`Add` / `Sub`, then `Maxs(dst, dst, 0)`; on uint64 the Maxs changes nothing)."""
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, ts = fresh_tensors(dtype, 3 * lanes, seed=count)
        arrays = [t.numpy() for t in ts]
        run_both(lambda: getattr(A, api)(*ts, count), ub)  # noqa: B023
        assert_same(ts[0].numpy(), MO.first_n(api, arrays[0], arrays[1:], count), f"{api}({dtype.name}, {count})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_add_sub_relu_repeat_hypothesis(data: st.DataObject) -> None:
    api = data.draw(st.sampled_from(["AddRelu", "SubRelu"]), "api")
    dtype = data.draw(st.sampled_from(RELU_REPEAT), "dtype")
    lanes = 256 // dtype.itemsize
    mode = data.draw(st.sampled_from(["continuous", "bit", "counter"]), "mask form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3), st.integers(0, 3)), "block strides")
    rep = data.draw(st.tuples(st.integers(0, 16), st.integers(0, 16), st.integers(0, 16)), "repeat strides")
    strides = (*blk, *rep)
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    _, n = repeat_span(dtype, mode, count, repeats, blk, rep, slack=lanes)
    ub, ts = fresh_tensors(dtype, n, seed=data.draw(st.integers(0, 999), "seed"))
    arrays = [t.numpy() for t in ts]
    mask = draw_mask(data, mode, lanes, count)
    call = lambda: getattr(A, api)(*ts, mask, repeats, A.BinaryRepeatParams(*strides))  # noqa: E731
    if mode == "counter":
        with counter_mode():
            run_both(call, ub)
        want = MO.counter_mode(api, arrays[0], arrays[1:], count, strides)
    else:
        run_both(call, ub)
        want = MO.normal_mode(api, arrays[0], arrays[1:], mask, repeats, strides)
    assert_same(ts[0].numpy(), want, f"{api}({dtype.name}, {mode}, mask={mask}, repeat={repeats}, {strides})")


def test_add_sub_relu_lowering_and_refusals() -> None:
    ub, ts = fresh_tensors(rs.half, 256, seed=1)
    assert [r.api for r in rs.lower(A.AddRelu, *ts, 128).records] == [
        "UpdateMask",
        "LoadAlign",
        "LoadAlign",
        "Add",
        "Maxs",
        "StoreAlign",
    ]
    before = ub.storage.data.copy()
    with pytest.raises(errors.DTypeError, match=r"^SubRelu: dst"):
        A.SubRelu(*fresh_tensors(rs.int64, 64, seed=2)[1], 8, 1, A.BinaryRepeatParams())  # 64-bit: first-n only
    with pytest.raises(errors.DTypeError, match=r"^AddRelu: dst"):
        A.AddRelu(*fresh_tensors(rs.int32, 64, seed=2)[1], 8)
    with pytest.raises(errors.ParameterError, match=r"^AddRelu"):
        A.AddRelu(*ts, 300)
    assert np.array_equal(ub.storage.data, before)


# --- FusedMulAdd, MulAddRelu, MulAddDst: dst is an operand ---------------------------------------------------------------
FMA_COUNT = {
    "FusedMulAdd": [rs.half, rs.bfloat16, rs.float32, rs.int64, rs.uint64],
    "MulAddRelu": [rs.half, rs.float32, rs.int64, rs.uint64],
    "MulAddDst": [rs.half, rs.float32, rs.int64, rs.uint64],
}
FMA_REPEAT = {"FusedMulAdd": [rs.half, rs.bfloat16, rs.float32], "MulAddRelu": FLOATS, "MulAddDst": FLOATS}
FMA_CASES = [(api, d) for api, ds in FMA_COUNT.items() for d in ds]


@pytest.mark.parametrize(("api", "dtype"), FMA_CASES, ids=[f"{a}-{d.name}" for a, d in FMA_CASES])
def test_fma_first_n(api: str, dtype: Any) -> None:
    """FusedMulAdd: src0 * dst + src1; MulAddRelu: max(src0 * dst + src1, 0); MulAddDst: src0 * src1 + dst; the
    floats rounded once, the integers wrapped."""
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, ts = fresh_tensors(dtype, 3 * lanes, seed=count)
        arrays = [t.numpy() for t in ts]
        run_both(lambda: getattr(A, api)(*ts, count), ub)  # noqa: B023
        want = MO.first_n(api, arrays[0], arrays[1:], count, dst_input=True)
        assert_same(ts[0].numpy(), want, f"{api}({dtype.name}, {count})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_fma_repeat_hypothesis(data: st.DataObject) -> None:
    api = data.draw(st.sampled_from(sorted(FMA_REPEAT)), "api")
    dtype = data.draw(st.sampled_from(FMA_REPEAT[api]), "dtype")
    lanes = 256 // dtype.itemsize
    mode = data.draw(st.sampled_from(["continuous", "bit", "counter"]), "mask form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3), st.integers(0, 3)), "block strides")
    rep = data.draw(st.tuples(st.integers(0, 16), st.integers(0, 16), st.integers(0, 16)), "repeat strides")
    strides = (*blk, *rep)
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    _, n = repeat_span(dtype, mode, count, repeats, blk, rep, slack=lanes)
    ub, ts = fresh_tensors(dtype, n, seed=data.draw(st.integers(0, 999), "seed"))
    rng = np.random.default_rng(n)
    for t in ts:  # small values: a dst that repeats re-read (dstRepStride 0) grows at most 3x per repeat
        t.set(rng.uniform(-2, 2, n).astype(np.dtype(dtype.np_dtype)))
    arrays = [t.numpy() for t in ts]
    mask = draw_mask(data, mode, lanes, count)
    call = lambda: getattr(A, api)(*ts, mask, repeats, A.BinaryRepeatParams(*strides))  # noqa: E731
    if mode == "counter":
        with counter_mode():
            run_both(call, ub)
        want = MO.counter_mode(api, arrays[0], arrays[1:], count, strides, dst_input=True)
    else:
        run_both(call, ub)
        want = MO.normal_mode(api, arrays[0], arrays[1:], mask, repeats, strides, dst_input=True)
    assert_same(ts[0].numpy(), want, f"{api}({dtype.name}, {mode}, mask={mask}, repeat={repeats}, {strides})")


def test_fma_lowerings_and_refusals() -> None:
    ub, ts = fresh_tensors(rs.float32, 128, seed=1)
    ops = [r.api for r in rs.lower(A.FusedMulAdd, *ts, 64).records]
    assert ops == ["UpdateMask", "LoadAlign", "LoadAlign", "LoadAlign", "MulDstAdd", "StoreAlign"]
    low = rs.lower(A.MulAddRelu, *ts, 64, 1, A.BinaryRepeatParams())
    assert low.counts()["LoadAlign/block"] == 3 and low.counts()["Maxs"] == 1
    _, t64 = fresh_tensors(rs.int64, 64, seed=2)
    assert [r.api for r in rs.lower(A.FusedMulAdd, *t64, 32).records][4:6] == ["Mul", "Add"]  # unfused for 64-bit
    before = ub.storage.data.copy()
    for call, error in (
        (lambda: A.MulAddDst(*fresh_tensors(rs.int64, 64, seed=3)[1], 8, 1, A.BinaryRepeatParams()), errors.DTypeError),
        (lambda: A.MulAddRelu(*fresh_tensors(rs.bfloat16, 64, seed=3)[1], 8), errors.DTypeError),
        (lambda: A.FusedMulAdd(*fresh_tensors(rs.int32, 64, seed=3)[1], 8), errors.DTypeError),
        (lambda: A.FusedMulAdd(*ts, 65, 1, A.BinaryRepeatParams()), errors.ParameterError),
        (lambda: A.MulAddDst(*ts, 64, 3, A.BinaryRepeatParams(1, 1, 1, 100, 8, 8)), errors.OutOfBoundsError),
    ):
        with pytest.raises(error):
            call()
    assert np.array_equal(ub.storage.data, before)


# --- Axpy: dst = src * scalar + dst ----------------------------------------------------------------------------------------
AXPY_COUNT = [rs.half, rs.float32, rs.bfloat16, rs.int64, rs.uint64]
AXPY_REPEAT = [rs.half, rs.float32, rs.bfloat16]


def axpy_scalar(dtype: Any) -> Any:
    return 3 if dtype in (rs.int64, rs.uint64) else -1.375


def small_tensors(dtype: Any, n: int, seed: int) -> tuple[rs.UnifiedBuffer, list[Any]]:
    """dst and src of values in [-2, 2) (integers: any bits), so a dst re-read across repeats stays finite."""
    ub, ts = fresh_tensors(dtype, n, seed=seed, count=2)
    if dtype not in (rs.int64, rs.uint64):
        rng = np.random.default_rng(seed)
        for t in ts:
            t.set(rng.uniform(-2, 2, n).astype(np.dtype(dtype.np_dtype)))
    return ub, ts


@pytest.mark.parametrize("dtype", AXPY_COUNT, ids=[d.name for d in AXPY_COUNT])
def test_axpy_first_n(dtype: Any) -> None:
    """Fused (rounded once) on half and float, the library's Duplicate + Mul + Add on bfloat16, wrapped on 64-bit."""
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, (dst, src) = small_tensors(dtype, 3 * lanes, seed=count)
        d0, s0 = dst.numpy(), src.numpy()
        run_both(lambda: A.Axpy(dst, src, axpy_scalar(dtype), count), ub)  # noqa: B023
        want = MO.first_n("Axpy", d0, [s0], count, axpy_scalar(dtype), dst_input=True)
        assert_same(dst.numpy(), want, f"Axpy({dtype.name}, {count})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_axpy_repeat_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(AXPY_REPEAT), "dtype")
    lanes = 256 // dtype.itemsize
    mode = data.draw(st.sampled_from(["continuous", "bit", "counter", "spr"]), "mask form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    strides = (
        *data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3)), "block strides"),
        *data.draw(st.tuples(st.integers(0, 16), st.integers(0, 16)), "repeat strides"),
    )
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    _, n = repeat_span(dtype, mode, count, repeats, strides[:2], strides[2:], slack=lanes)
    ub, (dst, src) = small_tensors(dtype, n, seed=data.draw(st.integers(0, 999), "seed"))
    d0, s0 = dst.numpy(), src.numpy()
    mask = draw_mask(data, "bit" if mode == "spr" else mode, lanes, count)
    k, params = axpy_scalar(dtype), A.UnaryRepeatParams(*strides)
    if mode == "counter":
        with counter_mode():
            run_both(lambda: A.Axpy(dst, src, k, mask, repeats, params), ub)
        want = MO.counter_mode("Axpy", d0, [s0], count, strides, k, dst_input=True)
    elif mode == "spr":
        A.SetVectorMask(dtype, mask[1], mask[0])
        try:
            run_both(lambda: A.Axpy(dst, src, k, A.MASK_PLACEHOLDER, repeats, params, is_set_mask=False), ub)
        finally:
            A.ResetMask()
        want = MO.normal_mode("Axpy", d0, [s0], mask, repeats, strides, k, dst_input=True)
    else:
        run_both(lambda: A.Axpy(dst, src, k, mask, repeats, params), ub)
        want = MO.normal_mode("Axpy", d0, [s0], mask, repeats, strides, k, dst_input=True)
    assert_same(dst.numpy(), want, f"Axpy({dtype.name}, {mode}, mask={mask}, repeat={repeats}, {strides})")


def test_axpy_lowering_and_refusals() -> None:
    ub, (dst, src) = small_tensors(rs.half, 256, seed=1)
    ops = [r.api for r in rs.lower(A.Axpy, dst, src, 0.5, 128).records]
    assert ops == ["UpdateMask", "LoadAlign", "LoadAlign", "Axpy", "StoreAlign"]
    _, (bd, bs) = small_tensors(rs.bfloat16, 128, seed=2)
    assert rs.lower(A.Axpy, bd, bs, 0.5, 128).counts()["Mul"] == 1
    before = ub.storage.data.copy()
    for call, error in (
        (lambda: A.Axpy(*small_tensors(rs.int64, 64, seed=3)[1], 2, 8, 1, A.UnaryRepeatParams()), errors.DTypeError),
        (lambda: A.Axpy(*small_tensors(rs.int32, 64, seed=3)[1], 2, 8), errors.DTypeError),
        (lambda: A.Axpy(dst, ub.alloc(rs.float32, 64), 0.5, 8), errors.DTypeError),  # the page's half -> float row
        (lambda: A.Axpy(dst, src, 0.5, 129, 1, A.UnaryRepeatParams()), errors.ParameterError),
        (lambda: A.Axpy(dst, src, 0.5, 8, config=A.BinaryConfig(0)), errors.ParameterError),
    ):
        with pytest.raises(error, match=r"^Axpy"):
            call()
    assert np.array_equal(ub.storage.data[: before.size], before)


# --- Truncate (ISASI): first-n only, the round mode a required template argument ---------------------------------------------
TRUNC_MODES = ["CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC"]
TRUNC_CASES = [(m, d) for m in TRUNC_MODES for d in (rs.half, rs.float32, rs.bfloat16)]


@pytest.mark.parametrize(("mode", "dtype"), TRUNC_CASES, ids=[f"{m}-{d.name}" for m, d in TRUNC_CASES])
def test_truncate_first_n(mode: str, dtype: Any) -> None:
    """Halves (ties), negatives rounding to -0, infinities and large integral values among random ones."""
    lanes = 256 // dtype.itemsize
    npd = np.dtype(dtype.np_dtype)
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        n = 3 * lanes
        ub = rs.UnifiedBuffer(2 * n * dtype.itemsize + 256)
        dst, src = ub.alloc(dtype, n), ub.alloc(dtype, n)
        rng = np.random.default_rng(count)
        x = rng.uniform(-300, 300, n)
        x[: n // 4] = rng.integers(-40, 40, n // 4) / 2  # ties
        x[n // 4 : n // 4 + 6] = [-0.3, 0.3, -0.0, np.inf, -np.inf, 2.0**10 + 1]
        dst.set(rng.uniform(-9, 9, n).astype(npd))
        src.set(x.astype(npd))
        d0, s0 = dst.numpy(), src.numpy()
        rm = getattr(A.RoundMode, mode)
        run_both(lambda: A.Truncate(dst, src, count, round_mode=rm), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.first_n(f"Truncate:{mode}", d0, [s0], count), f"Truncate<{mode}>({dtype.name}, {count})")


def test_truncate_page_example_and_refusals() -> None:
    """The page's example (floor: -37.063736 → -38, 64.17277 → 64, -33.448692 → -34); CAST_NONE (not among TruncateImpl's
    modes), a missing round mode, mask/repeat arguments and int32 are refused, writing nothing."""
    ub = rs.UnifiedBuffer(2048)
    dst, src = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64)
    src.set(np.resize(np.array([-37.063736, 64.17277, -33.448692], np.float32), 64))
    A.Truncate(dst, src, 3, round_mode=A.RoundMode.CAST_FLOOR)
    assert dst.numpy()[:3].tolist() == [-38.0, 64.0, -34.0]
    assert rs.lower(A.Truncate, dst, src, 64, round_mode=A.RoundMode.CAST_CEIL).counts()["Truncate"] == 1
    before = ub.storage.data.copy()
    i32 = ub.alloc(rs.int32, 64)
    for call, error in (
        (lambda: A.Truncate(dst, src, 8, round_mode=A.RoundMode.CAST_NONE), errors.ParameterError),
        (lambda: A.Truncate(dst, src, 8), errors.ParameterError),  # (roundMode has no default)
        (lambda: A.Truncate(dst, src, 8, 1, A.UnaryRepeatParams(), round_mode=A.RoundMode.CAST_RINT), errors.ParameterError),
        (lambda: A.Truncate(i32, i32, 8, round_mode=A.RoundMode.CAST_RINT), errors.DTypeError),
        (lambda: A.Truncate(dst, src, 65, round_mode=A.RoundMode.CAST_RINT), errors.ParameterError),
    ):
        with pytest.raises(error):
            call()
    assert np.array_equal(ub.storage.data[: before.size], before)
