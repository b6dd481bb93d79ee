"""The C API's address registers (`asc_update_addr_reg_b8/_b16/_b32`), `asc_get_mask_spr_b16/_b32` and
`asc_mem_bar` (docs/decisions/capi.md#capi-addr-reg, docs/decisions/capi.md#capi-mask-spr,
docs/decisions/capi.md#capi-mem-bar), against per-lane oracles written here, in both loop modes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg, capi, errors

LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])
#: the width suffixes and their bytes per offset unit (the page: b8 1 byte, b16 2, b32 4)
WIDTH = {"b8": 1, "b16": 2, "b32": 4}
U64 = st.integers(0, 2**64 - 1)


def _copy_oracle(src: bytes, dst: bytearray, counts: list[int], offsets: list[int], unit: int) -> None:
    """Each iteration (i_outer, ..., i_inner) copies the 256 bytes at byte Σ i_k·offset_k·unit, offset0 with
    the innermost loop's iteration number (0, 1, ...), from src to the same place in dst."""
    for flat in range(int(np.prod(counts))):
        numbers, rest = [], flat
        for n in reversed(counts):  # innermost first
            numbers.append(rest % n)
            rest //= n
        at = sum(i * o for i, o in zip(numbers, offsets, strict=False)) * unit
        dst[at : at + 256] = src[at : at + 256]


def _nested_copy(name: str, counts: list[int], offsets: list[int], starts: list[int]) -> Any:
    """A VF of len(counts) nested loops (outermost first, loop k over range(starts[k], starts[k] + counts[k]))
    copying one register per innermost iteration through `name(*offsets)`."""
    update = getattr(capi, name)
    depth = len(counts)

    def body(s: Any, d: Any) -> None:
        r = Reg.RegTensor(rs.uint8)
        areg = update(*offsets)
        capi.asc_loadalign(r, s, areg)
        capi.asc_storealign(d, r, areg, capi.asc_create_mask_b8(capi.PAT_ALL))

    r0, r1, r2 = (range(a, a + n) for a, n in zip([*starts, 0, 0][:3], [*counts, 1, 1][:3], strict=True))
    if depth == 1:

        @rs.simd_vf
        def vf1(s: Any, d: Any) -> None:
            for _ in range(r0.start, r0.stop):
                body(s, d)

        return vf1
    if depth == 2:

        @rs.simd_vf
        def vf2(s: Any, d: Any) -> None:
            for _ in range(r0.start, r0.stop):
                for _ in range(r1.start, r1.stop):
                    body(s, d)

        return vf2

    @rs.simd_vf
    def vf3(s: Any, d: Any) -> None:
        for _ in range(r0.start, r0.stop):
            for _ in range(r1.start, r1.stop):
                for _ in range(r2.start, r2.stop):
                    body(s, d)

    return vf3


def _run_copy(name: str, counts: list[int], offsets: list[int], starts: list[int], loops: str) -> None:
    unit = WIDTH[name.rsplit("_", 1)[1]]
    reach = sum((n - 1) * o for n, o in zip(reversed(counts), offsets, strict=False)) * unit + 256
    rng = np.random.default_rng(len(counts) * 7 + sum(offsets))
    data = rng.integers(0, 256, reach, dtype=np.uint8)
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.uint8, reach), ub.alloc(rs.uint8, reach)
    src.set(data)
    dst.set(np.zeros(reach, np.uint8))
    want = bytearray(reach)
    _copy_oracle(data.tobytes(), want, counts, offsets, unit)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _nested_copy(name, counts, offsets, starts)(src.GetPhyAddr(), dst.GetPhyAddr())
    assert dst.numpy().tobytes() == bytes(want)


