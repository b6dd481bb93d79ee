"""rs.testing: bit-exact assertions with hex reports, the lane count, the public oracles."""

from __future__ import annotations

import numpy as np
import pytest

import regsim as rs
from regsim import Reg

T = rs.testing


def f32(values: list[int]) -> Reg.RegTensor[rs.float32]:
    """A float32 register from bit patterns (the rest of the 64 lanes 0x3f800000, 1.0)."""
    bits = np.full(64, 0x3F800000, np.uint32)
    bits[: len(values)] = values
    return Reg.RegTensor.from_numpy(bits.view(np.float32))


def test_lane_count_is_getveclen_over_the_itemsize() -> None:
    assert rs.GetVecLen() == rs.AscendC.GetVecLen() == 256
    expected = {rs.uint8: 256, rs.int16: 128, rs.half: 128, rs.float32: 64, rs.uint32: 64, rs.int64: 32, rs.complex64: 32}
    assert {d: T.lane_count(d) for d in expected} == expected
    assert T.lane_count(rs.uint64, Reg.RegTraitNumTwo) == 64
    assert T.lane_count(rs.complex32, trait=Reg.RegTraitNumTwo) == 128
    with pytest.raises(rs.errors.DTypeError, match="lane_count"):
        T.lane_count(np.float32)  # type: ignore[arg-type]
    with pytest.raises(rs.errors.DTypeError, match="RegTraitNumTwo"):
        T.lane_count(rs.int32, Reg.RegTraitNumTwo)


def test_assert_reg_equal_passes_on_identical_bits() -> None:
    nan = 0x7FC00001  # a NaN with a payload
    T.assert_reg_equal(f32([nan, 0x80000000]), f32([nan, 0x80000000]))
    expected = np.ones(64, np.float32)
    expected[1] = -0.0
    T.assert_reg_equal(f32([0x3F800000, 0x80000000]), expected)
    T.assert_reg_equal(Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32)), range(64))


@pytest.mark.parametrize(
    ("got", "want", "line"),
    [
        (0x7FC00001, 0x7FC00000, "lane 0: -> got 0x7fc00001, expected 0x7fc00000"),  # NaN payloads differ
        (0x80000000, 0x00000000, "lane 0: -> got 0x80000000, expected 0x00000000"),  # -0.0 is not +0.0
    ],
)
def test_assert_reg_equal_compares_bits(got: int, want: int, line: str) -> None:
    with pytest.raises(AssertionError) as info:
        T.assert_reg_equal(f32([got]), f32([want]))
    assert str(info.value).splitlines() == ["assert_reg_equal: 1 of 64 lanes differ", "  " + line]


def test_assert_reg_equal_lists_the_first_lanes_with_their_inputs() -> None:
    a = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32))
    expected = np.arange(64, dtype=np.uint32)
    expected[[5, 9]] = [0xDEADBEEF, 0]
    expected[20:40] += 1
    with pytest.raises(AssertionError) as info:
        T.assert_reg_equal(a, expected, inputs={"a": a, "b": np.full(64, 7, np.uint32)})
    lines = str(info.value).splitlines()
    assert lines[0] == "assert_reg_equal: 22 of 64 lanes differ"
    assert lines[1] == "  lane 5: a=0x00000005 b=0x00000007 -> got 0x00000005, expected 0xdeadbeef"
    assert lines[2] == "  lane 9: a=0x00000009 b=0x00000007 -> got 0x00000009, expected 0x00000000"
    assert lines[3].startswith("  lane 20: ") and len(lines) == 9  # the first eight lanes


def test_assert_reg_equal_refuses_other_dtypes_and_values_that_do_not_fit() -> None:
    a = Reg.RegTensor.from_numpy(np.zeros(64, np.uint32))
    with pytest.raises(AssertionError, match=r"RegTensor of rs\.int32"):
        T.assert_reg_equal(a, Reg.RegTensor.from_numpy(np.zeros(64, np.int32)))
    with pytest.raises(rs.errors.ParameterError, match=r"value = -1"):
        T.assert_reg_equal(a, [-1] * 64)
    with pytest.raises(AssertionError, match="64 lanes, expected 32"):
        T.assert_reg_equal(a, [0] * 32)
    with pytest.raises(rs.errors.ParameterError, match="assert_reg_equal: actual"):
        T.assert_reg_equal(np.zeros(64), [0] * 64)  # type: ignore[arg-type]


def test_assert_mask_equal_as_bits_and_as_lanes() -> None:
    bits = np.zeros(256, np.bool_)
    bits[0::4] = True  # every float32 lane on
    bits[1] = True  # noise a float32 consumer ignores
    m = Reg.MaskReg.from_bits(bits)
    T.assert_mask_equal(m, Reg.MaskReg.from_lanes(rs.float32, [True] * 64), rs.float32)
    T.assert_mask_equal(m, [1] * 64, dtype=rs.float32)
    T.assert_mask_equal(m, bits)
    with pytest.raises(AssertionError) as info:
        T.assert_mask_equal(m, Reg.MaskReg.from_lanes(rs.float32, [True] * 64))
    assert str(info.value).splitlines() == ["assert_mask_equal: 1 of 256 lanes differ", "  lane 1: -> got 0x01, expected 0x00"]
    with pytest.raises(AssertionError, match="lane 63: -> got 0x01, expected 0x00"):
        T.assert_mask_equal(m, [1] * 63 + [0], rs.float32)
    with pytest.raises(rs.errors.ParameterError, match="value = 2"):
        T.assert_mask_equal(m, [2] * 64, rs.float32)


def test_assert_ub_equal() -> None:
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.half, 3)
    t.set(np.array([1.5, -0.0, np.inf], np.float16))
    T.assert_ub_equal(t, [1.5, -0.0, np.inf])
    u = ub.alloc(rs.half, 3)
    u.set(np.array([1.5, 0.0, np.inf], np.float16))
    with pytest.raises(AssertionError) as info:
        T.assert_ub_equal(t, u)
    assert str(info.value).splitlines()[1] == "  lane 1: -> got 0x8000, expected 0x0000"
    with pytest.raises(AssertionError, match=r"LocalTensor of rs\.int16"):
        T.assert_ub_equal(t, ub.alloc(rs.int16, 3))
    with pytest.raises(AssertionError, match="3 lanes, expected 2"):
        T.assert_ub_equal(t, [1.5, 0.0])


def test_reference_is_public_and_independent() -> None:
    assert rs.testing.reference.add_carry(0xFFFFFFFF, 1) == (0, 1)
    assert rs.testing.reference.update_mask_oracle("float32", 70) == ([True] * 64, 6)
