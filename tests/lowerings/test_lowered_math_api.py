"""The high-level math APIs the operator kernels call (`Log`, `Trunc`, `Fma`: the pages under 高阶API/数学计算),
each the calCount interface (and Trunc's and Fma's sharedTmpBuffer overload, which 950 leaves unused) lowered onto one
Reg op a register: every API x dtype against the independent oracle (regsim.testing.lowering_reference: Log is
`Reg::Log`, the element function of Ln with its flushing; Trunc is Truncate's CAST_TRUNC; Fma is src0 * src1 + src2
rounded once) on inputs with subnormals and partial registers, both loop modes, the lowerings, and violations that
raise and write nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from lowering_support import assert_same, run_both, tensors

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
FLOATS = [rs.half, rs.float32]  #: the pages' T: half, float
CASES = [(api, d) for api in ("Log", "Trunc", "Fma") for d in FLOATS]


def _with_subnormals(t: Any, rng: np.random.Generator, positive: bool) -> np.ndarray:
    """Fill `t` with values in [-100, 100) (positive: (0, 100)), one in eight subnormal; returns them."""
    npd = np.dtype(t.dtype.np_dtype)
    x = rng.uniform(0 if positive else -100, 100, t.size)
    sub = rng.integers(0, 8, t.size) == 0
    x[sub] = rng.uniform(0.02, 0.98, int(sub.sum())) * float(np.finfo(npd).tiny)
    v = x.astype(npd)
    t.set(v)
    return v


def _call(api: str, ts: list[Any], count: int, tmp: Any = None) -> None:
    dst, *srcs = ts[: 4 if api == "Fma" else 2]
    getattr(A, api)(dst, *srcs, *([tmp] if tmp is not None else []), count)


def _want(api: str, d0: np.ndarray, s: list[np.ndarray], count: int) -> np.ndarray:
    if api == "Fma":  # src0 * src1 + src2 rounded once: MulAddDst's element function with src2 as its dst operand
        fused = MO.first_n("MulAddDst", s[2].copy(), s[:2], count, dst_input=True)
        out = d0.copy()
        out[:count] = fused[:count]
        return out
    return MO.first_n("Ln:ftz" if api == "Log" else "Truncate:CAST_TRUNC", d0, s[:1], count)


@pytest.mark.parametrize(("api", "dtype"), CASES, ids=[f"{a}-{d.name}" for a, d in CASES])
@pytest.mark.parametrize("tmp_buffer", [False, True], ids=["count", "sharedTmpBuffer"])
def test_first_n(api: str, dtype: Any, tmp_buffer: bool) -> None:
    if api == "Log" and tmp_buffer:
        pytest.skip("Log (base e) has no sharedTmpBuffer overload (the Log page)")
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, ts = tensors(dtype, 3 * lanes, seed=count, count=5)
        rng = np.random.default_rng(count)
        srcs = [_with_subnormals(t, rng, positive=api == "Log") for t in ts[1:4]]
        tmp = ts[4].ReinterpretCast(rs.uint8) if tmp_buffer else None
        d0 = ts[0].numpy()
        run_both(lambda: _call(api, ts, count, tmp), ub)  # noqa: B023
        assert_same(ts[0].numpy(), _want(api, d0, srcs, count), f"{api}({dtype.name}, {count})")
        for t, s in zip(ts[1:4], srcs, strict=True):
            assert_same(t.numpy(), s, "sources unchanged")


def test_special_values() -> None:
    """Log: ln(0) = -inf, ln(-1) NaN, ln(inf) = inf; Trunc: toward zero, -0.5 -> -0; Fma: rounded once (float32
    (1 + 2^-23)^2 - 1 keeps the 2^-46 a product rounded first would lose)."""
    ub = rs.UnifiedBuffer(4096)
    d, a, c = (ub.alloc(rs.float32, 64) for _ in range(3))
    a.set(np.array([0.0, -1.0, np.inf, 2.5, -2.5, -0.5, 1 + 2.0**-23, 0] + [1.0] * 56, np.float32))
    A.Log(d, a, 3)
    assert d.numpy()[0] == -np.inf and np.isnan(d.numpy()[1]) and d.numpy()[2] == np.inf
    A.Trunc(d, a, 64)
    assert d.numpy()[3:6].tolist() == [2.0, -2.0, 0.0] and np.signbit(d.numpy()[5])
    c.set(np.full(64, -1.0, np.float32))
    A.Fma(d, a, a, c, 64)
    assert d.numpy()[6] == np.float32(2.0**-22 + 2.0**-46)


def test_lowered_into_one_reg_op_a_register() -> None:
    ub = rs.UnifiedBuffer(8192)
    d, a, b, c = (ub.alloc(rs.float32, 256) for _ in range(4))
    for t in (a, b, c):
        t.set(np.ones(256, np.float32))
    assert rs.lower(A.Log, d, a, 256).counts() == {"UpdateMask": 4, "LoadAlign": 4, "Log": 4, "StoreAlign": 4}
    assert rs.lower(A.Trunc, d, a, 256).counts() == {"UpdateMask": 4, "LoadAlign": 4, "Truncate": 4, "StoreAlign": 4}
    assert rs.lower(A.Fma, d, a, b, c, 256).counts() == {"UpdateMask": 4, "LoadAlign": 12, "MulDstAdd": 4, "StoreAlign": 4}


BAD = [
    ("Log bfloat16", lambda f, h, u: A.Log(*[x.ReinterpretCast(rs.bfloat16) for x in h[:2]], 8), errors.DTypeError, "Log: dst"),
    ("Log int32", lambda f, h, u: A.Log(*[x.ReinterpretCast(rs.int32) for x in f[:2]], 8), errors.DTypeError, "Log: dst"),
    ("Trunc mixed dtypes", lambda f, h, u: A.Trunc(f[0], h[1], 8), errors.DTypeError, "Trunc: src"),
    ("Fma count too large", lambda f, h, u: A.Fma(*f, 100), errors.ParameterError, "Fma: count"),
    ("Trunc tmp not uint8", lambda f, h, u: A.Trunc(f[0], f[1], f[2], 8), errors.DTypeError, "Trunc: shared_tmp_buffer"),
    ("Fma tmp not uint8", lambda f, h, u: A.Fma(*f, h[0], 8), errors.DTypeError, "Fma: shared_tmp_buffer"),
    ("Log reuse source", lambda f, h, u: A.Log(f[0], f[1], 8, is_reuse_source=True), errors.ParameterError, "is_reuse_source"),
]


@pytest.mark.parametrize(("what", "call", "error", "says"), BAD, ids=[b[0] for b in BAD])
def test_violations_raise_and_write_nothing(what: str, call: Any, error: type[Exception], says: str) -> None:
    ub = rs.UnifiedBuffer(8192)
    f = [ub.alloc(rs.float32, 64) for _ in range(4)]
    h = [ub.alloc(rs.half, 128) for _ in range(2)]
    u = ub.alloc(rs.uint8, 256)
    for t in f:
        t.set(np.ones(64, np.float32))
    before = ub.storage.data.copy()
    with pytest.raises(error, match=says):
        call(f, h, u)
    assert np.array_equal(ub.storage.data, before), what
