"""Batched VF loops: the same bits as running the iterations in order, or not batched at all.

Every kernel here runs under `loops="sequential"` and `loops="auto"` from identical starting
states; the UB bytes, their written flags, the Ref counters, the pointers and any error (class,
message, partial UB state) must be identical. Hypothesis builds random loops: op sequences,
strides that overlap, in-place updates at distance 1, 2 and more, negative strides, tails, and
stores that fail at a random iteration.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from loop_support import hows as _both
from loop_support import run_both

import regsim as rs
from regsim import Reg
from regsim._src.frontends import cli
from regsim._src.vf.loops import _explaining

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


# --- the bundled examples ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", cli.example_names())
def test_examples_give_identical_bits_in_both_modes(name: str) -> None:
    module = importlib.import_module(f"vf_examples.{name}")
    outputs = {}
    for mode in ("sequential", "auto"):
        with rs.configure(loops=mode):
            outputs[mode] = {k: (got.tobytes(), want.tobytes()) for k, (got, want) in module.run(0).items()}
    assert outputs["auto"] == outputs["sequential"]


# --- the AddVF kernel over whole registers: it batches ------------------------------------------------
def _add_vf_world(count: int, repeat: int) -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
    from vf_examples.add_carry_vf import add_vf

    ub = rs.UnifiedBuffer()
    src0, src1, dst0 = (ub.alloc(rs.uint32, 64 * repeat) for _ in range(3))
    dst1 = ub.alloc(rs.uint32, 8 * repeat)
    rng = np.random.default_rng(count)
    src0.set(rng.integers(0, 2**32, 64 * repeat, dtype=np.uint32))
    src1.set(rng.integers(0, 2**32, 64 * repeat, dtype=np.uint32))
    return ub, lambda: add_vf(dst0.GetPhyAddr(), dst1.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), count, repeat, 64)


@pytest.mark.parametrize("count", [0, 1, 63, 64, 65, 1000, 1024, 5000])
def test_add_vf_batches_with_identical_bits(count: int) -> None:
    decisions, _ = _both(lambda: _add_vf_world(count, 16))
    assert decisions == ["batched"]


def test_the_counter_ends_where_the_sequential_loop_leaves_it() -> None:
    @rs.simd_vf
    def kernel(dst: rs.UbPtr[rs.int16], src: rs.UbPtr[rs.int16], n: rs.Ref[int]) -> None:
        r = Reg.RegTensor(rs.int16)
        for i in range(5):
            m = Reg.UpdateMask(rs.int16, n)
            Reg.LoadAlign(r, src + i * 128)
            Reg.StoreAlign(dst + i * 128, r, m)

    def world(count: int) -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(8192)
        src, dst = ub.alloc(rs.int16, 640), ub.alloc(rs.int16, 640)
        src.set(np.arange(640, dtype=np.int16))
        ref = rs.Ref(count)

        def run() -> int:
            kernel(dst.GetPhyAddr(), src.GetPhyAddr(), ref)
            return int(ref.value)

        return ub, run

    for count in (0, 100, 128, 300, 640, 700, 2**32 - 1):
        decisions, left = _both(lambda count=count: world(count))
        assert decisions == ["batched"] and left == max(count - 5 * 128, 0)


# --- what must run in order ---------------------------------------------------------------------------
def _explain_loop(kernel: Callable[..., None], *args: Any) -> str:
    return rs.explain(kernel, *args)


@pytest.mark.parametrize("dtype", [rs.int32, rs.uint16, rs.int8, rs.float32, rs.half, rs.bfloat16], ids=lambda d: d.name)
@pytest.mark.parametrize("mode", [Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING], ids=lambda m: m.name)
def test_accumulators_batch_bit_identical(dtype: Any, mode: Reg.MaskMergeMode) -> None:
    """acc = Add(acc, x) across iterations batches: integers wrap, so a running sum over the
    iterations is exact (inactive lanes reset under ZEROING, keep under MERGING); a float sum rounds
    at every step: an in-order accumulation, or the rows one after another (bf16, ZEROING resets,
    NaNs under MERGING). Random bytes as floats: NaNs, infinities, subnormals and -0 among them."""
    lanes = 256 // dtype.itemsize

    @rs.simd_vf
    def running_sum(dst: rs.UbPtr[Any], src: rs.UbPtr[Any], masks: rs.UbPtr[rs.uint8]) -> None:
        acc = Reg.RegTensor(dtype)
        x = Reg.RegTensor(dtype)
        m = Reg.MaskReg()
        Reg.LoadAlign(acc, src)
        for i in range(1, 9):
            Reg.LoadAlign(x, src + i * lanes)
            Reg.LoadAlign(m, masks + i * 32)
            Reg.Add(acc, acc, x, m, mode=mode)
            Reg.StoreAlign(dst + i * lanes, acc, m)
        Reg.StoreAlign(dst, acc, Reg.CreateMask(dtype))

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(16384)
        src, dst = ub.alloc(dtype, 9 * lanes), ub.alloc(dtype, 9 * lanes)
        masks = ub.alloc(rs.uint8, 9 * 32)
        rng = np.random.default_rng(dtype.itemsize)
        src.set(rng.integers(0, 256, 9 * 256, dtype=np.uint8).view(dtype.np_dtype), cast=True)
        masks.set(rng.integers(0, 256, 9 * 32, dtype=np.uint8))
        dst.set(np.zeros(9 * lanes, dtype.np_dtype))
        return ub, lambda: running_sum(dst.GetPhyAddr(), src.GetPhyAddr(), masks.GetPhyAddr())

    decisions, _ = _both(world)
    assert decisions == ["batched"]


_FLOAT_EDGES = (0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-45, 5e-8, 65504.0, 3.4e38, -3.4e38, 1.0, -1.0)


#: (dtype, op, merge mode): Div takes no bf16; only Add, Max and Min merge
_FLOAT_CARRIED = [
    pytest.param(dtype, op, mode, id=f"{dtype.name}-{op}-{mode.name}")
    for dtype in (rs.float32, rs.half, rs.bfloat16)
    for op in ("Add", "Max", "Min", "Mul", "Div", "Sub")
    for mode in (Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING)
    if not (dtype is rs.bfloat16 and op == "Div") and (mode is Reg.MaskMergeMode.ZEROING or op in ("Add", "Max", "Min"))
]


@pytest.mark.parametrize(("dtype", "op", "mode"), _FLOAT_CARRIED)
@settings(max_examples=6)
@example(rows=6, seed=8555, edges=0.619140625, half_saturates=False)
@given(
    rows=st.integers(2, 12),
    seed=st.integers(0, 2**32 - 1),
    edges=st.floats(0, 1),
    half_saturates=st.booleans(),
)
def test_float_accumulators_batch_bit_identical(
    dtype: Any, op: str, mode: Reg.MaskMergeMode, rows: int, seed: int, edges: float, half_saturates: bool
) -> None:
    """acc = op(acc, x) (or op(x, acc)) across iterations under per-iteration masks: each step rounds,
    so the batched loop must give the in-order run's bits, NaN payloads, -0 and saturation included."""
    lanes = 256 // dtype.itemsize
    merging = mode is Reg.MaskMergeMode.MERGING
    reflected = bool(seed & 1)
    fn = getattr(Reg, op)

    @rs.simd_vf
    def running(dst: rs.UbPtr[Any], src: rs.UbPtr[Any], masks: rs.UbPtr[rs.uint8]) -> None:
        acc, x, m = Reg.RegTensor(dtype), Reg.RegTensor(dtype), Reg.MaskReg()
        Reg.LoadAlign(acc, src)
        for i in range(1, rows + 1):
            Reg.LoadAlign(x, src + i * lanes)
            Reg.LoadAlign(m, masks + i * 32)
            if merging:
                fn(acc, *(x, acc) if reflected else (acc, x), m, mode=Reg.MaskMergeMode.MERGING)
            else:
                fn(acc, *(x, acc) if reflected else (acc, x), m)
            Reg.StoreAlign(dst + i * lanes, acc, Reg.CreateMask(dtype))
        Reg.StoreAlign(dst, acc, Reg.CreateMask(dtype))

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(65536)
        src, dst = ub.alloc(dtype, (rows + 1) * lanes), ub.alloc(dtype, (rows + 1) * lanes)
        masks = ub.alloc(rs.uint8, (rows + 1) * 32)
        rng = np.random.default_rng(seed)
        values = rng.standard_normal((rows + 1) * lanes) * 4.0 ** rng.integers(-3, 4)
        pick = rng.random(values.size) < edges
        values[pick] = rng.choice(np.array(_FLOAT_EDGES), int(pick.sum()))
        with np.errstate(over="ignore"):
            src.set(values.astype(dtype.np_dtype))
        kinds = rng.integers(0, 3, (rows + 1, 1))  # a row's mask: none, all or random lanes
        bits = rng.integers(0, 256, ((rows + 1), 32), dtype=np.uint8)
        masks.set(np.where(kinds == 0, 0, np.where(kinds == 1, 0xFF, bits)).astype(np.uint8).reshape(-1))
        dst.set(np.zeros((rows + 1) * lanes, dtype.np_dtype))
        if half_saturates:
            rs.AscendC.SetCtrlSpr(1, start_bit=48, end_bit=48)
        return ub, lambda: running(dst.GetPhyAddr(), src.GetPhyAddr(), masks.GetPhyAddr())

    decisions, _ = _both(world)
    assert decisions == ["batched"]


