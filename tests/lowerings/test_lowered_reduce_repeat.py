"""The memory-level ReduceRepeat (SUM / MAX / MIN, every ReduceOrder), ReduceDataBlock and ReducePairElem
(regsim._src.lowerings.reduce_repeat): every API x reduce type x dtype against the independent oracle of
regsim.testing.lowering_reference (`reduce_per_repeat`), Hypothesis over masks (continuous, bit, the vector mask
register), repeats, the three strides and both mask modes, constraint violations that raise and write nothing,
both loop modes agreeing bit for bit, the lowering explorer and the pages' examples."""

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
RT, RO = A.ReduceType, A.ReduceOrder
ORDERS = list(RO)
#: 950 dtypes, written from the pages' "数据类型": ReduceRepeat SUM's (dst, src) table, MAX / MIN one type;
#: ReduceDataBlock and ReducePairElem half and float
REPEAT_SUM = [
    (rs.int32, rs.int16),
    (rs.int32, rs.int32),
    (rs.uint32, rs.uint16),
    (rs.uint32, rs.uint32),
    (rs.half, rs.half),
    (rs.float32, rs.float32),
]
REPEAT_MINMAX = [rs.int16, rs.uint16, rs.half, rs.int32, rs.uint32, rs.float32]
FLOATS = [rs.half, rs.float32]
APIS = {"ReduceRepeat": A.ReduceRepeat, "ReduceDataBlock": A.ReduceDataBlock, "ReducePairElem": A.ReducePairElem}
U64 = 2**64 - 1


def cases() -> list[tuple[str, Any, Any, Any]]:
    """(api, reduce type, dst dtype, src dtype) of every supported combination."""
    out: list[tuple[str, Any, Any, Any]] = [("ReduceRepeat", RT.SUM, d, s) for d, s in REPEAT_SUM]
    out += [("ReduceRepeat", k, t, t) for k in (RT.MAX, RT.MIN) for t in REPEAT_MINMAX]
    out += [("ReduceDataBlock", k, t, t) for k in RT for t in FLOATS]
    out += [("ReducePairElem", RT.SUM, t, t) for t in FLOATS]
    return out


CASES = cases()


