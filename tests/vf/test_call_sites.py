"""The call sites of a rewritten VF loop's in-order body (`engine.spec.Site`): each remembers the face's in-order call
of its last signature and runs it directly when the next call has the same one. A call of another dtype, register
count or keyword value, under a trace, inside an outer loop's batched attempt, or of a face the user rebound takes the
general path (the face): each case is checked against an oracle of its own (the lanes over Python ints) and counts the
calls that went through the face, so a site that ignored the change fails (wrong bits, or no call through the face).
Errors raised at a site are the face's own: class, message and what the earlier iterations stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.vf import loops
from regsim.errors import DTypeError, ParameterError

CMPMODE = rs.AscendC.CMPMODE
N = 3  #: iterations of each loop


class Counting(loops.Site):
    """A site counting the calls that took the general path (every site a rewrite makes, while the fixture is on)."""

    made: list[Counting] = []  # noqa: RUF012  # (the sites made, in the order of their calls in the source)
    __slots__ = ("general",)

    def __init__(self) -> None:
        super().__init__()
        self.general = 0
        Counting.made.append(self)

    def miss(self, face: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self.general += 1
        return super().miss(face, args, kwargs)


@pytest.fixture
def sites(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Counting]]:
    """The sites of the VFs rewritten in the test (each test defines its own: a VF is rewritten at its first call)."""
    monkeypatch.setattr(loops, "Site", Counting)
    Counting.made = []
    with rs.configure(loops="sequential"):
        yield Counting.made


def general(sites: list[Counting]) -> list[int]:
    """Per site, the calls that went through the face since the last look (then zeroed)."""
    counts = [s.general for s in sites]
    for s in sites:
        s.general = 0
    return counts


def lanes(dtype: Any, trait: Any) -> int:
    return 256 * trait.REG_NUM // dtype.itemsize


def wrapped(v: int, dtype: Any) -> int:
    bits = 8 * dtype.itemsize
    w = v & ((1 << bits) - 1)
    return w - (1 << bits) if np.issubdtype(dtype.np_dtype, np.signedinteger) and w >> (bits - 1) else w


def tensors(dtype: Any, n: int, seed: int) -> tuple[rs.LocalTensor[Any], ...]:
    ub = rs.UnifiedBuffer()
    a, b, d = (ub.alloc(dtype, n) for _ in range(3))
    info = np.iinfo(dtype.np_dtype)
    rng = np.random.default_rng(seed)
    for t in (a, b):
        t.set(rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype.np_dtype))
    return a, b, d


def test_another_dtype_or_register_count_takes_the_general_path(sites: list[Counting]) -> None:
    @rs.simd_vf
    def add(a: rs.UbPtr[Any], b: rs.UbPtr[Any], d: rs.UbPtr[Any], n: int, trait: Any) -> None:
        x, y, z = (Reg.RegTensor(a.dtype, trait) for _ in range(3))
        m = Reg.CreateMask(a.dtype, trait=trait)
        k = 256 * trait.REG_NUM // a.dtype.itemsize
        for i in range(n):
            Reg.LoadAlign(x, a + i * k)
            Reg.LoadAlign(y, b + i * k)
            Reg.Add(z, x, y, m)
            Reg.StoreAlign(d + i * k, z, m)

    one, two = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
    runs = [(rs.int32, one), (rs.int32, one), (rs.int16, one), (rs.uint64, two), (rs.int16, one), (rs.int16, one)]
    for seed, (dtype, trait) in enumerate(runs):
        n = N * lanes(dtype, trait)
        a, b, d = tensors(dtype, n, seed)
        add(a.GetPhyAddr(), b.GetPhyAddr(), d.GetPhyAddr(), N, trait)
        want = [wrapped(int(u) + int(v), dtype) for u, v in zip(a.numpy(), b.numpy(), strict=True)]
        assert [int(v) for v in d.numpy()] == want, (dtype, trait)
        # a signature new to the site goes through the face once (then remembered); one seen last time never does
        new = seed == 0 or runs[seed - 1] != (dtype, trait)
        assert general(sites) == [1 if new else 0] * 4, (seed, dtype, trait)


def test_another_keyword_value_takes_the_general_path(sites: list[Counting]) -> None:
    @rs.simd_vf
    def pick(a: rs.UbPtr[rs.int32], b: rs.UbPtr[rs.int32], d: rs.UbPtr[rs.int32], n: int, mode: Any) -> None:
        x, y, z = (Reg.RegTensor(rs.int32) for _ in range(3))
        m = Reg.CreateMask(rs.int32)
        chosen = Reg.CreateMask(rs.int32)
        for i in range(n):
            Reg.LoadAlign(x, a + i * 64)
            Reg.LoadAlign(y, b + i * 64)
            Reg.Compare(chosen, x, y, m, mode=mode)
            Reg.Select(z, x, y, chosen)
            Reg.StoreAlign(d + i * 64, z, m)

    ops = {CMPMODE.GT: int.__gt__, CMPMODE.LT: int.__lt__, CMPMODE.EQ: int.__eq__, CMPMODE.LE: int.__le__}
    modes = [CMPMODE.GT, CMPMODE.GT, CMPMODE.LT, CMPMODE.EQ, CMPMODE.EQ, CMPMODE.GT, CMPMODE.LE]
    for seed, mode in enumerate(modes):
        a, b, d = tensors(rs.int32, N * 64, seed)
        if mode is CMPMODE.EQ:  # (some equal lanes)
            b.set(np.where(np.arange(N * 64) % 3 == 0, a.numpy(), b.numpy()))
        pick(a.GetPhyAddr(), b.GetPhyAddr(), d.GetPhyAddr(), N, mode)
        want = [u if ops[mode](u, v) else v for u, v in zip(map(int, a.numpy()), map(int, b.numpy()), strict=True)]
        assert [int(v) for v in d.numpy()] == want, mode
        new = seed == 0 or modes[seed - 1] is not mode
        # only the Compare's keyword changed: the other sites keep theirs
        assert general(sites) == [int(seed == 0), int(seed == 0), int(new), int(seed == 0), int(seed == 0)], (seed, mode)


def doubling() -> Any:
    """A new VF (its sites made at its first call, while the test's fixture is on)."""

    @rs.simd_vf
    def doubled(a: rs.UbPtr[Any], d: rs.UbPtr[Any], n: int, k: int = 64) -> None:
        x = Reg.RegTensor(a.dtype)
        m = Reg.CreateMask(a.dtype)
        for i in range(n):
            Reg.LoadAlign(x, a + i * k)
            Reg.Add(x, x, x, m)
            Reg.StoreAlign(d + i * k, x, m)

    return doubled


def doubled_oracle(a: rs.LocalTensor[Any]) -> list[int]:
    return [wrapped(2 * int(u), rs.int32) for u in a.numpy()]


def test_a_trace_sees_every_call_of_a_remembered_site(sites: list[Counting]) -> None:
    doubled = doubling()
    a, _, d = tensors(rs.int32, N * 64, 0)
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    assert general(sites) == [1, 1, 1], "remembered in the first run"
    d.set(np.zeros(N * 64, np.int32))
    with rs.trace() as t:
        doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    assert [r.api for r in t.records] == ["CreateMask"] + ["LoadAlign", "Add", "StoreAlign"] * N
    assert all(r.line.startswith("test_call_sites.py:") for r in t.records)
    assert general(sites) == [N, N, N], "every call under the trace went through the face"
    assert [int(v) for v in d.numpy()] == doubled_oracle(a)
    d.set(np.zeros(N * 64, np.int32))
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    assert general(sites) == [0, 0, 0], "the trace over, the sites' calls are theirs again"
    assert [int(v) for v in d.numpy()] == doubled_oracle(a)


def test_a_site_inside_an_outer_batched_attempt_takes_the_general_path(sites: list[Counting]) -> None:
    @rs.simd_vf
    def rows(a: rs.UbPtr[rs.int32], d: rs.UbPtr[rs.int32], n: int, k: int) -> None:
        x = Reg.RegTensor(rs.int32)
        m = Reg.CreateMask(rs.int32)
        for i in range(n):
            for j in range(k):
                Reg.LoadAlign(x, a + (i * k + j) * 64)
                Reg.Add(x, x, x, m)
                Reg.StoreAlign(d + (i * k + j) * 64, x, m)

    n, k = 4, 2
    a, _, d = tensors(rs.int32, n * k * 64, 0)
    rows(a.GetPhyAddr(), d.GetPhyAddr(), n, k)  # in order: the inner sites remember their calls
    assert [int(v) for v in d.numpy()] == doubled_oracle(a)
    inner = [s for s in sites if s.learned]
    # (the outer loop's in-order body holds the inner loop's, sites and all: the inner's batched attempt has none)
    assert len(sites) == len(inner) == 3 and general(sites) == [1, 1, 1]
    d.set(np.zeros(n * k * 64, np.int32))
    with rs.configure(loops="auto", batch_min_iterations=2):
        text = rs.explain(rows, a.GetPhyAddr(), d.GetPhyAddr(), n, k)
    assert f"(in rows): batched ({n} iterations)" in text and "inside a batched loop" in text, text
    assert [int(v) for v in d.numpy()] == doubled_oracle(a)
    assert general(inner) == [k, k, k], "every call on the batched backend went through the face"


def test_a_face_the_user_rebinds_is_called(sites: list[Counting], monkeypatch: pytest.MonkeyPatch) -> None:
    doubled = doubling()
    a, _, d = tensors(rs.int32, N * 64, 0)
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    general(sites)
    face = Reg.Add
    seen: list[int] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(len(args))
        return face(*args, **kwargs)

    monkeypatch.setattr(Reg, "Add", spy)
    d.set(np.zeros(N * 64, np.int32))
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    assert seen == [4] * N
    assert general(sites) == [0, N, 0]
    assert [int(v) for v in d.numpy()] == doubled_oracle(a)
    monkeypatch.setattr(Reg, "Add", face)
    d.set(np.zeros(N * 64, np.int32))
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    assert general(sites) == [0, 0, 0], "the face back: the call it remembered runs again"
    assert [int(v) for v in d.numpy()] == doubled_oracle(a)


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (lambda: Reg.RegTensor(rs.int16), DTypeError),  # another dtype
        (lambda: Reg.RegTensor(rs.int64, Reg.RegTraitNumTwo), DTypeError),  # another register count
        (lambda: 7, ParameterError),  # no `_sig` where a register goes
    ],
)
def test_an_error_at_a_remembered_site_is_the_faces(sites: list[Counting], bad: Any, error: type[Exception]) -> None:
    @rs.simd_vf
    def added(a: rs.UbPtr[rs.int32], d: rs.UbPtr[rs.int32], xs: tuple[Any, ...], n: int) -> None:
        y = Reg.RegTensor(rs.int32)
        z = Reg.RegTensor(rs.int32)
        m = Reg.CreateMask(rs.int32)
        for i in range(n):
            Reg.LoadAlign(y, a + i * 64)
            Reg.Add(z, xs[i], y, m)
            Reg.StoreAlign(d + i * 64, z, m)

    a, _, d = tensors(rs.int32, N * 64, 0)
    with rs.VEC_SCOPE():
        x = Reg.RegTensor(rs.int32)
        Reg.Duplicate(x, 5, Reg.CreateMask(rs.int32))
        wrong = bad()
        with pytest.raises(error) as direct:  # the face called with the same operands
            Reg.Add(Reg.RegTensor(rs.int32), wrong, Reg.RegTensor(rs.int32), Reg.CreateMask(rs.int32))
    added(a.GetPhyAddr(), d.GetPhyAddr(), (x,) * N, N)  # the sites remember the int32 call
    assert general(sites) == [1, 1, 1]
    d.set(np.zeros(N * 64, np.int32))
    with pytest.raises(error) as at_site:
        added(a.GetPhyAddr(), d.GetPhyAddr(), (x, wrong, x), N)
    assert str(at_site.value) == str(direct.value)
    want = [wrapped(int(u) + 5, rs.int32) for u in a.numpy()[:64]]
    assert [int(v) for v in d.numpy()] == want + [0] * (N - 1) * 64, "iteration 0 stored; nothing after"


