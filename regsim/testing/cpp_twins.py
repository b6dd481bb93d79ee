"""The C++ twins of the Python example ports (vf_examples): run a port's host code on its C++ VF.

Each port in `vf_examples/` is a line-by-line Python port of an asc-devkit example's `__simd_vf__`
function, and quotes that function in its module docstring. `TWINS` names, for each port VF, the
C++ VF it was ported from and where its template arguments come from; `run_port` runs the port's
`run(seed)` (its host code, inputs and numpy references) with the Python VF replaced by the C++ VF,
lowered by `rs.cpp` from

- the C++ quoted in the port's docstring (`docstring_source`: the repository stands alone), or
- the unmodified example file of an asc-devkit checkout (`example_source`), where one is at hand.

The C++ and the Python port must give identical bits (`compare`), in both loop modes.
"""

from __future__ import annotations

import ast
import importlib
import re
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from regsim import cpp
from regsim._src.model.config import configure

_EX = "examples/01_simd_cpp_api/03_basic_api/"


@dataclass(frozen=True)
class Twin:
    """One port VF (`port`.`attr`) and its C++ original (`vf` in the example file `example`)."""

    port: str
    attr: str
    vf: str
    example: str
    #: template parameter → the index of the UbPtr argument whose dtype it is, or a fixed value
    targs: dict[str, Any] = field(default_factory=dict)
    #: clang arguments for the example file (its SCENARIO_NUM)
    args: tuple[str, ...] = ()
    #: whether the docstring quotes the whole VF (else only the example file has it)
    quoted: bool = True
    #: the C++ VF's parameter count, where the port's VF takes more (a variant the example does not
    #: have, such as arange's DECREASE_ORDER run): calls with more arguments keep the Python VF
    nargs: int | None = None
    #: the position of a port argument that is the example's SCENARIO_NUM (a port running several
    #: scenarios in one VF): the call runs the file parsed with that `-DSCENARIO_NUM`, without it
    scenario_arg: int | None = None


