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

from regsim._src.model.enums import LoadDist, MaskDist, StoreDist
from regsim._src.model.registers import VL

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
    #: (units are bytes for registers, bits for MaskRegs); None: the identity. A register load's
    #: index -1 is a zero byte (the UNPACK distributions' zero fill).
    index: Index | None = None
    unmodelled: str = ""
    regs: int = 1  #: registers moved (2: the dual-register DINTLV / INTLV forms)
    #: stores: predicate bits per written unit (lane k is written iff mask bit k * lane); 0: the
    #: distribution ignores the mask (FIRST_ELEMENT, INTLV)
    lane: int = 0
    unit: int = 0  #: stores: UB bytes written per lane


def _dist(name: str, widths: tuple[int, ...], ub_bytes: int, align: int, index: Any = None, **kw: Any) -> Dist:
    return Dist(name, frozenset(widths), ub_bytes, align, None if index is None else np.asarray(index, np.intp), **kw)


def _unmodelled(member: enum.Enum, widths: tuple[int, ...], why: str = NOT_YET) -> Dist:
    return Dist(member.name, frozenset(widths), 0, 1, None, why)


B8, B16, B32, B64 = 1, 2, 4, 8
ALL_WIDTHS = (B8, B16, B32, B64)

_J = np.arange(VL)  # register byte j


def _lanes(w: int, source: Any) -> Any:
    """Register byte j (in lane j // w) <- byte j % w of UB lane source(lane), -1 (zero) where it is negative."""
    lane = _J // w
    src = source(lane)
    return np.where(src >= 0, src * w + _J % w, -1)


