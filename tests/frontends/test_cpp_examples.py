"""asc-devkit examples without a Python port, run from their unmodified files against their gen_data.py.

The files are the vendor's: these tests run only with REGSIM_ASC_DEVKIT set to an asc-devkit
checkout (the repository does not copy them). Each test is the example's host code in a few lines
(its UB tensors, repeat counts and asc_vf_call) and its gen_data.py reference, seeded by us.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import regsim as rs

DEVKIT = os.environ.get("REGSIM_ASC_DEVKIT")
pytestmark = pytest.mark.skipif(not DEVKIT, reason="set REGSIM_ASC_DEVKIT to an asc-devkit checkout")
RC = "examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/"


def _load(rel: str, scenario: int | None = None) -> rs.cpp.CppModule:
    args = (f"-DSCENARIO_NUM={scenario}",) if scenario is not None else ()
    return rs.cpp.load(Path(DEVKIT or ".") / rel, args=args)


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("seed", [0, 1])
def test_cast_half_to_int32_floor_and_float_to_int16_round_saturated(seed: int, loops: str) -> None:
    rng = np.random.default_rng(seed)
    # scenario 1: half -> int32, CAST_FLOOR, DIST_UNPACK_B16 loads (64 halves per repeat)
    x = rng.uniform(-100, 100, 256).astype(np.float16)
    ub = rs.UnifiedBuffer()
    xt, yt = ub.alloc(rs.half, 256), ub.alloc(rs.int32, 256)
    xt.set(x)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load(RC + "cast/cast.asc", 1).CastVFF162S32(xt.GetPhyAddr(), yt.GetPhyAddr(), 4, 64)
    np.testing.assert_array_equal(yt.numpy(), np.floor(x).astype(np.int32))  # gen_data.py's golden
    # scenario 2: float -> int16, CAST_ROUND (half away from zero), SAT, DIST_PACK_B32 stores
    x2 = rng.uniform(-100, 100, 256).astype(np.float32)
    x2[:4] = [2.5, -2.5, 40000.0, -40000.0]  # (not in gen_data.py) the tie rule and the saturation
    ub = rs.UnifiedBuffer()
    xt2, yt2 = ub.alloc(rs.float32, 256), ub.alloc(rs.int16, 256)
    xt2.set(x2)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load(RC + "cast/cast.asc", 2).CastVFF322S16(xt2.GetPhyAddr(), yt2.GetPhyAddr(), 4, 64)
    x64 = x2.astype(np.float64)
    want = np.clip(np.sign(x64) * np.floor(np.abs(x64) + 0.5), -32768, 32767).astype(np.int16)
    np.testing.assert_array_equal(yt2.numpy(), want)
    golden = np.clip(np.round(x2[4:]), -32768, 32767).astype(np.int16)  # gen_data.py's (no ties drawn)
    np.testing.assert_array_equal(yt2.numpy()[4:], golden)


def _flush(v: np.ndarray) -> np.ndarray:
    return np.where(np.abs(v) < np.float32(2.0**-126), np.copysign(np.float32(0), v), v).astype(np.float32)


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("scenario", [1, 2])
def test_subnormal_div_keeps_or_flushes_subnormals(scenario: int, loops: str) -> None:
    x_small = np.array([2.0**-126, 2.0**-125, 2.0**-130, 2.0**-130, 2.0**-140])
    y_small = np.array([4.0, 2.0**-127, 2.0, 2.0**-20, 2.0**-145])
    x = np.tile(x_small, 205)[:1024].astype(np.float32)  # gen_data.py's inputs
    y = np.tile(y_small, 205)[:1024].astype(np.float32)
    ub = rs.UnifiedBuffer()
    xt, yt, zt = ub.alloc(rs.float32, 1024), ub.alloc(rs.float32, 1024), ub.alloc(rs.float32, 1024)
    xt.set(x)
    yt.set(y)
    mod = _load(RC + "subnormal/subnormal.asc", scenario)
    vf = mod.SubnormalFTZFalseVF if scenario == 1 else mod.SubnormalFTZTrueVF
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf[rs.float32](xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), 16, 64)
    if scenario == 1:  # PRECISION_1ULP_FTZ_FALSE: gen_data.py's golden, float64 division rounded once
        want = (x.astype(np.float64) / y.astype(np.float64)).astype(np.float32)
    else:  # PRECISION_1ULP_FTZ_TRUE: subnormal inputs and results are zeros (x / 0 = inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            want = _flush((_flush(x).astype(np.float64) / _flush(y).astype(np.float64)).astype(np.float32))
        want[np.isnan(want)] = np.uint32(0x7FFFFFFF).view(np.float32)  # the Div page's NaN (0 / 0 here)
        assert np.isnan(want).sum() == 1024 // 5
    np.testing.assert_array_equal(zt.numpy().view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_the_introduction_add_doubles_its_buffer(loops: str) -> None:
    single = 256 * 256 // 4  # singleCoreLength: the template argument of AddVF<float, singleCoreLength>
    ub = rs.UnifiedBuffer()
    yt = ub.alloc(rs.float32, single)
    src = np.random.default_rng(3).uniform(-2, 2, single).astype(np.float32)  # gen_data.py: ones
    yt.set(src)
    vf = _load("examples/01_simd_cpp_api/00_introduction/04_reg_compute/add/add.asc").AddVF[rs.float32, single]
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(yt.GetPhyAddr(), single)
    np.testing.assert_array_equal(yt.numpy(), src + src)


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_the_introduction_gelu_in_the_kernels_order(loops: str) -> None:
    count = 4096  # singleCoreLength; loopNum = DivCeil(4096, 64)
    x = np.random.default_rng(5).uniform(-10, 10, count).astype(np.float32)  # gen_data.py's range
    ub = rs.UnifiedBuffer()
    xt, yt = ub.alloc(rs.float32, count), ub.alloc(rs.float32, count)
    xt.set(x)
    mod = _load("examples/01_simd_cpp_api/00_introduction/04_reg_compute/gelu/gelu.asc")
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.GeluVfMethod2(xt.GetPhyAddr(), yt.GetPhyAddr(), count, count // 64)
    f = np.float32
    cubic = x * x * x * f(-0.071405)  # Mul, Mul, Muls: float32, rounded after each
    e = (x * f(-1.595769) + cubic).astype(np.float64)  # Muls, Add
    y = x / (np.exp(e).astype(np.float32) + f(1))  # Exp (correctly rounded), Adds, Div
    np.testing.assert_array_equal(yt.numpy().view(np.uint32), y.view(np.uint32))
    golden = x / (1 + np.exp(-1.595769 * x + -0.071405 * x**3))  # gen_data.py
    np.testing.assert_allclose(yt.numpy(), golden, rtol=1e-4, atol=1e-4)  # the example's tolerance


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_reduce_block_mergemode_and_histogram(loops: str) -> None:
    rng = np.random.default_rng(6)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        # reduce_block: ReduceDataBlock<SUM> of each 32-byte block, 8 sums per register at its lowest lanes
        x = rng.uniform(1, 2, 256).astype(np.float32)
        ub = rs.UnifiedBuffer()
        xt, yt = ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 256)
        xt.set(x)
        yt.set(np.full(256, 7, np.float32))
        _load(RC + "reduce_block/reduce_block.asc").ReduceDataBlockSumVF[rs.float32](yt.GetPhyAddr(), xt.GetPhyAddr(), 4, 64)
        y = yt.numpy().reshape(4, 64)
        np.testing.assert_allclose(y[:, :8].reshape(-1), x.reshape(32, 8).sum(axis=1), rtol=1e-6)  # gen_data.py's golden
        np.testing.assert_array_equal(y[:, 8:], 0)  # the rest of each register: zeros
        # mergemode: Max MERGING into a register of 2s (200 lanes of x, the tail keeps 2), then ReduceMax
        x = rng.uniform(-100, -1, 256).astype(np.float32)
        ub = rs.UnifiedBuffer()
        xt, yt = ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 256)
        xt.set(x)
        mod = _load(RC + "mergemode/mergemode.asc")
        mod.MaxMergeModeVF[rs.float32](yt.GetPhyAddr(), xt.GetPhyAddr(), xt.GetPhyAddr(), 200, 64)
        np.testing.assert_array_equal(yt.numpy(), np.concatenate([x[:200], np.full(56, 2, np.float32)]))
        mod.ReduceMaxVF[rs.float32](yt.GetPhyAddr(), yt.GetPhyAddr(), 256, 64)
        got = yt.numpy()[:8]
        assert got[0] == 2 and not got[2:].any()  # gen_data.py's golden: [2, 0, ..., 0]
        # lane 1: Reduce<MAX> writes the index of the extreme there (decisions: Reduce), and the loop's
        # Max keeps the largest index bits seen (an index as raw float bits, a subnormal: within the
        # example's tolerance of the golden's 0)
        first_max = [int(np.argmax(x[k : k + 64])) for k in (0, 64, 128)] + [200 - 192]  # the 4th register: its first 2
        assert got[1:2].view(np.uint32)[0] == max(first_max)
        # histogram: Histograms<uint8_t, uint16_t, BIN0 / BIN1, FREQUENCY> of 256 bytes
        v = rng.integers(0, 256, 256).astype(np.uint8)
        ub = rs.UnifiedBuffer()
        st, dt_ = ub.alloc(rs.uint8, 256), ub.alloc(rs.uint16, 256)
        st.set(v)
        dt_.set(np.full(256, 9, np.uint16))
        _load(RC + "histogram/histogram.asc").HistogramsVF[rs.uint8, rs.uint16](dt_.GetPhyAddr(), st.GetPhyAddr(), 256, 256)
        np.testing.assert_array_equal(dt_.numpy(), np.bincount(v, minlength=256).astype(np.uint16))


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_data_relayout_interleave_and_pack(loops: str) -> None:
    rng = np.random.default_rng(8)
    rel = RC + "data_relayout/data_relayout.asc"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        x, y = rng.integers(0, 65536, 128).astype(np.uint16), rng.integers(0, 65536, 128).astype(np.uint16)
        ub = rs.UnifiedBuffer()
        xt, yt, d0, d1 = (ub.alloc(rs.uint16, 128) for _ in range(4))
        xt.set(x)
        yt.set(y)
        _load(rel, 1).InterleaveVF[rs.uint16](d0.GetPhyAddr(), d1.GetPhyAddr(), xt.GetPhyAddr(), yt.GetPhyAddr(), 1, 128)
        np.testing.assert_array_equal(d0.numpy(), np.stack([x[:64], y[:64]], axis=1).reshape(-1))  # gen_data.py
        np.testing.assert_array_equal(d1.numpy(), np.stack([x[64:], y[64:]], axis=1).reshape(-1))
        # Pack<uint16_t, uint32_t, LOWEST>: each repeat stores a whole register (128 halves, mask16 ALL)
        # and moves 64: the second store runs 128 bytes past the example's 128-element dstLocal
        v = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
        ub = rs.UnifiedBuffer()
        st, dst = ub.alloc(rs.uint32, 128), ub.alloc(rs.uint16, 128)
        st.set(v)
        pack = _load(rel, 2).PackVF[rs.uint32, rs.uint16]
        with pytest.raises(rs.errors.OutOfBoundsError, match=r"StoreAlign: dst_addr = lanes 64\.\.127"):
            pack(dst.GetPhyAddr(), st.GetPhyAddr(), 2, 64)
        ub = rs.UnifiedBuffer()
        st, dst = ub.alloc(rs.uint32, 128), ub.alloc(rs.uint16, 192)  # room for that store
        st.set(v)
        pack(dst.GetPhyAddr(), st.GetPhyAddr(), 2, 64)
        np.testing.assert_array_equal(dst.numpy()[:128], (v & 0xFFFF).astype(np.uint16))  # gen_data.py's golden


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_reg_move_maskgen_widens_each_bit_to_a_lane(loops: str) -> None:
    cond = np.zeros(64, np.uint32)
    cond[0], cond[1] = 0x00000001, 0xFFFFFFFF  # gen_data.py's input
    bits = np.unpackbits(cond.view(np.uint8)[:8], bitorder="little")  # the register's first 64 bits
    golden = np.packbits(np.repeat(bits, 4), bitorder="little")  # each bit to a 4-bit (int32) lane
    ub = rs.UnifiedBuffer()
    ct, mt = ub.alloc(rs.int32, 64), ub.alloc(rs.uint8, 32)
    ct.set(cond.view(np.int32))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load("examples/01_simd_cpp_api/03_basic_api/00_data_movement/reg_move/move_reg_scenario_1.asc").MaskGenVF[rs.int32](
            ct.GetPhyAddr(), mt.GetPhyAddr()
        )
    np.testing.assert_array_equal(mt.numpy(), golden)


def test_trait_int64_div_with_one_and_two_registers() -> None:
    rng = np.random.default_rng(10)
    n = 10 * 1024
    x = rng.uniform(1, 1000, n).astype(np.int64)  # gen_data.py's ranges
    y = rng.uniform(1, 100, n).astype(np.int64)
    golden = (x / y).astype(np.int64)
    rel = RC + "trait/trait.asc"

    def run(scenario: int, name: str, pad: int) -> np.ndarray:
        ub = rs.UnifiedBuffer()
        xt, yt, zt = (ub.alloc(rs.int64, n + pad) for _ in range(3))
        xt.set(np.concatenate([x, np.ones(pad, np.int64)]))
        yt.set(np.concatenate([y, np.ones(pad, np.int64)]))
        _load(rel, scenario)[name][rs.int64](xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), n // 32, 32)
        return zt.numpy()[:n]

    np.testing.assert_array_equal(run(1, "TraitNumOneVF", 0), golden)
    # RegTraitNumTwo: each register holds 64 int64 (2 x VL) but the host moves the pointers by
    # oneRepeatSize = GetVecLen() / sizeof(T) = 32, so the last store runs 32 elements past zLocal
    with pytest.raises(rs.errors.OutOfBoundsError, match=r"StoreAlign: dst_addr = lanes 0\.\.31"):
        run(2, "TraitNumTwoVF", 0)
    np.testing.assert_array_equal(run(2, "TraitNumTwoVF", 32), golden)  # with room for that store


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("seed", [0, 1])
def test_reg_move_scenario_2_selects_by_the_mask_bits_it_reads_through_a_float_pointer(seed: int, loops: str) -> None:
    rng = np.random.default_rng(seed)
    total, mask_len = 256, 8  # gen_data.py: 256 floats, a mask of 256 / 8 / sizeof(float) floats
    x = rng.uniform(0, 2, total).astype(np.float32)  # gen_data.py's inputs
    y = rng.uniform(0, 2, total).astype(np.float32)
    mask = rng.integers(0, 255, mask_len * 4).astype(np.uint8)
    golden = np.where(np.unpackbits(mask, bitorder="little").astype(bool), x, y)  # gen_data.py's loop, bit i for lane i
    ub = rs.UnifiedBuffer()
    xt, yt = ub.alloc(rs.float32, total), ub.alloc(rs.float32, total)
    mt, zt = ub.alloc(rs.float32, 32), ub.alloc(rs.float32, total)  # main(): maskLength 32 floats
    xt.set(x)
    yt.set(y)
    tail = rng.integers(0, 256, 96).astype(np.uint8)  # bytes past input_mask.bin: whatever the device held
    mt.set(np.concatenate([mask, tail]).view(np.float32))
    vf = _load("examples/01_simd_cpp_api/03_basic_api/00_data_movement/reg_move/move_reg_scenario_2.asc").SelectVF[rs.float32]
    one_repeat = 64
    args = (xt.GetPhyAddr(), yt.GetPhyAddr(), mt.GetPhyAddr(), zt.GetPhyAddr())
    # The VF moves its LoadUnAlign stream by maskRepeatSize = 2 floats (8 bytes) a repeat while each
    # LoadUnAlign reads a whole register: from the second repeat on the address is not where the
    # previous read ended, and the vldus re-reads its own block (docs/decisions/datamove.md#unaligned-load), so each repeat's
    # register starts at its 8 mask bytes, as gen_data.py's golden expects.
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(*args, total // one_repeat, one_repeat, one_repeat // 32)
    np.testing.assert_array_equal(zt.numpy().view(np.uint32), golden.view(np.uint32))


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("block", [0, 7])
def test_clock_simd_adds_gives_the_hosts_golden(block: int, loops: str) -> None:
    # clock.asc's SIMD part (its clock() calls are in the SIMT gather, which regsim does not run):
    # main(): float, 8 blocks of 1024 of input[i] = (float)i * 0.01f gathered by index[i] = i % 100000
    per_block, added = 1024, np.float32(1.0)
    idx = np.arange(block * per_block, (block + 1) * per_block) % 100000
    gathered = idx.astype(np.float32) * np.float32(0.01)  # what simt_gather leaves in UB
    golden = gathered + added  # the host's golden[i] = input[index[i]] + addsAddend, compared with std::equal
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.float32, per_block), ub.alloc(rs.float32, per_block)
    src.set(gathered)
    vf = _load("examples/01_simd_cpp_api/01_utilities/03_clock/clock.asc").simd_adds[rs.float32]
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(dst.GetPhyAddr(), src.GetPhyAddr(), added, per_block, 64, per_block // 64)
    np.testing.assert_array_equal(dst.numpy().view(np.uint32), golden.view(np.uint32))


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_tensor_allocation_add_gives_the_hosts_golden(loops: str) -> None:
    # main(): float, 1024 elements, x[i] = (i % 100) * 0.1f, y[i] = ((i + 50) % 100) * 0.2f, golden x + y
    # (scenario 4 runs AddVF on tensors from LocalMemAllocator; the other scenarios use no VF)
    i = np.arange(1024)
    x = (i % 100).astype(np.float32) * np.float32(0.1)
    y = ((i + 50) % 100).astype(np.float32) * np.float32(0.2)
    ub = rs.UnifiedBuffer()
    xt, yt, zt = ub.alloc(rs.float32, 1024), ub.alloc(rs.float32, 1024), ub.alloc(rs.float32, 1024)
    xt.set(x)
    yt.set(y)
    rel = "examples/01_simd_cpp_api/03_basic_api/04_memory_management/tensor_allocation/tensor_allocation.asc"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load(rel, 4).AddVF[rs.float32](xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), 16, 64)
    np.testing.assert_array_equal(zt.numpy().view(np.uint32), (x + y).view(np.uint32))  # float32 adds, as the host's


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_mmad_gelu_vector_part_against_gen_data(loops: str) -> None:
    # matmul_gelu_high_performance: the cube's Mmad (outside the Reg layer) is numpy's float32 matmul
    # of gen_data.py's half inputs (k = 8192, on a 16 x 128 tile of its 8192 x 8192 output); GeluVf
    # then runs on it from the file, against gen_data.py's float64 GELU within verify_result.py's tolerance
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, [16, 8192]).astype(np.float16)
    b = rng.uniform(-1, 1, [8192, 128]).astype(np.float16)
    mm = np.matmul(a.astype(np.float32), b.astype(np.float32)).reshape(-1)
    m64 = mm.astype(np.float64)
    golden = (m64 / (1.0 + np.exp(np.clip(-1.595769 * (m64 + 0.044715 * m64**3), -88.0, 88.0)))).astype(np.float32)
    n = mm.size
    ub = rs.UnifiedBuffer()
    xt, yt = ub.alloc(rs.float32, n), ub.alloc(rs.float32, n)
    xt.set(mm)
    vf = _load("examples/01_simd_cpp_api/05_best_practices/03_fusion_compute/matmul_gelu_high_performance/mmad_gelu.asc")
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf.instantiate("GeluVf")(xt.GetPhyAddr(), yt.GetPhyAddr(), n, n // 64)
    np.testing.assert_allclose(yt.numpy(), golden, rtol=1e-3, atol=1e-3)


SOFTMAX = "examples/01_simd_cpp_api/05_best_practices/02_reg_compute/softmax_high_performance/softmax.asc"


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("scenario", [1, 2, 3, 4, 5])
def test_softmax_high_performance_against_gen_data(scenario: int, loops: str) -> None:
    # main(): float, a [128, 128] input (rDimAlign 128), one loop over all 128 rows; scenario 1 keeps
    # the row sums in a fourth whole tensor, so its four tensors take 96 rows to fit regsim's 248 KB UB
    a_dim, r_dim, r_align = (96 if scenario == 1 else 128), 128, 128
    x = np.random.default_rng(scenario).uniform(-5, 5, [a_dim, r_dim]).astype(np.float32)
    ub = rs.UnifiedBuffer()
    xt, yt = ub.alloc(rs.float32, x.size), ub.alloc(rs.float32, x.size)
    exp_t = ub.alloc(rs.float32, x.size)
    # the host gives scenario 2 a whole tensor too, but its VF never reads it (nor would it fit regsim's UB)
    sum_t = ub.alloc(rs.float32, x.size if scenario == 1 else 8)
    xt.set(x.reshape(-1))
    args: tuple[int, ...] = (a_dim, r_dim, r_align)
    if scenario >= 4:  # CustomSoftmax's host lines: tail, repeatTimesMain, hasTail
        tail = r_dim % 64
        args += (tail, r_dim // 64, int(tail != 0))
    vf = _load(SOFTMAX, scenario).CustomSoftmaxVF[rs.float32]
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(yt.GetPhyAddr(), xt.GetPhyAddr(), exp_t.GetPhyAddr(), sum_t.GetPhyAddr(), *args)
    e = np.exp(x - x.max(axis=1, keepdims=True))  # gen_data.py's golden
    golden = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(yt.numpy().reshape(a_dim, r_dim), golden, rtol=1e-4, atol=1e-5)  # verify_result.py


# --- bank_conflict_3510: the 14 cases of config.h, through vf_func.h's VFs --------------------------------------
BANK = "examples/01_simd_cpp_api/05_best_practices/04_memory_access/"
#: bank_conflict.asc's `#if SCENARIO_NUM` chain: the VF each case calls
BANK_VF = {1: "AddWithUnRollVF", 2: "AddWithUnRollVF", 3: "AddWithUnRollVF", 4: "AddWithUnRollVF"}
BANK_VF |= {5: "AddWithUnRollVF", 6: "AddWithoutUnRollVF", 7: "AddWithUnRollVF", 8: "ComputeBoundVF"}
BANK_VF |= {9: "GatherAndScatterVF", 10: "GatherAndScatterVF", 11: "AddsByRowVF", 12: "AddsByColVF"}
BANK_VF |= {13: "AddsWithBlockOverlap", 14: "AddsWithRepeatOverlap"}
#: config.h: (TOTAL_LENGTH, xLocalAddr, yLocalAddr, zLocalAddr) per case
BANK_CFG = {n: (4096, 0x0000, 0x5100, 0xA100) for n in (4, 7)}
BANK_CFG |= {1: (4096, 0, 0x5000, 0xA100), 2: (4096, 0, 0x5100, 0xA000), 3: (4096, 0, 0x5100, 0)}
BANK_CFG |= {5: (4096, 0, 0x5100, 0x5100), 6: (4096, 0, 0x5000, 0xA000), 8: (4096, 0, 0x5000, 0xA000)}
BANK_CFG |= {9: (256, 0, 0x400, 0x400), 10: (256, 0, 0x400, 0x400)}
BANK_CFG |= {n: (512, 0, 0x800, 0x4100) for n in (11, 12, 13, 14)}
HOST_CALLS = 1000  # bank_conflict.asc: REPEAT_TIMES_FOR_INSTR_EXCUTE


def _bank_golden(case: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """gen_data.py's golden for each case (its formulas, with its KERNEL_REPEAT = 1000)."""
    if case in (1, 2, 4, 6, 7):
        return x + y
    if case == 3:
        return x + np.float32(HOST_CALLS) * y
    if case == 5:
        return np.float32(HOST_CALLS) * x + y
    if case == 8:
        return x + np.float32(1000.0) + y
    if case in (9, 10):
        golden = y.copy()
        golden[np.unique(x)] += np.float32(HOST_CALLS)
        return golden
    if case in (11, 12):
        return x.copy()
    if case == 13:
        return np.array([x[i * 64 + j % 8] for i in range(8) for j in range(64)], np.float32)
    return np.tile(x[:64], 8)  # case 14


