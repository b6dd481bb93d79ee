"""The C++ front end (regsim.cpp): Ascend C VF source run on regsim, against Python ports and numpy.

The kernels in tests/cpp/ are regsim's own code, written in the style of the Ascend C examples;
each is checked against a hand-written Python port or a numpy / Python-int oracle.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from regsim import Reg
from regsim.cpp import CppError
from vf_examples import add_carry_vf

HERE = Path(__file__).resolve().parents[1] / "cpp"


def _add_carry(vf: object, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    count = a.size
    size = 64
    repeats = -(-count // size)
    ub = rs.UnifiedBuffer()
    s0, s1 = ub.alloc(rs.uint32, count), ub.alloc(rs.uint32, count)
    d0, d1 = ub.alloc(rs.uint32, repeats * size), ub.alloc(rs.uint32, repeats * 8)
    s0.set(a)
    s1.set(b)
    d0.set(np.full(d0.GetSize(), add_carry_vf.SENTINEL, np.uint32))
    d1.set(np.zeros(d1.GetSize(), np.uint32))
    vf(d0.GetPhyAddr(), d1.GetPhyAddr(), s0.GetPhyAddr(), s1.GetPhyAddr(), count, repeats, size)  # type: ignore[operator]
    return d0.numpy(), d1.numpy()


@pytest.mark.parametrize("fill", ["lsb", "group"])
@pytest.mark.parametrize("seed", [0, 3])
def test_add_carry_from_cpp_matches_the_python_port_bit_for_bit(seed: int, fill: str) -> None:
    mod = rs.cpp.load(HERE / "add_carry.asc")
    vf = mod.instantiate("AddCarryVF", T=rs.uint32)
    a, b = add_carry_vf.inputs(seed)
    with rs.configure(mask_fill=fill):
        got0, got1 = _add_carry(vf, a, b)
        want0, want1, repeats, size = add_carry_vf.kernel(a, b)
    np.testing.assert_array_equal(got0, want0)
    np.testing.assert_array_equal(got1, want1)
    sums, carries = add_carry_vf.reference(a, b, repeats, size, fill=fill)  # and both against the oracle
    np.testing.assert_array_equal(got0[: a.size], sums)
    np.testing.assert_array_equal(got1, carries)


def test_instantiations_are_lowered_once_and_cached() -> None:
    mod = rs.cpp.load(HERE / "add_carry.asc")
    first = mod.instantiate("AddCarryVF", T=rs.uint32)
    assert mod["AddCarryVF"][rs.uint32] is first
    assert mod.AddCarryVF[rs.uint32] is first
    assert rs.cpp.load(HERE / "add_carry.asc").functions is not None
    assert "Reg.UpdateMask(rs.uint32, v_count)" in first.source  # count is an rs.Ref: UpdateMask counts it down
    assert "dist=_E.MaskDist.DIST_NORM" in first.source


def _c_int(x: int, bits: int, signed: bool = True) -> int:
    x &= (1 << bits) - 1
    return x - (1 << bits) if signed and x >> (bits - 1) else x


def test_c_scalar_semantics() -> None:
    n, u = -9, 0x60000000
    ub = rs.UnifiedBuffer()
    out, fout = ub.alloc(rs.int32, 32), ub.alloc(rs.float32, 8)
    out.set(np.zeros(32, np.int32))
    fout.set(np.zeros(8, np.float32))
    rs.cpp.load(HERE / "scalars.asc").ScalarsVF(out.GetPhyAddr(), fout.GetPhyAddr(), n, u)
    f32 = np.float32
    want = [
        -128,  # int8_t 127, ++
        300,  # uint8_t + uint8_t promotes to int
        (200 + 100) % 256,  # and converts back
        -3,  # -7 / 2 truncates toward zero
        -1,  # -7 % 2
        -2,  # -9 / 4
        _c_int(u * 3, 32),
        0,  # -1 < u: -1 becomes 0xFFFFFFFF
        1,
        (65535 + 2) % 65536,
        -(2**31),
        u >> 29,
        n >> 1,  # arithmetic shift of a negative int
        sum(k * k for k in range(0, n + 19, 3)),
        -1,
        int(f32(n) / f32(2)),  # truncation of -4.5
        32767,  # int16_t -32768 - 1
        7,
        _c_int(7 * 0x40000000, 32),
        -100,
        100,
        -100,
    ]
    np.testing.assert_array_equal(out.numpy()[: len(want)], np.array(want, np.int32))
    assert fout.numpy()[0] == f32(f32(0.1) + f32(0.2))
    assert fout.numpy()[1] == f32(1) / f32(3)
    assert fout.numpy()[2] == f32(-4.5)


@pytest.mark.parametrize(("dtype", "np_dtype", "scale", "count"), [(rs.int16, np.int16, 3, 300), (rs.int32, np.int32, -5, 100)])
def test_template_callee_references_post_update_and_if_constexpr(dtype: type, np_dtype: type, scale: int, count: int) -> None:
    vl = 256 // np.dtype(np_dtype).itemsize
    padded = -(-count // vl) * vl
    rng = np.random.default_rng(1)
    src_values = rng.integers(-1000, 1000, count).astype(np_dtype)
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(dtype, count), ub.alloc(dtype, padded)
    src.set(src_values)
    dst.set(np.full(padded, 7, np_dtype))
    vf = rs.cpp.load(HERE / "scale.asc").ScaleVF[dtype, scale]
    vf(dst.GetPhyAddr(), src.GetPhyAddr(), count)
    want = np.full(padded, 7, np.int64)
    want[:count] = src_values.astype(np.int64) * scale  # |values| stay inside the type: no wrap
    want[0] += 1 if np.dtype(np_dtype).itemsize == 2 else 2  # if constexpr, through the unmoved copy
    want[1] = 0  # the count UpdateMask took by reference, counted down to 0 through the helper
    np.testing.assert_array_equal(dst.numpy(), want.astype(np_dtype))


def test_a_pointer_argument_is_passed_by_value() -> None:
    src = cpp_source(
        "k.asc",
        """
