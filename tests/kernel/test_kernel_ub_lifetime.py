"""A launch's UBs are freed as soon as its blocks end, by reference counting: no block refers to its UB through a cycle
(the UB's observer keeps the block's pipes, not the block; a block's TPipe, LocalMemAllocator and queues, which refer
back to it, are let go when it ends). Checked with the collector off, for kernels with a TPipe and queues and with a
LocalMemAllocator and SyncAll, in both loop modes, in order and in two worker processes (the launching process runs
half of the blocks itself)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim._src.kernel import launch as launch_module
from vf_examples import add_tpipe_tque, sync_all


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[weakref.ref[rs.UnifiedBuffer]]:
    """A weak reference to each UB the launches make in this process (the cores' UBs, recorded as they are made)."""
    refs: list[weakref.ref[rs.UnifiedBuffer]] = []

    class Recorded(rs.UnifiedBuffer):
        def __init__(self) -> None:
            super().__init__()
            refs.append(weakref.ref(self))

    monkeypatch.setattr(launch_module, "UnifiedBuffer", Recorded)
    return refs


def _tpipe(workers: int | None) -> tuple[Any, Any]:
    x = np.arange(8 * 2048, dtype=np.float32).reshape(8, 2048)
    z = np.zeros_like(x)
    add_tpipe_tque.add_custom[add_tpipe_tque.NUM_BLOCKS](x, x, z, add_tpipe_tque.TOTAL_LENGTH, workers=workers)
    return z, x + x


def _sync_all(workers: int | None) -> tuple[Any, Any]:
    x = np.ones(sync_all.TOTAL_LENGTH, np.float32)
    return sync_all.launch(
        x, workers=workers
    ), x * 2 * 8  # (gen_data's golden: each core's share doubled, summed over the 8 cores)


@pytest.mark.parametrize("workers", [None, 2])
@pytest.mark.parametrize("kernel", [_tpipe, _sync_all], ids=["tpipe_tque", "sync_all"])
def test_a_launch_frees_its_ubs(
    kernel: Callable[[int | None], tuple[Any, Any]],
    workers: int | None,
    loops: str,
    no_collector: None,
    made: list[weakref.ref[rs.UnifiedBuffer]],
) -> None:
    got, expected = kernel(workers)
    assert np.array_equal(got, expected)
    here = 8 if workers is None else 4  # (a UB for each block this process ran: all 8, or the first share of 2)
    assert len(made) == here
    assert [r() for r in made] == [None] * here


@rs.kernel
def past_its_end(x: rs.GmPtr[rs.float32]) -> None:
    """Block i reads element 4 i of a 4-element tensor: every block but block 0 past its end."""
    g = rs.AscendC.GlobalTensor(rs.float32)
    g.SetGlobalBuffer(x, 4)
    g.GetValue(4 * rs.AscendC.GetBlockIdx())


@pytest.mark.parametrize("workers", [None, 2])
def test_a_failed_launch_frees_its_ubs_with_its_error(
    workers: int | None, no_collector: None, made: list[weakref.ref[rs.UnifiedBuffer]]
) -> None:
    """A block's error, raised by the launch, keeps no frame that keeps it: once it is dropped, so are the UBs (the
    failing block's included), in order and in the launching process's share of two workers (blocks 0 and 1 of 3)."""
    with pytest.raises(rs.errors.OutOfBoundsError, match=r"GM bytes \[16, 20\) of x") as e:
        rs.launch(past_its_end, 3, np.zeros(8, np.float32), workers=workers)
    assert e.value.__notes__ == ["(in block 1 of 3 of kernel past_its_end)"]
    del e
    assert len(made) == 2 and [r() for r in made] == [None, None]  # (in order, block 2 never ran)
