"""What `rs.profile` keeps between profiles gives what it would make again: the bank conflicts (frozen, shared while
kept) of the bank_conflict_3510 sample's case 6 VF, profiled on its layout and on a new one, kept or made afresh."""

from __future__ import annotations

import numpy as np
import pytest

import regsim as rs
from regsim._src.cost import banks, profile
from vf_examples import bank_conflict_3510 as bc


@pytest.mark.parametrize("loops", ["sequential", "batched"])
def test_kept_conflicts_are_the_ones_made_again(loops: str) -> None:
    """Case 6: 64 iterations, each loading x (0x0 on) and y (0x5000 on) and storing z (0xA000 on), one bank of every
    group: every iteration's beat a read-read (two reads of a bank) and a read-write conflict (a read and a write of
    it), named by the first beat's rows of group 0."""
    x, y = bc.inputs(6, np.random.default_rng(0))
    seen = []
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        for fresh in (True, False, True, False):
            if fresh:
                banks._BEATS.clear()
                profile._VFS.clear()
                profile._CONFLICTS.clear()
            seen.append(bc.profile(6, x, y).bank_conflicts)
    want = {("read-read", (0x0, 0x5000), 64), ("read-write", (0x0, 0x5000, 0xA000), 64)}
    for got in seen:
        assert {(c.kind, c.addresses, c.beats) for c in got} == want
        assert all(len(c.instructions) == (2 if c.kind == "read-read" else 3) for c in got)
        assert got == [profile.BankConflict(c.kind, c.instructions, c.addresses, c.beats) for c in got]
    assert seen[0] == seen[1] == seen[2] == seen[3]
