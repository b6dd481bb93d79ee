"""The in-order fast paths on the cases `test_in_order`'s random programs reach rarely or never: a Select whose
destination shares its first source's bytes (a view of it), a load or a whole-register write into a never-written
register and into one register of a two-register tensor, the lanes a Compare caches in its destination read by a
Select, a store and an op of another width, and a class passed where its instances go. Each program runs once with
the closures and once with every call bound and run by its executor (the same UB bytes and flags, registers, masks
and errors), and its results are checked lane by lane against Python's own comparisons."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from test_in_order import _clear_plans, _subclasses

import regsim as rs
from regsim import Reg
from regsim._src.engine import executors
from regsim._src.engine.spec import REGISTRY
from regsim.errors import ParameterError

GT, LE = rs.CMPMODE.GT, rs.CMPMODE.LE
UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


@pytest.fixture
def both_paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], Any]], tuple[Any, Any]]]:
    """`run(program)`: (its result with the closures, its result with every executor's `specialise` declining)."""

    def run(program: Callable[[], Any]) -> tuple[Any, Any]:
        _clear_plans()
        fast = program()
        monkeypatch.setattr(executors.Executor, "specialise", lambda self, spec, plan, generic: None)
        for cls in _subclasses(executors.Executor):
            if "specialise" in vars(cls):
                monkeypatch.setattr(cls, "specialise", executors.Executor.specialise)
        _clear_plans()
        generic = program()
        monkeypatch.undo()
        _clear_plans()
        return fast, generic

    yield run
    monkeypatch.undo()
    _clear_plans()


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return type(x) is type(y) and len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, np.ndarray):
        return isinstance(y, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
    return bool(x == y)


def _reg_state(r: Reg.RegTensor[Any]) -> list[Any]:
    return [r._raw.copy(), None if r._storage.valid is None else r._storage.valid.copy()]


def _floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """float32 lanes with ties, signed zeros, infinities and NaNs among them."""
    x = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.5], np.float32), n)
    return np.where(rng.random(n) < 0.5, rng.uniform(-2, 2, n).astype(np.float32), x)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fill", ["lsb", "group"])
def test_compare_then_select_store_and_another_width(both_paths: Callable[..., tuple[Any, Any]], seed: int, fill: str) -> None:
    """z = x > y ? x : y under a partial mask, fresh destinations; the compare's mask stored (its bits) and used by a
    Select of uint16 registers (another stride: its lanes are read from the bits, not from the float32 cache)."""
    rng = np.random.default_rng(seed)
    x, y = _floats(rng, 64), _floats(rng, 64)
    h0, h1 = rng.integers(0, 2**16, 128, dtype=np.uint16), rng.integers(0, 2**16, 128, dtype=np.uint16)
    count = int(rng.integers(1, 64))

    def program() -> list[Any]:
        ub = rs.UnifiedBuffer(size=1024)
        xs, ys, zs, bits = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64), ub.alloc(rs.uint8, 32)
        xs.set(x)
        ys.set(y)
        with rs.configure(mask_fill=fill, loops="sequential"), rs.VEC_SCOPE():  # type: ignore[arg-type]
            xr, yr, zr, hr = (Reg.RegTensor(rs.float32) for _ in range(4))
            a16, b16 = Reg.RegTensor.from_numpy(h0, dtype=rs.uint16), Reg.RegTensor.from_numpy(h1, dtype=rs.uint16)
            d16 = Reg.RegTensor(rs.uint16)
            m, gt = Reg.UpdateMask(rs.float32, rs.Ref(count)), Reg.MaskReg()
            Reg.LoadAlign(xr, xs.GetPhyAddr())
            Reg.LoadAlign(yr, ys.GetPhyAddr())
            Reg.Compare(gt, xr, yr, m, mode=GT)
            Reg.Select(zr, xr, yr, gt)
            Reg.Select(hr, xr, yr, gt)  # (a second Select on the cached lanes)
            Reg.StoreAlign(zs.GetPhyAddr(), zr, Reg.CreateMask(rs.float32))
            Reg.StoreAlign(bits.GetPhyAddr(), gt)
            Reg.Select(d16, a16, b16, gt)
            return [zs.numpy(), bits.numpy(), gt._bits.copy(), _reg_state(zr), _reg_state(hr), d16.numpy()]

    fast, generic = both_paths(program)
    assert _same(fast, generic)
    z, packed, gt_bits, _, _, d16 = fast
    taken = [i < count and float(a) > float(b) for i, (a, b) in enumerate(zip(x, y, strict=True))]
    want = [a if t else b for a, b, t in zip(x, y, taken, strict=True)]
    assert z.view(np.uint32).tolist() == np.array(want, np.float32).view(np.uint32).tolist()
    group = [1, 1, 1, 1] if fill == "group" else [1, 0, 0, 0]
    want_bits = [g if t else 0 for t in taken for g in group]
    assert gt_bits.astype(int).tolist() == want_bits
    assert packed.tolist() == [sum(b << k for k, b in enumerate(want_bits[i : i + 8])) for i in range(0, 256, 8)]
    selected16 = [bool(gt_bits[2 * i]) for i in range(128)]  # (uint16 lanes read bit 2i)
    assert d16.tolist() == [int(a) if t else int(b) for a, b, t in zip(h0, h1, selected16, strict=True)]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dst", ["src0", "src1", "view of src0", "view of src1", "fresh"])
