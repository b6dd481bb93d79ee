"""A batched loop's plainest store (every lane, rows a register apart) into a UB with never-written bytes names its kernel
line as the in-order store does: a later read of the never-written bytes beside it says which call, line and iteration
wrote them, the same message in both loop modes, whether the VF calls the op itself or a helper it calls does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim.errors import UninitializedReadError

LANES = 64  # float32 lanes a register


@rs.simd_callee
def _store(dst: rs.UbPtr[rs.float32], r: Reg.RegTensor[rs.float32], m: Reg.MaskReg) -> None:
    Reg.StoreAlign(dst, r, m)  # @helper


@rs.simd_vf
def copy_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], n: int) -> None:
    r = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    for i in range(n):
        Reg.LoadAlign(r, src + i * LANES)
        Reg.StoreAlign(dst + i * LANES, r, m)  # @direct


@rs.simd_vf
def copy_by_helper_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], n: int) -> None:
    r = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    for i in range(n):
        Reg.LoadAlign(r, src + i * LANES)
        _store(dst + i * LANES, r, m)


@rs.simd_vf
def read_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32]) -> None:
    r = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    Reg.LoadAlign(r, src)
    Reg.StoreAlign(dst, r, m)


def _line(mark: str) -> int:
    """The line of this file ending in the comment `# @mark`."""
    hits = [k + 1 for k, text in enumerate(Path(__file__).read_text().splitlines()) if text.rstrip().endswith(f"# @{mark}")]
    assert len(hits) == 1
    return hits[0]


@pytest.mark.parametrize(("vf", "mark", "name"), [(copy_vf, "direct", "copy_vf"), (copy_by_helper_vf, "helper", "_store")])
def test_the_store_is_noted_at_its_kernel_line_in_both_modes(vf: object, mark: str, name: str) -> None:
    n = 3
    messages = {}
    for mode, config in (("sequential", {"loops": "sequential"}), ("batched", {"batch_min_iterations": 2})):
        with rs.configure(**config):  # type: ignore[arg-type]
            ub = rs.UnifiedBuffer(64 * 1024)
            src, dst, out = ub.alloc(rs.float32, n * LANES), ub.alloc(rs.float32, (n + 1) * LANES), ub.alloc(rs.float32, LANES)
            src.set(np.arange(n * LANES, dtype=np.float32))
            how = rs.explain(vf, dst.GetPhyAddr(), src.GetPhyAddr(), n)
            assert (": batched" in how) == (mode == "batched"), how
            with pytest.raises(UninitializedReadError) as e:
                read_vf(out.GetPhyAddr(), dst.GetPhyAddr() + n * LANES)
        messages[mode] = str(e.value)
        written = dst.addr + n * LANES * 4  # (the never-written register right after the last one stored)
        assert f"UB bytes [{dst.addr}, {written}) before them were last written by StoreAlign at " in messages[mode]
        assert f"test_batched_store_provenance.py:{_line(mark)} (in {name}), iteration {n - 1}" in messages[mode]
    assert messages["sequential"] == messages["batched"]
