"""CreateMask (the Ascend C `CreateMask` page; docs/decisions/masks.md#createmask-patterns): every MaskPattern for every
register width, its bit layout under mask_fill "lsb" and "group", and which VLn are errors."""

from __future__ import annotations

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.model.dtypes import ALL_DTYPES
from regsim.testing import reference as O

#: every dtype with RegTraitNumOne (b8, b16, b32, b64 widths) and the RegTraitNumTwo types
WIDTHS = [(d, Reg.RegTraitNumOne) for d in ALL_DTYPES] + [
    (d, Reg.RegTraitNumTwo) for d in (rs.int64, rs.uint64, rs.complex64, rs.complex32)
]
IDS = [f"{d.name}-{t!r}" for d, t in WIDTHS]


@pytest.mark.parametrize(("dtype", "trait"), WIDTHS, ids=IDS)
@pytest.mark.parametrize("pattern", O.PATTERNS)
@pytest.mark.parametrize("fill", ["lsb", "group"])
def test_create_mask_pattern(dtype, trait, pattern, fill):
    two = trait is Reg.RegTraitNumTwo
    want = O.create_mask_oracle(dtype.name, pattern, two)
    with rs.configure(mask_fill=fill), rs.VEC_SCOPE():
        if want is None:
            with pytest.raises(rs.errors.ParameterError) as err:
                Reg.CreateMask(dtype, pattern=Reg.MaskPattern[pattern], trait=trait)
            assert "CreateMask" in str(err.value) and "pattern" in str(err.value) and pattern in str(err.value)
            return
        mask = Reg.CreateMask(dtype, pattern=Reg.MaskPattern[pattern], trait=trait)
    what = f"CreateMask({dtype!r}, {pattern}, {trait!r}, {fill})"
    O.assert_lanes(mask.lanes(dtype, trait).astype(np.uint8), want, itemsize=1, what=what + " lanes")
    O.assert_lanes(mask.bits().astype(np.uint8), O.predicate_bits(dtype.name, want, two, fill), itemsize=1, what=what + " bits")


def test_vln_error_rule_spot_checks():
    """The pset-width rule, spelled out: b32 and b64 masks accept VL1..VL64, b16 and complex32
    TraitTwo up to VL128; b64 TraitOne VL64 is all 32 lanes; b8 accepts all."""
    assert O.create_mask_oracle("float32", "VL128") is None
    assert O.create_mask_oracle("int64", "VL128") is None
    assert O.create_mask_oracle("uint64", "VL128", True) is None
    assert O.create_mask_oracle("half", "VL128") == [True] * 128
    assert O.create_mask_oracle("complex32", "VL128", True) == [True] * 128
    assert O.create_mask_oracle("int64", "VL64") == [True] * 32
    assert O.create_mask_oracle("uint8", "VL128") == [i < 128 for i in range(256)]


def test_default_pattern_is_all():
    with rs.VEC_SCOPE():
        assert Reg.CreateMask(rs.float32).lanes(rs.float32).all()
        assert Reg.CreateMask(rs.uint8).bits().all()
