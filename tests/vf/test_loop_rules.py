"""Each rule of the batched-loop rule set (docs/api.md, "The rules"), both ways: a loop it lets
batch and a near twin it must send in order, each run in both loop modes with identical results.

A twin differs from its batched sibling by the one construct its rule is about, so a batcher that
ignored the rule (e.g. took `c += 1` for per-iteration state) would batch the twin and fail here
(and, where the twin's results would differ, fail `run_both` too).
"""

from __future__ import annotations

import gc
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from loop_support import load_kernels, run_both

import regsim as rs
from regsim import Reg
from regsim._src.vf.loops import Decision

TEMPLATE = """
import numpy as np
import regsim as rs
from regsim import Reg

seen = []
state = {{"k": 0}}
UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


def pure_helper(v):
    return v + 1


def impure_helper(v):
    seen.append(v)
    return v


@rs.simd_callee
def load_pure(r, p):
    Reg.LoadAlign(r, p)


@rs.simd_callee
def load_impure(r, p):
    seen.append(1)
    Reg.LoadAlign(r, p)


@rs.simd_callee
def masked_rows(n):
    counter = rs.Ref(n)
    return Reg.UpdateMask(rs.int32, counter)


@rs.simd_vf
def kernel(dst: rs.UbPtr[rs.int32], src: rs.UbPtr[rs.int32], rows: int) -> None:
    x = Reg.RegTensor(rs.int32)
    acc = Reg.RegTensor(rs.int32)
    facc = Reg.RegTensor(rs.float32)
    full = Reg.CreateMask(rs.int32)
    Reg.Duplicate(acc, 0, full)
    Reg.Duplicate(facc, 0.0, Reg.CreateMask(rs.float32))
    c = 0
    q = src.copy()
    cnt = rs.Ref(200)
    for i in range(rows):
{body}
    Reg.StoreAlign(dst + 64 * 8, acc, full)
    Reg.StoreAlign(dst.reinterpret(rs.float32) + 64 * 9, facc, Reg.CreateMask(rs.float32))
"""

LOAD_STORE = "Reg.LoadAlign(x, src + i * 64)\nReg.StoreAlign(dst + i * 64, x, full)"

