"""The op table: every Reg operation regsim models, declared once.

An `OpSpec` gives the Ascend name, the C++ parameter names (snake_case, in C++ order, which are
also the Python keyword names), the dtypes accepted on Ascend 950, the supported
`MaskMergeMode`s, the pure lane function, carry in/out, the C API spelling, the legacy aliases
and the documentation page. The public functions, their dtype and mode checks, their docstrings,
the docs' op list and the tests' parametrisation are derived from this table.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Final, TypeVar

import attrs

from regsim._src import dtypes as dt
from regsim._src import lanes
from regsim._src.enums import MaskMergeMode

ZEROING: Final = MaskMergeMode.ZEROING
MERGING: Final = MaskMergeMode.MERGING

DTypes = frozenset[type[dt.DType]]

B8: Final[DTypes] = frozenset(
    {dt.bool_, dt.int8, dt.uint8, dt.int4x2, dt.hifloat8, dt.fp8_e4m3fn, dt.fp8_e5m2, dt.fp8_e8m0, dt.fp4x2_e2m1, dt.fp4x2_e1m2}
)
ALL_REG: Final[DTypes] = frozenset(dt.ALL_DTYPES)
ADD_SUB: Final[DTypes] = frozenset(
    {
        dt.int8,
        dt.uint8,
        dt.int16,
        dt.uint16,
        dt.half,
        dt.bfloat16,
        dt.int32,
        dt.uint32,
        dt.float32,
        dt.complex32,
        dt.int64,
        dt.uint64,
        dt.complex64,
    }
)
CARRY: Final[DTypes] = frozenset({dt.int32, dt.uint32})
#: the dtypes a mask can be made for (`CreateMask<T>`, `UpdateMask<T>`): every register width.
MASK_T: Final[DTypes] = ALL_REG

DOC = "docs/zh/api/SIMD-API/基础API/Reg矢量计算/"


@attrs.frozen
class OpSpec:
    """One Reg operation (one C++ overload family) as the hardware documentation states it."""

    name: str  #: the Ascend C name, e.g. "Add"
    variant: str  #: "" or which overload, e.g. "carry" for `Add(carry, dst, src0, src1, mask)`
    family: str  #: the chapter / regsim module: "arith", "carry", "mask", "datamove"
    params: tuple[str, ...]  #: C++ parameter names in snake_case, in C++ order
    dtypes: DTypes  #: accepted element types on Ascend 950
    equation: str  #: the lane equation, first line of the docstring
    doc: str  #: documentation page (relative to the asc-devkit docs root)
    modes: frozenset[MaskMergeMode] = frozenset({ZEROING})
    lane: Callable[..., Any] | None = None  #: the pure lane function (elementwise ops)
    carry_in: bool = False
    carry_out: bool = False
    c_api: str = ""  #: the C API (`asc_*`) spelling
    aliases: tuple[str, ...] = ()  #: legacy names still compiled (the Ascend C Reg API pages list them)

    @functools.cached_property
    def reg_params(self) -> tuple[int, ...]:
        """Positions of the RegTensor operands (dst first), which share one type U."""
        return tuple(i for i, p in enumerate(self.params) if "_reg" in p)

    @property
    def key(self) -> str:
        return f"{self.name}/{self.variant}" if self.variant else self.name

    def docstring(self) -> str:
        modes = ", ".join(m.name for m in sorted(self.modes, key=lambda m: m.value))
        return (
            f"{self.equation}\n\nAscend C: `{self.name}({', '.join(self.params)})`"
            f"{'  (' + self.variant + ' overload)' if self.variant else ''}.\n"
            f"dtypes on Ascend 950: {dt.names(self.dtypes)}.\n"
            f"MaskMergeMode: {modes or 'n/a'}.\n"
            f"Doc: {self.doc}"
        )


_BIN = ("dst_reg", "src_reg0", "src_reg1", "mask")
_CARRY = ("carry", "dst_reg", "src_reg0", "src_reg1", "mask")
_CARRY_C = ("carry", "dst_reg", "src_reg0", "src_reg1", "carry_src", "mask")

OPS_LIST: Final[tuple[OpSpec, ...]] = (
    # --- mask creation (§2.1) ----------------------------------------------------------------
    OpSpec(
        "CreateMask",
        "",
        "mask",
        ("T", "pattern", "trait"),
        MASK_T,
        "mask[i] = pattern(i)  for the lanes of T (ALL, VLn, M3, M4, H, Q, ALLF)",
        DOC + "寄存器数据类型/MaskReg.md",
        modes=frozenset(),
        c_api="asc_create_mask",
    ),
    OpSpec(
        "UpdateMask",
        "",
        "mask",
        ("T", "scalar_value", "trait"),
        MASK_T,
        "mask[i] = i < min(scalar_value, VL_T);  scalar_value -= min(scalar_value, VL_T)",
        DOC + "寄存器数据类型/MaskReg.md",
        modes=frozenset(),
        c_api="asc_update_mask",
    ),
    OpSpec(
        "CreateAddrReg",
        "",
        "datamove",
        ("T", "index0", "stride0", "index1", "stride1", "index2", "stride2", "index3", "stride3"),
        ALL_REG,
        "offset = Σ index_k * stride_k  (elements of T)",
        DOC + "寄存器数据类型/AddrReg.md",
        modes=frozenset(),
        c_api="asc_create_addr_reg",
    ),
    # --- aligned data movement (§2.3) -----------------------------------------------------------
    OpSpec(
        "LoadAlign",
        "",
        "datamove",
        ("dst_reg", "src_addr"),
        ALL_REG,
        "dst[i] = src_addr[i]  (whole register, unpredicated)",
        DOC + "Reg数据搬入/连续对齐搬入（LoadAlign）.md",
        modes=frozenset(),
        c_api="asc_loadalign",
        aliases=("DataCopy",),
    ),
    OpSpec(
        "StoreAlign",
        "",
        "datamove",
        ("dst_addr", "src_reg", "mask"),
        ALL_REG,
        "mask[i] ? dst_addr[i] = src[i] : dst_addr[i] unchanged",
        DOC + "Reg数据搬出/连续对齐搬出（StoreAlign）.md",
        modes=frozenset(),
        c_api="asc_storealign",
        aliases=("DataCopy",),
    ),
    OpSpec(
        "LoadAlign",
        "mask",
        "datamove",
        ("mask", "src_addr"),
        ALL_REG,
        "mask bits = 32 B at src_addr (NORM) | 16 B, each bit doubled (US) | 64 B, even bits (DS)",
        DOC + "Reg数据搬入/MaskReg搬入（LoadAlign）.md",
        modes=frozenset(),
        c_api="asc_loadalign",
        aliases=("DataCopy",),
    ),
    OpSpec(
        "StoreAlign",
        "mask",
        "datamove",
        ("dst_addr", "mask"),
        ALL_REG,
        "32 B at dst_addr = mask bits (NORM) | 16 B = the even bits (PACK)",
        DOC + "Reg数据搬出/MaskReg搬出（StoreAlign）.md",
        modes=frozenset(),
        c_api="asc_storealign",
        aliases=("DataCopy",),
    ),
    # --- arithmetic (§2.6) ----------------------------------------------------------------------
    OpSpec(
        "Add",
        "",
        "arith",
        _BIN,
        ADD_SUB,
        "dst[i] = mask[i] ? src0[i] + src1[i] : (ZEROING ? 0 : dst[i])",
        DOC + "基础算术/Add.md",
        modes=frozenset({ZEROING, MERGING}),
        lane=lanes.add,
        c_api="asc_add",
    ),
    OpSpec(
        "Sub",
        "",
        "arith",
        _BIN,
        ADD_SUB,
        "dst[i] = mask[i] ? src0[i] - src1[i] : 0",
        DOC + "基础算术/Sub.md",
        lane=lanes.sub,
        c_api="asc_sub",
    ),
    # --- carry (§2.6) ---------------------------------------------------------------------------
    OpSpec(
        "Add",
        "carry",
        "carry",
        _CARRY,
        CARRY,
        "{carry[i], dst[i]} = mask[i] ? (u32)src0[i] + (u32)src1[i] : {0, 0}",
        DOC + "基础算术/Add.md",
        lane=lanes.add_carry,
        carry_out=True,
        aliases=("AddCarryOut",),
    ),
    OpSpec(
        "Sub",
        "carry",
        "carry",
        _CARRY,
        CARRY,
        "{carry[i], dst[i]} = mask[i] ? {0, src0[i]} + {0, ~src1[i]} + 1 : {0, 0}   (carry = no borrow)",
        DOC + "基础算术/Sub.md",
        lane=lanes.sub_carry,
        carry_out=True,
        aliases=("SubCarryOut",),
    ),
    OpSpec(
        "AddC",
        "",
        "carry",
        _CARRY_C,
        CARRY,
        "{carry[i], dst[i]} = mask[i] ? (u32)src0[i] + (u32)src1[i] + carry_src[i] : {0, 0}",
        DOC + "基础算术/AddC.md",
        lane=lanes.add_carry,
        carry_in=True,
        carry_out=True,
        c_api="asc_addc",
        aliases=("AddCarryOuts",),
    ),
    OpSpec(
        "SubC",
        "",
        "carry",
        _CARRY_C,
        CARRY,
        "{carry[i], dst[i]} = mask[i] ? {0, src0[i]} + {0, ~src1[i]} + carry_src[i] : {0, 0}",
        DOC + "基础算术/SubC.md",
        lane=lanes.sub_carry,
        carry_in=True,
        carry_out=True,
        c_api="asc_subc",
        aliases=("SubCarryOuts",),
    ),
)

OPS: Final[dict[str, OpSpec]] = {spec.key: spec for spec in OPS_LIST}
assert len(OPS) == len(OPS_LIST), "duplicate op key"

F = TypeVar("F", bound=Callable[..., Any])


def documented(*keys: str) -> Callable[[F], F]:
    """Give a public op the docstring of its table entries (lane equation first), then its own."""

    def document(f: F) -> F:
        parts = [OPS[k].docstring() for k in keys] + ([inspect.cleandoc(f.__doc__)] if f.__doc__ else [])
        f.__doc__ = "\n\n".join(parts)
        return f

    return document


def markdown() -> str:
    """The op table as the Markdown of docs/ops.md (a test keeps that file current)."""
    rows = [
        "# Reg operations modelled by regsim",
        "",
        "Generated from the op table, `regsim/_src/table.py`; `tests/test_docs.py` keeps it current",
        "(regenerate: `python -c 'from regsim._src.table import markdown; print(markdown(), end=\"\")' > docs/ops.md`).",
        "",
        "| op | overload | lane equation | dtypes on Ascend 950 | MaskMergeMode | C API | legacy names |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec in OPS_LIST:
        modes = ", ".join(m.name for m in sorted(spec.modes, key=lambda m: m.value)) or "n/a"
        dtypes = "all" if spec.dtypes == ALL_REG else dt.names(spec.dtypes)
        equation = spec.equation.replace("|", "\\|")
        rows.append(
            f"| `{spec.name}` | {spec.variant or '-'} | `{equation}` | {dtypes} | {modes} | "
            f"{spec.c_api or '-'} | {', '.join(spec.aliases) or '-'} |"
        )
    return "\n".join(rows) + "\n"
