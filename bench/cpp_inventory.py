"""Inventory: every asc-devkit example file with a `__simd_vf__` function, through `rs.cpp.load`.

For each file (and each `SCENARIO_NUM` it branches on), each VF is parsed and lowered (for its
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


def _scenarios(text: str) -> list[int | None]:
    if "SCENARIO_NUM" not in text:
        return [None]
    found = {int(x) for x in re.findall(r"(?:scenarioNum|SCENARIO_NUM)\s*==\s*(\d+)", text)}
    return sorted(found | {1}) or [1]


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
        for scen in _scenarios(path.read_text(errors="replace")):
            args = (f"-DSCENARIO_NUM={scen}",) if scen is not None else ()
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