@settings(max_examples=8)
@given(rows=st.integers(2, 70), seed=st.integers(0, 2**32 - 1), edges=st.floats(0, 0.2), merging=st.booleans())
def test_a_float32_sum_read_only_at_the_end_is_the_in_order_sum(rows: int, seed: int, edges: float, merging: bool) -> None:
    """acc += x over the iterations, acc stored once after the loop (the batched loop computes only its last
    row): each lane is the float32 sum in the iterations' order, one rounding a step (the oracle: numpy
    float32 scalars added one at a time), inactive lanes of a MERGING sum kept. A NaN the sum makes (inf - inf)
    is compared as a NaN: the host's scalar and array adds give it different signs."""
    rng = np.random.default_rng(seed)
    values = (rng.standard_normal((rows + 1, 64)) * 4.0 ** rng.integers(-8, 9, (rows + 1, 64))).astype(np.float32)
    pick = rng.random(values.shape) < edges
    values[pick] = rng.choice(np.array(_FLOAT_EDGES, np.float32), int(pick.sum()))
    active = rng.random((rows + 1, 64)) < 0.7 if merging else np.ones((rows + 1, 64), bool)

    @rs.simd_vf
    def total(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], masks: rs.UbPtr[rs.uint8]) -> None:
        acc, x, m = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32), Reg.MaskReg()
        Reg.LoadAlign(acc, src)
        for i in range(1, rows + 1):
            Reg.LoadAlign(x, src + i * 64)
            Reg.LoadAlign(m, masks + i * 32)
            Reg.Add(acc, acc, x, m, mode=Reg.MaskMergeMode.MERGING)
        Reg.StoreAlign(dst, acc, Reg.CreateMask(rs.float32))

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(65536)
        src, dst, masks = ub.alloc(rs.float32, (rows + 1) * 64), ub.alloc(rs.float32, 64), ub.alloc(rs.uint8, (rows + 1) * 32)
        src.set(values.reshape(-1))
        # (a float32 lane's predicate is bit 4k of the mask's bytes: one lane a 4-bit group)
        masks.set(np.packbits(np.repeat(active, 4, axis=1), axis=1, bitorder="little").reshape(-1))
        dst.set(np.zeros(64, np.float32))
        return ub, lambda: (total(dst.GetPhyAddr(), src.GetPhyAddr(), masks.GetPhyAddr()), dst.numpy().copy())

    decisions, (_, got) = _both(world)
    assert decisions == ["batched"]
    with np.errstate(over="ignore", invalid="ignore"):
        for lane in range(64):
            acc = values[0, lane]
            for i in range(1, rows + 1):
                acc = np.float32(acc + values[i, lane]) if active[i, lane] else acc
            same = (np.isnan(acc) and np.isnan(got[lane])) or acc.view(np.uint32) == got[lane].view(np.uint32)
            assert same, (lane, acc, got[lane])


