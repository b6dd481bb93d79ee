"""The memory-level AscendC APIs called from kernel code (`AscendC::Add(dst, src0, src1, count)`, `Muls`, `Cast`,
`Compare`, `Select`, `Duplicate`, `ReduceSum`, ... on LocalTensors): declared for libclang from the rows of the
memory-level table and run through its binder, in a kernel class template whose calls clang leaves unresolved until
instantiation, with explicit template arguments in the vendor headers' order; checked against numpy in both loop
modes with identical bits."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_kernel_support import both_modes
from cpp_source_support import cpp_source

import regsim as rs
from regsim._src.frontends.cpp.kernel_decls import memory_header
from regsim._src.frontends.cpp.lowering import CppError
from regsim._src.lowerings.table import ENTRIES

SRC = """
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t SPLIT = 1024;

template <typename T>
class MemOps {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR m, GM_ADDR s, uint32_t n) {
        n_ = n;
        xGm.SetGlobalBuffer((__gm__ T*)x);
        yGm.SetGlobalBuffer((__gm__ T*)y);
        zGm.SetGlobalBuffer((__gm__ float*)z);
        mGm.SetGlobalBuffer((__gm__ T*)m);
        sGm.SetGlobalBuffer((__gm__ float*)s);
        pipe.InitBuffer(inQ, 1, 2 * SPLIT * sizeof(T));
        pipe.InitBuffer(outQ, 1, SPLIT * sizeof(float));
        pipe.InitBuffer(tmp, 2 * SPLIT * sizeof(float));
        pipe.InitBuffer(cmp, SPLIT);
    }
    __aicore__ inline void Process() {
        LocalTensor<T> x = inQ.template AllocTensor<T>();
        DataCopy(x, xGm, n_);
        DataCopy(x[SPLIT], yGm, n_);
        inQ.EnQue(x);
        x = inQ.template DeQue<T>();
        LocalTensor<float> z = outQ.template AllocTensor<float>();
        LocalTensor<float> t = tmp.template Get<float>();
        LocalTensor<uint8_t> c = cmp.template Get<uint8_t>();
        Add(x[SPLIT], x, x[SPLIT], n_);                                  // s = x + y
        AscendC::Muls<T>(x[SPLIT], x[SPLIT], static_cast<T>(2), n_);     // s = 2 s
        Cast<float, T>(z, x[SPLIT], RoundMode::CAST_NONE, n_);            // z = (float)s
        Adds(z, z, 1.5f, n_);
        Truncate<float, RoundMode::CAST_FLOOR>(z, z, n_);                 // z = floor(z + 1.5)
        ReduceSum(t, z, t[SPLIT], n_ - 3);                                // t[0] = sum(z[:n - 3])
        Compare(c, x, x[SPLIT], CMPMODE::GT, n_);                         // c = x > s
        Duplicate<T>(x[SPLIT], static_cast<T>(0), n_);
        Select(x, c, x, x[SPLIT], SELMODE::VSEL_TENSOR_TENSOR_MODE, n_);  // m = c ? x : 0
        outQ.EnQue(z);
        z = outQ.template DeQue<float>();
        DataCopy(zGm, z, n_);
        outQ.FreeTensor(z);
        DataCopy(mGm, x, n_);
        inQ.FreeTensor(x);
        PipeBarrier<PIPE_ALL>();
        DataCopyExtParams one{1, sizeof(float), 0, 0, 0};
        DataCopyPad(sGm, t, one);
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> tmp;
    TBuf<TPosition::VECCALC> cmp;
    GlobalTensor<T> xGm, yGm, mGm;
    GlobalTensor<float> zGm, sGm;
    uint32_t n_;
};

extern "C" __global__ __aicore__ void mem_ops(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR m, GM_ADDR s, uint32_t n) {
    MemOps<half> op;
    op.Init(x, y, z, m, s, n);
    op.Process();
}