def test_select_into_its_own_sources(both_paths: Callable[..., tuple[Any, Any]], seed: int, dst: str) -> None:
    """Select(dst, a, b, m) with dst a, b, or another RegTensor over a's or b's bytes: every lane as Python selects it,
    under partial, empty and full masks."""
    rng = np.random.default_rng(seed)
    a0, b0 = rng.integers(0, 2**32, 64, dtype=np.uint32), rng.integers(0, 2**32, 64, dtype=np.uint32)
    picks = [rng.random(64) < 0.5, np.zeros(64, bool), np.ones(64, bool)]

    def program() -> list[Any]:
        out = []
        with rs.configure(loops="sequential"), rs.VEC_SCOPE():
            for p in picks:
                a, b = Reg.RegTensor.from_numpy(a0, dtype=rs.uint32), Reg.RegTensor.from_numpy(b0, dtype=rs.uint32)
                d = {"src0": a, "src1": b, "view of src0": a.reinterpret(rs.uint32), "view of src1": b.reinterpret(rs.uint32)}
                target = d.get(dst) or Reg.RegTensor(rs.uint32)
                Reg.Select(target, a, b, Reg.MaskReg.from_lanes(rs.uint32, p))
                out.append(_reg_state(target))
        return out

    fast, generic = both_paths(program)
    assert _same(fast, generic)
    for (raw, valid), p in zip(fast, picks, strict=True):
        assert valid is None
        assert raw.view(np.uint32).tolist() == [int(x) if t else int(y) for x, y, t in zip(a0, b0, p, strict=True)]


@pytest.mark.parametrize("k", [0, 1])
def test_select_into_one_register_of_a_pair(both_paths: Callable[..., tuple[Any, Any]], k: int) -> None:
    """Select into register k of a written two-register tensor (its bytes a slice of the pair's): that register as
    Python selects it under full, partial and empty masks, the other register's bytes unchanged."""
    rng = np.random.default_rng(k)
    a0, b0 = rng.integers(0, 2**32, 64, dtype=np.uint32), rng.integers(0, 2**32, 64, dtype=np.uint32)
    pair0 = rng.integers(0, 2**64, 64, dtype=np.uint64)
    picks = [np.ones(64, bool), rng.random(64) < 0.5, np.zeros(64, bool)]

    def program() -> list[Any]:
        out = []
        with rs.configure(loops="sequential"), rs.VEC_SCOPE():
            for p in picks:
                a, b = Reg.RegTensor.from_numpy(a0, dtype=rs.uint32), Reg.RegTensor.from_numpy(b0, dtype=rs.uint32)
                pair = Reg.RegTensor.from_numpy(pair0, trait=Reg.RegTraitNumTwo)
                Reg.Select(pair.reg[k].reinterpret(rs.uint32), a, b, Reg.MaskReg.from_lanes(rs.uint32, p))
                out.append(_reg_state(pair))
        return out

    fast, generic = both_paths(program)
    assert _same(fast, generic)
    low, high = (pair0 & 0xFFFFFFFF).astype(np.uint32), (pair0 >> 32).astype(np.uint32)  # (RegTraitNumTwo: low words first)
    for (raw, valid), p in zip(fast, picks, strict=True):
        assert valid is None
        words = raw.view(np.uint32)
        picked = [int(x) if t else int(y) for x, y, t in zip(a0, b0, p, strict=True)]
        assert words[64 * k : 64 * (k + 1)].tolist() == picked
        assert words[64 * (1 - k) : 64 * (2 - k)].tolist() == (high if k == 0 else low).tolist()


