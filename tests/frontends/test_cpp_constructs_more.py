"""More C++ the operator libraries' kernels use: constants computed by lambdas called where they are defined
(`static constexpr CastTrait t = [] { if constexpr (...) return ...; }();`), local integer constants as template
arguments (a block's constants end with it). One file, loaded once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import regsim as rs

LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])

SRC = """
using namespace AscendC::Reg;

template <uint32_t N>
__simd_callee__ inline uint32_t Id()
{
    return N;
}

template <int MODE>
__simd_vf__ inline void RoundVF(__ubuf__ int32_t* dst, __ubuf__ float* src)
{
    static constexpr CastTrait trait = []() {
        if constexpr (MODE == 0) {
            return CastTrait{RegLayout::UNKNOWN, SatMode::SAT, MaskMergeMode::ZEROING, AscendC::RoundMode::CAST_RINT};
        } else if constexpr (MODE == 1) {
            return CastTrait{RegLayout::UNKNOWN, SatMode::SAT, MaskMergeMode::ZEROING, AscendC::RoundMode::CAST_FLOOR};
        } else {
            return CastTrait{RegLayout::UNKNOWN, SatMode::SAT, MaskMergeMode::ZEROING, AscendC::RoundMode::CAST_CEIL};
        }
    }();
    constexpr uint32_t kLanes = [] { return 256 / sizeof(float); }();
    RegTensor<float> x;
    RegTensor<int32_t> y;
    MaskReg m = CreateMask<float>();
    LoadAlign(x, src);
    Cast<int32_t, float, trait>(y, x, m);
    StoreAlign(dst, y, m);
    constexpr uint32_t k = 3;
    {
        constexpr uint32_t k = 5;
        dst[kLanes] = Id<k>();
    }
    dst[kLanes + 1] = Id<k>();  // the outer k again
}

template <int MODE>
__simd_vf__ inline void NoValueVF(__ubuf__ int32_t* dst)
{
    constexpr uint32_t k = []() {
        if constexpr (MODE == 0) {
            return 1u;
        }
    }();
    dst[0] = k;
}
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory: pytest.TempPathFactory) -> rs.cpp.CppModule:
    path: Path = tmp_path_factory.mktemp("more") / "more.asc"
    path.write_text(SRC)
    return rs.cpp.load(path)


@LOOPS
@pytest.mark.parametrize(("mode", "rounding"), [(0, np.rint), (1, np.floor), (2, np.ceil)])
def test_a_lambda_constant_picks_the_cast_trait(mod: rs.cpp.CppModule, loops: str, mode: int, rounding: object) -> None:
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.float32, 64), ub.alloc(rs.int32, 72)
    x = np.linspace(-7.5, 7.5, 64).astype(np.float32)  # halves (ties) and fractions of both signs
    src.set(x)
    with rs.configure(loops=loops):
        mod.instantiate("RoundVF", MODE=mode)(dst.GetPhyAddr(), src.GetPhyAddr())
    want = [int(v) for v in rounding(x.astype(np.float64))]  # type: ignore[operator]
    assert dst.numpy()[:64].tolist() == want
    assert dst.numpy()[64:66].tolist() == [5, 3]  # Id<k>() in the inner block, then the outer k


def test_a_lambda_returning_nothing_for_the_arguments_is_refused(mod: rs.cpp.CppModule) -> None:
    mod.instantiate("NoValueVF", MODE=0)  # (its branch returns)
    with pytest.raises(rs.cpp.CppError, match="lambda that returns no value"):
        mod.instantiate("NoValueVF", MODE=1)
