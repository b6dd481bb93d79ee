"""Div, Sqrt, Exp, Ln, Log, Log2 and Log10 (the Ascend C pages of those names) on half and float32, every
mode form (ZEROING, the *SpecificMode structs with each algorithm the dtype accepts) against the oracles:
the unary ops over all 65 536 half inputs (Exp and the logarithms within 1 ulp of float64 references),
float32 and Div by Hypothesis and special values, ZEROING on
dirty destinations, the pages' Subnormal tables, refused modes changing nothing."""

from __future__ import annotations

import contextlib
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.errors import UnsupportedError
from regsim.testing import reference as O

Z = Reg.MaskMergeMode.ZEROING
#: per op, the algorithms each dtype accepts (the Div / Sqrt / Exp pages' "数据类型"), written out
ALGOS = {
    ("Div", "half"): ["INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_1ULP_FTZ_FALSE"],
    ("Div", "float32"): [
        "INTRINSIC",
        "DIFF_COMPENSATION",
        "PRECISION_1ULP_FTZ_TRUE",
        "PRECISION_0ULP_FTZ_TRUE",
        "PRECISION_0ULP_FTZ_FALSE",
        "PRECISION_1ULP_FTZ_FALSE",
    ],
    ("Sqrt", "half"): ["INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_1ULP_FTZ_FALSE"],
    ("Sqrt", "float32"): [
        "INTRINSIC",
        "FAST_INVERSE",
        "PRECISION_1ULP_FTZ_TRUE",
        "PRECISION_0ULP_FTZ_FALSE",
        "PRECISION_1ULP_FTZ_FALSE",
    ],
    ("Exp", "half"): ["INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_1ULP_FTZ_FALSE"],
    ("Exp", "float32"): ["INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_1ULP_FTZ_FALSE"],
}
LOGS = {"Ln": math.e, "Log": math.e, "Log2": 2, "Log10": 10}
for _op in LOGS:
    for _name in ("half", "float32"):
        ALGOS[(_op, _name)] = ["INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "PRECISION_1ULP_FTZ_FALSE"]
TYPES = {"half": rs.half, "float32": rs.float32}
SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 2.0, 0.5, 3.0, 65504.0, -65504.0, 6.0e-8, -6.0e-8, 1e-40, -1e-40]
SPECIALS += [3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45, -2.5, 88.7, -103.9, 11.1, -17.5]
PER_CASE = settings(max_examples=max(10, settings.default.max_examples // 4))


def _as(values: object, np_dtype: np.dtype) -> np.ndarray:
    """`values` in `np_dtype`: those beyond half's range become its infinities, as meant (numpy's overflow warning
    off)."""
    with np.errstate(over="ignore"):
        return np.array(values, np_dtype)


def _mode(op: str, algo: str | None):
    """mode= for an algorithm (None: the plain MaskMergeMode form)."""
    if algo is None:
        return Z
    enum = getattr(Reg, f"{op}Algo")[algo]
    struct = getattr(Reg, f"{op}SpecificMode")
    return struct(Z, algo != "INTRINSIC", enum) if op in ("Div", "Sqrt") else struct(Z, enum)


OPS = {
    "Div": Reg.Div,
    "Sqrt": Reg.Sqrt,
    "Exp": Reg.Exp,
    "Ln": Reg.Ln,
    "Log": Reg.Log,
    "Log2": Reg.Log2,
    "Log10": Reg.Log10,
}


def _apply(op: str, dtype, srcs, mask, algo: str | None, dst=None) -> np.ndarray:
    dst = dst if dst is not None else Reg.RegTensor(dtype)
    with rs.VEC_SCOPE():
        OPS[op](dst, *srcs, mask, mode=_mode(op, algo))
    return dst.numpy()


def _oracle(op: str, name: str, algo: str | None, *xs: float):
    algo = algo or "INTRINSIC"
    return O.div_oracle(name, *xs, algo) if op == "Div" else O.sqrt_oracle(name, *xs, algo)


def _check_exp(got: np.ndarray, xs: np.ndarray, name: str, algo: str | None) -> None:
    """Exact special values; elsewhere within 1 ulp of e**x (the Exp page's bound), a result the
    algorithm flushes being 0 where e**x is below the smallest normal."""
    algo = algo or "INTRINSIC"
    ftz = algo not in O.KEEPS_SUBNORMALS
    tiny = 2.0 ** O.FORMAT[name][1]
    bad = []
    for i, (g, x) in enumerate(zip(got.tolist(), xs.tolist(), strict=True)):
        special = O.exp_special_oracle(name, x, algo)
        if special is not None:
            ok = (math.isnan(g) and math.isnan(special)) or (g == special and math.copysign(1, g) == math.copysign(1, special))
        else:
            ref = O.exp_reference(x)
            ok = O.ulp_distance(g, ref, name) <= 1.0 or (ftz and g == 0.0 and ref < tiny)
            ok = ok and not (ftz and 0 < g < tiny)
        if not ok:
            bad.append(f"lane {i}: exp({x!r}) = {g!r}, reference {O.exp_reference(x)!r}")
    assert not bad, "\n".join(bad[:8])


def _check_log(op: str, got: np.ndarray, xs: np.ndarray, name: str, algo: str | None) -> None:
    """Within 1 ulp of log(x) (the Ln / Log / Log2 / Log10 pages' bound) of the input the algorithm
    computes with (flushed subnormals are zeros: -inf); infinities, NaN and zeros exact."""
    bad = []
    for i, (g, x) in enumerate(zip(got.tolist(), xs.tolist(), strict=True)):
        ref = O.log_reference(LOGS[op], O.flushed_input(name, x, algo or "INTRINSIC"))
        if math.isnan(ref) or math.isinf(ref) or ref == 0:
            ok = (math.isnan(g) and math.isnan(ref)) or (g == ref and math.copysign(1, g) == math.copysign(1, ref))
        else:
            ok = O.ulp_distance(g, ref, name) <= 1.0
        if not ok:
            bad.append(f"lane {i}: {op}({x!r}) = {g!r}, reference {ref!r}")
    assert not bad, "\n".join(bad[:8])


# --- all half inputs ---------------------------------------------------------------------------
ALL_HALF = np.arange(65536, dtype=np.uint16).view(np.float16)


@pytest.mark.parametrize("algo", [None, *ALGOS[("Sqrt", "half")]])
def test_sqrt_every_half(algo):
    full = Reg.MaskReg.from_lanes(rs.half, np.ones(128, bool))
    got = np.concatenate([_apply("Sqrt", rs.half, [Reg.RegTensor.from_numpy(c)], full, algo) for c in ALL_HALF.reshape(-1, 128)])
    want = np.array([_oracle("Sqrt", "half", algo, float(x)) for x in ALL_HALF], np.float16)
    O.assert_lanes(got, want, what=f"Sqrt half {algo}", inputs={"src": ALL_HALF}, nan_type=np.float16)


@pytest.mark.parametrize("algo", [None, *ALGOS[("Exp", "half")]])
def test_exp_every_half(algo):
    full = Reg.MaskReg.from_lanes(rs.half, np.ones(128, bool))
    got = np.concatenate([_apply("Exp", rs.half, [Reg.RegTensor.from_numpy(c)], full, algo) for c in ALL_HALF.reshape(-1, 128)])
    _check_exp(got, ALL_HALF, "half", algo)


LOG_CASES = [(op, algo) for op in LOGS for algo in [None, *ALGOS[(op, "half")]]]


@pytest.mark.parametrize(("op", "algo"), LOG_CASES, ids=[f"{o}-{a}" for o, a in LOG_CASES])
def test_logs_every_half(op, algo):
    full = Reg.MaskReg.from_lanes(rs.half, np.ones(128, bool))
    got = np.concatenate([_apply(op, rs.half, [Reg.RegTensor.from_numpy(c)], full, algo) for c in ALL_HALF.reshape(-1, 128)])
    _check_log(op, got, ALL_HALF, "half", algo)


# --- Hypothesis, with special values and dirty destinations -----------------------------------------
CASES = [(op, name, algo) for (op, name), algos in ALGOS.items() for algo in [None, *algos]]


@pytest.mark.parametrize(("op", "name", "algo"), CASES, ids=[f"{o}-{n}-{a}" for o, n, a in CASES])
@PER_CASE
@given(data=st.data())
def test_matches_oracle_zeroing_dirty_destination(op, name, algo, data):
    """dst[i] = mask[i] ? f(src...)[i] : 0 over a destination full of noise; the mask's non-lane bits noise."""
    dtype = TYPES[name]
    n = 256 // dtype.np_dtype.itemsize
    specials = _as(SPECIALS, dtype.np_dtype)
    srcs = []
    for k in range(2 if op == "Div" else 1):
        lanes = data.draw(rst.registers(dtype), f"src{k}").numpy()
        # a byte per lane, in one draw (as rst.registers draws a register: a list drawn lane by lane made Hypothesis
        # most of the test's time): bit 0 whether the lane takes a special value, the other bits which one
        picks = np.frombuffer(data.draw(st.binary(min_size=n, max_size=n), f"specials{k}"), np.uint8)
        srcs.append(np.where(picks & 1, specials[(picks >> 1) % len(specials)], lanes).astype(dtype.np_dtype))
    mask = data.draw(rst.masks(dtype, fill="noise"), "mask")
    dst = data.draw(rst.registers(dtype), "dst")
    active = mask.lanes(dtype)
    got = _apply(op, dtype, [Reg.RegTensor.from_numpy(s) for s in srcs], mask, algo, dst=dst)
    assert not np.any(got.view(f"u{dtype.np_dtype.itemsize}")[~active]), "ZEROING: inactive lanes not 0"
    if op == "Exp":
        _check_exp(got[active], srcs[0][active], name, algo)
        return
    if op in LOGS:
        _check_log(op, got[active], srcs[0][active], name, algo)
        return
    want = np.array(
        [_oracle(op, name, algo, *map(float, xs)) if a else 0.0 for a, *xs in zip(active, *srcs, strict=True)], dtype.np_dtype
    )
    O.assert_lanes(
        got, want, what=f"{op} {name} {algo}", inputs={f"src{k}": s for k, s in enumerate(srcs)}, nan_type=dtype.np_dtype.type
    )


@pytest.mark.parametrize("name", ["half", "float32"])
@pytest.mark.parametrize("algo", [None, "PRECISION_1ULP_FTZ_FALSE"])
def test_div_special_value_grid(name, algo):
    """Every pair of special values (0 / 0, inf / inf, x / ±0, subnormals, overflow, underflow)."""
    dtype = TYPES[name]
    pairs = _as(list(itertools.product(SPECIALS, repeat=2)), dtype.np_dtype)
    n = 256 // dtype.np_dtype.itemsize
    pairs = np.concatenate([pairs, np.ones((-len(pairs) % n, 2), dtype.np_dtype)])
    full = Reg.MaskReg.from_lanes(dtype, np.ones(n, bool))
    got = np.concatenate(
        [
            _apply("Div", dtype, [Reg.RegTensor.from_numpy(c[:, 0].copy()), Reg.RegTensor.from_numpy(c[:, 1].copy())], full, algo)
            for c in pairs.reshape(-1, n, 2)
        ]
    )
    want = np.array([O.div_oracle(name, float(a), float(b), algo or "INTRINSIC") for a, b in pairs], dtype.np_dtype)
    O.assert_lanes(
        got, want, what=f"Div {name} specials", inputs={"a": pairs[:, 0], "b": pairs[:, 1]}, nan_type=dtype.np_dtype.type
    )


# --- the pages' examples -------------------------------------------------------------------------
def _f32(*bits: int) -> np.ndarray:
    return np.array(bits, np.uint32).view(np.float32)


def test_div_page_subnormal_table():
    """The Div page's table 8: with PRECISION_0ULP_FTZ_FALSE 0xFF15E301 and 0x3E775FBC, flushing -inf and NaN (0x7FFFFFFF)."""
    a, b = _f32(0x3F800000, 0x0014440B), _f32(0x8036A794, 0x0053E3CF)
    mask = Reg.MaskReg.from_lanes(rs.float32, np.arange(64) < 2)
    keep = _apply(
        "Div",
        rs.float32,
        [Reg.RegTensor.from_numpy(np.resize(a, 64)), Reg.RegTensor.from_numpy(np.resize(b, 64))],
        mask,
        "PRECISION_0ULP_FTZ_FALSE",
    )
    flushed = _apply(
        "Div", rs.float32, [Reg.RegTensor.from_numpy(np.resize(a, 64)), Reg.RegTensor.from_numpy(np.resize(b, 64))], mask, None
    )
    assert [hex(v) for v in keep[:2].view(np.uint32)] == ["0xff15e301", "0x3e775fbc"]
    assert [hex(v) for v in flushed[:2].view(np.uint32)] == ["0xff800000", "0x7fffffff"]
    assert O.div_oracle("float32", float(a[0]), float(b[0]), "PRECISION_0ULP_FTZ_FALSE") == keep[0]


def test_sqrt_page_subnormal_table():
    """The Sqrt page's table 3: sqrt(0x00776672) = 0x1FF7402B (FAST_INVERSE / PRECISION_0ULP_FTZ_FALSE); flushing: 0."""
    src = Reg.RegTensor.from_numpy(np.resize(_f32(0x00776672), 64))
    full = Reg.MaskReg.from_lanes(rs.float32, np.ones(64, bool))
    for algo in ("FAST_INVERSE", "PRECISION_0ULP_FTZ_FALSE"):
        assert _apply("Sqrt", rs.float32, [src], full, algo)[0].view(np.uint32) == 0x1FF7402B
    assert _apply("Sqrt", rs.float32, [src], full, None)[0].view(np.uint32) == 0
    assert O.sqrt_oracle("float32", float(_f32(0x00776672)[0]), "FAST_INVERSE") == _f32(0x1FF7402B)[0]


def test_exp_page_subnormal_table():
    """The Exp page's table 3 rows whose output is the correctly rounded one (rows 2 and 4; rows 1 and 3
    are 2 and 25 ulps from e**x: docs/decisions/transcendental.md#transcendental-rounding); flushing gives 0."""
    for dtype, x, bits in ((rs.half, -16.640625, 0x0001), (rs.float32, -103.2789306640625, 0x00000001)):
        n = 256 // dtype.np_dtype.itemsize
        src = Reg.RegTensor.from_numpy(np.full(n, x, dtype.np_dtype))
        full = Reg.MaskReg.from_lanes(dtype, np.ones(n, bool))
        got = _apply("Exp", dtype, [src], full, "PRECISION_1ULP_FTZ_FALSE")
        assert int(got.view(f"u{dtype.np_dtype.itemsize}")[0]) == bits
        assert O.ulp_distance(float(got[0]), O.exp_reference(x), dtype.name) <= 1
        assert _apply("Exp", dtype, [src], full, None)[0] == 0


# --- refused modes ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("op", "dtype", "mode"),
    [
        ("Div", rs.half, Reg.DivSpecificMode(Z, True, Reg.DivAlgo.DIFF_COMPENSATION)),
        ("Div", rs.half, Reg.DivSpecificMode(Z, True, Reg.DivAlgo.PRECISION_0ULP_FTZ_FALSE)),
        ("Sqrt", rs.half, Reg.SqrtSpecificMode(Z, True, Reg.SqrtAlgo.FAST_INVERSE)),
        ("Exp", rs.float32, Reg.ExpSpecificMode(Reg.MaskMergeMode.MERGING)),
        ("Sqrt", rs.float32, Reg.MaskMergeMode.MERGING),
    ],
)
def test_refused_modes_change_nothing(op, dtype, mode):
    n = 256 // dtype.np_dtype.itemsize
    dst = Reg.RegTensor.from_numpy(np.full(n, 7, dtype.np_dtype))
    src = Reg.RegTensor.from_numpy(np.full(n, 2, dtype.np_dtype))
    full = Reg.MaskReg.from_lanes(dtype, np.ones(n, bool))
    with pytest.raises(UnsupportedError), rs.VEC_SCOPE():
        OPS[op](dst, *([src] * (2 if op == "Div" else 1)), full, mode=mode)
    assert np.all(dst.numpy() == 7)


# --- the boundary-value appendix (tables 1, 8 and 18), both CTRL modes -------------------------------
M = 65504.0
#: (op, dtype, operands, INF/NAN-mode result, saturation-mode result), rows of "Reg矢量计算接口边界值汇总"
BOUNDARY = [
    ("Exp", "half", (-M,), 0.0, 0.0),
    ("Exp", "half", (M,), math.inf, M),
    ("Exp", "half", (-0.0,), 1.0, 1.0),
    ("Exp", "half", (math.nan,), math.nan, 0.0),
    ("Exp", "half", (math.inf,), math.inf, M),
    ("Exp", "half", (-math.inf,), 0.0, 0.0),
    ("Exp", "float32", (3.4028234663852886e38,), math.inf, math.inf),
    ("Exp", "float32", (math.nan,), math.nan, math.nan),
    ("Sqrt", "half", (-M,), math.nan, 0.0),
    # the table prints 256.0; sqrt(65504) = 255.93749... rounds to 255.875, 1 ulp below
    # (decisions/transcendental.md#transcendental-rounding)
    ("Sqrt", "half", (M,), 255.875, 255.875),
    ("Sqrt", "half", (-0.0,), -0.0, -0.0),
    ("Div", "half", (-M, -M), 1.0, 1.0),
    ("Div", "half", (-M, M), -1.0, -1.0),
    ("Div", "half", (-M, 0.0), -math.inf, -M),
    ("Ln", "half", (-M,), math.nan, 0.0),
    ("Ln", "half", (-0.0,), -math.inf, -M),
    ("Ln", "half", (math.inf,), math.inf, M),
    ("Ln", "half", (-math.inf,), math.nan, 0.0),
    ("Ln", "float32", (0.0,), -math.inf, -math.inf),
    ("Ln", "float32", (-math.inf,), math.nan, math.nan),
]


@pytest.mark.parametrize("saturating", [False, True])
def test_boundary_value_tables(saturating):
    from arith_support import ctrl_bit

    for op, name, xs, inf_nan, sat in BOUNDARY:
        dtype = TYPES[name]
        n = 256 // dtype.np_dtype.itemsize
        srcs = [Reg.RegTensor.from_numpy(np.full(n, x, dtype.np_dtype)) for x in xs]
        full = Reg.MaskReg.from_lanes(dtype, np.ones(n, bool))
        with ctrl_bit(48, 0) if saturating else contextlib.nullcontext():
            got = _apply(op, dtype, srcs, full, None)
        want = np.full(n, sat if saturating else inf_nan, dtype.np_dtype)
        O.assert_lanes(got, want, what=f"{op}{xs} {name} saturating={saturating}", nan_type=dtype.np_dtype.type)


# --- batched loops: the lane functions over a leading iteration axis ---------------------------------
@pytest.mark.parametrize(
    ("op", "algo"), [("Div", "PRECISION_0ULP_FTZ_FALSE"), ("Div", None), ("Sqrt", "FAST_INVERSE"), ("Log2", None)]
)
def test_batched_loop_gives_the_bits_of_the_sequential_one(op, algo):
    from regsim._src.vf.loops import _explaining

    arity = 2 if op == "Div" else 1
    mode = _mode(op, algo)

    @rs.simd_vf
    def kernel(dst: rs.UbPtr[rs.float32], a: rs.UbPtr[rs.float32], b: rs.UbPtr[rs.float32], n: rs.Ref[int]) -> None:
        ra, rb, rd = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
        for i in range(6):
            m = Reg.UpdateMask(rs.float32, n)
            Reg.LoadAlign(ra, a + i * 64)
            Reg.LoadAlign(rb, b + i * 64)
            OPS[op](rd, *[ra, rb][:arity], m, mode=mode)
            Reg.StoreAlign(dst + i * 64, rd, m)

    rng = np.random.default_rng(3)
    specials = np.array(SPECIALS, np.float32)
    xs = [np.where(rng.random(384) < 0.3, specials[rng.integers(0, len(specials), 384)], rng.standard_normal(384)) for _ in "ab"]
    results = {}
    for loops in ("sequential", "auto"):
        ub = rs.UnifiedBuffer()
        a, b, dst = ub.alloc(rs.float32, 384), ub.alloc(rs.float32, 384), ub.alloc(rs.float32, 384)
        a.set(xs[0].astype(np.float32))
        b.set(xs[1].astype(np.float32))
        with rs.configure(loops=loops), _explaining() as log:
            kernel(dst.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), rs.Ref(350))
        results[loops] = (dst.numpy().tobytes(), [d.how for d in log])
    assert results["auto"][1] == ["batched"]
    assert results["auto"][0] == results["sequential"][0]
    got = np.frombuffer(results["auto"][0], np.float32)[:350]
    if op != "Log2":
        want = np.array(
            [
                _oracle(op, "float32", algo, *map(float, v))
                for v in zip(*(x[:350].astype(np.float32) for x in xs[:arity]), strict=True)
            ],
            np.float32,
        )
        O.assert_lanes(got, want, what=f"{op} batched", nan_type=np.float32)
    else:
        _check_log(op, got, xs[0][:350].astype(np.float32), "float32", algo)