__simd_callee__ inline void Bump(__ubuf__ uint32_t* p, uint32_t v) { p = p + 1; p[0] = v; }
static __simd_vf__ inline void PtrVF(__ubuf__ uint32_t* dst) {
    __ubuf__ uint32_t* q = dst;
    Bump(q, 5u);
    q[0] = 9;        // q itself did not move
    Bump(q + 2, 6u);
}
""",
    )
    ub = rs.UnifiedBuffer()
    dst = ub.alloc(rs.uint32, 8)
    dst.set(np.zeros(8, np.uint32))
    rs.cpp.load(src).PtrVF(dst.GetPhyAddr())
    np.testing.assert_array_equal(dst.numpy(), [9, 5, 0, 6, 0, 0, 0, 0])


@pytest.mark.parametrize("mode", [1, 2])
def test_a_binary_operator_after_a_command_line_macro(mode: int) -> None:
    """`(MODE == 1) ? a : b` with `-DMODE=1`: libclang gives no tokens for an expression that starts
    with a macro, so the operator is read from the source between the operands (the
    bank_conflict_nd2nz example's `(SCENARIO == 1) ? tileH : (tileH + 1)`)."""
    src = cpp_source(
        "macro.asc",
        """
template <uint32_t h>
static __simd_vf__ inline void PickVF(__ubuf__ uint32_t* dst) {
    constexpr uint32_t stride = (MODE == 1) ? h : (h + 1);
    dst[0] = stride;
    dst[1] = MODE * 10 + (MODE << 2) - (MODE != 2);
}
""",
    )
    ub = rs.UnifiedBuffer()
    dst = ub.alloc(rs.uint32, 8)
    dst.set(np.zeros(8, np.uint32))
    rs.cpp.load(src, args=(f"-DMODE={mode}",)).instantiate("PickVF", h=144)(dst.GetPhyAddr())
    assert dst.numpy()[:2].tolist() == [144 if mode == 1 else 145, mode * 10 + (mode << 2) - (mode != 2)]


def _refused(name: str, source: str, vf: str, pattern: str) -> Path:
    """Write `source` to `name`, and check lowering `vf` raises a CppError matching `pattern`."""
    src = cpp_source(name, source)
    with pytest.raises(CppError, match=pattern):
        rs.cpp.load(src).instantiate(vf)
    return src


def test_a_parse_error_names_file_and_line() -> None:
    src = cpp_source(
        "bad.asc",
        "static __simd_vf__ inline void BadVF(__ubuf__ float* p) {\n"
        "    AscendC::Reg::RegTensor<float> r;\n"
        "    AscendC::Reg::NoSuchOp(r, p);\n"
        "}\n",
    )
    mod = rs.cpp.load(src)  # the file loads: the function is refused when it is instantiated
    with pytest.raises(CppError, match=r"bad\.asc:1: BadVF does not parse:\n.*bad\.asc:3: .*NoSuchOp"):
        mod.instantiate("BadVF")


def test_one_bad_function_does_not_refuse_its_file() -> None:
    src = cpp_source(
        "mixed.asc",
        "__simd_callee__ inline void Bad(AscendC::Reg::RegTensor<float>& r) { AscendC::Reg::NoSuchOp(r); }\n"
        "static __simd_vf__ inline void CallsBadVF(__ubuf__ float* p) {\n"
        "    AscendC::Reg::RegTensor<float> r;\n"
        "    Bad(r);\n"
        "}\n"
        "static __simd_vf__ inline void GoodVF(__ubuf__ int32_t* p) { p[0] = 7; }\n",
    )
    mod = rs.cpp.load(src)
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.int32, 8)
    t.set(np.zeros(8, np.int32))
    mod.GoodVF(t.GetPhyAddr())
    assert t.numpy()[0] == 7
    with pytest.raises(CppError, match=r"mixed\.asc:1: Bad does not parse:\n.*mixed\.asc:1: .*NoSuchOp"):
        mod.instantiate("CallsBadVF")


