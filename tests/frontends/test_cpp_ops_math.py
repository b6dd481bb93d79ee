"""Operators of ops-math (the 950 `op_kernel/arch35` kernels) run whole from their unmodified files, GM to GM, against
numpy references of what each operator means, in both loop modes with identical bits. Skipped without the library's
sources (REGSIM_OPS_MATH=/path/to/ops-math) or libclang.

Each operator's kernel entry is a function template (`template <typename D_T, int BUFFER_MODE> __global__ void
asin_grad(...)`, instantiated by the operator build per tiling key); a small driver file includes the operator's
entry file unchanged and defines one `__global__` entry per instantiation that calls it, as the build's instantiation
does; an entry that is no template (its element type the build's `-DDTYPE_X=...` alone) is loaded itself, once per
element type. The tiling struct is filled as the operator's host tiling code fills it. Float references are float32
steps, each rounded once, as the kernels compute them (their float32 Sqrt and Div correctly rounded, so bit for bit),
then rounded to the output type; the special functions (their kernels' polynomial and rational approximations) are
checked within an ulp bound of float64 values computed independently (numpy's functions, a power series, Gauss-Legendre
quadrature), each bound stated with its reason."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import regsim as rs
from tests.cpp_kernel_support import both_modes, round_half_away

pytest.importorskip("clang.cindex")

ROOT = os.environ.get("REGSIM_OPS_MATH")
#: the C++ element type of each dtype the drivers instantiate
CTYPES = {
    **{rs.float32: "float", rs.half: "half", rs.bfloat16: "bfloat16_t"},
    **{rs.int32: "int32_t", rs.int16: "int16_t", rs.uint16: "uint16_t", rs.int8: "int8_t", rs.uint8: "uint8_t"},
}
FLOATS = [rs.float32, rs.half, rs.bfloat16]
Loader = Callable[..., Any]


def _entry_file(op: str) -> Path:
    """An operator's kernel entry file (the 950 build's `*_apt.cpp` where there is one)."""
    assert ROOT is not None
    return min(Path(ROOT, op, "op_kernel").glob("*.cpp"), key=lambda p: (not p.name.endswith("_apt.cpp"), p.name))


def _driver(op: str, dtypes: list[Any], values: dict[str, int]) -> tuple[str, dict[Any, str]]:
    """The driver of an operator: its entry file included, one `__global__` entry per (dtype, template values)."""
    entry = _entry_file(op)
    text = entry.read_text()
    m = re.search(r"template\s*<([^>]*)>\s*__global__\s+__aicore__\s+void\s+(\w+)\s*\(([^)]*)\)", text)
    assert m is not None, f"{entry}: no templated __global__ entry"
    tparams = [p.split() for p in m[1].split(",")]
    params = " ".join(m[3].split())
    names = ", ".join(p.split()[-1] for p in m[3].split(","))
    lines, entries = [f'#include "{entry}"'], {}
    for dtype in dtypes:
        targs = [CTYPES[dtype] if kind in ("typename", "class") else str(values.get(name, 0)) for kind, name in tparams]
        name = f"run_{dtype.name}"
        lines.append(f'extern "C" __global__ __aicore__ void {name}({params}) {{ {m[2]}<{", ".join(targs)}>({names}); }}')
        entries[dtype] = name
    return "\n".join(lines) + "\n", entries


def _plain_entry(op: str) -> tuple[Path, str] | None:
    """An operator's entry file and its `__global__` function when that is no template (its element type the build's
    `-DDTYPE_X=...` alone), else None."""
    entry = _entry_file(op)
    text = entry.read_text()
    if re.search(r"template\s*<[^>]*>\s*__global__", text):
        return None
    m = re.search(r"__global__\s+__aicore__\s+void\s+(\w+)\s*\(", text)
    return (entry, m[1]) if m is not None else None


@pytest.fixture(scope="module")
def load(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Loader]:
    """An operator's driver (loaded once per module): (module, entry) by dtype. `macro`: the element type is the
    build's `-D<macro>=<type>` (the entry's template parameters are not types, or it has none: then the entry file is
    loaded itself): one module per dtype."""
    if ROOT is None or not Path(ROOT, "math").is_dir():
        pytest.skip("the operator library's sources are absent (REGSIM_OPS_MATH)")
    cache: dict[Any, dict[Any, tuple[Any, str]]] = {}
    tmp = tmp_path_factory.mktemp("ops_math")

    def get(op: str, dtypes: list[Any], macro: str = "", **values: int) -> dict[Any, tuple[Any, str]]:
        key = (op, tuple(dtypes), macro, tuple(sorted(values.items())))
        plain = _plain_entry(op) if macro else None
        if key not in cache and plain is not None:  # (an entry that is no template: the file itself, per macro value)
            cache[key] = {d: (rs.cpp.load(plain[0], defines={macro: d}), plain[1]) for d in dtypes}
        if key not in cache:
            source, entries = _driver(op, dtypes[:1] if macro else dtypes, values)
            path = tmp / f"{op.replace('/', '_')}_{len(cache)}.cpp"
            path.write_text(source)
            if macro:  # (its one entry runs the element type its module was built for)
                entry = next(iter(entries.values()))
                cache[key] = {d: (rs.cpp.load(path, args=(f"-D{macro}={CTYPES[d]}",)), entry) for d in dtypes}
            else:
                mod = rs.cpp.load(path)
                cache[key] = {d: (mod, entries[d]) for d in dtypes}
        return cache[key]

    yield get


def _tiling(mod: Any, struct: str, **fields: Any) -> np.ndarray:
    t = np.zeros(1, mod.struct_dtype(struct))
    for k, v in fields.items():
        t[k] = v
    return t.view(np.uint8)


def _run(mod: Any, entry: str, blocks: int, inputs: list[np.ndarray], outputs: list[np.ndarray], tiling: np.ndarray) -> Any:
    """The kernel on `blocks` cores (inputs, outputs, workspace, tiling), in order and batched: identical bits."""

    def run() -> list[np.ndarray]:
        outs = [o.copy() for o in outputs]
        rs.launch(mod.kernel(entry), blocks, *inputs, *outs, np.zeros(64, np.uint8), tiling)
        return outs

    return both_modes(run)


def _as(dtype: Any, x: Any) -> np.ndarray:
    return np.asarray(x, dtype=dtype.np_dtype)


def _f32(x: Any) -> np.ndarray:
    """float64 values rounded once to float32 (one kernel step)."""
    return np.asarray(x, np.float64).astype(np.float32)


def _out(dtype: Any, x32: np.ndarray) -> np.ndarray:
    """A float32 result rounded once to the output type, to nearest even (Cast CAST_RINT)."""
    return x32.astype(dtype.np_dtype)


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit; else the first lane that differs, both values and how many lanes differ."""
    if got.tobytes() != want.tobytes():
        bits = f"u{got.itemsize}"
        diff = np.flatnonzero(got.view(bits) != want.view(bits))
        raise AssertionError(f"lane {diff[0]}: got {got[diff[0]]!r}, want {want[diff[0]]!r} ({len(diff)} lanes differ)")


