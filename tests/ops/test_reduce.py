"""Reductions (the Ascend C `Reduce`, `ReduceDataBlock` and `PairReduceElem` pages) for every
documented (dst, src) pair and ReduceType against the lane oracles, with the documented binary
tree order for float sums, the first-index rule and the identities of inactive lanes, and the
legacy names."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.testing import reference as O

ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
SUM, MAX, MIN = Reg.ReduceType.SUM, Reg.ReduceType.MAX, Reg.ReduceType.MIN
PER_CASE = settings(max_examples=max(8, settings.default.max_examples // 4))

#: the pages' tables, written independently of the op specs: (dst, src, trait)
REDUCE_SUM = [
    (rs.half, rs.half, ONE), (rs.int32, rs.int16, ONE), (rs.uint32, rs.uint16, ONE), (rs.int32, rs.int32, ONE),
    (rs.uint32, rs.uint32, ONE), (rs.float32, rs.float32, ONE), (rs.int64, rs.int64, ONE), (rs.uint64, rs.uint64, ONE),
    (rs.int64, rs.int64, TWO), (rs.uint64, rs.uint64, TWO),
]  # fmt: skip
REDUCE_MINMAX = [rs.int16, rs.uint16, rs.half, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
REDUCE_CASES = [(d, s, t, SUM) for d, s, t in REDUCE_SUM] + [
    (d, d, t, k) for k in (MAX, MIN) for d in REDUCE_MINMAX for t in ((ONE, TWO) if d.itemsize == 8 else (ONE,))
]
BLOCK_SUM = [
    (rs.half, rs.half), (rs.int32, rs.int32), (rs.int32, rs.int16), (rs.uint32, rs.uint32), (rs.uint32, rs.uint16),
    (rs.float32, rs.float32),
]  # fmt: skip
BLOCK_MINMAX = [rs.half, rs.int16, rs.uint16, rs.int32, rs.uint32, rs.float32]
BLOCK_CASES = [(d, s, SUM) for d, s in BLOCK_SUM] + [(d, d, k) for k in (MAX, MIN) for d in BLOCK_MINMAX]


def _values(arr: np.ndarray, name: str) -> list[Any]:
    return list(arr) if name in O.FLOATS else [int(x) for x in arr]


def _expected(values: list[Any], name: str) -> np.ndarray:
    if name in O.FLOATS:
        return np.array(values, O.FLOATS[name])
    size = O.ITEMSIZE[name]
    return np.array([O.wrap(int(v), 8 * size, False) for v in values], f"u{size}").view(
        f"{'i' if name in O.SIGNED else 'u'}{size}"
    )


def _check(got: Reg.RegTensor[Any], want: list[Any], name: str, what: str, inputs: dict[str, Any]) -> None:
    O.assert_lanes(got.numpy(), _expected(want, name), what=what, inputs=inputs, nan_type=O.FLOATS.get(name))


@pytest.mark.parametrize(
    ("dst_t", "src_t", "trait", "kind"), REDUCE_CASES, ids=[f"{k.name}-{d.name}<-{s.name}-{t!r}" for d, s, t, k in REDUCE_CASES]
)
@PER_CASE
@given(data=st.data())
def test_reduce(dst_t, src_t, trait, kind, data):
    """SUM: the binary tree (inactive +0) in dst[0]; MAX/MIN: value and first index; other lanes 0
    (dirty dst); special values included; the mask read only at the lane's bit."""
    src = data.draw(rst.registers(src_t, trait), "src")
    mask = data.draw(rst.masks(src_t, trait, fill="noise"), "mask")
    dst = data.draw(rst.registers(dst_t, trait), "dirty dst")
    active = list(mask.lanes(src_t, trait))
    run_kind = data.draw(st.sampled_from(["Reduce", "legacy"]), "spelling")
    with rs.VEC_SCOPE():
        if run_kind == "Reduce":
            Reg.Reduce(dst, src, mask, type=kind)
        else:
            {SUM: Reg.ReduceSum, MAX: Reg.ReduceMax, MIN: Reg.ReduceMin}[kind](dst, src, mask)
    n = O.lanes_of(dst_t.name, trait is TWO)
    want = O.reduce_oracle(dst_t.name, src_t.name, _values(src.numpy(), src_t.name), active, kind.name, n)
    _check(dst, want, dst_t.name, f"Reduce {kind.name} {dst_t!r}<-{src_t!r}", {})


def test_reduce_float_sum_is_the_tree_not_numpy():
    """A float32 register where the tree and sequential / numpy orders differ; inactive lanes are
    +0, so an all -0 input sums to -0 only with every lane active."""
    x = np.array([1e8, 1.0, -1e8, 1.0] * 16, np.float32)
    dst = Reg.RegTensor(rs.float32)
    src = Reg.RegTensor.from_numpy(x)
    with rs.VEC_SCOPE():
        Reg.Reduce(dst, src, Reg.MaskReg.from_lanes(rs.float32, np.ones(64, bool)))
    tree = O.tree_sum_oracle("float32", list(x))
    assert O.bits_of(dst.numpy()[:1]) == O.bits_of(np.array([tree], np.float32))
    sequential = np.float32(0)
    for v in x:
        sequential = np.float32(sequential + v)
    assert float(dst.numpy()[0]) == 0.0 and float(sequential) == 1.0  # the orders really differ here
    neg = Reg.RegTensor.from_numpy(np.full(64, -0.0, np.float32))
    some = Reg.MaskReg.from_lanes(rs.float32, np.arange(64) < 63)
    with rs.VEC_SCOPE():
        Reg.Reduce(dst, neg, Reg.MaskReg.from_lanes(rs.float32, np.ones(64, bool)))
        all_active = dst.numpy()[0]
        Reg.Reduce(dst, neg, some)
    assert np.signbit(all_active) and not np.signbit(dst.numpy()[0])


