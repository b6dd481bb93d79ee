"""The spec table of the memory-level layer: every `rs.AscendC` memory-level API, one row each (`spec.Api`).

A row names the API and its deprecated aliases, its interfaces (the C++ overloads, each with its parameters and the
Ascend 950 dtypes of the pages' "数据类型", a named set of `dtype_sets`), the Reg callees of its lowering, the skeleton
that runs them, the oracle of `regsim.testing.lowering_reference` its tests check it with and its page. From the
table: the public names (`ENTRIES`, bound by `spec.bind`), the typed faces mypy checks (`faces.py`, generated), the
memory-level table of docs/api.md (`markdown`), the names `regsim lower` knows, and the meta-tests of
tests/lowerings/test_lowering_spec.py.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias, TypeVar

import attrs
import numpy as np

from regsim._src.lowerings import (
    algorithms,
    cmpmask,
    compare,
    fill,
    fused,
    gather,
    gather_mask,
    isasi,
    math_api,
    reduce,
    scatter,
    select,
)
from regsim._src.lowerings import cast as cast_api
from regsim._src.lowerings import reduce_repeat as rr
from regsim._src.lowerings import vector_mask as vm
from regsim._src.lowerings.dtype_sets import (
    ADD_RELU_COUNT,
    ADD_RELU_REPEAT,
    ADDS_COUNT,
    ANDS_COUNT,
    ANDS_REPEAT,
    B8,
    B8_B16_B32,
    B8_TO_B64,
    B8_TO_B64_COMPLEX,
    B16_B32,
    B16_B32_B64_COMPLEX,
    B16_B32_INTS,
    B16_B32_NO_BF16,
    B16_TO_B64,
    DIV_COUNT,
    DIVS_COUNT,
    DUPLICATE_COUNT,
    FLOAT32,
    FLOATS,
    FLOATS_B64,
    GET_CMP_MASK,
    HALF,
    HALF_FLOAT,
    HALF_FLOAT_B64,
    HALF_FLOAT_S32,
    INT32S,
    INTS,
    MAXS_COUNT,
    MULS_COUNT,
    NOT_COUNT,
    REDUCE_MAX_COUNT,
    REDUCE_SUM_COUNT,
    REDUCE_SUM_REPEAT,
    RELU_COUNT,
    SCALAR_REPEAT,
    SET_CMP_MASK,
    SIGNED16_32_HALF_FLOAT,
    SIGNED_HALF_FLOAT,
    UINT8,
    UINT32,
    UINTS,
    DTypeSet,
)
from regsim._src.lowerings.elementwise import Binary, Unary, reg_ands, reg_divs, reg_divs2, reg_muls, reg_ors, reg_subs, reg_subs2
from regsim._src.lowerings.shift import SHIFT_AMOUNT, SHIFT_LEFT, SHIFT_RIGHT
from regsim._src.lowerings.spec import (
    AMOUNTS,
    CAST_DEQ,
    CMP_MASK,
    COUNT,
    FLEXIBLE,
    FROM_TENSOR,
    HALF_TO_FLOAT,
    IS_SET_MASK,
    MASK_BITS,
    MASK_CONTINUOUS,
    NO_SET_MASK,
    PATTERN_TENSOR,
    REPEAT_TIME,
    SCALAR,
    SCALAR_FIRST,
    TMP_BUFFER,
    Alias,
    Api,
    Entry,
    Form,
    Interface,
    Kind,
    Paired,
    Pairs,
    Param,
    entries,
    enum_param,
    flag,
    integer,
    reserved,
    struct,
    tensor,
)
from regsim._src.lowerings.structs import (
    BinaryConfig,
    BinaryRepeatParams,
    BrcbRepeatParams,
    DivConfig,
    ExpConfig,
    GatherMaskParams,
    GatherRepeatParams,
    LnConfig,
    ReciprocalConfig,
    RsqrtConfig,
    SqrtConfig,
    UnaryRepeatParams,
)
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import CMPMODE, SELMODE, ReduceOrder, ReduceType, RoundMode
from regsim._src.model.memory import TENSOR_OPERATORS
from regsim._src.ops import namespace as Reg

PAGES: Final = "docs/zh/api/SIMD-API/基础API/Memory矢量计算/"  #: the pages' folder in the Ascend C docs

# --- the parameters and interface shapes the rows share -------------------------------------------------------------------
DST, SRC, SRC0, SRC1 = tensor("dst"), tensor("src"), tensor("src0"), tensor("src1")
BINARY_PARAMS: Final = struct("repeat_params", BinaryRepeatParams)
UNARY_PARAMS: Final = struct("repeat_params", UnaryRepeatParams)
BINARY_CONFIG: Final = Param("config", Kind.STRUCT, struct=BinaryConfig, default=None, keyword=True, nullable=True)
SCALAR_ARG: Final = Param("src0", Kind.SCALAR)  #: an immediate scalar first (the flexible-scalar overloads)


def config(cls: type) -> Param:
    """An algorithm `config` template parameter (None: the default config)."""
    accepted = f"{cls.__name__}(...), e.g. rs.AscendC.{cls.__name__}()"
    return Param("config", Kind.STRUCT, struct=cls, default=None, keyword=True, nullable=True, accepted=accepted)


def forms(
    head: tuple[Param, ...],
    count: DTypeSet | None,
    repeat: DTypeSet | None,
    tail: tuple[Param, ...] = (BINARY_PARAMS,),
    *,
    keywords: tuple[Param, ...] = (),
    count_keywords: tuple[Param, ...] = (NO_SET_MASK,),
    repeat_keywords: tuple[Param, ...] = (IS_SET_MASK,),
    variant: str = "",
    prefer: Callable[[Any], bool] | None = None,
    pairs: Pairs | None = None,
) -> tuple[Interface, ...]:
    """The interfaces of one parameter head: the first-n `(head..., count)` (dtypes `count`, None: no such interface)
    and the mask/repeat `(head..., mask, repeat_time, tail...)` with a bit-mode and a continuous mask (dtypes `repeat`)."""
    out = []
    if count is not None:
        out.append(Interface(Form.COUNT, (*head, COUNT), count, (*count_keywords, *keywords), variant, pairs, prefer))
    if repeat is not None:
        for form, mask in ((Form.BITS, MASK_BITS), (Form.CONTINUOUS, MASK_CONTINUOUS)):
            params = (*head, mask, REPEAT_TIME, *tail)
            out.append(Interface(form, params, repeat, (*repeat_keywords, *keywords), variant, pairs, prefer))
    return tuple(out)


def binary(count: DTypeSet, repeat: DTypeSet | None, keywords: tuple[Param, ...] = ()) -> tuple[Interface, ...]:
    """dst = src0 op src1: `(dst, src0, src1, count)` and `(dst, src0, src1, mask, repeat_time, repeat_params)`."""
    return forms((DST, SRC0, SRC1), count, repeat, keywords=keywords)


def unary(count: DTypeSet, repeat: DTypeSet | None, keywords: tuple[Param, ...] = ()) -> tuple[Interface, ...]:
    """dst = op(src): `(dst, src, count)` and `(dst, src, mask, repeat_time, repeat_params)` (UnaryRepeatParams)."""
    return forms((DST, SRC), count, repeat, (UNARY_PARAMS,), keywords=keywords)


def tensor_scalar(count: DTypeSet, repeat: DTypeSet | None, flexible: bool = False) -> tuple[Interface, ...]:
    """dst = op(src, scalar): `(dst, src, scalar_value, ...)`; `flexible`: also the 950 flexible-scalar overloads, both
    sources LocalTensors or an immediate first, in every interface of the plain form (`config=BinaryConfig(i)`)."""
    keywords = (BINARY_CONFIG,) if flexible else ()
    plain = forms((DST, SRC, SCALAR), count, repeat, (UNARY_PARAMS,), keywords=keywords)
    if not flexible:
        return plain
    both = forms((DST, SRC0, SRC1), count, repeat, (UNARY_PARAMS,), keywords=keywords, variant=FLEXIBLE)
    first = forms((DST, SCALAR_ARG, SRC1), count, repeat, (UNARY_PARAMS,), keywords=keywords, variant=SCALAR_FIRST)
    return plain + both + first


def doc(path: str) -> str:
    """A page's path in the Ascend C docs: under the memory-level folder unless given from the docs' root."""
    return path if path.startswith("docs/") else PAGES + path


ELEMENTWISE: Final = "binary_continuous_vf / vec_binary_vf"
UNARY_SKELETONS: Final = "unary_continuous_vf / vec_unary_vf"
SCALAR_SKELETONS: Final = "unary_continuous_vf / vec_unary_vf; flexible scalar: binary_continuous_vf / vec_binary_vf"
ELEMENT_ORACLES: Final = ("first_n", "normal_mode", "counter_mode")
S1: Final = SELMODE.VSEL_TENSOR_SCALAR_MODE


#: the pages' folders by family (a page is `<folder>/<API>.md` unless its row says otherwise)
FOLDERS: Final = {
    "arith": "基础算术",
    "compound": "复合计算",
    "logic": "逻辑计算",
    "compare_select": "比较与选择",
    "cast": "类型转换",
    "reduce": "归约计算",
    "fill": "数据填充",
    "gather_scatter": "离散与聚合",
    "mask": "掩码操作",
}


def elementwise(
    shape: str, name: str, run: Callable[..., Any], count: DTypeSet, repeat: DTypeSet | None, summary: str, **kw: Any
) -> Api:
    """A row of an elementwise API on its skeletons: `shape` "binary" (dst = src0 op src1), "unary" (dst = op(src)) or
    "scalar" / "flexible" (dst = op(src, scalar), the latter with the flexible-scalar overloads); first-n dtypes
    `count`, mask/repeat dtypes `repeat` (None: the first-n interface only). Keywords: `keywords=` the interfaces'
    template parameters, `family=` the chapter (default "arith"), `callees=` (default the API's name), `page=` (default
    `<folder>/<name>.md`), `interfaces=` more interfaces, and any other `Api` field."""
    keywords = kw.pop("keywords", ())
    if shape == "binary":
        interfaces = binary(count, repeat, keywords)
        skeleton = "binary_continuous_vf" + (" / vec_binary_vf" if repeat else "")
    elif shape == "unary":
        interfaces = unary(count, repeat, keywords)
        skeleton = "unary_continuous_vf" + (" / vec_unary_vf" if repeat else "")
    else:
        interfaces = tensor_scalar(count, repeat, flexible=shape == "flexible")
        skeleton = UNARY_SKELETONS + ("; flexible scalar: " + ELEMENTWISE if shape == "flexible" else "")
    family = kw.pop("family", "arith")
    return Api(
        name,
        family,
        (*interfaces, *kw.pop("interfaces", ())),
        run,
        kw.pop("callees", (name,)),
        kw.pop("skeleton", skeleton),
        kw.pop("oracle", ELEMENT_ORACLES),
        doc(kw.pop("page", f"{FOLDERS[family]}/{name}.md")),
        summary,
        **kw,
    )


#: ShiftLeft's and ShiftRight's `(dst, src0, src1, count)` with src1 a LocalTensor of shift amounts, the signed type of
#: src0's width (the pages "ShiftLeft（左移位数为Tensor）", "ShiftRight（右移位数为Tensor）": the first-n interface only)
SHIFT_AMOUNTS: Final = Interface(
    Form.COUNT, (DST, SRC0, tensor("src1", Paired("src0", SHIFT_AMOUNT)), COUNT), INTS, (NO_SET_MASK,), AMOUNTS
)
_STRIDES: Final = tuple(integer(n, "an int in [0, 65535]") for n in ("dst_rep_stride", "src_blk_stride", "src_rep_stride"))
REDUCE_TYPE: Final = enum_param("reduce_type", ReduceType, keyword=True)
ORDER: Final = Param("order", Kind.ENUM, enum=ReduceOrder, default=None, nullable=True)
KEY_ORDER: Final = attrs.evolve(ORDER, keyword=True)  #: WholeReduceSum's order (a keyword: SUM has none to give)


def _per_repeat(target: str, order: bool = False, repeat_first: bool = False, alias: bool = False) -> tuple[Interface, ...]:
    """ReduceRepeat's (`order`) and ReduceDataBlock's / ReducePairElem's interfaces `(dst, src, mask, repeat_time,
    dst_rep_stride, src_blk_stride, src_rep_stride[, order])`, `reduce_type=` their template argument: ReduceRepeat's
    dst of src's type for MAX / MIN, of a pair of the page's table for SUM (`rr.REPEAT_SUM`); `repeat_first`: the
    deprecated BlockReduce* / PairReduceSum order `(dst, src, repeat_time, mask, ...)`; `alias`: a deprecated name's,
    whose reduce_type the name fixes."""
    out = []
    dst, dtypes = (tensor("dst", None), B16_B32_NO_BF16) if target == "ReduceRepeat" else (DST, HALF_FLOAT)
    for form, mask in ((Form.BITS, MASK_BITS), (Form.CONTINUOUS, MASK_CONTINUOUS)):
        head = (REPEAT_TIME, mask) if repeat_first else (mask, REPEAT_TIME)
        params = (dst, SRC, *head, *_STRIDES, *((ORDER,) if order else ()))
        keywords: tuple[Param, ...] = (REDUCE_TYPE, IS_SET_MASK)
        if alias:  # (WholeReduceSum takes order by name only: SUM has none to give)
            keywords = (KEY_ORDER, IS_SET_MASK) if target == "ReduceRepeat" and not order else (IS_SET_MASK,)
        out.append(Interface(form, params, dtypes, keywords))
    return tuple(out)


def _repeat_reduce_sum() -> tuple[Interface, ...]:
    """`RepeatReduceSum(dst, src, repeatTime, mask, dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)`: a
    continuous mask only; dstBlkStride checked and unused."""
    strides = ("dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride")
    params = (tensor("dst", None), SRC, REPEAT_TIME, MASK_CONTINUOUS, *(integer(n, "an int in [0, 65535]") for n in strides))
    return (Interface(Form.CONTINUOUS, params, B16_B32_NO_BF16, (IS_SET_MASK,)),)


#: Compares' (and its deprecated name CompareScalar's) tensor-and-scalar head, the dtypes of its interfaces and its tail
_COMPARES_SCALAR: Final = (
    (tensor("dst", UINT8), SRC0, Param("src1_scalar", Kind.SCALAR), enum_param("cmp_mode", CMPMODE)),
    B8_TO_B64,
    B16_B32,
    (UNARY_PARAMS,),
)


#: the pages of the high-level math APIs (`Log`, `Trunc`, `Fma`), outside the memory-level folder
MATH_PAGES: Final = "docs/zh/api/SIMD-API/高阶API/数学计算"
#: a high-level API's isReuseSource (the pages: "该参数预留，传入默认值false即可")
REUSE_SOURCE: Final = reserved(flag("is_reuse_source"), "False (a reserved parameter: keep the default)")


def _with_tmp_buffer(head: tuple[Param, ...], dtypes: DTypeSet) -> tuple[Interface, ...]:
    """A high-level API's calCount interfaces: `(head..., count)` and `(head..., sharedTmpBuffer, count)`."""
    tmp = tensor("shared_tmp_buffer", UINT8)
    return (
        Interface(Form.COUNT, (*head, COUNT), dtypes, (REUSE_SOURCE,)),
        Interface(Form.COUNT, (*head, tmp, COUNT), dtypes, (REUSE_SOURCE,), TMP_BUFFER),
    )


# --- the rows ------------------------------------------------------------------------------------------------------------------
APIS: Final[tuple[Api, ...]] = (
    # 基础算术 (arith) ---------------------------------------------------------------------------------------------------------
    elementwise("binary", "Add", Binary(Reg.Add), B8_TO_B64_COMPLEX, B16_B32, "dst = src0 + src1"),
    elementwise("binary", "Sub", Binary(Reg.Sub), B8_TO_B64_COMPLEX, B16_B32, "dst = src0 - src1"),
    elementwise("binary", "Mul", Binary(Reg.Mul), B16_B32_B64_COMPLEX, B16_B32, "dst = src0 * src1"),
    elementwise("binary", "Max", Binary(Reg.Max), B8_TO_B64, B16_B32, "dst = max(src0, src1)"),
    elementwise("binary", "Min", Binary(Reg.Min), B8_TO_B64, B16_B32, "dst = min(src0, src1)"),
    elementwise(
        "binary",
        "Div",
        algorithms.DIV,
        DIV_COUNT,
        B16_B32_NO_BF16,
        "dst = src0 / src1 (integers: truncated, x / 0 all ones; the algorithm of config)",
        keywords=(config(DivConfig),),
        by_algo=algorithms.DIV_BY_ALGO,
    ),
    elementwise("unary", "Abs", Unary(Reg.Abs), SIGNED_HALF_FLOAT, SIGNED16_32_HALF_FLOAT, "dst = |src|"),
    elementwise("unary", "Relu", Unary(Reg.Relu), RELU_COUNT, HALF_FLOAT_S32, "dst = max(src, 0)"),
    elementwise("unary", "Exp", algorithms.EXP, HALF_FLOAT, HALF_FLOAT, "dst = e ** src", keywords=(config(ExpConfig),)),
    elementwise("unary", "Ln", algorithms.LN, HALF_FLOAT, HALF_FLOAT, "dst = ln(src)", keywords=(config(LnConfig),)),
    elementwise(
        "unary",
        "Sqrt",
        algorithms.SQRT,
        HALF_FLOAT,
        HALF_FLOAT,
        "dst = sqrt(src)",
        keywords=(config(SqrtConfig),),
        by_algo=algorithms.SQRT_BY_ALGO,
    ),
    elementwise(
        "unary",
        "Rsqrt",
        algorithms.RSQRT,
        HALF_FLOAT,
        HALF_FLOAT,
        "dst = 1 / sqrt(src) (two roundings)",
        callees=("Duplicate", "Sqrt", "Div", "Select"),
        keywords=(config(RsqrtConfig),),
        skeleton=UNARY_SKELETONS + "; float first-n precise: rsqrt_fast_inverse_vf",
    ),
    elementwise(
        "unary",
        "Reciprocal",
        algorithms.RECIPROCAL,
        HALF_FLOAT_B64,
        HALF_FLOAT,
        "dst = 1 / src (int64, uint64: 1 / 0 all ones, 1, -1, else 0)",
        callees=("Duplicate", "Div", "Compares", "Select"),
        keywords=(config(ReciprocalConfig),),
        examples=(
            "Reciprocal(float32, count=200)",
            "Reciprocal(int64, count=200)",
            "Reciprocal(half, mask=[3, 0], repeat_time=2)",
        ),
    ),
    elementwise("unary", "Neg", Unary(Reg.Neg), SIGNED_HALF_FLOAT, None, "dst = -src", page="基础算术/Neg(ISASI).md"),
    elementwise(
        "binary",
        "Prelu",
        Binary(Reg.Prelu),
        HALF_FLOAT,
        None,
        "dst = src0 if src0 >= 0 else src0 * src1",
        page="基础算术/Prelu(ISASI).md",
    ),
    Api(
        "Mull",
        "arith",
        (Interface(Form.COUNT, (tensor("dst0"), tensor("dst1"), SRC0, SRC1, COUNT), INT32S),),
        isasi.mull,
        ("Mull",),
        "mull_vf",
        ("mull_first_n",),
        doc("基础算术/Mull(ISASI).md"),
        "dst0, dst1 = the low and high 32 bits of src0 * src1",
    ),
    elementwise("flexible", "Adds", Unary(Reg.Adds, Reg.Add), ADDS_COUNT, SCALAR_REPEAT, "dst = src + scalar"),
    elementwise("flexible", "Muls", Unary(reg_muls, Reg.Mul), MULS_COUNT, SCALAR_REPEAT, "dst = src * scalar"),
    elementwise("flexible", "Maxs", Unary(Reg.Maxs, Reg.Max), MAXS_COUNT, SCALAR_REPEAT, "dst = max(src, scalar)"),
    elementwise("flexible", "Mins", Unary(Reg.Mins, Reg.Min), MAXS_COUNT, SCALAR_REPEAT, "dst = min(src, scalar)"),
    elementwise(
        "flexible",
        "Subs",
        Unary(reg_subs, Reg.Sub, reg_subs2),
        MULS_COUNT,
        SCALAR_REPEAT,
        "dst = src - scalar (scalar first: scalar - src)",
        callees=("Duplicate", "Sub"),
        page="基础算术/Subs（灵活标量位置）.md",
    ),
    elementwise(
        "flexible",
        "Divs",
        Unary(reg_divs, Reg.Div, reg_divs2),
        DIVS_COUNT,
        HALF_FLOAT,
        "dst = src / scalar (scalar first: scalar / src)",
        callees=("Duplicate", "Div"),
        page="基础算术/Divs（灵活标量位置）.md",
    ),
    elementwise("scalar", "LeakyRelu", Unary(Reg.LeakyRelu), HALF_FLOAT, HALF_FLOAT, "dst = src if src >= 0 else src * scalar"),
    # 复合计算 (compound) --------------------------------------------------------------------------------------------------------
    elementwise(
        "binary",
        "AddRelu",
        fused.ADD_RELU,
        ADD_RELU_COUNT,
        ADD_RELU_REPEAT,
        "dst = max(src0 + src1, 0)",
        callees=("Add", "Maxs"),
        family="compound",
    ),
    elementwise(
        "binary",
        "SubRelu",
        fused.SUB_RELU,
        ADD_RELU_COUNT,
        ADD_RELU_REPEAT,
        "dst = max(src0 - src1, 0)",
        callees=("Sub", "Maxs"),
        family="compound",
    ),
    elementwise(
        "binary",
        "FusedMulAdd",
        fused.FUSED_MUL_ADD,
        FLOATS_B64,
        FLOATS,
        "dst = src0 * dst + src1 (fused; 64-bit types: Mul, then Add)",
        callees=("MulDstAdd", "Mul", "Add"),
        family="compound",
        examples=(
            "FusedMulAdd(float32, count=200)",
            "FusedMulAdd(int64, count=200)",
            "FusedMulAdd(half, mask=[3, 0], repeat_time=2)",
        ),
    ),
    elementwise(
        "binary",
        "MulAddRelu",
        fused.MUL_ADD_RELU,
        HALF_FLOAT_B64,
        HALF_FLOAT,
        "dst = max(src0 * dst + src1, 0)",
        callees=("MulDstAdd", "Mul", "Add", "Maxs"),
        family="compound",
        examples=(
            "MulAddRelu(float32, count=200)",
            "MulAddRelu(int64, count=200)",
            "MulAddRelu(half, mask=[3, 0], repeat_time=2)",
        ),
    ),
    elementwise(
        "binary",
        "MulAddDst",
        fused.mul_add_dst,
        HALF_FLOAT_B64,
        HALF_FLOAT,
        "dst = src0 * src1 + dst (fused; half sources and a float dst: widened, rounded once)",
        family="compound",
        interfaces=forms(
            (tensor("dst", FLOAT32), tensor("src0", HALF), tensor("src1", HALF)), FLOAT32, FLOAT32, variant=HALF_TO_FLOAT
        ),
        examples=("MulAddDst(half, count=256)", "MulAddDst(float32, src=half, count=64)"),
    ),
    elementwise(
        "scalar",
        "Axpy",
        fused.axpy,
        FLOATS_B64,
        FLOATS,
        "dst = src * scalar + dst (fused; a half src and a float dst: widened, rounded once)",
        callees=("Axpy", "Muls", "Add"),
        family="compound",
        interfaces=forms(
            (tensor("dst", FLOAT32), tensor("src", HALF), SCALAR), FLOAT32, FLOAT32, (UNARY_PARAMS,), variant=HALF_TO_FLOAT
        ),
        examples=("Axpy(half, scalar_value=2.0, count=256)", "Axpy(float32, src=half, scalar_value=0.5, count=64)"),
    ),
    elementwise(
        "binary",
        "AbsSub",
        Binary(Reg.FusedAbsSub),
        HALF_FLOAT,
        None,
        "dst = |src0 - src1|",
        page="复合计算/AbsSub(ISASI).md",
        family="compound",
    ),
    # 逻辑计算 (logic) ----------------------------------------------------------------------------------------------------------
    elementwise("binary", "And", Binary(Reg.And), INTS, B16_B32_INTS, "dst = src0 & src1", family="logic"),
    elementwise("binary", "Or", Binary(Reg.Or), INTS, B16_B32_INTS, "dst = src0 | src1", family="logic"),
    elementwise("unary", "Not", Unary(Reg.Not), NOT_COUNT, B16_B32_NO_BF16, "dst = ~src", family="logic"),
    elementwise(
        "flexible",
        "Ands",
        Unary(reg_ands, Reg.And),
        ANDS_COUNT,
        ANDS_REPEAT,
        "dst = src & scalar",
        callees=("Duplicate", "And"),
        family="logic",
    ),
    elementwise(
        "flexible",
        "Ors",
        Unary(reg_ors, Reg.Or),
        ANDS_COUNT,
        ANDS_REPEAT,
        "dst = src | scalar",
        callees=("Duplicate", "Or"),
        family="logic",
    ),
    elementwise(
        "scalar",
        "ShiftLeft",
        SHIFT_LEFT,
        INTS,
        B16_B32_INTS,
        "dst = src << scalar (a shift-amount tensor: src0 << src1)",
        callees=("ShiftLefts",),
        family="logic",
        interfaces=(SHIFT_AMOUNTS,),
        skeleton=UNARY_SKELETONS + "; shift-amount tensor: binary_continuous_vf",
        examples=("ShiftLeft(uint16, scalar_value=3, count=300)", "ShiftLeft(int32, scalar_value=1, mask=[3, 0], repeat_time=2)"),
    ),
    Api(
        "ShiftRight",
        "logic",
        (
            *forms((DST, SRC, SCALAR), INTS, B16_B32_INTS, (UNARY_PARAMS, flag("round_en", keyword=False))),
            SHIFT_AMOUNTS,
        ),
        SHIFT_RIGHT,
        ("ShiftRights",),
        UNARY_SKELETONS + "; shift-amount tensor: binary_continuous_vf",
        ELEMENT_ORACLES,
        doc("逻辑计算/ShiftRight.md"),
        "dst = src >> scalar, arithmetic for signed types (a shift-amount tensor: src0 >> src1)",
        examples=("ShiftRight(int16, scalar_value=3, count=300)", "ShiftRight(uint32, scalar_value=1, mask=40, repeat_time=2)"),
    ),
    # 比较与选择 (compare_select) ----------------------------------------------------------------------------------------------
    Api(
        "Compare",
        "compare_select",
        forms(
            (tensor("dst", B8), SRC0, SRC1, enum_param("cmp_mode", CMPMODE)),
            B8_TO_B64,
            B16_B32,
            count_keywords=(),
            repeat_keywords=(),
            keywords=(reserved(IS_SET_MASK, "True (a reserved parameter: keep the default)"),),
        )
        + tuple(
            Interface(
                form, (SRC0, SRC1, enum_param("cmp_mode", CMPMODE), mask, BINARY_PARAMS), HALF_FLOAT, (IS_SET_MASK,), CMP_MASK
            )
            for form, mask in ((Form.BITS, MASK_BITS), (Form.CONTINUOUS, MASK_CONTINUOUS))
        ),
        compare.compare,
        ("Compare",),
        "compare_continuous_vf / compare_repeat_vf; compare-mask register: compare_cmp_mask_vf",
        ("compare_first_n", "compare_repeat", "compare_cmp_mask"),
        doc("比较与选择/Compare.md"),
        "dst bit i = src0[i] cmp_mode src1[i] (no dst: into the compare-mask register)",
        explore=compare.explore(False),
        examples=("Compare(float32, cmp_mode=LT, count=256)", "Compare(half, cmp_mode=GE, mask=[3, 0], repeat_time=2)"),
    ),
    Api(
        "Compares",
        "compare_select",
        forms(*_COMPARES_SCALAR, keywords=(BINARY_CONFIG,))
        + forms(
            (tensor("dst", UINT8), SRC0, SRC1, enum_param("cmp_mode", CMPMODE)),
            B8_TO_B64,
            B16_B32,
            (UNARY_PARAMS,),
            keywords=(BINARY_CONFIG,),
            variant=FLEXIBLE,
        )
        + forms(
            (tensor("dst", UINT8), SCALAR_ARG, SRC1, enum_param("cmp_mode", CMPMODE)),
            B8_TO_B64,
            B16_B32,
            (UNARY_PARAMS,),
            keywords=(BINARY_CONFIG,),
            variant=SCALAR_FIRST,
        ),
        compare.compares,
        ("Compares",),
        "compare_continuous_vf / compare_repeat_vf",
        ("compare_first_n", "compare_repeat"),
        doc("比较与选择/Compares.md"),
        "dst bit i = src0[i] cmp_mode scalar",
        # (the deprecated name of the tensor-and-scalar interfaces: the page "接口变更说明", which maps it to Compares)
        (Alias("CompareScalar", forms(*_COMPARES_SCALAR)),),
        explore=compare.explore(True),
        examples=(
            "Compares(half, cmp_mode=GE, scalar_value=1.5, mask=64, repeat_time=2)",
            "Compares(int32, cmp_mode=EQ, count=128)",
        ),
    ),
    Api(
        "Select",
        "compare_select",
        forms(
            (DST, tensor("sel_mask", UINTS), SRC0, SRC1, enum_param("sel_mode", SELMODE)),
            B8_TO_B64_COMPLEX,
            B16_B32,
            count_keywords=(),
            repeat_keywords=(),
            prefer=lambda v: v["sel_mode"] is not S1,
        )
        + forms(
            (DST, tensor("sel_mask", UINTS), SRC0, Param("src1", Kind.SCALAR), enum_param("sel_mode", SELMODE)),
            B8_TO_B64_COMPLEX,
            B16_B32,
            count_keywords=(),
            repeat_keywords=(),
        )
        + forms(
            (DST, tensor("sel_mask", UINTS), SRC0, SRC1, enum_param("sel_mode", SELMODE)),
            B8_TO_B64_COMPLEX,
            B16_B32,
            count_keywords=(),
            repeat_keywords=(),
            keywords=(BINARY_CONFIG,),
            variant=FLEXIBLE,
            prefer=lambda v: v["sel_mode"] is S1,
        )
        + forms(
            (DST, tensor("sel_mask", UINTS), SCALAR_ARG, SRC1, enum_param("sel_mode", SELMODE)),
            B8_TO_B64_COMPLEX,
            B16_B32,
            count_keywords=(),
            repeat_keywords=(),
            keywords=(BINARY_CONFIG,),
            variant=SCALAR_FIRST,
        )
        + (
            Interface(
                Form.NONE,
                (DST, SRC0, SRC1, REPEAT_TIME, BINARY_PARAMS),
                B16_B32,
                (enum_param("sel_mode", SELMODE, keyword=True),),
                CMP_MASK,
            ),
            Interface(Form.NONE, (DST, tensor("sel_mask", UINTS), SRC0, REPEAT_TIME, BINARY_PARAMS), B16_B32, (), CMP_MASK),
        ),
        select.select,
        ("Select",),
        "select_continuous_vf / select_repeat_vf; no mask argument: select_no_mask_vf",
        ("select_first_n", "select_repeat"),
        doc("比较与选择/Select.md"),
        "dst[i] = src0[i] if bit i of sel_mask else src1[i] (mode 1: src1 a scalar)",
        explore=select.explore,
        examples=(
            "Select(float32, sel_mode=VSEL_TENSOR_TENSOR_MODE, count=130)",
            "Select(half, sel_mode=VSEL_CMPMASK_SPR, mask=128, repeat_time=2)",
        ),
    ),
    Api(
        "GetCmpMask",
        "compare_select",
        (Interface(Form.NONE, (tensor("dst"),), GET_CMP_MASK),),
        cmpmask.get_cmp_mask,
        (),
        "-",
        ("compare_cmp_mask",),
        doc("比较与选择/GetCmpMask(ISASI).md"),
        "dst's first 16 bytes = the compare-mask register",
        examples=("GetCmpMask(uint8)",),
    ),
    Api(
        "SetCmpMask",
        "compare_select",
        (Interface(Form.NONE, (tensor("src"),), SET_CMP_MASK),),
        cmpmask.set_cmp_mask,
        (),
        "-",
        ("select_repeat",),
        doc("比较与选择/SetCmpMask(ISASI).md"),
        "the compare-mask register = src's first 16 bytes",
        examples=("SetCmpMask(uint8)",),
    ),
    Api(
        "GatherMask",
        "compare_select",
        tuple(
            Interface(
                Form.NONE,
                (
                    DST,
                    SRC0,
                    pattern,
                    Param("reduce_mode", Kind.BOOL),
                    integer("mask"),
                    struct("gather_mask_params", GatherMaskParams),
                    Param("rsvd_cnt", Kind.REF),
                ),
                B8_B16_B32,
                variant=variant,
            )
            for pattern, variant in (
                (tensor("src1_pattern", Paired("src0", gather_mask.PATTERN_TYPE)), PATTERN_TENSOR),
                (integer("src1_pattern", "an int in [1, 7] or a pattern LocalTensor"), ""),
            )
        ),
        gather_mask.gather_mask,
        ("Squeeze",),
        "all_normal_vf / squeeze_normal_vf / counter_vf / user_normal_vf",
        ("gather_mask",),
        doc("比较与选择/GatherMask.md"),
        "dst = the elements of src0 whose pattern bit is 1, packed; rsvd_cnt = how many",
        explore=gather_mask.explore,
        examples=("GatherMask(half, src1_pattern=2, reduce_mode=False, params=(1, 4, 8, 0))",),
    ),
    # 类型转换 (cast) -----------------------------------------------------------------------------------------------------------
    Api(
        "Cast",
        "cast",
        forms(
            (tensor("dst", None), SRC, enum_param("round_mode", RoundMode)),
            frozenset(s for s, _ in cast_api.PAIRS_COUNT),
            frozenset(s for s, _ in cast_api.PAIRS_REPEAT),
            (UNARY_PARAMS,),
            pairs=Pairs(("src", "dst"), cast_api.PAIRS_COUNT),
        ),
        cast_api.cast,
        ("Cast",),
        "cast_continuous_vf / cast_repeat_vf / cast_counter_vf (b64, complex, 4-bit, double: their own VFs)",
        ("cast_elements", "cast_repeat"),
        doc("类型转换/Cast.md"),
        "dst = src converted with round_mode (the pairs of the Cast page)",
        explore=cast_api.explore,
        examples=(
            "Cast(float32, dst=half, round_mode=CAST_RINT, count=300)",
            "Cast(half, dst=int32, round_mode=CAST_ROUND, mask=64, repeat_time=2, repeat_params=(1, 1, 8, 4))",
        ),
    ),
    elementwise(
        "unary",
        "Truncate",
        isasi.truncate,
        FLOATS,
        None,
        "dst = src rounded to an integral value by round_mode",
        page="类型转换/Truncate(ISASI).md",
        keywords=(enum_param("round_mode", RoundMode, keyword=True),),
        family="cast",
        examples=("Truncate(half, round_mode=CAST_FLOOR, count=200)",),
    ),
    Api(
        "SetDeqScale",
        "cast",
        (
            Interface(Form.NONE, (Param("scale", Kind.SCALAR),), frozenset()),
            Interface(
                Form.NONE,
                (Param("scale", Kind.SCALAR), integer("offset"), Param("sign_mode", Kind.BOOL)),
                frozenset(),
                variant=CAST_DEQ,
            ),
            Interface(Form.NONE, (tensor("vdeq", None), Param("vdeq_info", Kind.SCALAR)), frozenset(), variant=CAST_DEQ),
        ),
        cast_api.set_deq_scale,
        (),
        "-",
        ("cast_elements",),
        doc("类型转换辅助配置接口/SetDeqScale.md"),
        "the scale the int32 -> half Cast multiplies by",
        examples=("SetDeqScale(half, scale=0.5)",),
    ),
    # 归约计算 (reduce) --------------------------------------------------------------------------------------------------------
    *(
        Api(
            name,
            "reduce",
            forms(
                (DST, SRC, tensor("shared_tmp_buffer")),
                count,
                repeat,
                (integer("src_rep_stride"), *tail),
                count_keywords=(),
                repeat_keywords=(),
            )
            if not tail
            else (
                Interface(Form.COUNT, (DST, SRC, tensor("shared_tmp_buffer"), COUNT, *tail), count),
                *(
                    Interface(
                        form,
                        (DST, SRC, tensor("shared_tmp_buffer"), mask, integer("repeat_time"), integer("src_rep_stride"), *tail),
                        repeat,
                    )
                    for form, mask in ((Form.BITS, MASK_BITS), (Form.CONTINUOUS, MASK_CONTINUOUS))
                ),
            ),
            run,
            callees,
            skeleton,
            oracle,
            doc(f"归约计算/{name}.md"),
            summary,
            explore=run.explore,
            examples=(
                f"{name}(half, count=300{', cal_index=True' if tail else ''})",
                f"{name}(float32, mask=64, repeat_time=20, src_rep_stride=8)",
            ),
        )
        for name, run, count, repeat, tail, callees, skeleton, oracle, summary in (
            (
                "ReduceSum",
                reduce.REDUCE_SUM,
                REDUCE_SUM_COUNT,
                REDUCE_SUM_REPEAT,
                (),
                ("Reduce",),
                "reduce_sum_counter_vf / reduce_sum_normal_vf / reduce_b64_sum_vf",
                ("reduce_sum_count", "reduce_sum_normal"),
                "dst[0] = the sum (the library's order of additions)",
            ),
            (
                "ReduceMax",
                reduce.REDUCE_MAX,
                REDUCE_MAX_COUNT,
                B16_B32_NO_BF16,
                (flag("cal_index", keyword=False),),
                ("Reduce",),
                "reduce_extreme_count_vf / reduce_extreme_mask_vf (cal_index: ..._index_...)",
                ("reduce_extreme_count", "reduce_extreme_normal"),
                "dst[0] = the maximum (cal_index: its index after it)",
            ),
            (
                "ReduceMin",
                reduce.REDUCE_MIN,
                REDUCE_MAX_COUNT,
                B16_B32_NO_BF16,
                (flag("cal_index", keyword=False),),
                ("Reduce",),
                "reduce_extreme_count_vf / reduce_extreme_mask_vf (cal_index: ..._index_...)",
                ("reduce_extreme_count", "reduce_extreme_normal"),
                "dst[0] = the minimum (cal_index: its index after it)",
            ),
        )
    ),
    Api(
        "GetReduceRepeatSumSpr",
        "reduce",
        (Interface(Form.NONE, (Param("T", Kind.DTYPE),), HALF_FLOAT),),
        reduce.get_reduce_repeat_sum_spr,
        (),
        "-",
        ("reduce_sum_count",),
        doc("归约计算辅助配置接口/GetReduceRepeatSumSpr(ISASI).md"),
        "the last first-n ReduceSum's result of type T",
        examples=("GetReduceRepeatSumSpr(half)",),
    ),
    *(
        Api(
            run.name,
            "reduce",
            _per_repeat(run.name, order=run.name == "ReduceRepeat"),
            run,
            {"ReduceRepeat": ("Reduce",), "ReduceDataBlock": ("ReduceDataBlock",), "ReducePairElem": ("PairReduceElem",)}[
                run.name
            ],
            "reduce_unalign_vf" if run.name != "ReducePairElem" else "reduce_align_vf",
            ("per_repeat_runs", "reduce_per_repeat"),
            doc(f"归约计算/{run.name}.md"),
            summary,
            aliases,
            explore=run.explore,
            examples=(f"{run.name}(half, reduce_type={kind}, mask=128, repeat_time=4)",),
        )
        for run, summary, kind, aliases in (
            (
                rr.REDUCE_REPEAT,
                "one result per repeat (MAX / MIN with its index in order)",
                "MAX",
                (
                    Alias("WholeReduceSum", _per_repeat("ReduceRepeat", alias=True), {"reduce_type": ReduceType.SUM}),
                    Alias("WholeReduceMax", _per_repeat("ReduceRepeat", order=True, alias=True), {"reduce_type": ReduceType.MAX}),
                    Alias("WholeReduceMin", _per_repeat("ReduceRepeat", order=True, alias=True), {"reduce_type": ReduceType.MIN}),
                    Alias("RepeatReduceSum", _repeat_reduce_sum(), {"reduce_type": ReduceType.SUM}),
                ),
            ),
            (
                rr.REDUCE_DATA_BLOCK,
                "one result per DataBlock, 8 per repeat",
                "SUM",
                tuple(
                    Alias(f"BlockReduce{k.name.title()}", _per_repeat("ReduceDataBlock", True, True, True), {"reduce_type": k})
                    for k in (ReduceType.SUM, ReduceType.MAX, ReduceType.MIN)
                ),
            ),
            (
                rr.REDUCE_PAIR_ELEM,
                "one sum per pair of elements",
                "SUM",
                (Alias("PairReduceSum", _per_repeat("ReducePairElem", True, True, True), {"reduce_type": ReduceType.SUM}),),
            ),
        )
    ),
    # 数据填充 (fill) ---------------------------------------------------------------------------------------------------------
    Api(
        "Duplicate",
        "fill",
        (
            *forms((DST, SCALAR), DUPLICATE_COUNT, B16_B32, (integer("dst_block_stride"), integer("dst_repeat_stride"))),
            Interface(Form.COUNT, (DST, SRC, COUNT), DUPLICATE_COUNT, (NO_SET_MASK,), FROM_TENSOR),
        ),
        fill.duplicate,
        ("Duplicate",),
        "duplicate_continuous_vf / duplicate_repeat_vf",
        ("fill_first_n", "repeat_interface"),
        doc("数据填充/Duplicate.md"),
        "dst = scalar (or src[0]) in every element",
        explore=fill.explore_duplicate,
        examples=(
            "Duplicate(int32, scalar_value=2, mask=64, repeat_time=2, dst_block_stride=1, dst_repeat_stride=8)",
            "Duplicate(half, scalar_value=1.5, count=300)",
        ),
    ),
    Api(
        "Brcb",
        "fill",
        (Interface(Form.NONE, (DST, SRC, REPEAT_TIME, struct("repeat_params", BrcbRepeatParams)), B8_TO_B64),),
        fill.brcb,
        ("LoadAlign", "StoreAlign"),
        "brcb_common_vf / brcb_b8_vf / brcb_b64_vf",
        ("brcb",),
        doc("数据填充/Brcb.md"),
        "each src element fills a DataBlock of dst",
        explore=fill.explore_brcb,
        examples=("Brcb(float32, repeat_time=3, repeat_params=(2, 16))",),
    ),
    Api(
        "CreateVecIndex",
        "fill",
        forms(
            (DST, Param("first_value", Kind.SCALAR)),
            SIGNED_HALF_FLOAT,
            SIGNED16_32_HALF_FLOAT,
            (integer("dst_blk_stride"), integer("dst_rep_stride")),
            count_keywords=(),
            repeat_keywords=(),
        ),
        fill.create_vec_index,
        ("Arange",),
        "create_vec_index_count_vf / create_vec_index_b64_vf / create_vec_index_repeat_vf",
        ("create_vec_index_first_n", "create_vec_index_repeat"),
        doc("数据填充/CreateVecIndex.md"),
        "dst[i] = first_value + i",
        examples=(
            "CreateVecIndex(int32, first_value=5, count=200)",
            "CreateVecIndex(half, first_value=0, mask=[3, 0], repeat_time=2, dst_blk_stride=1, dst_rep_stride=8)",
        ),
    ),
    # 离散与聚合 (gather_scatter) -----------------------------------------------------------------------------------------------
    Api(
        "Gather",
        "gather_scatter",
        forms(
            (DST, SRC, tensor("src_offset", UINT32), integer("src_base_addr")),
            B8_TO_B64,
            B16_TO_B64,
            (integer("dst_rep_stride"),),
            count_keywords=(),
            repeat_keywords=(),
        ),
        gather.gather,
        ("Gather",),
        "gather_b8_vf / gather_b16_vf / gather_b32_vf / gather_b64_vf",
        ("gather",),
        doc("离散与聚合/Gather.md"),
        "dst[i] = the element at byte src_base_addr + src_offset[i] of src",
        explore=gather.explore_gather,
        examples=("Gather(half, count=128)", "Gather(half, mask=128, repeat_time=4, dst_rep_stride=8)"),
    ),
    Api(
        "Gatherb",
        "gather_scatter",
        (
            Interface(
                Form.NONE,
                (DST, SRC, tensor("offset", UINT32), REPEAT_TIME, struct("repeat_params", GatherRepeatParams)),
                B8_TO_B64,
            ),
        ),
        gather.gatherb,
        ("GatherB",),
        "gatherb_vf",
        ("gatherb",),
        doc("离散与聚合/Gatherb(ISASI).md"),
        "DataBlock k of repeat r of dst = the 32 bytes at byte offset[8 r + k] of src",
        explore=gather.explore_gatherb,
        examples=("Gatherb(int64, repeat_time=2, params=(2, 20))",),
    ),
    Api(
        "Scatter",
        "gather_scatter",
        forms(
            (DST, SRC, tensor("dst_offset", UINT32), integer("dst_base_addr")),
            B8_TO_B64,
            B16_TO_B64,
            (integer("src_rep_stride"),),
            count_keywords=(),
            repeat_keywords=(),
        ),
        scatter.scatter,
        ("Scatter",),
        "scatter_b8_vf / scatter_b16_vf / scatter_b32_vf / scatter_b64_vf (and their _repeat_vf)",
        ("scatter", "scatter_repeat"),
        doc("离散与聚合/Scatter(ISASI).md"),
        "src[i] at byte dst_base_addr + dst_offset[i] of dst",
        explore=scatter.explore,
        examples=("Scatter(half, count=130)",),
    ),
    # 掩码操作 (mask) -----------------------------------------------------------------------------------------------------------
    Api(
        "SetVectorMask",
        "mask",
        (
            Interface(Form.NONE, (Param("T", Kind.DTYPE), integer("mask_high"), integer("mask_low")), frozenset()),
            Interface(Form.NONE, (Param("T", Kind.DTYPE), integer("length")), frozenset()),
        ),
        vm.set_vector_mask_api,
        (),
        "-",
        ("mask_elements", "counter_mode"),
        doc("掩码操作/SetVectorMask.md"),
        "the vector mask register = (mask_high, mask_low), or the first length elements (counter mode: the count)",
        examples=("SetVectorMask(half, mask_high=0, mask_low=255)", "SetVectorMask(half, length=8)"),
    ),
    *(
        Api(
            name,
            "mask",
            (Interface(Form.NONE, (), frozenset()),),
            run,
            (),
            "-",
            oracle,
            doc(f"掩码操作/{name}.md"),
            summary,
            examples=(f"{name}(half)",),
        )
        for name, run, oracle, summary in (
            ("ResetMask", vm.reset_mask, ("normal_mode",), "every bit of the vector mask register set"),
            ("SetMaskCount", vm.set_mask_count, ("counter_mode",), "counter mask mode: a mask is an element count"),
            ("SetMaskNorm", vm.set_mask_norm, ("normal_mode",), "normal mask mode: a mask selects elements per repeat"),
        )
    ),
    # 高阶API 数学计算 (math): the high-level math APIs the operator kernels call that 950 runs as one Reg op a register
    Api(
        "Log",
        "math",
        (Interface(Form.COUNT, (DST, SRC, COUNT), HALF_FLOAT, (REUSE_SOURCE,)),),
        math_api.LOG,
        ("Log",),
        "LogImpl (unary_continuous_vf's loop)",
        ("first_n",),
        doc(f"{MATH_PAGES}/Log接口/Log-79.md"),
        "dst = ln(src) (Reg::Log; its base-2 and base-10 twins Log2, Log10 not modelled)",
    ),
    Api(
        "Trunc",
        "math",
        _with_tmp_buffer((DST, SRC), HALF_FLOAT),
        math_api.trunc,
        ("Truncate",),
        "TruncImpl: Truncate<T, CAST_TRUNC> (unary_continuous_vf)",
        ("first_n",),
        doc(f"{MATH_PAGES}/Trunc接口/Trunc.md"),
        "dst = src rounded toward zero to an integral value",
    ),
    Api(
        "Fma",
        "math",
        _with_tmp_buffer((DST, SRC0, SRC1, tensor("src2")), HALF_FLOAT),
        math_api.fma,
        ("MulDstAdd",),
        "fma_vf (FmaImplVF)",
        ("first_n",),
        doc(f"{MATH_PAGES}/Fma接口/Fma.md"),
        "dst = src0 * src1 + src2 (fused: rounded once)",
    ),
)

#: every public name (an API's or a deprecated alias's) -> its binder
ENTRIES: Final[dict[str, Entry]] = {e.name: e for api in APIS for e in entries(api)}
BY_NAME: Final[dict[str, Api]] = {a.name: a for a in APIS}

# `dst[:] = src0 + src1` (C++'s whole-tensor `dst = src0 + src1;`): the binary APIs of the tensor operators. (The model
# floor holds the table and the lowerings fill it: LocalTensor cannot import the layer above it.)
TENSOR_OPERATORS.update({name: ENTRIES[name] for name in ("Add", "Sub", "Mul", "Div", "And", "Or")})


# --- the public faces (regsim/_src/lowerings/faces.py, generated, types them) ---------------------------------------------------
MaskBits: TypeAlias = Sequence[int] | np.ndarray[Any, Any]  #: a bit-mode mask `uint64_t mask[2]`
Scalar: TypeAlias = int | float | complex | np.generic  #: a scalar argument (converted to the element type)
F = TypeVar("F", bound=Callable[..., Any])


def face(name: str) -> Callable[[F], F]:
    """Make the typed stub `f` the public face of the memory-level name `name`: a call binds through the name's entry
    (`spec.Entry`); `f` keeps the signature mypy checks (`typing.get_overloads` and `inspect.signature` see it); the
    docstring is the row's."""
    entry = ENTRIES[name]

    def make(f: F) -> F:
        def call(*args: Any, **kwargs: Any) -> Any:
            return entry(*args, **kwargs)

        functools.update_wrapper(call, f)
        call.__doc__ = docstring(entry)
        return call  # type: ignore[return-value]

    return make


def docstring(entry: Entry) -> str:
    """A public name's docstring: its summary, forms and dtypes, from its row."""
    api = entry.api
    lines = [
        f"`AscendC::{entry.name}`: {api.summary}." + (f" (A deprecated name of {api.name}.)" if entry.name != api.name else "")
    ]
    for i in entry.interfaces:
        label = ", ".join(x for x in (i.form.value if i.form is not Form.NONE else "", i.variant) if x)
        dtypes = f"; dtypes on Ascend 950: {dt.names(i.dtypes)}" if i.dtypes else ""
        keywords = ", ".join(f"{p.name}=" for p in i.keywords)
        lines.append(
            f"- {entry.name}{i.form_text()}" + (f" [{keywords}]" if keywords else "") + (f" ({label})" if label else "") + dtypes
        )
    lines.append(f"Lowering: {api.skeleton} over {', '.join(api.callees) or 'no Reg op (core state)'}. Doc: {api.doc}")
    return "\n".join(lines)