def values(dtype: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """Floats: small integers and halves (sums exact now and then, ties often) or any value in [-100, 100);
    integers: any bits."""
    npd = np.dtype(dtype.np_dtype)
    if npd.kind in "iu":
        return rng.integers(0, 256, n * npd.itemsize, dtype=np.uint8).view(npd)
    if rng.random() < 0.5:
        return (rng.integers(-8, 9, n) / 2).astype(npd)
    return rng.uniform(-100, 100, n).astype(npd)


def width(api: str, kind: Any, src: Any, order: Any) -> int:
    if api == "ReduceDataBlock":
        return 8
    if api == "ReducePairElem":
        return 128 // src.itemsize
    if kind is RT.SUM:
        return 1
    if order in (RO.ORDER_VALUE_INDEX, RO.ORDER_INDEX_VALUE):
        return 2
    return 2 if src.itemsize == 2 and order is RO.ORDER_ONLY_INDEX else 1


def setup(dst_t: Any, src_t: Any, n_src: int, n_dst: int, seed: int, dst_pad: int = 0) -> tuple[Any, Any, Any]:
    ub = rs.UnifiedBuffer(-(-(n_src * src_t.itemsize + (n_dst + dst_pad) * dst_t.itemsize) // 256) * 256 + 1024)
    rng = np.random.default_rng(seed)
    src = ub.alloc(src_t, n_src)
    dst = ub.alloc(dst_t, n_dst + dst_pad)
    src.set(values(src_t, n_src, rng))
    dst.set(values(dst_t, n_dst + dst_pad, rng))
    return ub, dst, src


def src_extent(src_t: Any, runs: int, blk: int, rep: int) -> int:
    e = 32 // src_t.itemsize
    return max(runs, 1) * max(rep, 1) * e + 8 * max(blk, 1) * e + 256


def order_name(order: Any) -> str:
    return order.name.removeprefix("ORDER_")


def check(
    api: str,
    kind: Any,
    dst_t: Any,
    src_t: Any,
    mask: Any,
    repeat: int,
    strides: tuple[int, int, int],
    order: Any,
    counter: bool,
    seed: int,
    set_mask: bool = True,
) -> None:
    lanes = 256 // src_t.itemsize
    runs = -(-mask // lanes) if counter else repeat
    n_src = src_extent(src_t, runs + repeat, strides[1], strides[2])
    w = width(api, kind, src_t, order)
    n_dst = (max(runs, 1) * max(strides[0], 1) + 1) * w
    ub, dst, src = setup(dst_t, src_t, n_src, n_dst, seed)
    before_dst, before_src = dst.numpy().copy(), src.numpy().copy()
    kw: dict[str, Any] = {"reduce_type": kind}
    if api == "ReduceRepeat" and order is not None:
        kw["order"] = order
    arg = mask
    if not set_mask:
        kw["is_set_mask"] = False
        arg = A.MASK_PLACEHOLDER

    def call() -> None:
        with counter_mode() if counter else _null():
            if not set_mask:  # the mask the caller set: SetVectorMask<T>(len) (counter mode: the count) or (high, low)
                A.SetVectorMask(src_t, *([mask[1], mask[0]] if isinstance(mask, list) else [mask]))
            APIS[api](dst, src, arg, repeat, *strides, **kw)

    run_both(call, ub)
    name = order_name(order) if order is not None else "VALUE_INDEX"
    want = MO.reduce_per_repeat(
        api,
        kind.name.lower(),
        name,
        before_dst,
        before_src,
        None if counter else mask,
        mask if counter else None,
        repeat,
        strides,
    )
    got = dst.numpy()
    assert (bits(got) == bits(want)).all(), f"{api} {kind} {dst_t.name}<-{src_t.name}: got {got[:16]} want {want[:16]}"
    assert (bits(src.numpy()) == bits(before_src)).all()


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: Any) -> None:
        return None


@pytest.mark.parametrize(("api", "kind", "dst_t", "src_t"), CASES, ids=lambda x: getattr(x, "name", str(x)))
def test_every_case_full_mask_contiguous(api: str, kind: Any, dst_t: Any, src_t: Any) -> None:
    lanes = 256 // src_t.itemsize
    orders = ORDERS if api == "ReduceRepeat" and kind is not RT.SUM else [None]
    for order in orders:
        check(api, kind, dst_t, src_t, min(lanes, 128), 3, (1, 1, 8), order, False, 1)
        check(api, kind, dst_t, src_t, [U64, U64 if lanes == 128 else 0], 3, (1, 1, 8), order, False, 2)


def masks(src_t: Any) -> st.SearchStrategy[Any]:
    lanes = 256 // src_t.itemsize
    cont = st.integers(1, min(lanes, 128))
    if lanes == 128:
        bitm = st.tuples(st.integers(0, U64), st.integers(0, U64)).filter(lambda m: m != (0, 0)).map(list)
    else:
        bitm = st.integers(1, (1 << lanes) - 1).map(lambda m: [m, 0])
    return st.one_of(cont, bitm)


@st.composite
def draws(draw: Any) -> tuple[Any, ...]:
    api, kind, dst_t, src_t = draw(st.sampled_from(CASES))
    order = draw(st.sampled_from(ORDERS)) if api == "ReduceRepeat" and kind is not RT.SUM else None
    counter = draw(st.booleans())
    lanes = 256 // src_t.itemsize
    repeat = draw(st.integers(0, 5))
    strides = (draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 10)))
    if counter:
        mask = draw(st.integers(0, 4 * lanes))
        if api != "ReducePairElem" and strides[0] == 0 and repeat == 0:
            repeat = 1
    else:
        mask = draw(masks(src_t))
    set_mask = draw(st.booleans()) if not counter or mask else True
    return api, kind, dst_t, src_t, mask, repeat, strides, order, counter, set_mask


@settings(max_examples=max(10, settings.default.max_examples * 5))
@given(d=draws(), seed=st.integers(0, 2**16))
def test_hypothesis_against_oracle(d: tuple[Any, ...], seed: int) -> None:
    api, kind, dst_t, src_t, mask, repeat, strides, order, counter, set_mask = d
    check(api, kind, dst_t, src_t, mask, repeat, strides, order, counter, seed, set_mask)


# --- the pages' examples ------------------------------------------------------------------------------------------
def _example_src(base: list[float], peaks: list[tuple[int, float]]) -> np.ndarray:
    x = np.repeat(np.array(base, np.float16), 128)
    for at, v in peaks:
        x[at] = v
    return x


@pytest.mark.parametrize("bit", [False, True])
@pytest.mark.parametrize(
    ("kind", "base", "peaks"),
    [
        (RT.MAX, [1, 2, 2.5, 3], [(52, 11), (128 + 100, 12), (256 + 7, 12.5), (384 + 19, 13)]),
        (RT.MIN, [10, 20, 25, 30], [(52, 1), (128 + 100, 2), (256 + 7, 2.5), (384 + 19, 3)]),
    ],
)
def test_reduce_repeat_page_examples(kind: Any, base: list[float], peaks: list[tuple[int, float]], bit: bool) -> None:
    """The ReduceRepeat page's MAX / MIN examples (half, 512 elements, mask all 128, repeatTime 4, strides 1, 1, 8):
    the extremes sit at lanes 52, 100 and 19 of repeats 0, 1, 3 (index bits 0x0034 = 3.09944e-06, 0x0064 =
    5.96046e-06, 0x0013 = 1.13249e-06); repeat 2, "..." on the page, here holds lane 7."""
    want_v = [v for _, v in peaks]
    idx = [52, 100, 7, 19]
    mask: Any = [U64, U64] if bit else 128
    got = {}
    for order in ORDERS:
        ub = rs.UnifiedBuffer(4096)
        src, dst = ub.alloc(rs.half, 512), ub.alloc(rs.half, 16)
        src.set(_example_src(base, peaks))
        dst.set(np.zeros(16, np.float16))
        A.ReduceRepeat(dst, src, mask, 4, 1, 1, 8, order, reduce_type=kind)
        got[order] = dst.numpy().copy()
    vi = got[RO.ORDER_VALUE_INDEX]
    assert vi[0::2][:4].tolist() == want_v and vi.view(np.uint16)[1::2][:4].tolist() == idx
    assert np.float16(vi[1]) == np.float16(3.09944e-06) and np.float16(vi[7]) == np.float16(1.13249e-06)
    assert np.float16(vi[3]) == np.float16(5.96046e-06)
    iv = got[RO.ORDER_INDEX_VALUE]
    assert iv[1::2][:4].tolist() == want_v and iv.view(np.uint16)[0::2][:4].tolist() == idx
    ov = got[RO.ORDER_ONLY_VALUE]
    assert ov[:4].tolist() == want_v and ov[4:].tolist() == [0] * 12  # "[11 12 ... 13 0 0 0 ...]"
    oi = got[RO.ORDER_ONLY_INDEX]
    assert oi[:8].view(np.uint32).tolist() == idx and oi[1::2][:4].tolist() == [0] * 4  # "[3.09944e-06 0 ...]"


def test_reduce_repeat_sum_page_example() -> None:
    ub = rs.UnifiedBuffer(4096)
    src, dst = ub.alloc(rs.half, 512), ub.alloc(rs.half, 16)
    src.set(_example_src([1, 2, 3, 4], [(5, 9)]))
    A.ReduceRepeat(dst, src, [U64, U64], 4, 1, 1, 8, reduce_type=RT.SUM)
    assert dst.numpy()[:4].tolist() == [128 + 8, 256, 384, 512]


def _block_example(rows: dict[int, list[float]], fill: float) -> np.ndarray:
    x = np.full(128, fill, np.float16)
    for r, v in rows.items():
        x[8 * r : 8 * r + 8] = v
    return x


@pytest.mark.parametrize("bit", [False, True])
def test_reduce_data_block_page_examples(bit: bool) -> None:
    """The ReduceDataBlock page: MAX [2, 3, ..., 4], MIN [2, -3, ..., 4], SUM [16, 32, ..., 48] (half, one repeat
    of 128, strides 1, 1, 8; the "..." rows filled with the rows' common value)."""
    mask: Any = [U64, U64] if bit else 128
    ub = rs.UnifiedBuffer(4096)
    src, dst = ub.alloc(rs.half, 128), ub.alloc(rs.half, 16)
    mx = _block_example({1: [1, 1, 2, 1, 1, 1, 1, 1], 3: [1, 1, 1, 1, 1, 3, 1, 1], 14: [1, 1, 1, 4, 1, 1, 1, 1]}, 1)
    src.set(mx)
    A.ReduceDataBlock(dst, src, mask, 1, 1, 1, 8, reduce_type=RT.MAX)
    assert dst.numpy()[:8].tolist() == [2, 3, 1, 1, 1, 1, 1, 4]
    mn = _block_example({1: [10, 10, 10, 2, 10, 10, 10, 10], 3: [10] * 5 + [-3, 10, 10], 15: [10, 4] + [10] * 6}, 10)
    src.set(mn)
    A.ReduceDataBlock(dst, src, mask, 1, 1, 1, 8, reduce_type=RT.MIN)
    assert dst.numpy()[:8].tolist() == [2, -3, 10, 10, 10, 10, 10, 4]
    src.set(np.repeat(np.array([1, 2, 2, 2, 2, 2, 2, 3], np.float16), 16))
    A.ReduceDataBlock(dst, src, mask, 1, 1, 1, 8, reduce_type=RT.SUM)
    assert dst.numpy()[:8].tolist() == [16, 32, 32, 32, 32, 32, 32, 48]


@pytest.mark.parametrize("bit", [False, True])
def test_reduce_pair_elem_page_example(bit: bool) -> None:
    """The ReducePairElem page: [1, 1, 1, -1, 2, 2, -1, 2, 3, 3, 3, -1, 4, 4, -2, 4, ...] -> [2, 0, 4, 1, 6, 2, 8, 2, ...]."""
    mask: Any = [U64, U64] if bit else 128
    ub = rs.UnifiedBuffer(4096)
    src, dst = ub.alloc(rs.half, 128), ub.alloc(rs.half, 64)
    head = [1, 1, 1, -1, 2, 2, -1, 2, 3, 3, 3, -1, 4, 4, -2, 4]
    src.set(np.array(head * 8, np.float16))
    A.ReducePairElem(dst, src, mask, 1, 1, 1, 8, reduce_type=RT.SUM)
    assert dst.numpy()[:8].tolist() == [2, 0, 4, 1, 6, 2, 8, 2]


def test_data_block_inactive_blocks_fill_with_the_identity() -> None:
    """The page: a DataBlock with no active element gives 0 (SUM), -inf (MAX), +inf (MIN); float, mask 32."""
    ub = rs.UnifiedBuffer(4096)
    src, dst = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 8)
    src.set(np.arange(64, dtype=np.float32))
    for kind, fill in ((RT.SUM, 0.0), (RT.MAX, -np.inf), (RT.MIN, np.inf)):
        A.ReduceDataBlock(dst, src, 32, 1, 1, 1, 8, reduce_type=kind)
        assert dst.numpy()[4:].tolist() == [fill] * 4