def test_an_unsupported_construct_names_it_and_its_line() -> None:
    source = (
        "static __simd_vf__ inline void SwitchVF(__ubuf__ int32_t* p, int32_t n) {\n"
        "    switch (n) {\n"
        "    case 0: p[0] = 1; break;\n"
        "    default: p[0] = 2;\n"
        "    }\n"
        "}\n"
    )
    _refused("switch.asc", source, "SwitchVF", r"switch\.asc:2: the C\+\+ statement SWITCH_STMT \(in SwitchVF\)")


def test_a_missing_vf_or_template_argument_is_named() -> None:
    mod = rs.cpp.load(HERE / "scale.asc")
    with pytest.raises(CppError, match=r"no __simd_vf__ function 'Nope'.*ScaleVF"):
        mod["Nope"]
    with pytest.raises(CppError, match="needs the template arguments SCALE"):
        mod.instantiate("ScaleVF", T=rs.int16)


def test_the_generated_declarations_cover_every_modelled_op() -> None:
    from regsim._src.engine.spec import REGISTRY
    from regsim._src.frontends.cpp.declarations import header

    text = header()
    for spec in REGISTRY.specs.values():
        if not spec.unmodelled:
            assert f" {spec.name}(" in text, spec.key
    assert "enum class MaskMergeMode" in text and "namespace MicroAPI = Reg;" in text


def test_host_code_around_the_vf_is_left_alone() -> None:
    mod = rs.cpp.load(HERE / "host_and_class.asc", args=("-DSCALE=2",))
    assert mod.host_diagnostics  # the missing host headers and runtime calls, not an error
    vf = mod.instantiate("BiasVF", T=rs.int16)  # the class's `length` is not used by the VF: not needed
    ub = rs.UnifiedBuffer()
    count = 200
    src, dst = ub.alloc(rs.int16, count), ub.alloc(rs.int16, 256)
    values = np.arange(-100, 100, dtype=np.int16)
    src.set(values)
    dst.set(np.full(256, 1234, np.int16))
    vf(dst.GetPhyAddr(), src.GetPhyAddr(), count)
    want = np.full(256, 1234, np.int16)
    want[:count] = values - 6  # BIAS * SCALE
    np.testing.assert_array_equal(dst.numpy(), want)


def test_the_command_line_runs_a_vf(capsys: pytest.CaptureFixture[str]) -> None:
    from regsim._src.frontends import cli

    argv = ["run", str(HERE / "add_carry.asc"), "--vf", "AddCarryVF", "--template", "T=uint32_t"]
    argv += ["--args", "uint32[128]=0", "uint32[16]=0", "uint32[100]=iota", "uint32[100]=0xFFFFFFFF", "100", "2", "64"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    sums = [(i + 0xFFFFFFFF) % 2**32 for i in range(8)]  # i - 1: lane 0 wraps to 0xFFFFFFFF, the rest carry
    assert "sum (uint32[128]=0): crc32 " in out and " ".join(map(str, sums)) + " ..." in out
    assert cli.main(["run", str(HERE / "add_carry.asc"), "--vf", "Nope"]) == 2  # a usage error: the VF is not in the file
    assert cli.main([*argv[:4], "--explain", *argv[4:]]) == 0
    assert cli.main([*argv[:4], "-DUNUSED_MACRO=2", *argv[4:]]) == 0  # macros reach the parse
    # the loop at its C++ line, in the VF's C++ name (not the generated Python's)
    out = capsys.readouterr().out
    assert re.search(r"loop .*add_carry\.asc:12 \(in AddCarryVF<uint32_t>\): (batched|sequential) \(2 iterations\)", out)


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ("int32_t k = 0;\n    goto end;\n    end: k = 1;", "GOTO_STMT"),
        ("auto twice = [](float x) { return x * 2.0f; };\n    p[0] = twice(1.0f);", "the lambda twice"),
    ],
)
def test_constructs_regsim_cannot_run_faithfully_are_refused(body: str, what: str) -> None:
    source = f"static __simd_vf__ inline void RefuseVF(__ubuf__ float* p) {{\n    {body}\n}}\n"
    _refused("refuse.asc", source, "RefuseVF", rf"refuse\.asc:\d+: .*{what}")


COPY_SOURCE = """
__simd_callee__ inline void CopyInto(AscendC::Reg::RegTensor<float>& dst, AscendC::Reg::RegTensor<float>& src,
    AscendC::Reg::MaskReg& m, AscendC::Reg::MaskReg& full)
{
    dst = src;  // a reference parameter gets the value: the caller's register changes
    m = full;
}
static __simd_vf__ inline void CopyVF(__ubuf__ float* out, __ubuf__ float* x, uint32_t repeats)
{
    AscendC::Reg::MaskReg full = AscendC::Reg::CreateMask<float, AscendC::Reg::MaskPattern::ALL>();
    AscendC::Reg::MaskReg half = AscendC::Reg::CreateMask<float, AscendC::Reg::MaskPattern::H>();
    AscendC::Reg::MaskReg m = full;  // copy-initialisation: a new register with full's bits
    full = half;          // assignment: m keeps the ALL bits
    for (uint16_t i = 0; i < repeats; i++) {
        AscendC::Reg::RegTensor<float> a, c, d;
        AscendC::Reg::LoadAlign(a, x + i * 64);
        AscendC::Reg::RegTensor<float> b = a;  // a copy: the Adds below leave b as it was
        AscendC::Reg::Adds(a, a, 1.0f, m);
        AscendC::Reg::Add(c, a, b, m);         // (x + 1) + x
        AscendC::Reg::MaskReg n;
        CopyInto(d, b, n, full);    // d = x, n = half (the H pattern)
        AscendC::Reg::Sub(c, c, d, m);
        AscendC::Reg::Select(d, c, d, n);  // x + 1 in the first half, d = x left in the second
        AscendC::Reg::StoreAlign(out + i * 64, d, m);
    }
}
"""


