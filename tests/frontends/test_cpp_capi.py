"""The C++ front end on the 950 register-level C API (`vector_float`, `asc_add(dst, src0, src1, mask)` ...).

The quoted-source tests run everywhere (libclang needed). The example tests run the asc-devkit's C API
examples (examples/02_simd_c_api, the SIMD part of examples/05_simd_simt_hybrid) from their unmodified
files, only with REGSIM_ASC_DEVKIT set to an asc-devkit checkout (the repository does not copy them):
each is the example's host code in a few lines and its gen_data.py (or host) golden, seeded by us.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from regsim._src.frontends.capi.register import FORMS
from regsim._src.frontends.cpp.declarations import C_TYPES, header
from regsim.cpp import CppError

DEVKIT = os.environ.get("REGSIM_ASC_DEVKIT")
devkit = pytest.mark.skipif(not DEVKIT, reason="set REGSIM_ASC_DEVKIT to an asc-devkit checkout")
LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])
RC = "examples/02_simd_c_api/03_c_api/02_reg_vector_compute/"


def _source(text: str) -> rs.cpp.CppModule:
    return rs.cpp.load(cpp_source("k.asc", text))


def _ub(*specs: tuple[Any, int]) -> list[Any]:
    ub = rs.UnifiedBuffer()
    return [ub.alloc(d, n) for d, n in specs]


# --- the declarations ---------------------------------------------------------------------------------------------
def test_every_register_level_c_name_is_declared() -> None:
    h = header()
    for name in FORMS:
        assert f" {name}(" in h, name
    for ctype in ("vector_bool", "vector_float", "vector_half", "vector_int32_t", "vector_uint16_t", "vector_uint8_t"):
        assert f"using {ctype} = " in h
    assert "asc_get_vf_len()" in h
    assert C_TYPES["vector_bfloat16_t"] == "RegTensor<bfloat16_t>"


def test_a_name_added_to_the_registry_is_declared_and_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # a C spelling the registry gains later needs no front-end code: the same forms rs.capi runs
    from regsim._src.frontends.capi import register as capi_reg
    from regsim._src.frontends.cpp import declarations as cpp_decls

    monkeypatch.setitem(capi_reg.FORMS, "asc_regsim_test_neg", capi_reg.FORMS["asc_neg"])
    monkeypatch.setattr(rs.capi, "asc_regsim_test_neg", capi_reg.function("asc_regsim_test_neg"), raising=False)
    cpp_decls.header.cache_clear()
    try:
        mod = _source(
            """
__simd_vf__ inline void neg_vf(__ubuf__ int32_t* x, __ubuf__ int32_t* y)
{
    vector_int32_t a, b;
    vector_bool m = asc_create_mask_b32(PAT_ALL);
    asc_loadalign(a, x);
    asc_regsim_test_neg(b, a, m);
    asc_storealign(y, b, m);
}
""",
        )
        v = np.arange(-32, 32, dtype=np.int32)
        xt, yt = _ub((rs.int32, 64), (rs.int32, 64))
        xt.set(v)
        mod.neg_vf(xt.GetPhyAddr(), yt.GetPhyAddr())
        np.testing.assert_array_equal(yt.numpy(), -v)
    finally:
        cpp_decls.header.cache_clear()


# --- quoted sources (no devkit) ------------------------------------------------------------------------------------
ADD_SRC = """
__simd_vf__ inline void add_vf(__ubuf__ float* x, __ubuf__ float* y, __ubuf__ float* z, uint32_t count)
{
    uint16_t one_rep = asc_get_vf_len() / sizeof(float);
    uint16_t repeat = (count + one_rep - 1) / one_rep;
    vector_bool mask;
    vector_float a, b, c;
    for (uint16_t i = 0; i < repeat; ++i) {
        mask = asc_update_mask_b32(count);
        asc_loadalign(a, x + i * one_rep);
        asc_loadalign(b, y + i * one_rep);
        asc_add(c, a, b, mask);
        asc_mul_scalar(c, c, 0.5f, mask);
        asc_storealign(z + i * one_rep, c, mask);
    }
}

__simd_vf__ inline void max_select_vf(__ubuf__ half* x, __ubuf__ half* y, __ubuf__ half* z, uint32_t repeat)
{
    vector_half a, b, c;
    vector_bool all = asc_create_mask_b16(PAT_ALL);
    vector_bool gt;
    for (uint32_t i = 0; i < repeat; ++i) {
        asc_loadalign_postupdate(a, x, 128);
        asc_loadalign_postupdate(b, y, 128);
        asc_gt(gt, a, b, all);
        asc_select(c, a, b, gt);
        asc_storealign_postupdate(z, c, 128, all);
    }
}

__simd_vf__ inline void int_sqrt_vf(__ubuf__ int32_t* x, __ubuf__ int32_t* y)
{
    vector_int32_t a;
    vector_bool all = asc_create_mask_b32(PAT_ALL);
    asc_loadalign(a, x);
    asc_sqrt(a, a, all);
    asc_storealign(y, a, all);
}
"""
UNMODELLED_SRC = """
__simd_vf__ inline void unmodelled_vf(__ubuf__ float* x)
{
    vector_float a;
    vector_bool all = asc_create_mask_b32(PAT_ALL);
    asc_loadalign(a, x);
    asc_regsim_no_such_function(a, a, all);
}
"""


def _line(text: str, what: str) -> int:
    return next(i for i, s in enumerate(text.splitlines(), 1) if what in s)


@LOOPS
@pytest.mark.parametrize("count", [256, 200, 1])
def test_quoted_c_api_add_and_muls_with_a_tail(count: int, loops: str) -> None:
    rng = np.random.default_rng(count)
    x, y = rng.uniform(-4, 4, 256).astype(np.float32), rng.uniform(-4, 4, 256).astype(np.float32)
    xt, yt, zt = _ub((rs.float32, 256), (rs.float32, 256), (rs.float32, 256))
    xt.set(x)
    yt.set(y)
    zt.set(np.full(256, 7, np.float32))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _source(ADD_SRC).add_vf(xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), count)
    want = np.full(256, 7, np.float32)
    want[:count] = (x[:count] + y[:count]) * np.float32(0.5)  # float32 add, then an exact halving
    np.testing.assert_array_equal(zt.numpy(), want)


@LOOPS
def test_quoted_c_api_post_update_compare_select(loops: str) -> None:
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-4, 4, 512).astype(np.float16), rng.uniform(-4, 4, 512).astype(np.float16)
    xt, yt, zt = _ub((rs.half, 512), (rs.half, 512), (rs.half, 512))
    xt.set(x)
    yt.set(y)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _source(ADD_SRC).max_select_vf(xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), 4)
    np.testing.assert_array_equal(zt.numpy(), np.where(x > y, x, y))


CALLEE_SRC = """
__simd_callee__ inline void axpb(vector_float& dst, vector_float src, float a, float b, vector_bool mask)
{
    asc_mul_scalar(dst, src, a, mask);
    asc_add_scalar(dst, dst, b, mask);
}