def test_reduce_max_min_documented_cases():
    """Ties give the first index; max(-0, +0) = +0, min = -0; a NaN wins with its first index; no
    active lane gives -inf / +inf and index 0; half's index is the raw bits of lane 1 (114 reads
    as 6.8e-06)."""
    h = np.zeros(128, np.float16)
    h[114] = 7.0
    h[120] = 7.0
    dst = Reg.RegTensor(rs.half)
    full_h = Reg.MaskReg.from_lanes(rs.half, np.ones(128, bool))
    with rs.VEC_SCOPE():
        Reg.ReduceMax(dst, Reg.RegTensor.from_numpy(h), full_h)
    assert dst.numpy()[0] == 7.0 and dst.numpy()[1:2].view(np.uint16)[0] == 114
    assert abs(float(dst.numpy()[1]) - 6.8e-06) < 1e-7
    z = np.zeros(64, np.float32)
    z[0::2] = -0.0
    f = Reg.RegTensor(rs.float32)
    full_f = Reg.MaskReg.from_lanes(rs.float32, np.ones(64, bool))
    with rs.VEC_SCOPE():
        Reg.ReduceMax(f, Reg.RegTensor.from_numpy(z), full_f)
        mx = f.numpy().copy()
        Reg.ReduceMin(f, Reg.RegTensor.from_numpy(z), full_f)
        mn = f.numpy().copy()
    assert not np.signbit(mx[0]) and mx[1:2].view(np.uint32)[0] == 1
    assert np.signbit(mn[0]) and mn[1:2].view(np.uint32)[0] == 0
    n = np.arange(64, dtype=np.float32)
    n[5] = np.nan
    n[9] = np.nan
    with rs.VEC_SCOPE():
        Reg.ReduceMin(f, Reg.RegTensor.from_numpy(n), full_f)
        assert np.isnan(f.numpy()[0]) and f.numpy()[1:2].view(np.uint32)[0] == 5
        Reg.ReduceMax(f, Reg.RegTensor.from_numpy(n), Reg.MaskReg.from_lanes(rs.float32, np.zeros(64, bool)))
        assert f.numpy()[0] == -np.inf and f.numpy()[1:2].view(np.uint32)[0] == 0
    assert O.extreme_oracle("float32", list(n), [False] * 64, "MAX") == (-np.inf, 0)


def test_reduce_rules():
    """Pairs outside the table and MERGING are refused; the i16 sum widens to i32 (no overflow)."""
    a16 = Reg.RegTensor.from_numpy(np.full(128, 32767, np.int16))
    d32 = Reg.RegTensor(rs.int32)
    full = Reg.MaskReg.from_lanes(rs.int16, np.ones(128, bool))
    with rs.VEC_SCOPE():
        Reg.Reduce(d32, a16, full)
        assert d32.numpy()[0] == 128 * 32767
        with pytest.raises(rs.errors.DTypeError, match="Reduce"):
            Reg.Reduce(d32, a16, full, type=MAX)
        with pytest.raises(rs.errors.DTypeError, match="Reduce"):
            Reg.Reduce(Reg.RegTensor(rs.uint32), a16, full)
        with pytest.raises(rs.errors.UnsupportedError, match="ZEROING"):
            Reg.Reduce(d32, a16, full, mode=Reg.MaskMergeMode.MERGING)  # type: ignore[arg-type]


@pytest.mark.parametrize(("dst_t", "src_t", "kind"), BLOCK_CASES, ids=[f"{k.name}-{d.name}<-{s.name}" for d, s, k in BLOCK_CASES])
@PER_CASE
@given(data=st.data())
def test_reduce_data_block(dst_t, src_t, kind, data):
    """dst[b] = the reduction of 32-byte block b (value only), b < 8; the other lanes 0."""
    src = data.draw(rst.registers(src_t), "src")
    mask = data.draw(rst.masks(src_t, fill="noise"), "mask")
    dst = data.draw(rst.registers(dst_t), "dirty dst")
    legacy = Reg.RegTensor(dst_t)
    with rs.VEC_SCOPE():
        Reg.ReduceDataBlock(dst, src, mask, type=kind)
        {SUM: Reg.ReduceSumWithDataBlock, MAX: Reg.ReduceMaxWithDataBlock, MIN: Reg.ReduceMinWithDataBlock}[kind](
            legacy, src, mask
        )
    want = O.reduce_data_block_oracle(
        dst_t.name, src_t.name, _values(src.numpy(), src_t.name), list(mask.lanes(src_t)), kind.name, O.lanes_of(dst_t.name)
    )
    _check(dst, want, dst_t.name, f"ReduceDataBlock {kind.name}", {})
    _check(legacy, want, dst_t.name, "legacy WithDataBlock", {})


