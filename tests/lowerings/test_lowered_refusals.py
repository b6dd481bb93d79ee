"""A refused memory-level call changes nothing (docs/decisions/memory-level.md#memory-refused-call): no UB byte or
written flag, no special register (the vector mask, the mask mode and every other CTRL bit, the compare mask, AR), no
`Ref`. Every memory-level API is driven with random calls of its interfaces (bench/registry_fuzz.py's forms) from a
core whose registers hold non-default values, and every refusal is compared with the state before it. Also: the
counter-mode count is checked before anything runs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from registry_fuzz_support import rf

import regsim as rs
from regsim._src.model.core import current_ctrl
from regsim.errors import ParameterError, RegsimError

A = rs.AscendC


def state(ub: rs.UnifiedBuffer, refs: list[Any]) -> tuple[Any, ...]:
    st = ub.storage
    valid = None if st.valid is None else st.valid.copy()
    return (
        st.data.copy(),
        valid,
        ub.core.vector_mask,
        ub.core.cmp_mask,
        ub.core.snapshot(),
        current_ctrl(),
        [r.value for r in refs],
    )


def assert_same_state(before: tuple[Any, ...], after: tuple[Any, ...], what: str) -> None:
    names = ("UB bytes", "written flags", "vector mask", "compare mask", "special registers", "CTRL", "Ref values")
    for name, b, a in zip(names, before, after, strict=True):
        same = np.array_equal(b, a) if isinstance(b, np.ndarray) or isinstance(a, np.ndarray) else b == a
        assert same, f"{what}: a refused call changed the {name}"


def prime(fz: Any) -> None:
    """Registers at values a call could not restore by chance: a random vector mask, compare mask, AR, CTRL bit."""
    r = fz.rng
    fz.ub.core.vector_mask = (int(r.integers(1, 2**63)), int(r.integers(1, 2**63)))
    fz.ub.core.cmp_mask = int(r.integers(1, 2**63))
    fz.ub.core.ar = int(r.integers(0, 4096))
    A.SetCtrlSpr(int(r.integers(2)), start_bit=53, end_bit=53)


@pytest.mark.parametrize("name", sorted(rf.MEMORY_FORMS))
@pytest.mark.parametrize("counter", [False, True], ids=["normal", "counter"])
def test_a_refused_call_changes_nothing(name: str, counter: bool) -> None:
    fz = rf.Fuzzer(sum(map(ord, name)) + counter, unbound=False)
    refusals = 0
    (A.SetMaskCount if counter else A.SetMaskNorm)()
    try:
        for _ in range(12):
            fz.ub = rs.UnifiedBuffer(16384)  # (the call's tensors are allocated as it is drawn)
            prime(fz)
            try:
                f, args, kwargs = fz.memory_call(name)
            except RegsimError:  # (drawing the call's tensors filled the UB)
                continue
            refs = [a for a in [*args, *kwargs.values()] if isinstance(a, rs.Ref)]
            before = state(fz.ub, refs)
            loops = "sequential" if fz.chance(0.5) else "auto"
            try:
                with rs.configure(loops=loops):  # type: ignore[arg-type]
                    f(*args, **kwargs)
            except RegsimError as e:
                refusals += 1
                assert_same_state(before, state(fz.ub, refs), f"{name}{tuple(args)}: {e}")
    finally:
        A.SetMaskNorm()
        A.ResetCtrlSpr(start_bit=53, end_bit=53)
    assert refusals, f"{name}: no call was refused"


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_reduce_max_refused_in_its_lowering_keeps_the_vector_mask(loops: str) -> None:
    """The bit-mode mask is written to the vector mask register before the lowering runs; the lowering then
    reads never-written src: the register is what it was before the call."""
    ub = rs.UnifiedBuffer(4096)
    dst, src, tmp = (ub.alloc(rs.half, 256) for _ in range(3))
    A.SetVectorMask(rs.half, 0x1234, 0x5678)
    before = state(ub, [])
    with rs.configure(loops=loops), pytest.raises(rs.errors.UninitializedReadError, match="ReduceMax"):  # type: ignore[arg-type]
        A.ReduceMax(dst, src, tmp, [0xF0F0, 0], 2, 8)
    assert_same_state(before, state(ub, []), "ReduceMax")
    assert ub.core.vector_mask == (0x1234, 0x5678)


# --- the counter-mode count ---------------------------------------------------------------------------------------
def _counter_calls(ts: list[rs.LocalTensor[Any]]) -> list[tuple[str, Any]]:
    d, s0, s1 = ts
    u8 = d.ub.alloc(rs.uint8, 256)
    u8.set(np.zeros(256, np.uint8))
    P, H = A.MASK_PLACEHOLDER, A.BinaryRepeatParams()
    return [
        ("Add", lambda: A.Add(d, s0, s1, P, 1, H, is_set_mask=False)),
        ("Adds", lambda: A.Adds(d, s0, 2.0, P, 1, A.UnaryRepeatParams(), is_set_mask=False)),
        ("Compares", lambda: A.Compares(u8, s0, 1.0, A.CMPMODE.LT, P, 1, A.UnaryRepeatParams(), is_set_mask=False)),
        (
            "Cast",
            lambda: A.Cast(
                d.ReinterpretCast(rs.int16), s0, A.RoundMode.CAST_RINT, P, 1, A.UnaryRepeatParams(), is_set_mask=False
            ),
        ),
        ("WholeReduceSum", lambda: A.ReduceRepeat(d, s0, P, 1, 1, 1, 8, reduce_type=A.ReduceType.SUM, is_set_mask=False)),
        ("asc_gt", lambda: rs.capi.asc_gt(s0, s1, 1, 1, 1, 1, 8, 8, 8)),
    ]


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_counter_mode_count_never_set_is_refused_at_once(loops: str) -> None:
    """Counter mode with the vector mask at its reset value (all ones: a count of 2**32 - 1): the library's uint16_t
    repeat count cannot hold ceil(count / 128); a ParameterError before anything runs (it used to take 18 s and
    5.7 GiB in the default mode to reach a Reg error)."""
    ub = rs.UnifiedBuffer(16384)
    ts = [ub.alloc(rs.half, 2048) for _ in range(3)]
    for t in ts:
        t.set(np.ones(2048, np.float16))
    A.SetMaskCount()
    try:
        for name, call in _counter_calls(ts):
            with rs.configure(loops=loops), pytest.raises(ParameterError, match=r"4294967295.*SetVectorMask") as info:  # type: ignore[arg-type]
                call()
            assert "vector mask" in str(info.value), name
        A.SetVectorMask(rs.half, 65535 * 128 + 1)  # one past the most repeats
        with rs.configure(loops=loops), pytest.raises(ParameterError, match="at most 8388480 elements for half"):  # type: ignore[arg-type]
            _counter_calls(ts)[0][1]()
        A.SetVectorMask(rs.half, 300)  # a count that fits: runs (3 repeats)
        before = ts[0].numpy().copy()
        with rs.configure(loops=loops):  # type: ignore[arg-type]
            A.Add(ts[0], ts[1], ts[2], A.MASK_PLACEHOLDER, 1, A.BinaryRepeatParams(), is_set_mask=False)
        got = ts[0].numpy()
        assert np.array_equal(got[:300], np.full(300, 2, np.float16)) and np.array_equal(got[300:], before[300:])
    finally:
        A.SetMaskNorm()


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_counter_mode_mask_argument_is_bounded(loops: str) -> None:
    """The same bound for a count given as the mask argument (is_set_mask=True), continuous or mask[0]."""
    ub = rs.UnifiedBuffer(16384)
    d, s0, s1 = (ub.alloc(rs.float32, 1024) for _ in range(3))
    for t in (s0, s1):
        t.set(np.ones(1024, np.float32))
    A.SetMaskCount()
    try:
        for mask in (65535 * 64 + 1, [2**32 - 1, 0]):
            with rs.configure(loops=loops), pytest.raises(ParameterError, match="at most 4194240 elements for float32"):  # type: ignore[arg-type]
                A.Add(d, s0, s1, mask, 1, A.BinaryRepeatParams(1, 1, 1, 0, 0, 0))
    finally:
        A.SetMaskNorm()