def _bank_in_order(case: int, x: np.ndarray, y: np.ndarray, calls: int) -> np.ndarray:
    """The cases run instruction by instruction in float32, `calls` times (semantics decision 36:
    each instruction completes before the next): written apart from the golden's closed forms."""
    f32 = np.float32
    if case == 3:  # src0 and dst are one tensor: z = z + y per call
        z = x.copy()
        for _ in range(calls):
            z = (z + y).astype(f32)
        return z
    if case == 5:  # src1 and dst are one tensor: z = x + z per call
        z = y.copy()
        for _ in range(calls):
            z = (x + z).astype(f32)
        return z
    if case == 8:  # 1000 Adds of 1.0, each rounded, then + y
        r = x.copy()
        for _ in range(1000):
            r = (r + f32(1.0)).astype(f32)
        return (r + y).astype(f32)
    if case in (9, 10):  # y and dst are one tensor; 4 repeats of gather 64, +1, scatter 64, per call
        z = y.copy()
        for _ in range(calls):
            for i in range(4):
                idx = x[64 * i : 64 * i + 64].astype(np.int64)
                z[idx] = (z[idx] + f32(1.0)).astype(f32)
        return z
    return _bank_golden(case, x, y)  # the other cases read and write apart: one rounding or none


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("case", range(1, 15))
def test_bank_conflict_cases(case: int, loops: str) -> None:
    """vf_func.h's VFs at config.h's UB addresses (the aliasing of cases 3, 5, 9 and 10 included),
    called as often as bank_conflict.asc does where the result depends on it (once elsewhere: each call
    writes the same bytes), against gen_data.py's golden within verify_result.py's tolerance and bit
    for bit against the cases run instruction by instruction."""
    rng = np.random.default_rng(case)
    n, xa, ya, za = BANK_CFG[case]
    if case in (9, 10):  # gen_data.py: indices 0..255, or 0 and 128 alternating
        x = np.arange(n, dtype=np.uint32) if case == 9 else np.tile(np.array([0, 128], np.uint32), n // 2)
    else:
        x = rng.uniform(1, 100, n).astype(np.float32)
    y = rng.uniform(1, 100, n).astype(np.float32)
    ub = rs.UnifiedBuffer()
    whole = ub.alloc(rs.uint8, 0x10000)  # the example's LocalTensors at fixed addresses
    assert whole.addr == 0
    xt = whole[xa].ReinterpretCast(rs.uint32 if case in (9, 10) else rs.float32)
    yt, zt = whole[ya].ReinterpretCast(rs.float32), whole[za].ReinterpretCast(rs.float32)
    xt.set(np.concatenate([x.view(xt.numpy().dtype), xt.numpy()[n:]]))
    yt.set(np.concatenate([y, yt.numpy()[n:]]))
    mod = rs.cpp.load(Path(DEVKIT or ".") / BANK / "bank_conflict_3510/vf_func.h", args=(f"-DSCENARIO_NUM={case}",))
    types = (rs.uint32, rs.float32, rs.float32) if case in (9, 10) else (rs.float32,)
    vf = getattr(mod, BANK_VF[case])[types if len(types) > 1 else types[0]]
    calls = HOST_CALLS if case in (3, 5, 9, 10) else 1
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        for _ in range(calls):
            vf(xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr())
    got = zt.numpy()[:n].copy()
    want = _bank_in_order(case, x, y, calls)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    golden = _bank_golden(case, x, y)
    bad = ~np.isclose(got, golden, rtol=1e-4, atol=1e-5, equal_nan=True)
    if case == 10:
        # gen_data.py adds 1 per call at 0 and 128, but every call's four gathers read those two
        # elements after the previous repeat's scatter wrote them: in order, 4 per call
        assert bad.sum() == 2 and np.allclose(got[[0, 128]], y[[0, 128]] + 4 * HOST_CALLS)
    else:
        assert bad.mean() <= 1e-4, f"case {case}: {bad.sum()} elements off gen_data.py's golden"


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("scenario", [1, 2])
def test_bank_conflict_nd2nz_tile(scenario: int, loops: str) -> None:
    """bank_conflict_nd2nz_3510.h's RegLoadStoreVF<144, 128, 128> on one tile (main(): tileH 144, tileW
    128, vecLenHalf 128): each ND row's 8 DataBlocks go to 8 NZ columns dstNzC0Stride blocks apart
    (tileH, or tileH + 1 in scenario 2); gen_data.py's build_golden is that transpose of (row, C0
    column, 16). Full tiles and the last one (8192 rows = 56 * 144 + 128)."""
    tile_h, tile_w, c0 = 144, 128, 16
    stride = tile_h if scenario == 1 else tile_h + 1
    cols = tile_w // c0
    nz_elems = ((tile_h - 1) + (cols - 1) * stride + 1 + (scenario == 2)) * c0  # the kernel's nzBufElems
    mod = rs.cpp.load(
        Path(DEVKIT or ".") / BANK / "bank_conflict_nd2nz/bank_conflict_nd2nz_3510.h", args=(f"-DSCENARIO={scenario}",)
    )
    vf = mod.instantiate("RegLoadStoreVF", tileH=tile_h, tileW=tile_w, vecLenHalf=128)
    rng = np.random.default_rng(2026)
    for rows in (tile_h, 8192 % tile_h):
        nd = rng.integers(-128, 129, (tile_h, tile_w), dtype=np.int16).astype(np.float16)  # gen_data.py's values
        ub = rs.UnifiedBuffer()
        src, dst = ub.alloc(rs.half, tile_h * tile_w), ub.alloc(rs.half, nz_elems)
        src.set(nd.reshape(-1))
        dst.set(np.zeros(nz_elems, np.float16))
        with rs.configure(loops=loops):  # type: ignore[arg-type]
            vf(dst.GetPhyAddr(), src.GetPhyAddr(), rows)
        want = np.zeros((nz_elems // c0, c0), np.float16)
        for j in range(cols):  # build_golden: nd_blocks.transpose(1, 0, 2), with the column stride
            want[j * stride : j * stride + rows] = nd[:rows].reshape(rows, cols, c0)[:, j]
        np.testing.assert_array_equal(dst.numpy().view(np.uint16), want.reshape(-1).view(np.uint16))
