"""The C++ declarations of the kernel side (`GlobalTensor`, `LocalTensor`, `TPipe`, `TQue`, `TBuf`, `DataCopy`,
`DataCopyPad`, the block and sync functions, `__VEC_SCOPE__`, the tiling macros) the front end gives libclang after
the Reg declarations, written from regsim's kernel floor (no vendor header is copied).

Markers the lowering reads: `__global__` annotates a kernel entry (`regsim:global`); `__VEC_SCOPE__ { ... }` is
`if (__regsim_vec_scope()) { ... }`, a block the lowering runs as a VF; `GET_TILING_DATA*` declare the tiling
struct and fill it from the GM bytes (`__regsim_tiling`); `TILING_KEY_IS(k)` compares with the launch's
`tiling_key` (`__regsim_tiling_key_is(k)`). `GET_TILING_DATA(name, tiling)` names no type: the file is loaded with
`-DREGSIM_TILING_DATA=<struct>` (the toolchain derives it from the operator's name).
"""

from __future__ import annotations

import functools
import re

from regsim._src.frontends.cpp.declarations import header as reg_header
from regsim._src.kernel.pipes import PIPE, HardEvent

_KERNEL = """\
#undef __global__
#define __global__ __attribute__((annotate("regsim:global")))
#define GM_ADDR __gm__ uint8_t*
#define __VEC_SCOPE__ if (::__regsim_vec_scope())
#define KERNEL_TASK_TYPE_DEFAULT(...)
#define KERNEL_TASK_TYPE(...)
#define REGISTER_TILING_DEFAULT(...)
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
template <typename T> void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {}
template <typename T> void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {}
template <typename T> void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {}
template <typename T> void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {}
template <typename T> void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {}
template <typename T> void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {}
template <typename T> void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
    const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {}
template <typename T> void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {}
inline int64_t GetBlockIdx() { return 0; }
inline int64_t GetBlockNum() { return 1; }
template <pipe_t pipe> inline void PipeBarrier() {}
template <HardEvent event> inline void SetFlag(int32_t eventID) {}
template <HardEvent event> inline void WaitFlag(int32_t eventID) {}
inline void SyncAll() {}
inline __gm__ uint8_t* GetUserWorkspace(__gm__ uint8_t* workspace) { return workspace; }
inline void SetSysWorkspace(__gm__ uint8_t* workspace) {}
}  // namespace AscendC
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


def header() -> str:
    """The whole header the front end force-includes: the Reg declarations, then the kernel side."""
    return reg_header() + kernel_header()