def test_register_copies_copy_the_value() -> None:
    src = cpp_source("copy.asc", COPY_SOURCE)
    vf = rs.cpp.load(src).instantiate("CopyVF")
    assert "_copy(" in vf.source
    repeats = 6
    x = np.random.default_rng(12).uniform(-3, 3, 64 * repeats).astype(np.float32)
    want = x.reshape(repeats, 64).copy()
    c = (x.reshape(repeats, 64) + np.float32(1)) + x.reshape(repeats, 64)  # float32 at each step
    want[:, :32] = c[:, :32] - x.reshape(repeats, 64)[:, :32]
    for loops in ("auto", "sequential"):
        ub = rs.UnifiedBuffer()
        xt, out = ub.alloc(rs.float32, x.size), ub.alloc(rs.float32, x.size)
        xt.set(x)
        out.set(np.zeros(x.size, np.float32))
        with rs.configure(loops=loops):
            how = rs.explain(vf, out.GetPhyAddr(), xt.GetPhyAddr(), repeats)
        assert ("batched" in how) == (loops == "auto"), how
        np.testing.assert_array_equal(out.numpy().view(np.uint32), want.reshape(-1).view(np.uint32))


def test_a_register_reference_parameter_assigned_is_the_callers() -> None:
    source = (
        "using namespace AscendC::Reg;\n"
        "__simd_callee__ inline void Make(MaskReg& m) { m = CreateMask<float, MaskPattern::VL8>(); }\n"
        "static __simd_vf__ inline void RebindVF(__ubuf__ float* p) {\n"
        "    AscendC::Reg::MaskReg m;\n"
        "    AscendC::Reg::RegTensor<float> r;\n"
        "    Make(m);\n"
        "    AscendC::Reg::Duplicate(r, 2.5f, m);\n"
        "    AscendC::Reg::StoreAlign(p, r, m);\n"
        "}\n"
    )
    src = cpp_source("rebind.asc", source)
    buf = rs.UnifiedBuffer().alloc(rs.float32, 64)
    buf.set(np.zeros(64, np.float32))
    rs.cpp.load(src).RebindVF(buf.GetPhyAddr())
    np.testing.assert_array_equal(buf.numpy(), np.where(np.arange(64) < 8, 2.5, 0).astype(np.float32))  # (VL8: 8 lanes)


def test_a_non_template_float_vf_with_resolved_calls_and_merging() -> None:
    count, alpha = 150, 1.7
    padded = 192  # 3 repeats of 64 floats; the tail of the last one is stored through the ALL mask
    rng = np.random.default_rng(5)
    x = rng.uniform(-4, 4, padded).astype(np.float32)
    y = rng.uniform(-4, 4, padded).astype(np.float32)
    ub = rs.UnifiedBuffer()
    xt, yt, zt = ub.alloc(rs.float32, padded), ub.alloc(rs.float32, padded), ub.alloc(rs.float32, padded)
    xt.set(x)
    yt.set(y)
    zt.set(np.zeros(padded, np.float32))
    rs.cpp.load(HERE / "saxpy.asc").SaxpyVF(zt.GetPhyAddr(), xt.GetPhyAddr(), yt.GetPhyAddr(), alpha, count)
    a32 = np.float32(alpha)  # the float parameter rounds the Python float once
    want = y.copy()  # MERGING: lanes past count keep y
    want[:count] = a32 * x[:count] + y[:count]  # float32 multiply, then float32 add (two roundings)
    np.testing.assert_array_equal(zt.numpy().view(np.uint32), want.view(np.uint32))


def test_a_crashing_parser_process_is_reported_not_fatal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import subprocess

    from regsim._src.frontends.cpp import module as cpp

    src = tmp_path / "crash.asc"
    src.write_text("static __simd_vf__ inline void V(__ubuf__ float* p) {}\n")

    def crashed(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], -11, "", "Segmentation fault")

    monkeypatch.setattr(cpp.subprocess, "run", crashed)
    with pytest.raises(CppError, match=r"crash\.asc: the libclang parse failed: Segmentation fault"):
        rs.cpp.load(src)


def test_a_file_is_parsed_once() -> None:
    assert rs.cpp.load(HERE / "saxpy.asc") is rs.cpp.load(HERE / "saxpy.asc")


