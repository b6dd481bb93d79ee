"""`rs.trace()`: every Reg call of a kernel, with its operands, active lanes, UB ranges and line."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest
from loop_support import failed_attempts

import regsim as rs
from vf_examples.add_carry_vf import add_vf


def test_trace_of_the_add_vf_kernel(tmp_path: Path) -> None:
    ub = rs.UnifiedBuffer()
    src0, src1, dst0 = (ub.alloc(rs.uint32, 128) for _ in range(3))
    dst1 = ub.alloc(rs.uint32, 16)
    src0.set(np.arange(128, dtype=np.uint32))
    src1.set(np.full(128, 0xFFFFFFFF, np.uint32))
    with rs.trace() as t, rs.configure(loops="sequential"):  # (in order: a record per call of each iteration)
        add_vf(dst0.GetPhyAddr(), dst1.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), 100, 2, 64)
    apis = [r.api for r in t.records]
    # CreateMask, then per iteration: UpdateMask, two loads, Add with carry, two stores
    assert apis == ["CreateMask"] + ["UpdateMask", "LoadAlign", "LoadAlign", "Add/carry", "StoreAlign/mask", "StoreAlign"] * 2
    assert [(r.active, r.lanes) for r in t.records if r.api == "UpdateMask"] == [(64, 64), (36, 64)]
    add = [r for r in t.records if r.api == "Add/carry"]
    assert [(r.active, r.lanes) for r in add] == [(64, 64), (36, 64)], "the tail iteration has 100 - 64 lanes"
    assert add[0].dtypes == "MaskReg, uint32, uint32, uint32, MaskReg"
    loads = [r for r in t.records if r.api == "LoadAlign"]
    assert loads[0].reads == [(src0.addr, src0.addr + 256)] and loads[3].reads == [(src1.addr + 256, src1.addr + 512)]
    stores = [r for r in t.records if r.api == "StoreAlign"]
    assert stores[1].writes == [(dst0.addr + 256, dst0.addr + 256 + 36 * 4)], "only the active lanes' bytes"
    assert all(r.line.startswith("add_carry_vf.py:") for r in t.records)
    # each call's own line (a loop body's too: the loop rewrite moves its lines once), found by its source text
    source = Path(inspect.getsourcefile(inspect.unwrap(add_vf)) or "").read_text().splitlines()
    for r in t.records:
        text = source[int(r.line.split(":")[1]) - 1]
        assert f"Reg.{r.api.split('/')[0]}(" in text, (r.api, r.line, text)
    table = t.table()
    assert "Add/carry" in table and "36/64" in table and len(table.splitlines()) == len(t) + 1
    path = tmp_path / "trace.json"
    t.save_chrome(path)
    events = json.loads(path.read_text())["traceEvents"]
    assert [e["name"] for e in events if e["ph"] == "X"] == apis
    named = {e["name"]: e["args"]["name"] for e in events if e["ph"] == "M"}
    assert named["process_name"].startswith("regsim") and named["thread_name"] == "Reg calls"


def test_a_batched_loop_is_traced_as_it_ran() -> None:
    """In the default mode the AddVF loop runs batched; each of its calls is one record covering
    both iterations: their active lanes and UB ranges together."""
    ub = rs.UnifiedBuffer()
    src0, src1, dst0 = (ub.alloc(rs.uint32, 128) for _ in range(3))
    dst1 = ub.alloc(rs.uint32, 16)
    src0.set(np.arange(128, dtype=np.uint32))
    src1.set(np.full(128, 0xFFFFFFFF, np.uint32))
    with rs.trace() as t:
        text = rs.explain(add_vf, dst0.GetPhyAddr(), dst1.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), 100, 2, 64)
    assert "batched (2 iterations)" in text
    assert [(r.api, r.rows) for r in t.records] == [("CreateMask", 1)] + [
        (api, 2) for api in ("UpdateMask", "LoadAlign", "LoadAlign", "Add/carry", "StoreAlign/mask", "StoreAlign")
    ]
    update, add = t.records[1], t.records[4]
    assert (update.active, update.lanes) == (100, 128) and (add.active, add.lanes) == (100, 128)
    assert t.records[2].reads == [(src0.addr, src0.addr + 512)], "both iterations' loads, one range"
    assert t.records[6].writes == [(dst0.addr, dst0.addr + 256 + 36 * 4)], "the active lanes' bytes, adjacent ranges joined"
    assert "UpdateMask x2" in t.table()
    assert t.chrome()["traceEvents"][3]["args"]["rows"] == 2


def test_no_trace_outside_the_block() -> None:
    with rs.trace() as t:
        pass
    with rs.VEC_SCOPE():
        rs.Reg.CreateMask(rs.uint8)
    assert len(t) == 0


def test_mask_print_shows_the_lanes_of_a_dtype(capsys) -> None:  # type: ignore[no-untyped-def]
    m = rs.Reg.MaskReg.from_lanes(rs.uint32, np.arange(64) < 36)
    m.Print(rs.uint32)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "MaskReg: 0x" + f"{sum(1 << (4 * i) for i in range(36)):064x}"
    assert out[1] == "lanes of uint32: 36 of 64 active"
    assert out[2] == "    0: 11111111 11111111 11111111 11111111"
    assert out[3] == "   32: 1111.... ........ ........ ........"


def test_an_undone_batched_attempt_leaves_no_records() -> None:
    """A loop whose batched attempt stops at an op with no batching rule (a DIST_PACK_B16 store) runs in order:
    the trace holds the in-order run's calls only, as with loops="sequential" (CreateMask, then LoadAlign, Adds,
    StoreAlign an iteration)."""

    @rs.simd_vf
    def packing(dst: rs.UbPtr[rs.uint16], src: rs.UbPtr[rs.uint16]) -> None:
        x, m = rs.Reg.RegTensor(rs.uint16), rs.Reg.CreateMask(rs.uint16)
        for i in range(3):
            rs.Reg.LoadAlign(x, src + i * 128)
            rs.Reg.Adds(x, x, 1, m)
            rs.Reg.StoreAlign(dst + i * 64, x, m, dist=rs.Reg.StoreDist.DIST_PACK_B16)

    counts = []
    for mode in ("sequential", "auto"):
        ub = rs.UnifiedBuffer(4096)
        dst, src = ub.alloc(rs.uint16, 192), ub.alloc(rs.uint16, 384)
        src.set(np.arange(384, dtype=np.uint16))
        with rs.configure(loops=mode), rs.trace(detailed=True) as t:
            packing(dst.GetPhyAddr(), src.GetPhyAddr())
        counts.append([r.api.split("/")[0] for r in t.records])
        assert len(t.vfs) == 1 and t.vfs[0] == (0, len(t.records))
    assert counts[0] == counts[1] == ["CreateMask"] + ["LoadAlign", "Adds", "StoreAlign"] * 3


@rs.simd_callee
def _put_unaligned(d: rs.UbPtr[rs.int32], x: rs.Reg.RegTensor[rs.int32]) -> None:
    u = rs.Reg.UnalignRegForStore()
    rs.Reg.StoreUnAlign(d, x, u, 64)
    rs.Reg.StoreUnAlignPost(d, u, 0)


def test_a_traced_batched_attempt_stops_at_an_op_with_no_batching_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """A traced loop's batched attempt reaching an op with no batching rule (StoreUnAlignPost, in a helper the loop's
    look at its calls does not see into) stops there with `InOrderOnly`, as with no trace: the loop runs in order and
    the trace holds the records loops="sequential" makes, field by field, and the same UB bytes."""

    @rs.simd_vf
    def unaligned(dst: rs.UbPtr[rs.int32], src: rs.UbPtr[rs.int32]) -> None:
        x = rs.Reg.RegTensor(rs.int32)
        for i in range(8):
            rs.Reg.LoadAlign(x, src + i * 64)
            _put_unaligned(dst + i * 64, x)

    failed = failed_attempts(monkeypatch)
    runs = []
    for mode in ("sequential", "auto"):
        ub = rs.UnifiedBuffer(8192)
        dst, src = ub.alloc(rs.int32, 512), ub.alloc(rs.int32, 512)
        src.set(np.arange(512, dtype=np.int32) * 3)
        with rs.configure(loops=mode, batch_min_iterations=2), rs.trace(detailed=True) as t:
            unaligned(dst.GetPhyAddr(), src.GetPhyAddr())
        fields = ("api", "dtypes", "line", "active", "lanes", "reads", "writes", "rows", "iteration", "spans", "points")
        runs.append(([tuple(getattr(r, f) for f in fields) for r in t.records], ub.storage.data.tobytes()))
    assert failed == ["InOrderOnly"]
    assert runs[0] == runs[1]
    assert [r[0].split("/")[0] for r in runs[1][0]] == ["LoadAlign", "StoreUnAlign", "StoreUnAlignPost"] * 8
    assert [r[8] for r in runs[1][0]] == [(i,) for i in range(8) for _ in range(3)]
    assert [int(v) for v in np.frombuffer(runs[1][1], np.int32)[:512]] == [3 * k for k in range(512)]


def test_detailed_trace_keeps_rows() -> None:
    """A batched call's rows, row by row: AddWithoutUnRollVF's loads, 256 B a repeat."""
    from vf_examples import bank_conflict_3510 as bc

    rng = np.random.default_rng(0)
    x, y = bc.inputs(6, rng)
    with rs.trace(detailed=True) as t:
        bc.kernel(6, x, y)
    load = next(r for r in t.records if r.api == "LoadAlign")
    reps = bc.CASES[6][0] // bc.ONE_REP
    assert load.rows == reps and len(load.spans) == 1
    write, lo, hi, rows = load.spans[0]
    assert not write and list(lo) == [256 * i for i in range(reps)] and list(hi - lo) == [256] * reps
    assert list(rows) == list(range(reps))


@rs.simd_vf
def masked_block_store(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], count: int) -> None:
    """A DATA_BLOCK_COPY store of the first `count` lanes, blocks 256 B apart (block stride 8), twice."""
    x = rs.Reg.RegTensor(rs.float32)
    for i in range(2):
        n = rs.Ref(count)
        mask = rs.Reg.UpdateMask(rs.float32, n)
        rs.Reg.LoadAlign(x, src + i * 64)
        rs.Reg.StoreAlign(dst + i * 8, x, 8, mask, data_mode=rs.Reg.DataCopyMode.DATA_BLOCK_COPY)


def test_a_store_notes_each_block_from_its_first_to_its_last_active_lane() -> None:
    """An in-order store's writes (`TracingBackend.store`: whole blocks noted at once, a partly active one from its
    first to its last active lane, an inactive one not at all) and the profile's store bytes made of them, in both loop
    modes: the oracle counts the active lanes of each 8-lane block in Python ints."""
    for count in (64, 20, 8, 3):
        want = []  # per iteration: each 32 B block's active lanes' bytes (block k of iteration i at 256 k + 32 i)
        for i in range(2):
            for k in range(8):
                active = [lane for lane in range(8 * k, 8 * k + 8) if lane < count]
                if active:
                    lo = 256 * k + 32 * i + 4 * (active[0] - 8 * k)
                    want.append((lo, lo + 4 * len(active)))
        stored = []
        for mode in ("sequential", "auto"):
            ub = rs.UnifiedBuffer(8192)
            dst, src = ub.alloc(rs.float32, 512), ub.alloc(rs.float32, 128)
            src.set(np.arange(128, dtype=np.float32))
            with rs.configure(loops=mode):
                if mode == "sequential":
                    with rs.trace(detailed=True) as t:
                        masked_block_store(dst.GetPhyAddr(), src.GetPhyAddr(), count)
                    writes = [w for r in t.records if r.api.startswith("StoreAlign") for w in r.writes]
                    assert [(a - dst.addr, b - dst.addr) for a, b in writes] == want
                p = rs.profile(masked_block_store, dst.GetPhyAddr(), src.GetPhyAddr(), count)
            stored.append(p.bytes["store"])
        assert stored == [sum(b - a for a, b in want)] * 2


def test_an_untimed_trace_records_the_same_calls_with_no_host_times() -> None:
    """`rs.profile`'s own trace (`timed=False`) takes no host times; every other field of its records is the timed
    trace's, in both loop modes."""
    from regsim._src.vf import trace as tracing

    fields = ("api", "dtypes", "line", "active", "lanes", "reads", "writes", "rows", "boxes")
    for mode in ("sequential", "auto"):
        made = []
        for timed in (True, False):
            ub = rs.UnifiedBuffer(8192)
            dst, src = ub.alloc(rs.float32, 512), ub.alloc(rs.float32, 128)
            src.set(np.arange(128, dtype=np.float32))
            with rs.configure(loops=mode), tracing.Tracing(tracing.Trace(detailed=True, timed=timed)) as t:
                masked_block_store(dst.GetPhyAddr(), src.GetPhyAddr(), 20)
            made.append([tuple(getattr(r, f) for f in fields) for r in t.records])
            times = [(r.start, r.duration) for r in t.records]
            assert all(s > 0 for s, _ in times) if timed else set(times) == {(0.0, 0.0)}
        apis = [r[0].split("/")[0] for r in made[0]]
        assert made[0] == made[1] and apis == ["UpdateMask", "LoadAlign", "StoreAlign"] * (2 if mode == "sequential" else 1)
