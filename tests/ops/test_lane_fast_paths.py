"""The lanes' shortcuts for large arrays against per-lane oracles: Div, Sqrt, Exp, Ln, Log2 and Log10 on
half and float32 (numpy's buffered float64 evaluation, the normal-number check and its least / greatest
element form for large positive float32 arrays, Exp's unflushed argument) over positive, mixed-sign and
special-value arrays (subnormals, NaNs with payloads, infinities, signed zeros) below and above the size
where the check changes form; the float32 sum a batched loop's accumulator takes (a +0 start needs no first
row) against in-order float32 sums; `all_set` on broadcast predicates."""

from __future__ import annotations

import math

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.model.enums import DivAlgo, ExpAlgo, LnAlgo, Log2Algo, Log10Algo, MaskMergeMode, SqrtAlgo
from regsim._src.ops import arith, transcendental
from regsim.testing import reference as O

NAMES = {np.dtype(np.float16): "half", np.dtype(np.float32): "float32"}
#: the canonical NaN the ops give (the Div page's Subnormal table: 0x7FFFFFFF; half 0x7FFF)
NAN_BITS = {"half": 0x7FFF, "float32": 0x7FFFFFFF}
#: lane function, its algorithm enum, the per-lane oracle (name, operands..., algo name) → value
LOGS = {
    "Ln": (transcendental.ln, LnAlgo, math.e),
    "Log2": (transcendental.log2, Log2Algo, 2),
    "Log10": (transcendental.log10, Log10Algo, 10),
}
DISTINCT = 512  #: distinct operands per case (tiled to the array's size: the lanes are elementwise)
SIZES = [64, 1 << 15]  #: a register, and a batched loop's lanes past the size where the check changes form


def _out(name: str, value: float, ftz: bool) -> int:
    """The bits of `value` rounded once to the type (numpy's conversion of a double rounds to nearest even), a
    subnormal result flushed to a zero of its sign when flushing, a NaN the canonical one."""
    if math.isnan(value):
        return NAN_BITS[name]
    with np.errstate(over="ignore"):  # (past the type's range: an infinity)
        r = O.FLOATS[name](value)
    if ftz and r != 0 and math.isfinite(float(r)) and abs(float(r)) < 2.0 ** O.FORMAT[name][1]:
        r = O.FLOATS[name](math.copysign(0.0, float(r)))
    return int(np.array(r).view(f"u{r.itemsize}"))


def _exp_oracle(name: str, x: float, algo: str) -> int:
    return _out(name, O.exp_reference(O.flushed_input(name, x, algo)), algo not in O.KEEPS_SUBNORMALS)


def _log_oracle(base: float):
    def oracle(name: str, x: float, algo: str) -> int:
        return _out(name, O.log_reference(base, O.flushed_input(name, x, algo)), algo not in O.KEEPS_SUBNORMALS)

    return oracle


def _exact_oracle(f):
    """div_oracle / sqrt_oracle (exact rationals, rounded once, FTZ by the algorithm), the NaN made canonical."""

    def oracle(name: str, *xs_algo):
        *xs, algo = xs_algo
        v = f(name, *xs, algo)
        return NAN_BITS[name] if math.isnan(float(v)) else int(np.array(v).view(f"u{v.itemsize}"))

    return oracle


OPS = {
    "Exp": (transcendental.exp, ExpAlgo, _exp_oracle, 1),
    "Sqrt": (transcendental.sqrt, SqrtAlgo, _exact_oracle(O.sqrt_oracle), 1),
    "Div": (transcendental.div, DivAlgo, _exact_oracle(O.div_oracle), 2),
    **{op: (lane, enum, _log_oracle(base), 1) for op, (lane, enum, base) in LOGS.items()},
}


def _operands(dtype: np.dtype, kind: str, rng: np.random.Generator) -> np.ndarray:
    """DISTINCT operands: positive normal numbers over the whole exponent range, the same with random signs, or
    those with special values mixed in (subnormals, NaNs with payloads, infinities, signed zeros, the extremes)."""
    info = np.finfo(dtype)
    low, high = math.log2(float(info.smallest_normal)), math.log2(float(info.max))
    x = np.exp2(rng.uniform(low, high, DISTINCT)).astype(dtype)
    x = np.where(np.isfinite(x) & (x >= info.smallest_normal), x, dtype.type(1.5))  # (rounding to the ends)
    if kind != "positive":
        x = np.where(rng.random(DISTINCT) < 0.5, -x, x)
    if kind == "special":
        bits = x.view(f"u{dtype.itemsize}")
        size = 8 * dtype.itemsize
        mantissa = (1 << info.nmant) - 1
        sub = rng.integers(1, mantissa + 1, DISTINCT, dtype=np.uint64)
        payload = rng.integers(0, mantissa + 1, DISTINCT, dtype=np.uint64)
        exp_ones = (1 << (size - 1)) - 1 - mantissa  # the all-ones exponent field
        specials = {
            0: sub,  # subnormals
            1: exp_ones | payload | 1,  # NaNs with payloads
            2: np.full(DISTINCT, exp_ones),  # +inf
            3: np.zeros(DISTINCT, np.uint64),  # +0
            4: np.full(DISTINCT, int(info.smallest_normal.view(f"u{dtype.itemsize}"))),
            5: np.full(DISTINCT, int(info.max.view(f"u{dtype.itemsize}"))),
        }
        which = rng.integers(0, 12, DISTINCT)  # half the lanes special, half left normal
        sign = rng.integers(0, 2, DISTINCT, dtype=np.uint64) << np.uint64(size - 1)
        for k, v in specials.items():
            bits[which == k] = (np.asarray(v, np.uint64) | sign)[which == k].astype(bits.dtype)
    return x


