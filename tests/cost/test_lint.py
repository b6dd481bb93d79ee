"""`rs.lint` and `regsim lint`: each rule finds its failing VF and nothing in its passing twin (Python here, C++
through the front end's parse below), each finding citing a page; register pressure counted by hand."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from cpp_source_support import cpp_source

import regsim as rs
from regsim import Reg
from regsim._src.cost.registers import pressure
from regsim._src.cost.vfcode import python_vfs
from regsim._src.frontends.cli import main

HEAD = "import regsim as rs\nfrom regsim import Reg\n\n\n"

#: rule -> (a VF body that breaks it, its twin that does not); `n`, `m` ints, `x`, `y` UbPtr[float32], `t` a struct
PY_RULES = {
    "vf-control": (
        "k = 0\nwhile k < n:\n    k += 1",
        "for k in range(n):\n    pass",
    ),
    "loop-depth": (
        "for a in range(n):\n for b in range(n):\n  for c in range(n):\n   for d in range(n):\n    for e in range(n):\n     pass",
        "for a in range(n):\n for b in range(n):\n  for c in range(n):\n   for d in range(n):\n    pass",
    ),
    "loop-form": ("for i in range(1, n):\n    pass", "for i in range(0, n, 1):\n    pass"),
    "loop-branch": (
        "r = Reg.RegTensor(rs.float32)\nfor i in range(n):\n    if i == m:\n        Reg.LoadAlign(r, x + i * 64)",
        "r = Reg.RegTensor(rs.float32)\nif m:\n    for i in range(n):\n        Reg.LoadAlign(r, x + i * 64)",
    ),
    "loop-bound": ("for i in range(n):\n    n = n - 1", "for i in range(n):\n    k = n - 1"),
    "loop-member": ("for i in range(n):\n    k = t.src_k", "k = t.src_k\nfor i in range(n):\n    j = k"),
    "loop-invariant": (
        "r = Reg.RegTensor(rs.float32)\nmask = Reg.CreateMask(rs.float32)\nfor i in range(n):\n"
        "    Reg.Duplicate(r, 1.0, mask)\n    Reg.StoreAlign(y + i * 64, r, mask)",
        "r = Reg.RegTensor(rs.float32)\nmask = Reg.CreateMask(rs.float32)\nReg.Duplicate(r, 1.0, mask)\n"
        "for i in range(n):\n    Reg.StoreAlign(y + i * 64, r, mask)",
    ),
}


def _vf(body: str) -> str:
    return (
        HEAD
        + "@rs.simd_vf\ndef vf(x: rs.UbPtr[rs.float32], y: rs.UbPtr[rs.float32], n: int, m: int, t: Tiling) -> None:\n"
        + textwrap.indent(body, "    ")
        + "\n"
    )


@pytest.mark.parametrize("rule", sorted(PY_RULES))
def test_python_rule(rule: str, tmp_path: Path) -> None:
    bad, good = PY_RULES[rule]
    (tmp_path / "bad.py").write_text(_vf(bad))
    (tmp_path / "good.py").write_text(_vf(good))
    found = rs.lint(tmp_path / "bad.py")
    assert [f.rule for f in found] == [rule], found
    assert found[0].page and found[0].file.endswith("bad.py") and found[0].line > 5
    assert rs.lint(tmp_path / "good.py") == []


def _chain(width: int) -> str:
    """`width` registers loaded, then summed into the first: all `width` live at the first Add."""
    lines = [f"r{k} = Reg.RegTensor(rs.float32)" for k in range(width)] + ["mask = Reg.CreateMask(rs.float32)"]
    lines += [f"Reg.LoadAlign(r{k}, x + {k * 64})" for k in range(width)]
    lines += [f"Reg.Add(r0, r0, r{k}, mask)" for k in range(1, width)]
    return "\n".join([*lines, "Reg.StoreAlign(y, r0, mask)"])


@pytest.mark.parametrize("width", [32, 33])
def test_register_pressure_rule(width: int, tmp_path: Path) -> None:
    """32 RegTensors live at once fit the 950's file; 33 do not, the finding at the line where all are live."""
    (tmp_path / "k.py").write_text(_vf(_chain(width)))
    found = rs.lint(tmp_path / "k.py")
    code = python_vfs(__import__("ast").parse((tmp_path / "k.py").read_text()), "k.py")[0]
    peak = pressure(code).peaks["RegTensor"]
    assert peak.peak == width and peak.limit == 32
    assert set(peak.live) == {f"r{k}" for k in range(width)}
    first_add = 6 + 1 + 2 * width + 1  # the header lines, the declarations, the mask, the loads, then the first Add
    assert peak.lines == (f"k.py:{first_add - 1}", f"k.py:{first_add}")  # the last load, and the first Add
    assert [f.rule for f in found] == (["register-pressure"] if width > 32 else [])


