"""The memory-level Cast (regsim._src.lowerings.cast): every lowered pair x round mode x interface against the
independent oracle of regsim.testing.lowering_reference (numpy rounding by neighbour search, the addressing
model of the mask/repeat interfaces), every 16-bit source exhaustively (all 65,536 codes) and every 8-bit one,
Hypothesis over masks, repeats, strides and mask modes, constraint violations that raise and write nothing,
the in-order and default loop runs agreeing bit for bit, and the lowering explorer."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import bits, counter_mode, run_both

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
RM = A.RoundMode
R5 = [RM.CAST_RINT, RM.CAST_FLOOR, RM.CAST_CEIL, RM.CAST_ROUND, RM.CAST_TRUNC]
NONE = [RM.CAST_NONE]

#: the Ascend 950 table of the Cast page ("支持的roundMode"), the pairs regsim lowers, in the page's order;
#: float -> half also takes CAST_NONE, and the rounding pairs CAST_NONE as CAST_RINT (the 950 library's switch)
PAIRS: list[tuple[Any, Any, list[Any]]] = [
    (rs.int8, rs.int16, NONE),
    (rs.int8, rs.half, NONE),
    (rs.int8, rs.int32, NONE),
    (rs.uint8, rs.uint16, NONE),
    (rs.uint8, rs.half, NONE),
    (rs.uint8, rs.uint32, NONE),
    (rs.hifloat8, rs.half, NONE),
    (rs.hifloat8, rs.float32, NONE),
    (rs.fp8_e5m2, rs.float32, NONE),
    (rs.fp8_e4m3fn, rs.float32, NONE),
    (rs.int16, rs.uint8, NONE),
    (rs.int16, rs.half, [*R5, RM.CAST_NONE]),
    (rs.int16, rs.int32, NONE),
    (rs.int16, rs.uint32, NONE),
    (rs.int16, rs.float32, NONE),
    (rs.uint16, rs.uint8, NONE),
    (rs.uint16, rs.uint32, NONE),
    (rs.half, rs.int8, [*R5, RM.CAST_NONE]),
    (rs.half, rs.uint8, [*R5, RM.CAST_NONE]),
    (rs.half, rs.hifloat8, [RM.CAST_ROUND, RM.CAST_HYBRID]),
    (rs.half, rs.int16, R5),
    (rs.half, rs.bfloat16, R5),
    (rs.half, rs.int32, R5),
    (rs.half, rs.float32, NONE),
    (rs.bfloat16, rs.half, R5),
    (rs.bfloat16, rs.int32, R5),
    (rs.bfloat16, rs.float32, NONE),
    (rs.int32, rs.uint8, NONE),
    (rs.int32, rs.int16, NONE),
    (rs.int32, rs.uint16, NONE),
    (rs.int32, rs.half, [*R5, RM.CAST_ODD, RM.CAST_NONE, RM.CAST_HYBRID]),  # (with SetDeqScale; roundMode unused)
    (rs.int32, rs.float32, [*R5, RM.CAST_NONE]),
    (rs.int32, rs.int64, NONE),
    (rs.uint32, rs.uint8, NONE),
    (rs.uint32, rs.int16, NONE),
    (rs.uint32, rs.uint16, NONE),
    (rs.float32, rs.hifloat8, [RM.CAST_ROUND, RM.CAST_HYBRID]),
    (rs.float32, rs.fp8_e5m2, [RM.CAST_RINT]),
    (rs.float32, rs.fp8_e4m3fn, [RM.CAST_RINT]),
    (rs.float32, rs.int16, R5),
    (rs.float32, rs.half, [*R5, RM.CAST_ODD, RM.CAST_NONE]),
    (rs.float32, rs.bfloat16, R5),
    (rs.float32, rs.int32, R5),
    (rs.float32, rs.float32, R5),
    (rs.float32, rs.int64, R5),
    (rs.int64, rs.int32, NONE),
    (rs.int64, rs.float32, R5),
]
CASES = [(s, d, m) for s, d, modes in PAIRS for m in modes]
#: the page's complex pairs, the first-n interface only ("complex32/complex64/double数据类型仅支持tensor前n个数据计算接口")
COMPLEX = [
    (rs.complex32, rs.complex64, RM.CAST_NONE),
    *((rs.complex64, rs.complex32, m) for m in [*R5, RM.CAST_ODD, RM.CAST_NONE]),
    *((rs.complex64, rs.complex64, m) for m in R5),
]
#: the page's 4-bit pairs (int4b_t is rs.int4x2: a tensor element holds two 4-bit values), the first-n interface
FOUR_BIT = [
    (rs.int4x2, rs.int16, RM.CAST_NONE),
    (rs.int4x2, rs.half, RM.CAST_NONE),
    (rs.int4x2, rs.bfloat16, RM.CAST_NONE),
    (rs.fp4x2_e2m1, rs.bfloat16, RM.CAST_NONE),
    (rs.fp4x2_e1m2, rs.bfloat16, RM.CAST_NONE),
    (rs.int16, rs.int4x2, RM.CAST_NONE),
    *((rs.half, rs.int4x2, m) for m in [*R5, RM.CAST_NONE]),
    *((rs.bfloat16, rs.fp4x2_e2m1, m) for m in R5),
    *((rs.bfloat16, rs.fp4x2_e1m2, m) for m in R5),
]
FOUR = (rs.int4x2, rs.fp4x2_e2m1, rs.fp4x2_e1m2)


def case_id(s: Any, d: Any, m: Any) -> str:
    return f"{s.name}-{d.name}-{m.name}"


def source_values(dtype: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random source elements: any bits (floats: with zeros, infinities, NaN, halves and values near the
    integer types' ranges mixed in)."""
    npd = np.dtype(dtype.np_dtype)
    raw = rng.integers(0, 256, n * npd.itemsize, dtype=np.uint8).view(npd).copy()
    if npd.kind == "f" or dtype is rs.bfloat16:
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 1.5, 2.5, -2.5, 127.5, -128.5, 255.5, 32767.5,
                            -32768.5, 65504.0, 70000.0, 2.0**31, -(2.0**31) - 1e3, 3e38], np.float64)  # fmt: skip
        small = rng.uniform(-300, 300, n) * rng.choice([1, 1e-2, 1e2, 1e4], n)
        pick = rng.random(n)
        with np.errstate(over="ignore"):
            raw = np.where(pick < 0.4, small.astype(npd), raw)
            raw = np.where(pick > 0.95, special[rng.integers(0, special.size, n)].astype(npd), raw)
    return raw.astype(npd)


