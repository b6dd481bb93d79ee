"""Host code launching a kernel with `kernel<<<blockDim, l2ctrl, stream>>>(args...)`: `mod.host(name)` runs the host
function, each launch as `rs.launch(mod.kernel(kernel), blockDim, *args)`, against an oracle of what the kernel writes
and against the kernel launched from Python, in both loop modes."""

from __future__ import annotations

from collections.abc import Callable
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


def _both_modes(run: Callable[[], list[np.ndarray]]) -> list[np.ndarray]:
    rs.configure(loops="sequential")
    try:
        seq = run()
    finally:
        rs.configure(loops="auto")
    out = run()
    assert [a.tobytes() for a in out] == [a.tobytes() for a in seq]
    return out


def test_a_launch_in_host_code_runs_the_kernel(mod: rs.cpp.CppModule) -> None:
    assert all("file not found" in d for d in mod.host_diagnostics)  # (the launches parse)

    def host() -> list[np.ndarray]:
        out = np.zeros(64, np.int32)
        mod.host("fill_host")(4, None, out.view(np.uint8), 3)
        return [out]

    def python() -> list[np.ndarray]:
        out = np.zeros(64, np.int32)
        rs.launch(mod.kernel("fill_kernel"), 4, out.view(np.uint8), 6)
        return [out]

    (got,) = _both_modes(host)
    np.testing.assert_array_equal(got, _filled(4, 6))
    np.testing.assert_array_equal(got, python()[0])
    assert mod.host("fill_host") is mod.host("fill_host")  # (lowered once)


def test_launches_in_a_loop(mod: rs.cpp.CppModule) -> None:
    def host() -> list[np.ndarray]:
        out, out2 = np.zeros(64, np.int32), np.zeros(64, np.int32)
        mod.host("fill_twice")(4, None, out.view(np.uint8), out2.view(np.uint8))
        return [out, out2]

    got, got2 = _both_modes(host)
    np.testing.assert_array_equal(got, _filled(4, 3))
    np.testing.assert_array_equal(got2, _filled(3, 4))


def test_what_host_code_cannot_launch(mod: rs.cpp.CppModule) -> None:
    with pytest.raises(CppError, match=r"launch\.asc:\d+: a <<<\.\.\.>>> launch of anything but a __global__ kernel"):
        mod.host("launch_a_host_function")
    with pytest.raises(CppError, match=r"no host function 'fill_kernel'; the file defines: fill_host, fill_twice"):
        mod.host("fill_kernel")