def test_whole_writes_into_never_written_registers(both_paths: Callable[..., tuple[Any, Any]]) -> None:
    """A load, an Add and a Select into a never-written register write all its bytes (its flags dropped); into one
    register of a never-written two-register tensor only that register's (the other's flags stay: reading it raises,
    naming the lane)."""
    values = np.arange(64, dtype=np.uint32) * 0x01010101

    def program() -> list[Any]:
        ub = rs.UnifiedBuffer(size=256)
        src = ub.alloc(rs.uint32, 64)
        src.set(values)
        out: list[Any] = []
        with rs.configure(loops="sequential"), rs.VEC_SCOPE():
            full = Reg.CreateMask(rs.uint32)
            loaded, summed, picked, pair = (
                Reg.RegTensor(rs.uint32),
                Reg.RegTensor(rs.uint32),
                Reg.RegTensor(rs.uint32),
                Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo),
            )
            Reg.LoadAlign(loaded, src.GetPhyAddr())
            Reg.Add(summed, loaded, loaded, full)
            Reg.Select(picked, summed, loaded, full)
            high = pair.reg[1].reinterpret(rs.uint32)
            Reg.LoadAlign(high, src.GetPhyAddr())
            Reg.Add(high, high, loaded, full)
            out += [_reg_state(r) for r in (loaded, summed, picked, pair)]
            try:
                Reg.Add(summed, pair.reg[0].reinterpret(rs.uint32), loaded, full)
            except rs.errors.UninitializedReadError as e:
                out.append(str(e))
        return out

    fast, generic = both_paths(program)
    assert _same(fast, generic)
    (loaded, lv), (summed, sv), (picked, pv), (pair, flags), error = fast
    assert lv is None and sv is None and pv is None
    assert loaded.view(np.uint32).tolist() == values.tolist()
    assert summed.view(np.uint32).tolist() == [(2 * int(v)) % 2**32 for v in values]
    assert picked.view(np.uint32).tolist() == summed.view(np.uint32).tolist()
    assert pair[256:].view(np.uint32).tolist() == [(2 * int(v)) % 2**32 for v in values]
    assert flags is not None and not flags[:256].any() and flags[256:].all()
    assert "lane 0" in error and "never written" in error


@pytest.mark.parametrize("name", ["Select", "Compare"])
def test_a_class_passed_for_its_instances_is_refused_after_calls_were_cached(name: str) -> None:
    """The MaskReg class where a MaskReg goes: a ParameterError naming the operand, also once calls of the same
    signature made with instances are cached (the class's `_sig` is not its instances')."""
    _clear_plans()
    with rs.configure(loops="sequential"), rs.VEC_SCOPE():
        x = Reg.RegTensor.from_numpy(np.zeros(64, np.float32))
        m = Reg.CreateMask(rs.float32)
        call = {
            "Select": lambda mask: Reg.Select(x, x, x, mask),
            "Compare": lambda mask: Reg.Compare(Reg.MaskReg(), x, x, mask, mode=LE),
        }[name]
        call(m)  # (cached now)
        with pytest.raises(ParameterError, match=rf"^{name}: mask = the class MaskReg; accepted: a Reg.MaskReg"):
            call(Reg.MaskReg)
    assert Reg.MaskReg._sig is not Reg.MaskReg()._sig and rs.Ref._sig is not rs.Ref(0)._sig


SCALARS: list[Any] = [1.5, -2.75, 3, 1e30, 2**40, -(2**70), 0.0, -0.0, float("nan"), float("inf"), 1, 1.0, True]
SCALARS += [np.float64(0.1), np.float32(-3.5), np.float16(2.0), np.int64(-7), np.uint8(200), np.int16(300), np.float64(-0.0)]


@pytest.mark.parametrize(
    "dtype", [rs.bfloat16, rs.half, rs.float32, rs.int8, rs.uint16, rs.int32, rs.uint64], ids=lambda d: d.name
)
def test_scalars_converted_once_per_value_convert_as_each_time(dtype: type[rs.DType]) -> None:
    """A scalar operand the backend remembers converted (per type and value) is the conversion's result every time,
    bit for bit, and one that does not convert raises the same error every time; zeros of either sign and NaN are
    converted each time (they are not told apart by value)."""
    from regsim._src.engine.backend import NumpyBackend

    def convert(value: Any) -> Any:
        try:
            out = NumpyBackend(True, "lsb").scalar("Muls", "scalar_value", value, dtype)
        except ParameterError as e:
            return str(e)
        return type(out), np.asarray(out).tobytes()

    with np.errstate(over="ignore"):  # (as in a VF, whose runs ignore floating-point errors: a big value's half is inf)
        first = [convert(v) for v in SCALARS]
        again = [convert(v) for v in SCALARS]
    assert again == first
    for value, got in zip(SCALARS, first, strict=True):
        target = dtype.np_dtype
        if np.issubdtype(target, np.integer):
            fits = not isinstance(value, (float, np.floating)) and np.iinfo(target).min <= int(value) <= np.iinfo(target).max
            if fits:
                assert got == (target.type, np.asarray(int(value), target).tobytes()), value
            else:
                assert isinstance(got, str) and dtype.name in got, value
        else:
            with np.errstate(over="ignore"):
                want = np.asarray(value).astype(target).tobytes()
            assert got == (target.type, want), value