def make(src_t: Any, dst_t: Any, n_src: int, n_dst: int, seed: int) -> tuple[rs.UnifiedBuffer, Any, Any]:
    rng = np.random.default_rng(seed)
    ub = rs.UnifiedBuffer(-(-(n_src * src_t.itemsize + n_dst * dst_t.itemsize) // 256) * 256 + 1024)
    dst, src = ub.alloc(dst_t, n_dst), ub.alloc(src_t, n_src)
    ub.storage.write(dst.addr, rng.integers(0, 256, dst.nbytes, dtype=np.uint8))  # a dirty destination
    src.set(source_values(src_t, n_src, rng))
    A.SetDeqScale(DEQ_SCALE)  # (int32 -> half multiplies by it)
    return ub, dst, src


DEQ_SCALE = 0.01234  #: SetDeqScale's half scale in these tests (rounded to half by the call)
PART = {rs.complex32: (rs.half, np.float16), rs.complex64: (rs.float32, np.float32)}


def convert(src: np.ndarray, s: Any, d: Any, mode: Any) -> np.ndarray:
    if s in PART:  # complex: the real and imaginary parts converted alike
        (ps, ns), (pd, nd) = PART[s], PART[d]
        parts = MO.cast_elements(np.ascontiguousarray(src).view(ns), ps.name, pd.name, nd, mode.value)
        return parts.view(np.dtype(d.np_dtype))
    return MO.cast_elements(src, s.name, d.name, d.np_dtype, mode.value, DEQ_SCALE)


#: ml_dtypes float types numpy does not call kind "f"
FLOAT8 = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def assert_same(got: np.ndarray, want: np.ndarray, src: np.ndarray, what: str) -> None:
    g, w = bits(got).reshape(got.size, -1), bits(want).reshape(want.size, -1)
    differ = (g != w).any(axis=1)
    # NaN lanes: any NaN (payload and sign not pinned, decisions/cast.md#memory-cast-conversion)
    if got.dtype.kind == "f" or got.dtype.name in FLOAT8:
        with np.errstate(invalid="ignore"):
            differ &= ~(np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32)))
    bad = np.nonzero(differ)[0]
    if bad.size:
        i = int(bad[0])
        src_hex = bits(src[i : i + 1]).tobytes()[::-1].hex() if i < src.size else "-"
        raise AssertionError(
            f"{what}: {bad.size} elements differ, first at {i}: src 0x{src_hex}, "
            f"got 0x{g[i].tobytes()[::-1].hex()} want 0x{w[i].tobytes()[::-1].hex()}"
        )


