"""ExpSub and MulsCast (the 复合计算 pages of those names, the RegLayout page) against the oracles: ExpSub over every
half value in both source positions and both layouts (within Exp's 1 ulp of e**round_f32(x - y), exact special
cases), MulsCast over every half rounding boundary (each half and each midpoint between neighbours, ties away
from zero), Hypothesis on float32 near the boundaries with special values, ZEROING on dirty destinations with
noisy masks, the boundary tables 27 and 30, refused calls changing nothing, batched loops giving the
sequential bits."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.errors import DTypeError, ParameterError, UnsupportedError
from regsim.testing import reference as O

L = Reg.RegLayout
ALL_HALF = np.arange(65536, dtype=np.uint16).view(np.float16)
TINY32 = 2.0**-126
SPECIALS32 = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 65504.0, -65504.0, 3.4028234663852886e38]
SPECIALS32 += [-3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45, -1e-40, 88.72283, 88.72284]
SPECIALS32 += [-87.33654, -87.33655, -103.97208, -103.97209, 2.0**-24, 6.103515625e-05, 65520.0, 65519.996, 2.0**-25]
PER_CASE = settings(max_examples=max(10, settings.default.max_examples // 2))


# --- ExpSub ----------------------------------------------------------------------------------------
def _exp_sub(src0: np.ndarray, src1: np.ndarray, mask, layout, dst=None) -> np.ndarray:
    dst = dst if dst is not None else Reg.RegTensor(rs.float32)
    with rs.VEC_SCOPE():
        Reg.ExpSub(dst, Reg.RegTensor.from_numpy(src0), Reg.RegTensor.from_numpy(src1), mask, layout=layout)
    return dst.numpy()


def _check_exp_sub(got: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> None:
    """Exact where Exp is (NaN, ±inf, zero and flushed differences); elsewhere within 1 ulp of e**d (the
    Exp bound), a result below the smallest normal flushed to 0 (never a subnormal)."""
    bad = []
    for i, (g, x, y) in enumerate(zip(got.tolist(), xs.tolist(), ys.tolist(), strict=True)):
        special, ref = O.exp_sub_reference(x, y)
        if special is not None:
            ok = (math.isnan(g) and math.isnan(special)) or (g == special and math.copysign(1, g) == math.copysign(1, special))
        else:
            ok = (O.ulp_distance(g, ref, "float32") <= 1.0 or (g == 0.0 and ref < TINY32)) and not 0 < g < TINY32
        if not ok:
            bad.append(f"lane {i}: ExpSub({x!r}, {y!r}) = {g!r}, reference {ref!r}")
    assert not bad, "\n".join(bad[:8])


def _widened(src: np.ndarray, layout: int) -> np.ndarray:
    """The RegLayout page's b16 → b32 rule: dst[0:64] = src[layout:128:2]."""
    return src[layout:128:2]


@pytest.mark.parametrize("position", [0, 1])
def test_exp_sub_every_half_in_each_position(position):
    """Every half value as src0 (then src1) against a rotation of all halves, read by both layouts."""
    full = Reg.MaskReg.from_lanes(rs.half, np.ones(128, bool))
    others = np.roll(ALL_HALF, 12345)
    pairs = (ALL_HALF, others) if position == 0 else (others, ALL_HALF)
    got, xs, ys = [], [], []
    for a, b in zip(pairs[0].reshape(-1, 128), pairs[1].reshape(-1, 128), strict=True):
        for layout in (0, 1):
            got.append(_exp_sub(a, b, full, L(layout)))
            xs.append(_widened(a, layout))
            ys.append(_widened(b, layout))
    _check_exp_sub(np.concatenate(got), np.concatenate(xs).astype(np.float64), np.concatenate(ys).astype(np.float64))


def _float32_sources(data, n: int, label: str) -> np.ndarray:
    lanes = data.draw(rst.registers(rs.float32), f"{label} lanes").numpy()
    near = data.draw(st.lists(st.floats(-110.0, 110.0, width=32), min_size=n, max_size=n), f"{label} near")
    picks = data.draw(st.lists(st.integers(0, len(SPECIALS32) - 1), min_size=n, max_size=n), f"{label} specials")
    use = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n), f"{label} use"))
    specials = np.array(SPECIALS32, np.float32)
    return np.where(use == 0, lanes, np.where(use == 1, np.array(near, np.float32), specials[picks])).astype(np.float32)


