"""The C API (`rs.capi`, whose public face is regsim/capi.py and its typed face regsim/capi.pyi).

- register: the 950 register-level C API, generated from the op registry's C spellings (`OpSpec.c_api`);
- compare: the compares whose C names both levels share (the memory-level forms of the A2/A3 pages and the
  950 register forms), and the compare-mask register;
- stub: regsim/capi.pyi, the signatures mypy checks, generated from the same C forms.
"""

from __future__ import annotations

from typing import Any

from regsim._src.frontends.capi.compare import COMPARES, MEMORY_API, Ptr, U8Ptr, asc_get_cmp_mask, asc_set_cmp_mask
from regsim._src.frontends.capi.register import C_CONSTANTS, REGISTER_API, function
from regsim._src.model.enums import MEM_TYPE


def namespace() -> dict[str, Any]:
    """`rs.capi`'s names made at import: the compares (a compare name runs its memory-level and register forms), the C
    constants (`PAT_ALL`, `VST_VLD`, ...), the lists `REGISTER_API` and `MEMORY_API`, and `MEM_TYPE`, `Ptr`, `U8Ptr`.
    The other register-level functions (hundreds) are made at their first use by `lazy_function`."""
    names: dict[str, Any] = dict(COMPARES)
    names |= {"asc_get_cmp_mask": asc_get_cmp_mask, "asc_set_cmp_mask": asc_set_cmp_mask}
    names |= C_CONSTANTS
    names |= {"REGISTER_API": REGISTER_API, "MEMORY_API": MEMORY_API, "MEM_TYPE": MEM_TYPE, "Ptr": Ptr, "U8Ptr": U8Ptr}
    return names


def lazy_function(name: str) -> Any:
    """A register-level C function not made at import (`rs.capi`'s module `__getattr__`), or AttributeError."""
    if name in REGISTER_API:
        return function(name)
    raise AttributeError(f"module 'regsim.capi' has no attribute {name!r}")


def public_names() -> list[str]:
    """`rs.capi.__all__`: the C functions and constants."""
    return sorted({*MEMORY_API, *REGISTER_API, *C_CONSTANTS})
