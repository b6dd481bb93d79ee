"""The template parameter lists of the Ascend C Reg functions as the Ascend 950 headers declare them
(the devkit's `reg_compute/*_intf.h` interface headers), recorded in regsim's own notation: the order and
defaults that explicit template arguments in kernels bind to (`Muls<float, float, MaskMergeMode::ZEROING>`).

One overload a line: `Name<param, ...>/N`, N the function's parameter count. A parameter is `X` (a
`typename` without default: deduced from the arguments, or required where nothing deduces it), `X=` (a
`typename` defaulting to `DefaultType`), or `name:Type` / `name:Type=DEFAULT` (a non-type parameter of that
enum or type; `auto` where the header takes either a merge mode or a mode struct's address). The
declarations regsim generates (declarations.py) follow these lists; tests/frontends/test_cpp_signatures.py
checks each registered Reg function against them.
"""

from __future__ import annotations

import functools

import attrs

SIGNATURES = """\
Abs<T=, mode:MaskMergeMode=ZEROING, U>/3
Abs<T=, U=, mode:MaskMergeMode=ZEROING, S, V>/3
AbsSub<T=, mode:MaskMergeMode=ZEROING, U>/4
Add<T=, mode:MaskMergeMode=ZEROING, U>/4
Add<T=, U>/5
AddC<T=, U>/6
Adds<T=, U, mode:MaskMergeMode=ZEROING, S>/4
And<>/4
And<T=, mode:MaskMergeMode=ZEROING, U>/4
Arange<T=, order:IndexOrder=INCREASE_ORDER, U, S>/2
Axpy<T=, U, mode:MaskMergeMode=ZEROING, S>/4
Cast<T=, U=, trait:CastTrait=castTrait, S, V>/3
ClearSpr<spr:SpecialPurposeReg>/0
Compare<T=, mode:CMPMODE=EQ, U>/4
Compares<T=, mode:CMPMODE=EQ, U, S>/4
CreateAddrReg<T>/2
CreateAddrReg<T>/4
CreateAddrReg<T>/6
CreateAddrReg<T>/8
CreateMask<T, mode:MaskPattern=ALL, regTrait:RegTrait=RegTraitNumOne>/0
DeInterleave<T>/4
DeInterleave<T=, U>/4
Div<T=, mode:auto=ZEROING, U>/4
Duplicate<T=, U, S>/2
Duplicate<T=, mode:MaskMergeMode=ZEROING, U, S>/3
Duplicate<T=, pos:HighLowPart=LOWEST, mode:MaskMergeMode=ZEROING, S>/3
Exp<T=, mode:auto=ZEROING, U>/3
ExpSub<T=, U=, layout:RegLayout=ZERO, mode:MaskMergeMode=ZEROING, S, V>/4
Gather<T0=, T1, T2=, T3, T4>/4
Gather<T=, U=, S, V>/3
GatherB<T=, U, S>/4
Histograms<T=, U=, mode:HistogramsBinType, type:HistogramsType, S, V>/3
Interleave<T>/4
Interleave<T=, U>/4
LeakyRelu<T=, U, mode:MaskMergeMode=ZEROING, S>/4
Ln<T=, mode:auto=ZEROING, U>/3
Load<T=, U>/2
LoadAlign<T=, dist:LoadDist=DIST_NORM, U>/2
LoadAlign<T=, postMode:PostLiteral, dist:LoadDist=DIST_NORM, U>/3
LoadAlign<T=, dist:LoadDist=DIST_NORM, U>/3
LoadAlign<T=, dist:LoadDist, U>/3
LoadAlign<T=, postMode:PostLiteral, dist:LoadDist, U>/4
LoadAlign<T=, dist:LoadDist, U>/4
LoadAlign<T=, dataMode:DataCopyMode, U>/4
LoadAlign<T=, dataMode:DataCopyMode, postMode:PostLiteral, U>/5
LoadAlign<T, dist:MaskDist=DIST_NORM>/3
LoadAlign<T, dist:MaskDist=DIST_NORM>/2
LoadAlign<T, postMode:PostLiteral, dist:MaskDist=DIST_NORM>/3
LoadUnAlign<T=, postMode:PostLiteral=POST_MODE_UPDATE, U>/4
LoadUnAlign<T=, U>/3
LoadUnAlign<T=, U>/5
LoadUnAlignPre<T>/2
LoadUnAlignPre<T>/3
LocalMemBar<src:MemType, dst:MemType>/0
Log<T=, mode:auto=ZEROING, U>/3
Log10<T=, mode:auto=ZEROING, U>/3
Log2<T=, mode:auto=ZEROING, U>/3
MaskGenWithRegTensor<T=, offset:int16_t, U>/2
Max<T=, mode:MaskMergeMode=ZEROING, U>/4
Maxs<T=, U, mode:MaskMergeMode=ZEROING, S>/4
Min<T=, mode:MaskMergeMode=ZEROING, U>/4
Mins<T=, U, mode:MaskMergeMode=ZEROING, S>/4
Move<T=, mode:MaskMergeMode=MERGING, U>/3
Move<T=, U>/2
Move<>/3
Move<>/2
MoveMask<T>/0
Mul<T=, mode:MaskMergeMode=ZEROING, U>/4
MulAddDst<T=, mode:MaskMergeMode=ZEROING, U>/4
MulDstAdd<T=, mode:MaskMergeMode=ZEROING, U>/4
Mull<T=, U>/5
Muls<T=, U, mode:MaskMergeMode=ZEROING, S>/4
MulsCast<T0=, T1=, T2, layout:RegLayout=ZERO, T3, T4>/4
Neg<T=, mode:MaskMergeMode=ZEROING, U>/3
Not<>/3
Not<T=, mode:MaskMergeMode=ZEROING, U>/3
Or<>/4
Or<T=, mode:MaskMergeMode=ZEROING, U>/4
Pack<part:HighLowPart=LOWEST>/2
Pack<T=, U=, part:HighLowPart=LOWEST, S, V>/2
PairReduceElem<type:PairReduce=SUM, T=, mode:MaskMergeMode=ZEROING, U>/3
Prelu<T=, mode:MaskMergeMode=ZEROING, U>/4
Reduce<type:ReduceType=SUM, T=, U=, mode:MaskMergeMode=ZEROING, S, V>/3
ReduceDataBlock<type:ReduceType=SUM, T=, mode:MaskMergeMode=ZEROING, U>/3
ReduceDataBlock<type:ReduceType=SUM, T=, U=, mode:MaskMergeMode=ZEROING, S, V>/3
Relu<T=, mode:MaskMergeMode=ZEROING, U>/3
Scatter<T=, U=, S, V>/4
Select<>/4
Select<T=, U>/4
ShiftLeft<T=, U=, mode:MaskMergeMode=ZEROING, S, V>/4
ShiftLefts<T=, U, mode:MaskMergeMode=ZEROING, S>/4
ShiftRight<T=, U=, mode:MaskMergeMode=ZEROING, S, V>/4
ShiftRights<T=, U, mode:MaskMergeMode=ZEROING, S>/4
Sqrt<T=, mode:auto=ZEROING, U>/3
Squeeze<T=, store:GatherMaskMode=NO_STORE_REG, U>/3
Store<T=, U>/2
Store<T=, U>/3
StoreAlign<T=, dist:StoreDist=DIST_NORM, U>/3
StoreAlign<T=, postMode:PostLiteral, dist:StoreDist=DIST_NORM, U>/4
StoreAlign<T=, dist:StoreDist=DIST_NORM, U>/4
StoreAlign<T=, dist:StoreDist, U>/4
StoreAlign<T=, dist:StoreDist, U>/5
StoreAlign<T=, dataMode:DataCopyMode, U>/4
StoreAlign<T=, dataMode:DataCopyMode, postMode:PostLiteral, U>/5
StoreAlign<T, dist:MaskDist=DIST_NORM>/3
StoreAlign<T, dist:MaskDist=DIST_NORM>/2
StoreAlign<T, postMode:PostLiteral, dist:MaskDist=DIST_NORM>/3
StoreUnAlign<T=, postMode:PostLiteral=POST_MODE_UPDATE, U>/4
StoreUnAlign<T=, postMode:PostLiteral=POST_MODE_UPDATE, U>/4
StoreUnAlign<T=, postMode:PostLiteral=POST_MODE_UPDATE, U>/3
StoreUnAlign<T>/3
StoreUnAlignPost<T, postMode:PostLiteral=POST_MODE_UPDATE>/3
StoreUnAlignPost<T>/3
StoreUnAlignPost<T>/2
Sub<T=, mode:MaskMergeMode=ZEROING, U>/4
Sub<T=, U>/5
SubC<T=, U>/6
Truncate<T=, roundMode:RoundMode=CAST_NONE, mode:MaskMergeMode=ZEROING, S>/3
UnPack<part:HighLowPart=LOWEST>/2
UnPack<T=, U=, part:HighLowPart=LOWEST, S, V>/2
Unsqueeze<T=, U>/2
UpdateMask<T, regTrait:RegTrait=RegTraitNumOne>/1
Xor<>/4
Xor<T=, mode:MaskMergeMode=ZEROING, U>/4
"""


@attrs.frozen
class TParam:
    """One template parameter: its name, its type (empty for a `typename`) and its default (None: none)."""

    name: str
    type: str
    default: str | None


@attrs.frozen
class Signature:
    """One overload's template parameter list and its number of function parameters."""

    name: str
    params: tuple[TParam, ...]
    nargs: int


def _param(text: str) -> TParam:
    head, eq, default = text.partition("=")
    name, _, type_ = head.partition(":")
    if not type_:  # a typename: `X=` defaults to DefaultType
        return TParam(name, "", "DefaultType" if eq else None)
    return TParam(name, type_, default if eq else None)


@functools.cache
def signatures() -> dict[str, tuple[Signature, ...]]:
    """The recorded overloads of each Reg function, by name."""
    out: dict[str, list[Signature]] = {}
    for line in SIGNATURES.splitlines():
        name, _, rest = line.partition("<")
        inner, _, nargs = rest.rpartition(">/")
        params = tuple(_param(p.strip()) for p in inner.split(",") if p.strip())
        out.setdefault(name, []).append(Signature(name, params, int(nargs)))
    return {k: tuple(v) for k, v in out.items()}