# --- the tilings of the elementwise kernels -------------------------------------------------------------------------------
def _factors(n: int, blocks: int, align: int) -> tuple[int, int]:
    """(elements per block, blocks used): ceil(n / blocks) rounded up to `align`."""
    per_block = -(-n // blocks)
    former = -(-per_block // align) * align
    return former, -(-n // former)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_acos_grad(load: Loader, dtype: Any) -> None:
    """AcosGrad: z = -dy / sqrt(1 - y^2)."""
    mod, entry = load("math/acos_grad", FLOATS)[dtype]
    n = 1500
    former, blocks = _factors(n, 2, 512)
    ub, tail = 512, n - former
    tiling = _tiling(
        mod,
        "AcosGradTilingData",
        totalLength=n,
        blockFormer=former,
        blockNum=blocks,
        ubFormer=ub,
        ubLoopOfFormerBlock=former // ub,
        ubTailOfFormerBlock=former % ub,
        ubLoopOfTailBlock=tail // ub,
        ubTailOfTailBlock=tail % ub,
    )
    rng = np.random.default_rng(1)
    y, dy = _as(dtype, rng.uniform(-0.95, 0.95, n)), _as(dtype, rng.standard_normal(n))
    (z,) = _run(mod, entry, blocks, [y, dy], [np.zeros(n, dtype.np_dtype)], tiling)
    y32, dy32 = y.astype(np.float32), dy.astype(np.float32)
    root = np.sqrt(_f32(1 - _f32(y32.astype(np.float64) ** 2).astype(np.float64)))
    _same(z, _out(dtype, _f32(-dy32.astype(np.float64) / root.astype(np.float64))))


def _block_ub(mod: Any, struct: str, n: int, blocks: int, ub: int) -> tuple[np.ndarray, int]:
    """The (totalNum, blockFactor, ubFactor) tiling: a block's elements (a multiple of 512), taken `ub` at a time."""
    former, used = _factors(n, blocks, 512)
    return _tiling(mod, struct, totalNum=n, blockFactor=former, ubFactor=ub), used


def _inputs(dtype: Any, seed: int, *ranges: tuple[float, float], n: int = 1500) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [_as(dtype, rng.uniform(lo, hi, n)) for lo, hi in ranges]


def _wide(*xs: np.ndarray) -> list[np.ndarray]:
    """Inputs as the kernels widen them: exactly, to float32, then float64 for the reference's steps."""
    return [x.astype(np.float32).astype(np.float64) for x in xs]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_asin_grad(load: Loader, dtype: Any) -> None:
    """AsinGrad: z = dy / sqrt(1 - y^2)."""
    mod, entry = load("math/asin_grad", FLOATS)[dtype]
    y, dy = _inputs(dtype, 2, (-0.95, 0.95), (-3, 3))
    tiling, blocks = _block_ub(mod, "AsinGradTilingData", len(y), 2, 256)
    (z,) = _run(mod, entry, blocks, [y, dy], [np.zeros_like(y)], tiling)
    y64, dy64 = _wide(y, dy)
    root = np.sqrt(_f32(1 - _f32(y64 * y64).astype(np.float64)).astype(np.float64))
    _same(z, _out(dtype, _f32(dy64 / _f32(root))))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_asinh_grad(load: Loader, dtype: Any) -> None:
    """AsinhGrad: z = dy / cosh(y) = 2 dy e^y / (e^2y + 1), in the kernel's float32 steps (e^y rounded once)."""
    mod, entry = load("math/asinh_grad", FLOATS)[dtype]
    y, dy = _inputs(dtype, 3, (-4, 4), (-3, 3))
    tiling, blocks = _block_ub(mod, "AsinhGradTilingData", len(y), 2, 512)
    (z,) = _run(mod, entry, blocks, [y, dy], [np.zeros_like(y)], tiling)
    y64, dy64 = _wide(y, dy)
    e = _f32(np.exp(y64)).astype(np.float64)
    den = _f32(_f32(e * e).astype(np.float64) + 1).astype(np.float64)
    _same(z, _out(dtype, _f32(2 * _f32(_f32(dy64 * e).astype(np.float64) / den).astype(np.float64))))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("buffers", [0, 1])
def test_atan_grad(load: Loader, dtype: Any, buffers: int) -> None:
    """AtanGrad: z = dy / (1 + y^2), single and double buffered (float32 gives the buffers it does not use
    `InitBuffer(buf, 0)`)."""
    mod, entry = load("math/atan_grad", FLOATS, macro="DTYPE_Y", BUFFER_MODE=buffers)[dtype]
    y, dy = _inputs(dtype, 4, (-5, 5), (-3, 3))
    tiling, blocks = _block_ub(mod, "AtanGradTilingData", len(y), 2, 256)
    (z,) = _run(mod, entry, blocks, [y, dy], [np.zeros_like(y)], tiling)
    y64, dy64 = _wide(y, dy)
    _same(z, _out(dtype, _f32(dy64 / _f32(_f32(y64 * y64).astype(np.float64) + 1).astype(np.float64))))


def _ulps(got: np.ndarray, want: np.ndarray, bound: float) -> None:
    """Within `bound` units in the last place of the output type of `want` (float64 values)."""
    ref = want.astype(got.dtype)
    bits = f"u{got.itemsize}"
    ulp = np.abs((ref.view(bits) + 1).view(got.dtype).astype(np.float64) - ref.astype(np.float64))
    err = np.abs(got.astype(np.float64) - want) / ulp
    i = int(err.argmax())
    assert err[i] <= bound, f"lane {i}: got {got[i]!r}, want {want[i]!r} ({err[i]:.2f} ulp; bound {bound})"


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_acosh_grad(load: Loader, dtype: Any) -> None:
    """AcoshGrad: z = dy / sqrt(y^2 - 1) (half and bfloat16 rounded ties away from zero: CAST_ROUND)."""
    mod, entry = load("math/acosh_grad", FLOATS, macro="DTYPE_Y")[dtype]
    y, dy = _inputs(dtype, 5, (1.05, 6), (-3, 3))
    tiling, blocks = _block_ub(mod, "AcoshGradTilingData", len(y), 2, 256)
    (z,) = _run(mod, entry, blocks, [y, dy], [np.zeros_like(y)], tiling)
    y64, dy64 = _wide(y, dy)
    z32 = _f32(dy64 / np.sqrt(_f32(_f32(y64 * y64).astype(np.float64) - 1).astype(np.float64)).astype(np.float32))
    _same(z, z32 if dtype is rs.float32 else round_half_away(z32, dtype))


@pytest.mark.parametrize("dtype", [*FLOATS, rs.int32], ids=lambda d: d.name)
def test_inv_grad(load: Loader, dtype: Any) -> None:
    """InvGrad: y = -grad * x^2 (int32 wrapping; half and bfloat16 via float32, rounded ties away from zero)."""
    mod, entry = load("math/inv_grad", [*FLOATS, rs.int32])[dtype]
    n = 1500
    former, blocks = _factors(n, 2, 512)
    tiling = _tiling(mod, "InvGradTilingData", totalElements=n, blockFactor=former, ubFactor=256)
    rng = np.random.default_rng(7)
    if dtype is rs.int32:
        x, grad = (rng.integers(-(2**31), 2**31, n, dtype=np.int32) for _ in range(2))
        x[:3] = [46341, -46341, 2**31 - 1]  # squares that wrap
    else:
        x, grad = _as(dtype, rng.uniform(-30, 30, n)), _as(dtype, rng.uniform(-3, 3, n))
    (y,) = _run(mod, entry, blocks, [x, grad], [np.zeros_like(x)], tiling)
    if dtype is rs.int32:
        wrap = [((-int(g) * int(v) * int(v) + 2**31) % 2**32) - 2**31 for v, g in zip(x, grad, strict=True)]
        _same(y, np.array(wrap, np.int32))
        return
    x64, g64 = _wide(x, grad)
    y32 = -_f32(g64 * _f32(x64 * x64).astype(np.float64))
    _same(y, y32 if dtype is rs.float32 else round_half_away(y32, dtype))


def _loops(n: int, blocks: int, align: int, ub: int) -> dict[str, int]:
    """The (dim0, blockFormer, blockNum, ubFormer, ubLoop/ubTail of the former and the tail block) tiling: a block's
    elements `ub` at a time, the last piece the rest (at least one element)."""
    former, used = _factors(n, blocks, align)
    tail = n - former * (used - 1)
    loops = {"Former": -(-former // ub), "Tail": -(-tail // ub)}
    fields = {"dim0": n, "blockFormer": former, "blockNum": used, "coreNum": used, "ubFormer": ub}
    for which, size in (("Former", former), ("Tail", tail)):
        fields[f"ubLoopOf{which}Block"] = loops[which]
        fields[f"ubTailOf{which}Block"] = size - (loops[which] - 1) * ub
    return fields


@pytest.mark.parametrize("buffers", [0, 1])
def test_ada_cast(load: Loader, buffers: int) -> None:
    """AdaCast: y = half(clip(x * pixelQuotient, -65504, 65504)) of uint16 x, in float32, rounded ties away."""
    mod, entry = load("math/ada_cast", [rs.uint16], BUFFER_MODE=buffers)[rs.uint16]
    n, quotient = 1500, np.float32(1 / 3)
    fields = _loops(n, 2, 512, 256)
    tiling = _tiling(mod, "AdaCastTilingData", pixelQuotient=quotient, **fields)
    x = np.random.default_rng(8).integers(0, 2**16, n, dtype=np.uint16)
    x[:4] = [0, 32767, 32768, 65535]
    (y,) = _run(mod, entry, fields["blockNum"], [x], [np.zeros(n, np.float16)], tiling)
    scaled = np.clip(_f32(x.astype(np.float64) * np.float64(quotient)), -65504, 65504)
    _same(y, round_half_away(scaled.astype(np.float32), rs.half))


#: BesselI0e's bound against float64: its polynomials' error (Abramowitz and Stegun 9.8.1-9.8.2: a relative error
#: under 2e-7, about 3.4 float32 ulps) and its float32 steps; one rounding to half or bfloat16
BESSEL_I0E_ULPS = {rs.float32: 8, rs.half: 1, rs.bfloat16: 1}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_bessel_i0e(load: Loader, dtype: Any) -> None:
    """BesselI0e: y = e^-|x| I0(x), a polynomial on each side of |x| = 3.75, within BESSEL_I0E_ULPS of float64."""
    mod, entry = load("math/bessel_i0e", FLOATS)[dtype]
    (x,) = _inputs(dtype, 9, (-20, 20))
    x[:4] = _as(dtype, [0.0, 3.75, -3.75, 1e-3])
    tiling, blocks = _block_ub(mod, "BesselI0eTilingData", len(x), 2, 256)
    (y,) = _run(mod, entry, blocks, [x], [np.zeros_like(x)], tiling)
    x64 = x.astype(np.float64)
    _ulps(y, np.i0(x64) * np.exp(-np.abs(x64)), BESSEL_I0E_ULPS[dtype])


@pytest.mark.parametrize("dtype", [rs.int16, rs.uint16], ids=lambda d: d.name)
def test_population_count(load: Loader, dtype: Any) -> None:
    """PopulationCount: y = the number of set bits of each 16-bit x, as uint8 (SWAR shifts, masks and adds)."""
    mod, entry = load("math/population_count", [rs.int16, rs.uint16], macro="DTYPE_X")[dtype]
    n = 1500
    x = np.random.default_rng(10).integers(0, 2**16, n, dtype=np.uint16).view(dtype.np_dtype)
    x[:4] = np.array([0, 0xFFFF, 0x8000, 0x5555], np.uint16).view(dtype.np_dtype)
    tiling, blocks = _block_ub(mod, "PopulationCountTilingData", n, 2, 256)
    (y,) = _run(mod, entry, blocks, [x], [np.zeros(n, np.uint8)], tiling)
    _same(y, np.array([bin(v).count("1") for v in x.view(np.uint16).tolist()], np.uint8))


# --- the special functions (Cephes' rational approximations in float32 steps), against quadrature in float64 ----------
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)


def _integral(f: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """∫_lo^hi f for each pair of limits: composite Gauss-Legendre, 64 equal panels of 24 nodes (error ~1e-15 for the
    smooth integrands below; checked against the functions' tabulated values in the tests)."""
    edges = lo[:, None] + (hi - lo)[:, None] * np.linspace(0, 1, 65)[None, :]
    a, b = edges[:, :-1, None], edges[:, 1:, None]
    u = (a + b) / 2 + (b - a) / 2 * _NODES
    return np.asarray(((b - a)[..., 0] / 2 * (f(u) @ _WEIGHTS)).sum(axis=1))


def _dawson(x: np.ndarray) -> np.ndarray:
    """Dawson's integral D(x) = ∫_0^x e^(t^2 - x^2) dt = ∫_0^|x| e^(-u (2|x| - u)) du (u = |x| - t), odd; for |x| > 12
    its asymptotic series 1/(2x) Σ_k (2k-1)!! / (2x^2)^k; 0 at ±inf, NaN at NaN."""
    a = np.abs(x.astype(np.float64))
    out = np.zeros_like(a)
    near = np.isfinite(a) & (a <= 12)
    s = a[near]
    out[near] = _integral(lambda u: np.exp(-u * (2 * s[:, None, None] - u)), np.zeros_like(s), s)
    far = np.isfinite(a) & (a > 12)
    b, term = a[far], np.ones(int(far.sum()))
    total = term.copy()
    for k in range(1, 60):
        term = term * (2 * k - 1) / (2 * b * b)
        total += term
    out[far] = total / (2 * b)
    out[np.isnan(a)] = np.nan
    return np.copysign(out, x.astype(np.float64))


def _spence(x: np.ndarray) -> np.ndarray:
    """Spence's function spence(x) = ∫_1^x ln t / (1 - t) dt = ∫_0^(ln x) u / (e^-u - 1) du (t = e^u) for x > 0;
    pi^2 / 6 at 0, NaN below 0 (the operator's domain)."""
    x64 = x.astype(np.float64)
    out = np.full_like(x64, np.nan)
    pos = x64 > 0
    top = np.log(x64[pos])

    def f(u: np.ndarray) -> np.ndarray:
        e = np.expm1(-u)
        return np.where(u == 0, -1.0, u / np.where(u == 0, 1.0, e))

    out[pos] = _integral(f, np.zeros_like(top), top)
    out[x64 == 0] = np.pi**2 / 6
    return out


def test_quadrature_oracles_match_tabulated_values() -> None:
    """The oracles against published values: D(1) = 0.5380795069127684, D(0.9241388730) = 0.5410442246 (its maximum),
    spence(2) = -pi^2/12, spence(0.5) = pi^2/12 - ln(2)^2/2 (Abramowitz and Stegun 7.1, 27.7); the quadrature and the
    asymptotic series agree where D switches from one to the other (|x| = 12)."""
    d = _dawson(np.array([1.0, 0.9241388730, -1.0, 12.0, np.nextafter(12.0, 13.0)]))
    assert np.allclose(d[:3], [0.5380795069127684, 0.5410442246, -0.5380795069127684], rtol=1e-10, atol=0)
    assert abs(d[4] / d[3] - 1) < 1e-13
    s = _spence(np.array([2.0, 0.5, 1.0]))
    assert np.allclose(s, [-(np.pi**2) / 12, np.pi**2 / 12 - np.log(2) ** 2 / 2, 0.0], rtol=1e-13, atol=1e-15)


#: Dawsn's and Spence's bounds against float64: Cephes' float32 rational approximations (relative error under a few
#: float32 ulps each, the coefficients themselves rounded to float32) evaluated in ~25 float32 steps; half and bfloat16:
#: that result rounded once (CAST_ROUND)
SPECIAL_ULPS = {rs.float32: 8, rs.half: 1, rs.bfloat16: 1}
#: Dawsn on 3.25 <= |x| < 6.25: the kernel's segment masks overlap (its `|x| <= 1e9` mask is taken after the
#: `|x| < 6.25` one and overrides it), so these lanes get the approximation made for 6.25 <= |x|, whose relative error
#: there is up to 3.5e-4 at 3.25 (falling below 1e-11 by 5); bounded by relative error instead, plus one rounding
DAWSN_OVERLAP_REL = 4e-4


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_dawsn(load: Loader, dtype: Any) -> None:
    """Dawsn: y = D(x), on its four segments (|x| < 3.25, < 6.25, <= 1e9, beyond), odd; 0 at ±inf, NaN kept."""
    mod, entry = load("math/dawsn", FLOATS)[dtype]
    (x,) = _inputs(dtype, 11, (-12, 12))
    x[:10] = _as(dtype, [0.0, -0.0, 3.25, -3.25, 6.25, 6.0e4, -1e-3, np.inf, -np.inf, np.nan])
    fields = _loops(len(x), 2, 512, 256)
    tiling = _tiling(mod, "DawsnTilingData", **fields)
    (y,) = _run(mod, entry, fields["blockNum"], [x], [np.zeros_like(x)], tiling)
    want = _dawson(x.astype(np.float32))
    assert np.isnan(y[9]) and not np.isnan(np.delete(y, 9)).any() and np.all(y[7:9] == 0)
    a = np.abs(x.astype(np.float32))
    overlap = (a >= 3.25) & (a < 6.25)
    plain = ~overlap & ~np.isnan(a) & np.isfinite(a)
    _ulps(y[plain], want[plain], SPECIAL_ULPS[dtype])
    rel = np.abs(y[overlap].astype(np.float64) / want[overlap] - 1)
    assert rel.max() <= DAWSN_OVERLAP_REL + float(np.finfo(dtype.np_dtype).eps), rel.max()
    assert abs(float(y[2]) / want[2] - 1) > 1e-4  # (the overlap, as the kernel computes it: not a bug of regsim's)


#: Spence's float32 bound: for x > 1.5 and x < 0.5 the kernel adds reflection terms (pi^2/6 - ln x ln(1 - x), and
#: -ln^2(x) / 2) to the rational approximation; near x = 0.5 and 2 those terms are up to 3x the result, so their errors
#: (Log's and the rational's, a few float32 ulps each, SPECIAL_ULPS) count up to 3 times: 24 float32 ulps
SPENCE_ULPS = {**SPECIAL_ULPS, rs.float32: 24}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_spence(load: Loader, dtype: Any) -> None:
    """Spence: y = spence(x) (x >= 0; pi^2/6 at 0, 0 at 1, NaN below 0), the kernel built with its pipe given to the
    class's constructor (`KernelSpence<T> op(&pipe)`), 256 elements a piece."""
    mod, entry = load("math/spence", FLOATS)[dtype]
    (x,) = _inputs(dtype, 12, (0, 6))
    x[:200] = _as(dtype, np.geomspace(1e-4, 5e4, 200))
    x[200:206] = _as(dtype, [0.0, 1.0, 0.5, 2.0, -1.0, np.nan])
    fields = _loops(len(x), 2, 512, 256)
    tiling = _tiling(mod, "SpenceTilingData", **fields)
    (y,) = _run(mod, entry, fields["blockNum"], [x], [np.zeros_like(x)], tiling)
    want = _spence(x.astype(np.float32))
    assert np.isnan(y[204:206]).all() and not np.isnan(np.delete(y, [204, 205])).any() and y[201] == 0
    keep = ~np.isnan(want)
    _ulps(y[keep], want[keep], SPENCE_ULPS[dtype])


#: Acosh's and Asinh's bounds against float64: ln(u) (Log, correctly rounded) scaled by s' / s, the log1p form of
#: ln(1 + s') (s' = x - 1 + sqrt(x^2 - 1), or |x| - 1 + ... for Asinh), which keeps the relative error to a few of its
#: float32 steps' roundings (Goldberg, "What every computer scientist should know about floating-point arithmetic", the
#: log1p theorem: under 5 ulps for the quotient form); half and bfloat16: that result rounded once (CAST_RINT)
LOG1P_ULPS = {rs.float32: 6, rs.half: 1, rs.bfloat16: 1}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_acosh(load: Loader, dtype: Any) -> None:
    """Acosh: y = acosh(x) = min(ln(u) s' / s, ln(x) + ln 2) (Log, the high-level API), NaN below 1. At x = 1 exactly
    the kernel's guard s = max(u - 1, 1e-45) is a float32 subnormal, which Div's default algorithm flushes (the Div
    page: subnormals are flushed outside its FTZ_FALSE algorithms): 0 / 0, and the NaN propagates through Min (the Min
    page's boundary table): NaN, where acosh(1) = 0 (the kernel's, which regsim reproduces)."""
    mod, entry = load("math/acosh", FLOATS, macro="DTYPE_X")[dtype]
    (x,) = _inputs(dtype, 13, (1, 8))
    x[:100] = _as(dtype, np.geomspace(1.001, 6e4, 100))
    x[100:104] = _as(dtype, [1.0, 0.5, np.inf, np.nan])
    tiling, blocks = _block_ub(mod, "AcoshTilingData", len(x), 2, 256)
    (y,) = _run(mod, entry, blocks, [x], [np.zeros_like(x)], tiling)
    with np.errstate(invalid="ignore"):
        want = np.arccosh(x.astype(np.float32).astype(np.float64))
    assert np.isnan(y[[100, 101, 103]]).all() and y[102] == np.inf
    keep = np.isfinite(want) & (x != 1)
    _ulps(y[keep], want[keep], LOG1P_ULPS[dtype])


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("n", [1472, 1500])
def test_asinh(load: Loader, dtype: Any, n: int) -> None:
    """Asinh: y = sign(x) asinh(|x|): ln(u) s' / s below |x| = 10, ln(u) up to 2^28, ln|x| + ln 2 + 1/x^2 beyond, |x|
    below 2^-12 (Log, CompareScalar). Its Compare and Select calls run on whole registers (64 elements), past the
    piece's last element into UB its DataCopyPad did not write: with n = 1500 the last piece of each block has such a
    tail, which regsim's uninitialized-read check refuses; that run is made without the check (the tail's results are
    not copied out), n = 1472 (every piece a multiple of 64) with it."""
    mod, entry = load("math/asinh", FLOATS, macro="DTYPE_X")[dtype]
    (x,) = _inputs(dtype, 14, (-12, 12), n=n)
    x[:100] = _as(dtype, np.geomspace(1e-5, 6e4, 100) * np.where(np.arange(100) % 2, 1, -1))
    x[100:106] = _as(dtype, [0.0, -0.0, 2.0**-12, np.inf, -np.inf, np.nan])
    tiling, blocks = _block_ub(mod, "AsinhTilingData", n, 2, 256)
    with rs.configure(check_uninitialized=n % 64 == 0 and (n - 1024) % 64 == 0):
        (y,) = _run(mod, entry, blocks, [x], [np.zeros_like(x)], tiling)
    want = np.arcsinh(x.astype(np.float32).astype(np.float64))
    assert np.isnan(y[105]) and y[103] == np.inf and y[104] == -np.inf
    assert y[100:102].tobytes() == bytes(2 * x.itemsize)  # (±0: +0, the sign chosen by x >= 0, true for -0)
    keep = np.isfinite(want)
    _ulps(y[keep], want[keep], LOG1P_ULPS[dtype])


@pytest.mark.parametrize("dtype", [*FLOATS, rs.int32], ids=lambda d: d.name)
def test_inv(load: Loader, dtype: Any) -> None:
    """Inv: y = 1 / x (float32: Div, correctly rounded; half and bfloat16 through float32, rounded to nearest even;
    int32: 1 / x truncated, so 1, -1, and 0 for every other x, 0 too). `std::is_integral_v<T>` picks the int32 path."""
    mod, entry = load("math/inv", [*FLOATS, rs.int32], macro="DTYPE_X")[dtype]
    n = 1504
    former, blocks = _factors(n, 2, 512)
    tiling = _tiling(mod, "InvTilingData", totalElements=n, blockFactor=former, ubFactor=256)
    rng = np.random.default_rng(15)
    if dtype is rs.int32:
        x = rng.integers(-4, 5, n, dtype=np.int32)
        x[:4] = [2**31 - 1, -(2**31), 1, -1]
    else:
        x = _as(dtype, rng.uniform(1e-3, 100, n) * rng.choice([-1, 1], n))
        x[:4] = _as(dtype, [0.0, -0.0, np.inf, np.nan])
    (y,) = _run(mod, entry, blocks, [x], [np.zeros_like(x)], tiling)
    if dtype is rs.int32:
        _same(y, np.where(np.abs(x) == 1, x, 0).astype(np.int32))
        return
    with np.errstate(divide="ignore"):
        want = _out(dtype, _f32(1 / x.astype(np.float32).astype(np.float64)))
    assert np.isnan(y[3])  # (a NaN, its payload the Div's)
    _same(np.delete(y, 3), np.delete(want, 3))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("n", [1472, 1500])
def test_approximate_equal(load: Loader, dtype: Any, n: int) -> None:
    """ApproximateEqual: y = |x1 - x2| < tolerance as a bool (uint8), in float32 (half and bfloat16 widened exactly),
    NaN and inf - inf false; `CompareScalar<T, uint8_t>` (the deprecated name, the headers' <T, U>). Its compare runs
    on whole registers (64 floats), past the piece's end: n = 1500 runs without the uninitialized-read check (as
    Asinh), n = 1472 with it."""
    mod, entry = load("math/approximate_equal", FLOATS, macro="DTYPE_X1")[dtype]
    rng = np.random.default_rng(16)
    x1 = _as(dtype, rng.uniform(-4, 4, n))
    x2 = _as(dtype, x1.astype(np.float64) + rng.choice([0.0, 0.01, 0.05, 0.1, 1.0], n) * rng.choice([-1, 1], n))
    x1[:5] = _as(dtype, [np.nan, np.inf, np.inf, 1.0, 0.0])
    x2[:5] = _as(dtype, [np.nan, np.inf, 1.0, 1.0 + 2.0**-6, -0.0])
    tolerance = np.float32(0.05)
    former, blocks = _factors(n, 2, 512)
    tiling = _tiling(mod, "ApproximateEqualTilingData", totalNum=n, blockFactor=former, ubFactor=256, tolerance=tolerance)
    with rs.configure(check_uninitialized=n % 64 == 0 and (n - former) % 64 == 0):
        (y,) = _run(mod, entry, blocks, [x1, x2], [np.full(n, 7, np.uint8)], tiling)
    with np.errstate(invalid="ignore"):
        diff = _f32(np.abs(x1.astype(np.float32).astype(np.float64) - x2.astype(np.float32)))
    _same(y, (diff < tolerance).astype(np.uint8))
    assert y[:5].tolist() == [0, 0, 0, 1, 1]


def _i1e(x: np.ndarray) -> np.ndarray:
    """e^-|x| I1(x) from I1's power series Σ_k (x/2)^(2k+1) / (k! (k+1)!) in float64 (all terms of one sign: no
    cancellation; 120 terms converge for |x| <= 40); odd."""
    a = np.abs(x.astype(np.float64))
    term = a / 2
    total = term.copy()
    for k in range(1, 120):
        term = term * (a / 2) ** 2 / (k * (k + 1))
        total += term
    return np.copysign(total * np.exp(-a), x.astype(np.float64))


#: BesselI1e's bound against float64: Abramowitz and Stegun 9.8.3 (relative error under 8e-9) below |x| = 3.75, 9.8.4
#: beyond (absolute error under 2.2e-7 on x^1/2 e^-x I1(x) >= 0.33 there: relative under 6.7e-7, 12 float32 ulps at
#: the low end of a binade), e^-|x| from a truncated Taylor polynomial raised to the 4th power, and float32 steps
BESSEL_I1E_ULPS = {rs.float32: 16, rs.half: 1}


@pytest.mark.parametrize("dtype", [rs.float32, rs.half], ids=lambda d: d.name)
def test_bessel_i1e(load: Loader, dtype: Any) -> None:
    """BesselI1e: y = e^-|x| I1(x), odd, a polynomial on each side of |x| = 3.75, computed element by element on the
    scalar unit (`GetValue` / `SetValue`, `sqrt`); half widened and narrowed element by element too
    (`static_cast<half>`: rounded to nearest even)."""
    mod, entry = load("math/bessel_i1e", [rs.float32, rs.half])[dtype]
    (x,) = _inputs(dtype, 17, (-30, 30), n=700)
    x[:5] = _as(dtype, [0.0, 3.75, -3.75, 1e-3, -0.5])
    tiling, blocks = _block_ub(mod, "BesselI1eTilingData", len(x), 2, 256)
    (y,) = _run(mod, entry, blocks, [x], [np.zeros_like(x)], tiling)
    _ulps(y, _i1e(x), BESSEL_I1E_ULPS[dtype])


def test_bessel_i1e_bfloat16_races(load: Loader) -> None:
    """BesselI1e's bfloat16 path casts its input (a V instruction) right after the DataCopyPad that brings it in (MTE2)
    with no queue, flag or barrier between them: a race regsim reports (the float32 and half paths go through their
    queue, or read it on the scalar unit)."""
    mod, entry = load("math/bessel_i1e", [rs.bfloat16])[rs.bfloat16]
    (x,) = _inputs(rs.bfloat16, 17, (-30, 30), n=700)
    tiling, blocks = _block_ub(mod, "BesselI1eTilingData", len(x), 2, 256)
    with pytest.raises(rs.errors.RaceError, match="MTE2"):
        rs.launch(mod.kernel(entry), blocks, x, np.zeros_like(x), np.zeros(64, np.uint8), tiling)


#: the operator build's element-type macros for Real: `ORIG_DTYPE_INPUT` names the input's ge::DataType (its `#if`
#: compares it with the DT_* values), DTYPE_OUTPUT the output's C++ type
GE_TYPES = {"DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_COMPLEX64": 16, "DT_COMPLEX32": 33}
REAL_CASES = [("DT_FLOAT", rs.float32), ("DT_FLOAT16", rs.half), ("DT_COMPLEX64", rs.float32), ("DT_COMPLEX32", rs.half)]


@pytest.mark.parametrize(("ge_type", "out"), REAL_CASES, ids=[c[0] for c in REAL_CASES])
def test_real(ge_type: str, out: Any) -> None:
    """Real: y = the real part of x: float32 and half copied through, complex64 and complex32 by a Gather of every
    other element (its offsets set element by element, `SetValue`); the copy parameters a braced temporary
    (`DataCopyPadExtParams<T>{false, 0, 0, 0}`)."""
    if ROOT is None or not Path(ROOT, "math").is_dir():
        pytest.skip("the operator library's sources are absent (REGSIM_OPS_MATH)")
    defines = {**GE_TYPES, "ORIG_DTYPE_INPUT": ge_type, "DTYPE_OUTPUT": out}
    mod = rs.cpp.load(_entry_file("math/real"), defines=defines)
    n = 1500
    former, blocks = _factors(n, 2, 512)
    tiling = _tiling(mod, "RealTilingData", totalOutputNum=n, blockFactor=former, ubFactor=256)
    rng = np.random.default_rng(18)
    parts = rng.uniform(-100, 100, (n, 2)).astype(out.np_dtype)
    x = parts if "COMPLEX" in ge_type else parts[:, 0].copy()
    (y,) = _run(mod, "real", blocks, [x.reshape(-1)], [np.zeros(n, out.np_dtype)], tiling)
    _same(y, parts[:, 0].copy())


#: Cosh's bound against float64: e^r (Exp, correctly rounded) of the Cody-Waite reduced r = |x| - n ln 2 (two Fma,
#: each rounded once), scaled exactly by 2^(n - 2), then 2 e^x/4 + (1/8) / (e^x/4) (Reciprocal, two Muls and an Add:
#: four roundings); half and bfloat16: that result rounded once (CAST_RINT)
COSH_ULPS = {rs.float32: 4, rs.half: 1, rs.bfloat16: 1}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_cosh(load: Loader, dtype: Any) -> None:
    """Cosh: y = cosh(x) = e^|x| / 2 + e^-|x| / 2 through 2^(n - 2) built from the exponent bits (Trunc, Fma, the
    high-level APIs), inf from |x| >= 90 (a tensor of `NumericLimits<float>::Infinity`), NaN kept. Its CompareScalar
    takes the piece's element count, which the Compares page requires to fill whole 256-byte repeats: every piece
    here a multiple of 64 elements (1472 = 1024 + 448)."""
    mod, entry = load("math/cosh", FLOATS, macro="DTYPE_X")[dtype]
    top = {rs.float32: 95, rs.half: 12, rs.bfloat16: 95}[dtype]  # (beyond cosh(x) > 65504 half is inf anyway)
    (x,) = _inputs(dtype, 19, (-top, top), n=1472)
    x[:6] = _as(dtype, [0.0, -0.0, 90.0 if dtype is not rs.half else 11.0, np.inf, -np.inf, np.nan])
    tiling, blocks = _block_ub(mod, "CoshTilingData", len(x), 2, 256)
    (y,) = _run(mod, entry, blocks, [x], [np.zeros_like(x)], tiling)
    with np.errstate(over="ignore"):
        want = np.cosh(x.astype(np.float32).astype(np.float64))
    assert np.isnan(y[5]) and np.all(y[3:5] == np.inf)
    keep = np.isfinite(want) & (want < float(ml_dtypes.finfo(dtype.np_dtype).max))
    _ulps(y[keep], want[keep], COSH_ULPS[dtype])
    assert np.all(y[~keep & ~np.isnan(want)] == np.inf)


def test_cosh_unaligned_count_refused(load: Loader) -> None:
    """Cosh with a last piece of 220 elements: its CompareScalar's count does not fill whole 256-byte repeats, which
    the Compares page forbids: refused, naming the API and the count."""
    mod, entry = load("math/cosh", FLOATS, macro="DTYPE_X")[rs.float32]
    (x,) = _inputs(rs.float32, 19, (-5, 5))
    tiling, blocks = _block_ub(mod, "CoshTilingData", len(x), 2, 256)
    with pytest.raises(rs.errors.ParameterError, match=r"CompareScalar: count = 220"):
        rs.launch(mod.kernel(entry), blocks, x, np.zeros_like(x), np.zeros(64, np.uint8), tiling)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_add_mat_mat_elements(load: Loader, dtype: Any) -> None:
    """AddMatMatElements: c' = a * b * alpha + c * beta, alpha and beta one-element tensors read on the scalar unit
    (bfloat16's by its bits, through a union); float32 in float32 steps, half and bfloat16 widened to float32 and the
    result rounded once to nearest even."""
    mod, entry = load("math/add_mat_mat_elements", FLOATS)[dtype]
    n, tile = 1500, 256
    per = -(-n // 2 // 16) * 16
    tiling = _tiling(
        mod, "AddMatMatElementsTilingData", totalLength=n, tileLength=tile, blockNum=2, blockLength=per, lastBlockLength=n - per
    )
    c, a, b = _inputs(dtype, 20, (-4, 4), (-4, 4), (-4, 4), n=n)
    beta, alpha = _as(dtype, [0.75]), _as(dtype, [-1.5])
    (out,) = _run(mod, entry, 2, [c, a, b, beta, alpha], [np.zeros_like(c)], tiling)
    c64, a64, b64 = _wide(c, a, b)
    prod = _f32(_f32(a64 * b64).astype(np.float64) * float(alpha[0])).astype(np.float64)
    _same(out, _out(dtype, _f32(_f32(c64 * float(beta[0])).astype(np.float64) + prod)))


@pytest.mark.parametrize("out", [rs.half, rs.float32], ids=lambda d: d.name)
def test_sign_bits_unpack(out: Any) -> None:
    """SignBitsUnpack: y[8 i + k] = +1 where bit k of byte x[i] is set, else -1 (Select by a uint8 mask tensor, bit k of
    byte i selecting element 8 i + k; float32 through half, widened exactly)."""
    if ROOT is None or not Path(ROOT, "math").is_dir():
        pytest.skip("the operator library's sources are absent (REGSIM_OPS_MATH)")
    mod = rs.cpp.load(_entry_file("math/sign_bits_unpack"), defines={"DTYPE_X": rs.uint8, "DTYPE_Y": out})
    n, per_block, ub = 200, 128, 512  # (bytes in, bytes a block, output elements a piece: 64 bytes)
    tiling = _tiling(mod, "SignBitsUnpackTilingData", totalNum=n, blockFactor=per_block, ubFactor=ub, size=1)
    x = np.random.default_rng(21).integers(0, 256, n, dtype=np.uint8)
    x[:2] = [0, 255]
    (y,) = _run(mod, "sign_bits_unpack", 2, [x], [np.zeros(8 * n, out.np_dtype)], tiling)
    bits = np.unpackbits(x, bitorder="little").astype(bool)
    _same(y, np.where(bits, 1, -1).astype(out.np_dtype))


@pytest.mark.parametrize("dtype", [rs.float32, rs.half], ids=lambda d: d.name)
def test_sign_bits_pack(load: Loader, dtype: Any) -> None:
    """SignBitsPack: byte j of y holds the signs of x[8 j : 8 j + 8], most significant bit first (bit 7 - k set
    where x[8 j + k] < 0: Compare LT 0, then each byte's bits reversed in a VF), 256 elements a piece, the last one
    padded with -1 (`DataCopyPadExtParams<T> pad(true, 0, 0, -1)`), so the last byte's unused bits are set; -0 and
    NaN are not negative (LT), -inf is."""
    mod, entry = load("math/sign_bits_pack", [rs.float32, rs.half], macro="DTYPE_X")[dtype]
    n, cores = 1500, 2
    pieces = -(-n // 256)
    per_core = -(-pieces // cores)
    tail = n % 256
    fields = dict(
        n=n,
        totalCount=pieces,
        perCoreCount=per_core,
        tailElemCount=tail,
        tailByteCount=-(-tail // 8),
        packedLen=-(-n // 8),
        realCoreNum=cores,
    )
    tiling = _tiling(mod, "SignBitsPackTilingData", **fields)
    (x,) = _inputs(dtype, 22, (-2, 2), n=n)
    x[:4] = _as(dtype, [0.0, -0.0, -np.inf, np.nan])
    (y,) = _run(mod, entry, cores, [x], [np.zeros(-(-n // 8), np.uint8)], tiling)
    with np.errstate(invalid="ignore"):
        negative = x.astype(np.float32) < 0
    padded = np.concatenate([negative, np.ones(-n % 8, bool)])  # (the last byte's unused bits: the -1 padding's)
    _same(y, np.packbits(padded))


#: FusedMulAddN's tiling keys by element type (its entry's `TILING_KEY_IS` constants)
FUSED_MUL_ADD_N_KEYS = {
    rs.float32: 100000000000100,
    rs.half: 200000000000100,
    rs.int32: 300000000000100,
    rs.int16: 400000000000100,
    rs.bfloat16: 500000000000100,
}


@pytest.fixture(scope="module")
def fused_mul_add_n(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """FusedMulAddN's entry file, its tiling struct declared from the op_host header's BEGIN_TILING_DATA_DEF block
    (`GET_TILING_DATA` names no type: the build derives it from the operator's name)."""
    if ROOT is None or not Path(ROOT, "math").is_dir():
        pytest.skip("the operator library's sources are absent (REGSIM_OPS_MATH)")
    from regsim._src.frontends.cpp.kernels import tiling_structs

    header = tmp_path_factory.mktemp("fused_mul_add_n") / "tiling.h"
    host = Path(ROOT, "math/fused_mul_add_n/op_host/arch35/fused_mul_add_n_tiling_arch35.h")
    header.write_text(tiling_structs(host.read_text()))
    args = ("-include", str(header), "-DREGSIM_TILING_DATA=FusedMulAddNTilingData")
    return rs.cpp.load(_entry_file("math/fused_mul_add_n"), args=args)


@pytest.mark.parametrize("dtype", [rs.float32, rs.half, rs.bfloat16, rs.int32, rs.int16], ids=lambda d: d.name)
def test_fused_mul_add_n(fused_mul_add_n: Any, dtype: Any) -> None:
    """FusedMulAddN: y = x1 * x3 + x2, x3 a one-element tensor read on the scalar unit (bfloat16's through `ToFloat`);
    float32 two float32 steps, int32 wrapping, half and bfloat16 through float32 (each step rounded in float32, the
    result to nearest even). Its int16 instantiation stores int16 registers with `StoreDist::DIST_NORM_B32`, which
    the 950's b16 stores do not take: refused, naming the distribution and those accepted."""
    mod = fused_mul_add_n
    n = 1500
    fields = _loops(n, 2, 512, 256)
    kept = {k: v for k, v in fields.items() if k not in ("blockNum", "coreNum")}  # (the struct has no block count)
    tiling = _tiling(mod, "FusedMulAddNTilingData", elemNum=256, **kept)
    rng = np.random.default_rng(23)
    if dtype in (rs.int32, rs.int16):
        info = np.iinfo(dtype.np_dtype)
        x1, x2 = (rng.integers(info.min, info.max, n, dtype=dtype.np_dtype, endpoint=True) for _ in range(2))
        x3 = np.array([-3], dtype.np_dtype)
    else:
        x1, x2 = _inputs(dtype, 23, (-8, 8), (-8, 8), n=n)
        x3 = _as(dtype, [0.375])

    def run() -> np.ndarray:
        y = np.zeros(n, dtype.np_dtype)
        rs.launch(
            mod.kernel("fused_mul_add_n"),
            fields["blockNum"],
            x1,
            x2,
            x3,
            y,
            np.zeros(64, np.uint8),
            tiling,
            tiling_key=FUSED_MUL_ADD_N_KEYS[dtype],
        )
        return y

    if dtype is rs.int16:
        with pytest.raises(rs.errors.ParameterError, match="StoreAlign: dist = DIST_NORM_B32"):
            run()
        return
    y = both_modes(run)
    if dtype is rs.int32:
        bits = 8 * dtype.itemsize
        wrap = [
            ((int(a) * int(x3[0]) + int(b) + 2 ** (bits - 1)) % 2**bits) - 2 ** (bits - 1) for a, b in zip(x1, x2, strict=True)
        ]
        _same(y, np.array(wrap, dtype.np_dtype))
        return
    x64, y64 = _wide(x1, x2)
    _same(y, _out(dtype, _f32(_f32(x64 * float(x3[0])).astype(np.float64) + y64)))