@LOOPS
@pytest.mark.parametrize("name", ["asc_update_addr_reg_b8", "asc_update_addr_reg_b16", "asc_update_addr_reg_b32"])
def test_update_addr_reg_page_example(name: str, loops: str) -> None:
    # the page's example: one loop, offset one register (256 bytes) of the width's elements
    _run_copy(name, [4], [256 // WIDTH[name.rsplit("_", 1)[1]]], [0], loops)


@LOOPS
def test_update_addr_reg_counts_iterations_not_the_loop_variable(loops: str) -> None:
    # `for i in range(3, 6)`: the hardware loop's iterations are 0, 1, 2
    _run_copy("asc_update_addr_reg_b16", [3], [128], [3], loops)


@LOOPS
def test_update_addr_reg_offset0_is_the_innermost_loop(loops: str) -> None:
    # 3 outer × 2 inner: offset0 (the innermost) 128 uint16 = 256 B, offset1 512 uint16 = 1 KiB
    _run_copy("asc_update_addr_reg_b16", [3, 2], [128, 512], [0, 0], loops)
    # fewer offsets than loops: offset0 is still the innermost loop's; the outer loop repeats the copies
    _run_copy("asc_update_addr_reg_b32", [2, 3], [64], [1, 0], loops)


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    width=st.sampled_from(sorted(WIDTH)),
    depth=st.integers(1, 3),
    loops=st.sampled_from(["auto", "sequential"]),
)
def test_update_addr_reg_hypothesis(data: st.DataObject, width: str, depth: int, loops: str) -> None:
    counts = data.draw(st.lists(st.integers(1, 3), min_size=depth, max_size=depth))
    given_offsets = data.draw(st.integers(1, depth))
    blocks = 32 // WIDTH[width]  # offsets in 32-byte steps (the aligned loads' alignment), 0 allowed
    offsets = data.draw(st.lists(st.integers(0, 12).map(lambda k: k * blocks), min_size=given_offsets, max_size=given_offsets))
    starts = data.draw(st.lists(st.integers(0, 5), min_size=depth, max_size=depth))
    _run_copy(f"asc_update_addr_reg_{width}", counts, offsets, starts, loops)


def test_update_addr_reg_runs_batched_in_auto_mode() -> None:
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.uint8, 1024), ub.alloc(rs.uint8, 1024)
    src.set(np.arange(1024) % 251)
    vf = _nested_copy("asc_update_addr_reg_b8", [4], [256], [0])
    text = rs.explain(vf, src.GetPhyAddr(), dst.GetPhyAddr())
    assert "batched (4 iterations)" in text
    assert dst.numpy().tolist() == (np.arange(1024) % 251).tolist()


def test_update_addr_reg_in_a_loop_run_in_order_by_its_source() -> None:
    # a `break` makes the loop run in order from the start (its iteration numbers still counted)
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.uint16, 512), ub.alloc(rs.uint16, 512)
    src.set(np.arange(512))
    dst.set(np.zeros(512, np.uint16))

    @rs.simd_vf
    def vf(s: Any, d: Any) -> None:
        r = Reg.RegTensor(rs.uint16)
        for i in range(10, 20):
            if i == 12:
                break
            areg = capi.asc_update_addr_reg_b16(128)
            capi.asc_loadalign(r, s, areg)
            capi.asc_storealign(d, r, areg, capi.asc_create_mask_b16(capi.PAT_ALL))

    vf(src.GetPhyAddr(), dst.GetPhyAddr())
    assert dst.numpy().tolist() == list(range(256)) + [0] * 256


def test_update_addr_reg_refusals_write_nothing() -> None:
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.uint8, 1024), ub.alloc(rs.uint8, 1024)
    src.set(np.ones(1024, np.uint8))
    dst.set(np.zeros(1024, np.uint8))
    with pytest.raises(errors.VfContextError, match=r"^asc_update_addr_reg_b8"):
        capi.asc_update_addr_reg_b8(32)

    @rs.simd_vf
    def too_many(s: Any, d: Any) -> None:
        r = Reg.RegTensor(rs.uint8)
        for _ in range(2):
            areg = capi.asc_update_addr_reg_b8(256, 512)  # two offsets, one loop
            capi.asc_loadalign(r, s, areg)
            capi.asc_storealign(d, r, areg, capi.asc_create_mask_b8(capi.PAT_ALL))

    for loops in ("auto", "sequential"):
        with (
            rs.configure(loops=loops),  # type: ignore[arg-type]
            pytest.raises(errors.ParameterError, match=r"^asc_update_addr_reg_b8: offsets = 2 offsets inside 1 VF loop;"),
        ):
            too_many(src.GetPhyAddr(), dst.GetPhyAddr())
    assert not dst.numpy().any()

    @rs.simd_vf
    def no_loop(s: Any) -> None:
        capi.asc_update_addr_reg_b32(64)

    with pytest.raises(errors.ParameterError, match=r"^asc_update_addr_reg_b32: offsets = 1 offsets inside 0 VF loops"):
        no_loop(src.GetPhyAddr())

    @rs.simd_vf
    def wide(s: Any) -> None:
        for _ in range(2):
            capi.asc_update_addr_reg_b16(2**32)

    with pytest.raises(errors.ParameterError, match=r"^asc_update_addr_reg_b16: .*stride0 = 4294967296"):
        wide(src.GetPhyAddr())
    with rs.VEC_SCOPE(), pytest.raises(errors.ParameterError, match=r"^asc_update_addr_reg_b16: arguments"):
        capi.asc_update_addr_reg_b16(1, 2, 3, 4, 5)
    assert not hasattr(capi, "asc_update_addr_reg")


