"""A VF profiled on a new UB layout is priced from the shape kept of its records on another (`profile._SHAPES`: what
reads no address), its beats judged afresh: the bank_conflict_3510 sample's AddWithUnRollVF on the layouts of cases
1-5 and 7, against the module's rules applied beat by beat (test_banks' per-row oracle) and against a profile made
with nothing kept."""

from __future__ import annotations

from typing import Any

import numpy as np

from regsim._src.cost import banks, profile
from tests.cost.test_banks import beat_oracle
from vf_examples import bank_conflict_3510 as bc

UNROLLED = (1, 2, 3, 4, 5, 7)  #: the cases running AddWithUnRollVF, each on its own layout


def forget(shapes: bool) -> None:
    """Forget the kept beats, VF costs and conflicts (a new layout), and the shapes too if `shapes`."""
    banks._BEATS.clear()
    profile._VFS.clear()
    profile._CONFLICTS.clear()
    if shapes:
        profile._SHAPES.clear()


def unrolled_oracle(case: int) -> tuple[int, list[tuple[str, tuple[int, ...], int]]]:
    """AddWithUnRollVF's memory cycles and conflicts (kind, the first such beat's addresses, beats) on case `case`'s
    layout: each of its m iterations loads x[i], y[i], x[m + i], y[m + i] and stores z[i], z[m + i] (256 B each), in
    beats of two loads and one store in program order: [x[i], y[i]], [x[m + i], y[m + i], z[i]], [z[m + i]]."""
    n, xa, ya, za = bc.CASES[case]
    m = n // bc.ONE_REP // 2
    memory, seen = 0, {}
    for i in range(m):
        beats = [
            [(False, xa + 256 * i), (False, ya + 256 * i)],
            [(False, xa + 256 * (m + i)), (False, ya + 256 * (m + i)), (True, za + 256 * i)],
            [(True, za + 256 * (m + i))],
        ]
        for b, beat in enumerate(beats):
            cycles, kinds, examples = beat_oracle([(k, w, a, a + 256, 0) for k, (w, a) in enumerate(beat)], 1)
            memory += cycles[0]
            for kind in kinds[0]:
                addrs, who = examples[kind]
                seen.setdefault((kind, b, who), [addrs, 0])[1] += 1
    return memory, sorted((kind, addrs, n) for (kind, _, _), (addrs, n) in seen.items())


def test_new_layouts_priced_from_the_kept_shape(loops: str) -> None:
    """Each case's layout profiled with only the VF's shape kept (one shape for all six, made by the first) gives the
    oracle's memory cycles and conflicts, and the profile made with nothing kept."""
    rng = np.random.default_rng(3)
    forget(shapes=True)
    for case in UNROLLED:
        x, y = bc.inputs(case, rng)
        forget(shapes=False)
        got = bc.profile(case, x, y)
        assert len(profile._SHAPES) == 1
        forget(shapes=True)
        fresh = bc.profile(case, x, y)
        memory, conflicts = unrolled_oracle(case)
        assert got.vfs[0].memory_cycles == memory
        assert sorted((c.kind, c.addresses, c.beats) for c in got.bank_conflicts) == conflicts
        assert {c.kind for c in got.bank_conflicts} == bc.EXPECTED[case][0]
        same: list[Any] = [(p.counts, p.bytes, p.bank_conflicts, p.cycles, p.vfs) for p in (got, fresh)]
        assert same[0] == same[1]
