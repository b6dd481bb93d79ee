"""One executor per op shape, split by shape family. Each prepares what the static checks allow it to
precompute (once per operand types and template values) and runs a call through the backend; a new shape is a
new executor, never an `if` in an old one."""

from regsim._src.engine.backend import INT32, UINT32_MAX
from regsim._src.engine.executors.access import BLOCK, UINT16_MAX, AddrGen, BlockCopy, LoadAligned, StoreAligned
from regsim._src.engine.executors.base import SCALAR_CTYPES, Executor, Unmodelled
from regsim._src.engine.executors.convert import Convert
from regsim._src.engine.executors.cross_lane import (
    ArFlush,
    ArStore,
    Barrier,
    BroadcastLowest,
    ClearSpecial,
    CompressToAr,
    CrossLane,
    Leading,
)
from regsim._src.engine.executors.elementwise import (
    Elementwise,
    ElementwiseMulti,
    ElementwiseSpecific,
    ElementwiseTemplated,
    Magnitude,
    Regrouped,
)
from regsim._src.engine.executors.gather_scatter import GATHER_ACCEPTED, GATHER_TRIPLES, BlockGather, UbGather, UbScatter
from regsim._src.engine.executors.masks import (
    MaskBits,
    MaskFromRegister,
    MaskFromVectorMask,
    MaskGen,
    PredicateOut,
    SelectLanes,
    UpdateMaskCounter,
)
from regsim._src.engine.executors.streams import UnalignFlush, UnalignLoad, UnalignPre, UnalignStore

__all__ = [
    "BLOCK",
    "GATHER_ACCEPTED",
    "GATHER_TRIPLES",
    "INT32",
    "SCALAR_CTYPES",
    "UINT16_MAX",
    "UINT32_MAX",
    "AddrGen",
    "ArFlush",
    "ArStore",
    "Barrier",
    "BlockCopy",
    "BlockGather",
    "BroadcastLowest",
    "ClearSpecial",
    "CompressToAr",
    "Convert",
    "CrossLane",
    "Elementwise",
    "ElementwiseMulti",
    "ElementwiseSpecific",
    "ElementwiseTemplated",
    "Executor",
    "Leading",
    "LoadAligned",
    "Magnitude",
    "MaskBits",
    "MaskFromRegister",
    "MaskFromVectorMask",
    "MaskGen",
    "PredicateOut",
    "Regrouped",
    "SelectLanes",
    "StoreAligned",
    "UbGather",
    "UbScatter",
    "UnalignFlush",
    "UnalignLoad",
    "UnalignPre",
    "UnalignStore",
    "Unmodelled",
    "UpdateMaskCounter",
]