# (rule, a body the rule lets batch, its twin the rule sends in order, what the twin's reason says)
CASES: list[tuple[str, str, str, str]] = [
    (
        "S1 break",
        LOAD_STORE + "\nfor j in range(3):\n    if j == 1:\n        break",
        LOAD_STORE + "\nif rows > 0:\n    break",
        "break",
    ),
    ("S1 continue", LOAD_STORE + "\nfor j in range(2):\n    continue", "if rows < 0:\n    continue\n" + LOAD_STORE, "continue"),
    (
        "S2 +=",
        "c = 0\nc += 1\nReg.Duplicate(x, c, full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "c += 1\nReg.Duplicate(x, c, full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "c carried across iterations",
    ),
    (
        "S2 p = p + k",
        "p = src + i * 64\nReg.LoadAlign(x, p)\nReg.StoreAlign(dst + i * 64, x, full)",
        "q = q + 64\nReg.LoadAlign(x, q)\nReg.StoreAlign(dst + i * 64, x, full)",
        "q carried across iterations",
    ),
    ("S3 item store", "d = {'k': i}\n" + LOAD_STORE, "state['k'] = 1\n" + LOAD_STORE, "writes Python state"),
    (
        "S4 methods",
        "Reg.LoadAlign(x, (src + i * 64).reinterpret(rs.int32))\nReg.StoreAlign(dst + i * 64, x, full)",
        "seen.append(0)\n" + LOAD_STORE,
        "calls seen.append()",
    ),
    (
        "S5 plain functions",
        "Reg.Duplicate(x, pure_helper(3), full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "Reg.Duplicate(x, impure_helper(3), full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "seen.append",
    ),
    (
        "S5 callees",
        "load_pure(x, src + i * 64)\nReg.StoreAlign(dst + i * 64, x, full)",
        "load_impure(x, src + i * 64)\nReg.StoreAlign(dst + i * 64, x, full)",
        "load_impure",
    ),
    ("S5 print", LOAD_STORE + "\nabs(i)", LOAD_STORE + "\nprint(end='')", "prints"),
    (
        "D1 counter made in the body",
        "n = rs.Ref(10 + i)\nm = Reg.UpdateMask(rs.int32, n)\nReg.LoadAlign(x, src + i * 64)\n"
        "Reg.Adds(x, x, n.value, m)\nReg.StoreAlign(dst + i * 64, x, m)",
        "m = Reg.UpdateMask(rs.int32, cnt)\nReg.LoadAlign(x, src + i * 64)\nReg.Adds(x, x, cnt.value, m)\n"
        "Reg.StoreAlign(dst + i * 64, x, m)",
        "reads a counter made before the loop",
    ),
    (
        "D1 counter made in a callee",
        "m = masked_rows(10)\n" + LOAD_STORE.replace("x, full", "x, m"),
        "m = Reg.UpdateMask(rs.int32, cnt)\nm = Reg.UpdateMask(rs.int32, cnt)\n" + LOAD_STORE.replace("x, full", "x, m"),
        "twice in one iteration",
    ),
    (
        "D2 scans",
        "Reg.LoadAlign(x, src + i * 64)\nReg.Add(acc, acc, x, full)",
        "c2 = Reg.MaskReg()\nReg.LoadAlign(x, src + i * 64)\nReg.AddC(c2, acc, acc, x, full, full)",
        "carries a value across iterations that has no exact scan",
    ),
    (
        "D2 rows in order",
        "y = Reg.RegTensor(rs.float32)\nReg.LoadAlign(y, src.reinterpret(rs.float32) + i * 64)\n"
        "Reg.Add(facc, facc, y, Reg.CreateMask(rs.float32))",
        "Reg.LoadAlign(x, src + i * 64)\nReg.ReduceSum(acc, acc, full)",
        "a register is read before the loop body writes it",
    ),
    (
        "D3 counter before the loop",
        "m = Reg.UpdateMask(rs.int32, cnt)\n" + LOAD_STORE.replace("x, full", "x, m"),
        "left = cnt.value\nm = Reg.UpdateMask(rs.int32, cnt)\n" + LOAD_STORE.replace("x, full", "x, m"),
        "before UpdateMask counts it down",
    ),
    (
        "D4 post-update pointers",
        "Reg.LoadAlign(x, q, 64, post_mode=UPDATE)\nReg.StoreAlign(dst + i * 64, x, full)",
        "Reg.LoadAlign(x, q, 64 * i, post_mode=UPDATE)\nReg.StoreAlign(dst + i * 64, x, full)",
        "differs by iteration",
    ),
    (
        "D5 the index",
        "Reg.LoadAlign(x, src + i * 64)\nReg.Adds(x, x, i * 3 - 1, full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "Reg.LoadAlign(x, src + i * 64)\nif i > 1:\n    Reg.Adds(x, x, 1, full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "the loop index is used as a Python value",
    ),
    (
        "D5 the index as a fill value",
        "Reg.Duplicate(x, i * 2 + 1, full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "Reg.Duplicate(x, int(i), full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "the loop index is used as a Python value",
    ),
    (
        "D5 the index as a start",
        "Reg.Arange(x, i - 3)\nReg.StoreAlign(dst + i * 64, x, full)",
        "Reg.Arange(x, round(i))\nReg.StoreAlign(dst + i * 64, x, full)",
        "the loop index is used as a Python value",
    ),
    (
        "D6 UB shared between iterations",
        "Reg.LoadAlign(x, src + i * 64)\nReg.StoreAlign(dst + i * 64, x, full)",
        "Reg.LoadAlign(x, dst + i * 64)\nReg.StoreAlign(dst + i * 64 + 64, x, full)",
        "another iteration writes",
    ),
    (
        "D6 gathers",  # each row gathers its own 64 src lanes by data-dependent indices (src >> 26): bytes no iteration writes
        "idx = Reg.RegTensor(rs.uint32)\nReg.LoadAlign(idx, src.reinterpret(rs.uint32) + i * 64)\n"
        "Reg.ShiftRights(idx, idx, 26, full)\nReg.Gather(x, src + i * 64, idx, full)\nReg.StoreAlign(dst + i * 64, x, full)",
        "idx = Reg.RegTensor(rs.uint32)\nReg.LoadAlign(idx, src.reinterpret(rs.uint32) + i * 64)\n"
        "Reg.ShiftRights(idx, idx, 26, full)\nReg.Gather(x, dst + i * 64, idx, full)\nReg.StoreAlign(dst + i * 64 + 64, x, full)",
        "another iteration writes",
    ),
    (
        "D8 ops without a batching rule",
        LOAD_STORE,
        "Reg.LoadAlign(x, src + i * 64)\nu = Reg.UnalignRegForStore()\nd = dst + i * 64\nReg.StoreUnAlign(d, x, u, 64)\n"
        "Reg.StoreUnAlignPost(d, u, 0)",
        "runs in order only",
    ),
    ("D9 host reads", LOAD_STORE, LOAD_STORE + "\nrs.printf('')", "printf prints inside the loop"),
]


def _body(code: str) -> str:
    return textwrap.indent(code, " " * 8)


def _world(module: Any, rows: int = 4) -> tuple[rs.UnifiedBuffer, Any]:
    ub = rs.UnifiedBuffer(16384)
    src, dst = ub.alloc(rs.int32, 64 * 8), ub.alloc(rs.int32, 64 * 10)
    src.set(np.arange(64 * 8, dtype=np.int32) * 3 - 100)
    dst.set(np.zeros(64 * 10, np.int32))
    module.seen.clear()
    return ub, lambda: (module.kernel(dst.GetPhyAddr(), src.GetPhyAddr(), rows), len(module.seen))


def _outer(decisions: list[Decision]) -> Decision:
    """The decision of the template's `for i in range(rows)` loop (loops inside it decide first)."""
    line = TEMPLATE.splitlines().index("    for i in range(rows):") + 1
    (found,) = [d for d in decisions if d.site.where.endswith(f":{line} (in kernel)")]
    return found


@pytest.mark.parametrize(("rule", "batches", "twin", "reason"), CASES, ids=[c[0] for c in CASES])
def test_rule_both_ways(rule: str, batches: str, twin: str, reason: str, tmp_path: Path) -> None:
    ok = load_kernels(tmp_path, TEMPLATE.format(body=_body(batches)))
    decisions, _ = run_both(lambda: _world(ok))
    assert _outer(decisions).how == "batched", [str(d) for d in decisions]
    other = load_kernels(tmp_path, TEMPLATE.format(body=_body(twin)))
    decisions, _ = run_both(lambda: _world(other))
    outer = _outer(decisions)
    assert outer.how == "sequential" and reason in outer.why, [str(d) for d in decisions]


def test_d7_an_error_in_some_iteration_is_raised_by_the_in_order_run(tmp_path: Path) -> None:
    """D7: a store leaving its tensor in iteration 3 only: the batched attempt runs in order, so the
    error, its message and the rows 0-2 it leaves written are the in-order run's."""
    module = load_kernels(
        tmp_path, TEMPLATE.format(body=_body("Reg.LoadAlign(x, src + i * 64)\nReg.StoreAlign(dst + i * 200, x, full)"))
    )
    decisions, _ = run_both(lambda: _world(module))
    outer = _outer(decisions)
    assert outer.how == "sequential" and "a store outside its tensor in some iteration" in outer.why, outer.why
    ub, run = _world(module)
    with pytest.raises(rs.errors.OutOfBoundsError, match=r"UB bytes \[\d+, \d+\)"):
        run()
    written = ub.storage.data[64 * 8 * 4 :].view(np.int32)  # dst: rows 0-2 stored, as the in-order run left them
    assert (written[[0, 200, 400]] == np.arange(64 * 8, dtype=np.int32)[[0, 64, 128]] * 3 - 100).all()


@pytest.mark.parametrize(("rows", "why"), [(1, "fewer than 2 iterations"), (0, "fewer than 2 iterations")])
def test_d10_sizes(rows: int, why: str, tmp_path: Path) -> None:
    module = load_kernels(tmp_path, TEMPLATE.format(body=_body(LOAD_STORE)))
    decisions, _ = run_both(lambda: _world(module, rows))
    assert _outer(decisions).how == "sequential" and why in _outer(decisions).why


def test_d10_a_loop_inside_a_batched_loop_runs_in_order_inside_it(tmp_path: Path) -> None:
    body = (
        "n = rs.Ref(100)\nfor j in range(2):\n    m = Reg.UpdateMask(rs.int32, n)\n    Reg.LoadAlign(x, src + i * 128 + j * 64)\n"
        "    Reg.StoreAlign(dst + i * 128 + j * 64, x, m)"
    )
    module = load_kernels(tmp_path, TEMPLATE.format(body=_body(body)))
    decisions, _ = run_both(lambda: _world(module))
    inner = [d for d in decisions if d is not _outer(decisions)]
    assert _outer(decisions).how == "batched" and [d.how for d in inner] == ["sequential"], [str(d) for d in decisions]
    assert "inside a batched loop" in inner[0].why


def test_d10_an_over_long_loop_is_refused_before_it_starts() -> None:
    @rs.simd_vf
    def kernel(p: rs.UbPtr[rs.int32]) -> None:
        r = Reg.RegTensor(rs.int32)
        for i in range(4_000_000_000):
            Reg.LoadAlign(r, p + i)

    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.int32, 64)
    t.set(np.zeros(64, np.int32))
    for mode in ("auto", "sequential"):
        with (
            rs.configure(loops=mode),
            pytest.raises(rs.errors.ParameterError, match=r"range: iterations = 4000000000 .*at most 1048576"),
        ):
            kernel(t.GetPhyAddr())
    with rs.configure(max_loop_iterations=3), pytest.raises(rs.errors.ParameterError, match="at most 3"):
        kernel(t.GetPhyAddr())
    with pytest.raises(rs.errors.ParameterError, match="max_loop_iterations"), rs.configure(max_loop_iterations=0):
        pass


def test_d12_a_forced_mode_is_the_users_loops_only() -> None:
    """loops="batched" makes a user loop that cannot batch an error, but the library VFs a
    memory-level call runs keep batching where exact (their own loops are not the user's)."""
    ub = rs.UnifiedBuffer()
    a, b, d = (ub.alloc(rs.float32, 1024) for _ in range(3))
    a.set(np.arange(1024, dtype=np.float32))
    b.set(np.ones(1024, np.float32))
    with rs.configure(loops="batched"):
        rs.AscendC.Add(d, a, b, 1000)
        rs.AscendC.Add(d, a, b, [0xFFFF, 0], 4, rs.AscendC.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    assert (d.numpy()[:1000] == np.arange(1000) + 1).all()


def test_internal_errors_of_the_batched_path_are_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """D11: an exception regsim's own code raises on the batched backend is a bug: it is raised,
    with a note, not covered by an in-order rerun."""
    from regsim._src.vf import batched

    # a method of regsim's own that fails when called with commit's arguments (raised in regsim's code)
    monkeypatch.setattr(batched.BatchedBackend, "commit", batched._step)

    @rs.simd_vf
    def kernel(p: rs.UbPtr[rs.int32]) -> None:
        r = Reg.RegTensor(rs.int32)
        m = Reg.CreateMask(rs.int32)
        for i in range(4):
            Reg.LoadAlign(r, p + i * 64)
            Reg.Adds(r, r, 1, m)

    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.int32, 256)
    t.set(np.zeros(256, np.int32))
    with pytest.raises(TypeError, match="positional argument") as info:
        kernel(t.GetPhyAddr())
    assert any("a regsim bug" in note for note in info.value.__notes__)
    with rs.configure(loops="sequential"):
        kernel(t.GetPhyAddr())  # (the in-order path does not use the batched backend)


@pytest.mark.parametrize("phase", ["check_independent", "collapse"])
def test_an_internal_error_when_the_batch_ends_is_raised_and_leaves_no_loop_state(
    phase: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """D11 at the loop's end (the hazard check, the stores made): raised with the note, and the
    context the loop set (its backend, the host-read guard) is gone: host code runs on after it."""
    from regsim._src.vf import batched

    def broken(self: Any) -> None:
        raise ValueError("broken on purpose")

    monkeypatch.setattr(batched.BatchedBackend, phase, broken)

    @rs.simd_vf
    def kernel(p: rs.UbPtr[rs.int32]) -> None:
        r = Reg.RegTensor(rs.int32)
        m = Reg.CreateMask(rs.int32)
        for i in range(4):
            Reg.LoadAlign(r, p + i * 64)
            Reg.Adds(r, r, 1, m)
            Reg.StoreAlign(p + i * 64, r, m)

    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.int32, 256)
    t.set(np.zeros(256, np.int32))
    with pytest.raises(ValueError, match="broken on purpose") as info:
        kernel(t.GetPhyAddr())
    assert any("a regsim bug" in note for note in info.value.__notes__)
    t.set(np.arange(256, dtype=np.int32))  # (a host write: refused inside a batched loop, fine after it)
    assert (t.numpy() == np.arange(256)).all()


def test_a_callee_counting_its_own_rows_batches_with_the_in_order_bits() -> None:
    """The issue's case: a per-row counter made inside the loop (`uint32_t n = cols;`)."""

    @rs.simd_vf
    def rows_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], rows: int, cols: int) -> None:
        x = Reg.RegTensor(rs.float32)
        for i in range(rows):
            n = rs.Ref(cols)
            m = Reg.UpdateMask(rs.float32, n)
            Reg.LoadAlign(x, src + i * 64)
            Reg.StoreAlign(dst + i * 64, x, m)

    def world() -> tuple[rs.UnifiedBuffer, Any]:
        ub = rs.UnifiedBuffer(8192)
        s, d = ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 256)
        s.set(np.arange(256, dtype=np.float32))
        d.set(np.zeros(256, np.float32))
        return ub, lambda: (rows_vf(d.GetPhyAddr(), s.GetPhyAddr(), 4, 10), d.numpy())

    decisions, (_, out) = run_both(world)
    assert [d.how for d in decisions] == ["batched"]
    expected = np.where(np.arange(256) % 64 < 10, np.arange(256), 0)
    assert (out == expected).all()


