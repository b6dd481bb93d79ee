"""ShiftLeft / ShiftRight with a LocalTensor of shift amounts (the pages "ShiftLeft（左移位数为Tensor）",
"ShiftRight（右移位数为Tensor）"): every dtype pair of the first-n interface against the independent oracle
(regsim.testing.lowering_reference, amounts up to twice the width), Hypothesis over sizes, counts and amounts, both loop
modes, the lowering (the two-type binary skeleton over the tensor-tensor Reg shifts), the pages' examples, and
violations that raise and write nothing (docs/decisions/arithmetic.md#memory-shift-tensor)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import assert_same, run_both

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
DTYPES = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.int32, rs.uint32, rs.int64, rs.uint64]
AMOUNT = {1: rs.int8, 2: rs.int16, 4: rs.int32, 8: rs.int64}
CASES = [(api, d) for api in ("ShiftLeft", "ShiftRight") for d in DTYPES]


def operands(dtype: Any, n: int, seed: int, max_amount: int) -> tuple[rs.UnifiedBuffer, list[Any]]:
    per = -(-n * dtype.itemsize // 256) * 256
    ub = rs.UnifiedBuffer(3 * per + 256)
    rng = np.random.default_rng(seed)
    npd = np.dtype(dtype.np_dtype)
    dst, src0 = ub.alloc(dtype, n), ub.alloc(dtype, n)
    src1 = ub.alloc(AMOUNT[dtype.itemsize], n)
    for t in (dst, src0):
        t.set(rng.integers(0, 256, n * npd.itemsize, dtype=np.uint8).view(npd))
    src1.set(rng.integers(0, max_amount + 1, n).astype(np.dtype(src1.dtype.np_dtype)))
    return ub, [dst, src0, src1]


@pytest.mark.parametrize(("api", "dtype"), CASES, ids=[f"{a}-{d.name}" for a, d in CASES])
def test_first_n_every_dtype(api: str, dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    bits = 8 * dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, (dst, src0, src1) = operands(dtype, 3 * lanes, seed=count, max_amount=min(2 * bits, 127))
        d0, a, k = dst.numpy(), src0.numpy(), src1.numpy()
        run_both(lambda: getattr(A, api)(dst, src0, src1, count), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.first_n(f"{api}:tensor", d0, [a, k], count), f"{api}({dtype.name}, count={count})")
        assert_same(src1.numpy(), k, "the amounts unchanged")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_first_n_hypothesis(data: st.DataObject) -> None:
    api, dtype = data.draw(st.sampled_from(CASES), "case")
    lanes = 256 // dtype.itemsize
    n = data.draw(st.integers(1, 4 * lanes), "size")
    count = data.draw(st.integers(0, n), "count")
    max_amount = data.draw(st.sampled_from([0, 1, 8 * dtype.itemsize - 1, 8 * dtype.itemsize, 127]), "largest amount")
    ub, (dst, src0, src1) = operands(dtype, n, data.draw(st.integers(0, 999), "seed"), max_amount)
    d0, a, k = dst.numpy(), src0.numpy(), src1.numpy()
    run_both(lambda: getattr(A, api)(dst, src0, src1, count), ub)
    assert_same(dst.numpy(), MO.first_n(f"{api}:tensor", d0, [a, k], count), f"{api}({dtype.name}, count={count})")


def test_page_examples() -> None:
    """The pages: [1 .. 512] shifted by 2 gives [4 8 12 ... 2048] (left) and [0 0 0 1 1 1 1 ... 128] (right)."""
    ub = rs.UnifiedBuffer(4096)
    dst, src0, src1 = ub.alloc(rs.int16, 512), ub.alloc(rs.int16, 512), ub.alloc(rs.int16, 512)
    src0.set(np.arange(1, 513, dtype=np.int16))
    src1.set(np.full(512, 2, np.int16))
    A.ShiftLeft(dst, src0, src1, 512)
    assert dst.numpy().tolist() == [4 * i for i in range(1, 513)]
    A.ShiftRight(dst, src0, src1, 512)
    assert dst.numpy()[:8].tolist() == [0, 0, 0, 1, 1, 1, 1, 2] and dst.numpy()[-1] == 128


def test_lowering() -> None:
    _, (dst, src0, src1) = operands(rs.uint64, 64, seed=1, max_amount=70)
    low = rs.lower(A.ShiftRight, dst, src0, src1, 40)
    assert low.counts() == {"UpdateMask": 1, "LoadAlign": 2, "ShiftRight": 1, "StoreAlign": 1}  # two registers each
    assert "int64" in next(r for r in low.records if r.api == "ShiftRight").dtypes


def _negative(d: Any, a: Any, k: Any) -> None:
    k.set(np.r_[np.full(5, 1), -1, np.full(58, 1)].astype(np.int16))
    A.ShiftLeft(d, a, k, 64)


U = A.UnaryRepeatParams()


def _elsewhere() -> Any:
    t = rs.UnifiedBuffer(512).alloc(rs.int16, 64)
    t.set(np.ones(64, np.int16))
    return t


def _violations() -> list[tuple[str, Any, type[Exception]]]:
    return [
        ("ShiftLeft mask/repeat with a tensor", lambda d, a, k, ub: A.ShiftLeft(d, a, k, 8, 1, U), errors.ParameterError),
        ("ShiftLeft unsigned amounts", lambda d, a, k, ub: A.ShiftLeft(d, a, ub.alloc(rs.uint16, 64), 8), errors.DTypeError),
        ("ShiftRight narrow amounts", lambda d, a, k, ub: A.ShiftRight(d, a, ub.alloc(rs.int8, 64), 8), errors.DTypeError),
        ("ShiftLeft negative amount", lambda d, a, k, ub: _negative(d, a, k), errors.ParameterError),
        ("ShiftRight count > amounts", lambda d, a, k, ub: A.ShiftRight(d, a, k[32], 64), errors.ParameterError),
        ("ShiftRight misaligned amounts", lambda d, a, k, ub: A.ShiftRight(d, a, k[1], 8), errors.AlignmentError),
        ("ShiftLeft is_set_mask", lambda d, a, k, ub: A.ShiftLeft(d, a, k, 8, is_set_mask=False), errors.ParameterError),
        ("ShiftRight round_en", lambda d, a, k, ub: A.ShiftRight(d, a, k, 8, round_en=True), errors.ParameterError),
        ("ShiftLeft float", lambda d, a, k, ub: A.ShiftLeft(*(ub.alloc(rs.half, 64) for _ in range(2)), k, 8), errors.DTypeError),
        ("ShiftLeft other UB", lambda d, a, k, ub: A.ShiftLeft(d, a, _elsewhere(), 8), errors.ParameterError),
    ]  # fmt: skip


@pytest.mark.parametrize(("what", "call", "error"), _violations(), ids=[v[0] for v in _violations()])
def test_violations_raise_and_write_nothing(what: str, call: Any, error: type[Exception]) -> None:
    ub, (dst, src0, src1) = operands(rs.uint16, 64, seed=3, max_amount=16)
    d0 = dst.numpy()
    with pytest.raises(error) as info:
        call(dst, src0, src1, ub)
    assert str(info.value).split(":")[0] == what.split()[0], str(info.value)
    assert_same(dst.numpy(), d0, f"{what}: dst changed")
