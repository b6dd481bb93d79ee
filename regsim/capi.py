"""`rs.capi`: the Ascend C C API (`asc_*` functions).

Two layers share this namespace, as they share C names:

- the memory-level compares of the Atlas A2/A3 pages, modelled on the 950 Reg layer: `asc_eq`, `asc_ne`,
  `asc_gt`, `asc_ge`, `asc_lt`, `asc_le`, their `_sync` forms, `asc_<cmp>_scalar[_sync]`, and the
  compare-mask register `asc_get_cmp_mask` / `asc_set_cmp_mask`. Pointer arguments are `rs.UbPtr`s
  (a `LocalTensor` stands for its `GetPhyAddr()`); the vector mask is the core's (`rs.AscendC.SetVectorMask`,
  `ResetMask`, `SetMaskCount`, `SetMaskNorm`);
- the 950 register-level C API, generated from the Reg op registry's C spellings: `asc_add(dst, src0,
  src1, mask)`, `asc_create_mask_b32(PAT_ALL)`, `asc_loadalign(dst, src)` ... (`rs.capi.REGISTER_API` lists
  them), each running the Reg op it spells, inside a vector function.

One Python name serves every C overload of that name: `asc_eq(src0, src1, repeat, 6 strides)` (9 arguments)
compares into the compare-mask register, `asc_eq(dst, src0, src1, repeat, 6 strides)` (10) into a uint8_t
bit array, and `asc_eq(dst, src0, src1, mask)` on registers is the 950 register compare (`Reg.Compare`
with `mode=CMPMODE.EQ`).

The functions are made from the op registry (regsim._src.frontends.capi); mypy reads their signatures from
capi.pyi beside this file, generated from the same C forms.
"""

from regsim._src.frontends import capi as _capi

globals().update(_capi.namespace())

__all__ = _capi.public_names()


def __getattr__(name: str) -> object:
    """A register-level function, made at its first use and kept (import stays fast: there are hundreds)."""
    call = globals()[name] = _capi.lazy_function(name)
    return call


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
