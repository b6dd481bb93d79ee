"""The base classes of a kernel class: a member function found in the classes it derives from (one walk of them), the
error of resolving a base's member function reported as that error, a virtual base shared by two bases made once, and
a chain of bases regsim resolves back to a class it started from refused by name (a base it reads as the class itself
named where a member function is not found)."""

from __future__ import annotations

import numpy as np
import pytest

import regsim as rs
from tests.cpp_kernel_support import both_modes, cpp_module

SRC = """
enum class Pod { A, B };
__aicore__ inline Pod* NoPod() { return nullptr; }

template <typename T>
class Base {
public:
    template <typename U>
    __aicore__ inline void Put(U* p, T v) {}
};

template <typename T>
class Derived : public Base<T> {
public:
    __aicore__ inline void Run() { this->Put(NoPod(), (T)1); }  // (U: a pointer to a type regsim has no dtype for)
};

extern "C" __global__ __aicore__ void base_error(GM_ADDR y)
{
    Derived<float> d;
    d.Run();
}

template <typename T>
class Count {
public:
    uint32_t n_ = 1;
    __aicore__ inline void Add(uint32_t k) { this->n_ = this->n_ + k; }
};
template <typename T>
class Left : public virtual Count<T> {};
template <typename T>
class Right : public virtual Count<T> {};

template <typename T>
class Both : public Left<T>, public Right<T> {
public:
    __aicore__ inline void Run(GM_ADDR y)
    {
        this->Add(2);  // (a member function of a base of a base)
        this->Add(this->n_);
        AscendC::TPipe pipe;
        AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 32);
        AscendC::LocalTensor<T> t = buf.Get<T>();
        AscendC::Duplicate(t, (T)this->n_, 8);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::GlobalTensor<T> yGm;
        yGm.SetGlobalBuffer((__gm__ T*)y);
        AscendC::DataCopy(yGm, t, 8);
    }
};

extern "C" __global__ __aicore__ void diamond(GM_ADDR y)
{
    Both<int32_t> b;
    b.Run(y);
}

template <typename T, int N>
class Unroll : public Unroll<T, N - 1> {
public:
    __aicore__ inline void Run() { this->Put(); }
};
template <typename T>
class Unroll<T, 0> {
public:
    __aicore__ inline void Put() {}
};

extern "C" __global__ __aicore__ void recursive(GM_ADDR y)
{
    Unroll<float, 2> u;
    u.Run();
}

namespace q {
template <typename T> class A;
template <typename T> class B;
}
namespace p {
template <typename T>
class A : public q::B<T> {
public:
    __aicore__ inline void Run() { this->Put(); }
};
template <typename T>
class B : public q::A<T> {};
}
namespace q {
template <typename T>
class A {
public:
    __aicore__ inline void Put() {}
};
template <typename T>
class B : public A<T> {};
}

extern "C" __global__ __aicore__ void namesakes(GM_ADDR y)
{
    p::A<float> a;
    a.Run();
}
"""


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    return cpp_module("bases", SRC)


def test_an_error_resolving_a_base_classs_member_function_is_that_error(mod: rs.cpp.CppModule) -> None:
    with pytest.raises(rs.cpp.CppError, match=r"bases\.asc:15: the element type 'Pod ?' \(in Run\)"):
        mod.kernel("base_error")


def test_a_virtual_base_of_two_bases_is_one_object(mod: rs.cpp.CppModule) -> None:
    y = both_modes(lambda: _diamond(mod))
    n = 1 + 2  # Add(2) on the one Count
    assert y.tolist() == [n + n] * 8  # Add(n_)


def _diamond(mod: rs.cpp.CppModule) -> np.ndarray:
    y = np.zeros(8, np.int32)
    rs.launch(mod.kernel("diamond"), 1, y)
    return y


def test_a_base_regsim_reads_as_the_class_itself_is_named_where_a_member_function_is_not_found(
    mod: rs.cpp.CppModule,
) -> None:
    # (regsim reads Unroll<T, N - 1> as the primary template Unroll, not the specialization Unroll<T, 0> it reaches)
    with pytest.raises(
        rs.cpp.CppError, match=r"bases\.asc:63: Unroll::Put has no definition regsim found \(regsim reads the base"
        r" Unroll<T, N - 1> of Unroll as that class itself; "
    ):  # fmt: skip
        mod.kernel("recursive")


def test_bases_leading_back_to_a_class_they_derive_from_are_refused(mod: rs.cpp.CppModule) -> None:
    # (a base by its name alone: q::B<T> read as p::B, q::A<T> as p::A)
    with pytest.raises(
        rs.cpp.CppError, match=r"bases\.asc:88: the class A derives from itself as regsim resolves the base classes of A"
        r" \(A -> q::B<T> -> q::A<T>; "
    ):  # fmt: skip
        mod.kernel("namesakes")
