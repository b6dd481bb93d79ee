"""Ascend C enums and small structs, with their C++ member names and values.

Reg layer: the Ascend C header `kernel_reg_compute_utils.h`; AscendC: CMPMODE, RoundMode,
TPosition, ReduceType, SpecialPurposeReg. Values equal the C++ ones, so aliases behave as in C++:
`MaskDist.DIST_PACK is MaskDist.DIST_US` (both 1).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

import attrs


class _Enum(enum.Enum):
    """An Ascend C enum: members are singletons, so they hash by identity (faster than by name)."""

    __hash__ = object.__hash__

    @property
    def _sig(self) -> _Enum:
        """An enum argument's part of the op engine's plan-cache key: the member itself."""
        return self


def expected_member(enum_cls: type[enum.Enum], value: object, where: str, members: Iterable[enum.Enum] | None = None) -> str:
    """What an enum parameter accepts, spelled as the user imports it (`where`: "Reg", "rs.AscendC"):
    `a member of Reg.CMPMODE (LT, GT, ...)`, and for a string or number that names a member, the member to
    write instead (`mode="GT"` → `write Reg.CMPMODE.GT, not 'GT'`)."""
    name = f"{where}.{enum_cls.__name__}"
    accepted = list(enum_cls if members is None else members)
    shown = f"a member of {name} ({', '.join(m.name for m in accepted)})"
    meant = None
    if isinstance(value, str):
        meant = next((m for m in enum_cls if m.name.upper() == value.upper().rpartition(".")[2]), None)
    elif isinstance(value, int) and not isinstance(value, (bool, enum.Enum)):
        meant = next((m for m in enum_cls if m.value == value), None)
    if meant is not None and meant in accepted:
        shown += f": write {name}.{meant.name}, not {value!r}"
    return shown


class MaskPattern(_Enum):
    ALL = 0
    VL1 = 1
    VL2 = 2
    VL3 = 3
    VL4 = 4
    VL8 = 5
    VL16 = 6
    VL32 = 7
    VL64 = 8
    VL128 = 9
    M3 = 10
    M4 = 11
    H = 12
    Q = 13
    ALLF = 15


class LoadDist(_Enum):
    DIST_NORM = 0
    DIST_BRC_B8 = 1
    DIST_BRC_B16 = 2
    DIST_BRC_B32 = 3
    DIST_US_B8 = 6
    DIST_US_B16 = 7
    DIST_DS_B8 = 8
    DIST_DS_B16 = 9
    DIST_BDINTLV = 10
    DIST_DINTLV_B8 = 11
    DIST_DINTLV_B16 = 12
    DIST_UNPACK_B8 = 13
    DIST_UNPACK_B16 = 14
    DIST_BLK = 15
    DIST_E2B_B16 = 16
    DIST_E2B_B32 = 17
    DIST_UNPACK_B32 = 18
    DIST_DINTLV_B32 = 19
    DIST_UNPACK4_B8 = 20
    DIST_SPLT4CHN_B8 = 21
    DIST_SPLT2CHN_B8 = 22
    DIST_SPLT2CHN_B16 = 23


class StoreDist(_Enum):
    DIST_NORM_B8 = 0
    DIST_NORM_B16 = 1
    DIST_NORM_B32 = 2
    DIST_FIRST_ELEMENT_B8 = 3
    DIST_FIRST_ELEMENT_B16 = 4
    DIST_FIRST_ELEMENT_B32 = 5
    DIST_PACK_B16 = 6
    DIST_PACK_B32 = 7
    DIST_INTLV_B8 = 8
    DIST_INTLV_B16 = 9
    DIST_PACK_B64 = 10
    DIST_INTLV_B32 = 11
    DIST_PACK4_B32 = 12
    DIST_MRG4CHN_B8 = 13
    DIST_MRG2CHN_B8 = 14
    DIST_MRG2CHN_B16 = 15
    DIST_NORM = 16


class MaskDist(_Enum):
    DIST_NORM = 0
    DIST_US = 1
    DIST_DS = 2
    DIST_PACK = 1  # == DIST_US, as in C++: a load reads 1 as US, a store as PACK


class MaskMergeMode(_Enum):
    UNKNOWN = 0
    MERGING = 1
    ZEROING = 2


class PostLiteral(_Enum):
    POST_MODE_NORMAL = 0
    POST_MODE_UPDATE = 1


class RegLayout(_Enum):
    UNKNOWN = -1
    ZERO = 0
    ONE = 1
    TWO = 2
    THREE = 3


class SatMode(_Enum):
    UNKNOWN = -1
    NO_SAT = 0
    SAT = 1


class HighLowPart(_Enum):
    LOWEST = 0
    HIGHEST = 1


class IndexOrder(_Enum):
    INCREASE_ORDER = 0
    DECREASE_ORDER = 1


class GatherMaskMode(_Enum):
    NO_STORE_REG = 0
    STORE_REG = 1


class ReduceType(_Enum):
    SUM = 0
    MAX = 1
    MIN = 2


class PairReduce(_Enum):
    SUM = 0


class ReduceOrder(_Enum):
    """`AscendC::ReduceOrder` (kernel_utils_mode.h): where ReduceRepeat<MAX/MIN> puts the value and the index."""

    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


class MemType(_Enum):
    VEC_STORE = 0
    VEC_LOAD = 1
    SCALAR_STORE = 2
    SCALAR_LOAD = 3
    VEC_ALL = 4
    SCALAR_ALL = 5


class MEM_TYPE(_Enum):
    """`asc_mem_bar`'s pipe pair (the C API's `MEM_TYPE`, reg_vector.h; the asc_mem_bar page's table 2)."""

    VV_ALL = 0
    VST_VLD = 1
    VLD_VST = 2
    VST_VST = 3
    VS_ALL = 4
    VST_LD = 5
    VLD_ST = 6
    VST_ST = 7
    SV_ALL = 8
    ST_VLD = 9
    LD_VST = 10
    ST_VST = 11
    SS_ALL = 12
    ST_LD = 13
    LD_ST = 14
    ST_ST = 15