__simd_callee__ inline vector_bool next_mask(uint32_t& count)
{
    return asc_update_mask_b32(count);
}

__simd_vf__ inline void affine_vf(__ubuf__ float* x, __ubuf__ float* y, float a, float b, uint32_t count)
{
    vector_float r, s;
    vector_bool m;
    for (uint16_t i = 0; i < 4; ++i) {
        m = next_mask(count);
        asc_loadalign(r, x + i * 64);
        axpb(s, r, a, b, m);
        asc_storealign(y + i * 64, s, m);
    }
}

__simd_callee__ inline void own_copy(vector_float dst, vector_float src, vector_bool mask)
{
    asc_abs(dst, src, mask);
}

__simd_vf__ inline void own_copy_vf(__ubuf__ float* x)
{
    vector_float r;
    vector_bool m = asc_create_mask_b32(PAT_VL8);
    asc_loadalign(r, x);
    own_copy(r, r, m);
    asc_storealign(x + 64, r, m);
}
"""


@LOOPS
def test_quoted_c_api_in_callees_with_reference_parameters(loops: str) -> None:
    x = np.random.default_rng(9).uniform(-8, 8, 256).astype(np.float32)
    xt, yt = _ub((rs.float32, 256), (rs.float32, 256))
    xt.set(x)
    yt.set(np.full(256, 5, np.float32))
    mod = _source(CALLEE_SRC)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.affine_vf(xt.GetPhyAddr(), yt.GetPhyAddr(), np.float32(3), np.float32(0.25), 150)
    want = np.full(256, 5, np.float32)
    want[:150] = x[:150] * np.float32(3) + np.float32(0.25)  # float32 multiply, then float32 add
    np.testing.assert_array_equal(yt.numpy(), want)
    # a helper writing a register it takes by value writes its own copy, as C++ passes it: the caller's r is as loaded
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.own_copy_vf(xt.GetPhyAddr())
    np.testing.assert_array_equal(xt.numpy()[64:72], x[:8])
    assert (x[:8] < 0).any()  # (abs would have changed them)


def test_quoted_c_api_lowers_onto_rs_capi() -> None:
    vf = _source(ADD_SRC).instantiate("add_vf")
    assert "rs.capi.asc_update_mask_b32(v_count)" in vf.source  # the uint32_t& count: an rs.Ref
    assert "rs.capi.asc_add(v_c, v_a, v_b, v_mask)" in vf.source
    assert "_div(_u64(256), 4)" in vf.source  # asc_get_vf_len() / sizeof(float)
    xt, yt, zt = _ub(*[(rs.float32, 256)] * 3)
    xt.set(np.ones(256, np.float32))
    yt.set(np.ones(256, np.float32))
    how = rs.explain(vf, xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), 256)  # the loop runs batched
    assert "batched (4 iterations)" in how


def test_quoted_c_api_refusals_name_the_function_and_line() -> None:
    mod = _source(ADD_SRC)
    # asc_sqrt is declared for half and float only (the C name's element types in the registry)
    line = _line(ADD_SRC, "asc_sqrt(")
    with pytest.raises(CppError, match=rf"k\.asc:{line}: asc_sqrt on vector_int32_t \(.* for float, half only\)"):
        mod.instantiate("int_sqrt_vf")
    line = _line(UNMODELLED_SRC, "asc_regsim_no_such")
    hint = r"\(a C API function regsim does not model: rs\.capi\.REGISTER_API"
    with pytest.raises(CppError, match=rf"k\.asc:{line}: use of undeclared identifier 'asc_regsim_no_such_function' {hint}"):
        _source(UNMODELLED_SRC).instantiate("unmodelled_vf")


GATHER_SRC = """
__simd_vf__ inline void gather_scatter_vf(__ubuf__ uint16_t* y, __ubuf__ uint8_t* x, __ubuf__ uint16_t* idx,
    __ubuf__ uint16_t* z, __ubuf__ uint16_t* blocks, __ubuf__ uint32_t* offs, uint16_t repeat)
{
    vector_uint16_t index, dst;
    vector_uint32_t off;
    vector_bool mask = asc_create_mask_b16(PAT_VL64);
    for (uint16_t i = 0; i < repeat; ++i) {
        asc_loadalign(index, idx + i * 128);
        asc_gather(dst, x, index, mask);             // uint8_t elements, zero-extended
        asc_scatter(z, dst, index, mask);            // back to element index[k] of z
        asc_loadalign(off, offs + i * 64);
        asc_gather_datablock(dst, blocks, off);      // no mask: every block
        asc_storealign(y + i * 128, dst, mask);
    }
}