def test_a_site_that_keeps_changing_learns_no_more(sites: list[Counting], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Counting, "LIMIT", 2)

    double = doubling()
    # per run, the calls of each site through the face: two signatures remembered, int32 then int16; then int32's
    # calls all through the face (not remembered), int16's none (the call remembered last is kept)
    runs = [(rs.int32, 1), (rs.int16, 1), (rs.int32, N), (rs.int16, 0), (rs.int32, N)]
    for seed, (dtype, through_face) in enumerate(runs):
        k = lanes(dtype, Reg.RegTraitNumOne)
        a, _, d = tensors(dtype, N * k, seed)
        double(a.GetPhyAddr(), d.GetPhyAddr(), N, k)
        assert [int(v) for v in d.numpy()] == [wrapped(2 * int(u), dtype) for u in a.numpy()], dtype
        assert general(sites) == [through_face] * 3, (seed, dtype)
    assert [s.learned for s in sites] == [2, 2, 2]


def test_a_site_forgets_when_the_faces_calls_are_made_anew(sites: list[Counting]) -> None:
    """`Overloads.add` (a new overload) empties the face's calls: the sites remembering one take the face again."""
    from regsim._src.engine.spec import REGISTRY

    doubled = doubling()
    a, _, d = tensors(rs.int32, N * 64, 0)
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    assert general(sites) == [1, 1, 1]
    entry = REGISTRY.entry("Add")
    entry._plans.clear()  # (as `Overloads.add` does)
    entry._calls.clear()
    d.set(np.zeros(N * 64, np.int32))
    doubled(a.GetPhyAddr(), d.GetPhyAddr(), N)
    assert general(sites) == [0, 1, 0]
    assert [int(v) for v in d.numpy()] == doubled_oracle(a)


