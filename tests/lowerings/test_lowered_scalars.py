"""The 950 tensor-scalar APIs Subs, Divs, Ands, Ors (only in their flexible-scalar form: an immediate second or first,
or a LocalTensor element on either side) and LeakyRelu, on the scalar family's skeletons. Every API x interface x
dtype x scalar form against the independent addressing oracle (regsim.testing.lowering_reference), Hypothesis over masks,
strides, repeats and mask modes, both loop modes, the lowerings (the library's `Duplicate` + tensor-tensor op; Subs2 /
Divs2 for an immediate first; the element broadcast for a LocalTensor scalar), the pages' examples, and violations
that raise and write nothing (docs/decisions/memory-level.md#memory-scalar-forms,
docs/decisions/arithmetic.md#memory-leakyrelu)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import assert_same, counter_mode, draw_mask, repeat_span, run_both, tensors

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
HALF_FLOAT = [rs.half, rs.float32]
SCALAR_B16_B32 = [rs.half, rs.bfloat16, rs.float32, rs.int16, rs.int32]
B64 = [rs.int64, rs.uint64]
CPLX = [rs.complex32, rs.complex64]
#: the pages' 950 types ("数据类型"): the first-n interface, and the mask/repeat interfaces
COUNT_DTYPES = {
    "Subs": [*SCALAR_B16_B32, *B64, *CPLX],
    "Divs": [*HALF_FLOAT, *B64, *CPLX],
    "Ands": [rs.int16, rs.uint16, *B64],
    "Ors": [rs.int16, rs.uint16, *B64],
    "LeakyRelu": HALF_FLOAT,
}
REPEAT_DTYPES = {
    "Subs": SCALAR_B16_B32,
    "Divs": HALF_FLOAT,
    "Ands": [rs.int16, rs.uint16],
    "Ors": [rs.int16, rs.uint16],
    "LeakyRelu": HALF_FLOAT,
}
#: the scalar forms: an immediate second / first, a LocalTensor element second (index 1) / first (index 0)
FORMS = {
    "Subs": ("imm1", "imm0", "elem1", "elem0"),
    "Divs": ("imm1", "imm0", "elem1", "elem0"),
    "Ands": ("imm1", "imm0", "elem1", "elem0"),
    "Ors": ("imm1", "imm0", "elem1", "elem0"),
    "LeakyRelu": ("imm1",),
}
APIS = list(COUNT_DTYPES)
COUNT_CASES = [(a, d, f) for a in APIS for d in COUNT_DTYPES[a] for f in FORMS[a]]
REPEAT_CASES = [(a, d, f) for a in APIS for d in REPEAT_DTYPES[a] for f in FORMS[a]]


def immediate(api: str, dtype: Any) -> Any:
    if dtype in CPLX:
        return 2 - 3j
    if dtype in (rs.half, rs.bfloat16, rs.float32):
        return 0.25 if api == "LeakyRelu" else -1.5
    if api == "Divs":
        return -7 if dtype is rs.int64 else 7
    return -0x5A5B if np.dtype(dtype.np_dtype).kind == "i" else 0xA5A4


def oracle_api(api: str, dtype: Any) -> str:
    """Divs on half / float32 is Reg::Div's INTRINSIC algorithm, which flushes subnormals
    (decisions/transcendental.md#transcendental-ftz)."""
    return "Divs:ftz" if api == "Divs" and dtype in HALF_FLOAT else api


def call(api: str, form: str, dst: Any, vec: Any, sc: Any, k: int, *rest: Any, **kw: Any) -> Any:
    """The call C++ makes for `form`, and the scalar the oracle uses."""
    f = getattr(A, api)
    if form == "imm1":
        s = immediate(api, dst.dtype)
        return (lambda: f(dst, vec, s, *rest, **kw)), s
    if form == "imm0":
        s = immediate(api, dst.dtype)
        return (lambda: f(dst, s, vec, *rest, **kw)), s
    idx = 0 if form == "elem0" else 1
    src0, src1 = (sc[k], vec) if idx == 0 else (vec, sc[k])
    return (lambda: f(dst, src0, src1, *rest, config=A.BinaryConfig(idx), **kw)), sc.numpy()[k]


@pytest.mark.parametrize(("api", "dtype", "form"), COUNT_CASES, ids=[f"{a}-{d.name}-{f}" for a, d, f in COUNT_CASES])
def test_first_n_every_dtype_and_form(api: str, dtype: Any, form: str) -> None:
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, (dst, vec, sc) = tensors(dtype, 3 * lanes, seed=count + len(form))
        k = (count * 7 + 5) % sc.size
        d0, v, s_all = dst.numpy(), vec.numpy(), sc.numpy()
        run, s = call(api, form, dst, vec, sc, k, count)
        run_both(run, ub)
        want = MO.first_n(oracle_api(api, dtype), d0, [v], count, s, scalar_first=form.endswith("0"))
        assert_same(dst.numpy(), want, f"{api}({dtype.name}, {form}, count={count})")
        assert_same(vec.numpy(), v, "src unchanged")
        assert_same(sc.numpy(), s_all, "the scalar's tensor unchanged")


STRIDE_SETS = [(1, 1, 8, 8), (2, 3, 16, 24), (1, 0, 9, 1)]


@pytest.mark.parametrize(("api", "dtype", "form"), REPEAT_CASES, ids=[f"{a}-{d.name}-{f}" for a, d, f in REPEAT_CASES])
@pytest.mark.parametrize("strides", STRIDE_SETS, ids=["contiguous", "strided", "gaps"])
def test_repeat_every_dtype_and_form(api: str, dtype: Any, form: str, strides: tuple[int, ...]) -> None:
    lanes = 256 // dtype.itemsize
    for mask, repeats in ((lanes // 2 + 3, 3), ([0x8000_0000_0000_0009, 0x5 if lanes > 64 else 0], 2)):
        n = max(MO.touched_elements(dtype.itemsize, repeats, strides[j], strides[j + 2]) for j in range(2)) + lanes
        ub, (dst, vec, sc) = tensors(dtype, n, seed=repeats)
        d0, v = dst.numpy(), vec.numpy()
        run, s = call(api, form, dst, vec, sc, 3, mask, repeats, A.UnaryRepeatParams(*strides))
        run_both(run, ub)
        want = MO.normal_mode(oracle_api(api, dtype), d0, [v], mask, repeats, strides, s, scalar_first=form.endswith("0"))
        assert_same(dst.numpy(), want, f"{api}({dtype.name}, {form}, mask={mask}, repeat={repeats}, {strides})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_repeat_hypothesis(data: st.DataObject) -> None:
    """Masks (continuous, bit, counter mode, the vector mask register), strides and repeats over every API, dtype
    and scalar form of the mask/repeat interfaces."""
    api, dtype, form = data.draw(st.sampled_from(REPEAT_CASES), "case")
    lanes = 256 // dtype.itemsize
    mode = data.draw(st.sampled_from(["continuous", "bit", "counter", "spr"]), "mask form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3)), "block strides (dst, src)")
    rep = data.draw(st.tuples(st.integers(0, 16), st.integers(0, 16)), "repeat strides (dst, src)")
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    _, n = repeat_span(dtype, mode, count, repeats, blk, rep, slack=lanes)
    ub, (dst, vec, sc) = tensors(dtype, n, seed=data.draw(st.integers(0, 999), "seed"))
    k = data.draw(st.integers(0, n - 1), "scalar element")
    d0, v = dst.numpy(), vec.numpy()
    mask = draw_mask(data, "bit" if mode == "spr" else mode, lanes, count)
    strides = (blk[0], blk[1], rep[0], rep[1])
    params = A.UnaryRepeatParams(*strides)
    first = form.endswith("0")
    oracle = oracle_api(api, dtype)
    if mode == "counter":
        run, s = call(api, form, dst, vec, sc, k, mask, repeats, params)
        with counter_mode():
            run_both(run, ub)
        want = MO.counter_mode(oracle, d0, [v], count, strides, s, scalar_first=first)
    elif mode == "spr":
        A.SetVectorMask(dtype, mask[1], mask[0])
        try:
            run, s = call(api, form, dst, vec, sc, k, A.MASK_PLACEHOLDER, repeats, params, is_set_mask=False)
            run_both(run, ub)
        finally:
            A.ResetMask()
        want = MO.normal_mode(oracle, d0, [v], mask, repeats, strides, s, scalar_first=first)
    else:
        run, s = call(api, form, dst, vec, sc, k, mask, repeats, params)
        run_both(run, ub)
        want = MO.normal_mode(oracle, d0, [v], mask, repeats, strides, s, scalar_first=first)
    assert_same(dst.numpy(), want, f"{api}({dtype.name}, {form}, {mode}, mask={mask}, repeat={repeats}, {strides})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_first_n_hypothesis(data: st.DataObject) -> None:
    api, dtype, form = data.draw(st.sampled_from(COUNT_CASES), "case")
    lanes = 256 // dtype.itemsize
    n = data.draw(st.integers(1, 5 * lanes), "tensor size")
    count = data.draw(st.integers(0, n), "count")
    ub, (dst, vec, sc) = tensors(dtype, n, seed=data.draw(st.integers(0, 999), "seed"))
    k = data.draw(st.integers(0, n - 1), "scalar element")
    d0, v = dst.numpy(), vec.numpy()
    run, s = call(api, form, dst, vec, sc, k, count)
    run_both(run, ub)
    want = MO.first_n(oracle_api(api, dtype), d0, [v], count, s, scalar_first=form.endswith("0"))
    assert_same(dst.numpy(), want, f"{api}({dtype.name}, {form}, count={count})")


# --- what the library does differently per form ---------------------------------------------------------------------
def test_lowerings() -> None:
    """Tensor-scalar: `Duplicate` of the scalar into dstReg, then the tensor-tensor op (Subs: src - dup; an immediate
    first, Subs2: dup - src); a LocalTensor scalar: the element's broadcast load, then the op."""
    _, (dst, vec, sc) = tensors(rs.half, 256, seed=1)
    for args, kw in (((dst, vec, 2.0, 256), {}), ((dst, 2.0, vec, 256), {})):
        low = rs.lower(A.Subs, *args, **kw)
        assert [r.api for r in low.records] == ["UpdateMask", "LoadAlign", "Duplicate/masked", "Sub", "StoreAlign"] * 2
    low = rs.lower(A.Divs, dst, sc[0], vec, 256, config=A.BinaryConfig(0))
    assert [r.api for r in low.records] == ["UpdateMask", "LoadAlign", "LoadAlign", "Div", "StoreAlign"] * 2
    low = rs.lower(A.Ands, *tensors(rs.uint16, 256, seed=2)[1][:2], 3, [1, 0], 2, A.UnaryRepeatParams())
    assert low.counts() == {"MoveMask": 1, "LoadAlign/block": 2, "Duplicate/masked": 2, "And": 2, "StoreAlign/block": 2}
    _, (d64, v64, s64) = tensors(rs.int64, 64, seed=3)
    low = rs.lower(A.Ors, d64, v64, s64[5], 64)
    assert low.counts()["Or"] == 1 and low.counts()["LoadUnAlign"] == 1  # the broadcast once, before the loop
    low = rs.lower(A.LeakyRelu, dst, vec, 0.5, 100)
    assert low.counts() == {"UpdateMask": 1, "LoadAlign": 1, "LeakyRelu": 1, "StoreAlign": 1}


def test_scalar_first_is_not_commuted() -> None:
    """Subs and Divs with an immediate first compute scalar - src and scalar / src (the library's Subs2 / Divs2)."""
    ub = rs.UnifiedBuffer(4096)
    dst, src = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64)
    src.set(np.arange(1, 65, dtype=np.float32))
    A.Subs(dst, 100.0, src, 64)
    assert dst.numpy().tolist() == [100.0 - i for i in range(1, 65)]
    A.Divs(dst, 64.0, src, 64)
    assert dst.numpy()[:4].tolist() == [64.0, 32.0, np.float32(64 / 3), 16.0]
    A.Subs(dst, src, 100.0, 64)
    assert dst.numpy().tolist() == [i - 100.0 for i in range(1, 65)]


def test_integer_divs() -> None:
    """Divs on int64 / uint64 is Reg::Div's: truncation toward zero, x / 0 all ones, MIN / -1 = MIN
    (decisions/transcendental.md#div-integer)."""
    ub = rs.UnifiedBuffer(4096)
    dst, src = ub.alloc(rs.int64, 8), ub.alloc(rs.int64, 8)
    src.set(np.array([7, -7, 0, 1, -(2**63), 2**63 - 1, 3, -3], np.int64))
    A.Divs(dst, src, -2, 8)
    assert dst.numpy().tolist() == [-3, 3, 0, 0, 2**62, -(2**62 - 1), -1, 1]
    A.Divs(dst, 9, src, 8)
    assert dst.numpy().tolist() == [1, -1, -1, 9, 0, 0, 3, -3]
    A.Divs(dst, src, -1, 8)
    assert dst.numpy()[4] == -(2**63)


# --- the pages' examples --------------------------------------------------------------------------------------------
EXAMPLE_ARGS = [(512,), (128, 4, A.UnaryRepeatParams(1, 1, 8, 8)), ([2**64 - 1, 2**64 - 1], 4, A.UnaryRepeatParams(1, 1, 8, 8))]


@pytest.mark.parametrize("rest", EXAMPLE_ARGS, ids=["count", "mask continuous", "mask bit"])
def test_page_examples(rest: tuple[Any, ...]) -> None:
    """The Subs, Divs, Ands, Ors and LeakyRelu pages' examples (half for Subs, Divs and LeakyRelu, int16 for Ands and
    Ors, 512 elements) in their three interfaces. The pages print [0 1 2 ... 511] also for Subs with src0Local[0] first
    and [1 2 3 ... 512] for Ors with 1: the formulas (1 - src1_i; x | 1) are what the library computes."""
    ub = rs.UnifiedBuffer(8192)
    dst, s0, s1 = (ub.alloc(rs.half, 512) for _ in range(3))
    idx0 = A.BinaryConfig(0)
    s0.set(np.arange(1, 513).astype(np.float16))
    s1.set(np.arange(1, 513).astype(np.float16))
    A.Subs(dst, s0, s1[0], *rest)
    assert dst.numpy().tolist() == list(range(512))
    A.Subs(dst, s0[0], s1, *rest, config=idx0)
    assert dst.numpy().tolist() == [1 - i for i in range(1, 513)]
    s0.set(np.arange(2, 1025, 2).astype(np.float16))
    s1.set(np.full(512, 2, np.float16))
    A.Divs(dst, s0, s1[0], *rest)
    assert dst.numpy().tolist() == list(range(1, 513))
    s0.set(np.full(512, 1024, np.float16))  # (src0Local[0] = 1024 is all the call reads of src0)
    A.Divs(dst, s0[0], s1, *rest, config=idx0)
    assert dst.numpy().tolist() == [512.0] * 512
    x = np.array([-287.0, 246.0, -438.0, 177.0, 596.0, -950.0, -293.0, 322.0] * 64, np.float16)
    s0.set(x)
    A.LeakyRelu(dst, s0, np.float16(0.001), *rest)
    slope = float(np.float16(0.001))
    assert_same(dst.numpy(), np.where(x < 0, (x.astype(np.float64) * slope).astype(np.float16), x), "LeakyRelu")
    ib = rs.UnifiedBuffer(8192)
    d, a, b = (ib.alloc(rs.int16, 512) for _ in range(3))
    a.set(np.arange(1, 513, dtype=np.int16))
    b.set(np.zeros(512, np.int16))
    A.Ands(d, a, b[0], *rest)
    assert d.numpy().tolist() == [0] * 512
    A.Ands(d, b[0], a, *rest, config=idx0)
    assert d.numpy().tolist() == [0] * 512
    b.set(np.ones(512, np.int16))
    A.Ors(d, a, b[0], *rest)
    assert d.numpy().tolist() == [i | 1 for i in range(1, 513)]
    A.Ors(d, b[0], a, *rest, config=idx0)
    assert d.numpy().tolist() == [i | 1 for i in range(1, 513)]


# --- violations raise and write nothing -------------------------------------------------------------------------------
class Operands:
    """One UB of random bytes holding a dst and two sources of each dtype a violation uses (64 elements each)."""

    def __init__(self) -> None:
        self.ub = rs.UnifiedBuffer(32768)
        self.ub.storage.write(0, np.random.default_rng(0).integers(0, 256, 32768, dtype=np.uint8))
        self.t: dict[str, list[Any]] = {}
        for d in (rs.float32, rs.half, rs.int8, rs.int16, rs.uint16, rs.int32, rs.int64, rs.complex64):
            self.t[d.name] = [self.ub.alloc(d, 64) for _ in range(3)]
        for d, s, _ in self.t.values():  # the sources fully written, dst too
            d.set(d.numpy())
            s.set(s.numpy())
        f = self.t["float32"]
        for x in f:
            x.set(np.linspace(-3, 3, 64, dtype=np.float32))
        self.t["int16"][2].set(np.arange(64, dtype=np.int16))
        self.t["int16"][0].set(np.arange(64, dtype=np.int16))

    def __getitem__(self, name: str) -> list[Any]:
        return self.t[name]


U = A.UnaryRepeatParams()
FAR = A.UnaryRepeatParams(1, 1, 100, 8)
VIOLATIONS: list[tuple[str, Any, type[Exception]]] = [
    ("Subs int8 (not a Subs type)", lambda o: A.Subs(*o["int8"][:2], 1, 8), errors.DTypeError),
    ("Divs int16", lambda o: A.Divs(*o["int16"][:2], 2, 8), errors.DTypeError),
    ("Ands int32", lambda o: A.Ands(*o["int32"][:2], 2, 8), errors.DTypeError),
    ("Ors int64 mask/repeat", lambda o: A.Ors(*o["int64"][:2], 2, 8, 1, U), errors.DTypeError),
    ("Divs complex64 mask/repeat", lambda o: A.Divs(*o["complex64"][:2], 2j, 8, 1, U), errors.DTypeError),
    ("LeakyRelu int32", lambda o: A.LeakyRelu(*o["int32"][:2], 2, 8), errors.DTypeError),
    ("LeakyRelu config", lambda o: A.LeakyRelu(*o["float32"][:2], 0.5, 8, config=A.BinaryConfig(0)), errors.ParameterError),
    ("LeakyRelu tensor scalar", lambda o: A.LeakyRelu(*o["float32"], 8), errors.ParameterError),
    ("Subs two immediates", lambda o: A.Subs(o["float32"][0], 1.0, 2.0, 8), errors.ParameterError),
    ("Subs count > size", lambda o: A.Subs(*o["float32"][:2], 1.0, 65), errors.ParameterError),
    ("Subs first count > size", lambda o: A.Subs(o["float32"][0], 1.0, o["float32"][1], 65), errors.ParameterError),
    ("Subs element count > size", lambda o: A.Subs(*o["float32"][:2], o["float32"][2][0], 65), errors.ParameterError),
    ("Divs mask 65 for b32", lambda o: A.Divs(*o["float32"][:2], 2.0, 65, 1, U), errors.ParameterError),
    ("Divs first repeat 256", lambda o: A.Divs(o["float32"][0], 2.0, o["float32"][1], 8, 256, U), errors.ParameterError),
    ("Ands scalar element in dst", lambda o: A.Ands(o["int16"][0], o["int16"][1], o["int16"][0][4], 64), errors.ParameterError),
    ("Ors negative uint16 scalar", lambda o: A.Ors(*o["uint16"][:2], -1, 8), errors.ParameterError),
    ("Subs store past dst", lambda o: A.Subs(*o["float32"][:2], 1.0, 64, 3, FAR), errors.OutOfBoundsError),
    ("Subs first store past dst", lambda o: A.Subs(o["float32"][0], 1.0, o["float32"][1], 64, 3, FAR), errors.OutOfBoundsError),
    ("Divs element store past dst", lambda o: A.Divs(*o["float32"][:2], o["float32"][2][0], 64, 3, FAR), errors.OutOfBoundsError),
    ("Divs config not a BinaryConfig", lambda o: A.Divs(*o["float32"], 8, config=2), errors.ParameterError),
    ("Subs misaligned src", lambda o: A.Subs(o["float32"][0], o["float32"][1][3], 1.0, 8), errors.AlignmentError),
    ("Divs scalar dtype", lambda o: A.Divs(*o["float32"][:2], o["half"][0][0], 8), errors.DTypeError),
]  # fmt: skip


@pytest.mark.parametrize(("what", "run", "error"), VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_violations_raise_and_write_nothing(what: str, run: Any, error: type[Exception]) -> None:
    o = Operands()
    before = o.ub.storage.data.copy()
    with pytest.raises(error) as info:
        run(o)
    assert str(info.value).split(":")[0] == what.split()[0], str(info.value)
    assert np.array_equal(o.ub.storage.data, before), f"{what}: the UB changed"


def test_violations_leave_the_ub_as_it_was() -> None:
    """The checks run before anything is written, and a Reg failure restores the UB (the repeat that would store
    past dst runs after two that stored)."""
    ub = rs.UnifiedBuffer(4096)
    dst, src = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64)
    dst.set(np.zeros(64, np.float32))
    src.set(np.ones(64, np.float32))
    before = ub.storage.data.copy()
    for run in (
        lambda: A.Subs(dst, 1.0, src, 64, 3, A.UnaryRepeatParams(1, 1, 100, 8)),
        lambda: A.Divs(dst, src, 2.0, 64, 3, A.UnaryRepeatParams(1, 1, 100, 8)),
        lambda: A.Subs(dst, src, src[0], 65),
        lambda: A.Ands(dst, src, 1, 8),
    ):
        with pytest.raises(errors.RegsimError):
            run()
        assert np.array_equal(ub.storage.data, before)


def test_lower_cli_names() -> None:
    for spec, op in (
        ("Subs(half, scalar_value=2.5, count=300)", "Sub"),
        ("Divs(float32, scalar_value=2.0, mask=[3, 0], repeat_time=2)", "Div"),
        ("Ands(uint16, scalar_value=255, count=10)", "And"),
        ("Ors(int64, scalar_value=1, count=10)", "Or"),
        ("LeakyRelu(half, scalar_value=0.1, mask=64, repeat_time=1)", "LeakyRelu"),
    ):
        assert op in rs._src.lowerings.explorer.lower_spec(spec).counts()