def test_calls_told_apart_by_their_keywords_alone() -> None:
    """Calls of one positional signature with different keywords (Compare GT and LE, Add ZEROING and MERGING, in
    either order and with the keyword left out) each run their own mode, lane by lane; a keyword value that neither
    hashes nor compares (an array) is a ParameterError naming it, before and after the others are cached."""
    _clear_plans()
    a0 = np.array([1, 5, 3, 7] * 16, np.int32)
    b0 = np.array([2, 5, 1, 9] * 16, np.int32)
    merge, zero = Reg.MaskMergeMode.MERGING, Reg.MaskMergeMode.ZEROING
    with rs.configure(loops="sequential"), rs.VEC_SCOPE():
        a, b = Reg.RegTensor.from_numpy(a0), Reg.RegTensor.from_numpy(b0)
        half = Reg.MaskReg.from_lanes(rs.int32, np.arange(64) < 32)
        bad = np.zeros(2)
        for _ in range(2):  # (the second time through: every call's closure cached)
            with pytest.raises(ParameterError, match=r"^Compare: mode = ndarray"):
                Reg.Compare(Reg.MaskReg(), a, b, half, mode=bad)  # type: ignore[arg-type]
            gt, le, eq = Reg.MaskReg(), Reg.MaskReg(), Reg.MaskReg()
            Reg.Compare(gt, a, b, half, mode=GT)
            Reg.Compare(le, a, b, half, mode=LE)
            Reg.Compare(eq, a, b, half)
            got = [gt.lanes(rs.int32).tolist(), le.lanes(rs.int32).tolist(), eq.lanes(rs.int32).tolist()]
            assert got == [
                [i < 32 and int(x) > int(y) for i, (x, y) in enumerate(zip(a0, b0, strict=True))],
                [i < 32 and int(x) <= int(y) for i, (x, y) in enumerate(zip(a0, b0, strict=True))],
                [i < 32 and int(x) == int(y) for i, (x, y) in enumerate(zip(a0, b0, strict=True))],
            ]
            for mode in (merge, zero, None):
                d = Reg.RegTensor.from_numpy(np.full(64, -1, np.int32))
                if mode is None:
                    Reg.Add(d, a, b, half)
                else:
                    Reg.Add(d, a, b, half, mode=mode)
                kept = -1 if mode is merge else 0
                assert d.numpy().tolist() == [
                    int(x) + int(y) if i < 32 else kept for i, (x, y) in enumerate(zip(a0, b0, strict=True))
                ]
    assert len(REGISTRY.entry("Compare")._calls.keyworded) == 1  # (GT and LE: one positional signature)