def test_a_loop_in_order_for_its_trip_count_resolves_none_of_its_calls() -> None:
    """A loop under batch_min_iterations runs in order without the S4/S5 check of its calls: the body's names are
    looked up only by the in-order run itself (once an iteration); with rs.explain recording, the check runs and its
    reason is the one given, as before."""

    class Loads:
        def load(self, r: Any, p: Any) -> None:
            Reg.LoadAlign(r, p)

    class Helpers:
        lookups = 0  #: of `ns` (the check resolves `helpers.ns`, the holder of the method called)

        def __getattribute__(self, name: str) -> Any:
            if name == "ns":
                type(self).lookups += 1
            return object.__getattribute__(self, name)

        ns = Loads()

    helpers = Helpers()

    @rs.simd_vf
    def kernel(p: rs.UbPtr[rs.int32], rows: int) -> None:
        r = Reg.RegTensor(rs.int32)
        for i in range(rows):
            helpers.ns.load(r, p + i * 64)

    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.int32, 256)
    t.set(np.arange(256, dtype=np.int32))
    with rs.configure(batch_min_iterations=16):
        kernel(t.GetPhyAddr(), 2)
        assert Helpers.lookups == 2
        why = rs.explain(kernel, t.GetPhyAddr(), 2)
    assert "a method of a Loads, which may keep Python state (S4)" in why, why