@pytest.mark.parametrize("dtype", [rs.float32, rs.half], ids=lambda d: d.name)
@pytest.mark.parametrize("nan", [False, True])
def test_a_merging_float_sum_keeps_inactive_lanes_bit_for_bit(dtype: Any, nan: bool) -> None:
    """Inactive lanes of a MERGING float sum keep the accumulator's exact bits: -0, subnormals,
    infinities and (where present) NaN payloads, quiet and signalling, as the in-order run."""
    lanes = 256 // dtype.itemsize
    bits = np.dtype(f"u{dtype.itemsize}")
    info = np.finfo(dtype.np_dtype)
    special = [-0.0, 0.0, float(info.smallest_subnormal), -np.inf, np.inf, 1.0]
    start = np.resize(np.array(special, dtype.np_dtype), lanes)
    if nan:  # a quiet NaN with a payload and a signalling one
        start.view(bits)[-2:] = [0x7FC00123, 0xFF800001] if dtype.itemsize == 4 else [0x7E01, 0xFC01]

    @rs.simd_vf
    def running(dst: rs.UbPtr[Any], src: rs.UbPtr[Any], masks: rs.UbPtr[rs.uint8]) -> None:
        acc, x, m = Reg.RegTensor(dtype), Reg.RegTensor(dtype), Reg.MaskReg()
        Reg.LoadAlign(acc, src)
        for i in range(1, 5):
            Reg.LoadAlign(x, src + i * lanes)
            Reg.LoadAlign(m, masks + i * 32)
            Reg.Add(acc, acc, x, m, mode=Reg.MaskMergeMode.MERGING)
            Reg.StoreAlign(dst + i * lanes, acc, Reg.CreateMask(dtype))

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(16384)
        src, dst = ub.alloc(dtype, 5 * lanes), ub.alloc(dtype, 5 * lanes)
        masks = ub.alloc(rs.uint8, 5 * 32)
        src.set(np.concatenate([start, np.full(4 * lanes, -0.0, dtype.np_dtype)]))
        masks.set(np.array([0] * 64 + [0xAA] * 32 + [0] * 32 + [0x0F] * 32, np.uint8))
        dst.set(np.zeros(5 * lanes, dtype.np_dtype))
        return ub, lambda: running(dst.GetPhyAddr(), src.GetPhyAddr(), masks.GetPhyAddr())

    decisions, _ = _both(world)
    assert decisions == ["batched"]
    ub, run = world()
    run()
    rows = ub.storage.data[5 * 256 : 10 * 256].view(bits).reshape(5, lanes)
    assert (rows[1] == start.view(bits)).all()  # row 1 is all inactive: every bit kept
    plain = ~np.isnan(start)  # x + (-0) = x exactly for every other value, active or not
    assert (rows[4][plain] == start.view(bits)[plain]).all() and np.isnan(rows[4].view(dtype.np_dtype)[~plain]).all()


@pytest.mark.parametrize("op", ["AddC", "SubC"])
@pytest.mark.parametrize("limbs", [2, 5, 16])
def test_carry_chains_across_iterations_scan(op: str, limbs: int) -> None:
    """A multi-limb add (limb i of every number at src + i * 64 elements) with the carry chained
    from one iteration to the next, under random masks: a generate/propagate scan, bit-exact."""

    @rs.simd_vf
    def wide_add(dst: rs.UbPtr[rs.uint32], a: rs.UbPtr[rs.uint32], b: rs.UbPtr[rs.uint32], masks: rs.UbPtr[rs.uint8]) -> None:
        x, y, z = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)
        carry = Reg.MaskReg()
        m = Reg.MaskReg()
        Reg.LoadAlign(carry, masks)
        for i in range(limbs):
            Reg.LoadAlign(x, a + i * 64)
            Reg.LoadAlign(y, b + i * 64)
            Reg.LoadAlign(m, masks + 32 + i * 32)
            (Reg.AddC if op == "AddC" else Reg.SubC)(carry, z, x, y, carry, m)
            Reg.StoreAlign(dst + i * 64, z, m)
        Reg.StoreAlign(masks + 32 * (limbs + 1), carry)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(65536)
        a, b, d = (ub.alloc(rs.uint32, 64 * limbs) for _ in range(3))
        masks = ub.alloc(rs.uint8, 32 * (limbs + 2))
        rng = np.random.default_rng(limbs)
        # edge-heavy limbs: all-ones and zeros make long propagate chains
        pick = rng.integers(0, 4, (2, 64 * limbs))
        values = np.where(pick == 0, 0xFFFFFFFF, np.where(pick == 1, 0, rng.integers(0, 2**32, (2, 64 * limbs))))
        a.set(values[0].astype(np.uint32))
        b.set(values[1].astype(np.uint32))
        m = rng.integers(0, 256, 32 * (limbs + 2), dtype=np.uint8)
        m[32:] |= np.uint8(0x11) * (rng.random(32 * (limbs + 1)) < 0.9)  # mostly active lanes
        masks.set(m)
        d.set(np.zeros(64 * limbs, np.uint32))
        return ub, lambda: wide_add(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), masks.GetPhyAddr())

    decisions, _ = _both(world)
    assert decisions == ["batched"]


def test_loop_carried_register_without_a_scan_runs_in_order_with_the_reason() -> None:
    @rs.simd_vf
    def running_difference(dst: rs.UbPtr[rs.int32], src: rs.UbPtr[rs.int32]) -> None:
        acc = Reg.RegTensor(rs.int32)
        x = Reg.RegTensor(rs.int32)
        all_ = Reg.CreateMask(rs.int32)
        Reg.LoadAlign(acc, src)
        for i in range(1, 4):
            Reg.LoadAlign(x, src + i * 64)
            Reg.ReduceSum(acc, acc, all_)  # (a cross-lane op: no row of it stands alone)
            Reg.Sub(acc, acc, x, all_)
        Reg.StoreAlign(dst, acc, all_)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(4096)
        src, dst = ub.alloc(rs.int32, 256), ub.alloc(rs.int32, 64)
        src.set(np.arange(256, dtype=np.int32))
        return ub, lambda: running_difference(dst.GetPhyAddr(), src.GetPhyAddr())

    decisions, _ = _both(world)
    assert decisions == ["sequential"]
    _, run = world()
    with _explaining() as log:
        run()
    assert "carried across iterations" in log[0].why


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("if i == 2:\n            break", "break"),
        ("p = p + 64", "p carried across iterations"),
        ("seen.append(i)", "calls seen.append()"),
        ("q = p + i * 64\n        if i > 1:\n            pass", "the loop index is used as a Python value"),
    ],
)
def test_python_state_and_control_flow_run_in_order(body: str, reason: str, tmp_path: Any) -> None:
    source = f"""
import regsim as rs
from regsim import Reg

seen = []

@rs.simd_vf
def kernel(p: rs.UbPtr[rs.int32]) -> None:
    r = Reg.RegTensor(rs.int32)
    for i in range(4):
        Reg.LoadAlign(r, p)
        {body}
"""
    path = tmp_path / "kernel_mod.py"
    path.write_text(source)
    module = cli.load_file(path)
    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.int32, 512)
    t.set(np.zeros(512, np.int32))
    text = rs.explain(module.kernel, t.GetPhyAddr())
    assert "sequential" in text and reason in text, text


def test_forced_batched_loop_that_cannot_batch_is_an_error() -> None:
    @rs.simd_vf
    def kernel(p: rs.UbPtr[rs.int32]) -> None:
        r = Reg.RegTensor(rs.int32)
        m = Reg.CreateMask(rs.int32)
        Reg.LoadAlign(r, p)
        for i in rs.vf_range(3, loops="batched"):
            Reg.StoreAlign(p + 64 * i, r, m)  # the previous iteration's r
            Reg.LoadAlign(r, p + 64 * i + 64)

    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.int32, 256)
    t.set(np.zeros(256, np.int32))
    with pytest.raises(rs.errors.VfContextError, match=r"vf_range: loops = \"batched\".*carried across iterations"):
        kernel(t.GetPhyAddr())


