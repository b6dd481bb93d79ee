"""The C++ declarations of the kernel side (`GlobalTensor`, `LocalTensor`, `TPipe`, `TQue`, `TBuf`, `DataCopy`,
`DataCopyPad`, the block and sync functions, `NumericLimits<T>`, `__VEC_SCOPE__`, the tiling macros) the front end
gives libclang after the Reg declarations, written from regsim's kernel floor (no vendor header is copied).

Markers the lowering reads: `__global__` annotates a kernel entry (`regsim:global`); `__VEC_SCOPE__ { ... }` is
`if (__regsim_vec_scope()) { ... }`, a block the lowering runs as a VF; `GET_TILING_DATA*` declare the tiling
struct and fill it from the GM bytes (`__regsim_tiling`); `TILING_KEY_IS(k)` compares with the launch's
`tiling_key` (`__regsim_tiling_key_is(k)`). `GET_TILING_DATA(name, tiling)` names no type: the file is loaded with
`-DREGSIM_TILING_DATA=<struct>` (the toolchain derives it from the operator's name).

The memory-level APIs (`AscendC::Add(dst, src0, src1, count)`, `Cast`, `Compare`, `Select`, `Duplicate`,
`ReduceSum`, ... on LocalTensors) are declared from the rows of regsim's memory-level table
(`regsim._src.lowerings.table`), one function template per interface, with the repeat-parameter structs they
take. The declarations let libclang resolve a call, not check it: each tensor's element type is deduced on its
own and the template parameters after the element types are one `auto...` pack, so an explicit
`Cast<half, float>(...)` or `Adds<float, false>(...)` is accepted whatever the vendor header's order of its
non-type parameters; the lowering runs the call through the table's binder (`rs.AscendC.<API>`), which checks
the element types and picks the overload as C++ would.
"""

from __future__ import annotations

import functools
import re

import attrs

from regsim._src.frontends.cpp.declarations import header as reg_header
from regsim._src.kernel.pipes import PIPE, HardEvent
from regsim._src.lowerings.spec import REQUIRED, Interface, Kind, Param
from regsim._src.lowerings.table import ENTRIES