@pytest.mark.parametrize("dtype", [rs.half, rs.float32], ids=lambda d: d.name)
@PER_CASE
@given(data=st.data())
def test_pair_reduce_elem(dtype, data):
    """dst[i] = src[2i] + src[2i+1] (one active: it; none: 0), the upper half 0; PairReduceSum too."""
    src = data.draw(rst.registers(dtype), "src")
    mask = data.draw(rst.masks(dtype, fill="noise"), "mask")
    dst = data.draw(rst.registers(dtype), "dirty dst")
    legacy = Reg.RegTensor(dtype)
    with rs.VEC_SCOPE():
        Reg.PairReduceElem(dst, src, mask)
        Reg.PairReduceSum(legacy, src, mask)
    want = O.pair_reduce_oracle(dtype.name, list(src.numpy()), list(mask.lanes(dtype)))
    _check(dst, want, dtype.name, "PairReduceElem", {"src": src.numpy()})
    _check(legacy, want, dtype.name, "PairReduceSum", {})


def test_reduce_lane_functions_take_leading_axes():
    """lane(stacked inputs) == the stack of lane(each row): what a batched-loop backend relies on."""
    from regsim._src.ops import reduce as R

    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    x[1, 7] = np.nan
    on = rng.random((4, 64)) < 0.7
    on[2] = False
    for lane, options in (
        (R.reduce, {"type": MAX, "n": 64, "dtype": np.dtype(np.float32)}),
        (R.reduce, {"type": SUM, "n": 64, "dtype": np.dtype(np.float32)}),
        (R.reduce_data_block, {"type": MIN, "n": 64, "dtype": np.dtype(np.float32)}),
        (R.pair_reduce, {"type": Reg.PairReduce.SUM}),
    ):
        batched = lane(x, on, **options)
        rows = np.stack([lane(x[k], on[k], **options) for k in range(4)])
        assert np.array_equal(batched.view(np.uint32), rows.view(np.uint32)), lane.__name__


# --- batched loops: the cross-lane ops give the bits of running in order -------------------------------
@rs.simd_vf
def _cross_lane_loop_vf(out: rs.UbPtr[rs.float32], idx_out: rs.UbPtr[rs.uint32], x: rs.UbPtr[rs.float32], repeats: int) -> None:
    xr, yr, zr, wr = (Reg.RegTensor(rs.float32) for _ in range(4))
    ur, vr = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)
    index = Reg.RegTensor(rs.uint32)
    Reg.Arange(index.reinterpret(rs.int32), 5, order=Reg.IndexOrder.DECREASE_ORDER)  # set before the loop: no iteration axis
    some = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.M3)
    full = Reg.CreateMask(rs.float32)
    m0, m1 = Reg.MaskReg(), Reg.MaskReg()
    for i in range(repeats):
        Reg.LoadAlign(xr, x + 64 * i)
        Reg.Gather(yr, xr, index)
        Reg.Interleave(zr, wr, xr, yr)
        Reg.Reduce(yr, zr, some, type=Reg.ReduceType.MAX)
        Reg.ReduceDataBlock(zr, wr, some, type=Reg.ReduceType.SUM)
        Reg.PairReduceElem(wr, xr, some)
        Reg.Add(zr, zr, wr, full)
        Reg.Duplicate(wr, yr, some, mode=Reg.MaskMergeMode.MERGING)
        Reg.Add(zr, zr, wr, full)
        Reg.LoadAlign(m0, x + 64 * i)  # a data-dependent MaskReg per iteration
        Reg.Interleave(rs.uint32, m0, m1, m0, some)
        Reg.Unsqueeze(ur, m1)
        Reg.Duplicate(vr, 7, m1)
        Reg.Move(vr, ur, m0)
        Reg.StoreAlign(out + 64 * i, zr, full)
        Reg.StoreAlign(idx_out + 64 * i, vr, full)


def test_cross_lane_ops_batch_with_identical_bits():
    from regsim._src.vf.loops import _explaining

    x = np.random.default_rng(11).standard_normal(64 * 6).astype(np.float32)
    results = {}
    for mode in ("sequential", "auto"):
        ub = rs.UnifiedBuffer(64 * 1024)
        src, out, idx = ub.alloc(rs.float32, x.size), ub.alloc(rs.float32, x.size), ub.alloc(rs.uint32, x.size)
        src.set(x)
        with rs.configure(loops=mode), _explaining() as log:
            rs.asc_vf_call(_cross_lane_loop_vf, out.GetPhyAddr(), idx.GetPhyAddr(), src.GetPhyAddr(), 6)
        results[mode] = (out.numpy().tobytes(), idx.numpy().tobytes(), [d.how for d in log])
    assert results["auto"][2] == ["batched"], results["auto"][2]
    assert results["auto"][:2] == results["sequential"][:2]
