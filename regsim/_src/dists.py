"""Load and store distributions as data: one table each, read by one load and one store driver.

A distribution is how a load fills a register from UB bytes, or how a store lays a register's
lanes into UB bytes (the LoadAlign / StoreAlign pages' `dist` tables): how many UB bytes move,
the alignment the address needs, the element widths it serves, and the byte (or, for a MaskReg,
bit) mapping between UB and register. A mapping is an index array, so a distribution is one
numpy gather; `None` is the identity. A documented distribution regsim does not model yet is in
the table too, with the reason, so using it is a clear `UnsupportedError`.
"""

from __future__ import annotations

import enum
from typing import Any, Final

import attrs
import numpy as np
import numpy.typing as npt

from regsim._src.enums import LoadDist, MaskDist, StoreDist
from regsim._src.registers import VL

Index = npt.NDArray[np.intp]

NOT_YET = "regsim does not model this distribution yet"


@attrs.frozen(eq=False)
class Dist:
    """One distribution of the table."""

    name: str  #: the C++ member name (MaskDist 1 is DIST_US for a load, DIST_PACK for a store)
    widths: frozenset[int]  #: element sizes in bytes it serves (empty: MaskReg forms)
    ub_bytes: int  #: UB bytes read or written per register
    align: int  #: required alignment of the UB address, in bytes
    #: load: register unit j <- UB unit index[j]; store: UB unit k <- register unit index[k]
    #: (units are bytes for registers, bits for MaskRegs); None: the identity
    index: Index | None = None
    unmodelled: str = ""


def _dist(name: str, widths: tuple[int, ...], ub_bytes: int, align: int, index: Any = None) -> Dist:
    return Dist(name, frozenset(widths), ub_bytes, align, None if index is None else np.asarray(index, np.intp))


def _unmodelled(member: enum.Enum, widths: tuple[int, ...]) -> Dist:
    return Dist(member.name, frozenset(widths), 0, 1, None, NOT_YET)


B8, B16, B32, B64 = 1, 2, 4, 8
ALL_WIDTHS = (B8, B16, B32, B64)

#: Register loads (LoadAlign contiguous page). DIST_NORM moves one register of any width.
LOAD: Final[dict[LoadDist, Dist]] = {
    LoadDist.DIST_NORM: _dist("DIST_NORM", ALL_WIDTHS, VL, 32),
    **{
        d: _unmodelled(d, w)
        for d, w in [
            (LoadDist.DIST_BRC_B8, (B8,)),
            (LoadDist.DIST_BRC_B16, (B16,)),
            (LoadDist.DIST_BRC_B32, (B32,)),
            (LoadDist.DIST_US_B8, (B8,)),
            (LoadDist.DIST_US_B16, (B16,)),
            (LoadDist.DIST_DS_B8, (B8,)),
            (LoadDist.DIST_DS_B16, (B16,)),
            (LoadDist.DIST_UNPACK_B8, (B16,)),
            (LoadDist.DIST_UNPACK_B16, (B32,)),
            (LoadDist.DIST_UNPACK_B32, (B64,)),
            (LoadDist.DIST_UNPACK4_B8, (B32,)),
            (LoadDist.DIST_BLK, (B8, B16, B32)),
            (LoadDist.DIST_E2B_B16, (B16,)),
            (LoadDist.DIST_E2B_B32, (B32,)),
            (LoadDist.DIST_DINTLV_B8, (B8,)),
            (LoadDist.DIST_DINTLV_B16, (B16,)),
            (LoadDist.DIST_DINTLV_B32, (B32,)),
            (LoadDist.DIST_BDINTLV, ALL_WIDTHS),
            (LoadDist.DIST_SPLT4CHN_B8, (B8,)),
            (LoadDist.DIST_SPLT2CHN_B8, (B8,)),
            (LoadDist.DIST_SPLT2CHN_B16, (B16,)),
        ]
    },
}

#: Register stores (StoreAlign contiguous page). DIST_NORM picks NORM_B8/B16/B32 by width; the
#: library stores b64 as NORM_B32 (two 32-bit words per element), so that spelling is legal too.
STORE: Final[dict[StoreDist, Dist]] = {
    StoreDist.DIST_NORM: _dist("DIST_NORM", ALL_WIDTHS, VL, 32),
    StoreDist.DIST_NORM_B8: _dist("DIST_NORM_B8", (B8,), VL, 32),
    StoreDist.DIST_NORM_B16: _dist("DIST_NORM_B16", (B16,), VL, 32),
    StoreDist.DIST_NORM_B32: _dist("DIST_NORM_B32", (B32, B64), VL, 32),
    **{
        d: _unmodelled(d, w)
        for d, w in [
            (StoreDist.DIST_FIRST_ELEMENT_B8, (B8,)),
            (StoreDist.DIST_FIRST_ELEMENT_B16, (B16,)),
            (StoreDist.DIST_FIRST_ELEMENT_B32, (B32,)),
            (StoreDist.DIST_PACK_B16, (B16,)),
            (StoreDist.DIST_PACK_B32, (B32,)),
            (StoreDist.DIST_PACK_B64, (B64,)),
            (StoreDist.DIST_PACK4_B32, (B32,)),
            (StoreDist.DIST_INTLV_B8, (B8,)),
            (StoreDist.DIST_INTLV_B16, (B16,)),
            (StoreDist.DIST_INTLV_B32, (B32,)),
            (StoreDist.DIST_MRG4CHN_B8, (B8,)),
            (StoreDist.DIST_MRG2CHN_B8, (B8,)),
            (StoreDist.DIST_MRG2CHN_B16, (B16,)),
        ]
    },
}

_BITS = np.arange(VL)

#: MaskReg loads (MaskReg LoadAlign page): NORM reads 32 B as the 256 bits; US reads 16 B and
#: doubles every bit; DS reads 64 B and keeps the even bits.
MASK_LOAD: Final[dict[MaskDist, Dist]] = {
    MaskDist.DIST_NORM: _dist("DIST_NORM", (), 32, 32),
    MaskDist.DIST_US: _dist("DIST_US", (), 16, 16, _BITS // 2),
    MaskDist.DIST_DS: _dist("DIST_DS", (), 64, 32, _BITS * 2),
}

#: MaskReg stores (MaskReg StoreAlign page): NORM writes the 256 bits as 32 B; PACK writes the
#: even bits as 16 B. `MaskDist.DIST_PACK` is the member `DIST_US` (both 1 in C++).
MASK_STORE: Final[dict[MaskDist, Dist]] = {
    MaskDist.DIST_NORM: _dist("DIST_NORM", (), 32, 32),
    MaskDist.DIST_PACK: _dist("DIST_PACK", (), 16, 16, _BITS[: VL // 2] * 2),
}


def accepted(table: dict[Any, Dist], width: int | None = None) -> str:
    """The members of `table` usable (for `width`), for an error message."""
    return ", ".join(d.name for d in table.values() if not d.unmodelled and (width is None or width in d.widths))
