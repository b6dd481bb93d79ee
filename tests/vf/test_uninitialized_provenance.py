"""A read of never-written UB bytes says which bytes were never written and who wrote their neighbours: the call, its
kernel line, the loop iteration and its mask (so a tail-mask bug reads as one), with the same message in both loop
modes, for a Python VF and for a C++ one. The expected messages are built here from the kernels' arithmetic (element
counts, byte addresses, marked lines), not from a run."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim.errors import UninitializedReadError

COUNT, SHORT, LANES = 4000, 24, 64  # elements; how many the buggy counter leaves out; float32 lanes a register
LAST = -(-COUNT // LANES) - 1  # the last iteration: 62
CPP = Path(__file__).resolve().parents[1] / "cpp" / "tail_mask.asc"


@rs.simd_vf
def scale_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], count: int) -> None:
    r = Reg.RegTensor(rs.float32)
    n = rs.Ref(count - SHORT)  # the bug: the counter starts short, so the last mask has too few lanes
    for i in range(-(-count // LANES)):
        m = Reg.UpdateMask(rs.float32, n)
        Reg.LoadAlign(r, src + i * LANES)
        Reg.Muls(r, r, 2.0, m)
        Reg.StoreAlign(dst + i * LANES, r, m)  # @store


@rs.simd_vf
def add_one_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], count: int) -> None:
    r = Reg.RegTensor(rs.float32)
    n = rs.Ref(count)
    for i in range(-(-count // LANES)):
        m = Reg.UpdateMask(rs.float32, n)
        Reg.LoadAlign(r, src + i * LANES)
        Reg.Adds(r, r, 1.0, m)
        Reg.StoreAlign(dst + i * LANES, r, m)


def line_of(mark: str, text: str) -> int:
    """The line of `text` ending in the comment `# @mark` or `// @mark`."""
    hits = [k + 1 for k, line in enumerate(text.splitlines()) if line.rstrip().endswith(f"@{mark}")]
    assert len(hits) == 1, mark
    return hits[0]


def tail_bug(scale: Any, add_one: Any, loops: str) -> tuple[str, int, str]:
    """Run the buggy scale then the reader in `loops` mode: (the reader's message, the middle tensor's UB byte, how the
    writer's loop ran)."""
    with rs.configure(loops=loops):
        ub = rs.UnifiedBuffer(64 * 1024)
        x, y, z = (ub.alloc(rs.float32, COUNT + LANES) for _ in range(3))  # (a whole last register inside each)
        x.set(np.arange(COUNT, dtype=np.float32))
        how = rs.explain(scale, y.GetPhyAddr(), x.GetPhyAddr(), COUNT)
        with pytest.raises(UninitializedReadError) as e:
            add_one(z.GetPhyAddr(), y.GetPhyAddr(), COUNT)
    return str(e.value), y.addr, how


def expected(base: int, where: str) -> str:
    """The message's provenance: the bytes the last load read, the never-written ones, the store beside them."""
    load, end, written = base + LAST * LANES * 4, base + COUNT * 4, base + (COUNT - SHORT) * 4
    return (
        f"(its bytes came from LoadAlign of UB bytes [{load}, {load + 256}): UB bytes [{written}, {end}) (elements "
        f"{COUNT - SHORT}..{COUNT - 1} of the {COUNT + LANES}-element float32 tensor at UB byte {base}) were never written; "
        f"UB bytes [{base}, {written}) before them were last written by StoreAlign at {where}, iteration {LAST} "
        f"(a mask of {COUNT - SHORT - LAST * LANES} of {LANES} lanes))"
    )


def test_a_python_tail_mask_bug_names_the_store_its_iteration_and_mask_in_both_loop_modes() -> None:
    messages = {}
    for loops in ("sequential", "auto"):
        messages[loops], base, how = tail_bug(scale_vf, add_one_vf, loops)
        assert ("batched" if loops == "auto" else "sequential") in how, how
    assert messages["sequential"] == messages["auto"]
    where = f"{Path(__file__).name}:{line_of('store', inspect.getsource(inspect.getmodule(scale_vf)))} (in scale_vf)"  # type: ignore[arg-type]
    lane = COUNT - SHORT - LAST * LANES
    read = f"Adds: src_reg lane {lane} is read by an active lane but was never written "
    assert messages["auto"] == read + expected(base, where)


def test_a_cpp_tail_mask_bug_names_the_cpp_store_its_iteration_and_mask_in_both_loop_modes() -> None:
    pytest.importorskip("clang.cindex")
    module = rs.cpp.load(str(CPP))
    messages = {}
    for loops in ("sequential", "auto"):
        messages[loops], base, how = tail_bug(module.ScaleVF, module.AddOneVF, loops)
        assert ("batched" if loops == "auto" else "sequential") in how, how
    assert messages["sequential"] == messages["auto"]
    text = CPP.read_text()
    lane = COUNT - SHORT - LAST * LANES
    assert messages["auto"] == (
        f"{CPP}:{line_of('read', text)} (in AddOneVF): Adds: src_reg lane {lane} is read by an active lane but was never "
        "written " + expected(base, f"{CPP}:{line_of('store', text)} (in ScaleVF)")
    )


@rs.simd_vf
def store_upper_half(dst: rs.UbPtr[rs.float32]) -> None:
    r = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    Reg.Duplicate(r, 1.0, m)
    Reg.StoreAlign(dst + LANES, r, m)  # @upper


@rs.simd_vf
def add_lower_half(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32]) -> None:
    r = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    Reg.LoadAlign(r, src)
    Reg.Adds(r, r, 1.0, m)
    Reg.StoreAlign(dst, r, m)