// the C++ of the operator kernels: an explicit class specialization, a member function template deduced from its
// LocalTensor argument, auto, (void)x, an enum of the file's own as a template argument, a templated entry called
// with explicit arguments, DataCopyPad with DataCopyParams and a braced padding, a __restrict tiling pointer
enum class Mode : uint32_t { TWICE = 2, THRICE = 3 };
struct ScaleTiling { int64_t n; };
template <typename T, uint32_t M>
class Scale {
public:
    __aicore__ inline void Run(GM_ADDR x, GM_ADDR y, const ScaleTiling* __restrict t) {
        n_ = t->n;
        xGm.SetGlobalBuffer((__gm__ T*)x);
        yGm.SetGlobalBuffer((__gm__ T*)y);
        pipe.InitBuffer(q, 1, 256 * sizeof(T));
        auto v = q.template AllocTensor<T>();
        DataCopyParams p;
        p.blockLen = n_ * sizeof(T);
        DataCopyPad(v, xGm, p, {false, 0, 0, 0});
        q.EnQue(v);
        v = q.template DeQue<T>();
        Times(v);
        PipeBarrier<PIPE_ALL>();
        DataCopyPad(yGm, v, p);
        q.FreeTensor(v);
    }
private:
    template <typename U>
    __aicore__ inline void Times(LocalTensor<U>& v) { Muls(v, v, static_cast<U>(M), n_); }
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    GlobalTensor<T> xGm, yGm;
    int64_t n_;
};
template <>
class Scale<float, 3> {  // (its own body: adds 3 instead)
public:
    __aicore__ inline void Run(GM_ADDR x, GM_ADDR y, const ScaleTiling* __restrict t) {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        LocalTensor<float> v = buf.Get<float>();
        GlobalTensor<float> xGm, yGm;
        xGm.SetGlobalBuffer((__gm__ float*)x);
        yGm.SetGlobalBuffer((__gm__ float*)y);
        DataCopy(v, xGm, 64);
        PipeBarrier<PIPE_ALL>();
        Adds(v, v, 3.0f, t->n);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yGm, v, 64);
    }
};
template <typename D, uint32_t M>
__global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    (void)workspace;
    GET_TILING_DATA_WITH_STRUCT(ScaleTiling, t, tiling);
    Scale<D, M> op;
    op.Run(x, y, &t);
}
extern "C" __global__ __aicore__ void scale_half(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
    scale<half, static_cast<uint32_t>(Mode::TWICE)>(x, y, w, t);
}
extern "C" __global__ __aicore__ void scale_float(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR t) {
    scale<float, static_cast<uint32_t>(Mode::THRICE)>(x, y, w, t);
}

// an AscendC API regsim's memory-level table has not: the function does not parse, and is refused when lowered
extern "C" __global__ __aicore__ void unknown_api(GM_ADDR x) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> a = buf.Get<float>();
    AscendC::Sin(a, a, 64);
}

// the deprecated name CompareScalar (Compares' tensor-and-scalar interfaces): c = x < 0.5, then y = c ? x : 0
extern "C" __global__ __aicore__ void compare_scalar(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2048);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x);
    yGm.SetGlobalBuffer((__gm__ float*)y);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<uint8_t> c = a[256].ReinterpretCast<uint8_t>();
    DataCopy(a, xGm, 128);
    PipeBarrier<PIPE_ALL>();
    CompareScalar(c, a, 0.5f, CMPMODE::LT, 128);
    Duplicate(a[128], 0.0f, 128);
    Select(a, c, a, a[128], SELMODE::VSEL_TENSOR_TENSOR_MODE, 128);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, a, 128);
}

// NumericLimits<T>: y[0:8] the tensor form's Max, then one value form each (T dependent, and float named)
template <typename T>
__aicore__ inline void Limits(GM_ADDR y) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    GlobalTensor<T> yGm;
    yGm.SetGlobalBuffer((__gm__ T*)y);
    LocalTensor<T> a = buf.Get<T>();
    NumericLimits<T>::Max(a, 64);
    PipeBarrier<PIPE_ALL>();
    a.SetValue(8, NumericLimits<T>::Lowest());
    a.SetValue(9, NumericLimits<T>::Min());
    if constexpr (std::is_same_v<T, float>) {
        a.SetValue(10, NumericLimits<T>::Infinity());
        a.SetValue(11, NumericLimits<float>::NegativeInfinity());
        a.SetValue(12, AscendC::NumericLimits<float>::QuietNaN());
        a.SetValue(13, NumericLimits<float>::DeNormMin());
    }
    PipeBarrier<PIPE_ALL>();
    DataCopy(yGm, a, 64);
}
extern "C" __global__ __aicore__ void limits_float(GM_ADDR y) { Limits<float>(y); }
extern "C" __global__ __aicore__ void limits_int16(GM_ADDR y) { Limits<int16_t>(y); }

