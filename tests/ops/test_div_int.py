"""Integer Div (the Div page's "数据类型": int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t with
DivAlgo::INTRINSIC and PRECISION_1ULP_FTZ_TRUE) against the oracle O.div_oracle (C truncating division;
MIN / -1 wraps to MIN; a division by zero gives all ones, as the 950 implementation's 64-bit Div):
every 16-bit dividend against boundary divisors, Hypothesis registers with special values, both
RegTraits of the 64-bit types, ZEROING on dirty destinations, refused algorithms changing nothing."""

from __future__ import annotations

import contextlib
from typing import Any

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
PER_CASE = settings(max_examples=max(5, settings.default.max_examples // 5))
INTS = {"int16": rs.int16, "uint16": rs.uint16, "int32": rs.int32, "uint32": rs.uint32, "int64": rs.int64, "uint64": rs.uint64}
MODES = {
    "ZEROING": Z,
    "INTRINSIC": Reg.DivSpecificMode(Z, False, Reg.DivAlgo.INTRINSIC),
    "PRECISION_1ULP_FTZ_TRUE": Reg.DivSpecificMode(Z, False, Reg.DivAlgo.PRECISION_1ULP_FTZ_TRUE),
}


def _specials(name: str) -> list[int]:
    info = np.iinfo(INTS[name].np_dtype)
    lo, hi = int(info.min), int(info.max)
    return [0, 1, 2, 3, 7, hi, hi - 1, lo, lo + 1, -1, -2, -3, -7] if lo else [0, 1, 2, 3, 7, hi, hi - 1, hi // 2, hi // 2 + 1]


def _want(name: str, a: Any, b: Any, active: Any) -> list[int]:
    return [O.div_oracle(name, int(x), int(y)) if m else 0 for x, y, m in zip(a, b, active, strict=True)]


@pytest.mark.parametrize("name", ["int16", "uint16"])
def test_every_16_bit_dividend(name: str) -> None:
    """All 65 536 dividends against each boundary divisor (0, ±1, MIN, MAX, ...) and a few others,
    through the lane function Reg.Div applies."""
    from regsim._src.ops.transcendental import div

    dtype = INTS[name].np_dtype
    a = np.arange(65536, dtype=np.uint16).view(dtype)
    for b in [*_specials(name), 10, 12345]:
        bb = np.full(a.shape, b).astype(dtype)
        got = div(a, bb)
        want = np.array([O.div_oracle(name, int(x), b) for x in a.tolist()], np.int64).astype(dtype)
        O.assert_lanes(got, want, what=f"Div {name} a / {b}", inputs={"a": a})


def _lanes(name: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """n values: a third boundary values, the rest arbitrary bit patterns of the type."""
    dtype = INTS[name].np_dtype
    specials = np.array(_specials(name), dtype=object).astype(dtype)
    noise = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).view(dtype)
    return np.where(rng.random(n) < 0.35, specials[rng.integers(0, len(specials), n)], noise)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", list(INTS))
@PER_CASE
@given(data=st.data())
def test_div_against_the_oracle(name: str, mode: str, data: Any) -> None:
    """Reg.Div on registers of special and arbitrary values, a noisy mask and a dirty destination."""
    dtype = INTS[name]
    n = 256 // dtype.itemsize
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    a, b = _lanes(name, rng, n), _lanes(name, rng, n)
    mask = data.draw(rst.masks(dtype, fill="noise"))
    active = mask.lanes(dtype)
    dst = Reg.RegTensor.from_numpy(np.full(256, 0xA5, np.uint8).view(dtype.np_dtype), dtype=dtype)
    with rs.VEC_SCOPE():
        Reg.Div(dst, Reg.RegTensor.from_numpy(a, dtype=dtype), Reg.RegTensor.from_numpy(b, dtype=dtype), mask, mode=MODES[mode])
    O.assert_lanes(dst.numpy(), _want(name, a, b, active), what=f"Div {name} {mode}", inputs={"a": a, "b": b})


@pytest.mark.parametrize("name", ["int64", "uint64"])
def test_64_bit_two_register_trait(name: str) -> None:
    """RegTraitNumTwo int64 / uint64: the same quotients, 64 lanes of two registers."""
    dtype = INTS[name]
    rng = np.random.default_rng(4)
    a, b = _lanes(name, rng, 64), _lanes(name, rng, 64)
    active = rng.random(64) < 0.8
    mask = Reg.MaskReg.from_lanes(dtype, active, trait=Reg.RegTraitNumTwo)
    dst = Reg.RegTensor(dtype, Reg.RegTraitNumTwo)
    with rs.VEC_SCOPE():
        Reg.Div(
            dst,
            Reg.RegTensor.from_numpy(a, dtype=dtype, trait=Reg.RegTraitNumTwo),
            Reg.RegTensor.from_numpy(b, dtype=dtype, trait=Reg.RegTraitNumTwo),
            mask,
        )
    O.assert_lanes(dst.numpy(), _want(name, a, b, active), what=f"Div {name} RegTraitNumTwo", inputs={"a": a, "b": b})


def test_the_boundary_quotients() -> None:
    """The cases C leaves undefined, as regsim gives them: MIN / -1 = MIN, x / 0 = all ones."""
    for name, a, b, want in [
        ("int16", -32768, -1, -32768),
        ("int32", -(2**31), -1, -(2**31)),
        ("int64", -(2**63), -1, -(2**63)),
        ("int32", 7, 0, -1),
        ("uint32", 7, 0, 2**32 - 1),
        ("uint16", 0, 0, 2**16 - 1),
        ("int16", -7, 2, -3),
        ("int16", 7, -2, -3),
    ]:
        assert O.div_oracle(name, a, b) == want
        dtype = INTS[name]
        n = 256 // dtype.itemsize
        dst = Reg.RegTensor(dtype)
        with rs.VEC_SCOPE():
            Reg.Div(
                dst,
                Reg.RegTensor.from_numpy(np.full(n, a, dtype.np_dtype), dtype=dtype),
                Reg.RegTensor.from_numpy(np.full(n, b, dtype.np_dtype), dtype=dtype),
                Reg.CreateMask(dtype),
            )
        assert int(dst.numpy()[0]) == want, (name, a, b)


@pytest.mark.parametrize(
    "algo", ["DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE", "PRECISION_0ULP_FTZ_FALSE", "PRECISION_1ULP_FTZ_FALSE"]
)
@pytest.mark.parametrize("name", ["int16", "uint32", "int64"])
def test_float_only_algorithms_are_refused(name: str, algo: str) -> None:
    dtype = INTS[name]
    dst = Reg.RegTensor.from_numpy(np.zeros(256 // dtype.itemsize, dtype.np_dtype), dtype=dtype)
    src = Reg.RegTensor.from_numpy(np.ones(256 // dtype.itemsize, dtype.np_dtype), dtype=dtype)
    with pytest.raises(UnsupportedError), rs.VEC_SCOPE():
        Reg.Div(dst, src, src, Reg.CreateMask(dtype), mode=Reg.DivSpecificMode(Z, False, Reg.DivAlgo[algo]))
    assert not dst.numpy().any()


# --- complex32 / complex64: the library's ComplexDivKernel ---------------------------------------------------
COMPLEX = {"complex32": (rs.complex32, np.float16, "half"), "complex64": (rs.complex64, np.float32, "float32")}
CMODES = {
    "complex32": ["ZEROING", "INTRINSIC", "PRECISION_1ULP_FTZ_TRUE"],
    "complex64": ["ZEROING", "INTRINSIC", "PRECISION_1ULP_FTZ_TRUE", "DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE"],
}
COMPONENT_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, 0.5, 3.0, 1e-40, 6e-8, 65504.0, -1e30, 1e30, 7.25]


def _cmode(algo: str) -> Any:
    if algo == "ZEROING":
        return Z
    return Reg.DivSpecificMode(Z, algo in ("DIFF_COMPENSATION", "PRECISION_0ULP_FTZ_TRUE"), Reg.DivAlgo[algo])


def _components(comp: Any, rng: np.random.Generator, n: int) -> np.ndarray:
    """2n component values: specials, small integers (exact quotients, ties of |c| and |d|) and normals."""
    with np.errstate(over="ignore"):  # (beyond half's range: its infinities, as meant)
        specials = np.array(COMPONENT_SPECIALS).astype(comp)
    pick = rng.random(2 * n)
    return np.where(
        pick < 0.3,
        specials[rng.integers(0, len(specials), 2 * n)],
        np.where(pick < 0.5, rng.integers(-4, 5, 2 * n).astype(comp), rng.standard_normal(2 * n).astype(comp) * comp(8)),
    ).astype(comp)


@pytest.mark.parametrize("half_sat", [False, True], ids=["INF/NAN mode", "CTRL[48]=0 saturation"])
@pytest.mark.parametrize("two", [False, True], ids=["RegTraitNumOne", "RegTraitNumTwo"])
@pytest.mark.parametrize(("name", "algo"), [(n, a) for n, algos in CMODES.items() for a in algos])
@PER_CASE
@given(data=st.data())
def test_complex_div_against_the_oracle(name: str, algo: str, two: bool, half_sat: bool, data: Any) -> None:
    """Reg.Div on complex registers (specials, small integers, normals in each component), a noisy mask
    and a dirty destination, against O.complex_div_oracle step by step (NaNs compared as NaN)."""
    dtype, comp, _ = COMPLEX[name]
    trait = Reg.RegTraitNumTwo if two else Reg.RegTraitNumOne
    n = O.lanes_of(name, two)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    a, b = _components(comp, rng, n), _components(comp, rng, n)
    mask = data.draw(rst.masks(dtype, trait, fill="noise"))
    active = mask.lanes(dtype, trait)
    dst_dirty = np.full(2 * n, 7, comp).view(dtype.np_dtype)
    dst = Reg.RegTensor.from_numpy(dst_dirty, dtype=dtype, trait=trait)
    ctx = contextlib.ExitStack()
    if half_sat:
        rs.AscendC.SetCtrlSpr(0, start_bit=48, end_bit=48)
        ctx.callback(rs.AscendC.SetCtrlSpr, 1, start_bit=48, end_bit=48)
    with ctx:
        with rs.VEC_SCOPE():
            Reg.Div(
                dst,
                Reg.RegTensor.from_numpy(a.view(dtype.np_dtype), dtype=dtype, trait=trait),
                Reg.RegTensor.from_numpy(b.view(dtype.np_dtype), dtype=dtype, trait=trait),
                mask,
                mode=_cmode(algo),
            )
    want = []
    for i in range(n):
        if active[i]:
            za, zb = complex(float(a[2 * i]), float(a[2 * i + 1])), complex(float(b[2 * i]), float(b[2 * i + 1]))
            want.extend(O.complex_div_oracle(name, za, zb, "INTRINSIC" if algo == "ZEROING" else algo, half_sat))
        else:
            want.extend([comp(0), comp(0)])
    O.assert_lanes(
        dst.numpy().view(comp),
        np.array(want, comp),
        what=f"Div {name} {algo} {'two' if two else 'one'} half_sat={half_sat}",
        inputs={"a": a, "b": b},
        nan_type=comp,
    )


def test_complex_div_examples() -> None:
    """Worked values: (1 + 2i) / (3 + 4i) = 0.44 + 0.08i; x / 0 per component; the |c| < |d| branch."""
    for name, a, b, want in [
        ("complex64", 1 + 2j, 3 + 4j, (np.float32(11 / 25), np.float32(2 / 25))),
        ("complex64", 4 + 2j, 0j, (np.float32(np.inf), np.float32(np.inf))),
        ("complex64", 1 + 0j, 2j, (np.float32(0.0), np.float32(-0.5))),
        ("complex32", 6 + 8j, 1 + 1j, (np.float16(7.0), np.float16(1.0))),
    ]:
        got = O.complex_div_oracle(name, a, b)
        assert got == want, (name, a, b, got)
        dtype, comp, _ = COMPLEX[name]
        n = O.lanes_of(name)
        z = np.empty(2 * n, comp)
        z[0::2], z[1::2] = a.real, a.imag
        w = np.empty(2 * n, comp)
        w[0::2], w[1::2] = b.real, b.imag
        dst = Reg.RegTensor(dtype)
        with rs.VEC_SCOPE():
            Reg.Div(
                dst,
                Reg.RegTensor.from_numpy(z.view(dtype.np_dtype), dtype=dtype),
                Reg.RegTensor.from_numpy(w.view(dtype.np_dtype), dtype=dtype),
                Reg.CreateMask(dtype),
            )
        assert tuple(dst.numpy().view(comp)[:2]) == want, (name, a, b)


@pytest.mark.parametrize(
    ("name", "algo"),
    [
        ("complex32", "PRECISION_1ULP_FTZ_FALSE"),
        ("complex32", "DIFF_COMPENSATION"),
        ("complex32", "PRECISION_0ULP_FTZ_TRUE"),
        ("complex32", "PRECISION_0ULP_FTZ_FALSE"),
        ("complex64", "PRECISION_1ULP_FTZ_FALSE"),
        ("complex64", "PRECISION_0ULP_FTZ_FALSE"),
    ],
)
def test_complex_algorithms_not_listed_are_refused(name: str, algo: str) -> None:
    dtype, comp, _ = COMPLEX[name]
    n = O.lanes_of(name)
    dst = Reg.RegTensor.from_numpy(np.zeros(2 * n, comp).view(dtype.np_dtype), dtype=dtype)
    src = Reg.RegTensor.from_numpy(np.ones(2 * n, comp).view(dtype.np_dtype), dtype=dtype)
    with pytest.raises(UnsupportedError), rs.VEC_SCOPE():
        Reg.Div(dst, src, src, Reg.CreateMask(dtype), mode=Reg.DivSpecificMode(Z, False, Reg.DivAlgo[algo]))
    assert not dst.numpy().view(comp).any()


@pytest.mark.parametrize("name", ["int32", "uint16", "int64", "complex32", "complex64"])
def test_batched_loop_gives_the_sequential_bits(name: str) -> None:
    """A loop of Div over UB rows runs batched (the lane functions take a leading iteration axis) and
    stores the bytes of running it in order; row 0 is the oracle's."""
    from regsim._src.vf.loops import _explaining

    dtype = INTS.get(name) or COMPLEX[name][0]
    n = 256 // dtype.itemsize
    rng = np.random.default_rng(2)
    if name in COMPLEX:
        comp = COMPLEX[name][1]
        a, b = (_components(comp, rng, 4 * n).view(dtype.np_dtype) for _ in "ab")
    else:
        a, b = _lanes(name, rng, 4 * n), _lanes(name, rng, 4 * n)

    @rs.simd_vf
    def kernel(dst: Any, x: Any, y: Any) -> None:
        rx, ry, rz = Reg.RegTensor(dtype), Reg.RegTensor(dtype), Reg.RegTensor(dtype)
        mask = Reg.CreateMask(dtype)
        for i in range(4):
            Reg.LoadAlign(rx, x + i * n)
            Reg.LoadAlign(ry, y + i * n)
            Reg.Div(rz, rx, ry, mask)
            Reg.StoreAlign(dst + i * n, rz, mask)

    results = {}
    for loops in ("sequential", "auto"):
        ub = rs.UnifiedBuffer()
        x, y, z = ub.alloc(dtype, 4 * n), ub.alloc(dtype, 4 * n), ub.alloc(dtype, 4 * n)
        x.set(a)
        y.set(b)
        with rs.configure(loops=loops), _explaining() as log:
            kernel(z.GetPhyAddr(), x.GetPhyAddr(), y.GetPhyAddr())
        results[loops] = (z.numpy(), [d.how for d in log])
    assert results["auto"][1] == ["batched"]
    got = results["auto"][0]
    assert got.tobytes() == results["sequential"][0].tobytes()
    if name in COMPLEX:
        comp = COMPLEX[name][1]
        want = [c for i in range(n) for c in O.complex_div_oracle(name, complex(a[i]), complex(b[i]))]
        O.assert_lanes(got[:n].view(comp), np.array(want, comp), what=f"Div {name} batched", nan_type=comp)
    else:
        O.assert_lanes(got[:n], _want(name, a[:n], b[:n], [True] * n), what=f"Div {name} batched")