def test_union_bit_casts_and_struct_constants() -> None:
    ub = rs.UnifiedBuffer()
    out, iout, x = ub.alloc(rs.float32, 8), ub.alloc(rs.int32, 8), ub.alloc(rs.float32, 64)
    out.set(np.zeros(8, np.float32))
    iout.set(np.zeros(8, np.int32))
    values = np.linspace(-3, 3, 64, dtype=np.float32)
    x.set(values)
    rs.cpp.load(HERE / "constants.asc").ConstantsVF(out.GetPhyAddr(), iout.GetPhyAddr(), x.GetPhyAddr())
    bits = out.numpy().view(np.uint32)
    assert bits[0] == 0x00800000  # the union's float member read back: the same bits
    assert out.numpy()[1] == np.float32(-6.0)
    assert iout.numpy()[0] == 3 * 10 - 7
    np.testing.assert_array_equal(x.numpy(), values * np.float32(-2.0))


def test_a_cpp_loop_runs_batched_and_agrees_with_the_in_order_run() -> None:
    n = 64 * 40
    rng = np.random.default_rng(9)
    x, y = rng.uniform(-2, 2, n).astype(np.float32), rng.uniform(-2, 2, n).astype(np.float32)
    vf = rs.cpp.load(HERE / "saxpy.asc").instantiate("SaxpyVF")
    results = []
    for loops in ("auto", "sequential"):
        ub = rs.UnifiedBuffer()
        xt, yt, zt = ub.alloc(rs.float32, n), ub.alloc(rs.float32, n), ub.alloc(rs.float32, n)
        xt.set(x)
        yt.set(y)
        zt.set(np.zeros(n, np.float32))
        with rs.configure(loops=loops):
            how = rs.explain(vf, zt.GetPhyAddr(), xt.GetPhyAddr(), yt.GetPhyAddr(), 0.5, n - 10)
        assert ("batched (40 iterations)" in how) == (loops == "auto"), how
        results.append(zt.numpy())
    np.testing.assert_array_equal(results[0].view(np.uint32), results[1].view(np.uint32))


def test_dependent_scalar_arithmetic_rounds_in_its_type() -> None:
    mod = rs.cpp.load(HERE / "scale.asc")
    ub = rs.UnifiedBuffer()
    out = ub.alloc(rs.float32, 8)
    out.set(np.zeros(8, np.float32))
    a, b = 0.1, 3.3
    mod.DependentVF[rs.float32](out.GetPhyAddr(), a, b)
    f = np.float32
    assert out.numpy()[0] == (f(a) + f(b)) * f(b)
    assert out.numpy()[1] == f(a) / f(b)
    assert out.numpy()[2] == 9  # 7 + 2.75 = 9.75, truncated
    iout = ub.alloc(rs.int32, 8)
    iout.set(np.zeros(8, np.int32))
    mod.DependentVF[rs.int32](iout.GetPhyAddr(), -7, 2)
    np.testing.assert_array_equal(iout.numpy()[:3], [-5 * 2, -3, 9])


def test_a_register_parameter_taken_by_value_and_written_is_the_callees_copy() -> None:
    source = (
        "__simd_callee__ inline void Twice(AscendC::Reg::RegTensor<float> v, AscendC::Reg::MaskReg& m) {\n"
        "    AscendC::Reg::Add(v, v, v, m);\n"
        "}\n"
        "__simd_callee__ inline void Read(AscendC::Reg::RegTensor<float> v, __ubuf__ float* p, AscendC::Reg::MaskReg& m) {\n"
        "    AscendC::Reg::StoreAlign(p, v, m);\n"
        "}\n"
        "static __simd_vf__ inline void ByValueVF(__ubuf__ float* p) {\n"
        "    AscendC::Reg::RegTensor<float> v;\n"
        "    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<float>();\n"
        "    AscendC::Reg::LoadAlign(v, p);\n"
        "    Read(v, p, m);\n"
        "    Twice(v, m);\n"
        "    AscendC::Reg::StoreAlign(p + 64, v, m);\n"
        "}\n"
    )
    src = cpp_source("byvalue.asc", source)
    ub = rs.UnifiedBuffer()
    buf = ub.alloc(rs.float32, 128)
    buf.set(np.arange(128, dtype=np.float32) + 1)
    rs.cpp.load(src).ByValueVF(buf.GetPhyAddr())  # Twice doubles its own copy, as C++ passes v: the caller's v is as loaded
    np.testing.assert_array_equal(buf.numpy(), np.tile(np.arange(64, dtype=np.float32) + 1, 2))


def test_the_generated_header_parses_clean() -> None:
    src = cpp_source("empty.asc", "static __simd_vf__ inline void EmptyVF(__ubuf__ float* p) {}\n")
    mod = rs.cpp.load(src)
    assert mod.host_diagnostics == []  # errors in the declarations would show here
    assert mod.vf_names == ["EmptyVF"]