__simd_vf__ inline void float_gather_vf(__ubuf__ float* x)
{
    vector_float a;
    vector_uint32_t index;
    asc_loadalign(a, x);
    asc_gather(a, a, index);
}
"""


@LOOPS
def test_quoted_c_api_gathers_and_scatter(loops: str) -> None:
    rng = np.random.default_rng(12)
    x = rng.integers(0, 256, 512).astype(np.uint8)
    idx = np.concatenate([rng.permutation(512)[:128] for _ in range(2)]).astype(np.uint16)
    blocks = rng.integers(0, 65536, 1024).astype(np.uint16)
    offs = np.zeros(128, np.uint32)
    offs[:8], offs[64:72] = rng.integers(0, 64, 8) * 32, rng.integers(0, 64, 8) * 32
    y, xt, it, z, bt, ot = _ub(
        (rs.uint16, 256), (rs.uint8, 512), (rs.uint16, 256), (rs.uint16, 512), (rs.uint16, 1024), (rs.uint32, 128)
    )
    xt.set(x)
    it.set(idx)
    z.set(np.zeros(512, np.uint16))
    bt.set(blocks)
    ot.set(offs)
    mod = _source(GATHER_SRC)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.gather_scatter_vf(*(t.GetPhyAddr() for t in (y, xt, it, z, bt, ot)), 2)
    want_z = np.zeros(512, np.uint16)
    for r in range(2):  # lanes 0..63 of each repeat (PAT_VL64): z[index] = x[index]
        k = idx[r * 128 : r * 128 + 64]
        want_z[k] = x[k]
    np.testing.assert_array_equal(z.numpy(), want_z)
    for r in range(2):  # the stored lanes 0..63: DataBlocks 0..3 of the 8 gathered (16 uint16 each)
        got = np.concatenate([blocks[o // 2 : o // 2 + 16] for o in offs[r * 64 : r * 64 + 4]])
        np.testing.assert_array_equal(y.numpy()[r * 128 : r * 128 + 64], got)
    line = _line(GATHER_SRC, "asc_gather(a, a, index)")
    with pytest.raises(
        CppError,
        match=rf"k\.asc:{line}: asc_gather on vector_float \(the C API declares asc_gather for bfloat16_t, .*, uint8_t only\)",
    ):
        mod.instantiate("float_gather_vf")


STREAM_SRC = """
__simd_vf__ inline void mem_bar_vf(__ubuf__ half* ub_addr)
{
    vector_half dst;
    vector_half src0;
    vector_half src1;
    vector_bool mask;
    mask = asc_create_mask_b16(PAT_ALL);
    uint16_t repeatTime = 8;
    uint16_t repeatSize = 64;
    for (uint16_t i = 1; i < repeatTime; i++) {
        asc_mem_bar(VST_VLD);
        asc_loadalign(src0, ub_addr);
        asc_loadalign(src1, ub_addr + i * repeatSize);
        asc_add(dst, src0, src1, mask);
        asc_storealign(ub_addr, dst, mask);
    }
    asc_mem_bar(SS_ALL);
}

__simd_vf__ inline void stream_vf(__ubuf__ uint32_t* dst, __ubuf__ uint32_t* src, uint32_t count, uint32_t repeat)
{
    vector_load_unalign lreg;
    vector_store_unalign sreg;
    vector_uint32_t v;
    __ubuf__ uint32_t* from = src + 3;
    asc_loadunalign_pre(lreg, from);
    for (uint32_t i = 0; i < repeat; i++) {
        asc_loadunalign_postupdate(v, lreg, from, count);
        asc_storeunalign_postupdate(dst, sreg, v, count);
    }
    asc_storeunalign_post_postupdate(dst, sreg, 0);
}

__simd_vf__ inline void mask_spr_vf(__ubuf__ int16_t* dst, __ubuf__ int16_t* src)
{
    vector_int16_t a;
    vector_int16_t b;
    vector_bool add_mask = asc_get_mask_spr_b16();
    vector_bool all = asc_create_mask_b16(PAT_ALL);
    asc_loadalign(a, src);
    asc_add_scalar(b, a, 0, add_mask);
    asc_storealign(dst, b, all);
}
"""


@LOOPS
def test_quoted_c_api_mem_bar_streams_and_mask_spr(loops: str) -> None:
    mod = _source(STREAM_SRC)
    (ut,) = _ub((rs.half, 1024))
    x = (np.arange(1024) % 7).astype(np.float16)
    ut.set(x)
    dt_, st = _ub((rs.uint32, 256), (rs.uint32, 256))
    y = np.arange(256, dtype=np.uint32) * 3 + 1
    st.set(y)
    dt_.set(np.zeros(256, np.uint32))
    mt, nt = _ub((rs.int16, 128), (rs.int16, 128))
    rs.AscendC.SetVectorMask(rs.int16, 0, 0xF0F0)  # (the core of the last UnifiedBuffer)
    nt.set(np.arange(128, dtype=np.int16) + 1)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.mem_bar_vf(ut.GetPhyAddr())
        mod.stream_vf(dt_.GetPhyAddr(), st.GetPhyAddr(), 50, 3)
        mod.mask_spr_vf(mt.GetPhyAddr(), nt.GetPhyAddr())
    want = [int(v) for v in x]  # the asc_mem_bar page's example: each iteration adds onto the last one's store
    for i in range(1, 8):
        want[:128] = [want[k] + want[i * 64 + k] for k in range(128)]
    assert ut.numpy().astype(int).tolist() == want
    assert dt_.numpy().tolist() == y[3:153].tolist() + [0] * 106  # 3 × 50 elements from src + 3, dst moved
    assert mt.numpy().tolist() == [k + 1 if (0xF0F0 >> k) & 1 else 0 for k in range(128)]


# --- the asc-devkit examples ---------------------------------------------------------------------------------------
CAST_SRC = """
__simd_vf__ inline void bits_vf(__ubuf__ int16_t* x, __ubuf__ int32_t* y, uint32_t repeat)
{
    vector_bool all = asc_create_mask_b32(PAT_ALL);
    vector_int16_t a;
    vector_int32_t c;
    for (uint32_t i = 0; i < repeat; ++i) {
        asc_loadalign(a, x + i * 128);
        c = (vector_int32_t)a;                                  // an assignment: c gets a copy of a's bits
        vector_int32_t d = static_cast<vector_int32_t>(a);      // an initialisation: another copy
        asc_add_scalar(d, d, 1, all);                           // d changes, a and c do not
        asc_add((vector_int32_t&)a, c, c, all);                 // a reference cast: a's own bytes, as int32 lanes
        asc_storealign(y + i * 192, (vector_int32_t)a, all);    // a value cast read by a by-value input
        asc_storealign(y + i * 192 + 64, c, all);
        asc_storealign(y + i * 192 + 128, d, all);
    }
}

template <typename T>
__simd_vf__ inline void OnesVF(__ubuf__ T* y)
{
    AscendC::Reg::RegTensor<T> a;
    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<uint32_t>();
    AscendC::Reg::Duplicate((AscendC::Reg::RegTensor<uint32_t>&)a, (uint32_t)0x3F800000u, m);
    AscendC::Reg::Adds(reinterpret_cast<AscendC::Reg::RegTensor<int32_t>&>(a), (AscendC::Reg::RegTensor<int32_t>&)a, 1, m);
    AscendC::Reg::StoreAlign(y, a, m);
}