@PER_CASE
@given(data=st.data(), layout=st.sampled_from([L.ZERO, L.ONE]))
def test_exp_sub_float32_zeroing_dirty_destination(data, layout):
    """float → float: dst[i] = mask[i] ? ExpSub : 0 over a noisy destination and mask; layout changes nothing."""
    a, b = _float32_sources(data, 64, "src0"), _float32_sources(data, 64, "src1")
    mask = data.draw(rst.masks(rs.float32, fill="noise"), "mask")
    dst = data.draw(rst.registers(rs.float32), "dst")
    active = mask.lanes(rs.float32)
    got = _exp_sub(a, b, mask, layout, dst)
    assert not np.any(got.view(np.uint32)[~active]), "ZEROING: inactive lanes not 0"
    _check_exp_sub(got[active], a[active].astype(np.float64), b[active].astype(np.float64))


@PER_CASE
@given(data=st.data(), layout=st.sampled_from([L.ZERO, L.ONE]))
def test_exp_sub_half_zeroing_dirty_destination(data, layout):
    """half → float: lane i is source element 2i + layout under that element's mask bit (the RegLayout page's
    "mask的有效情况均以输入数据位宽为准"); other lanes 0 whatever the destination held."""
    a = data.draw(rst.registers(rs.half), "src0").numpy()
    b = data.draw(rst.registers(rs.half), "src1").numpy()
    mask = data.draw(rst.masks(rs.half, fill="noise"), "mask")
    dst = data.draw(rst.registers(rs.float32), "dst")
    active = _widened(mask.lanes(rs.half), layout.value)
    got = _exp_sub(a, b, mask, layout, dst)
    assert not np.any(got.view(np.uint32)[~active]), "ZEROING: inactive lanes not 0"
    xs, ys = _widened(a, layout.value), _widened(b, layout.value)
    _check_exp_sub(got[active], xs[active].astype(np.float64), ys[active].astype(np.float64))


#: the ExpSub boundary table (27) rows that follow IEEE 754, as its note says ("与IEEE754理论结果一致")
F32_MAX = 3.4028234663852886e38
EXP_SUB_TABLE = [
    ("half", -65504.0, -65504.0, 1.0),
    ("half", -65504.0, 65504.0, 0.0),
    ("half", -65504.0, 0.0, 0.0),
    ("half", -65504.0, math.inf, 0.0),
    ("half", -65504.0, math.nan, math.nan),
    ("half", 65504.0, 0.0, math.inf),
    ("half", 65504.0, -math.inf, math.inf),
    ("half", 65504.0, math.inf, 0.0),
    ("half", 0.0, -0.0, 1.0),
    ("half", math.inf, -math.inf, math.inf),
    ("half", math.inf, math.inf, math.nan),
    ("half", -math.inf, 0.0, 0.0),
    ("half", -math.inf, math.nan, math.nan),
    ("float32", -F32_MAX, -F32_MAX, 1.0),
    ("float32", -F32_MAX, F32_MAX, 0.0),
    ("float32", -F32_MAX, -math.inf, math.inf),
    ("float32", F32_MAX, -F32_MAX, math.inf),
    ("float32", F32_MAX, math.inf, 0.0),
    ("float32", 0.0, F32_MAX, 0.0),
    ("float32", -0.0, -math.inf, math.inf),
    ("float32", math.nan, 1.0, math.nan),
]


@pytest.mark.parametrize("saturating", [False, True])
def test_exp_sub_boundary_table(saturating):
    """Table 27 (float results: the CTRL[48] half saturation does not apply)."""
    from arith_support import ctrl_bit

    for name, x, y, want in EXP_SUB_TABLE:
        np_t = np.float16 if name == "half" else np.float32
        n = 128 if name == "half" else 64
        full = Reg.MaskReg.from_lanes(rs.half if name == "half" else rs.float32, np.ones(n, bool))
        with ctrl_bit(48, 0) if saturating else contextlib.nullcontext():
            got = _exp_sub(np.full(n, x, np_t), np.full(n, y, np_t), full, L.ZERO)
        O.assert_lanes(got, np.full(64, want, np.float32), what=f"ExpSub({x}, {y}) {name}", nan_type=np.float32)


