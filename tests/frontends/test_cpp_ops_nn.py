"""Operators of ops-nn (the 950 kernels under */op_kernel/arch35/) run whole from their unmodified files, GM to GM,
against numpy references of what each operator computes, for every element type its kernel supports and in both
loop modes with identical bits. Skipped without the library's sources (REGSIM_OPS_NN=/path/to/ops-nn) or libclang.

Each test fills the operator's tiling struct as its host tiling code (op_host/arch35) does, with shapes small
enough for the suite that still have a last block and a last UB piece shorter than the others."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim._src.frontends.cpp.kernels import tiling_structs
from tests.cpp_kernel_support import both_modes, round_half_away

pytest.importorskip("clang.cindex")

NN = os.environ.get("REGSIM_OPS_NN")
FLOATS = [rs.float32, rs.half, rs.bfloat16]


def _root(op: str) -> Path:
    if NN is None or not Path(NN, op).is_dir():
        pytest.skip("the ops-nn sources are absent (REGSIM_OPS_NN)")
    return Path(NN, op)


@pytest.fixture(scope="module")
def headers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tiling structs of the host headers are written (for `-include`)."""
    return tmp_path_factory.mktemp("tiling")


def _load(
    op: str,
    kernel: str,
    defines: dict[str, Any] | None = None,
    host: tuple[str, str, Path] | None = None,
    tiling: str | None = None,
) -> Any:
    """An operator's kernel file, loaded as its build compiles it: `defines` its macros (DTYPE_X ...); `host` the
    op_host header whose BEGIN_TILING_DATA_DEF blocks declare the struct GET_TILING_DATA fills, that struct's name
    and the directory to write the structs to; `tiling` that struct's name where the kernel's own headers declare it."""
    root = _root(op)
    args: tuple[str, ...] = (f"-DREGSIM_TILING_DATA={tiling}",) if tiling else ()
    if host is not None:
        path, struct, into = host
        header = into / f"{struct}.h"
        header.write_text(tiling_structs(Path(root, path).read_text()))
        args = ("-include", str(header), f"-DREGSIM_TILING_DATA={struct}")
    return rs.cpp.load(root / kernel, args=args, defines=defines or {})


