"""Cast (the Cast page's tables 3-9, saturation scenarios and hifloat8 rules; the RegLayout page):
every pair with every trait value it accepts, against the independent oracles of
regsim.testing.reference: all codes of 4-, 8- and 16-bit sources, float32 sources near rounding
boundaries, ties, overflow and underflow (Hypothesis), and the layout and mask of each ratio."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

import regsim as rs
from regsim import Reg
from regsim.errors import DTypeError, ParameterError, UnsupportedError
from regsim.testing import reference as O

RM = rs.AscendC.RoundMode
L, S, Z = Reg.RegLayout, Reg.SatMode, Reg.MaskMergeMode.ZEROING
ROUNDS = [RM.CAST_RINT, RM.CAST_ROUND, RM.CAST_FLOOR, RM.CAST_CEIL, RM.CAST_TRUNC]
SATS = [S.NO_SAT, S.SAT]
L2, L4 = [L.ZERO, L.ONE], [L.ZERO, L.ONE, L.TWO, L.THREE]
NONE = [RM.UNKNOWN]

# (src, dst) -> (layouts, sat modes, round modes): the Cast page's tables 6-9, written out again
TABLE: dict[tuple[str, str], tuple[list[Any], list[Any], list[Any]]] = {
    ("half", "int4x2"): (L4, SATS, ROUNDS), ("half", "int8"): (L2, SATS, ROUNDS), ("half", "uint8"): (L2, SATS, ROUNDS),
    ("half", "int16"): ([L.UNKNOWN], SATS, ROUNDS), ("half", "int32"): (L2, [S.UNKNOWN], ROUNDS),
    ("bfloat16", "int32"): (L2, SATS, ROUNDS), ("float32", "int16"): (L2, SATS, ROUNDS),
    ("float32", "int32"): ([L.UNKNOWN], SATS, ROUNDS), ("float32", "int64"): (L2, SATS, ROUNDS),
    ("hifloat8", "half"): (L2, [S.UNKNOWN], NONE), ("hifloat8", "float32"): (L4, [S.UNKNOWN], NONE),
    ("fp8_e4m3fn", "float32"): (L4, [S.UNKNOWN], NONE), ("fp8_e5m2", "float32"): (L4, [S.UNKNOWN], NONE),
    ("fp8_e8m0", "bfloat16"): (L2, [S.UNKNOWN], NONE), ("fp4x2_e2m1", "bfloat16"): (L4, [S.UNKNOWN], NONE),
    ("fp4x2_e1m2", "bfloat16"): (L4, [S.UNKNOWN], NONE), ("half", "hifloat8"): (L2, SATS, [RM.CAST_ROUND, RM.CAST_HYBRID]),
    ("half", "bfloat16"): ([L.UNKNOWN], [S.UNKNOWN], ROUNDS), ("bfloat16", "half"): ([L.UNKNOWN], SATS, ROUNDS),
    ("bfloat16", "fp4x2_e2m1"): (L4, [S.UNKNOWN], ROUNDS), ("bfloat16", "fp4x2_e1m2"): (L4, [S.UNKNOWN], ROUNDS),
    ("bfloat16", "fp8_e8m0"): (L2, [S.UNKNOWN], NONE), ("bfloat16", "float32"): (L2, [S.UNKNOWN], NONE),
    ("half", "float32"): (L2, [S.UNKNOWN], NONE),
    ("float32", "hifloat8"): (L4, SATS, [RM.CAST_ROUND, RM.CAST_HYBRID]),
    ("float32", "fp8_e4m3fn"): (L4, SATS, [RM.CAST_RINT]), ("float32", "fp8_e5m2"): (L4, SATS, [RM.CAST_RINT]),
    ("float32", "half"): (L2, SATS, [RM.CAST_ODD, *ROUNDS]), ("float32", "bfloat16"): (L2, SATS, ROUNDS),
    ("int4x2", "half"): (L4, [S.UNKNOWN], NONE), ("int4x2", "bfloat16"): (L4, [S.UNKNOWN], NONE),
    ("int8", "half"): (L2, [S.UNKNOWN], NONE), ("uint8", "half"): (L2, [S.UNKNOWN], NONE),
    ("int16", "half"): ([L.UNKNOWN], [S.UNKNOWN], ROUNDS), ("int16", "float32"): (L2, [S.UNKNOWN], NONE),
    ("int32", "float32"): ([L.UNKNOWN], [S.UNKNOWN], ROUNDS), ("int64", "float32"): (L2, [S.UNKNOWN], ROUNDS),
    ("int4x2", "int16"): (L4, [S.UNKNOWN], NONE), ("int8", "int16"): (L2, [S.UNKNOWN], NONE),
    ("int8", "int32"): (L4, [S.UNKNOWN], NONE), ("uint8", "uint16"): (L2, [S.UNKNOWN], NONE),
    ("uint8", "uint32"): (L4, [S.UNKNOWN], NONE), ("int16", "int4x2"): (L4, SATS, NONE),
    ("int16", "uint8"): (L2, SATS, NONE), ("int16", "int32"): (L2, [S.UNKNOWN], NONE),
    ("int16", "uint32"): (L2, [S.UNKNOWN], NONE), ("uint16", "uint8"): (L2, SATS, NONE),
    ("uint16", "uint32"): (L2, [S.UNKNOWN], NONE), ("int32", "uint8"): (L4, SATS, NONE),
    ("int32", "int16"): (L2, SATS, NONE), ("int32", "uint16"): (L2, SATS, NONE), ("int32", "int64"): (L2, [S.UNKNOWN], NONE),
    ("uint32", "uint8"): (L4, SATS, NONE), ("uint32", "int16"): (L2, SATS, NONE), ("uint32", "uint16"): (L2, SATS, NONE),
    ("int64", "int32"): (L2, SATS, NONE),
}  # fmt: skip
FOUR = ("int4x2", "fp4x2_e2m1", "fp4x2_e1m2")
INTS = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "int4x2"}


def dtype(name: str) -> Any:
    return getattr(rs, name)


def canon(dst: str, codes: Any) -> np.ndarray:
    """Codes with every NaN of a float destination as one value: the Cast page says NaN stays NaN,
    not which payload or sign it has."""
    out = np.asarray(codes, np.uint64).copy()
    if dst in ("half", "bfloat16", "float32", "fp8_e4m3fn", "fp8_e5m2"):
        size = O.ITEMSIZE[dst]
        vals = out.astype(f"u{size}").view(dtype(dst).np_dtype).astype(np.float64)
        out[np.isnan(vals)] = 1 << 63
    return out


def eff_sat(dst: str, sat: Any) -> bool:
    """The saturation a pair applies: the trait's where the pair has a satMode, else integer
    destinations saturate (the Cast page: int16 to uint32 only saturates) and floats do not."""
    return sat is S.SAT if sat is not S.UNKNOWN else dst in INTS


def combos(pair: tuple[str, str]) -> list[tuple[Any, Any]]:
    _, sats, rounds = TABLE[pair]
    return list(itertools.product(sats, rounds))


# --- every code of every source of at most 16 bits ----------------------------
SMALL = [p for p in TABLE if p[0] in FOUR or O.ITEMSIZE[p[0]] <= 2]
RNG = np.random.default_rng(11)


def _codes(src: str) -> np.ndarray:
    """Every code of the source: all 2**16 of a 16-bit one, all 256 / 16 of an 8- / 4-bit one."""
    bits = 4 if src in FOUR else 8 * O.ITEMSIZE[src]
    return np.arange(1 << bits, dtype=np.uint16)


def _lanes(src: str, codes: np.ndarray) -> np.ndarray:
    if src in FOUR:
        return codes.astype(np.uint8)
    return codes.astype(f"u{O.ITEMSIZE[src]}").view(dtype(src).np_dtype)


@pytest.mark.parametrize("pair", SMALL, ids="->".join)
def test_every_source_code(pair: tuple[str, str]) -> None:
    """Each code with every satMode and roundMode the pair accepts, against the oracle (the lane
    function Reg.Cast applies; the placement and mask are tested through Reg.Cast below)."""
    from regsim._src.ops.convert import convert

    src, dst = pair
    codes = _codes(src)
    for sat, rnd in combos(pair):
        saturate, round_mode = eff_sat(dst, sat), rnd.value
        want = [O.cast_value(src, dst, c, round_mode, saturate) for c in codes.tolist()]
        mode = RM.CAST_RINT if rnd is RM.UNKNOWN and dst not in INTS else rnd
        got = convert(_lanes(src, codes), dtype(src), dtype(dst), mode, saturate)
        got_bits = np.asarray(got).view(f"u{np.asarray(got).dtype.itemsize}").astype(np.uint64)
        O.assert_lanes(
            canon(dst, got_bits),
            canon(dst, want),
            what=f"Cast {src}->{dst} {sat.name} {rnd.name}",
            inputs={"src": codes.astype(np.uint64)},
            itemsize=8,
        )


# --- float32 and 32/64-bit integer sources near rounding boundaries (Hypothesis) ------------------------
WIDE = [p for p in TABLE if p[0] in ("float32", "int32", "uint32", "int64")]


def _near_boundaries() -> st.SearchStrategy[int]:
    """float32 bit patterns: anything, ties and neighbours of 16/8-bit grid points, overflow and underflow."""
    grid = st.integers(0, 0xFFFF).map(lambda h: (h << 16) | 0x8000)
    tie_or_next = st.tuples(grid, st.integers(-2, 2)).map(lambda t: (t[0] + t[1]) & 0xFFFFFFFF)
    special = st.sampled_from([0x7F800000, 0xFF800000, 0x7FC00000, 0x477FF000, 0x43E80000, 0x1, 0x4F000000, 0xDF000000])
    return st.one_of(st.integers(0, 0xFFFFFFFF), tie_or_next, special)


@pytest.mark.parametrize("pair", WIDE, ids="->".join)
@given(data=st.data())
def test_wide_sources(pair: tuple[str, str], data: Any) -> None:
    """float32, int32, uint32 and int64 sources, every satMode and roundMode the pair accepts."""
    from regsim._src.ops.convert import convert

    src, dst = pair
    size = O.ITEMSIZE[src]
    if src == "float32":
        codes = np.array(data.draw(st.lists(_near_boundaries(), min_size=8, max_size=8)), np.uint32)
    else:
        codes = np.array(data.draw(st.lists(st.integers(0, (1 << (8 * size)) - 1), min_size=8, max_size=8)), f"u{size}")
    for sat, rnd in combos(pair):
        want = [O.cast_value(src, dst, int(c), rnd.value, eff_sat(dst, sat)) for c in codes]
        mode = RM.CAST_RINT if rnd is RM.UNKNOWN and dst not in INTS else rnd
        got = np.asarray(convert(codes.view(dtype(src).np_dtype), dtype(src), dtype(dst), mode, eff_sat(dst, sat)))
        O.assert_lanes(
            canon(dst, got.view(f"u{got.dtype.itemsize}").astype(np.uint64)),
            canon(dst, want),
            what=f"Cast {src}->{dst} {sat.name} {rnd.name}",
            inputs={"src": codes.astype(np.uint64)},
            itemsize=8,
        )


# --- placement by RegLayout and the mask in the source's layout, through Reg.Cast ------------------------
def _dst_codes(dst: str, reg: Any) -> list[int]:
    raw = reg.numpy()
    if dst in FOUR:
        b = raw.view(np.uint8)
        return [int(v) for pair in zip(b & 0xF, b >> 4, strict=True) for v in pair]
    return O.bits_of(raw)


@pytest.mark.parametrize("pair", list(TABLE), ids="->".join)
def test_layouts_and_mask(pair: tuple[str, str]) -> None:
    """Every layout the pair accepts, a random mask and a dirty destination: elements land where
    the RegLayout page puts them, the mask is read in the source's layout, all else is 0."""
    src, dst = pair
    layouts, sats, rounds = TABLE[pair]
    n = 256 // O.ITEMSIZE[src]
    raw = RNG.integers(0, 256, 256, dtype=np.uint8)
    if src in ("half", "bfloat16", "float32"):
        raw = RNG.uniform(-300, 300, n).astype(dtype(src).np_dtype).view(np.uint8)
    active = RNG.random(n) < 0.7
    mask = Reg.MaskReg.from_lanes(dtype(src), active)
    codes = [int(v) for b in raw for v in (b & 0xF, b >> 4)] if src in FOUR else O.bits_of(raw.view(f"u{O.ITEMSIZE[src]}"))
    src_reg = Reg.RegTensor.from_numpy(raw.view(dtype(src).np_dtype), dtype=dtype(src))
    for layout in layouts:
        sat, rnd = sats[-1], rounds[0]
        out = Reg.RegTensor.from_numpy(np.full(256, 0xA5, np.uint8).view(dtype(dst).np_dtype), dtype=dtype(dst))

        @rs.simd_vf
        def vf(out: Any, trait: Any) -> None:
            Reg.Cast(out, src_reg, mask, trait=trait)

        vf(out, Reg.CastTrait(layout, sat, Z, rnd))
        want = O.cast_oracle(src, dst, codes, list(active), max(layout.value, 0), rnd.value, eff_sat(dst, sat))
        size = 1 if dst in FOUR else O.ITEMSIZE[dst]
        O.assert_lanes(
            np.array(_dst_codes(dst, out), np.uint64),
            np.array(want, np.uint64),
            what=f"Cast {src}->{dst} {layout.name}",
            itemsize=size,
        )