# --- MulsCast --------------------------------------------------------------------------------------
def _muls_cast(src: np.ndarray, scalar: float, mask, layout, dst=None) -> np.ndarray:
    dst = dst if dst is not None else Reg.RegTensor(rs.half)
    with rs.VEC_SCOPE():
        Reg.MulsCast(dst, Reg.RegTensor.from_numpy(src), scalar, mask, layout=layout)
    return dst.numpy()


def _muls_cast_expected(src: np.ndarray, scalar: float, active: np.ndarray, layout: int, half_sat: bool = False) -> np.ndarray:
    """The RegLayout page's b32 → b16 rule: dst[:] = 0; dst[layout:128:2] = results of src[0:64] (active lanes)."""
    out = np.zeros(128, np.uint16)
    codes = [
        O.muls_cast_oracle(float(x), float(np.float32(scalar)), half_sat) if a else 0 for x, a in zip(src, active, strict=True)
    ]
    out[layout:128:2] = codes
    return out.view(np.float16)


def _half_boundaries() -> np.ndarray:
    """Every finite half, and the midpoint between each pair of neighbouring halves (and past the largest),
    each exact in float32: the values CAST_ROUND decides ties on."""
    finite = np.sort(ALL_HALF[np.isfinite(ALL_HALF)].astype(np.float32))
    finite = np.unique(finite)
    mids = (finite[:-1].astype(np.float64) + finite[1:].astype(np.float64)) / 2
    edge = np.array([65504.0, 65520.0, -65520.0, 65519.996, 2.0**-25, -(2.0**-25), 2.0**-26], np.float64)
    values = np.concatenate([finite.astype(np.float64), mids, edge]).astype(np.float32)
    assert np.array_equal(values[: finite.size + mids.size].astype(np.float64), np.concatenate([finite, mids]))  # exact
    return np.resize(values, -(-values.size // 64) * 64)


@pytest.mark.parametrize("scalar", [1.0, -0.5, 2.0**-13])
def test_muls_cast_every_half_boundary(scalar):
    """Products at every half value and every midpoint (ties round away from zero), both layouts."""
    values = _half_boundaries() / np.float32(scalar)  # exact: scalar is a power of two
    full = Reg.MaskReg.from_lanes(rs.float32, np.ones(64, bool))
    got, want = [], []
    for k, chunk in enumerate(values.reshape(-1, 64)):
        layout = k % 2
        got.append(_muls_cast(chunk, scalar, full, L(layout)))
        want.append(_muls_cast_expected(chunk, scalar, np.ones(64, bool), layout))
    O.assert_lanes(np.concatenate(got), np.concatenate(want), what=f"MulsCast scalar={scalar}", nan_type=np.float16)


@PER_CASE
@given(
    data=st.data(),
    layout=st.sampled_from([L.ZERO, L.ONE]),
    scalar=st.one_of(st.floats(width=32), st.sampled_from([0.0, -0.0, math.inf, math.nan, 1.0, 65504.0, 2.0**-24])),
    saturating=st.booleans(),
)
def test_muls_cast_zeroing_dirty_destination(data, layout, scalar, saturating):
    """dst[2i + layout] = mask[i] ? MulsCast : 0, every other half element 0, over noisy registers and masks."""
    from arith_support import ctrl_bit

    near = data.draw(st.lists(st.floats(-70000.0, 70000.0, width=32), min_size=64, max_size=64), "near")
    src = np.where(data.draw(st.booleans(), "use near"), np.array(near, np.float32), _float32_sources(data, 64, "src"))
    mask = data.draw(rst.masks(rs.float32, fill="noise"), "mask")
    dst = data.draw(rst.registers(rs.half), "dst")
    with ctrl_bit(48, 0) if saturating else contextlib.nullcontext():
        got = _muls_cast(src, scalar, mask, layout, dst)
    want = _muls_cast_expected(src, scalar, mask.lanes(rs.float32), layout.value, saturating)
    O.assert_lanes(got, want, what=f"MulsCast * {scalar!r}", inputs={"dst before": dst.numpy()}, nan_type=np.float16)


#: the MulsCast boundary table (30): (src, scalar, INF/NAN result, saturated result); MIN/MAX are float32's
MULS_CAST_TABLE = [
    (-F32_MAX, math.nan, math.nan, 0.0),
    (-F32_MAX, -0.0, 0.0, 0.0),
    (-F32_MAX, 0.0, -0.0, -0.0),
    (-F32_MAX, -math.inf, math.inf, 65504.0),
    (-F32_MAX, -F32_MAX, math.inf, 65504.0),
    (-F32_MAX, F32_MAX, -math.inf, -65504.0),
    (F32_MAX, -0.0, -0.0, -0.0),
    (F32_MAX, math.inf, math.inf, 65504.0),
    (0.0, math.inf, math.nan, 0.0),
    (0.0, -0.0, -0.0, -0.0),
    (-0.0, -0.0, 0.0, 0.0),
    (math.inf, F32_MAX, math.inf, 65504.0),
    (math.inf, math.nan, math.nan, 0.0),
    (-math.inf, -F32_MAX, math.inf, 65504.0),
    (-math.inf, math.inf, -math.inf, -65504.0),
    (-math.inf, 0.0, math.nan, 0.0),
]


@pytest.mark.parametrize("saturating", [False, True])
def test_muls_cast_boundary_table(saturating):
    from arith_support import ctrl_bit

    full = Reg.MaskReg.from_lanes(rs.float32, np.ones(64, bool))
    for x, s, inf_nan, sat in MULS_CAST_TABLE:
        with ctrl_bit(48, 0) if saturating else contextlib.nullcontext():
            got = _muls_cast(np.full(64, x, np.float32), s, full, L.ZERO)
        want = np.zeros(128, np.float16)
        want[0::2] = sat if saturating else inf_nan
        O.assert_lanes(got, want, what=f"MulsCast({x}, {s}) saturating={saturating}", nan_type=np.float16)


# --- refused calls ---------------------------------------------------------------------------------------
def _refused(call, error) -> None:
    dst_before = call.__defaults__[0].numpy().tobytes()
    with pytest.raises(error), rs.VEC_SCOPE():
        call()
    assert call.__defaults__[0].numpy().tobytes() == dst_before, "a refused call changed its destination"


def test_refused_calls_change_nothing():
    h = Reg.RegTensor.from_numpy(np.ones(128, np.float16))
    f = Reg.RegTensor.from_numpy(np.ones(64, np.float32))
    fd = Reg.RegTensor.from_numpy(np.full(64, 7.0, np.float32))
    hd = Reg.RegTensor.from_numpy(np.full(128, 7.0, np.float16))
    m = Reg.MaskReg.from_lanes(rs.half, np.ones(128, bool))
    mf = Reg.MaskReg.from_lanes(rs.float32, np.ones(64, bool))
    _refused(lambda d=fd: Reg.ExpSub(d, h, h, m, layout=L.TWO), UnsupportedError)
    _refused(lambda d=fd: Reg.ExpSub(d, h, h, m, mode=Reg.MaskMergeMode.MERGING), UnsupportedError)
    _refused(lambda d=hd: Reg.ExpSub(d, h, h, m), DTypeError)  # half → half is not a 950 pair
    _refused(lambda d=fd: Reg.ExpSub(d, h, f, m), DTypeError)
    _refused(lambda d=hd: Reg.MulsCast(d, f, 2.0, mf, layout=L.THREE), UnsupportedError)
    _refused(lambda d=fd: Reg.MulsCast(d, f, 2.0, mf), DTypeError)
    _refused(lambda d=hd: Reg.MulsCast(d, h, 2.0, m), DTypeError)


def test_overlapping_registers():
    """MulsCast: "不支持源操作数寄存器和目的操作数寄存器重叠"; ExpSub on half: "仅支持源操作数寄存器重叠";
    ExpSub on float: "支持寄存器全部重叠" (in place gives the out-of-place bits)."""
    both = Reg.RegTensor.from_numpy(np.linspace(-3, 3, 64).astype(np.float32))
    as_half = both.reinterpret(rs.half)
    mf = Reg.MaskReg.from_lanes(rs.float32, np.ones(64, bool))
    mh = Reg.MaskReg.from_lanes(rs.half, np.ones(128, bool))
    with pytest.raises(ParameterError), rs.VEC_SCOPE():
        Reg.MulsCast(as_half, both, 2.0, mf)
    with pytest.raises(ParameterError), rs.VEC_SCOPE():
        Reg.ExpSub(both, as_half, as_half, mh)
    src = both.numpy().copy()
    zero = np.zeros(64, np.float32)
    want = _exp_sub(src, zero, mf, L.ZERO)
    with rs.VEC_SCOPE():
        Reg.ExpSub(both, both, Reg.RegTensor.from_numpy(zero), mf)
    O.assert_lanes(both.numpy(), want, what="ExpSub in place")


# --- batched loops ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["ExpSub-half", "ExpSub-float32", "MulsCast"])
def test_batched_loop_gives_the_bits_of_the_sequential_one(op):
    from regsim._src.vf.loops import _explaining

    src_t = rs.half if op == "ExpSub-half" else rs.float32
    dst_t = rs.half if op == "MulsCast" else rs.float32
    per = 256 // src_t.np_dtype.itemsize
    out_per = 256 // dst_t.np_dtype.itemsize

    @rs.simd_vf
    def kernel(dst: rs.UbPtr, a: rs.UbPtr, b: rs.UbPtr, n: rs.Ref[int]) -> None:
        ra, rb, rd = Reg.RegTensor(src_t), Reg.RegTensor(src_t), Reg.RegTensor(dst_t)
        every = Reg.CreateMask(dst_t)
        for i in range(6):
            m = Reg.UpdateMask(src_t, n)
            Reg.LoadAlign(ra, a + i * per)
            Reg.LoadAlign(rb, b + i * per)
            if op == "MulsCast":
                Reg.MulsCast(rd, ra, 1.5, m, layout=L.ONE)
            else:
                Reg.ExpSub(rd, ra, rb, m, layout=L.ONE)
            Reg.StoreAlign(dst + i * out_per, rd, every)

    rng = np.random.default_rng(5)
    specials = np.array(SPECIALS32, np.float32)
    xs = [
        np.where(rng.random(6 * per) < 0.2, specials[rng.integers(0, len(specials), 6 * per)], 4 * rng.standard_normal(6 * per))
        for _ in "ab"
    ]
    with np.errstate(over="ignore"):  # (beyond half's range: its infinities, as meant)
        a_vals, b_vals = (x.astype(src_t.np_dtype) for x in xs)
    results = {}
    for loops in ("sequential", "auto"):
        ub = rs.UnifiedBuffer()
        a, b, dst = ub.alloc(src_t, 6 * per), ub.alloc(src_t, 6 * per), ub.alloc(dst_t, 6 * out_per)
        a.set(a_vals)
        b.set(b_vals)
        with rs.configure(loops=loops), _explaining() as log:
            kernel(dst.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), rs.Ref(6 * per - 30))
        results[loops] = (dst.numpy().tobytes(), [d.how for d in log])
    assert results["auto"][1] == ["batched"]
    assert results["auto"][0] == results["sequential"][0]
    got = np.frombuffer(results["auto"][0], dst_t.np_dtype)
    active = np.arange(6 * per) < 6 * per - 30
    if op == "MulsCast":
        want = np.concatenate(
            [_muls_cast_expected(a_vals[k * 64 : (k + 1) * 64], 1.5, active[k * 64 : (k + 1) * 64], 1) for k in range(6)]
        )
        O.assert_lanes(got, want, what="MulsCast batched", nan_type=np.float16)
        return
    pick = np.concatenate([k * per + _widened(np.arange(per), 1) if per == 128 else k * per + np.arange(per) for k in range(6)])
    on = active[pick]
    assert not np.any(got.view(np.uint32)[~on])
    _check_exp_sub(got[on], a_vals[pick][on].astype(np.float64), b_vals[pick][on].astype(np.float64))


# --- the pages' calling examples (调用示例) ---------------------------------------------------------------
@rs.simd_vf
def exp_sub_page_vf(
    dst_addr: rs.UbPtr, src0_addr: rs.UbPtr, src1_addr: rs.UbPtr, count: int, src_repeat: int, dst_repeat: int, repeat_times: int
) -> None:
    """ExpSubVF<float, half> of the ExpSub page: a half mask (UpdateMask<U>) governs ExpSub and the float store."""
    src_reg0, src_reg1, dst_reg = Reg.RegTensor(rs.half), Reg.RegTensor(rs.half), Reg.RegTensor(rs.float32)
    n = rs.Ref(count)
    for i in range(repeat_times):
        mask = Reg.UpdateMask(rs.half, n)
        Reg.LoadAlign(src_reg0, src0_addr + i * src_repeat)
        Reg.LoadAlign(src_reg1, src1_addr + i * src_repeat)
        Reg.ExpSub(dst_reg, src_reg0, src_reg1, mask, layout=L.ZERO, mode=Reg.MaskMergeMode.ZEROING)
        Reg.StoreAlign(dst_addr + i * dst_repeat, dst_reg, mask)


@rs.simd_vf
def muls_cast_page_vf(
    dst_addr: rs.UbPtr, src_addr: rs.UbPtr, scalar: float, count: int, src_repeat: int, dst_repeat: int, repeat_times: int
) -> None:
    """MulsCastVF of the MulsCast page: a float mask (UpdateMask<float>) governs MulsCast and the half store."""
    src_reg0, dst_reg0 = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.half)
    n = rs.Ref(count)
    for i in range(repeat_times):
        mask = Reg.UpdateMask(rs.float32, n)
        Reg.LoadAlign(src_reg0, src_addr + i * src_repeat)
        Reg.MulsCast(dst_reg0, src_reg0, scalar, mask, layout=L.ZERO)
        Reg.StoreAlign(dst_addr + i * dst_repeat, dst_reg0, mask)