# --- the first-n interface: every pair x round mode --------------------------------------------------------------
@pytest.mark.parametrize(("s", "d", "mode"), CASES, ids=[case_id(*c) for c in CASES])
def test_first_n_every_pair(s: Any, d: Any, mode: Any) -> None:
    lanes = 256 // max(s.itemsize, d.itemsize)
    n = 3 * lanes + 40
    for count in (0, 1, lanes - 1, n - 7):
        ub, dst, src = make(s, d, n, n, seed=count + 17 * mode.value)
        before, x = dst.numpy(), src.numpy()
        run_both(lambda: A.Cast(dst, src, mode, count), ub)  # noqa: B023
        want = before.copy()
        want[:count] = convert(x[:count], s, d, mode)
        assert_same(dst.numpy(), want, x, f"Cast {case_id(s, d, mode)} count={count}")


@pytest.mark.parametrize(("s", "d", "mode"), COMPLEX, ids=[case_id(*c) for c in COMPLEX])
def test_first_n_complex(s: Any, d: Any, mode: Any) -> None:
    for count in (0, 1, 63, 150):
        ub, dst, src = make(s, d, 160, 160, seed=count)
        rng = np.random.default_rng(count)
        parts = source_values(PART[s][0], 320, rng)
        src.set(parts.view(np.dtype(s.np_dtype)))
        before, x = dst.numpy(), src.numpy()
        run_both(lambda: A.Cast(dst, src, mode, count), ub)  # noqa: B023
        want = before.copy()
        want[:count] = convert(x[:count], s, d, mode)
        assert_same(dst.numpy(), want, x, f"Cast {case_id(s, d, mode)} count={count}")
    with pytest.raises(errors.DTypeError, match=r"^Cast: dst, src .*mask/repeat"):
        A.Cast(dst, src, mode, 32, 1, A.UnaryRepeatParams())


EXHAUSTIVE = [c for c in CASES if c[0].itemsize <= 2]


@pytest.mark.parametrize(("s", "d", "mode"), EXHAUSTIVE, ids=[case_id(*c) for c in EXHAUSTIVE])
def test_every_source_code(s: Any, d: Any, mode: Any) -> None:
    """All 65,536 codes of a 16-bit source (256 of an 8-bit one) through the first-n interface."""
    n = 1 << (8 * s.itemsize)
    _, dst, src = make(s, d, n, n, seed=1)
    src.set(np.arange(n, dtype=f"u{s.itemsize}").view(np.dtype(s.np_dtype)))
    A.Cast(dst, src, mode, n)
    x = src.numpy()
    assert_same(dst.numpy(), convert(x, s, d, mode), x, f"Cast {case_id(s, d, mode)} every code")


