"""A new user's mistakes with the C++ front end (rs.cpp): each one regsim error, never a raw Python
exception, whose message names the parameter or construct and what to do.

The kernels are tests/cpp/mistakes.asc (regsim's own code); a `// @name` comment marks the C++ line
an error raised while a VF runs must name (found here from the file's text). Mistakes caught before
the VF runs (names, template arguments, arguments) leave every UB byte as it was; every case runs in
both loop modes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from regsim.cpp import CppError
from regsim.errors import AlignmentError, DTypeError, OutOfBoundsError, ParameterError, RegsimError, UninitializedReadError

HERE = Path(__file__).resolve().parents[1] / "cpp"
SOURCE = HERE / "mistakes.asc"
LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])


def at(mark: str) -> str:
    """`mistakes.asc:LINE` of the line carrying `// @mark`."""
    lines = SOURCE.read_text().splitlines()
    hits = [i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(f"// @{mark}")]
    assert len(hits) == 1, mark
    return f"mistakes.asc:{hits[0]}"


@dataclass
class Buffers:
    """The UB a mistake is made with: one tensor per element type the kernels take."""

    ub: rs.UnifiedBuffer
    f32: rs.LocalTensor[Any]
    f16: rs.LocalTensor[Any]
    i32: rs.LocalTensor[Any]
    u32: rs.LocalTensor[Any]

    @classmethod
    def make(cls) -> Buffers:
        ub = rs.UnifiedBuffer(4096)
        b = cls(ub, ub.alloc(rs.float32, 64), ub.alloc(rs.half, 128), ub.alloc(rs.int32, 8), ub.alloc(rs.uint32, 8))
        for t, dtype in ((b.f32, np.float32), (b.f16, np.float16), (b.i32, np.int32), (b.u32, np.uint32)):
            t.set(np.arange(t.GetSize(), dtype=dtype))
        return b


Call = Callable[[rs.cpp.CppModule, Buffers], object]

#: (id, the mistake, the error class, patterns its message must contain); nothing runs before the error
REFUSED: list[tuple[str, Call, type[RegsimError], list[str]]] = [
    # files and names
    ("missing file", lambda m, b: rs.cpp.load(HERE / "no_such_kernel.asc"), CppError,
     [r"no_such_kernel\.asc: no such file", r"rs\.cpp\.load takes the path of a C\+\+ source file"]),
    ("a directory", lambda m, b: rs.cpp.load(HERE), CppError, [r"cpp: not a file", "the path of a C\\+\\+ source file"]),
    ("clang arguments as one str", lambda m, b: rs.cpp.load(SOURCE, args=("-DSCENARIO_NUM=2")), ParameterError,
     [r"rs\.cpp\.load: args = '-DSCENARIO_NUM=2'", r"a tuple of clang arguments, e\.g\. args=\('-DSCENARIO_NUM=2',\)",
      "mind the comma"]),
    ("a number for the path", lambda m, b: rs.cpp.load(3), ParameterError,  # type: ignore[arg-type]
     [r"rs\.cpp\.load: path = 3; accepted: the path of a C\+\+ source file"]),
    ("unknown VF attribute", lambda m, b: m.NoSuchVF, CppError,
     [r"no __simd_vf__ function 'NoSuchVF'", r"the file defines: FillVF, ScaleVF, ModeVF"]),
    ("unknown VF by index", lambda m, b: m["FillVf"], CppError, [r"no __simd_vf__ function 'FillVf'", r"defines: FillVF"]),
    ("unknown VF instantiated", lambda m, b: m.instantiate("Fill", T=rs.float32), CppError,
     [r"no __simd_vf__ function 'Fill'", r"defines: FillVF"]),
    ("a helper called as a VF", lambda m, b: m.Twice, CppError,
     [r"no __simd_vf__ function 'Twice'", r"Twice is a __simd_callee__ helper: call it from a VF"]),
    ("an overloaded VF name", lambda m, b: m.OverVF, CppError,
     [r"OverVF is defined 2 times \(lines \d+, \d+\)", r"give each overload a name of its own"]),
    # template arguments
    ("too many template arguments", lambda m, b: m.FillVF[rs.float32, rs.half], CppError,
     [r"mistakes\.asc:\d+: FillVF takes 1 template argument \(T\); given 2: remove half"]),
    ("a template argument that is not a dtype", lambda m, b: m.FillVF[3], CppError,
     [r"FillVF: the template argument T = 3", r"accepted: an element type: a regsim dtype \(rs\.float32 for float"]),
    ("a numpy dtype for T", lambda m, b: m.FillVF[np.float32], CppError,
     [r"the template argument T = <class 'numpy\.float32'>", r"a regsim dtype"]),
    ("template arguments for a plain VF", lambda m, b: m.DivVF[rs.int32], CppError,
     [r"DivVF is not a template; given 1: remove int32_t"]),
    ("a template keyword for a plain VF", lambda m, b: m.instantiate("DivVF", T=rs.int32), CppError,
     [r"DivVF is not a template; given the template arguments T=int32_t: call mod\.DivVF\(\.\.\.\) directly"]),
    ("an unknown template parameter", lambda m, b: m.instantiate("FillVF", U=rs.float32), CppError,
     [r"FillVF: no template parameter U \(given U=float\); its template parameters: T"]),
    ("a template argument in order and by name", lambda m, b: m.instantiate("FillVF", rs.float32, T=rs.half), CppError,
     [r"FillVF: the template argument T given twice \(in order and by name\)"]),
    ("a template VF called without its arguments", lambda m, b: m.FillVF(b.f32.GetPhyAddr(), 64), CppError,
     [r"FillVF needs the template arguments T", r"mod\.FillVF\[\.\.\.\] or mod\.instantiate\('FillVF', T=\.\.\.\)"]),
    ("a dtype for an int template parameter", lambda m, b: m.ScaleVF[rs.float32, rs.half], CppError,
     [r"ScaleVF: the template argument N = rs\.half", r"accepted: an int \(`int N`\)"]),
    ("an int for an enum template parameter", lambda m, b: m.ModeVF[1], CppError,
     [r"ModeVF: the template argument mode = 1", r"accepted: a member of rs\.Reg\.MaskMergeMode \(UNKNOWN, MERGING, ZEROING\)"]),
    ("a type with no definition", lambda m, b: m.OnlySpecVF[rs.int32], CppError,
     [r"OnlySpecVF<int32_t> has no definition", r"specialized as OnlySpecVF<float> only"]),
    ("a specialized helper called with deduced arguments", lambda m, b: m.DeducedVF[rs.float32], CppError,
     [rf"{at('deduced')}: the call of Twice with deduced template arguments", r"spell its template arguments \(Twice<T>"]),
    # arguments against the C++ parameters
    ("too few arguments", lambda m, b: m.FillVF[rs.float32](b.f32.GetPhyAddr()), ParameterError,
     [r"FillVF<float>: n = missing", r"__ubuf__ float\* dst, uint32_t n"]),
    ("too many arguments", lambda m, b: m.FillVF[rs.float32](b.f32.GetPhyAddr(), 64, 1), ParameterError,
     [r"FillVF<float>: arguments = 3 given; accepted: 2: __ubuf__ float\* dst, uint32_t n"]),
    ("a pointer for a scalar", lambda m, b: m.FillVF[rs.float32](b.f32.GetPhyAddr(), b.f32.GetPhyAddr()), ParameterError,
     [r"n = UbPtr\[float32\]", r"accepted: a number for the scalar `uint32_t n`"]),
    ("a scalar for a pointer", lambda m, b: m.FillVF[rs.float32](0, 64), ParameterError,
     [r"dst = 0; accepted: a UbPtr\[float32\] for `__ubuf__ float\* dst` \(a LocalTensor's \.GetPhyAddr\(\)\)"]),
    ("a LocalTensor for a pointer", lambda m, b: m.FillVF[rs.float32](b.f32, 64), ParameterError,
     [r"dst = LocalTensor", r"pass the tensor's \.GetPhyAddr\(\)"]),
    ("None for a pointer", lambda m, b: m.DivVF(None, 1, 1), ParameterError,
     [r"DivVF: dst = None; accepted: a UbPtr\[int32\] for `__ubuf__ int32_t\* dst`"]),
    ("a half pointer for float*", lambda m, b: m.FillVF[rs.float32](b.f16.GetPhyAddr(), 64), DTypeError,
     [r"dst = UbPtr\[half\]", r"a UbPtr\[float32\] for `__ubuf__ float\* dst`; p\.reinterpret\(rs\.float32\) views"]),
    ("an int32 pointer for uint32_t*", lambda m, b: m.PutVF(b.i32.GetPhyAddr(), 1), DTypeError,
     [r"PutVF: dst = UbPtr\[int32\]", r"a UbPtr\[uint32\] for `__ubuf__ uint32_t\* dst`"]),
    ("T given for another pointer", lambda m, b: m.FillVF[rs.half](b.f32.GetPhyAddr(), 64), DTypeError,
     [r"FillVF<half>: dst = UbPtr\[float32\]", r"a UbPtr\[half\] for `__ubuf__ half\* dst`"]),
    ("an unknown keyword", lambda m, b: m.FillVF[rs.float32](b.f32.GetPhyAddr(), count=64), ParameterError,
     [r"count = 64 \(no such parameter\); accepted: the parameters __ubuf__ float\* dst, uint32_t n"]),
    ("a keyword given twice", lambda m, b: m.FillVF[rs.float32](b.f32.GetPhyAddr(), 64, dst=b.f32.GetPhyAddr()),
     ParameterError, [r"dst = UbPtr\[float32\].* \(given twice\)"]),
    ("an rs.Ref for a by-value scalar", lambda m, b: m.FillVF[rs.float32](b.f32.GetPhyAddr(), rs.Ref(64)), ParameterError,
     [r"n = Ref\(64\)", r"a number for the scalar `uint32_t n` \(pass its \.value\)"]),
    ("NaN for an integer", lambda m, b: m.FillVF[rs.float32](b.f32.GetPhyAddr(), float("nan")), ParameterError,
     [r"n = nan; accepted: a finite number for `uint32_t n`"]),
    ("a string for a scalar", lambda m, b: m.DivVF(b.i32.GetPhyAddr(), "7", 1), ParameterError,
     [r"DivVF: a = '7'; accepted: a number for the scalar `int32_t a`"]),
    ("asc_vf_call of .vf with too few", lambda m, b: rs.asc_vf_call(m.instantiate("DivVF").vf, b.i32.GetPhyAddr()),
     ParameterError, [r"DivVF: a = missing"]),
]  # fmt: skip

#: (id, the mistake, the error class, patterns): errors raised while the VF runs, at their C++ line
RUNTIME: list[tuple[str, Call, type[RegsimError], list[str]]] = [
    ("a store past the tensor in a helper", lambda m, b: m.PutVF(b.u32.GetPhyAddr(), 100), OutOfBoundsError,
     [rf"{at('put')} \(in Put, called from line {at('put-call').split(':')[1]} in PutVF\): UbPtr\[\]=: index"]),
    ("a store past the tensor in a loop", lambda m, b: m.RowsVF(b.f32.GetPhyAddr(), 3), OutOfBoundsError,
     [rf"{at('rows-store')} \(in RowsVF\): StoreAlign: dst_addr"]),
    ("a misaligned store", lambda m, b: m.FillVF[rs.half](b.f16.GetPhyAddr() + 4, 8), AlignmentError,
     [rf"{at('fill-store')} \(in FillVF<half>\): StoreAlign:", r"accepted: a multiple of 32 bytes"]),
    ("a register stored before it is written", lambda m, b: m.UninitVF(b.f32.GetPhyAddr()), UninitializedReadError,
     [rf"{at('uninit')} \(in UninitVF\): StoreAlign: src_reg lane 0 is read by an active lane but was never written"]),
    ("an integer division by zero", lambda m, b: m.DivVF(b.i32.GetPhyAddr(), 7, 0), CppError,
     [rf"{at('div')} \(in DivVF\): the integer division 7 / 0 \(undefined behaviour in C\+\+\)", "check the divisor"]),
    ("an integer remainder by zero", lambda m, b: m.RemVF(b.i32.GetPhyAddr(), -7, 0), CppError,
     [rf"{at('rem')} \(in RemVF\): the integer remainder -7 % 0", "check the divisor"]),
    ("a compound division by zero", lambda m, b: m.DivAssignVF(b.i32.GetPhyAddr(), 7, 0), CppError,
     [rf"{at('div-assign')} \(in DivAssignVF\): the integer division 7 / 0"]),
    ("unbounded recursion", lambda m, b: m.RecurseVF(b.u32.GetPhyAddr(), 0), CppError,
     [rf"{at('forever')} \(in Forever\): the calls nest \d+ deep, past Python's recursion limit", "unbounded recursion"]),
    ("while (1) without a break", lambda m, b: m.WhileOneVF(b.u32.GetPhyAddr()), CppError,
     [rf"{at('while-one')} \(in WhileOneVF\): the loop ran 100 iterations without ending",
      r"rs\.configure\(max_loop_iterations=100\) bounds a loop; raise it if the loop is meant to run longer"]),
    ("for (;;) without a break", lambda m, b: m.ForEverVF(b.u32.GetPhyAddr()), CppError,
     [rf"{at('for-ever')} \(in ForEverVF\): the loop ran 100 iterations"]),
    ("a while loop one iteration past the bound", lambda m, b: m.SpinVF(b.u32.GetPhyAddr(), 101), CppError,
     [rf"{at('spin')} \(in SpinVF\): the loop ran 100 iterations"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    return rs.cpp.load(SOURCE)


def _raises(mod: rs.cpp.CppModule, b: Buffers, mistake: Call, cls: type[RegsimError], patterns: list[str]) -> str:
    with pytest.raises(RegsimError) as info:
        mistake(mod, b)
    assert isinstance(info.value, cls), info.value
    text = str(info.value)
    for p in patterns:
        assert re.search(p, text), f"{p!r} not in {text!r}"
    assert not re.search(r"regsim-cpp|\b(vf|c)_\w+_\d+\b", text)  # the generated Python is not what the user sees
    return text


@LOOPS
@pytest.mark.parametrize(("mistake", "cls", "patterns"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_refused_call_names_what_to_change_and_changes_nothing(
    mod: rs.cpp.CppModule, loops: str, mistake: Call, cls: type[RegsimError], patterns: list[str]
) -> None:
    b = Buffers.make()
    before = (b.ub.storage.data.copy(), b.ub.storage.valid.copy() if b.ub.storage.valid is not None else None)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _raises(mod, b, mistake, cls, patterns)
    np.testing.assert_array_equal(b.ub.storage.data, before[0])
    if before[1] is not None:
        np.testing.assert_array_equal(b.ub.storage.valid, before[1])


@LOOPS
@pytest.mark.parametrize(("mistake", "cls", "patterns"), [c[1:] for c in RUNTIME], ids=[c[0] for c in RUNTIME])
def test_an_error_while_a_vf_runs_names_its_cpp_line(
    mod: rs.cpp.CppModule, loops: str, mistake: Call, cls: type[RegsimError], patterns: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with rs.configure(loops=loops, max_loop_iterations=100):  # type: ignore[arg-type]
        _raises(mod, Buffers.make(), mistake, cls, patterns)


@pytest.mark.parametrize(("depth", "batchable"), [(21, False), (10, True)])
def test_loops_nested_past_pythons_limit_are_a_cpp_error_at_the_inner_loop(depth: int, batchable: bool) -> None:
    """21 nested loops (Python allows 20 nested blocks), or 10 loops regsim rewrites to run batched (2 blocks each)."""
    body = "MicroAPI::StoreAlign(dst, r, m);" if batchable else "dst[0] = 1;"
    for d in reversed(range(depth)):
        body = f"for (uint16_t i{d} = 0; i{d} < 2; i{d}++) {{  // @loop{d}\n{body}\n}}"
    path = cpp_source(
        "deep.asc",
        "using namespace AscendC;\n__simd_vf__ inline void DeepVF(__ubuf__ float* dst)\n{\n"
        "MicroAPI::RegTensor<float> r;\nMicroAPI::MaskReg m = MicroAPI::CreateMask<float>();\n"
        f"MicroAPI::Duplicate(r, 1.0f, m);\n{body}\n}}\n",
    )
    lines = path.read_text().splitlines()
    loop_lines = [i + 1 for i, t in enumerate(lines) if "// @loop" in t]
    with pytest.raises(CppError) as info:
        rs.cpp.load(path).instantiate("DeepVF")
    text = str(info.value)
    m = re.match(r".*deep\.asc:(\d+) \(in DeepVF\): the loops nest too deeply for Python, which allows 20 nested blocks", text)
    assert m is not None, text
    assert int(m[1]) in loop_lines[depth // 2 :]  # an inner loop's line
    assert "move the inner loops into a __simd_callee__ function" in text


def test_the_mistakes_cover_at_least_30_cases() -> None:
    assert len(REFUSED) + len(RUNTIME) >= 30
    assert len({c[0] for c in REFUSED + RUNTIME}) == len(REFUSED) + len(RUNTIME)