__simd_vf__ inline void mask_bits_vf(__ubuf__ int32_t* y)
{
    vector_bool all = asc_create_mask_b32(PAT_ALL);
    asc_storealign(y, (vector_int32_t&)all, all);
}

__simd_vf__ inline void half_step_vf(__ubuf__ float* x, __ubuf__ float* y, uint16_t n)
{
    vector_bool all = asc_create_mask_b32(PAT_ALL);
    vector_float a;
    for (uint16_t i = 0; i < 4; ++i) {
        asc_loadalign(a, x + i * n / 2);
        asc_storealign(y + (i * n - 3 * n) / 2 + 3 * n / 2, a, all);
    }
}
"""


@LOOPS
def test_quoted_casts_between_vector_types_reinterpret_the_bits(loops: str) -> None:
    # (vector_int32_t)r: a cast between vector types of one size (256 bytes) keeps the bits, as clang's
    # vector extensions cast; a value cast is copied where C++ copies, a reference cast writes through
    repeat = 3
    x = np.random.default_rng(21).integers(-(2**15), 2**15, 128 * repeat).astype(np.int16)
    xt, yt = _ub((rs.int16, x.size), (rs.int32, 192 * repeat))
    xt.set(x)
    mod = _source(CAST_SRC)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        how = rs.explain(mod.instantiate("bits_vf"), xt.GetPhyAddr(), yt.GetPhyAddr(), repeat)
    assert ("batched" in how) == (loops == "auto"), how
    words = [int.from_bytes(x[2 * k : 2 * k + 2].tobytes(), "little", signed=True) for k in range(64 * repeat)]
    wrap = [((w + 2**31) % 2**32) - 2**31 for w in words]  # little-endian int16 pairs as int32 lanes
    want = []
    for r in range(repeat):
        lanes = wrap[64 * r : 64 * r + 64]
        want += [((2 * w + 2**31) % 2**32) - 2**31 for w in lanes] + lanes + [((w + 1 + 2**31) % 2**32) - 2**31 for w in lanes]
    np.testing.assert_array_equal(yt.numpy(), np.array(want, np.int64))
    vf = mod.instantiate("bits_vf")
    assert "_copy(v_a.reinterpret(rs.int32), v_c)" in vf.source
    assert "v_d = _copy(v_a.reinterpret(rs.int32))" in vf.source
    # the Reg spelling, in a template: (RegTensor<uint32_t>&)a and reinterpret_cast<RegTensor<int32_t>&>(a)
    yt = _ub((rs.float32, 64))[0]
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.OnesVF[rs.float32](yt.GetPhyAddr())
    np.testing.assert_array_equal(yt.numpy().view(np.uint32), np.full(64, 0x3F800001, np.uint32))


def test_quoted_a_cast_of_a_mask_to_a_vector_is_refused() -> None:
    line = _line(CAST_SRC, "(vector_int32_t&)all")
    with pytest.raises(CppError, match=rf"k\.asc:{line}: the cast of vector_bool to vector_int32_t"):
        _source(CAST_SRC).instantiate("mask_bits_vf")


@LOOPS
def test_quoted_a_divided_loop_index_runs_batched(loops: str) -> None:
    # `x + i * n / 2` and a negative quotient: C's division (toward zero) per iteration, batched
    x = np.arange(256, dtype=np.float32)
    xt, yt = _ub((rs.float32, 256), (rs.float32, 256))
    xt.set(x)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        how = rs.explain(_source(CAST_SRC).instantiate("half_step_vf"), xt.GetPhyAddr(), yt.GetPhyAddr(), 128)
    assert ("batched" in how) == (loops == "auto"), how
    np.testing.assert_array_equal(yt.numpy(), np.concatenate([x[64 * i : 64 * i + 64] for i in range(4)]))


def test_c_division_of_a_batched_loop_index_truncates_toward_zero() -> None:
    from regsim._src.engine.per_iteration import Affine, Unbatchable
    from regsim._src.frontends.cpp.lowering import _c_div, _c_rem

    a = Affine(np.array([-7, -6, -1, 0, 5, 7], np.int64))
    assert _c_div(a, 2).values.tolist() == [-3, -3, 0, 0, 2, 3]
    assert _c_div(a, -2).values.tolist() == [3, 3, 0, 0, -2, -3]
    assert _c_rem(a, 2).values.tolist() == [-1, 0, -1, 0, 1, 1]
    assert _c_div(12, Affine(np.array([5, -5], np.int64))).values.tolist() == [2, -2]
    with pytest.raises(Unbatchable):
        _c_div(a, 0)


# --- the asc-devkit examples ---------------------------------------------------------------------------------------
def _load(rel: str, scenario: int | None = None) -> rs.cpp.CppModule:
    args = (f"-DSCENARIO_NUM={scenario}",) if scenario is not None else ()
    return rs.cpp.load(Path(DEVKIT or ".") / rel, args=args)


def _unary(rel: str, vf: str, x: np.ndarray, *scalars: Any, out: int | None = None) -> np.ndarray:
    """x → y through `vf(x, y, *scalars)` (float32)."""
    xt, yt = _ub((rs.float32, x.size), (rs.float32, out or x.size))
    xt.set(x)
    _load(rel)[vf](xt.GetPhyAddr(), yt.GetPhyAddr(), *scalars)
    return np.asarray(yt.numpy())


def _binary(rel: str, vf: str, x: np.ndarray, y: np.ndarray, *scalars: Any, scenario: int | None = None) -> np.ndarray:
    xt, yt, zt = _ub((rs.float32, x.size), (rs.float32, y.size), (rs.float32, x.size))
    xt.set(x)
    yt.set(y)
    _load(rel, scenario)[vf](xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), *scalars)
    return np.asarray(zt.numpy())


@devkit
@LOOPS
def test_introduction_c_api_add(loops: str) -> None:
    # main(): 8 blocks of 2048 floats, x[i] = y[i] = i * 0.1f, golden x + y; asc_load / asc_store
    i = np.arange(2048 * 7, 2048 * 8)  # the last block
    x = (i * np.float32(0.1)).astype(np.float32)
    rel = "examples/02_simd_c_api/00_introduction/04_reg_base_add_compute/c_api_simd_add/c_api_add.asc"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        z = _binary(rel, "add_vf", x, x, 2048)
    np.testing.assert_array_equal(z.view(np.uint32), (x + x).view(np.uint32))


@devkit
@LOOPS
def test_set_l2_cache_mode_half_add(loops: str) -> None:
    # gen_data.py scenarios 3-4: half integers in [-2, 2], golden x + y; a tail (curLen not a
    # multiple of 128) stores whole registers with asc_store: the buffers have room for them
    rng = np.random.default_rng(0)
    n, room = 1000, 1024
    x = rng.integers(-2, 3, n).astype(np.float16)
    y = rng.integers(-2, 3, n).astype(np.float16)
    xt, yt, zt = _ub((rs.half, room), (rs.half, room), (rs.half, room))
    xt.set(np.concatenate([x, np.zeros(room - n, np.float16)]))
    yt.set(np.concatenate([y, np.zeros(room - n, np.float16)]))
    rel = "examples/02_simd_c_api/02_features/03_c_api/01_data_movement/00_set_l2_cache_mode/set_l2_cache_mode.h"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load(rel).add_vf_half(xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), n)
    np.testing.assert_array_equal(zt.numpy()[:n], (x + y).astype(np.float16))
    assert not zt.numpy()[n:].any()  # the masked-off tail lanes: zeros (ZEROING), stored by asc_store


@devkit
@LOOPS
@pytest.mark.parametrize("seed", [0, 1])
def test_elementwise_examples_against_gen_data(seed: int, loops: str) -> None:
    rng = np.random.default_rng(seed)
    f = np.float32
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        x = rng.uniform(-2, 2, 256).astype(f)  # abs: 256 floats, 4 repeats of 64
        np.testing.assert_array_equal(_unary(RC + "abs/abs.asc", "abs_vf", x, 256, 64, 4), np.abs(x))
        x = rng.uniform(1, 2, 256).astype(f)  # muls: 8 blocks of 32, scalar 2.0f: one block
        z = _unary(RC + "muls/muls.asc", "muls_vf", x[:32], f(2.0), 32, 64, 1)
        np.testing.assert_array_equal(z, x[:32] * f(2.0))
        x, y = rng.uniform(1, 2, 1024).astype(f), rng.uniform(1, 2, 1024).astype(f)  # mul
        np.testing.assert_array_equal(_binary(RC + "mul/mul.asc", "mul_vf", x, y, 1024, 64, 16), x * y)
        x, y = rng.uniform(-2, 2, 256).astype(f), rng.uniform(-2, 2, 256).astype(f)  # compare: Max(x, y)
        z = _binary(RC + "compare/compare.asc", "compare_vf", x, y, 256, 64, 4, scenario=1)
        np.testing.assert_array_equal(z, np.maximum(x, y))
        z = _binary(RC + "compare/compare.asc", "compares_vf", x, y, f(0.0), 256, 64, 4, scenario=2)
        np.testing.assert_array_equal(z, np.where(x > 0, x, y))
        yt = _ub((rs.float32, 256))[0]  # duplicate: 3.14f everywhere
        _load(RC + "duplicate/duplicate.asc").duplicate_vf(yt.GetPhyAddr(), f(3.14), 256, 64, 4)
        np.testing.assert_array_equal(yt.numpy(), np.full(256, 3.14, f))
        yt = _ub((rs.float32, 256))[0]  # arange: the host calls it per register with the start value
        for i in range(4):
            _load(RC + "arange/arange.asc").arange_vf(yt.GetPhyAddr() + 64 * i, f(64 * i))
        np.testing.assert_array_equal(yt.numpy(), np.arange(256, dtype=f))


@devkit
@LOOPS
def test_div_normal_inputs_and_the_subnormal_golden(loops: str) -> None:
    rng = np.random.default_rng(4)
    x, y = rng.uniform(-100, 100, 1024).astype(np.float32), rng.uniform(0.5, 100, 1024).astype(np.float32)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        z = _binary(RC + "div/div.asc", "div_vf", x, y, 1024, 64, 16)
    want = (x.astype(np.float64) / y.astype(np.float64)).astype(np.float32)  # gen_data.py's formula
    np.testing.assert_array_equal(z.view(np.uint32), want.view(np.uint32))
    # gen_data.py's own inputs are all subnormal cases, its golden keeps subnormals; asc_div is the
    # plain vdiv (MODE_ZEROING), which regsim flushes as the Div page's default algorithm (inputs and results
    # flushed, decisions/transcendental.md#transcendental-ftz), the subnormal example's README table: the golden is not met
    xs = np.array([2.0**-126, 2.0**-125, 2.0**-130, 2.0**-130, 2.0**-140])
    ys = np.array([4.0, 2.0**-127, 2.0, 2.0**-20, 2.0**-145])
    x, y = np.tile(xs, 205)[:1024].astype(np.float32), np.tile(ys, 205)[:1024].astype(np.float32)
    with rs.configure(loops=loops), np.errstate(divide="ignore", invalid="ignore"):  # type: ignore[arg-type]
        z = _binary(RC + "div/div.asc", "div_vf", x, y, 1024, 64, 16)
    np.testing.assert_array_equal(z[:4], np.array([0.0, np.inf, 0.0, 0.0], np.float32))
    assert np.isnan(z[4])


@devkit
@LOOPS
def test_reduce_examples(loops: str) -> None:
    rng = np.random.default_rng(5)
    x = rng.uniform(1, 2, 256).astype(np.float32)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        # reduce: ReduceSum of each register into lane 0, accumulated with asc_add; golden[0] = sum(x)
        y = _unary(RC + "reduce/reduce.asc", "reduce_sum_vf", x, 256, 64, 4, out=64)
        sums = x.reshape(4, 64).sum(axis=1, dtype=np.float64)
        np.testing.assert_allclose(y[0], x.sum(dtype=np.float64), rtol=1e-6)  # the host's eps 1e-4
        assert not y[1:].any()
        acc = np.float32(0)
        for s in x.reshape(4, 64):
            acc = np.float32(acc + np.float32(np.sum(s.astype(np.float64))))
        assert abs(float(y[0]) - float(acc)) <= 1e-4 * float(sums.sum())
        # reduce_block: each 32-byte block's sum at the lowest lanes of its register (8 per register)
        y = _unary(RC + "reduce_block/reduce_block.asc", "reduce_block_vf", x, 256, 64, 4)
        blocks = y.reshape(4, 64)
        np.testing.assert_allclose(blocks[:, :8].reshape(-1), x.reshape(32, 8).sum(axis=1), rtol=1e-6)  # gen_data
        assert not blocks[:, 8:].any()
        # reduce_pair: the pair sums fill the low half of each register, the high half is 0 (the
        # asc_pair_reduce_sum page); the VF stores each register 64 floats on, so gen_data.py's
        # contiguous golden[0:128] holds only for its first 32
        y = _unary(RC + "reduce_pair/reduce_pair.asc", "reduce_pair_vf", x, 256, 64, 4).reshape(4, 64)
        pairs = (x[0::2] + x[1::2]).reshape(4, 32)
        np.testing.assert_array_equal(y[:, :32], pairs)
        assert not y[:, 32:].any()


@devkit
@LOOPS
def test_select_mergemode_and_squeeze(loops: str) -> None:
    rng = np.random.default_rng(6)
    f = np.float32
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        # select: 4 repeats, each a 32-byte mask (b32: bit 4k of each byte pair) read with a post-update
        x, y = rng.uniform(0, 2, 256).astype(f), rng.uniform(0, 2, 256).astype(f)
        m = rng.integers(0, 255, 128).astype(np.uint8)
        xt, yt, mt, zt = _ub((rs.float32, 256), (rs.float32, 256), (rs.uint8, 128), (rs.float32, 256))
        xt.set(x)
        yt.set(y)
        mt.set(m)
        ptrs = (xt.GetPhyAddr(), yt.GetPhyAddr(), mt.GetPhyAddr().reinterpret(rs.uint32), zt.GetPhyAddr())
        _load(RC + "select/select.asc").select_vf(*ptrs, 256, 64, 32, 4)
        bit = (m[np.arange(256) // 2] >> (np.arange(256) % 2 * 4)) & 1  # gen_data.py's loop
        np.testing.assert_array_equal(zt.numpy(), np.where(bit == 1, x, y))
        # mergemode: asc_copy under PAT_H keeps dst's upper half (MERGING): gen_data.py's golden
        x, y = rng.uniform(1, 100, 128).astype(f), np.full(128, -1.0, f)
        z = _binary(RC + "mergemode/mergemode.asc", "copy_merge_vf", x, y, 128, 64, 2)
        lo = (np.arange(128) % 64) < 32
        np.testing.assert_array_equal(z, np.where(lo, x, y))
        # squeeze: PAT_M4 keeps every 4th; each whole-register store runs past the 64-float output
        x = rng.uniform(-2, 2, 256).astype(f)
        with pytest.raises(rs.errors.OutOfBoundsError, match=r"asc_storealign: .*StoreAlign: dst_addr = lanes 48\.\.63"):
            _unary(RC + "squeeze/squeeze.asc", "squeeze_vf", x, 256, 64, 4, out=64)
        y = _unary(RC + "squeeze/squeeze.asc", "squeeze_vf", x, 256, 64, 4, out=112)  # with room for it
        np.testing.assert_array_equal(y[:64], x.reshape(64, 4)[:, 0])  # gen_data.py's golden


@devkit
@LOOPS
def test_data_relayout_interleave_and_pack(loops: str) -> None:
    rng = np.random.default_rng(8)
    rel = RC + "data_relayout/data_relayout.asc"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        x, y = rng.integers(0, 65536, 128).astype(np.uint16), rng.integers(0, 65536, 128).astype(np.uint16)
        d0, d1, xt, yt = _ub(*[(rs.uint16, 128)] * 4)
        xt.set(x)
        yt.set(y)
        _load(rel, 1).interleave_vf(d0.GetPhyAddr(), d1.GetPhyAddr(), xt.GetPhyAddr(), yt.GetPhyAddr())
        np.testing.assert_array_equal(d0.numpy(), np.stack([x[:64], y[:64]], axis=1).reshape(-1))  # gen_data.py
        np.testing.assert_array_equal(d1.numpy(), np.stack([x[64:], y[64:]], axis=1).reshape(-1))
        # pack: each repeat stores a whole register (128 halves) and moves 64: the second store runs
        # 128 bytes past the example's 128-element dst_local
        v = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
        dst, st = _ub((rs.uint16, 128), (rs.uint32, 128))
        st.set(v)
        with pytest.raises(rs.errors.OutOfBoundsError, match=r"dst_addr = lanes 64\.\.127"):
            _load(rel, 2).pack_vf(dst.GetPhyAddr(), st.GetPhyAddr(), 64, 2)
        dst, st = _ub((rs.uint16, 192), (rs.uint32, 128))
        st.set(v)
        _load(rel, 2).pack_vf(dst.GetPhyAddr(), st.GetPhyAddr(), 64, 2)
        np.testing.assert_array_equal(dst.numpy()[:128], (v & 0xFFFF).astype(np.uint16))  # gen_data.py's golden


@devkit
@LOOPS
def test_reg_load_store_mask_both_scenarios(loops: str) -> None:
    rel = "examples/02_simd_c_api/03_c_api/00_data_movement/reg_load_store_mask/reg_load_store_mask.asc"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        # scenario 1: a mask register loaded from bytes 1 at 0 and 31, a duplicate of 2 under it, and
        # the all-true b8 mask stored as 32 bytes of 0xFF
        src = np.zeros(1024, np.uint8)
        src[0] = src[31] = 1
        dt_, st = _ub((rs.uint8, 1024), (rs.uint8, 1024))
        st.set(src)
        _load(rel, 1).load_store_mask_register(dt_.GetPhyAddr(), st.GetPhyAddr(), 4, 256)
        golden = np.zeros(1024, np.uint8)  # gen_data.py's
        golden[0] = golden[248] = 2
        golden[256:288] = 255
        np.testing.assert_array_equal(dt_.numpy(), golden)
        # scenario 2: select by mask bytes 0..127 (b32: bit 0 and bit 4 of each byte)
        x, y = np.linspace(0.0, 2.0, 256, dtype=np.float32), np.linspace(2.0, 4.0, 256, dtype=np.float32)
        m = np.arange(128, dtype=np.uint8)
        dt_, xt, yt, mt = _ub((rs.float32, 256), (rs.float32, 256), (rs.float32, 256), (rs.uint8, 128))
        xt.set(x)
        yt.set(y)
        mt.set(m)
        _load(rel, 2).select_with_mask_register(dt_.GetPhyAddr(), xt.GetPhyAddr(), yt.GetPhyAddr(), mt.GetPhyAddr(), 64, 32, 4)
        bit = (m[np.arange(256) // 2] >> (np.arange(256) % 2 * 4)) & 1
        np.testing.assert_array_equal(dt_.numpy(), np.where(bit == 1, x, y))


#: reg_load_store_align.asc: SCENARIO_NUM → (its VF, the VF's arguments after the three pointers as the
#: kernel passes them, the output length); 128 halves a register, 1024 inputs
ALIGN_SCENARIOS = {
    1: ("add_with_offset", (128, 8, 1021), 1024),
    2: ("add_with_postupdate", (128, 8, 1024), 1024),
    3: ("add_with_addr_reg", (128, 8, 1024), 1024),
    4: ("add_with_datablock", (128, 4, 512, 2), 512),
    5: ("add_with_broadcast", (128, 8), 1024),
    6: ("add_with_upsample", (128, 16), 2048),
}


def _align_golden(scenario: int, src0: np.ndarray, src1: np.ndarray) -> np.ndarray:
    """The example's scripts/gen_data.py golden, restated."""
    total = src0 + src1
    if scenario == 1:
        return np.concatenate([total[:1021], np.zeros(3, np.float16)])
    if scenario in (2, 3):
        return total
    if scenario == 4:
        return total.reshape(32, 32)[:, :16].reshape(-1)
    if scenario == 5:
        return np.repeat(src0[::128] + src1[::128], 128).astype(np.float16)
    return np.repeat(total, 2).astype(np.float16)