# --- constraint violations raise and write nothing ----------------------------------------------------------------
def _bad_calls() -> list[tuple[str, Any, type[Exception]]]:
    R, D, P = A.ReduceRepeat, A.ReduceDataBlock, A.ReducePairElem

    return [
        ("repeat dtype pair", lambda t: R(t["i32"], t["h"], 64, 1, 1, 1, 8, reduce_type=RT.SUM), errors.DTypeError),
        ("max of two types", lambda t: R(t["i32"], t["i16"], 64, 1, 1, 1, 8, reduce_type=RT.MAX), errors.DTypeError),
        ("block int", lambda t: D(t["i32"], t["i32"], 64, 1, 1, 1, 8, reduce_type=RT.SUM), errors.DTypeError),
        ("pair max", lambda t: P(t["h"], t["h2"], 64, 1, 1, 1, 8, reduce_type=RT.MAX), errors.ParameterError),
        ("reduce type", lambda t: R(t["h"], t["h2"], 64, 1, 1, 1, 8, reduce_type=0), errors.ParameterError),
        ("order", lambda t: R(t["h"], t["h2"], 64, 1, 1, 1, 8, 1, reduce_type=RT.MAX), errors.ParameterError),
        (
            "order on block",
            lambda t: D(t["h"], t["h2"], 64, 1, 1, 1, 8, reduce_type=RT.MAX, order=RO.ORDER_ONLY_VALUE),
            errors.ParameterError,
        ),
        ("mask 0", lambda t: R(t["h"], t["h2"], 0, 1, 1, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("mask 129", lambda t: R(t["h"], t["h2"], 129, 1, 1, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("mask 65 b32", lambda t: R(t["f"], t["f2"], 65, 1, 1, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("bit mask 0", lambda t: R(t["h"], t["h2"], [0, 0], 1, 1, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("bit mask high b32", lambda t: R(t["f"], t["f2"], [1, 1], 1, 1, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("repeat 256", lambda t: R(t["h"], t["h2"], 64, 256, 1, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("stride 2**16", lambda t: R(t["h"], t["h2"], 64, 1, 2**16, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("negative stride", lambda t: R(t["h"], t["h2"], 64, 1, 1, -1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("src too small", lambda t: R(t["h"], t["h2"], 128, 9, 1, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("dst too small", lambda t: D(t["h"], t["h2"], 128, 4, 200, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
        ("src misaligned", lambda t: R(t["h"], t["odd"], 64, 1, 1, 1, 8, reduce_type=RT.SUM), errors.AlignmentError),
        ("dst misaligned max", lambda t: R(t["odd2"], t["h2"], 64, 1, 1, 1, 8, reduce_type=RT.MAX), errors.AlignmentError),
        ("block dst misaligned", lambda t: D(t["odd16"], t["h2"], 64, 1, 1, 1, 8, reduce_type=RT.MAX), errors.AlignmentError),
        (
            "placeholder",
            lambda t: R(t["h"], t["h2"], 64, 1, 1, 1, 8, reduce_type=RT.SUM, is_set_mask=False),
            errors.ParameterError,
        ),
        ("arguments", lambda t: R(t["h"], t["h2"], 64, 1, 1, 1, reduce_type=RT.SUM), errors.ParameterError),
        ("not a tensor", lambda t: R(t["h"], np.zeros(8), 64, 1, 1, 1, 8, reduce_type=RT.SUM), errors.ParameterError),
    ]


def _tensors() -> tuple[Any, dict[str, Any]]:
    ub = rs.UnifiedBuffer(16384)
    t = {
        "h": ub.alloc(rs.half, 1024),
        "h2": ub.alloc(rs.half, 1024),
        "f": ub.alloc(rs.float32, 512),
        "f2": ub.alloc(rs.float32, 512),
        "i32": ub.alloc(rs.int32, 256),
        "i16": ub.alloc(rs.int16, 256),
    }
    t["odd"], t["odd2"], t["odd16"] = t["h2"][1], t["h"][1], t["h"][4]  # 2 and 8 bytes off 32
    ub.storage.write(0, np.random.default_rng(3).integers(0, 256, 16384, dtype=np.uint8))
    return ub, t


@pytest.mark.parametrize(("what", "call", "err"), _bad_calls(), ids=[c[0] for c in _bad_calls()])
def test_violations_raise_and_write_nothing(what: str, call: Any, err: type[Exception]) -> None:
    ub, t = _tensors()
    before = ub.storage.data.copy()
    mask_before = rs._src.lowerings.vector_mask.vector_mask()
    with pytest.raises(err):
        call(t)
    assert (ub.storage.data == before).all(), what
    assert rs._src.lowerings.vector_mask.vector_mask() == mask_before


def test_counter_mode_violations() -> None:
    ub, t = _tensors()
    before = ub.storage.data.copy()
    with counter_mode():
        with pytest.raises(errors.ParameterError, match="repeat_time"):
            A.ReduceRepeat(t["h"], t["h2"], 64, 0, 0, 1, 8, reduce_type=RT.SUM)
        with pytest.raises(errors.ParameterError, match="mask"):
            A.ReduceRepeat(t["h"], t["h2"], 2**32, 1, 1, 1, 8, reduce_type=RT.SUM)
        with pytest.raises(errors.ParameterError):  # 3 registers of 128 from 1024: the 4th read leaves src
            A.ReduceRepeat(t["h"], t["h2"], 128 * 9, 1, 1, 1, 8, reduce_type=RT.SUM)
    assert (ub.storage.data == before).all()


def test_inside_a_vf_is_refused() -> None:
    _, t = _tensors()

    @rs.simd_vf
    def vf() -> None:
        A.ReduceRepeat(t["h"], t["h2"], 64, 1, 1, 1, 8, reduce_type=RT.SUM)

    with pytest.raises(errors.VfContextError):
        vf()


# --- the lowering explorer --------------------------------------------------------------------------------------
def test_lower_shows_the_template_branches() -> None:
    _, t = _tensors()
    low = rs.lower(A.ReduceRepeat, t["h"], t["h2"], 128, 4, 2, 1, 8, reduce_type=RT.MAX, order=RO.ORDER_INDEX_VALUE)
    names = [r.api.split("/")[0] for r in low.records]
    assert names.count("StoreUnAlignPost") == 4 and names.count("DeInterleave") == 4  # withStride: flushed per repeat
    low = rs.lower(A.ReduceRepeat, t["h"], t["h2"], 128, 4, 1, 1, 8, reduce_type=RT.SUM)
    names = [r.api.split("/")[0] for r in low.records]
    assert names.count("StoreUnAlignPost") == 1 and names.count("Reduce") == 4  # dstRepStride 1: one stream
    low = rs.lower(A.ReduceRepeat, t["h"], t["h2"], 128, 4, 0, 1, 8, reduce_type=RT.SUM)
    assert [r.api.split("/")[0] for r in low.records].count("Reduce") == 1  # dstRepStride 0: the last repeat only
    low = rs.lower(A.ReducePairElem, t["h"], t["h2"], 128, 2, 1, 1, 8, reduce_type=RT.SUM)
    assert [r.api.split("/")[0] for r in low.records].count("StoreAlign") == 2


def test_lower_spec_and_cli(python_m_regsim: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    spec = rs._src.lowerings.explorer.lower_spec
    low = spec("ReduceRepeat(half, reduce_type=MAX, mask=128, repeat_time=4, order=ORDER_ONLY_INDEX)")
    ops = [r.api.split("/")[0] for r in low.records]
    assert ops.count("Interleave") == 8
    low = spec("ReduceDataBlock(float32, reduce_type=MIN, mask=[255, 0], repeat_time=2, dst_rep_stride=3)")
    ops = [r.api.split("/")[0] for r in low.records]
    assert ops.count("ReduceDataBlock") == 2 and "MoveMask" in ops
    with pytest.raises(errors.ParameterError, match="reduce_type"):
        spec("ReduceRepeat(half, reduce_type=AVG, mask=128, repeat_time=4)")
    out = python_m_regsim("lower", "ReducePairElem(half, mask=128, repeat_time=2)", check=True)
    assert "PairReduce" in out.stdout


# --- the deprecated names (kernel_operator_vec_reduce_intf_impl.h) ------------------------------------------------
LEGACY = [
    ("WholeReduceSum", "ReduceRepeat", RT.SUM, "whole"),
    ("WholeReduceMax", "ReduceRepeat", RT.MAX, "whole"),
    ("WholeReduceMin", "ReduceRepeat", RT.MIN, "whole"),
    ("RepeatReduceSum", "ReduceRepeat", RT.SUM, "repeat"),
    ("BlockReduceSum", "ReduceDataBlock", RT.SUM, "block"),
    ("BlockReduceMax", "ReduceDataBlock", RT.MAX, "block"),
    ("BlockReduceMin", "ReduceDataBlock", RT.MIN, "block"),
    ("PairReduceSum", "ReducePairElem", RT.SUM, "block"),
]


@pytest.mark.parametrize(("old", "new", "kind", "layout"), LEGACY, ids=[c[0] for c in LEGACY])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_deprecated_names_are_the_new_apis(old: str, new: str, kind: Any, layout: str, dtype: Any) -> None:
    """Each deprecated name, with its own argument order, stores exactly what the new API stores."""
    mask: Any = 50 if layout == "repeat" else [0xF0F0F0F0F0F0F0F0, 0xFF if dtype is rs.half else 0]
    results = []
    for use_old in (True, False):
        ub, dst, src = setup(dtype, dtype, 4096, 1024, 7)
        if not use_old:
            APIS[new](dst, src, mask, 3, 2, 1, 9, reduce_type=kind)
        elif layout == "whole":
            getattr(A, old)(dst, src, mask, 3, 2, 1, 9)
        elif layout == "block":
            getattr(A, old)(dst, src, 3, mask, 2, 1, 9)
        else:
            getattr(A, old)(dst, src, 3, mask, 5, 1, 2, 9)  # dstBlkStride 5: unused
        results.append(ub.storage.data.copy())
    assert (results[0] == results[1]).all()


def test_deprecated_whole_reduce_order_and_errors() -> None:
    ub, dst, src = setup(rs.half, rs.half, 4096, 1024, 8)
    A.WholeReduceMax(dst, src, 128, 2, 1, 1, 8, RO.ORDER_INDEX_VALUE)
    first = dst.numpy()[:4].copy()
    A.ReduceRepeat(dst, src, 128, 2, 1, 1, 8, reduce_type=RT.MAX, order=RO.ORDER_INDEX_VALUE)
    assert (bits(first) == bits(dst.numpy()[:4])).all()
    before = ub.storage.data.copy()
    with pytest.raises(errors.ParameterError, match=r"^BlockReduceMax: repeat_time"):
        A.BlockReduceMax(dst, src, 256, 128, 1, 1, 8)
    with pytest.raises(errors.ParameterError, match=r"^WholeReduceSum: arguments"):
        A.WholeReduceSum(dst, src, 128, 2, 1, 1, 8, RO.ORDER_INDEX_VALUE)
    with pytest.raises(errors.ParameterError, match=r"^RepeatReduceSum: mask"):
        A.RepeatReduceSum(dst, src, 2, [U64, 0], 1, 1, 1, 8)
    with pytest.raises(errors.ParameterError, match=r"^PairReduceSum: reduce_type"):
        A.PairReduceSum(dst, src, 2, 128, 1, 1, 8, reduce_type=RT.SUM)
    assert (ub.storage.data == before).all()


@settings(max_examples=max(10, settings.default.max_examples * 2))
@given(d=draws(), seed=st.integers(0, 2**16), short_src=st.integers(0, 300), short_dst=st.integers(0, 20))
def test_hypothesis_extents(d: tuple[Any, ...], seed: int, short_src: int, short_dst: int) -> None:
    """With src and dst cut short: the call raises (ParameterError, nothing written) exactly when an element it reads
    (an active lane) lies past src or an element it writes past dst; else it matches the oracle."""
    api, kind, dst_t, src_t, mask, repeat, strides, order, counter, _ = d
    e = 32 // src_t.itemsize
    count, m = (mask, None) if counter else (None, mask)
    runs = MO.per_repeat_runs(api, src_t.itemsize, m, count, repeat, strides[0])
    w = width(api, kind, src_t, order)
    last_read = max(
        (s * strides[2] * e + (k // e) * strides[1] * e + k % e for s, _, on in runs for k in range(len(on)) if on[k]),
        default=-1,
    )
    last_written = max((slot * w + w - 1 for _, slot, _ in runs), default=-1)
    n_src, n_dst = max(1, last_read + 1 - short_src), max(1, last_written + 1 - short_dst)
    ub = rs.UnifiedBuffer(-(-(n_src * src_t.itemsize + n_dst * dst_t.itemsize) // 256) * 256 + 4096 + 256 * 8 * 4)
    rng = np.random.default_rng(seed)
    src, dst = ub.alloc(src_t, n_src), ub.alloc(dst_t, n_dst)
    src.set(values(src_t, n_src, rng))
    dst.set(values(dst_t, n_dst, rng))
    before = ub.storage.data.copy()
    kw: dict[str, Any] = {"reduce_type": kind} | ({"order": order} if order is not None else {})
    fits = last_read < n_src and last_written < n_dst
    with counter_mode() if counter else _null():
        if not fits:
            with pytest.raises(errors.ParameterError):
                APIS[api](dst, src, mask, repeat, *strides, **kw)
            assert (ub.storage.data == before).all()
            return
        APIS[api](dst, src, mask, repeat, *strides, **kw)
    name = order_name(order) if order is not None else "VALUE_INDEX"
    want = MO.reduce_per_repeat(
        api,
        kind.name.lower(),
        name,
        before[dst.addr : dst.addr + dst.nbytes].view(dst_t.np_dtype),
        before[src.addr : src.addr + src.nbytes].view(src_t.np_dtype),
        m,
        count,
        repeat,
        strides,
    )
    assert (bits(dst.numpy()) == bits(want)).all()


# --- the library's samples (examples/.../reduce_repeat, reduce_data_block, reduce_pair_elem) against their gen_data
@pytest.mark.parametrize("scenario", [1, 2, 3, 4])
@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_reduce_repeat_sample_against_gen_data(scenario: int, loops: str) -> None:
    """reduce_repeat.asc's four scenarios on gen_data.py's inputs (np.random.seed(9)): MAX ORDER_ONLY_VALUE and MIN
    [value, index] on half [1024] bit-exact against np.max / np.min / np.argmin; SUM on float [2048] and the
    unaligned [13, 57] rows (DataCopyPad to 64 per row, srcRepStride 8) within verify_result.py's float tolerance
    (rtol 1e-5, atol 1e-8: np.sum adds in another order)."""
    rng = np.random.RandomState(9)
    ub = rs.UnifiedBuffer(16384)
    if scenario in (1, 2):
        x = rng.uniform(-1, 1, 1024).astype(np.float16) if scenario == 1 else rng.uniform(1, 10, 1024).astype(np.float16)
        src, dst = ub.alloc(rs.half, 1024), ub.alloc(rs.half, 16)
        src.set(x)
        with rs.configure(loops=loops):
            if scenario == 1:
                A.ReduceRepeat(dst, src, 128, 8, 1, 1, 8, RO.ORDER_ONLY_VALUE, reduce_type=RT.MAX)
            else:
                A.ReduceRepeat(dst, src, 128, 8, 1, 1, 8, reduce_type=RT.MIN)
        rows = x.reshape(8, 128)
        if scenario == 1:
            assert (dst.numpy()[:8] == rows.max(axis=1)).all()
        else:
            got = dst.numpy()
            assert (got[0::2] == rows.min(axis=1)).all()
            assert (got.view(np.uint16)[1::2] == rows.argmin(axis=1)).all()
        return
    if scenario == 3:
        x = rng.uniform(1, 10, 2048).astype(np.float32)
        src, dst = ub.alloc(rs.float32, 2048), ub.alloc(rs.float32, 32)
        src.set(x)
        with rs.configure(loops=loops):
            A.ReduceRepeat(dst, src, 64, 32, 1, 1, 8, reduce_type=RT.SUM)
        golden = x.reshape(32, 64).sum(axis=1)
    else:
        x = rng.uniform(1, 10, (13, 57)).astype(np.float32)
        padded = np.zeros((13, 64), np.float32)
        padded[:, :57] = x
        src, dst = ub.alloc(rs.float32, 13 * 64), ub.alloc(rs.float32, 16)
        src.set(padded.ravel())
        with rs.configure(loops=loops):
            A.ReduceRepeat(dst, src, 57, 13, 1, 1, 8, reduce_type=RT.SUM)
        golden = x.sum(axis=1)
    got = dst.numpy()[: golden.size]
    assert np.allclose(got, golden, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("scenario", [1, 2, 3])
def test_reduce_data_block_sample_against_gen_data(scenario: int) -> None:
    """reduce_data_block.asc: MAX on half [256] (2 repeats), MIN on half [512] (4), SUM on float [128] (2); gen_data.py's
    np.max / np.min exactly, np.sum within the float tolerance."""
    rng = np.random.RandomState(9)
    dtype, n = (rs.half, 256) if scenario == 1 else (rs.half, 512) if scenario == 2 else (rs.float32, 128)
    x = rng.uniform(-10, 10, n).astype(dtype.np_dtype)
    ub = rs.UnifiedBuffer(8192)
    src, dst = ub.alloc(dtype, n), ub.alloc(dtype, 32)
    src.set(x)
    kind = {1: RT.MAX, 2: RT.MIN, 3: RT.SUM}[scenario]
    A.ReduceDataBlock(dst, src, 256 // dtype.itemsize, n * dtype.itemsize // 256, 1, 1, 8, reduce_type=kind)
    blocks = x.reshape(-1, 32 // dtype.itemsize)
    got = dst.numpy()[: blocks.shape[0]]
    if scenario == 1:
        assert (got == blocks.max(axis=1)).all()
    elif scenario == 2:
        assert (got == blocks.min(axis=1)).all()
    else:
        assert np.allclose(got, blocks.sum(axis=1), rtol=1e-5, atol=1e-8)


def test_reduce_pair_elem_sample_against_gen_data() -> None:
    """reduce_pair_elem.asc: 128 halves in [-1000, 1000) (seeded by us), pairs added: gen_data.py's x[2i] + x[2i+1]."""
    x = np.random.RandomState(9).uniform(-1000, 1000, 128).astype(np.float16)
    ub = rs.UnifiedBuffer(4096)
    src, dst = ub.alloc(rs.half, 128), ub.alloc(rs.half, 64)
    src.set(x)
    A.ReducePairElem(dst, src, 128, 1, 1, 1, 8, reduce_type=RT.SUM)
    assert (bits(dst.numpy()) == bits(x[0::2] + x[1::2])).all()
