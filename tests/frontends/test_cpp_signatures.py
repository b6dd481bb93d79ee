"""The Reg declarations follow the vendor headers' template parameter lists (regsim's record of them,
regsim/_src/frontends/cpp/signatures.py): explicit template arguments bind as the vendor's compiler binds them."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from regsim._src.frontends.cpp.declarations import _function, recorded, value_type
from regsim._src.frontends.cpp.lowering import _split_targs
from regsim._src.frontends.cpp.signatures import signatures
from regsim._src.ops import REGISTRY
from regsim.testing import reference

SPECS = [s for s in REGISTRY.specs.values() if not s.unmodelled]


def test_every_registered_overload_is_a_recorded_header_overload() -> None:
    missing = [s.key for s in SPECS if recorded(s) is None]
    assert not missing, f"no recorded header signature fits: {missing}"
    # each recorded overload is a registered one; where the headers have two of one name and parameter count
    # (Abs of a complex source, ReduceDataBlock to a wider type), regsim's one overload takes both
    used = [hit[0] for s in SPECS if (hit := recorded(s)) is not None]
    unused = [
        f"{sig.name}/{sig.nargs}"
        for sigs in signatures().values()
        for sig in sigs
        if sig not in used and not any((u.name, u.nargs) == (sig.name, sig.nargs) for u in used)
    ]
    assert not unused, f"recorded overloads no registered overload is: {unused}"


def test_the_template_operands_have_the_headers_types_and_defaults() -> None:
    for spec in SPECS:
        hit = recorded(spec)
        assert hit is not None
        sig, operands = hit
        for p in sig.params:
            if not p.type:
                continue
            o = operands[p.name]
            assert p.type in (value_type(o), "auto"), (spec.key, p)
            if p.default is None:
                assert o.required, f"{spec.key}: {p.name} has no default in the header, {o.name} has one in regsim"
            elif o.default is not None and hasattr(o.default, "name"):  # an enum member (a struct default: castTrait)
                assert o.default.name == p.default, f"{spec.key}: {o.name} defaults to {o.default.name}, the header {p.default}"


def test_the_generated_template_lists_start_with_the_headers_parameters_in_order() -> None:
    for spec in SPECS:
        hit = recorded(spec)
        assert hit is not None
        text = _function(spec)
        head = text.split("\n")[0] if text.startswith("template <") else "template <>"
        params = _split_targs(head[len("template <") : head.rindex(">")])
        for p, decl in zip(hit[0].params, params, strict=False):
            if p.type:  # the non-type parameter: its type spelled (regsim's operand name may differ)
                assert p.type == "auto" or p.type in decl, (spec.key, p, decl)
                assert ("=" in decl) == (p.default is not None) or p.type == "auto", (spec.key, p, decl)
            else:
                assert decl.startswith(f"typename {p.name}"), (spec.key, p, decl)
        assert len(params) >= len(hit[0].params)


SRC = """
template <typename T>
__simd_vf__ inline void OrderVF(__ubuf__ T* dst, __ubuf__ T* src, __ubuf__ uint8_t* bits, __ubuf__ uint8_t* pbits, uint32_t n)
{
    AscendC::Reg::RegTensor<T> x, y, z;
    AscendC::Reg::MaskReg m = AscendC::Reg::UpdateMask<T>(n);
    AscendC::Reg::MaskReg gt, packed;
    AscendC::Reg::LoadAlign(x, src);
    AscendC::Reg::Muls<T, T, AscendC::Reg::MaskMergeMode::ZEROING>(y, x, (T)2.0f, m);
    AscendC::Reg::Adds<T, T>(y, y, (T)1.0f, m);
    AscendC::Reg::Maxs<T, T, AscendC::Reg::MaskMergeMode::ZEROING>(y, y, (T)0.0f, m);
    AscendC::Reg::Duplicate<T, T>(z, (T)3.0f);
    AscendC::Reg::Compares<T, AscendC::CMPMODE::GT>(gt, x, (T)0.5f, m);
    AscendC::Reg::Select<T>(y, y, z, gt);
    AscendC::Reg::StoreAlign(dst, y, m);
    AscendC::Reg::MaskPack<AscendC::Reg::HighLowPart::LOWEST>(packed, gt);
    AscendC::Reg::StoreAlign(bits, gt);
    AscendC::Reg::StoreAlign(pbits, packed);
}

__simd_vf__ inline void PackVF(__ubuf__ uint16_t* dst, __ubuf__ uint32_t* src)
{
    AscendC::Reg::RegTensor<uint32_t> x;
    AscendC::Reg::RegTensor<uint16_t> y;
    AscendC::Reg::LoadAlign(x, src);
    AscendC::Reg::Pack<uint16_t, uint32_t, AscendC::Reg::HighLowPart::LOWEST>(y, x);
    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<uint16_t>();
    AscendC::Reg::DataCopy<uint16_t, AscendC::Reg::StoreDist::DIST_NORM_B16>(dst, y, m);
}
"""


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_explicit_template_arguments_in_the_headers_order_run(loops: str) -> None:
    path = cpp_source("order.asc", SRC)
    vf = rs.cpp.load(path).instantiate("OrderVF", T=rs.float32)
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, 64).astype(np.float32)
    ub = rs.UnifiedBuffer()
    dst, src = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64)
    bits, pbits = ub.alloc(rs.uint8, 32), ub.alloc(rs.uint8, 32)
    src.set(x)
    dst.set(np.full(64, 9, np.float32))
    with rs.configure(loops=loops):
        vf(dst.GetPhyAddr(), src.GetPhyAddr(), bits.GetPhyAddr(), pbits.GetPhyAddr(), 40)
    # the oracle: float32 lanes, each step rounded once; Select takes y where x > 0.5 among the first 40 lanes
    lane = np.arange(64)
    y = np.maximum((x * np.float32(2)) + np.float32(1), np.float32(0)).astype(np.float32)
    gt = (x > np.float32(0.5)) & (lane < 40)
    want = np.where(lane < 40, np.where(gt, y, np.float32(3)), np.float32(9))
    np.testing.assert_array_equal(dst.numpy(), want.astype(np.float32))
    mask_bits = np.unpackbits(bits.numpy(), bitorder="little").tolist()
    assert [mask_bits[4 * i] for i in range(64)] == gt.astype(int).tolist()  # a b32 lane: its first mask bit
    want_packed = reference.mask_pack_oracle(mask_bits)  # MaskPack<HighLowPart::LOWEST>
    assert np.unpackbits(pbits.numpy(), bitorder="little").tolist() == list(want_packed)


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_a_register_pack_and_a_legacy_alias_store(loops: str) -> None:
    """`Pack<T, U, part>` (the register form, not the mask form `Pack<part>`) and `DataCopy<T, StoreDist>`
    (the legacy name of both LoadAlign and StoreAlign: here the store)."""
    path = cpp_source("pack.asc", SRC)
    ub = rs.UnifiedBuffer()
    dst, src = ub.alloc(rs.uint16, 128), ub.alloc(rs.uint32, 64)
    x = np.random.default_rng(3).integers(0, 2**32, 64, dtype=np.uint32)
    src.set(x)
    with rs.configure(loops=loops):
        rs.cpp.load(path).PackVF(dst.GetPhyAddr(), src.GetPhyAddr())
    assert dst.numpy().tolist() == reference.pack_oracle(x.tolist(), 16, 128)
