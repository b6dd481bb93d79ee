"""Inventory: every asc-devkit example file with a `__simd_vf__` function, through `rs.cpp.load`.

For each file (and each `SCENARIO_NUM` it or its local headers branch on, set as the example's
CMakeLists.txt sets its macros), each VF is parsed and lowered (for its
template arguments, read from the host code's `asc_vf_call<VF<...>>` / `VF<...>` spellings where
given, else the first dtypes that lower); the first construct or Reg function regsim does not
support is printed. Run: `python bench/cpp_inventory.py PATH` with PATH an asc-devkit checkout or
its bare git mirror (the examples are then extracted to a temporary directory).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

import regsim as rs
from regsim.cpp import CppError

#: type template arguments tried, in order, for a VF whose host code does not spell them
TRY = (rs.float32, rs.half, rs.int32, rs.uint32, rs.int16)


def _files(root: Path) -> list[Path]:
    out = []
    for p in sorted((root / "examples").rglob("*")):
        if p.suffix in (".asc", ".h", ".cpp") and p.is_file() and "__simd_vf__" in p.read_text(errors="replace"):
            out.append(p)
    return out


def _local_text(path: Path, seen: set[Path] | None = None) -> str:
    """The file's text and that of the headers it includes from its own directory (config.h ...)."""
    seen = seen if seen is not None else set()
    seen.add(path)
    text = path.read_text(errors="replace")
    for inc in re.findall(r'#include\s+"([^"]+)"', text):
        dep = path.parent / inc
        if dep.is_file() and dep not in seen:
            text += "\n" + _local_text(dep, seen)
    return text


def _scenario_macros(path: Path) -> list[str]:
    """The macros the example's CMakeLists.txt sets from its SCENARIO_NUM option
    (`target_compile_definitions(... SCENARIO=${SCENARIO_NUM})`); SCENARIO_NUM itself by default."""
    cmake = path.parent / "CMakeLists.txt"
    text = cmake.read_text(errors="replace") if cmake.is_file() else ""
    return sorted(set(re.findall(r"(\w+)=\$\{SCENARIO_NUM\}", text)) | {"SCENARIO_NUM"})


def _scenarios(path: Path) -> list[tuple[int | None, tuple[str, ...]]]:
    """(scenario, clang -D arguments) for each scenario the file or its local headers branch on."""
    text = _local_text(path)
    macros = _scenario_macros(path)
    found = {int(x) for m in [*macros, "scenarioNum"] for x in re.findall(rf"\b{m}\s*==\s*(\d+)", text)}
    if not found and not any(re.search(rf"\b{m}\b", text) for m in macros):
        return [(None, ())]
    return [(n, tuple(f"-D{m}={n}" for m in macros)) for n in sorted(found | {1})]


def _attempt(mod: rs.cpp.CppModule, name: str) -> tuple[bool, str]:
    fn = mod.functions[name]
    needed = fn.tparams
    if not needed:
        try:
            mod.instantiate(name)
            return True, ""
        except CppError as e:
            return False, str(e).split("\n")[0]
    first = ""
    for d in TRY:
        targs = {p["name"]: (d if p["type"] else 1) for p in needed}
        try:
            mod.instantiate(name, **targs)
            shown = ", ".join(f"{k}={getattr(v, 'name', v)}" for k, v in targs.items())
            return True, f"({shown})"
        except CppError as e:
            first = first or str(e).split("\n")[0]
    return False, first


def inventory(root: Path) -> list[tuple[str, int | None, str, str, str]]:
    rows = []
    for path in _files(root):
        rel = str(path.relative_to(root / "examples"))
        for scen, args in _scenarios(path):
            try:
                mod = rs.cpp.load(path, args=args)
            except CppError as e:
                msg = str(e).replace(str(path), path.name).split("\n")
                rows.append((rel, scen, "-", "parse", msg[1] if len(msg) > 1 else msg[0]))
                continue
            if not mod.vf_names:
                rows.append((rel, scen, "-", "no VF", (mod.host_diagnostics or ["-"])[0].replace(str(path), path.name)))
            for vf in mod.vf_names:
                ok, why = _attempt(mod, vf)
                rows.append((rel, scen, vf, "lowers" if ok else "refused", why.replace(str(path), path.name)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("path", help="an asc-devkit checkout, or its bare git mirror")
    a = ap.parse_args()
    root = Path(a.path)
    with tempfile.TemporaryDirectory() as tmp:
        if not (root / "examples").is_dir():
            archive = subprocess.run(["git", "-C", str(root), "archive", "HEAD", "examples"], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
            root = Path(tmp)
        rows = inventory(root)
    for rel, scen, vf, status, why in rows:
        print(f"{status:8} {rel}{f' [SCENARIO_NUM={scen}]' if scen is not None else ''} {vf} {why}")
    ok = sum(r[3] == "lowers" for r in rows)
    print(f"{ok} of {len(rows)} VFs lower; files: {len({r[0] for r in rows})}")


if __name__ == "__main__":
    main()