_RC = _EX + "02_reg_vector_compute/"
_DM = _EX + "00_data_movement/"
_ALIGN = _DM + "reg_load_store_align/ld_st_reg_align.asc"
_GELU = "examples/01_simd_cpp_api/"
TWINS: tuple[Twin, ...] = (
    Twin("abs_vf", "abs_vf", "AbsVF", _RC + "abs/abs.asc", {"T": 0}),
    Twin("arange_vf", "arange_vf", "ArangeVF", _RC + "arange/arange.asc", {"T": 0}, nargs=3),
    Twin("compare_vf", "compare_vf", "CompareVF", _RC + "compare/compare.asc", {"T": 0}, ("-DSCENARIO_NUM=1",)),
    Twin("compare_vf", "compares_vf", "ComparesVF", _RC + "compare/compare.asc", {"T": 0}, ("-DSCENARIO_NUM=2",), False),
    Twin("duplicate_vf", "duplicate_scalar_vf", "DuplicateScalarVF", _RC + "duplicate/duplicate.asc", {"T": 0}),
    Twin("mul_vf", "mul_vf", "MulVF", _RC + "mul/mul.asc", {"T": 0}),
    Twin("muls_vf", "muls_vf", "MulsVF", _RC + "muls/muls.asc", {"T": 0}),
    Twin("reduce_vf", "reduce_sum_vf", "ReduceSumVF", _RC + "reduce/reduce.asc", {"T": 1}),
    Twin("reduce_pair_vf", "pair_reduce_sum_vf", "PairReduceSumVF", _RC + "reduce_pair/reduce_pair.asc", {"T": 1}),
    Twin("select_vf", "select_vf", "SelectVF", _RC + "select/select.asc", {"T": 0}),
    Twin("squeeze_vf", "squeeze_vf", "SqueezeVF", _RC + "squeeze/squeeze.asc", {"T": 0}),
    Twin("truncate_vf", "truncate_vf", "TruncateVF", _RC + "truncate/truncate.asc", {"T": 0}),
    Twin("gather_vf", "gather_vf", "GatherVF", _RC + "gather/gather.asc", {"T": 0, "U": 2}),
    Twin("reg_auxscalar", "aux_scalar_adds_vf", "AuxScalarAddsVF", _DM + "reg_auxscalar/auxscalar_reg.asc", {"T": 0}),
    Twin(
        "reg_store_scatter", "scatter_vf", "ScatterVF", _DM + "reg_store_scatter/scatter_st_reg.asc", {"T": 0, "U": 2}, (), False
    ),
    Twin("reg_load_store_mask", "copy_vf", "CopyVF", _DM + "reg_load_store_mask/ld_st_reg_mask_scenario_1.asc", {"T": 0}),
    Twin(
        "reg_load_gather",
        "gather_vf",
        "GatherVF",
        _DM + "reg_load_gather/gather_ld_reg.asc",
        {"T": 0, "IndexT": 2},
        ("-DSCENARIO_NUM=1",),
        False,
    ),
    Twin(
        "reg_load_gather",
        "gather_b_vf",
        "GatherBVF",
        _DM + "reg_load_gather/gather_ld_reg.asc",
        {"T": 0},
        ("-DSCENARIO_NUM=2",),
        False,
    ),
    Twin("select_vf", "select_vf", "SelectVF", _DM + "reg_load_store_mask/ld_st_reg_mask_scenario_2.asc", {"T": 0}, (), False),
    Twin(
        "reg_sync",
        "reg_sync_vf",
        "RegSyncVf",
        _EX + "05_sync_control/reg_sync/reg_sync.asc",
        {"T": 0},
        ("-DSCENARIO_NUM=1",),
        False,
    ),
    Twin(
        "reg_sync",
        "softmax_vf",
        "SoftmaxVf",
        _EX + "05_sync_control/reg_sync/reg_sync.asc",
        {"T": 0},
        ("-DSCENARIO_NUM=2",),
        False,
    ),
    Twin("cast_vf", "cast_vf_f16_s32", "CastVFF162S32", _RC + "cast/cast.asc", {}, ("-DSCENARIO_NUM=1",)),
    Twin("cast_vf", "cast_vf_f32_s16", "CastVFF322S16", _RC + "cast/cast.asc", {}, ("-DSCENARIO_NUM=2",)),
    Twin("gelu_intro", "gelu_vf_method2", "GeluVfMethod2", _GELU + "00_introduction/04_reg_compute/gelu/gelu.asc", quoted=False),
    Twin(
        "gelu_high_performance",
        "gelu_vf_basic",
        "GeluVfBasic",
        _GELU + "05_best_practices/02_reg_compute/gelu_high_performance/gelu.asc",
        {},
        ("-DSCENARIO_NUM=2",),
        False,
    ),
    Twin(
        "gelu_eltwise_high_performance",
        "gelu_eltwise_loop_split",
        "GeluEltwiseLoopSplit",
        _GELU + "05_best_practices/02_reg_compute/gelu_eltwise_high_performance/gelu_eltwise.asc",
        {},
        ("-DSCENARIO_NUM=3",),
        False,
    ),
    Twin(
        "gelu_eltwise_high_performance",
        "gelu_eltwise_basic",
        "GeluEltwiseBasic",
        _GELU + "05_best_practices/02_reg_compute/gelu_eltwise_high_performance/gelu_eltwise.asc",
        {},
        ("-DSCENARIO_NUM=1",),
        False,
        scenario_arg=5,
    ),
    Twin("reg_load_store_unalign", "copy_vf", "CopyVF", _DM + "reg_load_store_unalign/ld_st_reg_unalign.asc", {"T": 0}),
    Twin(
        "reg_load_store_unalign",
        "reduce_data_block_vf",
        "ReduceDataBlockVF",
        _DM + "reg_load_store_unalign/ld_st_reg_unalign.asc",
        {"T": 0},
        ("-DSCENARIO_NUM=2",),
    ),
    *(
        Twin("reg_load_store_align", attr, vf, _ALIGN, {"T": 0}, (f"-DSCENARIO_NUM={k}",), False)
        for k, (attr, vf) in enumerate(
            [
                ("copy_with_offset_vf", "CopyWithOffsetVF"),
                ("copy_with_post_update_vf", "CopyWithPostUpdateVF"),
                ("copy_with_addr_reg_vf", "CopyWithAddrRegVF"),
                ("copy_data_block_vf", "CopyDataBlock"),
                ("copy_in_broadcast_vf", "CopyInBroadcastVF"),
                ("copy_in_upsample_vf", "CopyInUpsampleVF"),
            ],
            start=1,
        )
    ),
)

#: what the quoted VFs use from the rest of their example file
_PRELUDE = "__aicore__ __inline__ constexpr uint32_t DivCeil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }\n"


def port(twin: Twin) -> ModuleType:
    return importlib.import_module(f"vf_examples.{twin.port}")