def test_pressure_in_loops_and_two_register_traits(tmp_path: Path) -> None:
    """A value read in the next iteration is live through the loop; a RegTraitNumTwo register counts twice."""
    body = (
        "acc = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)\nv = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)\n"
        "mask = Reg.CreateMask(rs.uint64)\nReg.Duplicate(acc, 0, mask)\nfor i in range(n):\n"
        "    Reg.LoadAlign(v, x + i * 64)\n    Reg.Add(acc, acc, v, mask)\nReg.StoreAlign(y, acc, mask)"
    )
    (tmp_path / "k.py").write_text(_vf(body))
    code = python_vfs(__import__("ast").parse((tmp_path / "k.py").read_text()), "k.py")[0]
    p = pressure(code)
    counts = dict(p.points)
    assert counts[12]["RegTensor"] == 4  # the load: acc (carried round the loop) and v, two registers each
    assert counts[10]["RegTensor"] == 2  # Duplicate: acc only
    assert p.peaks["MaskReg"].peak == 1 and p.peaks["RegTensor"].lines == ("k.py:12", "k.py:13")


def test_profile_reports_registers() -> None:
    from vf_examples import abs_vf

    ub = rs.UnifiedBuffer()
    x, y = ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 256)
    x.set(np.ones(256, np.float32))
    p = rs.profile(abs_vf.abs_vf, x.GetPhyAddr(), y.GetPhyAddr(), 256, 4, 64)
    (vf,) = p.registers
    assert (vf.peaks["RegTensor"].peak, vf.peaks["MaskReg"].peak) == (1, 1)  # x_reg dies into y_reg; the mask
    assert "registers: abs_vf" in p.report()


def test_lint_function_and_bad_input() -> None:
    from vf_examples import abs_vf, duplicate_vf

    assert rs.lint(abs_vf.abs_vf) == []
    assert [f.rule for f in rs.lint(duplicate_vf.duplicate_scalar_vf)] == ["loop-invariant"]
    with pytest.raises(rs.errors.ParameterError, match="lint"):
        rs.lint(len)
    with pytest.raises(rs.errors.ParameterError, match=r"no_such\.py"):
        rs.lint("no_such.py")


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.py").write_text(_vf(PY_RULES["loop-form"][0]))
    (tmp_path / "good.py").write_text(_vf(PY_RULES["loop-form"][1]))
    assert main(["lint", str(tmp_path / "bad.py")]) == 1
    assert "[loop-form]" in capsys.readouterr().out
    assert main(["lint", str(tmp_path / "good.py")]) == 0
    assert "0 findings" in capsys.readouterr().out


# --- C++ ------------------------------------------------------------------------------------------------------
CPP_RULES = {
    "vf-control": ("uint16_t k = 0;\nwhile (k < n) { k++; }", "for (uint16_t k = 0; k < n; k++) {}"),
    "loop-form": ("for (uint16_t i = 2; i < n; i += 2) {}", "uint16_t i;\nfor (i = 0; i < n; i += 1) {}"),
    "loop-var-type": ("for (uint32_t i = 0; i < n; ++i) {}", "for (uint16_t i = 0; i < n; ++i) {}"),
    "loop-branch": (
        "for (uint16_t i = 0; i < n; ++i) { uint16_t k = i > 2 ? 1 : 0; }",
        "uint16_t k = n > 2 ? 1 : 0;\nfor (uint16_t i = 0; i < k; ++i) {}",
    ),
    "loop-bound": (
        "for (uint16_t i = 0; i < n; ++i) { n = n - 1; }",
        "for (uint16_t i = 0; i < n; ++i) { m = n - 1; y[n] = 1.0f; }",  # (an element indexed by n: n unchanged)
    ),
    "loop-invariant": (
        "AscendC::Reg::RegTensor<float> r;\nAscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<float>();\n"
        "for (uint16_t i = 0; i < n; ++i) {\n  AscendC::Reg::Duplicate(r, 1.0f, mask);\n"
        "  AscendC::Reg::StoreAlign(y + i * 64, r, mask);\n}",
        "AscendC::Reg::RegTensor<float> r;\nAscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<float>();\n"
        "AscendC::Reg::Duplicate(r, 1.0f, mask);\n"
        "for (uint16_t i = 0; i < n; ++i) {\n  AscendC::Reg::StoreAlign(y + i * 64, r, mask);\n}",
    ),
}


@pytest.fixture(scope="module")
def cpp_findings() -> dict[str, list[rs.Finding]]:
    """One C++ file holding every rule's failing VF (Bad_<rule>) and passing VF (Good_<rule>), parsed once."""
    pytest.importorskip("clang.cindex")
    parts = []
    for rule, (bad, good) in CPP_RULES.items():
        for which, body in (("Bad", bad), ("Good", good)):
            name = f"{which}_{rule.replace('-', '_')}"
            head = f"__simd_vf__ inline void {name}(__ubuf__ float* y, uint16_t n, uint16_t m)"
            parts.append(f"{head}\n{{\n{textwrap.indent(body, '  ')}\n}}\n")
    parts.append("__simd_vf__ inline void Bad_vf_reference_param(__ubuf__ float* y, uint16_t& n) {}\n")
    # (a __simd_callee__ helper takes its registers by reference)
    parts.append("__simd_callee__ inline void Good_vf_reference_param(AscendC::Reg::RegTensor<float>& r) {}\n")
    parts.append(
        "__aicore__ inline void Scope(uint16_t n)\n{\n  __VEC_SCOPE__ {\n    for (uint32_t i = 0; i < n; ++i) {}\n  }\n}\n"
    )
    out: dict[str, list[rs.Finding]] = {}
    for f in rs.lint(cpp_source("rules.asc", "\n".join(parts))):
        out.setdefault(f.message.split(":")[0], []).append(f)
    return out