def _dintlv(w: int) -> Any:
    """Two registers (bytes 0-255: dst0, 256-511: dst1): dst r lane i <- UB lane 2i + r."""
    j = np.arange(2 * VL)
    r, b = j // VL, j % VL
    return (2 * (b // w) + r) * w + b % w


def _pack(w: int, out: int) -> Any:
    """UB byte k <- byte k % out of register lane k // out (the low `out` bytes of each w-byte lane)."""
    k = np.arange(VL // w * out)
    return (k // out) * w + k % out


def _intlv(w: int) -> Any:
    """UB lane 2i <- src0 lane i, 2i + 1 <- src1 lane i (registers concatenated: src1 at byte 256)."""
    k = np.arange(2 * VL)
    e, b = k // w, k % w
    return (e % 2) * VL + (e // 2) * w + b


_NO_SPLIT = "Ascend 950 does not support this distribution for LoadAlign (the library static_asserts it)"
_NO_MERGE = "Ascend 950 does not support this distribution for StoreAlign (the library static_asserts it)"

#: Register loads (LoadAlign contiguous page, table of LoadDist): every distribution moves raw
#: bytes at the width its name gives (B8/B16/B32); no per-T dispatch exists in the library.
#: UNPACK zero-fills ("按无符号整型…每个元素后会补1个值为0元素"), never sign-extends.
LOAD: Final[dict[LoadDist, Dist]] = {
    LoadDist.DIST_NORM: _dist("DIST_NORM", ALL_WIDTHS, VL, 32),
    LoadDist.DIST_BRC_B8: _dist("DIST_BRC_B8", (B8,), 1, 1, _lanes(1, lambda i: 0 * i)),
    LoadDist.DIST_BRC_B16: _dist("DIST_BRC_B16", (B16,), 2, 2, _lanes(2, lambda i: 0 * i)),
    LoadDist.DIST_BRC_B32: _dist("DIST_BRC_B32", (B32,), 4, 4, _lanes(4, lambda i: 0 * i)),
    LoadDist.DIST_US_B8: _dist("DIST_US_B8", (B8,), 128, 32, _lanes(1, lambda i: i // 2)),
    LoadDist.DIST_US_B16: _dist("DIST_US_B16", (B16,), 128, 32, _lanes(2, lambda i: i // 2)),
    LoadDist.DIST_DS_B8: _dist("DIST_DS_B8", (B8,), 512, 32, _lanes(1, lambda i: 2 * i)),
    LoadDist.DIST_DS_B16: _dist("DIST_DS_B16", (B16,), 512, 32, _lanes(2, lambda i: 2 * i)),
    LoadDist.DIST_UNPACK_B8: _dist("DIST_UNPACK_B8", (B8, B16), 128, 32, _lanes(1, lambda i: np.where(i % 2, -1, i // 2))),
    LoadDist.DIST_UNPACK_B16: _dist("DIST_UNPACK_B16", (B16, B32), 128, 32, _lanes(2, lambda i: np.where(i % 2, -1, i // 2))),
    LoadDist.DIST_UNPACK_B32: _dist("DIST_UNPACK_B32", (B32,), 128, 32, _lanes(4, lambda i: np.where(i % 2, -1, i // 2))),
    LoadDist.DIST_UNPACK4_B8: _dist("DIST_UNPACK4_B8", (B8, B32), 64, 32, _lanes(1, lambda i: np.where(i % 4, -1, i // 4))),
    LoadDist.DIST_BLK: _dist("DIST_BLK", (B8, B16, B32), 32, 32, _J % 32),
    LoadDist.DIST_E2B_B16: _dist("DIST_E2B_B16", (B16,), 16, 16, (_J // 32) * 2 + _J % 2),
    LoadDist.DIST_E2B_B32: _dist("DIST_E2B_B32", (B32,), 32, 32, (_J // 32) * 4 + _J % 4),
    LoadDist.DIST_DINTLV_B8: _dist("DIST_DINTLV_B8", (B8,), 2 * VL, 32, _dintlv(1), regs=2),
    LoadDist.DIST_DINTLV_B16: _dist("DIST_DINTLV_B16", (B16,), 2 * VL, 32, _dintlv(2), regs=2),
    LoadDist.DIST_DINTLV_B32: _dist("DIST_DINTLV_B32", (B32, B64), 2 * VL, 32, _dintlv(4), regs=2),
    **{
        d: _unmodelled(d, w, _NO_SPLIT)
        for d, w in [
            (LoadDist.DIST_BDINTLV, ALL_WIDTHS),
            (LoadDist.DIST_SPLT4CHN_B8, (B8,)),
            (LoadDist.DIST_SPLT2CHN_B8, (B8,)),
            (LoadDist.DIST_SPLT2CHN_B16, (B16,)),
        ]
    },
}

#: Register stores (StoreAlign contiguous page). DIST_NORM picks NORM_B8/B16/B32 by width; the
#: library stores b64 as NORM_B32 (two 32-bit words per element), so that spelling is legal too.
#: PACK keeps the low half (PACK4: quarter) of each lane, position-preserving; FIRST_ELEMENT and
#: INTLV ignore the mask ("忽略mask").
STORE: Final[dict[StoreDist, Dist]] = {
    StoreDist.DIST_NORM: _dist("DIST_NORM", ALL_WIDTHS, VL, 32),
    StoreDist.DIST_NORM_B8: _dist("DIST_NORM_B8", (B8,), VL, 32),
    StoreDist.DIST_NORM_B16: _dist("DIST_NORM_B16", (B16,), VL, 32),
    StoreDist.DIST_NORM_B32: _dist("DIST_NORM_B32", (B32, B64), VL, 32),
    StoreDist.DIST_FIRST_ELEMENT_B8: _dist("DIST_FIRST_ELEMENT_B8", (B8,), 1, 1, np.arange(1), unit=1),
    StoreDist.DIST_FIRST_ELEMENT_B16: _dist("DIST_FIRST_ELEMENT_B16", (B16,), 2, 2, np.arange(2), unit=2),
    StoreDist.DIST_FIRST_ELEMENT_B32: _dist("DIST_FIRST_ELEMENT_B32", (B32,), 4, 4, np.arange(4), unit=4),
    StoreDist.DIST_PACK_B16: _dist("DIST_PACK_B16", (B8, B16), 128, 32, _pack(2, 1), lane=2, unit=1),
    StoreDist.DIST_PACK_B32: _dist("DIST_PACK_B32", (B16, B32), 128, 32, _pack(4, 2), lane=4, unit=2),
    StoreDist.DIST_PACK_B64: _dist("DIST_PACK_B64", (B32, B64), 128, 32, _pack(8, 4), lane=8, unit=4),
    StoreDist.DIST_PACK4_B32: _dist("DIST_PACK4_B32", (B8, B32), 64, 32, _pack(4, 1), lane=4, unit=1),
    StoreDist.DIST_INTLV_B8: _dist("DIST_INTLV_B8", (B8,), 2 * VL, 32, _intlv(1), regs=2, unit=1),
    StoreDist.DIST_INTLV_B16: _dist("DIST_INTLV_B16", (B16,), 2 * VL, 32, _intlv(2), regs=2, unit=2),
    StoreDist.DIST_INTLV_B32: _dist("DIST_INTLV_B32", (B32, B64), 2 * VL, 32, _intlv(4), regs=2, unit=4),
    **{
        d: _unmodelled(d, w, _NO_MERGE)
        for d, w in [
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


def accepted(table: dict[Any, Dist], width: int | None = None, regs: int | None = None) -> str:
    """The members of `table` usable (for `width`, moving `regs` registers), for an error message."""
    return ", ".join(
        d.name
        for d in table.values()
        if not d.unmodelled and (width is None or width in d.widths) and (regs is None or d.regs == regs)
    )
