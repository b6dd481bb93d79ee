"""`regsim run FILE.py --kernel NAME --block-dim N --args ...`: a kernel launched on host arrays from .npy files or
generated shapes, its arrays summarised and saved; mistakes on the command line exit 2, a kernel's error 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vf_examples
from regsim._src.frontends import cli

ADD = str(Path(vf_examples.__file__).parent / "add_tpipe_tque.py")


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]])
def test_a_kernel_runs_on_npy_files_and_generated_arrays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], workers: list[str]
) -> None:
    x = np.random.default_rng(0).uniform(-1, 1, 16384).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    args = ["--args", str(tmp_path / "x.npy"), "float32[8,2048]=iota", "float32[16384]=0", "16384"]
    status = cli.main(
        ["run", ADD, "--kernel", "add_custom", "--block-dim", "8", *args, "--save", str(tmp_path / "out"), *workers]
    )
    assert status == 0
    said = capsys.readouterr().out
    assert said.startswith("OK kernel add_custom on 8 blocks") and "  z: float32[16384]" in said
    z = np.load(tmp_path / "out" / "z.npy")
    assert np.array_equal(z, x + np.arange(16384, dtype=np.float32))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--kernel", "nope", "--args", "1"], "has no @rs.kernel nope; its kernels: add_custom"),
        (["--kernel", "add_custom", "--args", "1"], "--args gives 1 values, kernel add_custom takes 4 (x, y, z, total_length)"),
        (["--kernel", "add_custom", "--args", "float33[4]", "none", "none", "1"], "float33 is not a regsim dtype"),
        (["--kernel", "add_custom", "--args", "x[", "none", "none", "1"], "write DTYPE[N]"),
        (
            ["--kernel", "add_custom", "--block-dim", "0", "--args", "1", "1", "1", "1"],
            "--block-dim and --workers take a positive",
        ),
    ],
)
def test_command_line_mistakes_exit_2(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", ADD, *args]) == 2
    assert says in capsys.readouterr().err


def test_a_kernel_error_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--args", "float32[16384]", "float32[16384]", "float32[100]", "16384"]
    assert cli.main(["run", ADD, "--kernel", "add_custom", "--block-dim", "8", *args]) == 1
    said = capsys.readouterr().out
    assert "add_tpipe_tque.py:" in said and "OutOfBoundsError: GlobalTensor.SetGlobalBuffer" in said
