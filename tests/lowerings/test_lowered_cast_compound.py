"""The half-sources / float-dst rows of the memory-level MulAddDst and Axpy (the pages' "half half float" rows;
regsim._src.lowerings.fused, docs/decisions/arithmetic.md#memory-half-float-rows): every interface against the
independent addressing oracle (regsim.testing.lowering_reference, each source addressed in its own half DataBlocks,
the result the exact value rounded once to float), Hypothesis over masks, strides, repeats and mask modes, both loop
modes, the lowerings (the library's UnPack + Cast + MulAddDst / Muls + Add), special values, the pages' worked
examples, and violations that raise and write nothing."""

from __future__ import annotations

from typing import Any

import muladddst_page_example as EX
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import assert_same, counter_mode, draw_mask, run_both

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
LANES = 64  #: elements per repeat: the float dst's (the pages: "一个迭代处理内最多处理64个输入数据")
APIS = ["MulAddDst", "Axpy"]
K = -1.375  #: Axpy's scalar (a half)


def mixed_tensors(
    n: int, seed: int, sources: int, lo: float = -100, hi: float = 100, extra: int = 0
) -> tuple[rs.UnifiedBuffer, list[Any]]:
    """A float dst of n elements and `sources` half tensors of n elements, values uniform in [lo, hi), each tensor
    256-byte aligned, a register of slack after the last (and `extra` bytes more)."""
    per = lambda d: -(-n * d.itemsize // 256) * 256  # noqa: E731
    ub = rs.UnifiedBuffer(per(rs.float32) + sources * per(rs.half) + 256 + extra)
    rng = np.random.default_rng(seed)
    dst = ub.alloc(rs.float32, n)
    dst.set(rng.uniform(lo, hi, n).astype(np.float32))
    srcs = []
    for _ in range(sources):
        srcs.append(ub.alloc(rs.half, -(-n * 2 // 256) * 128))
        srcs[-1].set(rng.uniform(lo, hi, srcs[-1].size).astype(np.float16))
    return ub, [dst, *srcs]


def call(api: str, ts: list[Any], *rest: Any, **kw: Any) -> None:
    if api == "Axpy":
        A.Axpy(ts[0], ts[1], K, *rest, **kw)
    else:
        A.MulAddDst(*ts, *rest, **kw)


def scalar(api: str) -> Any:
    return np.float16(K) if api == "Axpy" else None


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("count", [0, 1, 63, 64, 65, 131, 200])
def test_first_n(api: str, count: int) -> None:
    """dst[i] = src0[i] * src1[i] + dst[i] (Axpy: src[i] * scalar + dst[i]) for i < count, rounded once to float."""
    ub, ts = mixed_tensors(200, seed=count, sources=2 if api == "MulAddDst" else 1)
    arrays = [t.numpy() for t in ts]
    run_both(lambda: call(api, ts, count), ub)
    want = MO.first_n(api, arrays[0], arrays[1:], count, scalar(api), dst_input=True)
    assert_same(ts[0].numpy(), want, f"{api}(float, half, {count})")


@pytest.mark.parametrize("api", APIS)
def test_special_values(api: str) -> None:
    """Infinities, NaN, subnormal halves (exact in float), the half extremes, a product that cancels dst exactly."""
    h = np.array([np.inf, -np.inf, np.nan, 6e-8, -6e-8, 65504, -65504, 1.5, 0.1, 2.0, 3.0, 1e-3] * 6, np.float16)[:64]
    d = np.array([1.0, 2.0, 3.0, np.inf, -np.inf, 1e30, -1e30, -2.25, np.nan, 1e-40, -6.0, 7.0] * 6, np.float32)[:64]
    ub, ts = mixed_tensors(64, seed=0, sources=2 if api == "MulAddDst" else 1)
    ts[0].set(d)
    for t in ts[1:]:
        t.set(np.resize(h, t.size))
    arrays = [t.numpy() for t in ts]
    with np.errstate(invalid="ignore"):
        run_both(lambda: call(api, ts, 64), ub)
        want = MO.first_n(api, arrays[0], arrays[1:], 64, scalar(api), dst_input=True)
    assert_same(ts[0].numpy(), want, f"{api} special values")


@pytest.mark.parametrize("api", APIS)
def test_signed_zeros(api: str) -> None:
    """An exact zero is -0 only when the product and dst are both -0 (IEEE round-to-nearest), else +0."""
    ub, ts = mixed_tensors(64, seed=0, sources=2 if api == "MulAddDst" else 1)
    ts[0].set(np.resize(np.array([-0.0, -0.0, 0.0, 0.0, 1.375, -1.375], np.float32), 64))
    ts[1].set(np.resize(np.array([-0.0, 0.0, -0.0, 0.0, 1.0, -1.0], np.float16), ts[1].size))
    for t in ts[2:]:
        t.set(np.resize(np.array([1.0, 1.0, 1.0, 1.0, -1.375, -1.375], np.float16), t.size))
    arrays = [t.numpy() for t in ts]
    run_both(lambda: call(api, ts, 64), ub)
    want = MO.first_n(api, arrays[0], arrays[1:], 64, scalar(api), dst_input=True)
    assert_same(ts[0].numpy(), want, f"{api} signed zeros")
    # MulAddDst: src1 is 1 (the -0 product is src0's -0); Axpy: the scalar is -1.375 (the -0 product is +0 × k)
    assert np.signbit(ts[0].numpy()[:4]).tolist() == ([True, False] if api == "MulAddDst" else [False, True]) + [False] * 2


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_repeat_hypothesis(data: st.DataObject) -> None:
    """The mask/repeat interfaces: continuous and bit masks (at most 64 elements), the vector mask register
    (`is_set_mask=False`), counter mode; each source read from its own DataBlocks (16 halves) at its strides."""
    api = data.draw(st.sampled_from(APIS), "api")
    n_src = 2 if api == "MulAddDst" else 1
    mode = data.draw(st.sampled_from(["continuous", "bit", "counter", "spr"]), "mask form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk = data.draw(st.tuples(*[st.integers(1, 3)] + [st.integers(0, 3)] * n_src), "block strides")
    rep = data.draw(st.tuples(*[st.integers(0, 16)] * (1 + n_src)), "repeat strides")
    strides = (*blk, *rep)
    count = data.draw(st.integers(1, 4 * LANES), "count (counter mode)")
    reps = max(-(-count // LANES) if mode == "counter" else repeats, 1)
    n = max(MO.touched_elements(4 if j == 0 else 2, reps, blk[j], rep[j]) for j in range(1 + n_src)) + 128
    ub, ts = mixed_tensors(n, seed=data.draw(st.integers(0, 999), "seed"), sources=n_src, lo=-2, hi=2)
    arrays = [t.numpy() for t in ts]
    mask = draw_mask(data, "bit" if mode == "spr" else mode, LANES, count)
    params = (A.BinaryRepeatParams if api == "MulAddDst" else A.UnaryRepeatParams)(*strides)
    k = scalar(api)
    if mode == "counter":
        with counter_mode():
            run_both(lambda: call(api, ts, mask, repeats, params), ub)
        want = MO.counter_mode(api, arrays[0], arrays[1:], count, strides, k, dst_input=True, narrow_srcs=True)
    elif mode == "spr":
        A.SetVectorMask(rs.float32, mask[1], mask[0])
        try:
            run_both(lambda: call(api, ts, A.MASK_PLACEHOLDER, repeats, params, is_set_mask=False), ub)
        finally:
            A.ResetMask()
        want = MO.normal_mode(api, arrays[0], arrays[1:], mask, repeats, strides, k, dst_input=True, narrow_srcs=True)
    else:
        run_both(lambda: call(api, ts, mask, repeats, params), ub)
        want = MO.normal_mode(api, arrays[0], arrays[1:], mask, repeats, strides, k, dst_input=True, narrow_srcs=True)
    assert_same(ts[0].numpy(), want, f"{api}(float, half, {mode}, mask={mask}, repeat={repeats}, {strides})")


def test_lowerings() -> None:
    """The library's statements: first-n MulAddDst loads each source unpacked (DIST_UNPACK_B16) and casts it; the
    repeat interfaces and the first-n Axpy load whole half registers, UnPack the lower 64 lanes and Cast."""
    _, ts = mixed_tensors(64, seed=1, sources=2)
    ops = [r.api for r in rs.lower(A.MulAddDst, *ts, 64).records]
    assert ops == ["UpdateMask", "LoadAlign", "LoadAlign", "Cast", "Cast", "LoadAlign", "MulAddDst", "StoreAlign"]
    low = rs.lower(A.MulAddDst, *ts, 64, 1, A.BinaryRepeatParams(1, 1, 1, 8, 4, 4))
    assert low.counts()["UnPack"] == 2 and low.counts()["Cast"] == 2 and low.counts()["MulAddDst"] == 1
    assert low.counts()["Pack/mask"] == 1  # MaskPack of the source predicate
    ops = [r.api for r in rs.lower(A.Axpy, ts[0], ts[1], 0.5, 64).records]
    assert ops == ["UpdateMask", "LoadAlign", "LoadAlign", "UnPack", "Cast", "Muls", "Add", "StoreAlign"]
    low = rs.lower(A.Axpy, ts[0], ts[1], 0.5, 64, 2, A.UnaryRepeatParams(1, 1, 0, 2))
    assert low.counts()["Muls"] == 2 and low.counts()["Add"] == 2


def test_page_examples() -> None:
    """The MulAddDst page's 结果示例 (first-n, 256 elements) bit for bit, its two mask/repeat samples (mask 64 and
    mask[2] = {UINT64_MAX, 0}, repeat 4, {1, 1, 1, 8, 4, 4}) to the same result; the Axpy page's half/float sample
    (mask 64, repeat 8, {1, 1, 8, 4}) on 1..512 with (half)2.0 into zeros."""
    parse = lambda s, d: np.array(s.split(), np.float64).astype(d)  # noqa: E731
    src0, src1 = parse(EX.SRC0, np.float16), parse(EX.SRC1, np.float16)
    dst0, out = parse(EX.DST, np.float32), parse(EX.OUT, np.float32)
    for rest in (
        (256,),
        (64, 4, A.BinaryRepeatParams(1, 1, 1, 8, 4, 4)),
        ([2**64 - 1, 0], 4, A.BinaryRepeatParams(1, 1, 1, 8, 4, 4)),
    ):
        ub = rs.UnifiedBuffer(4096)
        d, a, b = ub.alloc(rs.float32, 256), ub.alloc(rs.half, 256), ub.alloc(rs.half, 256)
        d.set(dst0)
        a.set(src0)
        b.set(src1)
        run_both(lambda: A.MulAddDst(d, a, b, *rest), ub)  # noqa: B023
        assert_same(d.numpy(), out, f"the MulAddDst page's example {rest[:2]}")
    ub = rs.UnifiedBuffer(4096)
    d, s = ub.alloc(rs.float32, 512), ub.alloc(rs.half, 512)
    d.set(np.zeros(512, np.float32))
    s.set(np.arange(1, 513).astype(np.float16))
    run_both(lambda: A.Axpy(d, s, 2.0, 64, 8, A.UnaryRepeatParams(1, 1, 8, 4)), ub)
    assert_same(d.numpy(), np.arange(2, 1025, 2).astype(np.float32), "the Axpy page's half/float example")


def test_scalar_is_a_half() -> None:
    """`const half& scalarValue`: 0.1 is the half nearest 0.1 (0.0999755859375), not the float nearest."""
    _, (dst, src) = mixed_tensors(64, seed=2, sources=1)
    src.set(np.ones(src.size, np.float16))
    dst.set(np.zeros(64, np.float32))
    A.Axpy(dst, src, 0.1, 64)
    assert np.all(dst.numpy() == np.float32(np.float16(0.1)))


def test_violations_raise_and_write_nothing() -> None:
    ub, ts = mixed_tensors(256, seed=3, sources=2, extra=512)
    dst, s0, s1 = ts
    other = rs.UnifiedBuffer(2048)
    foreign = other.alloc(rs.half, 256)
    foreign.set(np.zeros(256, np.float16))
    bf = ub.alloc(rs.bfloat16, 128)
    bf.set(np.zeros(128, np.float32))
    unwritten = ub.alloc(rs.half, 128)
    p = A.BinaryRepeatParams(1, 1, 1, 8, 4, 4)
    before = ub.storage.data.copy()
    for bad, error, text in (
        (lambda: A.MulAddDst(dst, s0, bf, 64), errors.DTypeError, "src1"),
        (lambda: A.MulAddDst(dst, s0, foreign, 64), errors.ParameterError, "src1"),
        (lambda: A.MulAddDst(dst, s0, s1, 257), errors.ParameterError, "count"),
        (lambda: A.MulAddDst(dst, s0, s1, 65, 1, p), errors.ParameterError, "mask"),
        (lambda: A.MulAddDst(dst, s0, s1, [1, 1], 1, p), errors.ParameterError, "mask"),
        (lambda: A.MulAddDst(dst, s0, s1, 64, 256, p), errors.ParameterError, "repeat_time"),
        (lambda: A.MulAddDst(dst, s0, s1, 64, 4, A.UnaryRepeatParams()), errors.ParameterError, "repeat_params"),
        (lambda: A.MulAddDst(dst, s0, s1, 64, 3, A.BinaryRepeatParams(1, 1, 1, 100, 4, 4)), errors.OutOfBoundsError, ""),
        (lambda: A.MulAddDst(dst, s0, s1, 64, is_set_mask=False), errors.ParameterError, "is_set_mask"),
        (lambda: A.MulAddDst(dst, s0, unwritten, 64), errors.UninitializedReadError, ""),
        (lambda: A.MulAddDst(dst, s0, s1, 64, 1), errors.ParameterError, "arguments"),
        (lambda: A.MulAddDst(s0, dst, dst, 64), errors.DTypeError, "dst"),  # float sources, half dst: no such row
        (lambda: A.Axpy(dst, s0, "2", 64), errors.ParameterError, "scalar_value"),
        (lambda: A.Axpy(dst, s0, 2.0, 257), errors.ParameterError, "count"),
        (lambda: A.Axpy(dst, s0, 2.0, 65, 1, A.UnaryRepeatParams(1, 1, 8, 4)), errors.ParameterError, "mask"),
        (lambda: A.Axpy(dst, s0, 2.0, 64, 1, p), errors.ParameterError, "repeat_params"),
        (lambda: A.Axpy(dst, unwritten, 2.0, 64), errors.UninitializedReadError, ""),
        (lambda: A.Axpy(dst, unwritten, 2.0, 64, 1, A.UnaryRepeatParams(1, 1, 8, 4)), errors.UninitializedReadError, ""),
        (lambda: A.Axpy(dst, foreign, 2.0, 64), errors.ParameterError, "src"),
        (lambda: A.Axpy(dst, s0, 2.0, 64, 1), errors.ParameterError, "arguments"),
        (lambda: A.Axpy(dst, s0, 2.0, 64, is_set_mask=False), errors.ParameterError, "is_set_mask"),
    ):
        with pytest.raises(error, match=f"^(MulAddDst|Axpy).*{text}"):
            bad()
        assert np.array_equal(ub.storage.data, before)


def test_overlap_refused() -> None:
    """The pages' "源操作数的数据类型为half、目的操作数的数据类型为float的情况下，不支持地址重叠": a half source
    inside the float dst is a ParameterError, and nothing is written."""
    ub = rs.UnifiedBuffer(2048)
    dst = ub.alloc(rs.float32, 128)
    dst.set(np.ones(128, np.float32))
    inside = dst.ReinterpretCast(rs.half)
    other = ub.alloc(rs.half, 128)
    other.set(np.ones(128, np.float16))
    before = ub.storage.data.copy()
    for bad in (lambda: A.MulAddDst(dst, other, inside, 64), lambda: A.Axpy(dst, inside, 1.0, 64, 1, A.UnaryRepeatParams())):
        with pytest.raises(errors.ParameterError, match="overlap"):
            bad()
        assert np.array_equal(ub.storage.data, before)


def test_lower_spec() -> None:
    """The `regsim lower` explorer: `src=half` gives the sources their own type."""
    spec = rs._src.lowerings.explorer.lower_spec
    assert spec("MulAddDst(float32, src=half, count=64)").counts()["Cast"] == 2
    counts = spec("Axpy(float32, src=half, scalar_value=2.0, mask=64, repeat_time=2, repeat_params=(1, 1, 8, 4))").counts()
    assert counts["UnPack"] == 2 and counts["Muls"] == 2
    with pytest.raises(errors.ParameterError, match="src"):
        spec("MulAddDst(float32, src=nothing, count=64)")