_KERNEL = """\
#undef __global__
#define __global__ __attribute__((annotate("regsim:global")))
#define GM_ADDR __gm__ uint8_t*
#define __VEC_SCOPE__ if (::__regsim_vec_scope())
#define KERNEL_TASK_TYPE_DEFAULT(...)
#define ASCENDC_ASSERT(cond, behavior)
#define KERNEL_TASK_TYPE(...)
#define REGISTER_TILING_DEFAULT(...)
#define REGISTER_NONE_TILING
#define REGISTER_TILING_FOR_TILINGKEY(...)
#define TILING_KEY_IS(k) ::__regsim_tiling_key_is(k)
#define GET_TILING_DATA(name, ptr) REGSIM_TILING_DATA name; ::__regsim_tiling(name, ptr)
#define GET_TILING_DATA_WITH_STRUCT(T, name, ptr) T name; ::__regsim_tiling(name, ptr)
#define GET_TILING_DATA_PTR_WITH_STRUCT(T, name, ptr) T __regsim_tiling_##name; ::__regsim_tiling(__regsim_tiling_##name, ptr); \\
    const T* name = &__regsim_tiling_##name
#define g_coreType (AscendC::AIV)
#define ASCEND_IS_AIV (g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC (g_coreType == AscendC::AIC)
#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 310
#endif
inline bool __regsim_vec_scope() { return true; }
inline bool __regsim_tiling_key_is(uint64_t key) { return false; }
template <typename S> inline void __regsim_tiling(S& s, __gm__ uint8_t* p) {}
PIPE_ENUM
EVENT_ENUM
namespace AscendC {
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;
using QuePosition = TPosition;
HARD_EVENT
VECTOR_REG_WIDTH
template <typename T> class LocalTensor {
public:
    LocalTensor() = default;
    __ubuf__ T* GetPhyAddr() const { return nullptr; }
    __ubuf__ T* GetPhyAddr(uint32_t offset) const { return nullptr; }
    LocalTensor<T> operator[](uint32_t offset) const { return *this; }
    T GetValue(uint32_t index) const { return T(); }
    void SetValue(uint32_t index, T value) const {}
    uint32_t GetSize() const { return 0; }
    void SetSize(uint32_t size) {}
    template <typename U> LocalTensor<U> ReinterpretCast() const { return LocalTensor<U>(); }
};
template <typename T> class GlobalTensor {
public:
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ T* buffer) {}
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {}
    GlobalTensor<T> operator[](uint64_t offset) const { return *this; }
    __gm__ T* GetPhyAddr() const { return nullptr; }
    __gm__ T* GetPhyAddr(uint64_t offset) const { return nullptr; }
    T GetValue(uint64_t offset) const { return T(); }
    void SetValue(uint64_t offset, T value) const {}
    uint64_t GetSize() const { return 0; }
};
template <TPosition pos, int32_t depth = 1, auto mask = 0> class TQue {
public:
    TQue() = default;
    template <typename T> LocalTensor<T> AllocTensor() { return LocalTensor<T>(); }
    template <typename T> void FreeTensor(LocalTensor<T>& tensor) {}
    template <typename T> bool EnQue(const LocalTensor<T>& tensor) { return true; }
    template <typename T> LocalTensor<T> DeQue() { return LocalTensor<T>(); }
};
template <TPosition pos = TPosition::VECCALC> class TBuf {
public:
    TBuf() = default;
    template <typename T> LocalTensor<T> Get() { return LocalTensor<T>(); }
    template <typename T> LocalTensor<T> Get(uint32_t len) { return LocalTensor<T>(); }
    template <typename T> LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) { return LocalTensor<T>(); }
};
class TPipe {
public:
    TPipe() {}
    template <class Q> bool InitBuffer(Q& que, uint8_t num, uint32_t len) { return true; }
    template <TPosition p> bool InitBuffer(TBuf<p>& buf, uint32_t len) { return true; }
    void Destroy() {}
    void Reset() {}
};
struct DataCopyParams {
    uint16_t blockCount = 1; uint16_t blockLen = 0; uint16_t srcStride = 0; uint16_t dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn) {}
};
struct DataCopyExtParams {
    uint16_t blockCount = 1; uint32_t blockLen = 0; int64_t srcStride = 0; int64_t dstStride = 0; uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t count, uint32_t len, int64_t srcStrideIn, int64_t dstStrideIn, uint32_t rsvIn) {}
};
template <typename T> struct DataCopyPadExtParams {
    bool isPad = false; uint8_t leftPadding = 0; uint8_t rightPadding = 0; T paddingValue = 0;
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool isPadValue, uint8_t left, uint8_t right, T padValue) {}
};
struct DataCopyPadParams {
    bool isPad = false; uint8_t leftPadding = 0; uint8_t rightPadding = 0; uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool isPadValue, uint8_t left, uint8_t right, uint64_t padValue) {}
};
template <typename T> void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {}
template <typename T> void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {}
template <typename T> void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {}
template <typename T> void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {}
template <typename T> void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {}
template <typename T> void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {}
template <typename T> void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
    const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {}
template <typename T> void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {}
template <typename T> void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
    const DataCopyParams& p, const DataCopyPadParams& pad) {}
template <typename T> void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {}
inline int64_t GetBlockIdx() { return 0; }
inline int64_t GetBlockNum() { return 1; }
template <pipe_t pipe> inline void PipeBarrier() {}
template <HardEvent event> inline void SetFlag(int32_t eventID) {}
template <HardEvent event> inline void WaitFlag(int32_t eventID) {}
inline void SyncAll() {}
inline __gm__ uint8_t* GetUserWorkspace(__gm__ uint8_t* workspace) { return workspace; }
inline void SetSysWorkspace(__gm__ uint8_t* workspace) {}
inline void InitSocState() {}
template <typename T> inline float ToFloat(const T& value) { return 0; }
template <auto F, typename... Args> inline void VF_CALL(Args... args) {}
template <typename T> struct NumericLimits {
    static constexpr T Max() { return T(); }
    static constexpr T Lowest() { return T(); }
    static constexpr T Min() { return T(); }
    static constexpr T Infinity() { return T(); }
    static constexpr T NegativeInfinity() { return T(); }
    static constexpr T QuietNaN() { return T(); }
    static constexpr T DeNormMin() { return T(); }
    static void Max(const LocalTensor<T>& dst, uint32_t count) {}
    static void Lowest(const LocalTensor<T>& dst, uint32_t count) {}
    static void Min(const LocalTensor<T>& dst, uint32_t count) {}
    static void Infinity(const LocalTensor<T>& dst, uint32_t count) {}
    static void NegativeInfinity(const LocalTensor<T>& dst, uint32_t count) {}
    static void QuietNaN(const LocalTensor<T>& dst, uint32_t count) {}
    static void DeNormMin(const LocalTensor<T>& dst, uint32_t count) {}
};
}  // namespace AscendC
template <auto F, typename... Args> inline void asc_vf_call(Args... args) {}
using AscendC::GetBlockIdx;
using AscendC::GetBlockNum;
"""


def _enum(name: str, members: type, scoped: bool) -> str:
    body = ", ".join(f"{m.name} = {m.value}" for m in members)  # type: ignore[attr-defined]
    return f"enum {'class ' if scoped else ''}{name} {{ {body} }};"