# --- asc_get_mask_spr_b16 / _b32 -------------------------------------------------------------------------------------
def _mask_spr_oracle(size: int, high: int, low: int) -> list[int]:
    """Predicate bit p = bit p // size of {MASK1, MASK0} (b16: 128 bits each doubled; b32: MASK0's 64, each ×4)."""
    word = low | high << 64
    return [(word >> (p // size)) & 1 if p // size < 256 // size else 0 for p in range(256)]


@settings(max_examples=30, deadline=None)
@given(high=U64, low=U64, width=st.sampled_from(["b16", "b32"]))
def test_get_mask_spr_against_the_oracle(high: int, low: int, width: str) -> None:
    rs.UnifiedBuffer(size=1024)
    rs.AscendC.SetVectorMask(rs.uint16 if width == "b16" else rs.uint32, high, low)
    with rs.VEC_SCOPE():
        mask = getattr(capi, f"asc_get_mask_spr_{width}")()
    assert mask.bits().astype(int).tolist() == _mask_spr_oracle(WIDTH[width], high, low)


def test_get_mask_spr_widths_and_refusals() -> None:
    assert not hasattr(capi, "asc_get_mask_spr_b8")  # the page: b16 and b32 only
    with pytest.raises(errors.VfContextError, match=r"^asc_get_mask_spr_b16"):
        capi.asc_get_mask_spr_b16()
    with rs.VEC_SCOPE(), pytest.raises(errors.ParameterError, match=r"^asc_get_mask_spr_b32: arguments"):
        capi.asc_get_mask_spr_b32(1)


@LOOPS
def test_get_mask_spr_page_example(loops: str) -> None:
    # the page's add_vf: an add of 0 under the SPR mask, stored under asc_update_mask_b16(count); the
    # lanes the SPR mask leaves out are zeroed, the lanes past count keep dst
    rs.UnifiedBuffer(size=8192)
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.int16, 512), ub.alloc(rs.int16, 512)
    x = (np.arange(512) * 37 % 2000 - 1000).astype(np.int16)
    src.set(x)
    dst.set(np.full(512, 9, np.int16))
    high, low = 0x0123_4567_89AB_CDEF, 0xF0F0_0F0F_FF00_00FF
    rs.AscendC.SetVectorMask(rs.int16, high, low)

    @rs.simd_vf
    def add_vf(d: Any, s: Any, count: int, one: int, repeat: int) -> None:
        a, b = Reg.RegTensor(rs.int16), Reg.RegTensor(rs.int16)
        add_mask = capi.asc_get_mask_spr_b16()
        left = rs.Ref(count)
        for i in range(repeat):
            mask = capi.asc_update_mask_b16(left)
            capi.asc_loadalign(a, s + i * one)
            capi.asc_add_scalar(b, a, 0, add_mask)
            capi.asc_storealign(d + i * one, b, mask)

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        add_vf(dst.GetPhyAddr(), src.GetPhyAddr(), 300, 128, 4)
    word = low | high << 64
    want = [int(x[i]) if (word >> (i % 128)) & 1 else 0 for i in range(300)] + [9] * 212
    assert dst.numpy().tolist() == want


# --- asc_mem_bar ----------------------------------------------------------------------------------------------------
ALL_MEM_TYPES = [getattr(capi, n) for n in rs._src.model.enums.MEM_TYPE.__members__]


@pytest.mark.parametrize("mem_type", ALL_MEM_TYPES, ids=lambda m: m.name)
def test_mem_bar_accepts_every_mem_type_and_changes_nothing(mem_type: Any) -> None:
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.float32, 64)
    t.set(np.arange(64))
    with rs.VEC_SCOPE():
        assert capi.asc_mem_bar(mem_type) is None
    assert t.numpy().tolist() == list(range(64))


def test_mem_bar_pairs_are_local_mem_bar_pairs() -> None:
    # the page's table 2 against LocalMemBar's (src, dst): the calls a trace records
    M = Reg.MemType
    table = {
        "VV_ALL": (M.VEC_ALL, M.VEC_ALL), "VST_VLD": (M.VEC_STORE, M.VEC_LOAD), "VLD_VST": (M.VEC_LOAD, M.VEC_STORE),
        "VST_VST": (M.VEC_STORE, M.VEC_STORE), "VS_ALL": (M.VEC_ALL, M.SCALAR_ALL), "VST_LD": (M.VEC_STORE, M.SCALAR_LOAD),
        "VLD_ST": (M.VEC_LOAD, M.SCALAR_STORE), "VST_ST": (M.VEC_STORE, M.SCALAR_STORE), "SV_ALL": (M.SCALAR_ALL, M.VEC_ALL),
        "ST_VLD": (M.SCALAR_STORE, M.VEC_LOAD), "LD_VST": (M.SCALAR_LOAD, M.VEC_STORE), "ST_VST": (M.SCALAR_STORE, M.VEC_STORE),
    }  # fmt: skip
    from regsim._src.ops.sync import _pair

    for name, pair in table.items():
        assert _pair(getattr(capi, name)) == pair, name
    for name in ("SS_ALL", "ST_LD", "LD_ST", "ST_ST"):  # scalar to scalar: no LocalMemBar pair, nothing run
        src, dst = _pair(getattr(capi, name))
        assert src.name.startswith("SCALAR") and dst.name.startswith("SCALAR")


def test_mem_bar_refusals() -> None:
    with pytest.raises(errors.VfContextError, match=r"^asc_mem_bar"):
        capi.asc_mem_bar(capi.VST_VLD)
    with pytest.raises(errors.VfContextError, match=r"^asc_mem_bar"):
        capi.asc_mem_bar(capi.SS_ALL)
    with rs.VEC_SCOPE():
        with pytest.raises(
            errors.ParameterError,
            match=r"^asc_mem_bar: mem_type = .*VEC_STORE.*accepted: one of the rs.capi constants",
        ):
            capi.asc_mem_bar(Reg.MemType.VEC_STORE)
        with pytest.raises(errors.ParameterError, match=r"^asc_mem_bar: mem_type = 1; accepted: one of the rs.capi constants"):
            capi.asc_mem_bar(1)


@LOOPS
def test_mem_bar_page_example(loops: str) -> None:
    # the page's example: each iteration reads what the one before stored (a VST_VLD barrier)
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.half, 1024)
    x = (np.arange(1024) % 7).astype(np.float16)
    t.set(x)

    @rs.simd_vf
    def vf(u: Any) -> None:
        a, b, c = Reg.RegTensor(rs.half), Reg.RegTensor(rs.half), Reg.RegTensor(rs.half)
        mask = capi.asc_create_mask_b16(capi.PAT_ALL)
        for i in range(1, 8):
            capi.asc_mem_bar(capi.VST_VLD)
            capi.asc_loadalign(b, u)
            capi.asc_loadalign(c, u + i * 64)
            capi.asc_add(a, b, c, mask)
            capi.asc_storealign(u, a, mask)

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(t.GetPhyAddr())
    want = [int(v) for v in x]
    for i in range(1, 8):  # small integers: every half sum is exact
        want[:128] = [want[k] + want[i * 64 + k] for k in range(128)]
    assert t.numpy().astype(int).tolist() == want