@devkit
@LOOPS
@pytest.mark.parametrize("scenario", sorted(ALIGN_SCENARIOS))
def test_reg_load_store_align_every_scenario_against_gen_data(scenario: int, loops: str) -> None:
    # offsets in the pointer, _postupdate, asc_update_addr_reg_b16 with the addr_reg forms, the
    # block-strided _postupdate, asc_loadalign_brc and asc_loadalign_upsample; gen_data.py's inputs
    # (arange(1024) as half, both sources) and golden
    rel = "examples/02_simd_c_api/03_c_api/00_data_movement/reg_load_store_align/reg_load_store_align.asc"
    vf, args, out = ALIGN_SCENARIOS[scenario]
    src = np.arange(1024, dtype=np.float16)
    dst, s0, s1 = _ub((rs.half, out), (rs.half, 1024), (rs.half, 1024))
    s0.set(src)
    s1.set(src)
    if scenario in (2, 3, 4, 5, 6):  # (scenario 1 stores zeros first; the others leave no byte unwritten)
        dst.set(np.full(out, np.nan, np.float16))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load(rel, scenario)[vf](dst.GetPhyAddr(), s0.GetPhyAddr(), s1.GetPhyAddr(), *args)
    np.testing.assert_array_equal(dst.numpy(), _align_golden(scenario, src, src))