@functools.cache
def kernel_header() -> str:
    """The kernel-side declarations (after the Reg declarations of `declarations.header()`)."""
    text = _KERNEL.replace("PIPE_ENUM", _enum("pipe_t", PIPE, False))
    text = text.replace("EVENT_ENUM", "enum event_t { " + ", ".join(f"EVENT_ID{i} = {i}" for i in range(8)) + " };")
    text = text.replace("HARD_EVENT", _enum("HardEvent", HardEvent, True))
    # (the Reg declarations may define the register width already)
    width = "" if re.search(r"\bVECTOR_REG_WIDTH\b", reg_header()) else "constexpr uint32_t VECTOR_REG_WIDTH = 256;"
    return text.replace("VECTOR_REG_WIDTH", width, 1) if width else text.replace("VECTOR_REG_WIDTH\n", "", 1)


#: the structs the memory-level APIs take as function arguments (the repeat parameters), by C++ name
MEMORY_STRUCTS: dict[str, type] = {
    p.struct.__name__: p.struct
    for e in ENTRIES.values()
    for i in e.interfaces
    for p in i.params
    if p.kind is Kind.STRUCT and p.struct is not None
}
#: the names of the memory-level APIs whose interfaces take no tensor (the host APIs of core state: `SetMaskCount`)
HOST_APIS = frozenset(n for n, e in ENTRIES.items() if not any(p.kind is Kind.TENSOR for i in e.interfaces for p in i.params))


def _struct(cls: type) -> str:
    """`struct BinaryRepeatParams { uint32_t dstBlkStride = 1; ...; BinaryRepeatParams(uint32_t, ...) {} };`"""
    fields = attrs.fields(cls)
    ctype = {f.name: "bool" if isinstance(f.default, bool) else "uint32_t" for f in fields}
    members = " ".join(f"{ctype[f.name]} {f.name} = {int(f.default)};" for f in fields)
    ctor = ", ".join(f"{ctype[f.name]} {f.name}In" for f in fields)
    return f"struct {cls.__name__} {{ {members} {cls.__name__}() = default; {cls.__name__}({ctor}) {{}} }};"


def _type_slots(iface: Interface) -> int:
    """How many type parameters the C++ template of an interface has before its non-type ones: the element type T
    (or a `DTYPE` parameter), then one for each tensor whose element type is not T and, but for a dst (the headers'
    `Compares<T, U>` with a uint8_t dst), not one fixed type (Cast's dst, Compare's dst, Select's selMask)."""
    own = [p for p in iface.params if p.kind is Kind.TENSOR and p.dtypes != "T"]
    fixed = [p for p in own if isinstance(p.dtypes, frozenset) and len(p.dtypes) == 1 and p.name != "dst"]
    dtype = any(p.kind is Kind.DTYPE for p in iface.params)
    return int(bool(iface.dtypes) or dtype or len(own) > len(fixed)) + len(own) - len(fixed)


def _cparam(p: Param, k: int) -> str:
    """One function parameter: tensors and scalars of a deduced type of their own."""
    types = {
        Kind.TENSOR: f"const LocalTensor<A{k}>&",
        Kind.SCALAR: f"A{k}",
        Kind.REF: f"A{k}&",
        Kind.INT: "int64_t",
        Kind.MASK: "uint64_t",
        Kind.BITS: "const uint64_t*",
        Kind.BOOL: "bool",
        Kind.STRUCT: f"const {getattr(p.struct, '__name__', '')}&",
        Kind.ENUM: getattr(p.enum, "__name__", ""),
    }
    return f"{types[p.kind]} {p.name}" + ("" if p.default is REQUIRED else " = {}")


def _memory_decl(name: str, iface: Interface) -> str:
    params = [p for p in iface.params if p.kind is not Kind.DTYPE]
    deduced = [f"typename A{k}" for k, p in enumerate(params) if p.kind in (Kind.TENSOR, Kind.SCALAR, Kind.REF)]
    slots = [f"typename T{k} = DefaultType" for k in range(_type_slots(iface))]
    tparams = ", ".join([*slots, "auto... K", *deduced])
    args = ", ".join(_cparam(p, k) for k, p in enumerate(params))
    return f"template <{tparams}> __aicore__ inline void {name}({args}) {{}}"


@functools.cache
def memory_header() -> str:
    """The memory-level APIs of the table (`namespace AscendC`), after the kernel side's declarations."""
    declared = reg_header() + _KERNEL
    enums = {p.enum for e in ENTRIES.values() for i in e.interfaces for p in i.all_params if p.enum is not None}
    out = ["namespace AscendC {"]
    out += [
        f"enum class {c.__name__} {{ {', '.join(f'{n} = {m.value}' for n, m in c.__members__.items())} }};"
        for c in sorted(enums, key=lambda c: c.__name__)
        if not re.search(rf"\benum (class )?{c.__name__}\b", declared)
    ]
    out += [_struct(c) for c in MEMORY_STRUCTS.values()]
    out += list(dict.fromkeys(_memory_decl(name, i) for name, e in ENTRIES.items() for i in e.interfaces))
    out.append("}  // namespace AscendC")
    return "\n".join(out) + "\n"


def header() -> str:
    """The whole header the front end force-includes: the Reg declarations, then the kernel side, then the
    memory-level APIs."""
    return reg_header() + kernel_header() + memory_header()