@pytest.mark.parametrize("rule", sorted(CPP_RULES))
def test_cpp_rule(rule: str, cpp_findings: dict[str, list[rs.Finding]]) -> None:
    name = rule.replace("-", "_")
    assert [f.rule for f in cpp_findings.get(f"Bad_{name}", [])] == [rule]
    assert cpp_findings.get(f"Good_{name}", []) == []


def test_cpp_reference_param(cpp_findings: dict[str, list[rs.Finding]]) -> None:
    assert [f.rule for f in cpp_findings["Bad_vf_reference_param"]] == ["vf-reference-param"]
    assert "Good_vf_reference_param" not in cpp_findings


def test_a_helper_or_an_address_does_not_assign_the_names_it_reads(tmp_path: Path) -> None:
    """A helper given a register and a loop bound, or an address expression naming the bound, changes no bound."""
    body = (
        "r = Reg.RegTensor(rs.float32)\nmask = Reg.CreateMask(rs.float32)\nfor i in range(n):\n"
        "    helper(r, n)\n    Reg.StoreAlign(y + n + i * 64, r, mask)"
    )
    (tmp_path / "k.py").write_text(_vf(body))
    assert rs.lint(tmp_path / "k.py") == []


def test_pressure_of_a_helper_and_tuple_declarations(tmp_path: Path) -> None:
    """A helper's register parameters are live on entry and on return; `a, b = Reg.RegTensor(..), ..` declares both."""
    (tmp_path / "k.py").write_text(
        HEAD
        + "@rs.simd_callee\ndef helper(y: Reg.RegTensor[rs.float32], x: Reg.RegTensor[rs.float32], m: Reg.MaskReg) -> None:\n"
        "    a, b = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)\n"
        "    Reg.Mul(a, x, x, m)\n    Reg.Add(y, a, x, m)\n"
    )
    code = python_vfs(__import__("ast").parse((tmp_path / "k.py").read_text()), "k.py")[0]
    assert {r.name: r.kind for r in code.registers.values()} == {"y": "RegTensor", "x": "RegTensor", "m": "MaskReg"} | {
        "a": "RegTensor",
        "b": "RegTensor",
    }
    counts = dict(pressure(code).points)
    assert counts[7]["RegTensor"] == 1  # the declarations: x, live on entry (y's value is overwritten before any read)
    assert counts[8]["RegTensor"] == 2  # Mul: x, and a written
    assert counts[9]["RegTensor"] == 2 and counts[9]["MaskReg"] == 1  # Add: a and x in, y out (live on return)


def test_cpp_vec_scope(cpp_findings: dict[str, list[rs.Finding]]) -> None:
    """A `__VEC_SCOPE__` block of an `__aicore__` function is linted as a VF."""
    (f,) = cpp_findings["__VEC_SCOPE__ in Scope"]
    assert f.rule == "loop-var-type" and f.file.endswith("rules.asc")


def test_python_vec_scope(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(
        HEAD + "def host(n: int) -> None:\n    with rs.VEC_SCOPE():\n        while n:\n            n -= 1\n"
    )
    assert [(f.rule, f.line) for f in rs.lint(tmp_path / "k.py")] == [("vf-control", 7)]


@rs.simd_vf
def _twice(x: rs.UbPtr[rs.float32], n: int) -> None:
    r = Reg.RegTensor(rs.float32)
    mask = Reg.CreateMask(rs.float32)
    for i in range(n):
        Reg.LoadAlign(r, x + i * 64)
        Reg.Add(r, r, r, mask)
        Reg.StoreAlign(x + i * 64, r, mask)


@rs.simd_vf
def _never_run(x: rs.UbPtr[rs.float32]) -> None:
    Reg.CreateMask(rs.float32)


@rs.kernel
def _kernel(x: rs.GmPtr[rs.uint8]) -> None:
    t = rs.AscendC.LocalTensor(rs.float32, rs.AscendC.TPosition.VECCALC, 0, 128)
    t.set(np.ones(128, np.float32))
    rs.asc_vf_call(_twice, t.GetPhyAddr(), 2)


def test_profile_of_a_kernel_reports_the_registers_of_the_vfs_it_ran(loops: str) -> None:
    p = rs.profile(_kernel, np.zeros(32, np.uint8), block_dim=1)
    (vf,) = p.registers
    assert vf.vf == "_twice" and vf.peaks["RegTensor"].peak == 1 and vf.peaks["MaskReg"].peak == 1
    assert vf.peaks["RegTensor"].live == ("r",)
