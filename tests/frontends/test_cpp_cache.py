"""The C++ front end's parse cache (regsim/_src/frontends/cpp/cache.py): a parse kept on disk is served to a later
process while nothing it read has changed, and parsed again otherwise (an included file edited, a header added ahead
of the one used, a corrupt entry); the directory follows REGSIM_CPP_CACHE and XDG_CACHE_HOME. "Another process" is
the same process with its parsed modules forgotten; "no parse" is a child process that would fail if started."""

from __future__ import annotations

import os
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

import regsim as rs
from regsim._src.frontends.cpp import cache
from regsim._src.frontends.cpp import module as cpp_module

KERNEL = """#include "inc.h"
static __simd_vf__ inline void ReadK(__ubuf__ int32_t* out)
{
    out[0] = K;
    out[1] = K * 2 + 1;
}
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV, str(d))
    monkeypatch.setattr(cpp_module, "_MODULES", {})  # (this test's parses only)
    return d


def _kernel(folder: Path, k: int | None = 7) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "k.asc").write_text(KERNEL)
    if k is not None:
        (folder / "inc.h").write_text(f"#pragma once\nconstexpr int32_t K = {k};\n")
    return folder / "k.asc"


def _read_k(mod: rs.cpp.CppModule) -> list[int]:
    """ReadK's output, run in both loop modes (identical)."""
    outs = []
    for loops in ("sequential", "auto"):
        rs.configure(loops=loops)
        try:
            out = rs.UnifiedBuffer().alloc(rs.int32, 8)
            out.set(np.zeros(8, np.int32))
            mod.ReadK(out.GetPhyAddr())
            outs.append(out.numpy()[:2].tolist())
        finally:
            rs.configure(loops="auto")
    assert outs[0] == outs[1]
    return list(outs[0])