def test_b64_pairs_two_registers() -> None:
    """int32 → int64 fills a RegTraitNumTwo tensor element for element (mask in b32 lanes);
    int64 (RegTraitNumTwo) → int32 reads one the same way."""
    a = RNG.integers(-(2**31), 2**31, 64).astype(np.int32)
    act = RNG.random(64) < 0.7
    mask = Reg.MaskReg.from_lanes(rs.int32, act)
    src = Reg.RegTensor.from_numpy(a)
    two = Reg.RegTensor(rs.int64, Reg.RegTraitNumTwo)
    back = Reg.RegTensor(rs.int32)

    @rs.simd_vf
    def vf() -> None:
        Reg.Cast(two, src, mask, trait=Reg.CastTrait(L.ZERO, S.UNKNOWN, Z, RM.UNKNOWN))
        Reg.Cast(back, two, mask, trait=Reg.CastTrait(L.ZERO, S.SAT, Z))

    vf()
    want = [O.cast_value("int32", "int64", int(v) & 0xFFFFFFFF, 0xFF, True) if m else 0 for v, m in zip(a, act, strict=True)]
    O.assert_lanes(two.numpy(), np.array(want, np.uint64), what="int32->int64 RegTraitNumTwo", itemsize=8)
    O.assert_lanes(
        back.numpy(), [int(v) & 0xFFFFFFFF if m else 0 for v, m in zip(a, act, strict=True)], what="int64->int32", itemsize=4
    )