def docstring_source(module: ModuleType) -> str:
    """The `__simd_vf__` functions quoted (indented) in a port's docstring, as one C++ file;
    a static member VF (`__simd_vf__ static inline ...`) inside `template <typename T> class`."""
    doc = ast.get_docstring(ast.parse(Path(module.__file__ or "").read_text())) or ""
    out: list[str] = [_PRELUDE]
    members: list[str] = []
    for block in re.findall(r"(?:^(?: {4}.*|)\n)+", doc + "\n", flags=re.M):
        lines = textwrap.dedent(block).splitlines()
        i = 0
        while i < len(lines):
            start = i
            if lines[i].startswith("template") and i + 1 < len(lines) and "__simd_vf__" in lines[i + 1]:
                i += 1
            if "__simd_vf__" in lines[i] and not lines[i].startswith(" "):
                end = next((j for j in range(i, len(lines)) if lines[j] == "}"), None)
                if end is not None:
                    fn = "\n".join(lines[start : end + 1])
                    if "static" in lines[i].split("(")[0]:
                        members.append(fn)
                    elif start == i and re.search(r"\bT\b", fn):  # quoted without its `template <typename T>`
                        out.append("template <typename T>\n" + fn + "\n")
                    else:
                        out.append(fn + "\n")
                    i = end
            i += 1
    if members:
        out.append("template <typename T>\nclass Kernel {\npublic:\n" + "\n".join(members) + "\n};\n")
    return "\n".join(out)


def example_source(root: Path, twin: Twin) -> Path:
    return root / twin.example


def cpp_call(twin: Twin, mod: Any, args: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]] | None:
    """The C++ VF of `mod` (instantiated for the dtypes of the pointer arguments the twin names) that runs a call
    of the port's VF with `args`, and the arguments it takes (a SCENARIO_NUM argument becomes the file's
    `-DSCENARIO_NUM`); None where the port's Python VF runs it (more arguments than the C++ VF has)."""
    if twin.nargs is not None and len(args) > twin.nargs:
        return None
    source = mod
    if twin.scenario_arg is not None:
        scenario = args[twin.scenario_arg]
        args = args[: twin.scenario_arg] + args[twin.scenario_arg + 1 :]
        others = tuple(a for a in twin.args if not a.startswith("-DSCENARIO_NUM="))
        source = cpp.load(mod.path, args=(*others, f"-DSCENARIO_NUM={scenario}"))
    targs = {k: args[v].dtype if isinstance(v, int) else v for k, v in twin.targs.items()}
    return source.instantiate(twin.vf, **targs).vf, args


@contextmanager
def cpp_kernel(twin: Twin, mod: Any) -> Iterator[None]:
    """Inside: the port's `twin.attr` is the C++ VF, instantiated per call for the dtypes of the
    pointer arguments the twin names (so a port running T = float and T = half runs both)."""
    module = port(twin)
    original = getattr(module, twin.attr)

    def body(*args: Any) -> None:
        found = cpp_call(twin, mod, args)
        if found is None:
            original.__regsim_vf_body__(*args)
        else:
            found[0].__regsim_vf_body__(*found[1])

    class _Vf:
        __regsim_vf_body__ = staticmethod(body)
        __qualname__ = twin.vf

    setattr(module, twin.attr, _Vf())
    try:
        yield
    finally:
        setattr(module, twin.attr, original)


def run_port(twin: Twin, mod: Any | None, seed: int, loops: str = "auto") -> dict[str, tuple[Any, Any]]:
    """The port's `run(seed)` with its Python VF (mod None) or the C++ VF of `mod`."""
    module = port(twin)
    with configure(loops=loops):  # type: ignore[arg-type]
        if mod is None:
            return module.run(seed)  # type: ignore[no-any-return]
        with cpp_kernel(twin, mod):
            return module.run(seed)  # type: ignore[no-any-return]


def compare(got: dict[str, tuple[Any, Any]], want: dict[str, tuple[Any, Any]]) -> list[str]:
    """The outputs whose bits differ (the C++ run `got` against the Python port's `want`)."""
    bad = []
    for key, (g, _) in got.items():
        w = want[key][0]
        if g.shape != w.shape or g.tobytes() != w.tobytes():
            bad.append(f"{key}: the C++ VF and the Python port differ")
    return bad


def check(twin: Twin, mod: Any, seed: int = 0, loops: tuple[str, ...] = ("auto", "sequential")) -> list[str]:
    """Run the port with its Python VF and with the C++ VF in each loop mode: the differences."""
    problems = []
    for mode in loops:
        want = run_port(twin, None, seed, mode)
        got = run_port(twin, mod, seed, mode)
        problems += [f"[{mode}] {p}" for p in compare(got, want)]
    return problems


def load_twin(twin: Twin, root: Path | None, tmp: Path) -> Any:
    """The twin's C++ module: the example file under `root`, else the port's docstring quote."""
    if root is not None:
        return cpp.load(example_source(root, twin), args=twin.args)
    path = tmp / f"{twin.port}.asc"
    if not path.exists():
        path.write_text(docstring_source(port(twin)))
    return cpp.load(path)