@pytest.mark.parametrize("dtype", [rs.uint8, rs.int16, rs.float32, rs.uint64], ids=lambda d: d.name)
@pytest.mark.parametrize("seed", range(3))
def test_partial_stores_and_commits_into_written_bytes(
    both_paths: Callable[..., tuple[Any, Any]], dtype: type[rs.DType], seed: int
) -> None:
    """Under partial predicates (random, a tail, none active), into a UB every byte of which was written: a store
    (plain and post-update) writes exactly the active lanes' bytes, an Add ZEROING or MERGING sets exactly the active
    lanes (the others 0 or kept), bit for bit (float32 NaN payloads included); a store reaching past its tensor
    writes its active lanes if they stay inside, and raises (writing nothing) if one leaves it."""
    rng = np.random.default_rng(seed)
    n, k = 256 // dtype.itemsize, 32 // dtype.itemsize  # (lanes in a register; in the 32 bytes a store's last block)
    raw = rng.integers(0, 256, (5, 256), dtype=np.uint8)
    picks = [rng.random(n) < 0.5, np.arange(n) < int(rng.integers(1, k + 1)), np.zeros(n, bool)]
    word = np.dtype(f"u{dtype.itemsize}")

    def program() -> list[Any]:
        ub = rs.UnifiedBuffer(size=5 * 256)
        src, out, post, tail, after = (ub.alloc(dtype, n) for _ in range(5))
        for t, r in zip((src, out, post, tail, after), raw, strict=True):
            t.set(r.view(dtype.np_dtype))
        trail: list[Any] = []
        with rs.configure(loops="sequential"), rs.VEC_SCOPE():
            x = Reg.RegTensor(dtype)
            Reg.LoadAlign(x, src.GetPhyAddr())
            p = post.GetPhyAddr()
            for lanes in picks:
                m = Reg.MaskReg.from_lanes(dtype, lanes)
                Reg.StoreAlign(out.GetPhyAddr(), x, m)
                Reg.StoreAlign(p, x, 0, m, post_mode=UPDATE)
                for mode in (Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING):
                    d = Reg.RegTensor.from_numpy(raw[4].view(dtype.np_dtype), dtype=dtype)
                    Reg.Add(d, x, x, m, mode=mode)
                    trail.append(_reg_state(d))
                try:  # (from the last 32 bytes of `tail`: lanes past its first k must be inactive)
                    Reg.StoreAlign(tail.GetPhyAddr() + (n - k), x, m)
                    trail.append(None)
                except rs.errors.OutOfBoundsError as e:
                    trail.append(str(e))
        return [ub.storage.data.copy(), ub.storage.valid, p.addr, trail]

    fast, generic = both_paths(program)
    assert _same(fast, generic)
    data, valid, _, trail = fast
    assert valid is None
    want = raw.view(word).copy()
    x = raw[0].view(word)
    for lanes in picks:
        want[1][lanes] = x[lanes]
        want[2][lanes] = x[lanes]
        if not lanes[k:].any():
            want[3][n - k :][lanes[:k]] = x[:k][lanes[:k]]
    assert data.view(word).reshape(5, -1).tolist() == want.tolist()
    wrap = 2 ** (8 * dtype.itemsize)
    for j, lanes in enumerate(picks):
        zeroed, merged = trail[3 * j][0].view(word), trail[3 * j + 1][0].view(word)
        for i in range(n):
            if not lanes[i]:
                assert zeroed[i] == 0 and merged[i] == raw[4].view(word)[i]
            elif dtype is not rs.float32:  # (integers wrap: the sum of a lane with itself)
                assert int(zeroed[i]) == int(merged[i]) == 2 * int(x[i].astype(dtype.np_dtype)) % wrap
        outside = trail[3 * j + 2]
        assert (outside is None) == (not lanes[k:].any()), outside


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("fill", ["lsb", "group"])
def test_compare_predicate_read_as_bits(both_paths: Callable[..., tuple[Any, Any]], seed: int, fill: str) -> None:
    """A Compare's and a Compares' predicates (kept as lanes, their bits made when first read) read as bits by mask
    logic (Not, And) under a partial predicate, one of them written over by a second Compare before any read: every
    bit as Python's comparisons set it, the same in both paths."""
    rng = np.random.default_rng(seed)
    x, y = _floats(rng, 64), _floats(rng, 64)
    count = int(rng.integers(1, 64))

    def program() -> list[Any]:
        with rs.configure(mask_fill=fill, loops="sequential"), rs.VEC_SCOPE():  # type: ignore[arg-type]
            xr, yr = Reg.RegTensor.from_numpy(x), Reg.RegTensor.from_numpy(y)
            part, every = Reg.UpdateMask(rs.float32, rs.Ref(count)), Reg.CreateMask(rs.float32)
            gt, le, pos, neither, both = (Reg.MaskReg() for _ in range(5))
            Reg.Compare(gt, xr, yr, every, mode=GT)
            Reg.Compare(gt, xr, yr, part, mode=GT)  # (over the first, unread)
            Reg.Compare(le, xr, yr, every, mode=LE)
            Reg.Compares(pos, xr, 0.0, part, mode=GT)
            Reg.Not(neither, gt, every)
            Reg.And(both, le, pos, every)
            return [m._bits.copy() for m in (gt, le, pos, neither, both)]

    fast, generic = both_paths(program)
    assert _same(fast, generic)
    group = [1, 1, 1, 1] if fill == "group" else [1, 0, 0, 0]
    lanes = range(64)
    gt = [i < count and float(x[i]) > float(y[i]) for i in lanes]
    le = [float(x[i]) <= float(y[i]) for i in lanes]
    pos = [i < count and float(x[i]) > 0.0 for i in lanes]
    want = [gt, le, pos, [not t for t in gt], [a and b for a, b in zip(le, pos, strict=True)]]
    for bits, taken in zip(fast, want, strict=True):
        assert bits.astype(int).tolist() == [g if t else 0 for t in taken for g in group]