def test_a_gap_between_a_host_write_and_a_store_names_both_neighbours() -> None:
    ub = rs.UnifiedBuffer(4096)
    t, out = ub.alloc(rs.float32, 2 * LANES), ub.alloc(rs.float32, LANES)
    t.set(np.ones(16, np.float32))  # @set
    store_upper_half(t.GetPhyAddr())
    with pytest.raises(UninitializedReadError) as e:
        add_lower_half(out.GetPhyAddr(), t.GetPhyAddr())
    source = inspect.getsource(inspect.getmodule(store_upper_half))  # type: ignore[arg-type]
    name = Path(__file__).name
    here = f"{name}:{line_of('set', source)} (in test_a_gap_between_a_host_write_and_a_store_names_both_neighbours)"
    assert str(e.value) == (
        f"Adds: src_reg lane 16 is read by an active lane but was never written (its bytes came from LoadAlign of UB bytes "
        f"[0, 256): UB bytes [64, 256) (elements 16..63 of the 128-element float32 tensor at UB byte 0) were never written; "
        f"UB bytes [0, 64) before them were last written by LocalTensor.set at {here}; UB bytes [256, 512) after them were "
        f"last written by StoreAlign at {name}:{line_of('upper', source)} (in store_upper_half) (a mask of 64 of 64 lanes))"
    )


@rs.simd_vf
def stream_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], k: int, n: int) -> None:
    """n iterations each appending k float32s to one unaligned store stream that starts 32 bytes into dst (its first
    32 bytes never written; each StoreUnAlign moves `out` past its k elements), then a load of dst's first register."""
    x = Reg.RegTensor(rs.float32)
    u = Reg.UnalignRegForStore()
    Reg.LoadAlign(x, src)
    out = dst + 8
    for _ in range(n):
        Reg.StoreUnAlign(out, x, u, k)  # @stream
    Reg.StoreUnAlignPost(out, u, 0)
    Reg.Adds(x, x, 1.0, Reg.CreateMask(rs.float32))
    Reg.LoadAlign(x, dst)
    Reg.Adds(x, x, 1.0, Reg.CreateMask(rs.float32))


@pytest.mark.parametrize(("k", "n"), [(1, 16), (3, 8), (5, 8), (8, 4), (16, 2)])
def test_a_stream_s_bytes_are_named_by_the_iteration_whose_store_wrote_them(k: int, n: int) -> None:
    """An unaligned store stream writes a 32-byte block when a store's bytes reach its end, so the block's bytes were
    written by that iteration, not by the ones whose data they hold: UB byte 32 (the stream's first) by the first
    iteration b with 32 + 4·k·(b + 1) >= 64, in both loop modes (the batched stream attributed each byte to the row
    whose data it is)."""
    messages = {}
    for loops in ("sequential", "auto"):
        ub = rs.UnifiedBuffer(2048)
        dst, src = ub.alloc(rs.float32, 2 * LANES), ub.alloc(rs.float32, LANES)
        src.set(np.arange(LANES))
        with rs.configure(loops=loops), pytest.raises(UninitializedReadError) as e:
            stream_vf(dst.GetPhyAddr(), src.GetPhyAddr(), k, n)
        messages[loops] = str(e.value)
    assert messages["sequential"] == messages["auto"]
    first = -(-32 // (4 * k)) - 1  # the iteration whose stream end first reaches byte 64
    where = f"{Path(__file__).name}:{line_of('stream', inspect.getsource(inspect.getmodule(stream_vf)))} (in stream_vf)"  # type: ignore[arg-type]
    assert f"after them were last written by StoreUnAlign at {where}, iteration {first}" in messages["auto"], messages