def test_loops_leave_no_reference_cycles() -> None:
    """A loop's run holds the VF's frame only until its first attempt and keeps a copy of the locals without itself:
    a VF whose loops ran batched, in order by their trip count and in order after a peel leaves nothing for the cyclic
    garbage collector."""

    @rs.simd_vf
    def kernel(p: rs.UbPtr[rs.int32], q: rs.UbPtr[rs.int32], rows: int) -> None:
        r = Reg.RegTensor(rs.int32)
        every = Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.ALL)
        for i in range(rows):  # batched
            Reg.LoadAlign(r, p + i * 64)
            Reg.StoreAlign(q + i * 64, r, every)
        for i in range(2):  # in order: fewer than batch_min_iterations
            Reg.LoadAlign(r, p + i * 64)
        for _ in range(rows):  # iteration 0 in order (a post-update stride), the others batched
            Reg.LoadAlign(r, p, 64, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)

    ub = rs.UnifiedBuffer(8192)
    p, q = ub.alloc(rs.int32, 1024), ub.alloc(rs.int32, 1024)
    p.set(np.arange(1024, dtype=np.int32))
    with rs.configure(batch_min_iterations=4):
        kernel(p.GetPhyAddr(), q.GetPhyAddr(), 8)
        gc.collect()
        for _ in range(3):
            kernel(p.GetPhyAddr(), q.GetPhyAddr(), 8)
        assert gc.collect() == 0
    assert (q.numpy()[:512] == np.arange(512, dtype=np.int32)).all()