def _another_process() -> None:
    cpp_module._MODULES.clear()


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def parsed(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was parsed again")

    monkeypatch.setattr(cpp_module.subprocess, "run", parsed)


def test_a_parse_is_served_to_another_process(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _kernel(tmp_path / "src")
    first = rs.cpp.load(src)
    assert _read_k(first) == [7, 15]
    assert len(list(cache_dir.glob("*.json"))) == 1
    _another_process()
    _no_parse(monkeypatch)
    second = rs.cpp.load(src)
    assert second is not first
    assert _read_k(second) == [7, 15]
    assert rs.cpp.load(src) is second  # (in the process: the module itself)


def test_an_edited_included_file_is_parsed_again(cache_dir: Path, tmp_path: Path) -> None:
    src = _kernel(tmp_path / "src")
    first = rs.cpp.load(src)
    assert _read_k(first) == [7, 15]
    (tmp_path / "src" / "inc.h").write_text("#pragma once\nconstexpr int32_t K = 9;\n")  # same process
    second = rs.cpp.load(src)
    assert second is not first
    assert _read_k(second) == [9, 19]
    (tmp_path / "src" / "inc.h").write_text("#pragma once\nconstexpr int32_t K = 11;\n")  # another process
    _another_process()
    assert _read_k(rs.cpp.load(src)) == [11, 23]
    (tmp_path / "src" / "inc.h").write_text("#pragma once\nconstexpr int32_t K = 9;\n")  # back: the entry is current
    _another_process()
    assert _read_k(rs.cpp.load(src)) == [9, 19]


def test_a_header_added_ahead_of_the_one_used_is_parsed_again(cache_dir: Path, tmp_path: Path) -> None:
    src = _kernel(tmp_path / "src", k=None)
    ahead, behind = tmp_path / "ahead", tmp_path / "behind"
    _kernel(behind, k=7)
    ahead.mkdir()
    args = ("-I", str(ahead), f"-I{behind}")
    assert _read_k(rs.cpp.load(src, args=args)) == [7, 15]
    (ahead / "inc.h").write_text("#pragma once\nconstexpr int32_t K = 5;\n")  # clang finds this one first now
    _another_process()
    assert _read_k(rs.cpp.load(src, args=args)) == [5, 11]


@pytest.mark.parametrize("damage", ["truncated", "a byte changed", "empty", "not json", "another layout"])
def test_a_corrupt_entry_is_parsed_again(damage: str, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _kernel(tmp_path / "src")
    rs.cpp.load(src)
    (entry,) = cache_dir.glob("*.json")
    data = entry.read_bytes()
    mid = len(data) // 2
    body = zlib.decompress(data.partition(b"\n")[2])
    older = zlib.compress(body.replace(f'"format": {cache.FORMAT}'.encode(), f'"format": {cache.FORMAT - 1}'.encode()))
    assert zlib.decompress(older) != body
    damaged = {
        "truncated": data[:mid],
        "a byte changed": data[:mid] + bytes([data[mid] ^ 0x20]) + data[mid + 1 :],
        "empty": b"",
        "not json": b"\x00\xff garbage",
        "another layout": cache.digest(older).encode() + b"\n" + older,  # checksum right, layout not ours
    }[damage]
    assert damaged != data
    entry.write_bytes(damaged)
    _another_process()
    assert _read_k(rs.cpp.load(src)) == [7, 15]
    assert entry.read_bytes() != damaged  # the entry replaced: served from now on
    _another_process()
    _no_parse(monkeypatch)
    assert _read_k(rs.cpp.load(src)) == [7, 15]


def test_an_entry_is_written_whole_or_not_at_all(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache.os, "replace", fails)
    src = _kernel(tmp_path / "src")
    assert _read_k(rs.cpp.load(src)) == [7, 15]  # the parse is only not kept
    assert os.listdir(cache_dir) == []  # no entry, no part of one


def test_the_cache_directory(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cache.directory() == str(cache_dir)
    monkeypatch.setenv(cache.ENV, "off")
    assert cache.directory() is None
    src = _kernel(tmp_path / "src")
    assert _read_k(rs.cpp.load(src)) == [7, 15]
    assert not cache_dir.exists()  # nothing written
    monkeypatch.delenv(cache.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.directory() == str(tmp_path / "xdg" / "regsim" / "cpp")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # (ignored, as the XDG rules say)
    assert cache.directory() == os.path.join(os.path.expanduser("~"), ".cache", "regsim", "cpp")


def test_a_failed_parse_is_not_kept(cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crashed(*args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], -11, "", "Segmentation fault")

    src = _kernel(tmp_path / "src")
    with monkeypatch.context() as m:
        m.setattr(cpp_module.subprocess, "run", crashed)
        with pytest.raises(rs.cpp.CppError, match="Segmentation fault"):
            rs.cpp.load(src)
    assert not cache_dir.exists()
    assert _read_k(rs.cpp.load(src)) == [7, 15]


def test_the_libclang_stamp_follows_its_files_bytes_not_their_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key's libclang part: a new install of the same wheel (other file times) keeps it, so a fresh virtual
    environment finds the entries; other bindings (the same size, other bytes) or another library size changes it."""
    import importlib.machinery
    import importlib.util

    wheel = tmp_path / "clang"
    (wheel / "native").mkdir(parents=True)
    (wheel / "cindex.py").write_text("VERSION = 'a'\n")
    (wheel / "native" / "libclang.so").write_bytes(b"\0" * 64)
    spec = importlib.machinery.ModuleSpec("clang", None, is_package=True)
    spec.submodule_search_locations = [str(wheel)]
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: spec if name == "clang" else None)

    def stamp() -> str:
        return cache._libclang.__wrapped__()  # (uncached)

    first = stamp()
    for f in (wheel / "cindex.py", wheel / "native" / "libclang.so"):
        os.utime(f, ns=(1, 1))  # (a new install: other times)
    assert stamp() == first
    (wheel / "cindex.py").write_text("VERSION = 'b'\n")  # (the same size)
    assert stamp() != first
    second = stamp()
    (wheel / "native" / "libclang.so").write_bytes(b"\0" * 65)
    assert stamp() not in (first, second)
