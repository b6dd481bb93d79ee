"""`rs.trace()`: every Reg call of a kernel, with its operands, active lanes, UB ranges and line."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np

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