def test_vf_range_forces_a_loop_sequential_and_configure_checks_its_value() -> None:
    @rs.simd_vf
    def kernel(p: rs.UbPtr[rs.int32]) -> None:
        r = Reg.RegTensor(rs.int32)
        m = Reg.CreateMask(rs.int32)
        for i in rs.vf_range(4, loops="sequential"):
            Reg.LoadAlign(r, p + i * 64)
            Reg.StoreAlign(p + 256 + i * 64, r, m)

    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.int32, 512)
    t.set(np.arange(512, dtype=np.int32))
    assert 'sequential (4 iterations): loops="sequential"' in rs.explain(kernel, t.GetPhyAddr())
    assert (t.numpy()[256:] == np.arange(256)).all()
    with pytest.raises(rs.errors.ParameterError, match=r"configure: loops = 'fast'"), rs.configure(loops="fast"):  # type: ignore[arg-type]
        pass


# --- random loops ------------------------------------------------------------------------------------
OPS = ("add", "sub", "add_merge")


@st.composite
def loop_kernels(draw: st.DrawFn) -> dict[str, Any]:
    """A loop over `iters` iterations: load two registers (strides in elements, possibly
    overlapping or negative), combine them, store under an UpdateMask tail, optionally in place."""
    return {
        "iters": draw(st.integers(2, 9)),
        "count": draw(st.integers(0, 64 * 9)),
        "a_stride": draw(st.sampled_from([64, 128, 32, 8, -64, 0])),
        "b_stride": draw(st.sampled_from([64, 8, 0])),
        "out_stride": draw(st.sampled_from([64, 128, 8, -64, 0])),
        "out_at": draw(st.sampled_from(["dst", "a", "a+1", "a+2", "a+9", "b"])),  # in place at distance 0/1/2/9 registers
        "ops": draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=3)),
        "dst_size": draw(st.sampled_from([64 * 10, 64 * 4])),  # a small dst: stores fail at some iteration
    }


def _random_world(spec: dict[str, Any]) -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
    ub = rs.UnifiedBuffer(64 * 1024)
    a = ub.alloc(rs.int32, 64 * 40)
    b = ub.alloc(rs.int32, 64 * 12)
    dst = ub.alloc(rs.int32, spec["dst_size"])
    rng = np.random.default_rng(spec["iters"] * 1000 + spec["count"])
    a.set(rng.integers(-(2**31), 2**31, a.GetSize(), dtype=np.int32))
    b.set(rng.integers(-(2**31), 2**31, b.GetSize(), dtype=np.int32))
    a_base = a.GetPhyAddr() + 64 * 20  # room for negative strides
    out_base = {
        "dst": dst.GetPhyAddr() + (64 * 4 if spec["dst_size"] > 64 * 4 and spec["out_stride"] < 0 else 0),
        "a": a_base,
        "a+1": a_base + 64,
        "a+2": a_base + 128,
        "a+9": a_base + 64 * 9,
        "b": b.GetPhyAddr(),
    }[spec["out_at"]]

    @rs.simd_vf
    def kernel(out: rs.UbPtr[rs.int32], pa: rs.UbPtr[rs.int32], pb: rs.UbPtr[rs.int32], n: rs.Ref[int]) -> None:
        x = Reg.RegTensor(rs.int32)
        y = Reg.RegTensor(rs.int32)
        z = Reg.RegTensor(rs.int32)
        for i in range(spec["iters"]):
            m = Reg.UpdateMask(rs.int32, n)
            Reg.LoadAlign(x, pa + i * spec["a_stride"])
            Reg.LoadAlign(y, pb + i * spec["b_stride"])
            Reg.Sub(z, x, y, m)
            for op in spec["ops"]:
                if op == "add":
                    Reg.Add(z, z, x, m)
                elif op == "sub":
                    Reg.Sub(z, y, z, m)
                else:
                    Reg.Add(z, x, y, m, mode=Reg.MaskMergeMode.MERGING)
            Reg.StoreAlign(out + i * spec["out_stride"], z, m)

    ref = rs.Ref(spec["count"])

    def run() -> int:
        kernel(out_base, a_base, b.GetPhyAddr(), ref)
        return int(ref.value)

    return ub, run


@given(loop_kernels())
def test_random_loops_agree_between_modes(spec: dict[str, Any]) -> None:
    _both(lambda: _random_world(spec))


def test_cli_loops_explain_and_trace(capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    import vf_examples

    path = str(Path(vf_examples.__file__).parent / "u256_add_vf.py")
    assert cli.main(["run", path, "--explain"]) == 0
    out = capsys.readouterr().out
    assert "PASS u256_add_vf" in out and "batched (5 iterations)" in out
    assert cli.main(["run", path, "--explain", "--loops", "sequential"]) == 0
    out = capsys.readouterr().out
    assert "batched" not in out and 'loops="sequential"' in out
    assert cli.main(["run", path, "--trace"]) == 0
    out = capsys.readouterr().out
    assert "AddC" in out and "u256_add_vf.py:" in out
    assert cli.main(["run", path, "--loops", "fast"]) == 2


@pytest.mark.parametrize("dtype", [rs.int64, rs.uint64, rs.complex32], ids=lambda d: d.name)
@pytest.mark.parametrize("count", [0, 50, 64, 200, 320])
@pytest.mark.parametrize("mode", [Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING], ids=lambda m: m.name)
def test_two_register_loops_batch_with_identical_bits(dtype: Any, count: int, mode: Reg.MaskMergeMode) -> None:
    two = Reg.RegTraitNumTwo
    lanes = 512 // dtype.itemsize  # elements in a two-register tensor

    @rs.simd_vf
    def kernel(dst: rs.UbPtr[Any], a: rs.UbPtr[Any], b: rs.UbPtr[Any], n: rs.Ref[int]) -> None:
        x, y, z = Reg.RegTensor(dtype, two), Reg.RegTensor(dtype, two), Reg.RegTensor(dtype, two)
        for i in range(5):
            m = Reg.UpdateMask(dtype, n, trait=two)
            Reg.LoadAlign(x, a + i * lanes)
            Reg.LoadAlign(y, b + i * lanes)
            Reg.LoadAlign(z, dst + i * lanes)
            Reg.Add(z, x, y, m, mode=mode)
            Reg.StoreAlign(dst + i * lanes, z, m)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(16384)
        a, b, d = (ub.alloc(dtype, 5 * lanes) for _ in range(3))
        rng = np.random.default_rng(count)
        for t in (a, b, d):
            t.set(rng.integers(0, 256, 5 * lanes * dtype.itemsize, dtype=np.uint8).view(dtype.np_dtype), cast=True)
        ref = rs.Ref(count)
        return ub, lambda: (kernel(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), ref), ref.value)[1]

    decisions, _ = _both(world)
    assert decisions == ["batched"]


