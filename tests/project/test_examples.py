"""The bundled example kernels (vf_examples) and the `regsim` console command (regsim._src.frontends.cli)."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import vf_examples
from regsim import Reg
from regsim._src.frontends import cli

EXAMPLES_DIR = Path(vf_examples.__file__).parent
NAMES = cli.example_names()


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"vf_examples.{name}")


def test_the_three_examples_are_discovered() -> None:
    assert {"add_carry_vf", "u64_add_vf", "u256_add_vf"} <= set(NAMES)


@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize("name", NAMES)
def test_example_passes(name: str, seed: int) -> None:
    result = cli.run_module(_module(name), seed)
    assert result.ok, "\n".join(result.lines())
    assert result.outputs >= 2 and result.elements > 0


@pytest.mark.parametrize("name", NAMES)
def test_example_follows_the_contract(name: str) -> None:
    outputs = _module(name).run(0)
    assert isinstance(outputs, dict) and outputs
    for key, (got, expected) in outputs.items():
        assert isinstance(key, str)
        assert isinstance(got, np.ndarray) and isinstance(expected, np.ndarray)
        assert got.dtype == expected.dtype and got.shape == expected.shape


@pytest.mark.parametrize("name", NAMES)
def test_main_run_by_path_exits_0(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", str(EXAMPLES_DIR / f"{name}.py")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"PASS {name}  (")


def test_main_examples_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["examples"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines[:-1]] == NAMES
    assert all(line.startswith("PASS ") and "outputs, " in line for line in lines[:-1])
    assert lines[-1] == f"{len(NAMES)} passed, 0 failed"


def test_add_carry_example_checks_the_carry_layout() -> None:
    outputs = _module("add_carry_vf").run(0)
    carry, expected = outputs["dst1 (carry masks)"]
    assert np.array_equal(carry, expected)
    # lsb layout: only bit 4l of each lane's nibble is ever set; the tail lanes set none
    assert not (carry & np.uint32(0xEEEEEEEE)).any()
    assert carry.any()
    assert "dst0[count:] (untouched)" in outputs


# --- mismatches are reported, with a diff, and exit 1 ----------------------------------------
BROKEN = """
import numpy as np

def run(seed: int = 0):
    got = np.arange(10, dtype=np.uint32)
    expected = got.copy()
    expected[5] = 0xDEADBEEF
    expected[7] = 0
    return {"out": (got, expected), "fine": (got, got.copy())}
"""


def test_broken_example_exits_1_with_a_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken_vf.py"
    path.write_text(textwrap.dedent(BROKEN))
    assert cli.main(["run", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "FAIL broken_vf  (2 outputs, 20 elements)"
    assert "out: 2 of 10 elements differ" in out
    assert "first at index 5" in out
    assert "[5] got 0x00000005 expected 0xdeadbeef" in out
    assert "[7] got 0x00000007 expected 0x00000000" in out
    assert "fine" not in out  # only the differing outputs are listed


def test_a_wrong_reference_in_a_bundled_example_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    mod = _module("add_carry_vf")
    real = mod.reference

    def wrong(*args: Any, **kwargs: Any) -> Any:
        sums, words = real(*args, **kwargs)
        sums = sums.copy()
        sums[3] ^= np.uint32(1 << 31)
        return sums, words

    monkeypatch.setattr(mod, "reference", wrong)
    result = cli.run_module(mod)
    assert not result.ok
    [mismatch] = result.mismatches
    assert mismatch.name == "dst0 (sums)"
    assert mismatch.first[0][0] == 3
    assert int(mismatch.first[0][1], 16) ^ int(mismatch.first[0][2], 16) == 1 << 31


def test_a_broken_carry_chain_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The references do not go through regsim: an AddC that drops its carry-in makes u256 fail."""

    def add_c_without_carry_in(carry: Any, dst: Any, src0: Any, src1: Any, carry_src: Any, mask: Any) -> None:
        Reg.Add(carry, dst, src0, src1, mask)

    monkeypatch.setattr(Reg, "AddC", add_c_without_carry_in)
    result = cli.run_module(_module("u256_add_vf"))
    assert not result.ok
    assert {m.name for m in result.mismatches} >= {"sum limbs (LIMBS, count)"}
    text = "\n".join(result.lines())
    assert "[300 = 1, 0] got 0xffffffff expected 0x00000000" in text  # a 2-D output shows the index per axis