def test_many_host_errors_and_an_integer_template_argument() -> None:
    # more host errors than clang's default limit (20): the parse must still reach the VF
    host = "".join(f"void host{k}() {{ aclrtNoSuchCall{k}(); }}\n" for k in range(30))
    src = cpp_source(
        "maskgen.asc",
        host + "template <typename T>\n"
        "static __simd_vf__ inline void MaskGenVF(__ubuf__ uint32_t* dst, __ubuf__ T* src) {\n"
        "    AscendC::Reg::RegTensor<T> v;\n"
        "    AscendC::Reg::MaskReg m;\n"
        "    AscendC::Reg::LoadAlign(v, src);\n"
        "    AscendC::Reg::MaskGenWithRegTensor<T, 1>(m, v);\n"
        "    AscendC::Reg::StoreAlign<uint32_t, AscendC::Reg::MaskDist::DIST_NORM>(dst, m);\n"
        "}\n",
    )
    mod = rs.cpp.load(src)
    assert len(mod.host_diagnostics) >= 30

    @rs.simd_vf
    def hand_port(dst: rs.UbPtr[rs.uint32], src: rs.UbPtr[rs.uint16]) -> None:
        v = rs.Reg.RegTensor(rs.uint16)
        m = rs.Reg.MaskReg()
        rs.Reg.LoadAlign(v, src)
        rs.Reg.MaskGenWithRegTensor(m, v, offset=1)
        rs.Reg.StoreAlign(dst, m, dist=rs.Reg.MaskDist.DIST_NORM)

    values = np.random.default_rng(2).integers(0, 2**16, 128, dtype=np.uint16)
    outs = []
    for vf in (mod.MaskGenVF[rs.uint16], hand_port):
        ub = rs.UnifiedBuffer()
        s, d = ub.alloc(rs.uint16, 128), ub.alloc(rs.uint32, 8)
        s.set(values)
        d.set(np.zeros(8, np.uint32))
        rs.asc_vf_call(getattr(vf, "vf", vf), d.GetPhyAddr(), s.GetPhyAddr())
        outs.append(d.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    assert outs[0].any()


@pytest.mark.parametrize("dtype", [rs.float32, rs.half])
def test_struct_and_enum_template_arguments_type_traits_and_the_reduce_order(dtype: type) -> None:
    mod = rs.cpp.load(HERE / "constructs.asc")
    src = mod.ConstructsVF[dtype].source
    assert "trait=_K" in src or dtype is rs.half  # Cast<int32_t, T, castTrait>: the struct constant
    assert "mode=_K" in src and "type=_E.ReduceType.MAX" in src and "dst=_E.MemType.VEC_LOAD" in src
    assert f"v_b = Reg.RegTensor(rs.{dtype.name}, trait=Reg.RegTraitNumOne)" in src

    @rs.simd_vf
    def hand_port(x: rs.UbPtr[Any], y: rs.UbPtr[Any], out: rs.UbPtr[rs.int32], flags: rs.UbPtr[rs.int32]) -> None:
        mask = Reg.CreateMask(dtype, pattern=Reg.MaskPattern.ALL)
        mode = Reg.DivSpecificMode(Reg.MaskMergeMode.ZEROING, False, Reg.DivAlgo.PRECISION_1ULP_FTZ_FALSE)
        a, b, c = Reg.RegTensor(dtype), Reg.RegTensor(dtype), Reg.RegTensor(rs.int32)
        flags[0] = int(dtype is rs.half)
        flags[1] = int(dtype is rs.float32)
        flags[2] = int(dtype is not rs.float32)
        flags[3] = 4
        n = 256 // dtype.itemsize
        for i in range(2):
            Reg.LoadAlign(a, x + i * n)
            Reg.LoadAlign(b, y + i * n)
            Reg.Div(a, a, b, mask, mode=mode)
            Reg.StoreAlign(x + i * n, a, mask)
            Reg.Truncate(b, a, mask, round_mode=rs.AscendC.RoundMode.CAST_FLOOR)
            Reg.StoreAlign(y + i * n, b, mask)
        Reg.LocalMemBar(src=Reg.MemType.VEC_STORE, dst=Reg.MemType.VEC_LOAD)
        if dtype is rs.float32:
            Reg.LoadAlign(a, x)
            trait = Reg.CastTrait(Reg.RegLayout.ZERO, Reg.SatMode.SAT, Reg.MaskMergeMode.ZEROING, rs.AscendC.RoundMode.CAST_FLOOR)
            Reg.Cast(c, a, mask, trait=trait)
            Reg.StoreAlign(out, c, mask)
        Reg.LoadAlign(a, x)
        Reg.Reduce(b, a, mask, type=Reg.ReduceType.MAX)
        Reg.StoreAlign(y + 2 * n, b, mask)

    n = 256 // dtype.itemsize
    rng = np.random.default_rng(4)
    xs = rng.uniform(-50, 50, 2 * n).astype(dtype.np_dtype)
    ys = rng.uniform(0.5, 3, 3 * n).astype(dtype.np_dtype)
    results = []
    for vf in (mod.ConstructsVF[dtype].vf, hand_port):
        ub = rs.UnifiedBuffer()
        x, y, out, flags = ub.alloc(dtype, 2 * n), ub.alloc(dtype, 3 * n), ub.alloc(rs.int32, 64), ub.alloc(rs.int32, 8)
        x.set(xs)
        y.set(ys)
        out.set(np.zeros(64, np.int32))
        flags.set(np.zeros(8, np.int32))
        rs.asc_vf_call(vf, x.GetPhyAddr(), y.GetPhyAddr(), out.GetPhyAddr(), flags.GetPhyAddr())
        results.append([t.numpy().tobytes() for t in (x, y, out, flags)])
    assert results[0] == results[1]
    assert list(np.frombuffer(results[0][3], np.int32)[:4]) == [
        int(dtype is rs.half),
        int(dtype is rs.float32),
        int(dtype is rs.half),
        4,
    ]
    quotient = np.frombuffer(results[0][0], dtype.np_dtype)
    np.testing.assert_array_equal(np.frombuffer(results[0][1], dtype.np_dtype)[: 2 * n], np.floor(quotient))


def test_a_non_constant_struct_variable_is_refused() -> None:
    source = "static __simd_vf__ inline void StructVF(__ubuf__ float* p) {\n    AscendC::Reg::CastTrait t;\n}\n"
    _refused("struct.asc", source, "StructVF", r"struct\.asc:2: the variable t of type .*CastTrait \(only constants\)")


FOLDED = """
template <int32_t K>
__simd_callee__ inline void Put(__ubuf__ int32_t* p, int32_t i)
{
    p[i] = K;
}

template <int32_t N>
static __simd_vf__ inline void FoldVF(__ubuf__ int32_t* p)
{
    Put<N * 3 + 1>(p, 0);
    Put<(N > 2 ? -N : N) * 4>(p, 1);
    Put<sizeof(float) * N>(p, 2);
    Put<(uint8_t)(N * 100)>(p, 3);
    Put<(N - 10) / 4>(p, 4);
    Put<(N - 10) % 4>(p, 5);
    Put<!(N == 3) && true>(p, 6);
    Put<~N>(p, 7);
}

constexpr int32_t Three()
{
    int32_t three = 3;  // (a body of more than one `return`: regsim does not run it at compile time)
    return three;
}

static __simd_vf__ inline void CallVF(__ubuf__ int32_t* p)
{
    Put<Three()>(p, 0);  // @call
}
"""


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("n", [3, 5, -7])
def test_template_arguments_are_folded_with_c_semantics(loops: str, n: int) -> None:
    src = cpp_source("fold.asc", FOLDED)
    t = rs.UnifiedBuffer().alloc(rs.int32, 8)
    t.set(np.zeros(8, np.int32))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        rs.cpp.load(src).FoldVF[n](t.GetPhyAddr())
    toward_zero = int((n - 10) / 4)  # C's / and % truncate toward zero
    want = [
        n * 3 + 1,
        (-n if n > 2 else n) * 4,
        4 * n,
        (n * 100) % 256,
        toward_zero,
        (n - 10) - 4 * toward_zero,
        int(n != 3),
        -n - 1,
    ]
    assert t.numpy().tolist() == want


def test_a_template_argument_that_is_not_a_constant_is_refused() -> None:
    line = FOLDED.splitlines().index(next(x for x in FOLDED.splitlines() if x.endswith("// @call"))) + 1
    src = cpp_source("fold.asc", FOLDED)
    with pytest.raises(CppError, match=rf"fold\.asc:{line}: the template argument Three \(not a constant\) \(in CallVF\)"):
        rs.cpp.load(src).CallVF(rs.UnifiedBuffer().alloc(rs.int32, 8).GetPhyAddr())


def test_the_front_end_evaluates_no_text() -> None:
    """Template arguments (from C++, from Python, from the command line) are folded or parsed, never eval'd: the
    only `exec` of the front ends runs the Python a VF was lowered to, compiled from the generated source."""
    import ast

    calls = []
    for path in sorted((Path(rs.__file__).parent / "_src" / "frontends").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("eval", "exec"):
                calls.append((path.name, node.func.id, ast.unparse(node.args[0])))
    assert calls == [("module.py", "exec", "compile(source, filename, 'exec')")]  # (CppModule._run_source)


# --- the example ports' C++ twins -------------------------------------------------------------------
from regsim.testing import cpp_twins  # noqa: E402

QUOTED = [t for t in cpp_twins.TWINS if t.quoted]


@pytest.mark.parametrize("twin", QUOTED, ids=[f"{t.port}.{t.attr}" for t in QUOTED])
def test_the_cpp_quoted_in_each_port_gives_the_ports_bits(twin: cpp_twins.Twin) -> None:
    """The VF each vf_examples port quotes, run by regsim.cpp inside the port's host code: the same
    bits as the Python port, in both loop modes (the port itself is checked against gen_data.py)."""
    path = cpp_source(f"{twin.port}.asc", cpp_twins.docstring_source(cpp_twins.port(twin)))
    mod = cpp_twins.load_twin(twin, None, path.parent)  # (the quote is there: the file load_twin writes)
    assert cpp_twins.check(twin, mod) == []


DEVKIT = os.environ.get("REGSIM_ASC_DEVKIT")


@pytest.mark.skipif(not DEVKIT, reason="set REGSIM_ASC_DEVKIT to an asc-devkit checkout to run its example files")
@pytest.mark.parametrize("twin", cpp_twins.TWINS, ids=[f"{t.port}.{t.attr}" for t in cpp_twins.TWINS])
def test_the_unmodified_example_file_gives_the_ports_bits(twin: cpp_twins.Twin, tmp_path: Path) -> None:
    mod = cpp_twins.load_twin(twin, Path(DEVKIT or "."), tmp_path)
    assert cpp_twins.check(twin, mod) == []


def test_a_real_parser_crash_and_a_hang_are_reported_not_fatal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import subprocess

    from regsim._src.frontends.cpp import module as cpp
    from regsim._src.frontends.cpp import parse as cpp_parse

    src = tmp_path / "k.asc"
    src.write_text("static __simd_vf__ inline void V(__ubuf__ float* p) {}\n")
    crasher = tmp_path / "crasher.py"
    crasher.write_text("import os, sys\nsys.stderr.write('Fatal error in libclang\\n')\nos.abort()\n")
    monkeypatch.setattr(cpp_parse, "__file__", str(crasher))  # the child process dies of SIGABRT
    with pytest.raises(CppError, match=r"k\.asc: the libclang parse failed: Fatal error in libclang"):
        rs.cpp.load(src)

    def hang(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        raise subprocess.TimeoutExpired("parse", cpp.PARSE_TIMEOUT)

    monkeypatch.setattr(cpp.subprocess, "run", hang)
    with pytest.raises(CppError, match=r"k\.asc: the libclang parse took longer than \d+ s and was stopped"):
        rs.cpp.load(src)


def test_the_basic_apis_cast_trait_constants_are_declared() -> None:
    src = cpp_source(
        "layout.asc",
        "static __simd_vf__ inline void WidenVF(__ubuf__ float* dst, __ubuf__ half* src) {\n"
        "    AscendC::Reg::RegTensor<half> h;\n"
        "    AscendC::Reg::RegTensor<float> f;\n"
        "    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<float>();\n"
        "    AscendC::Reg::LoadAlign<half, AscendC::Reg::LoadDist::DIST_UNPACK_B16>(h, src);\n"
        "    AscendC::Reg::Cast<float, half, AscendC::layoutZMrgZ>(f, h, m);\n"
        "    AscendC::Reg::StoreAlign(dst, f, m);\n"
        "}\n",
    )
    x = np.random.default_rng(4).uniform(-60000, 60000, 64).astype(np.float16)
    ub = rs.UnifiedBuffer()
    st, dt_ = ub.alloc(rs.half, 128), ub.alloc(rs.float32, 64)
    st.set(np.concatenate([x, np.zeros(64, np.float16)]))
    rs.cpp.load(src).instantiate("WidenVF")(dt_.GetPhyAddr(), st.GetPhyAddr())
    np.testing.assert_array_equal(dt_.numpy(), x.astype(np.float32))  # every half is a float exactly


def test_double_moves_from_cpp() -> None:
    """C++ `double` is rs.float64: double pointers, RegTensor<double> (both traits) loads and stores
    (decisions/model.md#float64-element-type)."""
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.float64, 128), ub.alloc(rs.float64, 128)
    x = np.arange(128) * 0.75 - 20
    src.set(x)
    dst.set(np.zeros(128))
    rs.cpp.load(HERE / "double_move.asc").DoubleMoveVF(dst.GetPhyAddr(), src.GetPhyAddr(), 40)
    got = dst.numpy()
    assert np.array_equal(got[:32].view(np.uint64), x[:32].view(np.uint64) + np.uint64(1))
    assert np.array_equal(got[32:40], x[32:40]) and not got[40:96].any()
    assert np.array_equal(got[96:128], x[:32])


CONTINUE_SOURCE = """
template <typename T>
__simd_vf__ inline void SkipOddVF(__ubuf__ T* dst, __ubuf__ T* src, uint16_t rows)
{
    AscendC::Reg::RegTensor<T> x;
    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<T>();
    for (uint16_t i = 0; i < rows; i++) {
        if (i % 2 == 1) {
            continue;
        }
        AscendC::Reg::LoadAlign(x, src + i * 64);
        AscendC::Reg::StoreAlign(dst + i * 64, x, m);
    }
    for (uint16_t i = 0; i < rows; ) {
        i++;
    }
}
"""


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_continue_in_a_counting_loop(loops: str) -> None:
    """`continue` skips the rest of a counting loop's body, as in C (such a loop runs in order: S1)."""
    src = cpp_source("skip.asc", CONTINUE_SOURCE)
    mod = rs.cpp.load(src)
    ub = rs.UnifiedBuffer(8192)
    s, d = ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 256)
    s.set(np.arange(256, dtype=np.float32))
    d.set(np.full(256, -1, np.float32))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.SkipOddVF[rs.float32](d.GetPhyAddr(), s.GetPhyAddr(), 4)
    rows = np.arange(256) // 64
    assert (d.numpy() == np.where(rows % 2 == 0, np.arange(256), -1)).all()