def test_a_remembered_site_hands_its_call_the_keywords_read_only(sites: list[Counting], monkeypatch: pytest.MonkeyPatch) -> None:
    """A remembered site passes its keywords (the same objects as the call it remembered) as one mapping made when it
    learned them: equal to the call's keywords at every call, and read-only (a call changing it would change the
    next call's)."""
    from regsim._src.engine.spec import Overloads

    given: list[tuple[str, Any]] = []
    learned = Overloads.in_order_call

    def spied(self: Overloads, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        run = learned(self, args, kwargs)
        if run is None:
            return None

        def spy(ctx: Any, args: tuple[Any, ...], kwargs: Any) -> Any:
            given.append((self.name, kwargs))
            return run(ctx, args, kwargs)

        return spy

    monkeypatch.setattr(Overloads, "in_order_call", spied)
    update = Reg.PostLiteral.POST_MODE_UPDATE

    @rs.simd_vf
    def pick(a: rs.UbPtr[rs.int32], b: rs.UbPtr[rs.int32], d: rs.UbPtr[rs.int32], n: int) -> None:
        x, y, z = (Reg.RegTensor(rs.int32) for _ in range(3))
        m = Reg.CreateMask(rs.int32)
        chosen = Reg.CreateMask(rs.int32)
        for _ in range(n):
            Reg.LoadAlign(x, a, 64, post_mode=update)
            Reg.LoadAlign(y, b, 64, post_mode=update)
            Reg.Compare(chosen, x, y, m, mode=CMPMODE.LT)
            Reg.Select(z, x, y, chosen)
            Reg.StoreAlign(d, z, 64, m, post_mode=update)

    a, b, d = tensors(rs.int32, N * 64, 3)
    pick(a.GetPhyAddr(), b.GetPhyAddr(), d.GetPhyAddr(), N)
    want = [u if u < v else v for u, v in zip(map(int, a.numpy()), map(int, b.numpy()), strict=True)]
    assert [int(v) for v in d.numpy()] == want
    posts = {"post_mode": update}
    keywords = {"LoadAlign": posts, "Compare": {"mode": CMPMODE.LT}, "Select": {}, "StoreAlign": posts}
    assert [name for name, _ in given] == ["LoadAlign", "LoadAlign", "Compare", "Select", "StoreAlign"] * (N - 1)
    for name, kwargs in given:
        assert dict(kwargs) == keywords[name], name
        with pytest.raises(TypeError):
            kwargs["post_mode"] = None