def test_page_examples():
    """ExpSub page: float dst lane i of repeat r is written when half element 128r + 2i is within count (the
    float store reads the half mask at bit 4i); MulsCast page: half element 2k of repeat r holds float k's
    result, the odd halves keep what UB held (the half store reads the float mask at bit 2j)."""
    rng = np.random.default_rng(11)
    ub = rs.UnifiedBuffer()
    count = 300
    a, b = ub.alloc(rs.half, 384), ub.alloc(rs.half, 384)
    a.set(rng.uniform(-8, 8, 384).astype(np.float16))
    b.set(rng.uniform(-8, 8, 384).astype(np.float16))
    dst = ub.alloc(rs.float32, 192)
    dst.set(np.full(192, -7.0, np.float32))
    rs.asc_vf_call(exp_sub_page_vf, dst.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), count, 128, 64, 3)
    got, xs, ys = dst.numpy(), a.numpy()[0::2], b.numpy()[0::2]
    written = 2 * np.arange(192) < count
    assert np.all(got[~written] == -7.0), "the float store wrote lanes whose half element is past count"
    _check_exp_sub(got[written], xs[written].astype(np.float64), ys[written].astype(np.float64))

    src = ub.alloc(rs.float32, 192)
    src.set(rng.uniform(-3e4, 3e4, 192).astype(np.float32))
    out = ub.alloc(rs.half, 384)
    out.set(np.full(384, 9.0, np.float16))
    rs.asc_vf_call(muls_cast_page_vf, out.GetPhyAddr(), src.GetPhyAddr(), 1.75, 150, 64, 128, 3)
    want = np.full(384, 9.0, np.float16).view(np.uint16)
    for k, x in enumerate(src.numpy()[:150]):
        want[2 * k] = O.muls_cast_oracle(float(x), 1.75)
    O.assert_lanes(out.numpy(), want.view(np.float16), what="MulsCast page example", nan_type=np.float16)
