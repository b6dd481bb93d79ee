"""Calling C++ VFs from Python (rs.cpp): explicit specializations run their own bodies, arguments by
C++ name, C's division semantics, bounded loops and recursion, and errors at their C++ line (in
Python and through `regsim run`).

The kernels are tests/cpp/mistakes.asc (regsim's own code); expected values are written out from the
C++ source by hand (each kernel writes a constant or a small integer function of its arguments).
Every kernel runs in both loop modes; tests/frontends/test_mistakes_cpp.py has the user mistakes.
"""

from __future__ import annotations

import inspect
import math
import re
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from regsim.cpp import CppError
from regsim.errors import OutOfBoundsError, VfContextError

SOURCE = Path(__file__).resolve().parents[1] / "cpp" / "mistakes.asc"
LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])


def line_of(mark: str) -> int:
    lines = SOURCE.read_text().splitlines()
    return next(i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(f"// @{mark}"))


def tensor(dtype: Any, n: int, value: float = 0) -> rs.LocalTensor[Any]:
    """A tensor of `n` elements of `dtype` in a UB of its own, every element `value`."""
    t = rs.UnifiedBuffer().alloc(dtype, n)
    t.set(np.full(n, value, dtype.np_dtype))
    return t


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    return rs.cpp.load(SOURCE)


@LOOPS
@pytest.mark.parametrize(
    ("dtype", "fill"),
    [(rs.float32, 2.0), (rs.half, 1.0), (rs.int32, 1), (rs.uint16, 1)],  # FillVF<float> writes 2.0f, the template (T)1
)
def test_an_explicit_specialization_runs_its_own_body(mod: rs.cpp.CppModule, loops: str, dtype: type, fill: float) -> None:
    lanes, n = 256 // dtype.itemsize, 5
    t = tensor(dtype, lanes, 7)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.FillVF[dtype](t.GetPhyAddr(), n)
    want = np.where(np.arange(lanes) < n, fill, 7).astype(dtype.np_dtype)
    np.testing.assert_array_equal(t.numpy(), want)
    assert mod.FillVF[dtype].display == f"FillVF<{ {rs.float32: 'float', rs.half: 'half'}.get(dtype, dtype.name + '_t') }>"


@LOOPS
def test_a_specialization_whose_primary_has_no_body(mod: rs.cpp.CppModule, loops: str) -> None:
    t = tensor(rs.float32, 8)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.OnlySpecVF[rs.float32](t.GetPhyAddr())
    assert t.numpy()[0] == 5.0


@LOOPS
def test_a_helper_specialization_runs_where_cpp_would_pick_it(mod: rs.cpp.CppModule, loops: str) -> None:
    """Twice<T> is x + x, Twice<float> x * 3: by explicit template arguments in a template VF, and
    where clang resolved a call with deduced ones."""
    f, i = tensor(rs.float32, 8, 1.5), tensor(rs.int32, 8, -4)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.TwiceVF[rs.float32](f.GetPhyAddr())
        mod.TwiceVF[rs.int32](i.GetPhyAddr())
        assert (f.numpy()[0], i.numpy()[0]) == (1.5 * 3, -8)
        mod.ResolvedVF(f.GetPhyAddr(), i.GetPhyAddr())
        assert (f.numpy()[0], i.numpy()[0]) == (1.5 * 9, -16)


def test_arguments_by_cpp_parameter_name(mod: rs.cpp.CppModule) -> None:
    fill = mod.FillVF[rs.float32]
    assert mod.instantiate("FillVF", rs.float32) is fill and mod.instantiate("FillVF", T=rs.float32) is fill
    assert list(inspect.signature(fill.vf).parameters) == ["dst", "n"]
    assert [p.decl for p in fill.params] == ["__ubuf__ float* dst", "uint32_t n"]
    t = tensor(rs.float32, 64)
    fill(n=3, dst=t.GetPhyAddr())
    rs.asc_vf_call(fill.vf, t.GetPhyAddr() + 8, n=2)
    np.testing.assert_array_equal(t.numpy()[:12], [2, 2, 2, 0, 0, 0, 0, 0, 2, 2, 0, 0])