#: Div's further cases: special numerators over positive divisors, some below 1, or all 1 or more
DIV_KINDS = ("over positive", "over one")
CASES = [
    (op, dtype, algo, kind, size)
    for op in OPS
    for dtype in (np.dtype(np.float16), np.dtype(np.float32))
    for algo in ("INTRINSIC", "PRECISION_1ULP_FTZ_FALSE")
    for kind in ("positive", "mixed", "special", *(DIV_KINDS if op == "Div" else ()))
    for size in SIZES
]


IDS = [f"{op}-{NAMES[dtype]}-{algo}-{kind}-{size}" for op, dtype, algo, kind, size in CASES]


@pytest.mark.parametrize(("op", "dtype", "algo", "kind", "size"), CASES, ids=IDS)
def test_lane_matches_the_per_lane_oracle(op, dtype, algo, kind, size):
    lane, enum, oracle, arity = OPS[op]
    name = NAMES[dtype]
    rng = np.random.default_rng([list(OPS).index(op), dtype.itemsize, len(algo), len(kind), size])
    distinct = [_operands(dtype, kind, rng) for _ in range(arity)]
    if kind in DIV_KINDS:  # special numerators over positive divisors
        distinct = [_operands(dtype, "special", rng), _operands(dtype, "positive", rng)]
        if kind == "over one":  # (1 or more, +inf among them: the numerator goes unflushed)
            distinct[1] = np.where(distinct[1] >= 1, distinct[1], 1 / distinct[1]).astype(dtype)
            distinct[1][::37] = np.inf
    want = np.array([oracle(name, *(float(x[i]) for x in distinct), algo) for i in range(DISTINCT)], f"u{dtype.itemsize}")
    reps = -(-size // DISTINCT)
    xs = [np.tile(x, reps)[:size].reshape(-1, 64) for x in distinct]  # (a batched loop's lanes: rows of a register)
    with np.errstate(all="ignore"):
        got = lane(*xs, algo=enum[algo])
    want_lanes = np.tile(want, reps)[:size].reshape(-1, 64)
    O.assert_lanes(got, want_lanes, what=f"{op} {name} {algo} {kind} x{size}", inputs={"src": xs[0]})


@pytest.mark.parametrize("algo", [ExpAlgo.INTRINSIC, ExpAlgo.PRECISION_1ULP_FTZ_FALSE])
def test_exp_of_every_float32_subnormal_is_one(algo):
    """Exp does not flush its argument: e**x of a subnormal rounds to 1 as e**0 does, for every one of them."""
    bits = np.arange(1, 1 << 23, dtype=np.uint32)
    for sign in (0, 0x80000000):
        got = transcendental.exp((bits | np.uint32(sign)).view(np.float32), algo=algo)
        assert np.array_equal(got.view(np.uint32), np.full(bits.size, 0x3F800000, np.uint32)), f"sign bit {sign:#x}"


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("size", [64, 1 << 15])
def test_normal_number_check(dtype, size):
    """`_ordinary` says whether every element is a normal number (per element: finite, |x| >= the smallest normal),
    for positive arrays (the least / greatest element form) with one exception planted anywhere, and mixed ones."""
    rng = np.random.default_rng(size)
    info = np.finfo(dtype)
    base = rng.uniform(1, 100, size).astype(dtype)
    planted = [None, 0.0, -0.0, float(info.smallest_subnormal), math.inf, -math.inf, math.nan, -1.0, float(info.smallest_normal)]
    for value in planted:
        for at in (0, size // 2, size - 1):
            x = base.copy()
            if value is not None:
                x[at] = value
            want = all(math.isfinite(v) and abs(v) >= float(info.smallest_normal) for v in x.tolist())
            assert transcendental._ordinary(x.reshape(-1, 64)) is want, f"{value!r} at {at}"


def test_all_set_reads_a_broadcast_row_once():
    row = np.ones(64, bool)
    assert arith.all_set(np.broadcast_to(row, (100, 64)))
    row[17] = False
    assert not arith.all_set(np.broadcast_to(row, (100, 64)))
    full = np.ones((100, 64), bool)
    assert arith.all_set(full)
    full[99, 63] = False
    assert not arith.all_set(full)
    assert not arith.all_set(np.broadcast_to(full[:, None, :], (100, 3, 64)))


SUM_VALUES = [1.0, -1.0, 0.0, -0.0, 3.0e38, -3.0e38, 1e-45, math.inf, -math.inf, math.nan, 0.1, 2.0**-24]


def _in_order(init: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per lane, init + rows[0] + rows[1] + ..., each sum one float32 rounding (numpy float32 scalars)."""
    out = []
    for j in range(rows.shape[1]):
        acc = np.float32(init[j])
        for v in rows[:, j]:
            acc = np.float32(acc + np.float32(v))
        out.append(acc)
    return np.array(out, np.float32)


@pytest.mark.parametrize("start", ["+0", "-0", "values"])
def test_last_row_float_sum_matches_in_order_sums(start):
    rng = np.random.default_rng(len(start))
    rows = rng.choice(np.array(SUM_VALUES, np.float32), (40, 64)).astype(np.float32)
    rows[:, :8] = rng.uniform(-1, 1, (40, 8))  # (lanes of plain sums)
    rows[:, 8] = -0.0  # (a lane of -0 terms: -0 in order from -0, +0 from +0)
    starts = {"+0": np.zeros(64), "-0": np.full(64, -0.0), "values": rng.uniform(-2, 2, 64)}
    init = starts[start].astype(np.float32)
    active = np.broadcast_to(np.ones(64, bool), rows.shape)
    with np.errstate(all="ignore"):
        got = arith.add_scan_last([init, rows], 0, active, MaskMergeMode.ZEROING)
        want = _in_order(init, rows)
    O.assert_lanes(got, want, what=f"acc from {start}", nan_type=np.float32)


@pytest.mark.parametrize("start", ["+0", "-0", "values"])
@pytest.mark.parametrize("rows", [1, 16, 45])
@pytest.mark.parametrize("used", [0, 1, 3, 8, 9])
def test_last_row_float_sum_of_mostly_zero_lanes(start, rows, used):
    """Terms +0 but on `used` lanes (a Reduce's results: lane 0 alone, or a few), -0, NaN and infinities among them;
    and a case whose last row has few such lanes but earlier rows many."""
    rng = np.random.default_rng([rows, used, len(start)])
    terms = np.zeros((rows, 64), np.float32)
    lanes = rng.choice(64, used, replace=False)
    terms[:, lanes] = rng.choice(np.array(SUM_VALUES, np.float32), (rows, used))
    if used:
        terms[:, lanes[0]] = rng.uniform(0, 1, rows)
    if used >= 3:  # (a lane with terms in its first rows alone, one in its last rows alone)
        terms[rows // 4 + 1 :, lanes[1]] = 0
        terms[: rows - rows // 8 - 1, lanes[2]] = 0
    if used == 9 and rows > 1:  # (the last row names 1 lane, the others 9: the whole reduction)
        terms[-1] = 0
        terms[-1, lanes[0]] = 1.0
    starts = {"+0": np.zeros(64), "-0": np.full(64, -0.0), "values": rng.uniform(-2, 2, 64)}
    init = starts[start].astype(np.float32)
    init[5] = -0.0
    active = np.broadcast_to(np.ones(64, bool), terms.shape)
    with np.errstate(all="ignore"):
        got = arith.add_scan_last([init, terms], 0, active, MaskMergeMode.ZEROING)
        want = _in_order(init, terms)
    O.assert_lanes(got, want, what=f"acc from {start}, {used} lanes used, {rows} rows", nan_type=np.float32)


def test_batched_accumulation_from_zero_matches_in_order_sums():
    """A loop adding a register of loaded rows to an accumulator set to +0 (the ReduceSum kernel's shape), in the
    default mode: the sums of the rows in order, signed zeros, infinities and NaNs included."""
    rng = np.random.default_rng(7)
    rows = rng.choice(np.array(SUM_VALUES, np.float32), (64, 64)).astype(np.float32)
    rows[:, :16] = rng.uniform(0, 1, (64, 16))
    rows[:, 16] = -0.0
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.float32, rows.size), ub.alloc(rs.float32, 64)
    src.set(rows.reshape(-1))

    @rs.simd_vf
    def acc_vf(d: rs.UbPtr[rs.float32], s: rs.UbPtr[rs.float32], repeat: int) -> None:
        mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)
        x, acc = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
        Reg.Duplicate(acc, np.float32(0), mask)
        for i in range(repeat):
            Reg.LoadAlign(x, s + i * 64)
            Reg.Add(acc, acc, x, mask)
        Reg.StoreAlign(d, acc, mask)

    with np.errstate(all="ignore"):
        acc_vf(dst.GetPhyAddr(), src.GetPhyAddr(), rows.shape[0])
        want = _in_order(np.zeros(64, np.float32), rows)
    O.assert_lanes(dst.numpy(), want, what="accumulated rows", nan_type=np.float32)