# --- the mask/repeat interfaces ------------------------------------------------------------------------------------
def touched(itemsize: int, repeats: int, blk: int, rep: int) -> int:
    return MO.touched_elements(itemsize, repeats, blk, rep)


def b64_counter(before: np.ndarray, conv: np.ndarray, src_size: int, count: int, strides: tuple[int, ...]) -> np.ndarray:
    """Counter mode for the b64 pairs as the library's VF runs it (docs/decisions/cast.md#memory-cast-repeat):
    ceil(count / 32) repeats; repeat r selects the b32 lanes k < 64 with 64 r + k < count; elements k < 32 are
    converted; b64 -> b32 also writes 0 to the b32 lanes 32-63 it selects (the DeInterleave's zero half)."""
    out = before.copy()
    dblk, sblk, drep, srep = strides
    ed, es = 32 // before.itemsize, 32 // src_size
    for r in range(-(-count // 32)):
        for k in range(64):
            if 64 * r + k >= count:
                continue
            at = r * drep * ed + (k // ed) * dblk * ed + k % ed
            if k < 32:
                out[at] = conv[r * srep * es + (k // es) * sblk * es + k % es]
            elif src_size == 8:
                out[at] = 0
    return out


def check_repeat(s: Any, d: Any, mode: Any, form: str, mask: Any, repeats: int, strides: tuple[int, ...], seed: int) -> None:
    lanes = 256 // max(s.itemsize, d.itemsize)
    dblk, sblk, drep, srep = strides
    reps = -(-mask // lanes) if form == "counter" else repeats
    n_dst = max(touched(d.itemsize, max(reps, 1), dblk, drep), 1)
    n_src = max(touched(s.itemsize, max(reps, 1), sblk, srep), 1)
    ub, dst, src = make(s, d, n_src, n_dst, seed)
    params = A.UnaryRepeatParams(*strides)
    before, x = dst.numpy(), src.numpy()
    conv = convert(x, s, d, mode)
    if form == "counter":
        with counter_mode():
            run_both(lambda: A.Cast(dst, src, mode, mask, repeats, params), ub)
        if lanes == 32:
            want = b64_counter(before, conv, s.itemsize, mask, strides)
        else:
            want = MO.cast_repeat(before, conv, s.itemsize, lambda r, k: r * lanes + k < mask, reps, strides)
    elif form == "placeholder":
        A.SetVectorMask(d if d.itemsize > s.itemsize else s, mask[1], mask[0])
        run_both(lambda: A.Cast(dst, src, mode, A.MASK_PLACEHOLDER, repeats, params, is_set_mask=False), ub)
        sel = MO.mask_elements(max(s.itemsize, d.itemsize), mask)
        want = MO.cast_repeat(before, conv, s.itemsize, lambda r, k: sel[k], repeats, strides)
    else:
        run_both(lambda: A.Cast(dst, src, mode, mask, repeats, params), ub)
        sel = MO.mask_elements(max(s.itemsize, d.itemsize), mask)
        want = MO.cast_repeat(before, conv, s.itemsize, lambda r, k: sel[k], repeats, strides)
    A.ResetMask()
    assert_same(dst.numpy(), want, x, f"Cast {case_id(s, d, mode)} {form} mask={mask} repeats={repeats} strides={strides}")


@pytest.mark.parametrize(("s", "d", "mode"), CASES, ids=[case_id(*c) for c in CASES])
def test_repeat_every_pair(s: Any, d: Any, mode: Any) -> None:
    """Contiguous repeats (the page's strides: the narrower operand's repeat stride is half, or a quarter)."""
    lanes = 256 // max(s.itemsize, d.itemsize)
    wide = max(s.itemsize, d.itemsize)
    strides = (1, 1, 8 * d.itemsize // wide, 8 * s.itemsize // wide)
    check_repeat(s, d, mode, "continuous", lanes, 3, strides, seed=mode.value)
    bit_mask = [0x5555_0000_FFFF_0F0F & ((1 << lanes) - 1), 0xF0F0_0000_1234_5678 if lanes > 64 else 0]
    check_repeat(s, d, mode, "bit", bit_mask, 2, strides, seed=3)
    check_repeat(s, d, mode, "counter", 2 * lanes + 5, 0, strides, seed=4)


def draw_strides(data: st.DataObject, src_blk_min: int) -> tuple[int, int, int, int]:
    """UnaryRepeatParams (dstBlk, srcBlk, dstRep, srcRep): block strides up to 3, repeat strides up to 12."""
    blk = (data.draw(st.integers(1, 3), "dstBlkStride"), data.draw(st.integers(src_blk_min, 3), "srcBlkStride"))
    return (*blk, data.draw(st.integers(0, 12), "dstRepStride"), data.draw(st.integers(0, 12), "srcRepStride"))


@settings(max_examples=max(10, settings.default.max_examples))
@given(data=st.data())
def test_repeat_hypothesis(data: st.DataObject) -> None:
    """Random pair, mode, mask form (continuous, bit, counter, MASK_PLACEHOLDER), repeats and strides."""
    s, d, mode = data.draw(st.sampled_from(CASES), "case")
    lanes = 256 // max(s.itemsize, d.itemsize)
    form = data.draw(st.sampled_from(["continuous", "bit", "counter", "placeholder"]), "form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    strides = draw_strides(data, src_blk_min=0)
    mask: Any
    if form == "continuous":
        mask = data.draw(st.integers(1, lanes), "mask")
    elif form == "counter":
        mask = data.draw(st.integers(0, 4 * lanes), "count")
    else:
        lo = data.draw(st.integers(1, 2**64 - 1 if lanes > 32 else 2**32 - 1), "mask[0]")
        mask = [lo, data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0]
    check_repeat(s, d, mode, form, mask, repeats, strides, seed=data.draw(st.integers(0, 99)))


# --- constraint violations raise and write nothing -----------------------------------------------------------------
def _violations() -> list[tuple[str, Any, type[Exception], str]]:
    """(description, call on (ub, float32 src, half dst), error class, parameter the message names)."""
    P = A.UnaryRepeatParams
    return [
        ("pair not listed", lambda ub, s, h: A.Cast(ub.alloc(rs.int8, 64), s, RM.CAST_RINT, 8), errors.DTypeError, "dst, src"),
        ("mode not listed", lambda ub, s, h: A.Cast(h, s, RM.CAST_HYBRID, 8), errors.ParameterError, "round_mode"),
        (
            "CAST_NONE float->int32",
            lambda ub, s, h: A.Cast(ub.alloc(rs.int32, 64), s, RM.CAST_NONE, 8),
            errors.ParameterError,
            "round_mode",
        ),
        ("mode not an enum", lambda ub, s, h: A.Cast(h, s, 1, 8), errors.ParameterError, "round_mode"),
        ("count > dst", lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, h.size + 1), errors.ParameterError, "count"),
        ("negative count", lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, -1), errors.ParameterError, "count"),
        ("mask 65 for float", lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, 65, 1, P(1, 1, 4, 8)), errors.ParameterError, "mask"),
        ("mask 0", lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, 0, 1, P(1, 1, 4, 8)), errors.ParameterError, "mask"),
        (
            "mask[1] for float",
            lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, [1, 1], 1, P(1, 1, 4, 8)),
            errors.ParameterError,
            "mask[1]",
        ),
        ("repeat 256", lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, 64, 256, P(1, 1, 4, 8)), errors.ParameterError, "repeat_time"),
        (
            "repeats past src",
            lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, 64, 40, P(1, 1, 4, 8)),
            errors.ParameterError,
            "repeat_time",
        ),
        (
            "params type",
            lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, 64, 1, A.BinaryRepeatParams()),
            errors.ParameterError,
            "repeat_params",
        ),
        (
            "is_set_mask on first-n",
            lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, 8, is_set_mask=False),
            errors.ParameterError,
            "is_set_mask",
        ),
        ("argument count", lambda ub, s, h: A.Cast(h, s, RM.CAST_RINT, 8, 1), errors.ParameterError, "arguments"),
        ("misaligned dst", lambda ub, s, h: A.Cast(h[3], s, RM.CAST_RINT, 8), errors.AlignmentError, "dst"),
        ("misaligned src", lambda ub, s, h: A.Cast(h, s[1], RM.CAST_RINT, 8), errors.AlignmentError, "src"),
        ("not a tensor", lambda ub, s, h: A.Cast(h, np.zeros(8), RM.CAST_RINT, 8), errors.ParameterError, "src"),
        (
            "other UB",
            lambda ub, s, h: A.Cast(h, rs.UnifiedBuffer(1024).alloc(rs.float32, 8), RM.CAST_RINT, 8),
            errors.ParameterError,
            "src",
        ),
    ]