@LOOPS
@pytest.mark.parametrize(("a", "b"), [(1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (1.0, -0.0), (3.0, 2.0)])
def test_float_division_is_ieee_also_by_zero(mod: rs.cpp.CppModule, loops: str, a: float, b: float) -> None:
    t = tensor(rs.float32, 8)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.FloatDivVF(t.GetPhyAddr(), a, b)
    want = math.copysign(math.inf, a) * math.copysign(1.0, b) if b == 0 and a != 0 else math.nan if b == 0 else a / b
    np.testing.assert_array_equal(t.numpy()[:2], np.float32([want, want]))


@LOOPS
@pytest.mark.parametrize(("a", "b"), [(7, 2), (-7, 2), (7, -2), (-7, -2), (-(2**31), 3)])
def test_integer_division_truncates_toward_zero(mod: rs.cpp.CppModule, loops: str, a: int, b: int) -> None:
    t = tensor(rs.int32, 8)
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C's /: toward zero
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.DivVF(t.GetPhyAddr(), a, b)
        assert t.numpy()[0] == q
        mod.RemVF(t.GetPhyAddr(), a, b)
        assert t.numpy()[0] == a - b * q
        mod.DivAssignVF(t.GetPhyAddr(), a, b)
        assert t.numpy()[0] == q


@LOOPS
def test_the_loop_bound_lets_a_loop_of_exactly_that_many_iterations_run(
    mod: rs.cpp.CppModule, loops: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = tensor(rs.uint32, 8)
    with rs.configure(loops=loops, max_loop_iterations=100):  # type: ignore[arg-type]
        mod.SpinVF(t.GetPhyAddr(), 100)
        assert t.numpy()[0] == 100
        with pytest.raises(CppError, match=rf"mistakes\.asc:{line_of('spin')} \(in SpinVF\): the loop ran 100 iterations"):
            mod.SpinVF(t.GetPhyAddr(), 101)


@LOOPS
def test_bounded_recursion_and_a_loop_nest_split_into_a_helper_run(mod: rs.cpp.CppModule, loops: str) -> None:
    t = tensor(rs.uint32, 8)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.DepthVF(t.GetPhyAddr(), 50)
        assert t.numpy()[0] == 50
        t.set(np.zeros(8, np.uint32))
        mod.SplitNestVF(t.GetPhyAddr())  # 21 nested loops: 2 iterations outside, 3 inside
    assert t.numpy()[0] == 2 * 3


def test_a_located_error_keeps_its_class_and_hides_the_generated_python(mod: rs.cpp.CppModule) -> None:
    t = tensor(rs.uint32, 8, 7)
    with pytest.raises(OutOfBoundsError) as info:
        mod.PutVF(t.GetPhyAddr(), 8)
    assert str(info.value).startswith(f"{SOURCE}:{line_of('put')} (in Put, called from line {line_of('put-call')} in PutVF): ")
    files = [frame.filename for frame in traceback.extract_tb(info.value.__traceback__)]
    assert not any("regsim-cpp" in f for f in files), files
    np.testing.assert_array_equal(t.numpy(), [0, 7, 7, 7, 7, 7, 7, 7])  # the first Put's store stays, as on a device


def test_a_forced_batched_run_names_the_cpp_loop_it_cannot_batch(mod: rs.cpp.CppModule) -> None:
    t = tensor(rs.uint32, 8)
    with rs.configure(loops="batched"), pytest.raises(VfContextError) as info:
        mod.ScalarLoopVF(t.GetPhyAddr(), 4)
    text = str(info.value)
    assert f"mistakes.asc:{line_of('scalar-loop')} (in ScalarLoopVF)" in text
    assert not re.search(r"regsim-cpp|\bvf_\w+_\d+", text), text


def test_hasattr_is_false_for_a_name_that_is_no_vf(mod: rs.cpp.CppModule) -> None:
    assert hasattr(mod, "FillVF") and not hasattr(mod, "NoSuchVF") and not hasattr(mod, "Twice")


@pytest.mark.parametrize(
    ("argv", "status", "pattern"),
    [
        (["--vf", "DivVF", "--args", "int32[8]=0", "7", "0"], 1, r"mistakes\.asc:{div} \(in DivVF\): the integer division 7 / 0"),
        (
            ["--vf", "FillVF", "--template", "T=float,U=half", "--args", "float[64]", "3"],
            2,
            r"FillVF .*has no template parameter U",
        ),
        (["--vf", "FillVF", "--template", "T=float,3", "--args", "float[64]", "3"], 2, r"--template: '3' is not NAME=VALUE"),
        (["--vf", "RecurseVF", "--args", "uint32[8]=0", "0"], 1, r"mistakes\.asc:{forever} \(in Forever\): the calls nest"),
        (["--vf", "NoSuchVF"], 2, r"has no __simd_vf__ function NoSuchVF; its VFs: FillVF"),
    ],
)
def test_the_command_line_reports_a_cpp_error_on_one_line(
    argv: list[str], status: int, pattern: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line each: exit 1 when the kernel fails, 2 for a mistake on the command line (checked before it runs)."""
    from regsim._src.frontends import cli

    assert cli.main(["run", str(SOURCE), *argv]) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("regsim run: "), err
    assert re.search(pattern.format(div=line_of("div"), forever=line_of("forever")), err), err


REF_SOURCE = """
template <typename T>
__simd_vf__ inline void TailVF(__ubuf__ T* dst, uint32_t& count, uint16_t rows)
{
    AscendC::Reg::RegTensor<T> x;
    for (uint16_t i = 0; i < rows; i++) {
        AscendC::Reg::MaskReg m = AscendC::Reg::UpdateMask<T>(count);
        AscendC::Reg::Duplicate(x, (T)1, m);
        AscendC::Reg::StoreAlign(dst + i * 64, x, m);
    }
}
"""


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_a_reference_parameter_takes_an_rs_ref_and_nothing_else(loops: str) -> None:
    """`uint32_t& count` is an rs.Ref (the VF counts it down, as C++ would through the reference);
    a plain number there is a ParameterError saying so, before anything runs."""
    src = cpp_source("tail.asc", REF_SOURCE)
    mod = rs.cpp.load(src)
    ub = rs.UnifiedBuffer(4096)
    d = ub.alloc(rs.float32, 192)
    d.set(np.zeros(192, np.float32))
    count = rs.Ref(100)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.TailVF[rs.float32](d.GetPhyAddr(), count, 3)
        assert count.value == 0 and (d.numpy() == (np.arange(192) % 64 < np.array([64, 36, 0])[np.arange(192) // 64])).all()
        with pytest.raises(rs.errors.ParameterError, match=r"an rs\.Ref\(\.\.\.\) for the reference `uint32_t ?& ?count`"):
            mod.TailVF[rs.float32](d.GetPhyAddr(), 100, 3)