def test_a_saturating_accumulator_runs_its_rows_in_order() -> None:
    """With CTRL[53] set, int32 Add saturates at every step: no running sum, the rows run in order
    (one lane call each) inside the batched loop, and the sum saturates as in the in-order run."""

    @rs.simd_vf
    def running_sum(dst: rs.UbPtr[rs.int32], src: rs.UbPtr[rs.int32]) -> None:
        acc, x = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32)
        m = Reg.CreateMask(rs.int32)
        Reg.LoadAlign(acc, src)
        for i in range(1, 6):
            Reg.LoadAlign(x, src + i * 64)
            Reg.Add(acc, acc, x, m)
        Reg.StoreAlign(dst, acc, m)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(4096)  # (a new core: its CTRL is set after)
        src, dst = ub.alloc(rs.int32, 384), ub.alloc(rs.int32, 64)
        src.set(np.full(384, 2**30, np.int32))
        rs.AscendC.SetCtrlSpr(1, start_bit=53, end_bit=53)
        return ub, lambda: running_sum(dst.GetPhyAddr(), src.GetPhyAddr())

    decisions, _ = _both(world)
    ub, run = world()
    run()
    assert decisions == ["batched"]
    assert (ub.storage.data[384 * 4 : 448 * 4].view(np.int32) == 2**31 - 1).all()


#: (dst, src, index) triples of the register Gather, one per source width
_GATHERS = [(rs.uint16, rs.uint8, rs.uint16), (rs.half, rs.half, rs.uint16), (rs.int32, rs.int32, rs.uint32)]


@pytest.mark.parametrize(("dtype", "src_type", "index_type"), _GATHERS, ids=lambda d: d.name)
@settings(max_examples=8, deadline=None)
@given(rows=st.integers(2, 9), seed=st.integers(0, 2**32 - 1), bad_row=st.integers(-1, 9), holes=st.booleans())
def test_gathers_batch_bit_identical(
    dtype: Any, src_type: Any, index_type: Any, rows: int, seed: int, bad_row: int, holes: bool
) -> None:
    """Per iteration, a Gather by indices and a mask loaded from the UB (so both differ by row), the result
    stored: the default mode gives the in-order run's bytes, flags and error (an index past the source in one
    row: OutOfBoundsError there when its lane is active, the rows before it written; never-written source
    bytes), and, without those holes, numpy's take of the source, row by row up to the error."""
    lanes = 256 // dtype.itemsize
    n_src = 1024

    @rs.simd_vf
    def gathering(dst: rs.UbPtr[Any], src: rs.UbPtr[Any], index: rs.UbPtr[Any], masks: rs.UbPtr[rs.uint8]) -> None:
        x, idx, m = Reg.RegTensor(dtype), Reg.RegTensor(index_type), Reg.MaskReg()
        for i in range(rows):
            Reg.LoadAlign(idx, index + i * lanes)
            Reg.LoadAlign(m, masks + i * 32)
            Reg.Gather(x, src, idx, m)
            Reg.StoreAlign(dst + i * lanes, x, Reg.CreateMask(dtype))

    rng = np.random.default_rng(seed)
    indices = rng.integers(0, n_src, (rows, lanes)).astype(index_type.np_dtype)  # (index lanes = dst lanes)
    if 0 <= bad_row < rows:
        indices[bad_row, rng.integers(0, lanes)] = n_src + 5
    bits = rng.integers(0, 256, (rows, 32), dtype=np.uint8)
    source = rng.integers(0, 256, n_src * src_type.itemsize, dtype=np.uint8)
    first = 64 if holes else 0  #: source bytes never written

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(65536)
        src, dst = ub.alloc(src_type, n_src), ub.alloc(dtype, rows * lanes)
        index, masks = ub.alloc(index_type, rows * lanes), ub.alloc(rs.uint8, rows * 32)
        ub.storage.write(src.GetPhyAddr().addr + first, source[first:])
        index.set(indices.reshape(-1))
        masks.set(bits.reshape(-1))
        dst.set(np.zeros(rows * lanes, dtype.np_dtype))
        return ub, lambda: gathering(dst.GetPhyAddr(), src.GetPhyAddr(), index.GetPhyAddr(), masks.GetPhyAddr())

    decisions, _ = _both(world)
    if holes:
        return
    clean = not 0 <= bad_row < rows
    assert not clean or decisions == ["batched"], decisions
    ub, run = world()
    want = np.zeros((rows, lanes), dtype.np_dtype)
    values = source.view(src_type.np_dtype)
    for r in range(rows):
        on = np.unpackbits(bits[r], bitorder="little").astype(bool)[:: dtype.itemsize]
        if (on & (indices[r] >= n_src)).any():
            with pytest.raises(rs.errors.OutOfBoundsError, match=r"Gather: src_addr = lane \d+"):
                run()
            break
        want[r] = np.where(on, values[np.minimum(indices[r], n_src - 1)].astype(dtype.np_dtype), 0)
    else:
        run()
    got = ub.storage.data[4 * n_src if src_type.itemsize == 4 else 2 * n_src if src_type.itemsize == 2 else n_src :]
    assert np.array_equal(got[: want.nbytes], want.view(np.uint8).reshape(-1))  # (bytes: NaN payloads included)


