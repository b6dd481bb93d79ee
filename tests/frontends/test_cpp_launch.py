"""Host code launching a kernel with `kernel<<<blockDim, l2ctrl, stream>>>(args...)`: `mod.host(name)` runs the host
function, each launch as `rs.launch(mod.kernel(kernel), blockDim, *args)`, against an oracle of what the kernel writes
and against the kernel launched from Python, in each loop mode."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import regsim as rs
from regsim.cpp import CppError

LAUNCH = Path(__file__).resolve().parents[1] / "cpp" / "launch.asc"


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    return rs.cpp.load(LAUNCH)


def _filled(block_dim: int, k: int) -> np.ndarray:
    """What fill_kernel<<<block_dim>>>(out, k) leaves in a zeroed out: block i writes i * k + 1 at element 16 * i."""
    want = np.zeros(64, np.int32)
    for i in range(block_dim):
        want[16 * i] = i * k + 1
    return want


LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])


@LOOPS
def test_a_launch_in_host_code_runs_the_kernel(mod: rs.cpp.CppModule, loops: str) -> None:
    assert all("file not found" in d for d in mod.host_diagnostics)  # (the launches parse)
    out, python = np.zeros(64, np.int32), np.zeros(64, np.int32)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.host("fill_host")(4, None, out.view(np.uint8), 3)
        rs.launch(mod.kernel("fill_kernel"), 4, python.view(np.uint8), 6)
    np.testing.assert_array_equal(out, _filled(4, 6))
    np.testing.assert_array_equal(out, python)
    assert mod.host("fill_host") is mod.host("fill_host")  # (lowered once)


@LOOPS
def test_launches_in_a_loop(mod: rs.cpp.CppModule, loops: str) -> None:
    out, out2 = np.zeros(64, np.int32), np.zeros(64, np.int32)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.host("fill_twice")(4, None, out.view(np.uint8), out2.view(np.uint8))
    np.testing.assert_array_equal(out, _filled(4, 3))
    np.testing.assert_array_equal(out2, _filled(3, 4))


def test_what_host_code_cannot_launch(mod: rs.cpp.CppModule) -> None:
    with pytest.raises(CppError, match=r"launch\.asc:\d+: a <<<\.\.\.>>> launch of anything but a __global__ kernel"):
        mod.host("launch_a_host_function")
    with pytest.raises(CppError, match=r"no host function 'fill_kernel'; the file defines: fill_host, fill_twice"):
        mod.host("fill_kernel")