@pytest.mark.parametrize(("what", "call", "error", "param"), _violations(), ids=[v[0] for v in _violations()])
def test_violations_raise_and_write_nothing(what: str, call: Any, error: type[Exception], param: str) -> None:
    ub, h, s = make(rs.float32, rs.half, 1024, 512, seed=5)
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        call(ub, s, h)
    text = str(info.value)
    assert text.startswith("Cast: ") and param in text and "accepted" in text, text
    assert np.array_equal(ub.storage.data[: before.size], before), f"{what}: the UB changed"


@pytest.mark.parametrize(("s", "d", "mode"), FOUR_BIT, ids=[case_id(*c) for c in FOUR_BIT])
def test_first_n_four_bit(s: Any, d: Any, mode: Any) -> None:
    """count is in 4-bit values (even); a 4-bit tensor of n elements holds 2n of them."""
    n = 600  # 4-bit values
    for count in (0, 2, 126, 598):
        ub, dst, src = make(s, d, n // 2 if s in FOUR else n, n // 2 if d in FOUR else n, seed=count + mode.value)
        if s is rs.bfloat16:  # values near the fp4 ranges
            rng = np.random.default_rng(count)
            src.set((rng.uniform(-8, 8, n) * rng.choice([1, 0.1, 10], n)).astype(np.dtype(s.np_dtype)))
        before, x = dst.numpy(), src.numpy()
        run_both(lambda: A.Cast(dst, src, mode, count), ub)  # noqa: B023
        want = before.copy()
        k_src, k_dst = (count // 2 if t in FOUR else count for t in (s, d))
        want[:k_dst] = convert(x[:k_src], s, d, mode)
        assert_same(dst.numpy(), want, x, f"Cast {case_id(s, d, mode)} count={count}")
    before = ub.storage.data.copy()
    with pytest.raises(errors.ParameterError, match=r"^Cast: count = 3; accepted: an even"):
        A.Cast(dst, src, mode, 3)
    with pytest.raises(errors.ParameterError, match=r"^Cast: mask = 63; accepted: an even"):
        A.Cast(dst, src, mode, 63, 1, A.UnaryRepeatParams())
    with pytest.raises(errors.ParameterError, match=r"^Cast: mask = \[2, 0\]; accepted: an even"):
        A.Cast(dst, src, mode, [2, 0], 1, A.UnaryRepeatParams())
    assert np.array_equal(ub.storage.data, before)


def nibbles(a: np.ndarray) -> np.ndarray:
    b = np.ascontiguousarray(a).view(np.uint8)
    return np.stack([b & 0xF, b >> 4], axis=-1).reshape(-1)


def check_repeat_four(s: Any, d: Any, mode: Any, form: str, mask: Any, repeats: int, strides: tuple[int, ...], seed: int) -> None:
    """The mask/repeat forms of a 4-bit pair: 128 values per repeat (the 2-byte side's register), a 4-bit
    DataBlock holding 64 values; compared value by value."""
    dblk, sblk, drep, srep = strides
    reps = -(-mask // 128) if form == "counter" else repeats
    n_src, n_dst = (touched(1 if t in FOUR else 2, max(reps, 1), b, r) for t, b, r in ((s, sblk, srep), (d, dblk, drep)))
    ub, dst, src = make(s, d, n_src, n_dst, seed)
    if s is rs.bfloat16:
        src.set((np.random.default_rng(seed).uniform(-8, 8, src.size)).astype(np.dtype(s.np_dtype)))
    params = A.UnaryRepeatParams(*strides)
    before, x = dst.numpy(), src.numpy()
    conv = convert(x, s, d, mode)
    if d in FOUR:
        conv = nibbles(conv)
    before_v = nibbles(before) if d in FOUR else before
    per_block = (64 if d in FOUR else 16, 64 if s in FOUR else 16, 128)
    if form == "counter":
        with counter_mode():
            run_both(lambda: A.Cast(dst, src, mode, mask, repeats, params), ub)
        sel = lambda r, k: r * 128 + k < mask  # noqa: E731
        reps = -(-mask // 128)
    else:
        run_both(lambda: A.Cast(dst, src, mode, mask, repeats, params), ub)
        chosen = MO.mask_elements(2, mask)
        sel = lambda r, k: chosen[k]  # noqa: E731
    A.ResetMask()
    want = MO.cast_repeat(before_v, conv, 1, sel, reps, strides, per_block)
    got = nibbles(dst.numpy()) if d in FOUR else dst.numpy()
    assert_same(got, want, x, f"Cast {case_id(s, d, mode)} {form} mask={mask} repeats={repeats} strides={strides}")


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(data=st.data())
def test_repeat_four_bit_hypothesis(data: st.DataObject) -> None:
    s, d, mode = data.draw(st.sampled_from(FOUR_BIT), "case")
    form = data.draw(st.sampled_from(["continuous", "bit", "counter"]), "form")
    strides = draw_strides(data, src_blk_min=1)
    mask: Any
    if form == "bit":
        pairs = [data.draw(st.integers(0, 2**32 - 1)) for _ in range(2)]
        lo, hi = (sum(((p >> j) & 1) * 3 << 2 * j for j in range(32)) for p in pairs)
        mask = [lo, hi] if lo or hi else [3, 0]
    else:
        mask = 2 * data.draw(st.integers(1, 64 if form == "continuous" else 192), "mask / 2")
    check_repeat_four(s, d, mode, form, mask, data.draw(st.integers(0, 3), "repeat_time"), strides, data.draw(st.integers(0, 99)))


def test_cast_is_host_side() -> None:
    _, h, s = make(rs.float32, rs.half, 64, 64, seed=2)
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^Cast"):
        A.Cast(h, s, RM.CAST_RINT, 8)


# --- the lowering explorer and the page's example ------------------------------------------------------------------
def test_lower_cast() -> None:
    _, dst, src = make(rs.half, rs.int32, 512, 512, seed=6)
    low = rs.lower(A.Cast, dst, src, RM.CAST_CEIL, 64, 8, A.UnaryRepeatParams(1, 1, 8, 4))  # the page's example
    assert low.counts() == {"UpdateMask": 1, "Pack/mask": 1, "LoadAlign/block": 8, "UnPack": 8, "Cast": 8, "StoreAlign/block": 8}
    _, dst2, src2 = make(rs.float32, rs.half, 300, 300, seed=6)
    low = rs.lower(A.Cast, dst2, src2, RM.CAST_RINT, 300)
    assert low.counts() == {"UpdateMask": 5, "LoadAlign": 5, "Cast": 5, "StoreAlign": 5}
    x = src.numpy()
    want = MO.cast_repeat(dst.numpy(), convert(x, rs.half, rs.int32, RM.CAST_CEIL), 2, lambda r, k: True, 0, (1, 1, 8, 4))
    assert want.shape == dst.numpy().shape


def test_lower_cli(python_m_regsim: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    out = python_m_regsim("lower", "Cast(float32, dst=half, round_mode=CAST_ODD, count=300)", check=True).stdout
    assert out.startswith("Cast(float32, dst=half") and "Cast" in out
    out = python_m_regsim(
        "lower", "Cast(half, dst=int32, round_mode=CAST_CEIL, mask=64, repeat_time=8, repeat_params=(1, 1, 8, 4))", check=True
    ).stdout
    assert "UnPack" in out
    bad = python_m_regsim("lower", "Cast(float32, dst=int8, count=8)")
    assert bad.returncode == 2 and "dst, src" in bad.stderr


def test_page_example_half_to_int32() -> None:
    """The page's mask-continuous example: 512 halves to int32 with CAST_CEIL, 64 per repeat, {1, 1, 8, 4}."""
    ub = rs.UnifiedBuffer(8192)
    src, dst = ub.alloc(rs.half, 512), ub.alloc(rs.int32, 512)
    x = (np.arange(512) / 7 - 30).astype(np.float16)
    src.set(x)
    A.Cast(dst, src, RM.CAST_CEIL, 64, 8, A.UnaryRepeatParams(1, 1, 8, 4))
    assert np.array_equal(dst.numpy(), np.ceil(x.astype(np.float64)).astype(np.int32))


def test_set_deq_scale() -> None:
    """SetDeqScale(half scale) is per core and 0 before any call; int32 -> half multiplies by it; the CastDeq
    overloads are refused; the scale must be a number."""
    ub = rs.UnifiedBuffer(2048)
    dst, src = ub.alloc(rs.half, 64), ub.alloc(rs.int32, 64)
    src.set(np.arange(-32, 32, dtype=np.int32) * 1000)
    A.Cast(dst, src, RM.CAST_NONE, 64)
    assert not np.any(dst.numpy()), "the scale starts at 0"
    A.SetDeqScale(0.5)
    A.Cast(dst, src, RM.CAST_NONE, 64)
    assert np.array_equal(dst.numpy(), (np.arange(-32, 32) * 500).astype(np.float16))
    assert np.array_equal(dst.numpy(), MO.cast_elements(src.numpy(), "int32", "half", np.float16, 0, 0.5))
    with pytest.raises(errors.UnsupportedError, match=r"^SetDeqScale: arguments .*CastDeq"):
        A.SetDeqScale(1.0, 0, False)
    with pytest.raises(errors.ParameterError, match=r"^SetDeqScale: scale .*accepted"):
        A.SetDeqScale("1")
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^SetDeqScale"):
        A.SetDeqScale(1.0)


def test_counter_mode_reaches_only_the_count() -> None:
    """Counter mode: tensors of exactly `count` elements are enough (the last repeat's tail is not read or
    written); one element less is refused, naming the mask."""
    ub = rs.UnifiedBuffer(4096)
    src, dst = ub.alloc(rs.float32, 70), ub.alloc(rs.half, 80)
    x = np.linspace(-5, 5, 70).astype(np.float32)
    src.set(x)
    before = dst.numpy()
    with counter_mode():
        A.Cast(dst, src, RM.CAST_RINT, 70, 1, A.UnaryRepeatParams(1, 1, 4, 8))
        want = before.copy()
        want[:70] = x.astype(np.float16)
        assert np.array_equal(dst.numpy(), want)
        snapshot = ub.storage.data.copy()
        with pytest.raises(errors.ParameterError, match=r"^Cast: mask = 71; accepted: .*src \(70 elements\)"):
            A.Cast(dst, src, RM.CAST_RINT, 71, 1, A.UnaryRepeatParams(1, 1, 4, 8))
        assert np.array_equal(ub.storage.data, snapshot)