def test_examples_with_a_failing_module_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pkg = tmp_path / "some_examples"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "good.py").write_text("import numpy as np\ndef run(seed=0):\n    a = np.ones(3)\n    return {'a': (a, a.copy())}\n")
    (pkg / "bad.py").write_text(textwrap.dedent(BROKEN))
    (pkg / "raises.py").write_text("def run(seed=0):\n    raise RuntimeError('boom')\n")
    (pkg / "_helper.py").write_text("raise AssertionError('private modules are not examples')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cli.main(["examples", "--package", "some_examples"]) == 1
    out = capsys.readouterr().out
    assert "FAIL bad  (2 outputs, 20 elements)" in out
    assert "PASS good  (1 output, 3 elements)" in out
    assert "ERROR raises" in out and "RuntimeError: boom" in out
    assert out.splitlines()[-1] == "1 passed, 2 failed: bad, raises"


# --- the comparison is bitwise ---------------------------------------------------------------
def test_compare_is_bitwise_for_floats() -> None:
    nan = np.array([np.nan, 1.0], np.float32)
    assert cli.compare("x", nan, nan.copy()) == (2, None)
    other_nan = nan.copy()
    other_nan.view(np.uint32)[0] |= 1  # another NaN payload
    _, mismatch = cli.compare("x", nan, other_nan)
    assert mismatch is not None and mismatch.first[0] == (0, "0x7fc00000", "0x7fc00001")
    _, zeros = cli.compare("z", np.array([0.0]), np.array([-0.0]))
    assert zeros is not None and zeros.first[0] == (0, "0x0000000000000000", "0x8000000000000000")


def test_compare_rejects_dtype_and_shape_differences() -> None:
    a = np.zeros(4, np.uint32)
    _, m = cli.compare("a", a, a.astype(np.int32))
    assert m is not None and "dtype differs" in m.reason
    _, m = cli.compare("a", a, a.reshape(2, 2))
    assert m is not None and "shape differs" in m.reason
    _, m = cli.compare("a", a, [0, 0, 0, 0])
    assert m is not None and "numpy arrays" in m.reason


def test_bad_return_value_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "not_a_dict.py"
    path.write_text("def run(seed=0):\n    return 42\n")
    assert cli.main(["run", str(path)]) == 1
    assert capsys.readouterr().out.startswith("ERROR not_a_dict")


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["run", "nope.py"], "regsim run: error: nope.py: no such file"),
        (["run", "."], "regsim run: error: .: not a file"),
        (["run", "--seed", "-1", "x.py"], "regsim run: error: argument --seed: '-1' is not a non-negative int"),
        (["run", "--seed", "one", "x.py"], "regsim run: error: argument --seed: 'one' is not a non-negative int"),
        (["examples", "--seed", "-5"], "regsim examples: error: argument --seed: '-5' is not a non-negative int"),
        (["examples", "--package", "no_such_pkg"], "regsim examples: error: cannot import the examples package 'no_such_pkg': "),
        (["run"], "regsim run: error: the following arguments are required: path"),
        ([], "regsim: error: the following arguments are required: COMMAND"),
        (["frobnicate"], "regsim: error: argument COMMAND: invalid choice: 'frobnicate'"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    argv: list[str], line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(line) and captured.err.count("\n") == 1, captured.err


def test_a_missing_file_among_several_runs_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", str(EXAMPLES_DIR / "add_carry_vf.py"), str(tmp_path / "nope.py")]) == 2
    assert capsys.readouterr().out == ""


def test_a_kernels_own_exception_prints_its_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "raises.py"
    path.write_text("def helper():\n    raise RuntimeError('boom')\n\ndef run(seed=0):\n    helper()\n")
    assert cli.main(["run", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "ERROR raises" and "Traceback (most recent call last):" in out[1]
    assert any("in helper" in line for line in out) and out[-1].strip() == "RuntimeError: boom"


def test_run_takes_several_files_and_sums_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent(BROKEN))
    assert cli.main(["run", str(EXAMPLES_DIR / "add_carry_vf.py"), str(bad), str(EXAMPLES_DIR / "u64_add_vf.py")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("PASS add_carry_vf") and any(line.startswith("PASS u64_add_vf") for line in out)
    assert "FAIL bad  (2 outputs, 20 elements)" in out
    assert out[-1] == "2 passed, 1 failed: bad"
    assert cli.main(["run", str(EXAMPLES_DIR / "add_carry_vf.py"), str(EXAMPLES_DIR / "u64_add_vf.py")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 passed, 0 failed"


def test_a_kernel_imports_a_module_beside_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "kernels"
    folder.mkdir()
    (folder / "sibling_reference_for_regsim_test.py").write_text("import numpy as np\nEXPECTED = np.arange(3)\n")
    (folder / "uses_sibling.py").write_text(
        "import numpy as np\nimport sibling_reference_for_regsim_test as ref\n\n"
        "def run(seed=0):\n    return {'a': (np.arange(3), ref.EXPECTED)}\n"
    )
    before = list(sys.path)
    try:
        assert cli.main(["run", str(folder / "uses_sibling.py")]) == 0
        assert capsys.readouterr().out.startswith("PASS uses_sibling")
        assert sys.path == before  # the folder is on sys.path only while its file runs
    finally:
        sys.modules.pop("sibling_reference_for_regsim_test", None)


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    assert "usage: regsim" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("regsim") is None, reason="the regsim console script is not installed")
def test_console_script_from_another_directory(tmp_path: Path) -> None:
    done = subprocess.run(["regsim", "examples"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"{len(NAMES)} passed, 0 failed"


@pytest.mark.parametrize("module", ["regsim", "regsim._src.frontends.cli"])
def test_python_dash_m(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, "run", str(EXAMPLES_DIR / "add_carry_vf.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("PASS add_carry_vf")