@pytest.mark.parametrize("kind", ["reg", "mask"])
@settings(max_examples=10, deadline=None)
@given(
    rows=st.integers(3, 9),  # (iteration 0 runs in order: it shows how far the stream moves)
    n=st.integers(1, 64),
    lead=st.integers(0, 20),
    before=st.integers(0, 64),
    room=st.integers(-200, 64),
    read_back=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_unaligned_store_streams_batch_bit_identical(
    kind: str, rows: int, n: int, lead: int, before: int, room: int, read_back: bool, seed: int
) -> None:
    """A StoreUnAlign stream across iterations (n int32 of a register, or a MaskReg's 8 bytes, an iteration), with
    bytes buffered before the loop and flushed after it, and maybe a load of dst's first bytes in each iteration: the
    default mode gives the in-order run's bytes, flags and error (the stream leaving dst in some iteration), batched
    when the stream is clean and nothing reads it; without an error, dst is the stream's bytes."""
    per = n * 4 if kind == "reg" else 8
    if kind == "mask":  # (a MaskReg stream's address is 8-byte aligned)
        lead, before = 2 * lead, before - before % 2
    size = max(4 * lead + 4 * before + rows * per + room, 4 * lead + 4 * before + 4) // 4

    @rs.simd_vf
    def streaming(dst: rs.UbPtr[rs.int32], src: rs.UbPtr[rs.int32], masks: rs.UbPtr[rs.uint8], side: rs.UbPtr[rs.int32]) -> None:
        x, y, m, u = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32), Reg.MaskReg(), Reg.UnalignRegForStore()
        out = dst + lead
        if before:
            Reg.LoadAlign(x, src)
            Reg.StoreUnAlign(out, x, u, before)
        for i in range(rows):
            Reg.LoadAlign(x, src + i * 64 + 64)
            if kind == "reg":
                Reg.StoreUnAlign(out, x, u, n)
            else:
                Reg.LoadAlign(m, masks + i * 32)
                Reg.StoreUnAlign(out, m, u)
            if read_back:
                Reg.LoadAlign(y, dst)
                Reg.StoreAlign(side + i * 64, y, Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.VL1))
        Reg.StoreUnAlignPost(out, u, 0)

    rng = np.random.default_rng(seed)
    values = rng.integers(-(2**31), 2**31, (rows + 1) * 64, dtype=np.int64).astype(np.int32)
    bits = rng.integers(0, 256, (rows, 32), dtype=np.uint8)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(65536)
        src, dst = ub.alloc(rs.int32, (rows + 1) * 64), ub.alloc(rs.int32, size)
        masks, side = ub.alloc(rs.uint8, rows * 32), ub.alloc(rs.int32, rows * 64)
        src.set(values)
        masks.set(bits.reshape(-1))
        dst.set(np.full(size, -1, np.int32))
        return ub, lambda: streaming(dst.GetPhyAddr(), src.GetPhyAddr(), masks.GetPhyAddr(), side.GetPhyAddr())

    decisions, _ = _both(world)
    stream = [values[:before].view(np.uint8)]
    for r in range(rows):
        row = values[64 * (r + 1) : 64 * (r + 2)]
        stream.append(
            row[:n].view(np.uint8)
            if kind == "reg"
            else np.packbits(np.unpackbits(bits[r], bitorder="little")[::4], bitorder="little")
        )
    want = np.concatenate(stream)
    clean = 4 * lead + want.size <= 4 * size
    if clean and not read_back:
        assert decisions == ["batched"], decisions
    if clean:
        ub, run = world()
        run()
        got = ub.storage.data[4 * (rows + 1) * 64 :][: 4 * size]
        assert np.array_equal(got[4 * lead : 4 * lead + want.size], want)
        assert (got[: 4 * lead] == 0xFF).all() and (got[4 * lead + want.size :] == 0xFF).all()