# --- trait values the pair does not accept ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("src", "dst", "trait", "error"),
    [
        (rs.float32, rs.half, Reg.CastTrait(L.TWO, S.SAT, Z, RM.CAST_RINT), ParameterError),
        (rs.float32, rs.half, Reg.CastTrait(L.ZERO, S.UNKNOWN, Z, RM.CAST_RINT), ParameterError),
        (rs.float32, rs.bfloat16, Reg.CastTrait(L.ZERO, S.SAT, Z, RM.CAST_NONE), ParameterError),
        (rs.float32, rs.fp8_e5m2, Reg.CastTrait(L.ZERO, S.SAT, Z, RM.CAST_ROUND), ParameterError),
        (rs.half, rs.float32, Reg.CastTrait(L.ZERO), ParameterError),  # mrgMode UNKNOWN
        (rs.half, rs.float32, Reg.CastTrait(L.ZERO, S.UNKNOWN, Reg.MaskMergeMode.MERGING), UnsupportedError),
        (rs.half, rs.int64, Reg.CastTrait(L.ZERO, S.SAT, Z, RM.CAST_RINT), DTypeError),
        (rs.float32, rs.hifloat8, Reg.CastTrait(L.ZERO, S.SAT, Z, RM.CAST_RINT), ParameterError),
    ],
)
def test_refused_traits(src: Any, dst: Any, trait: Any, error: type[Exception]) -> None:
    s = Reg.RegTensor(src)
    s.numpy()
    d = Reg.RegTensor.from_numpy(np.zeros(256 // dst.itemsize, dst.np_dtype), dtype=dst)
    before = d.numpy().tobytes()

    @rs.simd_vf
    def vf() -> None:
        Reg.Cast(
            d, Reg.RegTensor.from_numpy(np.zeros(256 // src.itemsize, src.np_dtype), dtype=src), Reg.CreateMask(src), trait=trait
        )

    with pytest.raises(error):
        vf()
    assert d.numpy().tobytes() == before


def test_cast_trait_is_a_struct() -> None:
    """Positional in C++ field order, keywords with the C++ names, C++ defaults; RoundMode values."""
    assert Reg.CastTrait(L.ZERO) == Reg.CastTrait(
        layoutMode=L.ZERO, satMode=S.UNKNOWN, mrgMode=Reg.MaskMergeMode.UNKNOWN, roundMode=RM.UNKNOWN
    )
    assert (RM.CAST_HYBRID.value, RM.CAST_EVEN.value, RM.CAST_ZERO.value, RM.UNKNOWN.value) == (7, 8, 9, 0xFF)
    m = Reg.DivSpecificMode(Z, True, Reg.DivAlgo.PRECISION_0ULP_FTZ_FALSE)
    assert (m.mrgMode, m.precisionMode, m.algo.value) == (Z, True, 4)
    assert Reg.SqrtSpecificMode().algo is Reg.SqrtAlgo.INTRINSIC and Reg.ExpSpecificMode().mrgMode is Z


def test_hif8_codes_round_trip() -> None:
    """All 256 HiFloat8 codes decode as the oracle reads the format, and every finite value
    encodes back to its code (float → hifloat8, CAST_ROUND, not saturating)."""
    from regsim._src.model import formats

    codes = np.arange(256, dtype=np.uint8)
    want = [O.hif8_value(int(c)) for c in codes]
    O.assert_lanes(formats.hif8_decode(codes), np.array(want), what="hifloat8 decode", nan_type=np.float64)
    finite = [c for c in range(256) if np.isfinite(want[c]) and c not in (0x80,)]
    vals = np.array([want[c] for c in finite], np.float32)
    back = formats.hif8_encode(vals.view(np.uint32), False, False, np.zeros(len(vals), np.int64), 14)
    O.assert_lanes(back, np.array([0 if c == 0x80 else c for c in finite], np.uint8), what="hifloat8 round trip")


# --- the CTRL register: CTRL[60] (global or per-instruction), CTRL[59], CTRL[48], CTRL[50] -------------
@contextlib.contextmanager
def ctrl_bits(**bits: int) -> Iterator[None]:
    """SetCtrlSpr each `b<k>=v` for the block (host side), restoring the old values after."""
    old = {k: rs.AscendC.GetCtrlSpr(start_bit=int(k[1:]), end_bit=int(k[1:])) for k in bits}
    try:
        for k, v in bits.items():
            rs.AscendC.SetCtrlSpr(v, start_bit=int(k[1:]), end_bit=int(k[1:]))
        yield
    finally:
        for k, v in old.items():
            rs.AscendC.SetCtrlSpr(v, start_bit=int(k[1:]), end_bit=int(k[1:]))


#: (src, dst, trait, source values that overflow, are ±inf or NaN): each saturation decision once
CTRL_CASES = [
    ("float32", "int16", (L.ZERO, RM.CAST_RINT), [40000.5, -1e9, np.inf, -np.inf, np.nan, 3.5, -2.5]),
    ("float32", "int32", (L.UNKNOWN, RM.CAST_TRUNC), [3e9, -3e9, 2.0**40 + 7 * 2.0**16, np.nan, np.inf, -7.9]),
    ("half", "uint8", (L.ONE, RM.CAST_FLOOR), [257.0, -3.0, 65504.0, -np.inf, np.nan, 12.7]),
    ("int32", "int16", (L.ZERO, RM.UNKNOWN), [70000, -70000, 32768, -32769, 5]),
    ("uint32", "uint8", (L.TWO, RM.UNKNOWN), [256, 2**32 - 1, 255, 1000]),
    ("float32", "half", (L.ZERO, RM.CAST_ROUND), [1e6, -1e6, np.inf, -np.inf, np.nan, 65519.0, 65520.0, 1.5]),
    ("float32", "bfloat16", (L.ONE, RM.CAST_RINT), [3.5e38, np.inf, -np.inf, np.nan, 1.0]),
    ("bfloat16", "half", (L.UNKNOWN, RM.CAST_CEIL), [1e5, -1e5, np.inf, np.nan, 0.1]),
    ("float32", "fp8_e5m2", (L.THREE, RM.CAST_RINT), [1e9, -1e9, np.inf, np.nan, -np.nan, 0.3]),
    ("float32", "fp8_e4m3fn", (L.ZERO, RM.CAST_RINT), [1000.0, -1e9, np.inf, np.nan, 0.3]),
    ("half", "hifloat8", (L.ONE, RM.CAST_HYBRID), [65504.0, -np.inf, np.inf, np.nan, 1.3]),
    ("float32", "hifloat8", (L.ZERO, RM.CAST_ROUND), [1e30, -np.inf, np.nan, 0.7]),
    ("int16", "uint32", (L.ONE, RM.UNKNOWN), [-5, -32768, 32767, 0]),  # no satMode: always saturating
    ("half", "int32", (L.ZERO, RM.CAST_CEIL), [np.inf, -np.inf, np.nan, 65504.0, -0.5]),  # no satMode
    ("half", "bfloat16", (L.UNKNOWN, RM.CAST_RINT), [np.inf, np.nan, 65504.0]),  # no satMode: keeps inf/NaN
]
CTRL_SETTINGS = [dict(zip(("b60", "b59", "b48", "b50"), v, strict=True)) for v in itertools.product((0, 1), repeat=4)]


def _source_codes(src: str, values: list[Any], n: int) -> np.ndarray:
    v = np.resize(np.array(values, np.float64 if src in ("float32", "half", "bfloat16") else np.int64), n)
    with np.errstate(over="ignore"):  # (beyond the source type's range: its infinities, as meant)
        return v.astype(dtype(src).np_dtype)


@pytest.mark.parametrize("case", CTRL_CASES, ids=lambda c: f"{c[0]}->{c[1]}")
def test_ctrl_chooses_the_saturation(case: Any) -> None:
    """Every combination of CTRL[60], [59], [48] and [50] (SetCtrlSpr before the VF), with the trait's
    SAT and NO_SAT: CTRL[60] = 0 follows the trait, CTRL[60] = 1 the global bits; pairs without a
    satMode keep their fixed behaviour (oracle: O.cast_saturation, O.cast_oracle)."""
    src, dst, (layout, rnd), values = case
    _, sats, _ = TABLE[(src, dst)]
    n = 256 // O.ITEMSIZE[src]
    x = _source_codes(src, values, n)
    codes = O.bits_of(x.view(f"u{O.ITEMSIZE[src]}"))
    active = [True] * n
    mask = Reg.MaskReg.from_lanes(dtype(src), np.ones(n, np.bool_))
    for bits, sat in itertools.product(CTRL_SETTINGS, sats):
        src_reg = Reg.RegTensor.from_numpy(x, dtype=dtype(src))
        out = Reg.RegTensor.from_numpy(np.full(256, 0x5A, np.uint8).view(dtype(dst).np_dtype), dtype=dtype(dst))

        @rs.simd_vf
        def vf(out: Any, src_reg: Any, trait: Any) -> None:
            Reg.Cast(out, src_reg, mask, trait=trait)

        with ctrl_bits(**bits):
            vf(out, src_reg, Reg.CastTrait(layout, sat, Z, rnd))
            ctrl = rs.AscendC.GetCtrlSpr(start_bit=0, end_bit=63) & (2**64 - 1)
        eff, keep_nan = O.cast_saturation(dst, sat is not S.UNKNOWN, sat is S.SAT, ctrl)
        want = O.cast_oracle(src, dst, codes, active, max(layout.value, 0), rnd.value, eff, keep_nan)
        O.assert_lanes(
            canon(dst, _dst_codes(dst, out)),
            canon(dst, want),
            what=f"Cast {src}->{dst} {sat.name} CTRL {bits}",
            itemsize=8,
        )


def test_launch_ctrl_saturates_integer_conversions_only() -> None:
    """At launch (CTRL[60] = 1, CTRL[59] = 0, CTRL[48] = 1) a NO_SAT float → int16 Cast saturates and a SAT
    float → half one keeps inf, whatever the trait says (the Cast page's table 5)."""
    x = Reg.RegTensor.from_numpy(np.resize(np.array([1e6, np.inf], np.float32), 64))
    to_i16, to_f16 = Reg.RegTensor(rs.int16), Reg.RegTensor(rs.half)
    mask = Reg.MaskReg.from_lanes(rs.float32, np.ones(64, np.bool_))

    @rs.simd_vf
    def vf() -> None:
        Reg.Cast(to_i16, x, mask, trait=Reg.CastTrait(L.ZERO, S.NO_SAT, Z, RM.CAST_RINT))
        Reg.Cast(to_f16, x, mask, trait=Reg.CastTrait(L.ZERO, S.SAT, Z, RM.CAST_RINT))

    vf()
    assert to_i16.numpy()[:4].tolist() == [32767, 0, 32767, 0]
    assert to_f16.numpy()[:4].tolist() == [np.inf, 0, np.inf, 0]
    with ctrl_bits(b60=0):
        vf()
    assert to_i16.numpy()[:4].tolist() == [1_000_000 % 65536, 0, 32767, 0]
    assert to_f16.numpy()[:4].tolist() == [65504.0, 0, 65504.0, 0]


# --- batched loops: the bits of the sequential run -----------------------------------------------------------
ITER = 3
LAUNCH = 0x1001000000000008  #: the CTRL value a VF starts with unless SetCtrlSpr changed it


def _batch_kernel(traits: list[Any], n_src: int, n_dst: int, src_trait: Any = None, dst_trait: Any = None) -> Any:
    src_trait, dst_trait = src_trait or Reg.RegTraitNumOne, dst_trait or Reg.RegTraitNumOne

    @rs.simd_vf
    def kernel(dst: Any, src: Any, masks: Any) -> None:
        s, d = Reg.RegTensor(src.dtype, src_trait), Reg.RegTensor(dst.dtype, dst_trait)
        m = Reg.MaskReg()
        everything = Reg.CreateMask(dst.dtype, trait=dst_trait)
        for k, trait in enumerate(traits):
            for i in range(ITER):
                Reg.LoadAlign(s, src + i * n_src)
                Reg.LoadAlign(m, masks + i * 32)
                Reg.Cast(d, s, m, trait=trait)
                Reg.StoreAlign(dst + k * ITER * n_dst + i * n_dst, d, everything)

    return kernel


@pytest.mark.parametrize(
    "pair", [("int32", "int64"), ("int64", "int32"), ("float32", "int64"), ("int64", "float32")], ids="->".join
)
def test_batched_loops_with_two_register_tensors(pair: tuple[str, str]) -> None:
    """The 64-bit side as a RegTraitNumTwo tensor (element for element, mask in b32 lanes): batched and
    sequential loops store the same bytes, and iteration 0 of the first trait is the oracle's."""
    from regsim._src.vf.loops import _explaining

    src, dst = pair
    layouts, sats, rounds = TABLE[pair]
    traits = [Reg.CastTrait(lay, sat, Z, rnd) for lay, sat, rnd in itertools.product(layouts[:1], sats, rounds)]
    two = Reg.RegTraitNumTwo
    n = 64  # elements per iteration on both sides
    rng = np.random.default_rng(9)
    x = rng.integers(-(2**62), 2**62, n * ITER) if src == "int64" else rng.integers(-(2**31), 2**31, n * ITER)
    x = x.astype(np.int64 if src == "int64" else np.int32)
    if src == "float32":
        x = (rng.standard_normal(n * ITER) * 1e12).astype(np.float32)
    masks = rng.integers(0, 256, 32 * ITER, dtype=np.uint8)
    results = {}
    for loops in ("sequential", "auto"):
        ub = rs.UnifiedBuffer()
        s_buf, m_buf = ub.alloc(dtype(src), x.size), ub.alloc(rs.uint8, masks.size)
        d_buf = ub.alloc(dtype(dst), n * ITER * len(traits))
        s_buf.set(x)
        m_buf.set(masks)
        kernel = _batch_kernel(traits, n, n, two if src == "int64" else None, two if dst == "int64" else None)
        with rs.configure(loops=loops), _explaining() as log:
            kernel(d_buf.GetPhyAddr(), s_buf.GetPhyAddr(), m_buf.GetPhyAddr())
        results[loops] = (d_buf.numpy(), {d.how for d in log})
    assert results["auto"][1] == {"batched"}, results["auto"][1]
    assert results["auto"][0].tobytes() == results["sequential"][0].tobytes()
    active = np.unpackbits(masks[:32], bitorder="little").astype(bool)[::4][:n]
    t = traits[0]
    sat, _ = O.cast_saturation(dst, t.satMode is not S.UNKNOWN, t.satMode is S.SAT, LAUNCH)
    codes = O.bits_of(x[:n].view(f"u{x.dtype.itemsize}"))
    want = [O.cast_value(src, dst, c, t.roundMode.value, sat) if a else 0 for c, a in zip(codes, active, strict=True)]
    O.assert_lanes(results["auto"][0][:n], want, what=f"Cast {src}->{dst} two registers batched", itemsize=O.ITEMSIZE[dst])


@pytest.mark.parametrize("settings", [{}, {"b60": 0, "b50": 1}], ids=["launch CTRL", "CTRL[60]=0, CTRL[50]=1"])
@pytest.mark.parametrize("pair", list(TABLE), ids="->".join)
def test_batched_loops_give_the_sequential_bits(pair: tuple[str, str], settings: dict[str, int]) -> None:
    """Every layout, satMode and roundMode the pair accepts (CAST_HYBRID included: its threshold comes
    from the source's own bits), a different mask and source per iteration: the loop runs batched and
    stores the bits of running it in order, which are the oracle's (O.cast_oracle) for iteration 0."""
    from regsim._src.vf.loops import _explaining

    src, dst = pair
    layouts, sats, rounds = TABLE[pair]
    traits = [Reg.CastTrait(lay, sat, Z, rnd) for lay, sat, rnd in itertools.product(layouts, sats, rounds)]
    rng = np.random.default_rng(5)
    raw = rng.integers(0, 256, 256 * ITER, dtype=np.uint8)
    n_src = 256 // O.ITEMSIZE[src] if src not in FOUR else 256
    n_dst = 256 // O.ITEMSIZE[dst] if dst not in FOUR else 256
    if src in ("half", "bfloat16", "float32"):
        vals = rng.uniform(-300, 300, raw.size // O.ITEMSIZE[src]).astype(dtype(src).np_dtype)
        pick = rng.random(vals.size) < 0.6
        raw = np.where(pick, vals, raw.view(dtype(src).np_dtype)).view(np.uint8)
    masks = rng.integers(0, 256, 32 * ITER, dtype=np.uint8)
    results = {}
    with ctrl_bits(**settings):
        for loops in ("sequential", "auto"):
            ub = rs.UnifiedBuffer()
            s_buf, m_buf = ub.alloc(rs.uint8, raw.size), ub.alloc(rs.uint8, masks.size)
            d_buf = ub.alloc(rs.uint8, 256 * ITER * len(traits))
            s_buf.set(raw)
            m_buf.set(masks)
            kernel = _batch_kernel(traits, n_src, n_dst)
            with rs.configure(loops=loops), _explaining() as log:
                kernel(d_buf.GetPhyAddr().reinterpret(dtype(dst)), s_buf.GetPhyAddr().reinterpret(dtype(src)), m_buf.GetPhyAddr())
            results[loops] = (d_buf.numpy().tobytes(), {d.how for d in log})
        ctrl = rs.AscendC.GetCtrlSpr(start_bit=0, end_bit=63) & (2**64 - 1)
    assert results["auto"][1] == {"batched"}, results["auto"][1]
    assert results["auto"][0] == results["sequential"][0]
    # iteration 0 of the first and last trait against the oracle
    out = np.frombuffer(results["auto"][0], np.uint8)
    bits = np.unpackbits(masks[:32], bitorder="little").astype(bool)
    stride = 1 if src in FOUR else O.ITEMSIZE[src]
    active = list(bits[::stride][: 256 // stride])
    codes = (
        [int(v) for b in raw[:256] for v in (b & 0xF, b >> 4)]
        if src in FOUR
        else O.bits_of(raw[:256].view(f"u{O.ITEMSIZE[src]}"))
    )
    for k in (0, len(traits) - 1):
        t = traits[k]
        sat, keep_nan = O.cast_saturation(dst, t.satMode is not S.UNKNOWN, t.satMode is S.SAT, ctrl)
        want = O.cast_oracle(src, dst, codes, active, max(t.layoutMode.value, 0), t.roundMode.value, sat, keep_nan)
        chunk = out[k * ITER * 256 : k * ITER * 256 + 256]
        got = [int(v) for b in chunk for v in (b & 0xF, b >> 4)] if dst in FOUR else O.bits_of(chunk.view(f"u{O.ITEMSIZE[dst]}"))
        O.assert_lanes(canon(dst, got), canon(dst, want), what=f"Cast {src}->{dst} {t} batched", itemsize=8)
