"""The hot paths of what a kernel makes every VF call or iteration: a `RegTensor` of one register (its checks skipped
for a dtype and the default trait), a pointer passed to a VF (copied field by field), `UbPtr.reinterpret` (its dtype
tested inline), `rs.configure` (a new Config of every field), and a dtype's attributes (no metaclass `__getattr__`;
an ml_dtypes type looked up at the first read of `np_dtype`). Each is checked against what the slow path it skips
would give, messages written out here, and every refusal still raised."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import attrs
import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.model.config import configured
from regsim._src.model.dtypes import Floating
from regsim._src.model.registers import RegTrait
from regsim.errors import DTypeError, ParameterError, UninitializedReadError


# --- RegTensor ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [rs.float32, rs.uint8, rs.int16, rs.bfloat16, rs.uint64, rs.float64])
def test_a_one_register_tensor_is_a_fresh_never_written_register(dtype: type[rs.DType]) -> None:
    r = Reg.RegTensor(dtype)
    assert r.dtype is dtype and r.trait is Reg.RegTraitNumOne
    assert r._raw.size == 256 and r._view is not None and r._view.size == 256 // dtype.itemsize
    assert r._storage.valid is not None and not r._storage.valid.any()
    assert r._rview is not None and not r._rview.flags.writeable and np.shares_memory(r._rview, r._raw)
    if dtype is not rs.float64:  # (no Reg compute op takes float64)
        with rs.VEC_SCOPE(), pytest.raises(UninitializedReadError, match="src_reg0 lane 0 is read by an active"):
            Reg.Add(Reg.RegTensor(dtype), r, r, Reg.CreateMask(dtype))


def test_a_trait_equal_to_the_default_is_checked_as_any_other() -> None:
    assert Reg.RegTensor(rs.int32, RegTrait(1)).trait == Reg.RegTraitNumOne
    two = Reg.RegTensor(rs.uint64, RegTrait(2))
    assert two._raw.size == 512 and two._view is None


@pytest.mark.parametrize(
    ("args", "error", "text"),
    [
        ((np.int32,), DTypeError, "RegTensor: T = <class 'numpy.int32'>; accepted: a regsim dtype class such as rs.float32"),
        (([1],), DTypeError, "RegTensor: T = [1]; accepted: a regsim dtype class such as rs.float32"),
        ((rs.DType,), DTypeError, "RegTensor: T = rs.DType; accepted: a regsim dtype class such as rs.float32"),
        (
            (rs.float32, Reg.RegTraitNumTwo),
            DTypeError,
            "RegTensor: trait = RegTraitNumTwo with rs.float32; accepted: RegTraitNumTwo only with int64, uint64, "
            "float64, complex32, complex64",
        ),
        ((rs.float32, 1), ParameterError, "RegTensor: trait = 1; accepted: Reg.RegTraitNumOne, Reg.RegTraitNumTwo"),
    ],
)
def test_a_register_of_a_bad_type_or_trait_is_refused_as_before(args: tuple[Any, ...], error: type[Exception], text: str) -> None:
    with pytest.raises(error) as info:
        Reg.RegTensor(*args)
    assert str(info.value) == text


# --- pointers -------------------------------------------------------------------------------------
UB = rs.UnifiedBuffer(1024)
T32 = UB.alloc(rs.float32, 128)
T32.set(np.arange(128, dtype=np.float32))


@rs.simd_vf
def _walk(p: rs.UbPtr[rs.float32], seen: list[Any]) -> None:
    """Two post-update loads through the VF's copy of `p`: the caller's pointer stays where it was."""
    r = Reg.RegTensor(rs.float32)
    seen.append((p.addr, p.lo, p.hi, p.dtype, p.ub))
    for _ in range(2):
        Reg.LoadAlign(r, p, 64, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)
    seen.append((p.addr, r.numpy()[0]))


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_a_pointer_argument_is_a_copy_with_every_field(loops: str) -> None:
    p = T32.GetPhyAddr() + 32
    seen: list[Any] = []
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        _walk(p, seen)
        rs.asc_vf_call(_walk, p, seen)
    start = T32.GetPhyAddr().addr + 32 * 4
    for k in (0, 2):  # (each call: the copy starts at p, the tensor's bounds, and moves 2 * 64 elements)
        assert seen[k] == (start, T32.GetPhyAddr().lo, T32.GetPhyAddr().hi, rs.float32, UB)
        assert seen[k + 1] == (start + 2 * 64 * 4, 32 + 64)
    assert p.addr == start  # (moved only inside)


def test_reinterpret_of_a_dtype_is_the_same_address_of_that_type() -> None:
    p = T32.GetPhyAddr() + 8
    q = p.reinterpret(rs.uint16)
    assert (q.addr, q.lo, q.hi, q.ub, q.dtype) == (p.addr, p.lo, p.hi, p.ub, rs.uint16)
    assert q._sig is rs.uint16._ptr_sig and (q + 2).addr == p.addr + 4


@pytest.mark.parametrize(
    ("dtype", "shown"), [(np.uint8, "<class 'numpy.uint8'>"), ([1], "[1]"), (Floating, "rs.Floating"), ("uint8", "'uint8'")]
)
def test_reinterpret_to_what_is_not_a_dtype_is_refused_as_before(dtype: Any, shown: str) -> None:
    with pytest.raises(DTypeError) as info:
        T32.GetPhyAddr().reinterpret(dtype)
    assert str(info.value) == f"UbPtr.reinterpret: dtype = {shown}; accepted: a regsim dtype class such as rs.float32"


# --- configure ------------------------------------------------------------------------------------
def test_configure_keeps_what_it_is_not_given_and_restores_it() -> None:
    """Each `configure` is `attrs.evolve` of the configuration in force with the fields given."""
    before = configured()
    with rs.configure(mask_fill="group", batch_min_iterations=3) as outer:
        assert outer == attrs.evolve(before, mask_fill="group", batch_min_iterations=3)
        with rs.configure(loops="sequential", ub_size=4096, check_uninitialized=False, max_loop_iterations=7) as inner:
            assert inner == attrs.evolve(
                outer, loops="sequential", ub_size=4096, check_uninitialized=False, max_loop_iterations=7
            )
            assert configured() is inner
        assert configured() is outer
    assert configured() is before
    with pytest.raises(ParameterError, match="configure: loops = 'fast'"):
        rs.configure(loops="fast")  # type: ignore[arg-type]


# --- dtype attributes -----------------------------------------------------------------------------
def test_dtype_attributes_read_as_class_attributes_and_a_misspelt_one_raises() -> None:
    assert (rs.float32.itemsize, rs.float32.name, rs.float32.np_dtype) == (4, "float32", np.dtype(np.float32))
    assert (rs.bfloat16.itemsize, rs.bfloat16.name) == (2, "bfloat16")
    assert rs.bfloat16.np_dtype.name == "bfloat16" and rs.bfloat16.np_dtype.itemsize == 2
    assert rs.bfloat16.__dict__["np_dtype"] is rs.bfloat16.np_dtype  # (kept on the class after the first read)
    with pytest.raises(AttributeError, match="'float32' has no attribute 'itemsise'"):
        rs.float32.itemsise  # type: ignore[attr-defined]  # noqa: B018


def test_ml_dtypes_loads_at_the_first_np_dtype_of_its_types_only() -> None:
    """In a new interpreter: every other attribute of every dtype leaves ml_dtypes unloaded; bfloat16's np_dtype
    loads it and is its bfloat16."""
    code = """
import sys, importlib.util
import regsim as rs
from regsim._src.model import dtypes as dt
lazy = lambda: type(sys.modules["ml_dtypes"]) is importlib.util._LazyModule
for d in dt.EVERY_DTYPE:
    (d.itemsize, d.name, d._sig, d._ptr_sig, d._reg_sigs, d.bits_only)
    if d.__dict__.get("np_dtype") is not None and not hasattr(d.__dict__["np_dtype"], "__get__"):
        d.np_dtype
assert lazy(), "ml_dtypes loaded by an attribute other than an ml_dtypes type's np_dtype"
got = rs.bfloat16.np_dtype
import ml_dtypes
assert not lazy() and got == ml_dtypes.bfloat16 and rs.fp8_e4m3fn.np_dtype == ml_dtypes.float8_e4m3fn
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