def test_a_read_of_a_streams_own_bytes_in_the_loop_runs_it_in_order() -> None:
    """Each iteration appends 5 int32 to a StoreUnAlign stream, then gathers its own last element back: in order,
    that element is still buffered (not in the UB) unless the stream just crossed a 32-byte boundary, so the gather
    mostly sees dst's old value. No other iteration touches those bytes (the hazard check has nothing to refuse);
    the loop runs in order because a stream's bytes reach the UB at block boundaries, not when stored."""

    @rs.simd_vf
    def streaming(dst: rs.UbPtr[rs.int32], src: rs.UbPtr[rs.int32], side: rs.UbPtr[rs.int32]) -> None:
        x, y, idx, u = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32), Reg.RegTensor(rs.uint32), Reg.UnalignRegForStore()
        one = Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.VL1)
        out = dst.copy()
        for i in range(8):
            Reg.LoadAlign(x, src + i * 64)
            Reg.StoreUnAlign(out, x, u, 5)
            Reg.Duplicate(idx, 5 * i + 4, one)
            Reg.Gather(y, dst, idx, one)
            Reg.StoreAlign(side + i * 64, y, one)
        Reg.StoreUnAlignPost(out, u, 0)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(16384)
        src, dst, side = ub.alloc(rs.int32, 8 * 64), ub.alloc(rs.int32, 64), ub.alloc(rs.int32, 8 * 64)
        src.set(np.arange(8 * 64, dtype=np.int32))
        dst.set(np.full(64, -1, np.int32))
        side.set(np.zeros(8 * 64, np.int32))
        return ub, lambda: streaming(dst.GetPhyAddr(), src.GetPhyAddr(), side.GetPhyAddr())

    (decision,), _ = run_both(world)
    assert decision.how == "sequential" and "unaligned store stream" in decision.why, str(decision)
    ub, run = world()
    run()
    got = ub.storage.data[4 * (8 * 64 + 64) :][: 8 * 256].view(np.int32).reshape(8, 64)[:, 0]
    # iteration i's element 4 (UB bytes [20i + 16, 20i + 20)) is in the UB once the stream passed a boundary after it
    want = [64 * i + 4 if (20 * (i + 1)) // 32 * 32 >= 20 * i + 20 else -1 for i in range(8)]
    assert got.tolist() == want


#: (data, index) pairs of the register Scatter, one per data width (b8 scatters its even bytes)
_SCATTERS = [(rs.uint8, rs.uint16), (rs.half, rs.uint16), (rs.int32, rs.uint32), (rs.uint64, rs.uint32)]


@pytest.mark.parametrize(("dtype", "index_type"), _SCATTERS, ids=lambda d: d.name)
@settings(max_examples=8, deadline=None)
@given(
    rows=st.integers(2, 9),
    seed=st.integers(0, 2**32 - 1),
    shared=st.booleans(),
    bad_row=st.integers(-1, 9),
    dup_row=st.integers(-1, 9),
)
def test_scatters_batch_bit_identical(
    dtype: Any, index_type: Any, rows: int, seed: int, shared: bool, bad_row: int, dup_row: int
) -> None:
    """Per iteration, a Scatter of a loaded register by indices and a mask loaded from the UB (all three differ by
    row) into the iteration's own region of dst, or (`shared`) into one region every iteration scatters to: the
    default mode gives the in-order run's bytes, flags and error (an active index past dst in one row:
    OutOfBoundsError there; one index in two active lanes with different values: ParameterError there), batching
    where the rows' bytes are apart; without errors, dst is the per-lane oracle's (in order, row by row)."""
    lanes = 64 if dtype.itemsize == 1 else 256 // dtype.itemsize  # (b8: a u16 index's 128 lanes; 64 drawn here)
    n_lanes = 128 if dtype.itemsize == 1 else lanes
    region = 4 * n_lanes  #: dst elements an iteration may scatter to
    rng = np.random.default_rng(seed)
    indices = np.stack([rng.permutation(region)[:n_lanes] for _ in range(rows)]).astype(index_type.np_dtype)
    if 0 <= bad_row < rows:
        indices[bad_row, rng.integers(0, n_lanes)] = (rows + 1) * region
    if 0 <= dup_row < rows:
        indices[dup_row, 1] = indices[dup_row, 0]
    bits = rng.integers(0, 256, (rows, 32), dtype=np.uint8)
    values = rng.integers(0, 256, (rows, 256), dtype=np.uint8)
    values[:, 1] ^= values[:, 0] ^ 0x5A  # (lanes 0 and 1 differ in every width)
    span = region * (1 if shared else rows)
    stride = 0 if shared else region

    @rs.simd_vf
    def scattering(dst: rs.UbPtr[Any], src: rs.UbPtr[Any], index: rs.UbPtr[Any], masks: rs.UbPtr[rs.uint8]) -> None:
        x, idx, m = Reg.RegTensor(dtype), Reg.RegTensor(index_type), Reg.MaskReg()
        for i in range(rows):
            Reg.LoadAlign(idx, index + i * (256 // index_type.itemsize))
            Reg.LoadAlign(m, masks + i * 32)
            Reg.LoadAlign(x, src + i * (256 // dtype.itemsize))
            Reg.Scatter(dst + i * stride, x, idx, m)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(65536)
        dst, src = ub.alloc(dtype, span), ub.alloc(dtype, rows * 256 // dtype.itemsize)
        index, masks = ub.alloc(index_type, rows * 256 // index_type.itemsize), ub.alloc(rs.uint8, rows * 32)
        src.set(values.reshape(-1).view(dtype.np_dtype))
        padded = np.zeros((rows, 256 // index_type.itemsize), index_type.np_dtype)
        padded[:, :n_lanes] = indices
        index.set(padded.reshape(-1))
        masks.set(bits.reshape(-1))
        dst.set(np.zeros(span, dtype.np_dtype))
        return ub, lambda: scattering(dst.GetPhyAddr(), src.GetPhyAddr(), index.GetPhyAddr(), masks.GetPhyAddr())

    decisions, _ = _both(world)
    size = dtype.itemsize
    want = np.zeros(span * size, np.uint8)
    error: type[Exception] | None = None
    for r in range(rows):  # the oracle: per lane, in order; lane k of a b8 source is its byte 2k, mask bit 2k
        step = 2 if size == 1 else size
        on = np.unpackbits(bits[r], bitorder="little").astype(bool)[::step][:n_lanes]
        chunks: dict[int, bytes] = {}
        clash = outside = False  # (a clash is refused before the bounds are checked)
        for k in np.flatnonzero(on):
            at = r * stride + int(indices[r, k])
            data = bytes(values[r, 2 * k : 2 * k + 1]) if size == 1 else bytes(values[r, k * size : (k + 1) * size])
            clash |= chunks.get(at, data) != data
            outside |= not 0 <= at < span
            chunks[at] = data
        error = rs.errors.ParameterError if clash else rs.errors.OutOfBoundsError if outside else None
        if error:
            break
        for at, data in chunks.items():
            want[at * size : (at + 1) * size] = np.frombuffer(data, np.uint8)
    ub, run = world()
    if error:
        with pytest.raises(error):
            run()
        return
    run()
    assert np.array_equal(ub.storage.data[: span * size], want)
    if not shared:
        assert decisions == ["batched"], decisions


def test_a_scatter_into_bytes_another_iteration_reads_runs_in_order() -> None:
    """The near twin: iteration i scatters into the bytes iteration i + 1 loads (a dependence): in order, the same bits."""

    @rs.simd_vf
    def chained(a: rs.UbPtr[rs.int32], index: rs.UbPtr[rs.uint32]) -> None:
        x, idx = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.uint32)
        m = Reg.CreateMask(rs.int32)
        Reg.LoadAlign(idx, index)
        for i in range(4):
            Reg.LoadAlign(x, a + i * 64)
            Reg.Adds(x, x, 1, m)
            Reg.Scatter(a + (i + 1) * 64, x, idx, m)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(8192)
        a, index = ub.alloc(rs.int32, 64 * 5), ub.alloc(rs.uint32, 64)
        a.set(np.arange(64 * 5, dtype=np.int32))
        index.set(np.arange(64, dtype=np.uint32))
        return ub, lambda: chained(a.GetPhyAddr(), index.GetPhyAddr())

    decisions, _ = _both(world)
    assert decisions == ["sequential"]
    ub, run = world()
    run()
    assert np.array_equal(ub.storage.data[: 64 * 5 * 4].view(np.int32)[256:], np.arange(64, dtype=np.int32) + 4)


@settings(max_examples=8, deadline=None)
@given(rows=st.integers(2, 9), seed=st.integers(0, 2**32 - 1), bad_row=st.integers(-1, 9), overlap=st.booleans())
def test_block_gathers_batch_bit_identical(rows: int, seed: int, bad_row: int, overlap: bool) -> None:
    """Per iteration, a GatherB of 8 DataBlocks by byte offsets and a mask loaded from the UB, stored to the
    iteration's register of dst: the default mode gives the in-order run's bytes, flags and error (a misaligned
    offset in one row: AlignmentError there); `overlap`: the source is dst itself, so a block an iteration reads
    may be one an earlier iteration stored (in order then); without errors and overlap, it batches and dst is the
    oracle's: block k = mask bit 4k ? the 32 source bytes at offset k : 0."""
    n_src = 2048  #: source bytes (64 DataBlocks)
    rng = np.random.default_rng(seed)
    offsets = (rng.integers(0, n_src // 32, (rows, 64)) * 32).astype(np.uint32)
    if 0 <= bad_row < rows:
        offsets[bad_row, rng.integers(0, 8)] += 4
    bits = rng.integers(0, 256, (rows, 32), dtype=np.uint8)
    source = rng.integers(0, 256, n_src, dtype=np.uint8)

    @rs.simd_vf
    def gathering(
        dst: rs.UbPtr[rs.uint32], src: rs.UbPtr[rs.uint32], index: rs.UbPtr[rs.uint32], masks: rs.UbPtr[rs.uint8]
    ) -> None:
        x, idx, m = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.MaskReg()
        for i in range(rows):
            Reg.LoadAlign(idx, index + i * 64)
            Reg.LoadAlign(m, masks + i * 32)
            Reg.GatherB(x, src, idx, m)
            Reg.StoreAlign(dst + i * 64, x, Reg.CreateMask(rs.uint32))

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(65536)
        dst = ub.alloc(rs.uint32, max(rows * 64, n_src // 4))
        src = dst if overlap else ub.alloc(rs.uint32, n_src // 4)
        index, masks = ub.alloc(rs.uint32, rows * 64), ub.alloc(rs.uint8, rows * 32)
        dst.set(np.zeros(dst.GetSize(), np.uint32))
        ub.storage.write(src.GetPhyAddr().addr, source)
        index.set(offsets.reshape(-1))
        masks.set(bits.reshape(-1))
        return ub, lambda: gathering(dst.GetPhyAddr(), src.GetPhyAddr(), index.GetPhyAddr(), masks.GetPhyAddr())

    decisions, _ = _both(world)
    if overlap:
        return
    want = np.zeros((rows, 256), np.uint8)
    ub, run = world()
    for r in range(rows):
        on = np.unpackbits(bits[r], bitorder="little").astype(bool)[::4][:8]
        if (on & (offsets[r, :8] % 32 != 0)).any():
            with pytest.raises(rs.errors.AlignmentError, match="GatherB: index = "):
                run()
            break
        for k in np.flatnonzero(on):
            want[r, 32 * k : 32 * (k + 1)] = source[offsets[r, k] : offsets[r, k] + 32]
    else:
        run()
        assert decisions == ["batched"], decisions
    assert np.array_equal(ub.storage.data[: rows * 256].reshape(rows, 256)[:r], want[:r])


@pytest.mark.parametrize("dtype", [rs.uint8, rs.int16, rs.uint32], ids=lambda d: d.name)
@settings(max_examples=8, deadline=None)
@given(
    rows=st.integers(2, 9),
    seed=st.integers(0, 2**32 - 1),
    load_stride=st.integers(0, 3),
    store_stride=st.integers(1, 3),
    shared=st.booleans(),
    short=st.booleans(),
    post=st.booleans(),
)
def test_block_copies_batch_bit_identical(
    dtype: Any, rows: int, seed: int, load_stride: int, store_stride: int, shared: bool, short: bool, post: bool
) -> None:
    """Per iteration, a DATA_BLOCK_COPY load (block k from the row's base + k * load_stride blocks, read iff one of
    its lanes is active, else zero) and store (block k's active lanes to the row's base + k * store_stride blocks)
    under a mask loaded from the UB (it differs by row), the load's base a post-update pointer or an index offset:
    the default mode gives the in-order run's bytes, flags and error (`short`: dst one row short, an active lane
    of the last row past it: OutOfBoundsError there), batching where the rows' bytes are apart (not `shared`: every
    row storing to one base); without an error, dst is the per-block oracle's (row by row, in order)."""
    size = dtype.itemsize
    per_block = 32 // size
    src_row, dst_row = (7 * load_stride + 1) * 32, (7 * store_stride + 1) * 32  #: bytes a row's blocks span
    dst_rows = 1 if shared else rows - short
    mode = Reg.DataCopyMode.DATA_BLOCK_COPY
    rng = np.random.default_rng(seed)
    source = rng.integers(0, 256, rows * src_row, dtype=np.uint8)
    bits = rng.integers(0, 256, (rows, 32), dtype=np.uint8)
    bits[:, :4] = 0xFF  # (block 0 active in every row: the short dst's last row stores past it)
    bits[:, 8:12] = np.where(rng.integers(0, 2, (rows, 1)) == 1, 0, bits[:, 8:12])  # whole blocks off, some rows

    @rs.simd_vf
    def copying(dst: rs.UbPtr[Any], src: rs.UbPtr[Any], masks: rs.UbPtr[rs.uint8]) -> None:
        x, m = Reg.RegTensor(dtype), Reg.MaskReg()
        p = src.copy()
        for i in range(rows):
            Reg.LoadAlign(m, masks + i * 32)
            if post:
                Reg.LoadAlign(x, p, load_stride, src_row // 32, m, data_mode=mode, post_mode=UPDATE)
            else:
                Reg.LoadAlign(x, src + i * (src_row // size), load_stride, m, data_mode=mode)
            Reg.StoreAlign(dst + (0 if shared else i) * (dst_row // size), x, store_stride, m, data_mode=mode)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(65536)
        dst, src = ub.alloc(dtype, dst_rows * dst_row // size), ub.alloc(dtype, rows * src_row // size)
        masks = ub.alloc(rs.uint8, rows * 32)
        src.set(source.view(dtype.np_dtype))
        masks.set(bits.reshape(-1))
        dst.set(np.zeros(dst.GetSize(), dtype.np_dtype))
        return ub, lambda: copying(dst.GetPhyAddr(), src.GetPhyAddr(), masks.GetPhyAddr())

    decisions, _ = _both(world)
    want = np.zeros(dst_rows * dst_row, np.uint8)
    for r in range(rows):  # the oracle, per block and lane
        on = np.unpackbits(bits[r], bitorder="little").astype(bool)[::size].reshape(8, per_block)
        base = (0 if shared else r) * dst_row
        for k in np.flatnonzero(on.any(axis=1)):
            block = source[r * src_row + k * load_stride * 32 :][:32]
            for j in np.flatnonzero(on[k]):
                at = base + k * store_stride * 32 + j * size
                if at + size > want.size:
                    break
                want[at : at + size] = block[j * size : (j + 1) * size]
    ub, run = world()
    if short and not shared:
        with pytest.raises(rs.errors.OutOfBoundsError):
            run()
        return
    run()
    assert np.array_equal(ub.storage.data[: want.size], want)
    if not shared and not (post and rows == 2):  # (iteration 0 runs in order for the post-update: one left)
        assert decisions == ["batched"], decisions


@pytest.mark.parametrize("flush", ["each iteration", "after the loop"])
def test_an_unaligned_store_stream_the_body_makes_anew_in_each_iteration(flush: str) -> None:
    """The body makes its stream's pointer (and, flushed in each iteration, its UnalignRegForStore) anew: every
    iteration appends at the same UB byte. In order, flushed in each iteration, each writes its one int8 there (the last
    iteration's stays); flushed after the loop, iteration 1 finds the stream off where it left off and raises. The
    default mode gives the same bytes and error (it ran the loop in order: the iterations do not continue one
    stream), where it used to append the iterations one after another and leave them buffered at the VF's end."""
    rows = 24

    @rs.simd_vf
    def restarting(dst: rs.UbPtr[rs.int8], src: rs.UbPtr[rs.int8]) -> None:
        x, kept = Reg.RegTensor(rs.int8), Reg.UnalignRegForStore()
        for i in range(rows):
            out = dst + 4
            u = Reg.UnalignRegForStore() if flush == "each iteration" else kept
            Reg.LoadAlign(x, src + i * 256)
            Reg.StoreUnAlign(out, x, u, 1)
            if flush == "each iteration":
                Reg.StoreUnAlignPost(out, u, 0)
        if flush == "after the loop":
            Reg.StoreUnAlignPost(dst, kept, 0)

    def world() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(16384)
        src, dst = ub.alloc(rs.int8, rows * 256), ub.alloc(rs.int8, 256)
        src.set((np.arange(rows * 256) % 101).astype(np.int8))
        dst.set(np.zeros(256, np.int8))
        return ub, lambda: restarting(dst.GetPhyAddr(), src.GetPhyAddr())

    with rs.configure(batch_min_iterations=2):
        decisions, _ = run_both(world)
    assert [d.how for d in decisions] == ["sequential"], [str(d) for d in decisions]
    ub, run = world()
    with rs.configure(batch_min_iterations=2):
        if flush == "after the loop":
            with pytest.raises(rs.errors.VfContextError, match=r"StoreUnAlign: dst_addr = UB byte \d+, but ureg buffers"):
                run()
            return
        run()
    got = ub.storage.data[rows * 256 :][:256].view(np.int8)
    want = np.zeros(256, np.int8)
    want[4] = (rows - 1) * 256 % 101  # (the last iteration's first element of src)
    assert np.array_equal(got, want)
