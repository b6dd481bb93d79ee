"""regsim installed as README says (`pip install -e .`) works from any folder: `mypy --strict`
type-checks a user's kernel outside the clone, and a script run from the clone's parent folder
imports the package, not the clone folder.

The install goes into a fresh virtual environment that sees this interpreter's packages
(`--system-site-packages`: numpy, mypy … are not installed again), so only regsim's own
editable install is new; pip builds it with the project's build backend, as a user's pip does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
import regsim as rs
from regsim import Reg


@rs.simd_vf
def add_c(dst: rs.UbPtr[rs.uint32], a: rs.UbPtr[rs.uint32], b: rs.UbPtr[rs.uint32]) -> None:
    x = Reg.RegTensor(rs.uint32)
    y = Reg.RegTensor(rs.uint32)
    carry = Reg.CreateMask(rs.uint8)
    mask = Reg.CreateMask(rs.uint32)
    Reg.LoadAlign(x, a)
    Reg.LoadAlign(y, b)
    Reg.AddC(carry, x, x, y, carry, mask)
    Reg.StoreAlign(dst, x, mask)
"""

#: the line of BAD that feeds a float register to AddC (AddC takes int32/uint32 only)
BAD_LINE = 7
BAD = """\
import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    f = Reg.RegTensor(rs.float32)
    carry = Reg.CreateMask(rs.uint8)
    Reg.AddC(carry, f, f, f, carry, carry)
"""


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a fresh venv into which README's `pip install -e .` installed regsim."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, system_site_packages=True, with_pip=False)
    exe = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # The venv has no pip of its own: this interpreter's pip installs into it.
    install = [sys.executable, "-m", "pip", "--python", str(exe), "install", "-q", "--no-deps", "-e", str(ROOT)]
    done = subprocess.run(install, capture_output=True, text=True, cwd=env_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    return exe


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env)


def test_mypy_strict_checks_a_kernel_outside_the_clone(python: Path, tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "bad.py").write_text(BAD)
    # the tutorial's kernel file, which docs/tutorial.md says `mypy --strict` accepts
    tutorial = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    (my_add,) = re.findall(r"```python\n(# my_add\.py\n.*?)```", tutorial, re.S)
    (tmp_path / "my_add.py").write_text(my_add)
    mypy = [str(python), "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", str(tmp_path / ".cache")]
    good = _run([*mypy, "good.py", "my_add.py"], tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = _run([*mypy, "bad.py"], tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    errors = [line for line in bad.stdout.splitlines() if ": error: " in line]
    assert errors and all(line.startswith(f"bad.py:{BAD_LINE}: ") for line in errors), bad.stdout


def test_a_script_runs_from_the_clones_parent_folder(python: Path, tmp_path: Path) -> None:
    """The clone folder, seen from its parent, is a folder named `regsim` without an
    `__init__.py`: it must not shadow the installed package."""
    (tmp_path / "regsim").symlink_to(ROOT, target_is_directory=True)
    script = textwrap.dedent("""\
        import regsim as rs
        from regsim import Reg
        print(rs.__file__, Reg.RegTensor(rs.int32).dtype.name)
        """)
    (tmp_path / "script.py").write_text(script)
    done = _run([str(python), "script.py"], tmp_path)
    assert done.returncode == 0, done.stderr
    where, name = done.stdout.split()
    assert Path(where).resolve() == ROOT / "regsim" / "__init__.py" and name == "int32"