// Compare into an int32 tensor: the binder refuses it when the kernel runs
extern "C" __global__ __aicore__ void bad_compare(GM_ADDR x) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2048);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<int32_t> d = a[256].ReinterpretCast<int32_t>();
    Compare(d, a, a, CMPMODE::LT, 64);
}
"""


@pytest.fixture(scope="module")
def mod() -> Any:
    path = cpp_source("mem_ops.cpp", SRC)
    return rs.cpp.load(path)


def test_every_interface_of_the_table_is_declared() -> None:
    """One declaration per interface of each row (and alias), by its name and parameter count."""
    text = memory_header()
    for name, entry in ENTRIES.items():
        arities = {len(m[1].split(",")) if m[1].strip() else 0 for m in re.finditer(rf"void {name}\((.*?)\) \{{\}}", text)}
        for iface in entry.interfaces:
            n = sum(p.kind.name != "DTYPE" for p in iface.params)
            assert n in arities, (name, iface.form_text(), arities)


@pytest.mark.parametrize("n", [256, 1024])
def test_memory_apis_in_a_kernel_class_template(mod: Any, n: int) -> None:
    """Add, Muls, Cast, Adds, Truncate, ReduceSum, Compare, Duplicate and Select, against numpy: float16 steps rounded
    once each (as the APIs compute them), the sum of small integers exact in any order (over a count with a partial
    last register; Compare takes whole registers)."""
    rng = np.random.default_rng(n)
    x = rng.uniform(-4, 4, n).astype(np.float16)
    y = rng.uniform(-4, 4, n).astype(np.float16)

    def run() -> list[np.ndarray]:
        z, m, s = np.zeros(n, np.float32), np.full(n, 7, np.float16), np.zeros(8, np.float32)
        rs.launch(mod.kernel("mem_ops"), 1, x, y, z, m, s, n)
        return [z, m, s]

    z, m, s = both_modes(run)
    total = (x.astype(np.float64) + y).astype(np.float16) * np.float16(2)
    floor = np.floor(total.astype(np.float64) + 1.5).astype(np.float32)
    assert z.tobytes() == floor.tobytes()
    assert m.tobytes() == np.where(x > total, x, np.float16(0)).tobytes()
    assert s[0] == floor[: n - 3].astype(np.float64).sum()


def test_a_deprecated_name_runs_its_api(mod: Any) -> None:
    """`CompareScalar` (the page "接口变更说明": now `Compares`) runs Compares: y = x if x < 0.5 else 0."""
    x = np.random.default_rng(3).uniform(-2, 2, 128).astype(np.float32)
    x[:2] = [0.5, np.nextafter(np.float32(0.5), np.float32(0))]

    def run() -> np.ndarray:
        y = np.full(128, 7, np.float32)
        rs.launch(mod.kernel("compare_scalar"), 1, x, y)
        return y

    assert both_modes(run).tobytes() == np.where(x < np.float32(0.5), x, np.float32(0)).tobytes()


@pytest.mark.parametrize("dtype", [rs.float32, rs.int16])
def test_numeric_limits_values(mod: Any, dtype: Any) -> None:
    """`NumericLimits<T>` (the pages under 工具接口/NumericLimits工具类): a tensor filled with Max (its tensor form), and
    the values Lowest, Min (the smallest normal float; an integer type's minimum), Infinity, NegativeInfinity,
    QuietNaN, DeNormMin."""

    def run() -> np.ndarray:
        y = np.zeros(64, dtype.np_dtype)
        rs.launch(mod.kernel("limits_float" if dtype is rs.float32 else "limits_int16"), 1, y)
        return y

    y = both_modes(run)
    info = np.finfo(np.float32) if dtype is rs.float32 else np.iinfo(np.int16)
    assert np.all(y[:8] == info.max) and y[8] == -info.max if dtype is rs.float32 else y[8] == info.min
    if dtype is rs.int16:
        assert y[9] == info.min
        return
    assert y[9] == np.finfo(np.float32).tiny and y[10] == np.inf and y[11] == -np.inf
    assert y[12:13].view(np.uint32)[0] == 0x7FC00000 and y[13:14].view(np.uint32)[0] == 1


def test_a_bad_dtype_is_the_apis_error(mod: Any) -> None:
    with pytest.raises(rs.errors.DTypeError, match="Compare"):
        rs.launch(mod.kernel("bad_compare"), 1, np.zeros(8, np.uint8))


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_the_cpp_of_operator_kernels(mod: Any, loops: str) -> None:
    """A templated entry called with explicit arguments (one an enumerator of the file's own enum), the class template
    (its member function template's U deduced from the LocalTensor; DataCopyPad with DataCopyParams and a braced
    padding) and its explicit specialization for <float, 3>, which runs its own body."""
    n = 50
    x16 = np.arange(n, dtype=np.float16) - 20
    x32 = np.arange(64, dtype=np.float32) / 4
    tiling = np.array([n], np.int64).view(np.uint8)
    rs.configure(loops=loops)
    try:
        y16, y32 = np.full(n, 9, np.float16), np.zeros(64, np.float32)
        rs.launch(mod.kernel("scale_half"), 1, x16, y16, np.zeros(32, np.uint8), tiling)
        rs.launch(mod.kernel("scale_float"), 1, x32, y32, np.zeros(32, np.uint8), tiling)
    finally:
        rs.configure(loops="auto")
    assert y16.tobytes() == (x16 * np.float16(2)).tobytes()
    assert y32[:n].tobytes() == (x32[:n] + np.float32(3)).tobytes() and y32[n:].tobytes() == x32[n:].tobytes()


def test_an_api_the_table_has_not_is_refused(mod: Any) -> None:
    with pytest.raises(CppError, match=r"unknown_api does not parse:\n.*Sin"):
        rs.launch(mod.kernel("unknown_api"), 1, np.zeros(8, np.uint8))