class DataCopyMode(_Enum):
    DATA_BLOCK_COPY = 0


class HistogramsBinType(_Enum):
    BIN0 = 0
    BIN1 = 1
    BIN2 = 2
    BIN3 = 3
    BIN4 = 4
    BIN5 = 5
    BIN6 = 6
    BIN7 = 7


class HistogramsType(_Enum):
    FREQUENCY = 0
    ACCUMULATE = 1


class RoundMode(_Enum):
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6
    CAST_HYBRID = 7
    CAST_EVEN = 8
    CAST_ZERO = 9
    UNKNOWN = 0xFF


class CMPMODE(_Enum):
    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class TPosition(_Enum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    LCM = 12
    SPM = 13
    SHM = 14
    TSCM = 15
    C2PIPE2GM = 16
    C2PIPE2LOCAL = 17
    MAX = 18


class SpecialPurposeReg(_Enum):
    AR = 0


class _Struct:
    """Base of the Ascend C structs passed as template parameters (frozen, hashable by value)."""

    @property
    def _sig(self) -> _Struct:
        return self


@attrs.frozen
class CastTrait(_Struct):
    """`Reg::CastTrait`: the layout, saturation, merge and rounding choices of a Cast.

    Fields positionally in C++ order or by their C++ names; omitted fields take the C++
    defaults (all UNKNOWN, as `Reg::castTrait`)."""

    layoutMode: RegLayout = RegLayout.UNKNOWN  # noqa: N815 (C++ field name)
    satMode: SatMode = SatMode.UNKNOWN  # noqa: N815
    mrgMode: MaskMergeMode = MaskMergeMode.UNKNOWN  # noqa: N815
    roundMode: RoundMode = RoundMode.UNKNOWN  # noqa: N815


# --- the algorithm enums and *SpecificMode structs of the 950 headers (kernel_reg_compute_utils.h) ---
class ExpAlgo(_Enum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2


class LnAlgo(_Enum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2


class LogAlgo(_Enum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2


class Log2Algo(_Enum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2


class Log10Algo(_Enum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2


class ReciprocalAlgo(_Enum):
    INTRINSIC = 0
    PRECISION_1ULP_FTZ_TRUE = 1
    PRECISION_1ULP_FTZ_FALSE = 2


class DivAlgo(_Enum):
    INTRINSIC = 0
    DIFF_COMPENSATION = 1
    PRECISION_1ULP_FTZ_TRUE = 2
    PRECISION_0ULP_FTZ_TRUE = 3
    PRECISION_0ULP_FTZ_FALSE = 4
    PRECISION_1ULP_FTZ_FALSE = 5


class SqrtAlgo(_Enum):
    INTRINSIC = 0
    FAST_INVERSE = 1
    PRECISION_1ULP_FTZ_TRUE = 2
    PRECISION_0ULP_FTZ_FALSE = 3
    PRECISION_1ULP_FTZ_FALSE = 4


class RsqrtAlgo(_Enum):
    INTRINSIC = 0
    FAST_INVERSE = 1
    PRECISION_1ULP_FTZ_TRUE = 2
    PRECISION_0ULP_FTZ_FALSE = 3
    PRECISION_1ULP_FTZ_FALSE = 4


@attrs.frozen
class ExpSpecificMode(_Struct):
    """`Reg::ExpSpecificMode` (Ascend 950): {mrgMode, algo}."""

    mrgMode: MaskMergeMode = MaskMergeMode.ZEROING  # noqa: N815
    algo: ExpAlgo = ExpAlgo.INTRINSIC


@attrs.frozen
class LnSpecificMode(_Struct):
    """`Reg::LnSpecificMode` (Ascend 950): {mrgMode, algo}."""

    mrgMode: MaskMergeMode = MaskMergeMode.ZEROING  # noqa: N815
    algo: LnAlgo = LnAlgo.INTRINSIC


@attrs.frozen
class LogSpecificMode(_Struct):
    """`Reg::LogSpecificMode` (Ascend 950): {mrgMode, algo}."""

    mrgMode: MaskMergeMode = MaskMergeMode.ZEROING  # noqa: N815
    algo: LogAlgo = LogAlgo.INTRINSIC


@attrs.frozen
class Log2SpecificMode(_Struct):
    """`Reg::Log2SpecificMode` (Ascend 950): {mrgMode, algo}."""

    mrgMode: MaskMergeMode = MaskMergeMode.ZEROING  # noqa: N815
    algo: Log2Algo = Log2Algo.INTRINSIC


@attrs.frozen
class Log10SpecificMode(_Struct):
    """`Reg::Log10SpecificMode` (Ascend 950): {mrgMode, algo}."""

    mrgMode: MaskMergeMode = MaskMergeMode.ZEROING  # noqa: N815
    algo: Log10Algo = Log10Algo.INTRINSIC


@attrs.frozen
class DivSpecificMode(_Struct):
    """`Reg::DivSpecificMode` (Ascend 950): {mrgMode, precisionMode, algo}."""

    mrgMode: MaskMergeMode = MaskMergeMode.ZEROING  # noqa: N815
    precisionMode: bool = False  # noqa: N815
    algo: DivAlgo = DivAlgo.INTRINSIC


@attrs.frozen
class SqrtSpecificMode(_Struct):
    """`Reg::SqrtSpecificMode` (Ascend 950): {mrgMode, precisionMode, algo}."""

    mrgMode: MaskMergeMode = MaskMergeMode.ZEROING  # noqa: N815
    precisionMode: bool = False  # noqa: N815
    algo: SqrtAlgo = SqrtAlgo.INTRINSIC


class SELMODE(enum.IntEnum):
    """`AscendC::SELMODE`: how `Select` reads selMask."""

    VSEL_CMPMASK_SPR = 0  #: the first 256 / sizeof(T) bits, for every iteration
    VSEL_TENSOR_SCALAR_MODE = 1  #: src1 is a scalar; the bits consumed iteration by iteration
    VSEL_TENSOR_TENSOR_MODE = 2  #: the bits consumed iteration by iteration