def _split(mod: Any, struct: str, n: int, cores: int, ub: int, align: int = 1, **fields: Any) -> tuple[np.ndarray, int]:
    """The elementwise split the libraries' host tilings compute (a block's `blockFormer` elements, aligned up to
    `align`, in `ubFormer` pieces; the last block and the last piece shorter): the struct's bytes and the blocks."""
    t = np.zeros(1, mod.struct_dtype(struct))
    per_core = -(-n // cores)
    former = -(-per_core // align) * align
    blocks = -(-n // former)
    tail = n - (blocks - 1) * former

    def loops(m: int) -> int:
        return -(-m // ub)

    values = {
        **dict.fromkeys(("totalNum", "totalElements", "totalLength"), n),
        "blockFactor": former,
        "ubFactor": ub,
        "dim0": n,
        "coreNum": cores,
        "blockFormer": former,
        "blockNum": blocks,
        "ubFormer": ub,
        "elemNum": ub,
        "ubLoopOfFormerBlock": loops(former),
        "ubTailOfFormerBlock": former - (loops(former) - 1) * ub,
        "ubLoopOfTailBlock": loops(tail),
        "ubTailOfTailBlock": tail - (loops(tail) - 1) * ub,
        **fields,
    }
    for name, v in values.items():
        if name in (t.dtype.names or ()):
            t[name] = v
    return t.view(np.uint8), blocks


def _run(kernel: Any, blocks: int, inputs: list[np.ndarray], out: np.ndarray, tiling: np.ndarray, **kw: Any) -> np.ndarray:
    def run() -> np.ndarray:
        y = np.zeros_like(out)
        rs.launch(kernel, blocks, *inputs, y, np.zeros(32, np.uint8), tiling, **kw)
        return y

    return both_modes(run)


def _as(dtype: Any, x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).astype(dtype.np_dtype)


def _f32(v: Any) -> np.ndarray:
    """Values computed exactly (or correctly rounded) in float64, rounded once to float32, as float64."""
    return np.asarray(v, np.float64).astype(np.float32).astype(np.float64)


def _near(v: Any) -> tuple[np.ndarray, np.ndarray]:
    """The float32 neighbours of v rounded once (as float64): every float32 within 1 ulp of v lies between them,
    so they bound what an operation documented within 1 ulp (Exp, Ln, Div: "Max error 1 ULP") returns."""
    r = np.asarray(v, np.float64).astype(np.float32)
    return (np.nextafter(r, np.float32(-np.inf)).astype(np.float64), np.nextafter(r, np.float32(np.inf)).astype(np.float64))


def _between(got: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """Each lane of `got` between a and b: the kernel's chain evaluated at the two ends of its approximate steps'
    ranges (the chains here are monotone in those steps, rising or falling)."""
    g, lo, hi = got.astype(np.float64), np.minimum(a, b), np.maximum(a, b)
    bad = np.flatnonzero(~((lo <= g) & (g <= hi)))
    assert bad.size == 0, f"lane {bad[0]}: {g[bad[0]]!r} not in [{lo[bad[0]]!r}, {hi[bad[0]]!r}] ({bad.size} lanes)"


def _narrow(dtype: Any, v32: np.ndarray) -> np.ndarray:
    """A float32 result written back to the operator's type as these kernels do: float32 as it is, half and
    bfloat16 by Cast CAST_ROUND (to nearest, ties away from zero)."""
    return v32.astype(np.float32) if dtype is rs.float32 else round_half_away(v32, dtype)


def _ulps(got: np.ndarray, want: np.ndarray) -> int:
    """The largest distance in units in the last place between two float arrays of one type (NaNs equal)."""
    bits = {2: np.int16, 4: np.int32}[got.dtype.itemsize]
    a, b = got.view(bits).astype(np.int64), want.view(bits).astype(np.int64)
    top = np.int64(1) << (8 * got.dtype.itemsize - 1)
    a, b = np.where(a < 0, -(a + top), a), np.where(b < 0, -(b + top), b)  # the bits as an ordered line
    both_nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
    return int(np.max(np.where(both_nan, 0, np.abs(a - b)), initial=0))


# --- Relu6D: y = min(max(x, 0), 6 * scale) ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [*FLOATS, rs.int32], ids=lambda d: d.name)
def test_relu6_d(dtype: Any) -> None:
    """ops-nn Relu6D (DTYPE_X from the build): y = min(max(x, 0), 6 * scale), bit for bit (a clamp rounds nothing;
    bfloat16 goes through float32 and back, exactly). upperThreshold = 6 * scale as the host computes it."""
    mod = _load("activation/relu6_d", "op_kernel/relu6_d.cpp", {"DTYPE_X": dtype})
    n, scale = 1300, 0.75
    x = _as(dtype, np.random.default_rng(3).uniform(-8, 8, n))
    tiling, blocks = _split(mod, "Relu6DTilingData", n, 2, 256, align=512, upperThreshold=6 * scale)
    y = _run(mod.kernel("relu6_d"), blocks, [x], x, tiling)
    bound = np.float64(np.float32(6 * scale)).astype(dtype.np_dtype) if dtype is not rs.int32 else int(6 * scale)
    assert y.tobytes() == np.minimum(np.maximum(x, x.dtype.type(0)), bound).astype(x.dtype).tobytes()


# --- Sigmoid: y = 1 / (1 + exp(-x)) -----------------------------------------------------------------------------
#: the tiling keys of sigmoid_apt.cpp, by element type
SIGMOID_KEYS = {rs.half: 100000000000100, rs.bfloat16: 200000000000100, rs.float32: 300000000000100}


@pytest.fixture(scope="module")
def sigmoid(headers: Path) -> Any:
    host = ("op_host/arch35/sigmoid_tiling_arch35.h", "SigmoidTilingData", headers)
    return _load("activation/sigmoid", "op_kernel/sigmoid_apt.cpp", host=host)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_sigmoid(sigmoid: Any, dtype: Any) -> None:
    """ops-nn Sigmoid: y = 1 / (1 + exp(-x)) in float32 steps (half and bfloat16 widened exactly, rounded once at
    the end): within 4 float32 ulps of the exact value in float32, within 1 ulp of it rounded once otherwise."""
    n = 1500
    x = _as(dtype, np.random.default_rng(4).uniform(-12, 12, n))
    tiling, blocks = _split(sigmoid, "SigmoidTilingData", n, 2, 512)
    y = _run(sigmoid.kernel("sigmoid"), blocks, [x], x, tiling, tiling_key=SIGMOID_KEYS[dtype])
    want = _as(dtype, 1 / (1 + np.exp(-x.astype(np.float64))))
    assert _ulps(y, want) <= (4 if dtype is rs.float32 else 1)


# --- IndexFillD: y = assist1 > 0 ? x : assist2 ------------------------------------------------------------------
def _index_fill_tiling(mod: Any, n: int, cores: int, ub: int) -> tuple[np.ndarray, int]:
    """index_fill_d_tiling.cpp's split: `normalCoreData` elements a core (at least 1024), `ubFactor` a piece."""
    t = np.zeros(1, mod.struct_dtype("IndexFillDTilingData"))
    normal = max(-(-n // cores), 1024)
    used = -(-n // normal)
    tail = n - (used - 1) * normal
    t["normalCoreData"], t["tailCoreData"], t["ubFactor"] = normal, tail, ub
    t["normalCoreLoop"], t["tailCoreLoop"] = -(-normal // ub), -(-tail // ub)
    t["tailUbFactor"] = normal - (-(-normal // ub) - 1) * ub
    t["tailCoreTailUbFactor"] = tail - (-(-tail // ub) - 1) * ub
    return t.view(np.uint8), used


@pytest.mark.parametrize("dtype", [*FLOATS, rs.int32, rs.int64, rs.bool_], ids=lambda d: d.name)
def test_index_fill_d(dtype: Any, headers: Path) -> None:
    """ops-nn IndexFillD (tiling key 200): y = assist1 > 0 ? x : assist2, lane by lane, bit for bit (bool compared
    as int8, as the kernel does)."""
    mod = _load(
        "index/index_fill_d",
        "op_kernel/index_fill_d_apt.cpp",
        {"DTYPE_X": dtype},
        host=("op_host/arch35/index_fill_d_tiling.h", "IndexFillDTilingData", headers),
    )
    n = 2100
    rng = np.random.default_rng(6)
    x, assist2 = (rng.integers(-50, 50, n).astype(dtype.np_dtype) for _ in range(2))
    assist1 = rng.integers(-1, 2, n).astype(dtype.np_dtype)  # -1, 0 and 1 (bool: False, True)
    tiling, blocks = _index_fill_tiling(mod, n, 2, 512)
    y = _run(mod.kernel("index_fill_d"), blocks, [x, assist1, assist2], x, tiling, tiling_key=200)
    chosen = assist1.view(np.int8) > 0 if dtype is rs.bool_ else assist1.astype(np.float64) > 0
    assert y.tobytes() == np.where(chosen, x, assist2).tobytes()


# --- SmoothL1LossGrad: gradient = clamp((predict - label) / sigma, -1, 1) * dout --------------------------------
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_smooth_l1_loss_grad(dtype: Any) -> None:
    """ops-nn SmoothL1LossGrad as its kernel computes it: d = p - l, c = max(min(d, sigma), -sigma), s = c * (1 /
    sigma), g = s * dout, each step rounded once to the type (bfloat16: to float32, the result once to bfloat16);
    sigma = 2, so 1 / sigma is exact. Bit for bit."""
    mod = _load("loss/smooth_l1_loss_grad", "op_kernel/smooth_l1_loss_grad.cpp", {"DTYPE_PREDICT": dtype})
    n, sigma = 1300, 2.0
    rng = np.random.default_rng(7)
    p, lab, dout = (_as(dtype, rng.uniform(-5, 5, n)) for _ in range(3))
    tiling, blocks = _split(mod, "SmoothL1LossGradTilingData", n, 2, 256, align=512)
    t = tiling.view(mod.struct_dtype("SmoothL1LossGradTilingData"))
    t["totalLength"], t["blockTail"] = n, n - (blocks - 1) * t["blockFormer"][0]
    t["sigma"], t["negSigma"], t["recipSigma"] = sigma, -sigma, 1 / sigma
    y = _run(mod.kernel("smooth_l1_loss_grad"), blocks, [p, lab, dout], p, tiling)
    step = np.float32 if dtype is rs.bfloat16 else dtype.np_dtype

    def rnd(v: np.ndarray) -> np.ndarray:
        return v.astype(step).astype(np.float64)

    d = rnd(p.astype(np.float64) - lab.astype(np.float64))
    s = rnd(np.maximum(np.minimum(d, sigma), -sigma) * (1 / sigma))
    assert y.tobytes() == _as(dtype, rnd(s * dout.astype(np.float64))).tobytes()


# --- INInferV2: instance norm inference, y = (x - mean) * gamma / sqrt(var + eps) + beta --------------------------
@pytest.mark.parametrize("gamma_beta", [True, False], ids=["gamma_beta", "plain"])
@pytest.mark.parametrize("dtype", [rs.float32, rs.half], ids=lambda d: d.name)
def test_in_infer_v2(dtype: Any, gamma_beta: bool) -> None:
    """ops-nn INInferV2 over N x C planes of R elements (2 x 3 planes of 150: one core takes two planes, the other
    one; 128-element tiles, the last of 22): with gamma and beta y = (x - mean) * (gamma / sqrt(var + eps)) + beta,
    without y = (x - mean) / sqrt(var + eps), in float32 steps each rounded once (x widened exactly, y rounded once
    to its type); batch_mean and batch_variance are copies of mean and variance. Bit for bit."""
    mod = _load("norm/in_infer_v2", "op_kernel/in_infer_v2_apt.cpp", {"DTYPE_X": dtype})
    n_, c_, r, eps = 2, 3, 150, 1e-5
    rng = np.random.default_rng(8)
    x = _as(dtype, rng.uniform(-4, 4, n_ * c_ * r))
    gamma, beta, mean = (rng.uniform(-2, 2, n_ * c_).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.1, 3, n_ * c_).astype(np.float32)
    t = np.zeros(1, mod.struct_dtype("INInferV2TilingData"))
    fields = {"numN": n_, "numC": c_, "innerSize": r, "units": n_ * c_, "unitCores": 2, "formerCoreNum": 1}
    fields |= {"formerUnits": 4, "latterUnits": 2, "innerCores": 1, "innerPerCore": r, "ubTileSize": 128}
    fields |= {"epsilon": eps, "hasGammaBeta": int(gamma_beta), "hasBatchMean": 1, "hasBatchVar": 1}
    for name, v in fields.items():
        t[name] = v

    def run() -> np.ndarray:
        y, bm, bv = np.zeros_like(x), np.zeros_like(mean), np.zeros_like(var)
        args = (x, gamma, beta, mean, var, y, bm, bv, np.zeros(32, np.uint8), t.view(np.uint8))
        rs.launch(mod.kernel("in_infer_v2"), 2, *args)
        return np.concatenate([y.view(np.uint8), bm.view(np.uint8), bv.view(np.uint8)])

    out = both_modes(run)
    f32 = np.float32
    root = np.sqrt((var.astype(np.float64) + f32(eps)).astype(f32).astype(np.float64)).astype(f32)
    scale = (gamma.astype(np.float64) / root).astype(f32) if gamma_beta else root
    d = (x.astype(np.float64).reshape(-1, r) - mean[:, None]).astype(f32).astype(np.float64)
    if gamma_beta:
        want = ((d * scale[:, None]).astype(f32).astype(np.float64) + beta[:, None]).astype(f32)
    else:
        want = (d / root[:, None]).astype(f32)
    expect = np.concatenate([_as(dtype, want.ravel()).view(np.uint8), mean.view(np.uint8), var.view(np.uint8)])
    assert out.tobytes() == expect.tobytes()


# --- ActsULQInputGrad: x_grad = y_grad * clamp_min_mask * clamp_max_mask ------------------------------------------
@pytest.mark.parametrize("buffer_mode", [0, 1])
@pytest.mark.parametrize(
    "dtype,mask_dtype", [(rs.half, rs.bool_), (rs.half, rs.half), (rs.float32, rs.bool_), (rs.float32, rs.float32)]
)
def test_acts_ulq_input_grad(dtype: Any, mask_dtype: Any, buffer_mode: int) -> None:
    """ops-nn ActsULQInputGrad, its entry template instantiated for BUFFER_MODE (single or double buffering): the
    masks (0 or 1, bool or the gradient's type) gate the gradient, x = y * (min * max), signed zeros included. Bit
    for bit."""
    mod = _load(
        "quant/acts_ulq_input_grad",
        "op_kernel/acts_ulq_input_grad.cpp",
        {"DTYPE_Y_GRAD": dtype, "DTYPE_CLAMP_MIN_MASK": mask_dtype},
    )
    n = 1300
    rng = np.random.default_rng(9)
    y = _as(dtype, rng.uniform(-3, 3, n))
    lo, hi = (rng.integers(0, 2, n).astype(mask_dtype.np_dtype) for _ in range(2))
    tiling, blocks = _split(mod, "ActsULQInputGradTilingData", n, 2, 256, align=512)
    x = _run(mod.kernel("acts_ulq_input_grad", buffer_mode), blocks, [y, lo, hi], y, tiling)
    gate = lo.astype(np.float64) * hi.astype(np.float64)
    assert x.tobytes() == (y.astype(np.float64) * gate).astype(dtype.np_dtype).tobytes()


# --- InplaceApplyCenteredRmsProp: the centered RMSProp update ---------------------------------------------------
def test_inplace_apply_centered_rms_prop() -> None:
    """ops-nn InplaceApplyCenteredRmsProp (float32; scalars from the tiling, scalarsValid = 1): mg' = rho mg + (1 -
    rho) g, ms' = rho ms + (1 - rho) g^2, mom' = momentum mom + lr g / sqrt(ms' - mg'^2 + eps), var' = var - mom',
    each operation rounded once to float32 in the kernel's order. Bit for bit."""
    mod = _load(
        "optim/inplace_apply_centered_rms_prop", "op_kernel/inplace_apply_centered_rms_prop.cpp", {"DTYPE_VAR": rs.float32}
    )
    n = 1300
    rng = np.random.default_rng(10)
    var, mg, mom, grad = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(4))
    ms = (mg.astype(np.float64) ** 2 + rng.uniform(0.1, 1, n)).astype(np.float32)  # (ms - mg^2 > 0)
    lr, rho, momentum, eps = (np.float32(v) for v in (0.01, 0.9, 0.5, 1e-6))
    tiling, blocks = _split(mod, "InplaceApplyCenteredRmsPropTilingData", n, 2, 256, align=512)
    t = tiling.view(mod.struct_dtype("InplaceApplyCenteredRmsPropTilingData"))
    t["lr"], t["rho"], t["momentum"], t["epsilon"], t["scalarsValid"] = lr, rho, momentum, eps, 1
    scalars = [np.array([v], np.float32) for v in (lr, rho, momentum, eps)]

    def run() -> np.ndarray:
        outs = [np.zeros(n, np.float32) for _ in range(4)]
        args = (var, mg, ms, mom, *scalars, grad, *outs, np.zeros(32, np.uint8), tiling)
        rs.launch(mod.kernel("inplace_apply_centered_rms_prop"), blocks, *args)
        return np.concatenate(outs)

    out = both_modes(run)

    def f(v: Any) -> np.ndarray:  # one float32 rounding of a value computed exactly (or correctly rounded) in float64
        return np.asarray(v, np.float64).astype(np.float32).astype(np.float64)

    g, omr = grad.astype(np.float64), f(1 - np.float64(rho))
    mg2 = f(f(rho * mg.astype(np.float64)) + f(omr * g))
    ms2 = f(f(rho * ms.astype(np.float64)) + f(omr * f(g * g)))
    root = f(np.sqrt(f(f(ms2 - f(mg2 * mg2)) + eps)))
    mom2 = f(f(momentum * mom.astype(np.float64)) + f(f(lr * g) / root))
    want = np.concatenate([f(var - mom2), mg2, ms2, mom2]).astype(np.float32)
    assert out.tobytes() == want.tobytes()


# --- BNTrainingUpdateV2 / V3: batch norm from the batch's sums --------------------------------------------------
@pytest.mark.parametrize("version", [2, 3], ids=["v2", "v3"])
@pytest.mark.parametrize("dtype", [rs.float32, rs.half], ids=lambda d: d.name)
def test_bn_training_update(dtype: Any, version: int) -> None:
    """ops-nn BNTrainingUpdateV2 and V3 over N x C planes of R elements (2 x 3 planes of 150 on two cores,
    128-element tiles): per channel mean = sum / (N R), var = square_sum / (N R) - mean^2, multiplier = scale /
    sqrt(var + eps), addend = offset - multiplier mean, y = x multiplier + addend; batch_mean = mean; batch_variance
    = var (V2) or var * N R / (N R - 1) (V3, which also gives reserve_1 = mean, reserve_2 = var). Float32 steps
    each rounded once in the kernel's order (the host's 1 / (N R) and scaler rounded to float32), bit for bit."""
    op = f"bn_training_update_v{version}"
    mod = _load(f"norm/{op}", f"op_kernel/arch35/{op}.cpp", {"DTYPE_X": dtype})
    struct = f"BNTrainingUpdateV{version}TilingData"
    n_, c_, r, eps = 2, 3, 150, 1e-5
    rng = np.random.default_rng(11)
    x = _as(dtype, rng.uniform(-2, 2, n_ * c_ * r))
    planes = x.astype(np.float64).reshape(n_, c_, r)
    total, squares = (v.astype(np.float32) for v in (planes.sum(axis=(0, 2)), (planes**2).sum(axis=(0, 2))))
    scale, offset = (rng.uniform(-2, 2, c_).astype(np.float32) for _ in range(2))
    t = np.zeros(1, mod.struct_dtype(struct))
    fields = {"numN": n_, "numC": c_, "innerSize": r, "units": n_ * c_, "unitCores": 2, "formerCoreNum": 1}
    fields |= {"formerUnits": 4, "latterUnits": 2, "innerCores": 1, "innerPerCore": r, "ubTileSize": 128}
    fields |= {"epsilon": eps, "numRecip": np.float32(1 / (n_ * r)), "batchVarScaler": np.float32(n_ * r / (n_ * r - 1))}
    for name, v in fields.items():
        if name in (t.dtype.names or ()):
            t[name] = v
    stats = 2 if version == 2 else 4

    def run() -> np.ndarray:
        y, outs = np.zeros_like(x), [np.zeros(c_, np.float32) for _ in range(stats)]
        args = (x, total, squares, scale, offset, y, *outs, np.zeros(32, np.uint8), t.view(np.uint8))
        rs.launch(mod.kernel(op), 2, *args, tiling_key=0)
        return np.concatenate([y.view(np.uint8), *(o.view(np.uint8) for o in outs)])

    out = both_modes(run)

    def f(v: Any) -> np.ndarray:
        return np.asarray(v, np.float64).astype(np.float32).astype(np.float64)

    mean = f(total * f(np.float32(1 / (n_ * r))))
    var = f(f(squares * f(np.float32(1 / (n_ * r)))) - f(mean * mean))
    mul = f(scale / f(np.sqrt(f(var + np.float32(eps)))))
    add = f(offset - f(mul * mean))
    y = f(f(planes * mul[None, :, None]) + add[None, :, None]).ravel()
    want = [mean, var] if version == 2 else [mean, f(var * f(np.float32(n_ * r / (n_ * r - 1)))), mean, var]
    expect = [_as(dtype, y).view(np.uint8), *(v.astype(np.float32).view(np.uint8) for v in want)]
    assert out.tobytes() == np.concatenate(expect).tobytes()


# --- FusedCrossEntropyLossWithMaxSum: loss and softmax from a row's max and sum of exponentials ---------------------
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_fused_cross_entropy_loss_with_max_sum(dtype: Any) -> None:
    """ops-nn FusedCrossEntropyLossWithMaxSum (tiling key 0: loss and softmax; 11 rows of 150 on two cores, 64-column
    tiles): loss[b] = ln(sum_exp[b]) - predicted[b], softmax[b, v] = exp(x[b, v] - max[b]) * (1 / sum_exp[b]), in
    float32 (the logits widened exactly): within 4 float32 ulps of the exact values (Exp and Log approximate)."""
    mod = _load(
        "loss/fused_cross_entropy_loss_with_max_sum",
        "op_kernel/arch35/fused_cross_entropy_loss_with_max_sum.cpp",
    )
    rows, v = 11, 150
    rng = np.random.default_rng(12)
    x = _as(dtype, rng.uniform(-3, 3, (rows, v)))
    x64 = x.astype(np.float64)
    peak = x64.max(axis=1).astype(np.float32)
    total = np.exp(x64 - peak[:, None]).sum(axis=1).astype(np.float32)
    predicted = x64[np.arange(rows), rng.integers(0, v, rows)].astype(np.float32)
    t = np.zeros(1, mod.struct_dtype("FusedCrossEntropyLossWithMaxSumRegBaseTilingData"))
    fields = {"formerCoreNum": 1, "formerRows": 6, "latterRows": 5, "vPerLoop": 64, "vLen": v, "elementsNumber": 64}
    fields |= {"vocabDtypeId": {rs.float32: 0, rs.half: 1, rs.bfloat16: 2}[dtype], "vCores": 1, "vChunk": v}
    for name, value in fields.items():
        t[name] = value

    def run() -> np.ndarray:
        loss, soft = np.zeros(rows, np.float32), np.zeros((rows, v), np.float32)
        unused = np.zeros(8, np.float32)
        args = (peak, total, predicted, unused, unused, x, loss, soft, np.zeros(32, np.uint8), t.view(np.uint8))
        rs.launch(mod.kernel("fused_cross_entropy_loss_with_max_sum"), 2, *args, tiling_key=0)
        return np.concatenate([loss, soft.ravel()])

    out = both_modes(run)
    inv = (1 / total.astype(np.float64)).astype(np.float32).astype(np.float64)
    shifted = (x64 - peak[:, None]).astype(np.float32).astype(np.float64)
    soft = (np.exp(shifted) * inv[:, None]).astype(np.float32)
    loss = (np.log(total.astype(np.float64)) - predicted).astype(np.float32)
    assert _ulps(out, np.concatenate([loss, soft.ravel()])) <= 4


# --- the activations of the totalNum / blockFactor / ubFactor split ------------------------------------------------
#: n elements on cores of `blockFactor` = ceil(n / 3) (the last block two shorter) in 128-element UB pieces (the
#: last of each block shorter), as their host tilings split (blockFactor = CeilDiv(totalNum, coreNum))
N, CORES, UB = 1300, 3, 128


def _elementwise(mod: Any, struct: str, kernel: Any, inputs: list[np.ndarray], **fields: Any) -> np.ndarray:
    tiling, blocks = _split(mod, struct, N, CORES, UB, **fields)
    return _run(kernel, blocks, inputs, inputs[0], tiling)


@pytest.mark.parametrize("dtype", [*FLOATS, rs.int32], ids=lambda d: d.name)
def test_hard_sigmoid(dtype: Any) -> None:
    """ops-nn HardSigmoid (DTYPE_INPUT_X from the build): y = clamp(alpha x + beta, 0, 1) in float32 steps each
    rounded once (int32 converted exactly, the result truncated; half rounded to nearest even, bfloat16 ties away
    from zero, then clamped in its type). Bit for bit."""
    mod = _load("activation/hard_sigmoid", "op_kernel/arch35/hard_sigmoid.cpp", {"DTYPE_INPUT_X": dtype})
    alpha, beta = np.float32(0.2), np.float32(0.5)
    rng = np.random.default_rng(13)
    x = rng.integers(-8, 9, N).astype(np.int32) if dtype is rs.int32 else _as(dtype, rng.uniform(-4, 4, N))
    y = _elementwise(mod, "HardSigmoidTilingData", mod.kernel("hard_sigmoid", 0), [x], alpha=alpha, beta=beta)
    t = _f32(_f32(alpha * x.astype(np.float64)) + beta)
    if dtype is rs.int32:
        want = np.trunc(np.clip(t, 0, 1)).astype(np.int32)
    elif dtype is rs.float32:
        want = np.clip(t, 0, 1).astype(np.float32)
    else:
        narrow = round_half_away(t, dtype) if dtype is rs.bfloat16 else t.astype(dtype.np_dtype)
        want = np.clip(narrow.astype(np.float64), 0, 1).astype(dtype.np_dtype)
    assert y.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [rs.float32, rs.half], ids=lambda d: d.name)
def test_celu(dtype: Any) -> None:
    """ops-nn Celu: y = x >= 0 ? alpha3 x : alpha1 (exp(min(x / alpha2, 87)) - 1), in float32 (half widened
    exactly, the result rounded ties away from zero). Divs and Exp are within 1 ulp (their pages) and the chain
    is monotone in both: y lies between the chain's values at their lower and upper neighbours."""
    mod = _load("activation/celu", "op_kernel/celu.cpp", {"DTYPE_X": dtype})
    a1, a2, a3 = np.float32(1.5), np.float32(1.5), np.float32(1.0)
    x = _as(dtype, np.random.default_rng(14).uniform(-6, 3, N))
    y = _elementwise(mod, "CeluTilingData", mod.kernel("celu", 0), [x], alpha1=a1, alpha2=a2, alpha3=a3)
    x64 = x.astype(np.float64)

    def chain(end: int) -> np.ndarray:
        q = np.minimum(_near(x64 / a2)[end], 87)
        neg = _f32(a1 * _f32(_near(np.exp(q))[end] - 1))
        return _narrow(dtype, np.where(x64 >= 0, _f32(a3 * x64), neg)).astype(np.float64)

    _between(y, chain(0), chain(1))


@pytest.mark.parametrize("dtype,buffer_mode", [(rs.float32, 0), (rs.half, 1)], ids=["float32", "half"])
def test_shrink(dtype: Any, buffer_mode: int) -> None:
    """ops-nn Shrink (its entry template for the element type and BUFFER_MODE): y = x - bias where x > lambd,
    x + bias where x < -lambd, else 0, the bounds and the sums in the element type, each rounded once. Bit for bit."""
    mod = _load("activation/shrink", "op_kernel/shrink_apt.cpp")
    lambd, bias = 0.7, 0.3
    x = _as(dtype, np.random.default_rng(15).uniform(-2, 2, N))
    kernel = mod.kernel("shrink", dtype, buffer_mode)
    y = _elementwise(mod, "ShrinkTilingData", kernel, [x], lambd=lambd, bias=bias)
    t = dtype.np_dtype.type
    x64, lo, hi = x.astype(np.float64), float(t(-np.float32(lambd))), float(t(np.float32(lambd)))
    minus, plus = (_as(dtype, x64 + float(t(np.float32(b)))) for b in (-bias, bias))
    assert y.tobytes() == np.where(x64 > hi, minus, np.where(x64 < lo, plus, t(0))).astype(x.dtype).tobytes()


@pytest.mark.parametrize("dtype,buffer_mode", [(rs.float32, 1), (rs.half, 0)], ids=["float32", "half"])
def test_bnll(dtype: Any, buffer_mode: int) -> None:
    """ops-nn BNLL: y = max(x, 0) + (|x| > 10 ? exp(-|x|) : ln(1 + exp(-|x|))) in float32 (half widened exactly,
    the result rounded ties away from zero). Exp and Ln are within 1 ulp and the chain is monotone in both: y lies
    between the chain's values at their lower and upper neighbours."""
    mod = _load("activation/bnll", "op_kernel/bnll.cpp")
    x = _as(dtype, np.random.default_rng(16).uniform(-14, 14, N))
    y = _elementwise(mod, "BNLLTilingData", mod.kernel("bnll", dtype, buffer_mode), [x])
    x64 = x.astype(np.float64)

    def chain(end: int) -> np.ndarray:
        e = _near(np.exp(-np.abs(x64)))[end]
        soft = np.where(np.abs(x64) > 10, e, _near(np.log(_f32(1 + e)))[end])
        return _narrow(dtype, _f32(np.maximum(x64, 0) + soft)).astype(np.float64)

    _between(y, chain(0), chain(1))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_softsign_grad(dtype: Any) -> None:
    """ops-nn SoftsignGrad (DTYPE_GRADIENTS from the build, double buffered): y = g / (1 + |f|)^2 in float32 steps
    each rounded once (half and bfloat16 widened exactly, the result rounded ties away from zero); Div is within
    1 ulp: y lies between the results at the quotient's float32 neighbours."""
    mod = _load("activation/softsign_grad", "op_kernel/softsign_grad_apt.cpp", {"DTYPE_GRADIENTS": dtype})
    rng = np.random.default_rng(17)
    g, f = (_as(dtype, rng.uniform(-4, 4, N)) for _ in range(2))
    y = _elementwise(mod, "SoftsignGradTilingData", mod.kernel("softsign_grad", 1), [g, f])
    d = _f32(np.abs(f.astype(np.float64)) + 1)
    ends = _near(g.astype(np.float64) / _f32(d * d))
    _between(y, *(_narrow(dtype, e).astype(np.float64) for e in ends))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_hard_shrink(dtype: Any) -> None:
    """ops-nn HardShrink (DTYPE_SELF from the build; its class's aliases `IO_T`, `COMPUTE_T` in members defined
    outside it): y = |x| <= lambd ? 0 : x, compared in float32 (half and bfloat16 widened and narrowed exactly).
    Bit for bit."""
    mod = _load("activation/hard_shrink", "op_kernel/hard_shrink.cpp", {"DTYPE_SELF": dtype})
    x = _as(dtype, np.random.default_rng(18).uniform(-2, 2, N))
    x[:4] = _as(dtype, [0.5, -0.5, 0.0, -0.0])  # (the bound itself is in the dead zone)
    y = _elementwise(mod, "HardShrinkTilingData", mod.kernel("hard_shrink", 1), [x], lambd=0.5)
    assert y.tobytes() == np.where(np.abs(x.astype(np.float64)) <= 0.5, x.dtype.type(0), x).tobytes()


#: softshrink.cpp's schMode values (its tiling key), by element type
SOFTSHRINK_MODES = {rs.float32: 0, rs.half: 1, rs.bfloat16: 2}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_softshrink(dtype: Any) -> None:
    """ops-nn Softshrink: y = x - lambd where x > lambd, x + lambd where x < -lambd, else 0, in float32 steps each
    rounded once (half and bfloat16 widened exactly, the result rounded to nearest even). Bit for bit."""
    mod = _load("activation/softshrink", "op_kernel/softshrink.cpp")
    lambd = np.float32(0.7)
    x = _as(dtype, np.random.default_rng(19).uniform(-2, 2, N))
    kernel = mod.kernel("softshrink", SOFTSHRINK_MODES[dtype])
    y = _elementwise(mod, "SoftshrinkTilingData", kernel, [x], lambd=lambd)
    x64, lam = x.astype(np.float64), float(lambd)
    want = np.where(x64 > lam, _f32(x64 - lam), np.where(x64 < -lam, _f32(x64 + lam), 0.0))
    assert y.tobytes() == _as(dtype, want).tobytes()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_fast_gelu_v2(dtype: Any) -> None:
    """ops-nn FastGeluV2 (its compute type `typename ComputeType<T>::type`, a class template's specializations): y =
    x (sgn(x) (-0.1444 (min(0.7071 |x|, 1.769) - 1.769)^2 + 0.5) + 0.5), sgn(x) = clamp((x + 1e-12) / |x + 1e-12|,
    -1, 1), in float32 steps each rounded once (half and bfloat16 widened exactly, the result rounded ties away
    from zero). Div is within 1 ulp: y lies between the chain's values at the quotient's neighbours."""
    mod = _load("activation/fast_gelu_v2", "op_kernel/fast_gelu_v2_apt.cpp")
    x = _as(dtype, np.random.default_rng(20).uniform(-4, 4, N))
    y = _elementwise(mod, "FastGeluV2TilingData", mod.kernel("fast_gelu_v2", dtype, 1), [x])
    x64 = x.astype(np.float64)
    c = {v: float(np.float32(v)) for v in (1e-12, 0.7071, 1.769, -0.1444)}
    e = _f32(x64 + c[1e-12])
    d = _f32(np.minimum(_f32(c[0.7071] * np.abs(x64)), c[1.769]) - c[1.769])
    inner = _f32(_f32(c[-0.1444] * _f32(d * d)) + 0.5)

    def chain(end: int) -> np.ndarray:
        sgn = np.clip(_near(e / np.abs(e))[end], -1, 1)
        return _narrow(dtype, _f32(x64 * _f32(_f32(sgn * inner) + 0.5))).astype(np.float64)

    _between(y, chain(0), chain(1))


@pytest.mark.parametrize("dtype,buffer_mode", [(rs.float32, 0), (rs.half, 1)], ids=["float32", "half"])
def test_fused_bias_leaky_relu(dtype: Any, buffer_mode: int) -> None:
    """ops-nn FusedBiasLeakyRelu (its class's `using T_COMPUTE = float;`): s = x + bias, y = scale (s >= 0 ? s :
    negative_slope s), in the element type (float32) or float32 steps (half widened exactly, the result rounded
    ties away from zero), each rounded once. Bit for bit."""
    mod = _load("activation/fused_bias_leaky_relu", "op_kernel/fused_bias_leaky_relu.cpp", {"DTYPE_X": dtype})
    slope, scale = np.float32(0.2), np.float32(1.414213562373)
    rng = np.random.default_rng(21)
    x, bias = (_as(dtype, rng.uniform(-3, 3, N)) for _ in range(2))
    kernel = mod.kernel("fused_bias_leaky_relu", buffer_mode)
    y = _elementwise(mod, "FusedBiasLeakyReluTilingData", kernel, [x, bias], negativeSlope=slope, scale=scale)
    s = _f32(x.astype(np.float64) + bias.astype(np.float64))
    want = _f32(scale * np.where(s >= 0, s, _f32(slope * s)))
    assert y.tobytes() == _narrow(dtype, want).tobytes()


@pytest.mark.parametrize("dtype", [*FLOATS, rs.int32, rs.int8], ids=lambda d: d.name)
def test_selu(dtype: Any) -> None:
    """ops-nn Selu (its buffers sized by `ComputeTypeTraits<T>::size`, a class template's static constant): y =
    scale (max(x, 0) + min(alpha (exp(min(x, 0)) - 1), 0)) in float32 steps each rounded once (half, bfloat16 and
    int32 and int8 converted exactly; half and bfloat16 rounded ties away from zero, int32 and int8 truncated). Exp is
    within 1 ulp and the chain is monotone in it: y lies between the chain's values at its lower and upper
    neighbours. int8's path converts int32 to half by a Cast that multiplies by the SetDeqScale scale: 1, as the
    TPipe constructor's InitSocState leaves it."""
    mod = _load("activation/selu", "op_kernel/selu.cpp", {"DTYPE_X": dtype})
    alpha, scale = np.float32(1.6732632423543772848170429916717), np.float32(1.0507009873554804934193349852946)
    rng = np.random.default_rng(22)
    ints = dtype in (rs.int32, rs.int8)
    x = rng.integers(-8, 9, N).astype(dtype.np_dtype) if ints else _as(dtype, rng.uniform(-6, 4, N))
    y = _elementwise(mod, "SeluTilingData", mod.kernel("selu", 0), [x])
    x64 = x.astype(np.float64)

    def chain(end: int) -> np.ndarray:
        neg = np.minimum(_f32(alpha * _f32(_near(np.exp(np.minimum(x64, 0)))[end] - 1)), 0)
        v = _f32(scale * _f32(np.maximum(x64, 0) + neg))
        return np.trunc(v) if ints else _narrow(dtype, v).astype(np.float64)

    _between(y, chain(0), chain(1))


# --- FakeQuantWithMinMaxArgs and its gradient: Reg-layer VFs in a class built through a dependent constructor -------
def _nudged(f_min: float, f_max: float, narrow: bool, num_bits: int = 8) -> dict[str, np.float32]:
    """The host tiling's float32 nudging (fake_quant_with_min_max_args_tiling_arch35.cpp, TF's): scale, scaleInv,
    the zero point rounded half away from zero and clamped to [qMin, qMax], nudgedMin / nudgedMax and quantZero."""
    f32 = np.float32
    lo, hi, q_min, q_max = f32(f_min), f32(f_max), f32(1 if narrow else 0), f32(2**num_bits - 1)
    scale, scale_inv = (hi - lo) / (q_max - q_min), (q_max - q_min) / (hi - lo)
    zero = q_min - lo / scale
    nudged = q_min if zero < q_min else q_max if zero > q_max else f32(np.sign(zero) * np.floor(np.abs(zero) + f32(0.5)))
    n_min, n_max = (q_min - nudged) * scale, (q_max - nudged) * scale
    return {"nudgedMin": n_min, "nudgedMax": n_max, "scale": scale, "scaleInv": scale_inv,
            "quantZero": f32(np.floor(-n_min * scale_inv + f32(0.5)))}  # fmt: skip


def _fake_quant(mod: Any, struct: str, n: int, **fields: Any) -> tuple[np.ndarray, int]:
    """Its split: blockFactor = CeilDiv(totalLen, cores) aligned up to 8 floats, the last core the rest; baseLen 128
    (the host's is 8192: smaller here, so a block has several pieces and a short last one)."""
    t = np.zeros(1, mod.struct_dtype(struct))
    per_core = -(-n // CORES)
    factor = -(-per_core // 8) * 8
    cores = -(-n // factor)
    values = {"totalLen": n, "numCore": cores, "blockFactor": factor, "blockTailFactor": n - factor * (cores - 1)}
    for name, v in {**values, "baseLen": UB, **fields}.items():
        t[name] = v
    return t.view(np.uint8), cores


@pytest.mark.parametrize("narrow", [False, True], ids=["full", "narrow"])
def test_fake_quant_with_min_max_args(narrow: bool) -> None:
    """ops-nn FakeQuantWithMinMaxArgs (float32; `Regbase<schMode> op(&tilingData)`, a constructor clang leaves
    unresolved in the entry template; its `__VEC_SCOPE__` block of Reg calls): x clamped to [nudgedMin, nudgedMax],
    q = floor((x - nudgedMin) scaleInv + (0.5 - quantZero)), y = q scale, each step rounded once to float32; NaN
    passes through. Bit for bit."""
    struct = "FakeQuantWithMinMaxArgsTilingData"
    mod = _load("quant/fake_quant_with_min_max_args", "op_kernel/arch35/fake_quant_with_min_max_args.cpp", tiling=struct)
    p = _nudged(-5.3, 4.1, narrow)
    rng = np.random.default_rng(23)
    x = rng.uniform(-7, 6, N).astype(np.float32)
    x[:4] = [np.nan, p["nudgedMin"], p["nudgedMax"], -np.inf]
    tiling, cores = _fake_quant(mod, struct, N, **p)
    y = _run(mod.kernel("fake_quant_with_min_max_args", 0), cores, [x], x, tiling)
    c = np.clip(x.astype(np.float64), p["nudgedMin"], p["nudgedMax"])
    q = np.floor(_f32(_f32(_f32(c - p["nudgedMin"]) * p["scaleInv"]) + (np.float32(0.5) - p["quantZero"])))
    want = np.where(np.isnan(x), x, _f32(q * p["scale"]).astype(np.float32))
    assert y.tobytes() == want.tobytes()


def test_fake_quant_with_min_max_args_gradient() -> None:
    """ops-nn FakeQuantWithMinMaxArgsGradient (float32): y = g where nudgedMin <= x <= nudgedMax, else g * 0 with
    g's sign (a NaN x is outside). Bit for bit."""
    struct = "FakeQuantWithMinMaxArgsGradientTilingData"
    op = "quant/fake_quant_with_min_max_args_gradient"
    mod = _load(op, "op_kernel/arch35/fake_quant_with_min_max_args_gradient.cpp", tiling=struct)
    p = _nudged(-5.3, 4.1, False)
    rng = np.random.default_rng(24)
    g, x = (rng.uniform(-7, 6, N).astype(np.float32) for _ in range(2))
    x[:4] = [np.nan, p["nudgedMin"], p["nudgedMax"], np.inf]
    bounds = {"nudgedMin": p["nudgedMin"], "nudgedMax": p["nudgedMax"]}
    tiling, cores = _fake_quant(mod, struct, N, **bounds)
    y = _run(mod.kernel("fake_quant_with_min_max_args_gradient", 0), cores, [g, x], g, tiling)
    inside = (x >= p["nudgedMin"]) & (x <= p["nudgedMax"])
    assert y.tobytes() == np.where(inside, g, np.copysign(np.float32(0), g)).tobytes()


# --- FakeQuantWithMinMaxVarsPerChannelGradient: per-channel nudging, gated gradients and their sums across cores ---
#: the host tiling's dTileLen for regsim's UB: (248 KiB - 8 KiB reserved) / 36 bytes an element, down to 64 elements
PER_CHANNEL_TILE = (248 * 1024 - 8 * 1024) // 36 // 64 * 64


@pytest.mark.parametrize(
    "rows,channels,narrow",
    [(7, 100, False), (8, 24, True), (1, 15000, False)],
    ids=["rows_split", "row_batches", "channel_chunks"],
)
def test_fake_quant_with_min_max_vars_per_channel_gradient(headers: Path, rows: int, channels: int, narrow: bool) -> None:
    """ops-nn FakeQuantWithMinMaxVarsPerChannelGradient (float32, tiling key 1001), its three schedules as the host
    picks them: rows over cores with the sums merged through the workspace after SyncAll (7 x 100: one channel
    chunk; 8 x 24: two rows a batch), one row's channel chunks over cores (1 x 15000: chunks of 6784). Per channel
    scale = (max - min) / (qMax - qMin), zp = qMin - min / scale rounded to nearest even and clamped to [qMin, qMax],
    nudged bounds (qMin - zp) scale and (qMax - zp) scale, each step rounded once (the kernel's divisions are the
    0-ulp ones); bp_x = g where nudgedMin <= x <= nudgedMax, else g * 0; bp_min, bp_max the sums of g over the
    rows where x is below, above. The gradients are small integers, so every sum is exact in any order and the
    Kahan-compensated sums match bit for bit."""
    struct = "FakeQuantWithMinMaxVarsPerChannelGradientTilingData"
    host = ("op_host/fake_quant_with_min_max_vars_per_channel_gradient_tiling.h", struct, headers)
    op = "quant/fake_quant_with_min_max_vars_per_channel_gradient"
    mod = _load(op, "op_kernel/fake_quant_with_min_max_vars_per_channel_gradient.cpp", host=host)
    rng = np.random.default_rng(25)
    g = rng.integers(-20, 21, (rows, channels)).astype(np.float32)
    x = rng.uniform(-9, 9, (rows, channels)).astype(np.float32)
    lo, hi = rng.uniform(-6, -0.5, channels).astype(np.float32), rng.uniform(0.5, 6, channels).astype(np.float32)
    tile = min(PER_CHANNEL_TILE, -(-channels // 64) * 64)
    chunks = -(-channels // tile)
    used = min(rows if rows > 1 else chunks, CORES)
    q_min, q_max = (1 if narrow else 0), 255
    t = np.zeros(1, mod.struct_dtype(struct))
    fields = {"usedCoreNum": used, "totalRows": rows, "channelNum": channels, "tileLen": tile, "dTileLen": tile}
    fields |= {"quantMin": q_min, "quantMax": q_max, "numDChunks": chunks}
    if rows > 1:
        fields |= {"splitMode": 0, "rowsPerCore": rows // used, "tailRows": rows % used, "chunksPerCore": chunks}
    else:
        fields |= {"splitMode": 1, "rowsPerCore": rows, "chunksPerCore": chunks // used, "tailChunks": chunks % used}
    for name, v in fields.items():
        t[name] = v

    def run() -> list[np.ndarray]:
        outs = [np.zeros_like(g), np.zeros(channels, np.float32), np.zeros(channels, np.float32)]
        workspace = np.zeros(2 * used * -(-channels // 64) * 64, np.float32)  # (the host's user workspace)
        args = (g, x, lo, hi, *outs, workspace, t.view(np.uint8))
        rs.launch(mod.kernel("fake_quant_with_min_max_vars_per_channel_gradient"), used, *args, tiling_key=1001)
        return outs

    bp_x, bp_min, bp_max = both_modes(run)
    scale = _f32(_f32(hi.astype(np.float64) - lo) / (q_max - q_min))
    zp = _f32(q_min - _f32(lo / scale))
    zp = np.clip(np.rint(zp), q_min, q_max)  # (rint ties to even; a value outside is the bound)
    n_lo, n_hi = _f32((q_min - zp) * scale), _f32((q_max - zp) * scale)
    below, above = x < n_lo, x > n_hi
    assert bp_x.tobytes() == (g * (~below & ~above).astype(np.float32)).tobytes()
    assert bp_min.tobytes() == np.where(below, g, 0).sum(axis=0, dtype=np.float32).tobytes()
    assert bp_max.tobytes() == np.where(above, g, 0).sum(axis=0, dtype=np.float32).tobytes()


#: HardSwishGrad's and HardSwishGradV2's kernels: (operator directory, kernel file, entry, tiling struct, whether
#: the bounds -3 and 3 themselves take the linear part)
HARD_SWISH_GRADS = {
    "v1": ("activation/hard_swish_grad", "op_kernel/hard_swish_grad_apt.cpp", "hard_swish_grad", "HardSwishGradTilingData", True),
    "v2": (
        "activation/hard_swish_grad_v2",
        "op_kernel/arch35/hard_swish_grad_v2.cpp",
        "hard_swish_grad_v2",
        "HardSwishGradV2Arch35TilingData",
        False,
    ),
}


@pytest.mark.parametrize("version", list(HARD_SWISH_GRADS))
@pytest.mark.parametrize("dtype,buffer_mode", [(rs.float32, 1), (rs.half, 0), (rs.bfloat16, 1)], ids=lambda d: str(d))
def test_hard_swish_grad(dtype: Any, buffer_mode: int, version: str) -> None:
    """ops-nn HardSwishGrad and HardSwishGradV2 (their entry templates for the element type and BUFFER_MODE): d = 0
    below -3, 1 above 3, x * float32(1/3) + 0.5 between (V1 takes -3 and 3 into the linear part, V2 gives them 0 and
    1), y = g d, in float32 steps each rounded once (half and bfloat16 widened exactly, the result rounded to nearest
    even). Bit for bit."""
    op, path, entry, struct, inclusive = HARD_SWISH_GRADS[version]
    mod = _load(op, path)
    rng = np.random.default_rng(26)
    g, x = (_as(dtype, rng.uniform(-5, 5, N)) for _ in range(2))
    x[:4] = _as(dtype, [-3, 3, -0.0, 0.0])
    y = _elementwise(mod, struct, mod.kernel(entry, dtype, buffer_mode), [g, x])
    x64 = x.astype(np.float64)
    low, high = (x64 < -3, x64 > 3) if inclusive else (x64 <= -3, x64 >= 3)
    d = np.where(low, 0.0, np.where(high, 1.0, _f32(_f32(x64 * float(np.float32(1 / 3))) + 0.5)))
    assert y.tobytes() == _as(dtype, _f32(g.astype(np.float64) * d)).tobytes()


@pytest.mark.parametrize("dtype", [*FLOATS, rs.int32], ids=lambda d: d.name)
def test_relu6(dtype: Any) -> None:
    """ops-nn Relu6 (DTYPE_X from the build): y = min(max(x, 0), 6), bit for bit. Its UB piece as the host tiling
    sizes it (ubFactor = FloorAlign(UB / element size / 4, ubBlockSize 32): every block one piece here). (With
    a smaller ubFactor its Process prefetches a whole piece after the last one's start, reading past the block's
    GlobalTensor, which regsim reports as an OutOfBoundsError.)"""
    mod = _load("activation/relu6", "op_kernel/relu6.cpp", {"DTYPE_X": dtype})
    rng = np.random.default_rng(27)
    x = rng.integers(-9, 10, N).astype(np.int32) if dtype is rs.int32 else _as(dtype, rng.uniform(-9, 9, N))
    ub = 248 * 1024 // dtype.itemsize // 4 // 32 * 32
    tiling, blocks = _split(mod, "Relu6TilingData", N, CORES, ub)
    y = _run(mod.kernel("relu6"), blocks, [x], x, tiling)
    assert y.tobytes() == np.minimum(np.maximum(x, x.dtype.type(0)), x.dtype.type(6)).tobytes()


def test_relu6_prefetch_past_the_block_reported() -> None:
    """Relu6 with 128-element pieces: the prefetch of a whole piece for the last, shorter one reads past the block's
    GlobalTensor; regsim stops there (an OutOfBoundsError naming DataCopyPad and the tensor) rather than run it."""
    mod = _load("activation/relu6", "op_kernel/relu6.cpp", {"DTYPE_X": rs.float32})
    x = np.zeros(N, np.float32)
    tiling, blocks = _split(mod, "Relu6TilingData", N, CORES, UB)
    with pytest.raises(rs.errors.OutOfBoundsError, match=r"DataCopyPad: src .* GlobalTensor"):
        rs.launch(mod.kernel("relu6"), blocks, x, np.zeros_like(x), np.zeros(32, np.uint8), tiling)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_smooth_l1_loss(dtype: Any) -> None:
    """ops-nn SmoothL1Loss (DTYPE_PREDICT from the build; reduction none; `x.template ReinterpretCast<float>()` on
    its tensors): a = |p - l|, y = a < sigma ? (0.5 / sigma) a a : a - 0.5 sigma, with the host's float32 constants,
    in float32 steps each rounded once (half and bfloat16 widened exactly, the result rounded to nearest even).
    Bit for bit."""
    mod = _load("loss/smooth_l1_loss", "op_kernel/smooth_l1_loss.cpp", {"DTYPE_PREDICT": dtype})
    sigma = np.float32(1.3)
    mul, add = np.float32(0.5) / sigma, np.float32(-0.5) * sigma
    rng = np.random.default_rng(28)
    p, lab = (_as(dtype, rng.uniform(-3, 3, N)) for _ in range(2))
    y = _elementwise(
        mod, "SmoothL1LossTilingData", mod.kernel("smooth_l1_loss"), [p, lab], Sigma=sigma, MultiplyValue=mul, AddsValue=add
    )
    a = np.abs(_f32(p.astype(np.float64) - lab.astype(np.float64)))
    want = np.where(a < sigma, _f32(_f32(mul * a) * a), _f32(a + add))
    assert y.tobytes() == _as(dtype, want).tobytes()


@pytest.mark.parametrize("dtype,buffer_mode", [(rs.float32, 1), (rs.half, 0)], ids=["float32", "half"])
def test_apply_proximal_gradient_descent(dtype: Any, buffer_mode: int) -> None:
    """ops-nn ApplyProximalGradientDescent (alpha, l1, l2 one-element tensors read with GetValue): prox = var -
    alpha delta, var' = sign(prox) max(|prox| - alpha l1, 0) / (1 + alpha l2), as the kernel computes it: the
    scalars in float32 (alpha l1, 1 / (1 + alpha l2)), sign(prox) = clamp(prox 1e30, -1, 1), each step rounded once
    to float32 (half widened exactly, the result rounded to nearest even). Bit for bit."""
    mod = _load("optim/apply_proximal_gradient_descent", "op_kernel/apply_proximal_gradient_descent.cpp")
    rng = np.random.default_rng(29)
    var, delta = (_as(dtype, rng.uniform(-2, 2, N)) for _ in range(2))
    alpha, l1, l2 = (_as(dtype, [v]) for v in (0.3, 0.25, 0.6))
    var[:2], delta[:2] = _as(dtype, [0.3, 0.0]), _as(dtype, [1.0, 0.0])  # (prox = 0: sign 0)
    kernel = mod.kernel("apply_proximal_gradient_descent", dtype, buffer_mode)
    y = _elementwise(mod, "ApplyProximalGradientDescentTilingData", kernel, [var, alpha, l1, l2, delta])
    a, f1, f2 = (np.float32(v[0]) for v in (alpha, l1, l2))
    alpha_l1, inv = a * f1, np.float32(1) / (np.float32(1) + a * f2)
    prox = _f32(var.astype(np.float64) - _f32(delta.astype(np.float64) * a))
    shrunk = np.maximum(_f32(np.abs(prox) - alpha_l1), 0)
    sign = np.clip(_f32(prox * 1e30), -1, 1)
    assert y.tobytes() == _as(dtype, _f32(_f32(sign * shrunk) * inv)).tobytes()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_sigmoid_cross_entropy_with_logits_grad(dtype: Any) -> None:
    """ops-nn SigmoidCrossEntropyWithLogitsGrad (one core, 256-element tiles as its host tiling sets; its Init
    assigns `this->` members of a class template): dx = (1 / (1 + exp(-p)) - t) dout in float32 steps each rounded
    once (half and bfloat16 widened exactly, the result rounded to nearest even). Exp and Reciprocal are within
    1 ulp and the chain is monotone in both: dx lies between the chain's values at their neighbours (exp's upper
    with the reciprocal's lower, and the reverse)."""
    op = "loss/sigmoid_cross_entropy_with_logits_grad"
    mod = _load(op, "op_kernel/sigmoid_cross_entropy_with_logits_grad.cpp", {"DTYPE_PREDICT": dtype})
    rng = np.random.default_rng(30)
    p, target, dout = (_as(dtype, rng.uniform(-6, 6, N)) for _ in range(3))
    t = np.zeros(1, mod.struct_dtype("SigmoidCrossEntropyWithLogitsGradTilingData"))
    t["totalLength"], t["tileNum"] = N, 256
    kernel = mod.kernel("sigmoid_cross_entropy_with_logits_grad")
    y = _run(kernel, 1, [p, target, dout], p, t.view(np.uint8))
    p64 = p.astype(np.float64)

    def chain(end: int) -> np.ndarray:
        r = _near(1 / _f32(1 + _near(np.exp(-p64))[1 - end]))[end]
        dx = _f32(_f32(r - target.astype(np.float64)) * dout.astype(np.float64))
        return _as(dtype, dx).astype(np.float64)

    _between(y, chain(0), chain(1))


@pytest.mark.parametrize("nesterov", [0, 1], ids=["plain", "nesterov"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_apply_keras_momentum(dtype: Any, nesterov: int) -> None:
    """ops-nn ApplyKerasMomentum (DTYPE_VAR from the build; its schMode a local constant from a class template's
    static `SchModeTrait<T>::value`; lr and momentum one-element float32 tensors): accum' = momentum accum - lr grad
    (written over accum), var' = var + accum', or with use_nesterov var + momentum accum' - lr grad, in float32 steps
    each rounded once (half and bfloat16 widened exactly, both results rounded ties away from zero). The host's
    split: 512-element blocks (CeilAlign(CeilDiv(n, cores), 512), capped at tileLength, so a block is one tile).
    Bit for bit."""
    mod = _load("optim/apply_keras_momentum", "op_kernel/apply_keras_momentum.cpp", {"DTYPE_VAR": dtype})
    rng = np.random.default_rng(31)
    var, accum, grad = (_as(dtype, rng.uniform(-1, 1, N)) for _ in range(3))
    lr, momentum = np.array([0.01], np.float32), np.array([0.9], np.float32)
    t = np.zeros(1, mod.struct_dtype("ApplyKerasMomentumTilingData"))
    per_elem = 16 if dtype is rs.float32 else 32  # (the host's UB bytes an element)
    tile = 248 * 1024 // per_elem * 90 // 100 // (2048 // (8 * dtype.itemsize)) * (2048 // (8 * dtype.itemsize))
    blocks = -(-N // 512)
    for name, v in {"totalElements": N, "tileLength": tile, "blockFormer": 512, "blockNum": blocks}.items():
        t[name] = v
    t["useNesterov"] = nesterov

    def run() -> list[np.ndarray]:
        var_out, acc = np.zeros_like(var), accum.copy()  # (accum is updated in place)
        args = (var, acc, lr, grad, momentum, var_out, np.zeros(32, np.uint8), t.view(np.uint8))
        rs.launch(mod.kernel("apply_keras_momentum"), blocks, *args)
        return [var_out, acc]

    var_out, acc = both_modes(run)
    m, rate = np.float64(momentum[0]), np.float64(lr[0])
    lr_grad = _f32(grad.astype(np.float64) * rate)
    acc2 = _f32(_f32(accum.astype(np.float64) * m) - lr_grad)
    step = _f32(_f32(acc2 * m) - lr_grad) if nesterov else acc2
    var2 = _f32(var.astype(np.float64) + step)
    assert var_out.tobytes() == _narrow(dtype, var2).tobytes()
    assert acc.tobytes() == _narrow(dtype, acc2).tobytes()


#: hard_swish_apt.cpp's schMode values (its tiling key), by element type
HARD_SWISH_MODES = {rs.float32: 0, rs.half: 1, rs.bfloat16: 2}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_hard_swish(dtype: Any) -> None:
    """ops-nn HardSwish (a class for each element type, picked by `if constexpr` on schMode): y = max(x, -3)
    clamp(x + 3, 0, 6) * float32(1/6), in float32 steps each rounded once (half and bfloat16 widened exactly, the
    result rounded ties away from zero). Bit for bit."""
    mod = _load("activation/hard_swish", "op_kernel/hard_swish_apt.cpp")
    x = _as(dtype, np.random.default_rng(32).uniform(-5, 5, N))
    x[:4] = _as(dtype, [-3, 3, -0.0, 0.0])
    y = _elementwise(mod, "HardSwishTilingData", mod.kernel("hard_swish", HARD_SWISH_MODES[dtype]), [x])
    x64 = x.astype(np.float64)
    t = np.clip(_f32(x64 + 3), 0, 6)
    assert y.tobytes() == _narrow(dtype, _f32(_f32(np.maximum(x64, -3) * t) * float(np.float32(1 / 6)))).tobytes()
