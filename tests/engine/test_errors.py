"""Every error class of rs.errors, raised by the call that breaks the rule, with a message naming
the API, the parameter and the value; and "a failed call changes nothing": every register, mask,
UB byte (and written flag) and pointer is as it was (docs/cpp-to-python.md, "Errors")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim.errors import (
    AlignmentError,
    DTypeError,
    OutOfBoundsError,
    ParameterError,
    RaceError,
    RegsimError,
    SyncError,
    UninitializedReadError,
    UnsupportedError,
    VfContextError,
)

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


@dataclass
class World:
    """Everything a failing call could touch."""

    ub: rs.UnifiedBuffer
    regs: dict[str, Reg.RegTensor] = field(default_factory=dict)
    masks: dict[str, Reg.MaskReg] = field(default_factory=dict)
    ptrs: dict[str, rs.UbPtr] = field(default_factory=dict)
    refs: dict[str, rs.Ref] = field(default_factory=dict)

    def snapshot(self) -> dict:
        st = self.ub.storage
        return {
            "ub": st.data.copy(),
            "ub written": None if st.valid is None else st.valid.copy(),
            **{f"reg {k}": (r.numpy().tobytes(), _written(r)) for k, r in self.regs.items()},
            **{f"mask {k}": (m.bits().tobytes(), _mask_written(m)) for k, m in self.masks.items()},
            **{f"ptr {k}": p.addr for k, p in self.ptrs.items()},
            **{f"ref {k}": r.value for k, r in self.refs.items()},
        }


def _mask_written(m: Reg.MaskReg) -> bytes | None:
    return None if m._written is None else m._written.tobytes()


def _written(reg: Reg.RegTensor):
    valid = reg._storage.valid
    return None if valid is None else valid.tobytes()


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
    return a == b


def _world() -> World:
    """A UB with written int32/float32 tensors, written registers, masks and pointers."""
    ub = rs.UnifiedBuffer(4096)
    t32 = ub.alloc(rs.int32, 128)
    t32.set(np.arange(128, dtype=np.int32) - 7)
    tf = ub.alloc(rs.float32, 64)
    tf.set(np.linspace(-3, 3, 64, dtype=np.float32))
    small = ub.alloc(rs.int32, 16)  # 64 B, followed by more tensors: stores past it are caught
    small.set(np.full(16, 0x5A5A5A5A, np.int32))
    tail = ub.alloc(rs.uint8, 4096 - 128 * 4 - 64 * 4 - 64 - 256)  # the rest of the UB, written
    tail.set(np.full(tail.GetSize(), 0xEE, np.uint8))
    fresh = rs.UnifiedBuffer(1024)  # never written
    w = World(ub)
    rng = np.random.default_rng(1)
    w.regs = {
        "a": Reg.RegTensor.from_numpy(rng.integers(-(2**31), 2**31, 64, dtype=np.int32)),
        "b": Reg.RegTensor.from_numpy(rng.integers(-(2**31), 2**31, 64, dtype=np.int32)),
        "dst": Reg.RegTensor.from_numpy(np.full(64, 99, np.int32)),
        "u": Reg.RegTensor.from_numpy(rng.integers(0, 2**32, 64, dtype=np.uint32)),
        "f": Reg.RegTensor.from_numpy(rng.random(64, dtype=np.float32)),
        "fdst": Reg.RegTensor.from_numpy(np.zeros(64, np.float32)),
        "new": Reg.RegTensor(rs.int32),  # never written
        "fresh_load": Reg.RegTensor(rs.int32),
        "two": Reg.RegTensor.from_numpy(np.arange(64, dtype=np.int64), trait=Reg.RegTraitNumTwo),
    }
    w.masks = {
        "all": Reg.MaskReg.from_lanes(rs.int32, np.ones(64, bool)),
        "none": Reg.MaskReg.from_lanes(rs.int32, np.zeros(64, bool)),
        "carry": Reg.MaskReg.from_bits(np.arange(256) % 3 == 0),
        "new": Reg.MaskReg(),
    }
    w.ptrs = {
        "i32": t32.GetPhyAddr(),
        "f32": tf.GetPhyAddr(),
        "small": small.GetPhyAddr(),
        "fresh": fresh.alloc(rs.int32, 256).GetPhyAddr(),
    }
    w.refs = {"n": rs.Ref(100)}
    return w


@dataclass
class Case:
    name: str
    error: type[RegsimError]
    call: Callable[[World], None]
    words: tuple[str, ...]  # API, parameter, value (and more) that the message must contain
    in_vf: bool = True
    setup: Callable[[World], None] | None = None  # runs before the snapshot


R, M, P = "regs", "masks", "ptrs"
A = rs.AscendC


def _in_kernel(body: Callable[[object, object], object]) -> None:
    """Run `body(gm, ub)` in a one-block kernel: a float32 GlobalTensor of 128 elements over a host array, and a
    LocalTensor of 64 at UB address 0; the array must come out unchanged."""

    @rs.kernel
    def k(x: rs.GmPtr[rs.float32]) -> None:
        g = A.GlobalTensor(rs.float32)
        g.SetGlobalBuffer(x, 128)
        body(g, A.LocalTensor(rs.float32, A.TPosition.VECCALC, 0, 64))

    x = np.arange(128, dtype=np.float32)
    try:
        rs.launch(k, 1, x)
    finally:
        assert np.array_equal(x, np.arange(128, dtype=np.float32)), "the refused kernel wrote GM"


CASES = [
    # --- AlignmentError ---
    Case(
        "LoadAlign unaligned",
        AlignmentError,
        lambda w: Reg.LoadAlign(w.regs["a"], w.ptrs["i32"] + 1),
        ("LoadAlign", "src_addr", "UB byte 4", "32"),
    ),
    Case(
        "LoadAlign post-update unaligned keeps the pointer",
        AlignmentError,
        lambda w: Reg.LoadAlign(w.regs["a"], w.ptrs["q"], 64, post_mode=UPDATE),
        ("LoadAlign", "src_addr", "UB byte 8"),
        setup=lambda w: w.ptrs.__setitem__("q", w.ptrs["i32"] + 2),
    ),
    Case(
        "StoreAlign unaligned",
        AlignmentError,
        lambda w: Reg.StoreAlign(w.ptrs["i32"] + 3, w.regs["a"], w.masks["all"]),
        ("StoreAlign", "dst_addr", "UB byte 12"),
    ),
    Case(
        "mask LoadAlign US at 8 B",
        AlignmentError,
        lambda w: Reg.LoadAlign(w.masks["carry"], w.ptrs["i32"] + 2, dist=Reg.MaskDist.DIST_US),
        ("LoadAlign", "src_addr", "UB byte 8", "16"),
    ),
    # --- OutOfBoundsError ---
    Case(
        "LoadAlign past the UB end",
        OutOfBoundsError,
        lambda w: Reg.LoadAlign(w.regs["a"], w.ptrs["i32"] + (4096 - 128) // 4),
        ("LoadAlign", "src_addr", "[3968, 4224)", "4096"),
    ),
    Case(
        "StoreAlign active lane past its LocalTensor",
        OutOfBoundsError,
        lambda w: Reg.StoreAlign(w.ptrs["small"], w.regs["a"], w.masks["all"]),
        ("StoreAlign", "dst_addr", "UB bytes", "LocalTensor"),
    ),
    Case(
        "StoreAlign post-update past its LocalTensor keeps the pointer",
        OutOfBoundsError,
        lambda w: Reg.StoreAlign(w.ptrs["small"], w.regs["a"], 8, w.masks["all"], post_mode=UPDATE),
        ("StoreAlign", "dst_addr", "LocalTensor"),
    ),
    Case(
        "mask StoreAlign past its LocalTensor",
        OutOfBoundsError,
        lambda w: Reg.StoreAlign(w.ptrs["small"] + 16, w.masks["carry"]),
        ("StoreAlign", "dst_addr", "LocalTensor"),
    ),
    Case(
        "RegTraitNumTwo store past its LocalTensor",
        OutOfBoundsError,
        lambda w: Reg.StoreAlign(w.ptrs["small64"], w.regs["two"], Reg.CreateMask(rs.int64, trait=Reg.RegTraitNumTwo)),
        ("StoreAlign", "dst_addr", "LocalTensor"),
        setup=lambda w: w.ptrs.__setitem__("small64", w.ptrs["small"].reinterpret(rs.int64)),
    ),
    Case(
        "mask StoreAlign post-update past its LocalTensor keeps the pointer",
        OutOfBoundsError,
        lambda w: Reg.StoreAlign(w.ptrs["q"], w.masks["carry"], 32, post_mode=UPDATE),
        ("StoreAlign", "dst_addr", "LocalTensor"),
        setup=lambda w: w.ptrs.__setitem__("q", w.ptrs["small"] + 16),
    ),
    # --- DTypeError ---
    Case(
        "Add mixed dtypes",
        DTypeError,
        lambda w: Reg.Add(w.regs["dst"], w.regs["a"], w.regs["u"], w.masks["all"]),
        ("Add", "src_reg1", "uint32", "int32"),
    ),
    Case(
        "AddC on float",
        DTypeError,
        lambda w: Reg.AddC(w.masks["carry"], w.regs["fdst"], w.regs["f"], w.regs["f"], w.masks["carry"], w.masks["all"]),
        ("AddC", "dst_reg", "float32", "int32, uint32"),
    ),
    Case(
        "Add(carry) on float",
        DTypeError,
        lambda w: Reg.Add(w.masks["carry"], w.regs["fdst"], w.regs["f"], w.regs["f"], w.masks["all"]),
        ("Add", "float32", "int32, uint32"),
    ),
    Case(
        "LoadAlign pointer dtype",
        DTypeError,
        lambda w: Reg.LoadAlign(w.regs["a"], w.ptrs["f32"]),
        ("LoadAlign", "src_addr", "UbPtr[float32]", "int32"),
    ),
    Case(
        "StoreAlign pointer dtype",
        DTypeError,
        lambda w: Reg.StoreAlign(w.ptrs["f32"], w.regs["a"], w.masks["all"]),
        ("StoreAlign", "dst_addr", "UbPtr[float32]"),
    ),
    Case(
        "Add(carry) has no mode",  # C++ has no MaskMergeMode on the carry overload
        ParameterError,
        lambda w: Reg.Add(
            w.masks["carry"], w.regs["dst"], w.regs["a"], w.regs["b"], w.masks["all"], mode=Reg.MaskMergeMode.MERGING
        ),
        ("Add", "mode", "MERGING", "no mode= in the overload Add(carry, dst_reg, src_reg0, src_reg1, mask)"),
    ),
    Case(
        "AddC has no mode",
        ParameterError,
        lambda w: Reg.AddC(
            w.masks["carry"],
            w.regs["dst"],
            w.regs["a"],
            w.regs["b"],
            w.masks["carry"],
            w.masks["all"],
            mode=Reg.MaskMergeMode.ZEROING,
        ),
        ("AddC", "mode", "ZEROING"),
    ),
    # --- ParameterError ---
    Case(
        "UpdateMask with a plain int",
        ParameterError,
        lambda w: Reg.UpdateMask(rs.int32, 100),
        ("UpdateMask", "scalar_value", "100", "Ref"),
    ),
    Case(
        "UpdateMask count -1",
        ParameterError,
        lambda w: Reg.UpdateMask(rs.int32, w.refs["n"]),
        ("UpdateMask", "scalar_value", "-1", "4294967295"),
        setup=lambda w: setattr(w.refs["n"], "value", -1),
    ),
    Case(
        "UpdateMask count 2**32",
        ParameterError,
        lambda w: Reg.UpdateMask(rs.int32, w.refs["n"]),
        ("UpdateMask", "4294967296"),
        setup=lambda w: setattr(w.refs["n"], "value", 2**32),
    ),
    Case(
        "CreateMask VL128 for b32",
        ParameterError,
        lambda w: Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.VL128),
        ("CreateMask", "pattern", "VL128", "VL64"),
    ),
    Case(
        "CreateMask VL128 for b64",
        ParameterError,
        lambda w: Reg.CreateMask(rs.int64, pattern=Reg.MaskPattern.VL128),
        ("CreateMask", "pattern", "VL128"),
    ),
    Case(
        "Add with 3 arguments",
        ParameterError,
        lambda w: Reg.Add(w.regs["dst"], w.regs["a"], w.regs["b"]),
        ("Add", "mask", "missing"),
    ),
    Case(
        "Add with 6 arguments",
        ParameterError,
        lambda w: Reg.Add(w.regs["dst"], w.regs["a"], w.regs["b"], w.masks["all"], w.masks["all"], w.masks["all"]),
        ("Add", "arguments", "6"),
    ),
    Case(
        "StoreAlign without a mask",
        ParameterError,
        lambda w: Reg.StoreAlign(w.ptrs["i32"], w.regs["a"]),
        ("StoreAlign", "mask", "missing", "StoreAlign(dst_addr, src_reg, mask"),
    ),
    Case(
        "Add with an unknown keyword",
        ParameterError,
        lambda w: Reg.Add(w.regs["dst"], w.regs["a"], w.regs["b"], maks=w.masks["all"]),
        ("Add", "maks"),
    ),
    Case(
        "CreateAddrReg index out of range",
        ParameterError,
        lambda w: Reg.CreateAddrReg(rs.int32, 70000, 1),
        ("CreateAddrReg", "index0", "70000"),
    ),
    # --- UnsupportedError ---
    Case(
        "Sub MERGING",
        UnsupportedError,
        lambda w: Reg.Sub(w.regs["dst"], w.regs["a"], w.regs["b"], w.masks["all"], mode=Reg.MaskMergeMode.MERGING),
        ("Sub", "mode", "MERGING", "ZEROING"),
    ),
    Case(
        "LoadAlign POST_MODE_NORMAL",
        UnsupportedError,
        lambda w: Reg.LoadAlign(w.regs["a"], w.ptrs["i32"], 64, post_mode=Reg.PostLiteral.POST_MODE_NORMAL),
        ("LoadAlign", "post_mode", "POST_MODE_NORMAL"),
    ),
    # --- VfContextError ---
    Case(
        "Add outside a VF",
        VfContextError,
        lambda w: Reg.Add(w.regs["dst"], w.regs["a"], w.regs["b"], w.masks["all"]),
        ("Add", "outside"),
        in_vf=False,
    ),
    Case(
        "LoadAlign outside a VF",
        VfContextError,
        lambda w: Reg.LoadAlign(w.regs["a"], w.ptrs["i32"]),
        ("LoadAlign", "outside"),
        in_vf=False,
    ),
    Case(
        "UpdateMask outside a VF",
        VfContextError,
        lambda w: Reg.UpdateMask(rs.int32, w.refs["n"]),
        ("UpdateMask", "outside"),
        in_vf=False,
    ),
    Case("CreateMask outside a VF", VfContextError, lambda w: Reg.CreateMask(rs.int32), ("CreateMask", "outside"), in_vf=False),
    Case("VEC_SCOPE nested", VfContextError, lambda w: rs.VEC_SCOPE().__enter__(), ("VEC_SCOPE", "inside")),
    # --- UninitializedReadError ---
    Case(
        "Add reads a never-written register",
        UninitializedReadError,
        lambda w: Reg.Add(w.regs["dst"], w.regs["a"], w.regs["new"], w.masks["all"]),
        ("Add", "src_reg1", "lane 0"),
    ),
    Case(
        "Add reads a never-written mask",
        UninitializedReadError,
        lambda w: Reg.Add(w.regs["dst"], w.regs["a"], w.regs["b"], w.masks["new"]),
        ("Add", "mask"),
    ),
    Case(
        "AddC reads a never-written carry_src",
        UninitializedReadError,
        lambda w: Reg.AddC(w.masks["carry"], w.regs["dst"], w.regs["a"], w.regs["b"], w.masks["new"], w.masks["all"]),
        ("AddC", "carry_src"),
    ),
    Case(
        "StoreAlign of a never-written register",
        UninitializedReadError,
        lambda w: Reg.StoreAlign(w.ptrs["i32"], w.regs["new"], w.masks["all"]),
        ("StoreAlign", "src_reg", "lane 0"),
    ),
    Case(
        "mask StoreAlign of a never-written mask",
        UninitializedReadError,
        lambda w: Reg.StoreAlign(w.ptrs["i32"], w.masks["new"]),
        ("StoreAlign", "mask"),
    ),
    Case(
        "Add reads a register loaded from never-written UB",
        UninitializedReadError,
        lambda w: Reg.Add(w.regs["dst"], w.regs["a"], w.regs["fresh_load"], w.masks["all"]),
        ("Add", "src_reg1", "lane 0", "its bytes came from LoadAlign of UB bytes [0, 256)"),
        setup=lambda w: Reg.LoadAlign(w.regs["fresh_load"], w.ptrs["fresh"]),  # legal: copies the written flags
    ),
    # --- RaceError, SyncError (a kernel's pipes: tests/kernel has the rest) ---
    Case(
        "a UB -> GM copy of bytes a GM -> UB copy wrote, with no flag between",
        RaceError,
        lambda w: _in_kernel(lambda g, t: (A.DataCopy(t, g, 64), A.DataCopy(g[64], t, 64))),
        ("DataCopy", "MTE3 reads UB bytes [0, 256)", "MTE2 wrote", "HardEvent.MTE2_MTE3"),
        in_vf=False,
    ),
    Case(
        "WaitFlag with no SetFlag",
        SyncError,
        lambda w: _in_kernel(lambda g, t: A.WaitFlag(A.EVENT_ID0, event=A.HardEvent.MTE2_V)),
        ("WaitFlag<MTE2_V>(0)", "event id", "not set"),
        in_vf=False,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_error_is_raised_with_a_naming_message_and_changes_nothing(case):
    w = _world()
    assert issubclass(case.error, RegsimError)
    if case.setup is not None:
        with rs.VEC_SCOPE():
            case.setup(w)
    before = w.snapshot()
    with pytest.raises(case.error) as err:
        if case.in_vf:
            with rs.VEC_SCOPE():
                case.call(w)
        else:
            case.call(w)
    message = str(err.value)
    for word in case.words:
        assert word in message, f"{case.name}: {word!r} not in message {message!r}"
    after = w.snapshot()
    changed = [k for k in before if k in after and not _same(before[k], after[k])]
    assert not changed, f"{case.name}: the failed call changed {changed}"


def test_every_error_class_is_covered():
    covered = {c.error for c in CASES}
    public = {getattr(rs.errors, n) for n in rs.errors.__all__ if isinstance(getattr(rs.errors, n), type)}
    assert public - {RegsimError} <= covered, public - covered


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (AlignmentError, ValueError),
        (OutOfBoundsError, IndexError),
        (DTypeError, TypeError),
        (ParameterError, ValueError),
        (UnsupportedError, NotImplementedError),
        (VfContextError, RuntimeError),
        (UninitializedReadError, RuntimeError),
    ],
)
def test_error_classes_are_also_builtins(error, builtin):
    assert issubclass(error, RegsimError) and issubclass(error, builtin)


# --- what is legal -----------------------------------------------------------------------------
def test_load_past_the_tensor_inside_the_ub_is_legal():
    w = _world()
    with rs.VEC_SCOPE():
        Reg.LoadAlign(w.regs["a"], w.ptrs["small"])  # 64 B tensor, 256 B load: legal
        Reg.StoreAlign(w.ptrs["small"], w.regs["a"], Reg.MaskReg.from_lanes(rs.int32, np.arange(64) < 16))  # lanes inside: legal
    assert (w.regs["a"].numpy()[:16] == 0x5A5A5A5A).all()


def test_uninitialized_reads_on_inactive_lanes_are_fine():
    w = _world()
    with rs.VEC_SCOPE():
        Reg.Add(w.regs["dst"], w.regs["a"], w.regs["new"], w.masks["none"])
        Reg.StoreAlign(w.ptrs["i32"], w.regs["new"], w.masks["none"])
        # a tail load: only the first 8 lanes were written in UB, only they are active
        fresh = w.ptrs["fresh"]
        fresh[0] = 1
        for i in range(1, 8):
            fresh[i] = i + 1
        Reg.LoadAlign(w.regs["fresh_load"], fresh)
        first8 = Reg.MaskReg.from_lanes(rs.int32, np.arange(64) < 8)
        Reg.Add(w.regs["dst"], w.regs["fresh_load"], w.regs["fresh_load"], first8)
    assert list(w.regs["dst"].numpy()[:9]) == [2, 4, 6, 8, 10, 12, 14, 16, 0]


def test_check_uninitialized_can_be_turned_off():
    w = _world()
    with rs.configure(check_uninitialized=False), rs.VEC_SCOPE():
        Reg.Add(w.regs["dst"], w.regs["a"], w.regs["new"], w.masks["all"])
        Reg.StoreAlign(w.ptrs["i32"], w.regs["new"], w.masks["all"])
    assert (w.regs["dst"].numpy() == w.regs["a"].numpy()).all()  # never-written lanes read 0
    with rs.VEC_SCOPE(), pytest.raises(UninitializedReadError):  # the setting was scoped
        Reg.Add(w.regs["dst"], w.regs["a"], w.regs["new"], w.masks["all"])


def test_scalar_read_of_never_written_ub():
    ub = rs.UnifiedBuffer(1024)
    p = ub.alloc(rs.int32, 8).GetPhyAddr()
    with pytest.raises(UninitializedReadError, match=r"UbPtr\[\].*\[0, 4\)"):
        p[0]
    p[0] = 5
    assert p[0] == 5


def test_configure_rejects_a_bad_mask_fill():
    with pytest.raises(ParameterError, match=r"configure: mask_fill = 'msb'"), rs.configure(mask_fill="msb"):
        pass
