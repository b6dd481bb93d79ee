"""The in-order loads and stores on a UB in each of its written states: some bytes never written, kept as ranges or
(past `RangeStorage.MAX_RANGES` ranges) as per-byte flags, and every byte written (the closures test the storage's
fields inline, not `partial()` / `all_written`). Each program runs with the closures and with every call bound and
run by its executor (the same UB bytes and flags, registers and errors), and its values are checked against the
bytes it set, element by element."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from test_in_order_paths import _same, both_paths  # noqa: F401  (the fixture)

import regsim as rs
from regsim import Reg
from regsim.errors import UninitializedReadError

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE
N = 64  #: uint32 lanes of a register


def _program(state: str, seed: int) -> Callable[[], Any]:
    """Loads of written bytes (plain and post-update), stores of full and partial predicates and of a carry mask
    into never-written bytes, loads of what they stored, and a load of never-written bytes (raising)."""

    def run() -> Any:
        rng = np.random.default_rng(seed)
        ub = rs.UnifiedBuffer(64 * 1024)
        src, dst = ub.alloc(rs.uint32, 4 * N), ub.alloc(rs.uint32, 4 * N)
        bits, never = ub.alloc(rs.uint32, 16), ub.alloc(rs.uint32, N)
        values = rng.integers(0, 2**32, 4 * N, dtype=np.uint32)
        src.set(values)
        if state == "flags":  # many separate written spans: the storage keeps per-byte flags
            for k in range(600):
                span = ub.alloc(rs.uint8, 32)
                if k % 2:
                    span.set(np.zeros(32, np.uint8))
            assert ub.storage._flags is not None and ub.storage.starts is None
        elif state == "written":
            for t in (dst, bits, never):
                t.set(np.zeros(t.GetSize(), np.uint32))
            rest = ub.size - (2 * 4 * N + 16 + N) * 4
            ub.alloc(rs.uint8, rest).set(np.zeros(rest, np.uint8))
        else:
            assert ub.storage.starts is not None
        count = int(rng.integers(1, N))
        out: list[Any] = []
        with rs.VEC_SCOPE():
            x, y, z = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)
            carry = Reg.CreateMask(rs.uint8)
            p = src.GetPhyAddr()
            Reg.LoadAlign(x, p, N, post_mode=UPDATE)  # (p moves to the second register's elements)
            Reg.LoadAlign(y, p)
            Reg.Add(carry, z, x, y, Reg.CreateMask(rs.uint32))
            Reg.StoreAlign(dst.GetPhyAddr(), z, Reg.CreateMask(rs.uint32))
            Reg.StoreAlign(dst.GetPhyAddr() + N, x, Reg.UpdateMask(rs.uint32, rs.Ref(count)))
            q = dst.GetPhyAddr() + 2 * N
            Reg.StoreAlign(q, y, N, Reg.CreateMask(rs.uint32), post_mode=UPDATE)
            Reg.StoreAlign(bits.GetPhyAddr(), carry, dist=Reg.MaskDist.DIST_NORM)
            Reg.LoadAlign(z, dst.GetPhyAddr())
            out += [z._raw.copy(), q.addr - dst.GetPhyAddr().addr]
            Reg.LoadAlign(x, never.GetPhyAddr())  # (its never-written bytes carried: an op reading them raises)
            out.append(None if x._storage.valid is None else x._storage.valid.copy())
            try:
                Reg.Add(y, x, x, Reg.CreateMask(rs.uint32))
            except UninitializedReadError as e:
                out.append(str(e))
        st = ub.storage
        flags = st.valid
        out += [st.data.copy(), None if flags is None else flags.copy(), count]
        return out

    return run


@pytest.mark.parametrize("state", ["ranges", "flags", "written"])
@pytest.mark.parametrize("seed", range(3))
def test_loads_and_stores_in_each_written_state(
    both_paths: Callable[..., tuple[Any, Any]],  # noqa: F811  (the fixture, imported)
    state: str,
    seed: int,
) -> None:
    fast, generic = both_paths(_program(state, seed))
    assert _same(fast, generic)
    z, moved, *rest = fast
    data, flags, count = rest[-3:]  # (after the loaded flags and the error raised, if any)
    a = np.random.default_rng(seed).integers(0, 2**32, 4 * N, dtype=np.uint32)
    x, y = [int(v) for v in a[:N]], [int(v) for v in a[N : 2 * N]]
    sums = [(u + v) % 2**32 for u, v in zip(x, y, strict=True)]
    assert z.view(np.uint32).tolist() == sums and moved == 3 * N * 4  # (bytes)
    ub_words = data.view(np.uint32)
    dst = 4 * N  # (dst follows src's 4 * N words)
    assert ub_words[dst : dst + N].tolist() == sums
    assert ub_words[dst + N : dst + N + count].tolist() == x[:count]
    assert ub_words[dst + 2 * N : dst + 3 * N].tolist() == y
    carry_bytes = data[8 * N * 4 : 8 * N * 4 + 32]
    want = [(u + v >= 2**32) for u, v in zip(x, y, strict=True)]
    assert [bool(carry_bytes[i // 2] >> (4 * (i % 2)) & 1) for i in range(N)] == want
    if state == "written":
        assert flags is None and rest[0] is None and len(rest) == 4  # (nothing raised: every byte was written)
    else:
        assert rest[0] is not None and not rest[0].any()
        lo, hi = (8 * N + 16) * 4, (9 * N + 16) * 4  # (`never`: after src, dst and bits)
        assert rest[1] == (
            "Add: src_reg0 lane 0 is read by an active lane but was never written (its bytes came from LoadAlign of UB "
            f"bytes [{lo}, {hi}): UB bytes [{lo}, {hi}) (elements 0..63 of the 64-element uint32 tensor at UB byte {lo}) "
            "were never written)"
        )

        assert flags is not None and flags[dst * 4 : (dst + N + count) * 4].all()
        assert not flags[(dst + N + count) * 4 : (dst + 2 * N) * 4].any() and flags[(dst + 2 * N) * 4 : (dst + 3 * N) * 4].all()


@settings(max_examples=200, deadline=None)
@given(
    spans=hs.lists(hs.tuples(hs.integers(0, 2048), hs.integers(0, 2048)).map(sorted), max_size=5),
    block=hs.integers(0, (2048 - 256) // 32),
)
def test_an_in_order_load_from_ranges_keeps_the_flags_of_the_bytes_it_reads(spans: list[list[int]], block: int) -> None:
    """A LoadAlign of UB bytes [at, at + 256) where the UB's written bytes are kept as ranges (the closure's own test of
    them): the register's bytes are the UB's, and its flags those bytes' (none kept when all of them were written),
    against a per-byte oracle of the spans marked, ranges that end, start or stop just at the load's bytes among them."""
    ub = rs.UnifiedBuffer(2048)
    t = ub.alloc(rs.uint8, 2048)
    oracle = [False] * 2048
    for a, b in spans:
        ub.storage.mark(a, b)
        oracle[a:b] = [True] * (b - a)
    ub.storage.data[:] = np.arange(2048) % 251
    assert ub.storage.starts is not None  # (kept as ranges)
    at = block * 32
    with rs.VEC_SCOPE():
        r = Reg.RegTensor(rs.uint8)
        Reg.LoadAlign(r, t.GetPhyAddr() + at)
    assert r._raw.tolist() == [i % 251 for i in range(at, at + 256)]
    want = oracle[at : at + 256]
    flags = r._storage.valid
    assert (flags is None) is all(want) and (flags is None or flags.tolist() == want)