@devkit
@LOOPS
@pytest.mark.parametrize("block", [0, 7])
def test_gather_and_adds_simd_part(block: int, loops: str) -> None:
    # the SIMT gather leaves input[index[i]] in UB (input[i] = i * 0.01f, index[i] = i % 100000 in
    # main()); simd_adds adds ADDS_ADDEND (1.0f): the host's golden input[index[i]] + 1
    per_block = 1024
    idx = np.arange(block * per_block, (block + 1) * per_block) % 100000
    gathered = idx.astype(np.float32) * np.float32(0.01)
    dst, src = _ub((rs.float32, per_block), (rs.float32, per_block))
    src.set(gathered)
    rel = "examples/05_simd_simt_hybrid/00_introduction/simd_simt_gather_and_adds/gather_and_adds.asc"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load(rel).simd_adds(dst.GetPhyAddr(), src.GetPhyAddr(), per_block, 64, per_block // 64)
    np.testing.assert_array_equal(dst.numpy().view(np.uint32), (gathered + np.float32(1)).view(np.uint32))


@devkit
@LOOPS
def test_floor_mod_simd_part_against_gen_data(loops: str) -> None:
    # scenario 1's floor_mod_simd on one 8192-element tile: trunc division (int32 asc_div), the
    # remainder, the VF's -1 for a zero divisor, then the floor adjustment; gen_data.py's inputs
    # (divisors in [-127, 127] without 0, every 64th dividend a multiple) and golden
    rng = np.random.default_rng(20260516)
    n = 8192
    x = rng.integers(-100000, 100001, n, dtype=np.int32)
    y = rng.integers(-127, 128, n, dtype=np.int32)
    y[y == 0] = 7
    at = np.arange(0, n, 64)
    x[at] = y[at] * rng.integers(-2048, 2049, at.size, dtype=np.int32)
    y[5] = 0  # (not in gen_data.py) the VF's divide-by-zero protection
    zt, xt, yt = _ub(*[(rs.int32, n)] * 3)
    xt.set(x)
    yt.set(y)
    rel = "examples/05_simd_simt_hybrid/02_best_practices/simd_simt_high_performance/floor_mod.asc"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load(rel, 1).floor_mod_simd(zt.GetPhyAddr(), xt.GetPhyAddr(), yt.GetPhyAddr(), n)
    x64, y64 = x.astype(np.int64), np.where(y == 0, 1, y).astype(np.int64)
    q = np.abs(x64) // np.abs(y64)  # gen_data.py's golden
    q = np.where((x64 >= 0) == (y64 >= 0), q, -q)
    rem = x64 - q * y64
    golden = np.where(((rem < 0) != (y64 < 0)) & (rem != 0), rem + y64, rem).astype(np.int32)
    golden[5] = -1
    np.testing.assert_array_equal(zt.numpy(), golden)


@devkit
@LOOPS
def test_gather_register_source_against_gen_data(loops: str) -> None:
    # gen_data.py: 128 halves uniform in [0, 1), 128 uint16 indices uniform in [0, 128) truncated; golden x[y]
    rng = np.random.default_rng(13)
    x = rng.uniform(0, 1, 128).astype(np.float16)
    y = rng.uniform(0, 128, 128).astype(np.uint16)
    st, it, dt_ = _ub((rs.half, 128), (rs.uint16, 128), (rs.half, 128))
    st.set(x)
    it.set(y)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _load(RC + "gather/gather.asc").gather_vf(st.GetPhyAddr(), it.GetPhyAddr(), dt_.GetPhyAddr(), 128, 128, 1)
    np.testing.assert_array_equal(dt_.numpy().view(np.uint16), x[y].view(np.uint16))


@devkit
@LOOPS
def test_reg_load_gather_both_scenarios_against_gen_data(loops: str) -> None:
    rel = "examples/02_simd_c_api/03_c_api/00_data_movement/reg_load_gather/reg_load_gather.asc"
    rng = np.random.default_rng(14)
    src = rng.uniform(0, 1, 1024).astype(np.float16)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        # scenario 1: 256 uint16 element indices in [0, 1024), two registers of 128; golden src[index]
        index = rng.integers(0, 1024, 256).astype(np.uint16)
        dst, st, it = _ub((rs.half, 256), (rs.half, 1024), (rs.uint16, 256))
        st.set(src)
        it.set(index)
        _load(rel, 1).gather_elements(dst.GetPhyAddr(), st.GetPhyAddr(), it.GetPhyAddr(), 256, 128)
        np.testing.assert_array_equal(dst.numpy().view(np.uint16), src[index].view(np.uint16))
        # scenario 2: 16 byte offsets (DataBlocks of 16 halves), 8 per register; the kernel's index buffer
        # holds 16 + 64 - 8 uint32 of which the host writes 16: each asc_loadalign reads 64, and
        # asc_gather_datablock reads lanes 0..7 only (the others never written: no UninitializedReadError)
        block = rng.integers(0, 64, 16).astype(np.uint32)
        dst, st, it = _ub((rs.half, 256), (rs.half, 1024), (rs.uint32, 16 + 64 - 8))
        st.set(src)
        it.set(block * 32)
        _load(rel, 2).gather_datablocks(dst.GetPhyAddr(), st.GetPhyAddr(), it.GetPhyAddr(), 256, 128, 8)
        golden = np.concatenate([src[b * 16 : (b + 1) * 16] for b in block])  # gen_data.py's
        np.testing.assert_array_equal(dst.numpy().view(np.uint16), golden.view(np.uint16))


@devkit
@LOOPS
@pytest.mark.parametrize("seed", [0, 1])
def test_cast_both_scenarios_against_gen_data(seed: int, loops: str) -> None:
    rng = np.random.default_rng(seed)
    rel = RC + "cast/cast.asc"
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        # scenario 1: asc_loadalign_unpack puts each half in the low half of a 32-bit slot,
        # asc_half2int32_rd converts the even lanes with FLOOR; gen_data.py: floor(x) as int32
        x = rng.uniform(-100, 100, 256).astype(np.float16)
        xt, yt = _ub((rs.half, 256), (rs.int32, 256))
        xt.set(x)
        _load(rel, 1).cast_vf_s1(xt.GetPhyAddr(), yt.GetPhyAddr(), 256, 64, 4)
        np.testing.assert_array_equal(yt.numpy(), np.floor(x).astype(np.int32))
        # scenario 2: asc_float2int16_rna_sat writes the even int16 lanes (the odd ones zeroed); the
        # (vector_int32_t) cast sees each pair as one int32 whose low half is the result, and
        # asc_storealign_pack stores those low halves; gen_data.py: clip(round(x)) as int16
        x = rng.uniform(-100, 100, 256).astype(np.float32)
        xt, yt = _ub((rs.float32, 256), (rs.int16, 256))
        xt.set(x)
        _load(rel, 2).cast_vf_s2(xt.GetPhyAddr(), yt.GetPhyAddr(), 256, 64, 4)
        assert not np.any(np.abs(x - np.trunc(x)) == 0.5)  # no tie: np.round and ROUND agree
        np.testing.assert_array_equal(yt.numpy(), np.clip(np.round(x), -32768, 32767).astype(np.int16))
        # where they differ: ties (ROUND, the rounding_mode page: 2.5 -> 3, -1.5 -> -2, where gen_data.py's
        # np.round gives 2 and -2) and saturation (_sat: the int16 extremes; NaN -> 0)
        edge = np.array([2.5, -2.5, 0.5, -1.5, 1e6, -1e6, 32767.4, np.nan], np.float32)
        xt, yt = _ub((rs.float32, 256), (rs.int16, 256))
        xt.set(np.resize(edge, 256))
        _load(rel, 2).cast_vf_s2(xt.GetPhyAddr(), yt.GetPhyAddr(), 256, 64, 4)
        want = [3, -3, 1, -2, 32767, -32768, 32767, 0]  # the page's ROUND: ties away from zero
        np.testing.assert_array_equal(yt.numpy(), np.resize(np.array(want, np.int16), 256))


@devkit
@LOOPS
@pytest.mark.parametrize("seed", [0, 1])
def test_histogram_and_truncate_against_gen_data(seed: int, loops: str) -> None:
    rng = np.random.default_rng(seed)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        # histogram: 256 uint8 in one repeat; asc_frequency_histogram_bin0 counts the values 0..127 into
        # dst0's 128 uint16 lanes, _bin1 the values 128..255 into dst1's; gen_data.py: a 256-bin count
        x = rng.integers(0, 256, 256).astype(np.uint8)
        x[:40] = 7  # (not in gen_data.py) one bin counted 40 times
        xt, yt = _ub((rs.uint8, 256), (rs.uint16, 256))
        xt.set(x)
        _load(RC + "histogram/histogram.asc").histogram_vf(xt.GetPhyAddr(), yt.GetPhyAddr(), 256, 256, 1)
        golden = np.zeros(256, np.uint16)
        for v in x:
            golden[v] += 1
        np.testing.assert_array_equal(yt.numpy(), golden)
        # truncate: asc_floor under asc_update_mask_b32(data_len); gen_data.py: np.floor(x)
        x = rng.uniform(-100, 100, 256).astype(np.float32)
        x[:4] = [-0.0, -0.5, 99.0, -100.0]  # (not in gen_data.py) a signed zero, a small negative, integers
        y = _unary(RC + "truncate/truncate.asc", "truncate_vf", x, 256, 64, 4)
        np.testing.assert_array_equal(y.view(np.uint32), np.floor(x).view(np.uint32))