COMPLETES = """
import regsim as rs
from regsim import Reg


@rs.simd_vf
def copy_rows(dst, src, rows):
    x = Reg.RegTensor(rs.int32)
    full = Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.ALL)
    for i in range(rows):
        Reg.LoadAlign(x, src + i * 64)
        Reg.StoreAlign(dst + i * 64, x, full)
"""


def test_a_loop_whose_stores_complete_the_ub_leaves_it_written_in_both_modes(tmp_path: Path) -> None:
    """The last never-written bytes of a UB written by a batched loop's stores: both modes leave the same bytes
    and a UB every byte of which reads as written."""
    module = load_kernels(tmp_path, COMPLETES)

    def world() -> tuple[rs.UnifiedBuffer, Any]:
        ub = rs.UnifiedBuffer(4096)
        src, dst = ub.alloc(rs.int32, 512), ub.alloc(rs.int32, 512)
        src.set(np.arange(512, dtype=np.int32) * 7 - 3)
        return ub, lambda: (module.copy_rows(dst.GetPhyAddr(), src.GetPhyAddr(), 8), dst.numpy().tolist())

    decisions, (_, copied) = run_both(world)
    assert [d.how for d in decisions] == ["batched"]
    assert copied == [i * 7 - 3 for i in range(512)]
    ub, run = world()
    run()
    assert ub.storage.all_written(0, 4096)
