"""The C++ front end's parse cache, kept on disk across processes (docs/cpp.md, "The parse cache").

A libclang parse (parse.py, in a child process) is stored under a key made of everything it reads before
it opens the file: the file's path (as given) and bytes, the clang arguments, the working directory, the include
path environment, regsim's generated declarations and helper-header stand-ins, parse.py's own code and
the libclang wheel (its bindings' bytes and its library's size). The parse reports every file it included (with a
digest of the bytes clang
read) and the include names spelled in the user's files; an entry is served only while each of those
files has the same bytes and each place an include could have been found is as it was (a header added
ahead of the one used, or where one was missing, is a new parse). Entries are written whole under a
temporary name and renamed (processes may share the directory), compressed, with a checksum of their
content, and anything unreadable is a miss: the file is parsed again and the entry replaced.

The directory: `$REGSIM_CPP_CACHE` if set (`off` or `0` turns the cache off), else
`$XDG_CACHE_HOME/regsim/cpp` (`~/.cache/regsim/cpp`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import zlib
from typing import Any

#: the environment variable that moves the cache (a directory) or turns it off (`off`, `0`)
ENV = "REGSIM_CPP_CACHE"
#: the layout of an entry (a new one makes every older entry a miss)
FORMAT = 2
#: entries kept: past this many, the least recently used are removed
MAX_ENTRIES = 400
#: environment variables clang reads for include directories
_INCLUDE_ENV = ("CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH")
#: clang options naming an include directory (`-I dir` or `-Idir`)
_DIR_OPTIONS = ("-iquote", "-isystem", "-idirafter", "-I")


def digest(data: bytes) -> str:
    """The digest the cache compares bytes by (parse.py computes the same one of the bytes clang read)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def directory() -> str | None:
    """The cache directory, or None when the cache is off."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen.lower() in ("off", "0", "no", "false"):
        return None
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # (the XDG rule: a relative value is ignored)
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "regsim", "cpp")


@functools.cache
def _libclang() -> str:
    """The libclang wheel, without loading it: its Python bindings' bytes and its library's size (each release
    changes both). Not the files' times, so a new install of the same wheel (a fresh virtual environment, a CI
    runner) finds the entries an earlier one wrote."""
    import importlib.util

    stamps = []
    spec = importlib.util.find_spec("clang")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        for root, _, files in sorted(os.walk(folder)):
            for name in sorted(files):
                path = os.path.join(root, name)
                if name.endswith(".py"):
                    with open(path, "rb") as f:
                        stamps.append(f"{os.path.relpath(path, folder)}:{digest(f.read())}")
                elif name.endswith((".so", ".dylib", ".dll")):
                    stamps.append(f"{os.path.relpath(path, folder)}:{os.stat(path).st_size}")
    return "|".join(stamps)


def key(path: str, source: bytes, args: list[str], inputs: str) -> str:
    """The key of a parse of `path` (whose bytes are `source`) with clang arguments `args`; `inputs` is what
    else the parse reads (the generated declarations, the stand-ins, parse.py's code)."""
    what = {
        "format": FORMAT,
        "path": path,  # (as given: messages name the file so; with the working directory, one file)
        "source": digest(source),
        "args": args,
        "cwd": os.getcwd(),
        "env": {v: os.environ.get(v) for v in _INCLUDE_ENV},
        "inputs": inputs,
        "libclang": _libclang(),
    }
    return digest(json.dumps(what, sort_keys=True).encode())


def _search_dirs(args: list[str]) -> list[str]:
    """The include directories `args` and the environment name (absolute), in order."""
    out: list[str] = []
    it = iter(args)
    for a in it:
        opt = next((o for o in _DIR_OPTIONS if a.startswith(o)), None)
        if opt is not None:
            out.append(a[len(opt) :] or next(it, ""))
    for v in _INCLUDE_ENV:
        out += [d for d in os.environ.get(v, "").split(os.pathsep) if d]
    return [os.path.abspath(d) for d in out if d]


def _probes(includes: list[list[Any]], args: list[str]) -> dict[str, bool]:
    """Each place the include names spelled in the user's files could be found (the including file's folder for
    `"..."`, then the include directories), and whether a file is there now."""
    dirs = _search_dirs(args)
    out: dict[str, bool] = {}
    for includer, quoted, name in includes:
        where = [name] if os.path.isabs(name) else [os.path.join(d, name) for d in ([os.path.dirname(includer)] * quoted + dirs)]
        for p in where:
            p = os.path.normpath(p)
            if p not in out:
                out[p] = os.path.isfile(p)
    return out


class Read:
    """What one parse read: each file with the digest of its bytes, and each place an include could have been
    found with whether a file was there."""

    def __init__(self, files: list[list[str]], probes: dict[str, bool]) -> None:
        self.files, self.probes = files, probes
        #: each file's size and time when its bytes were last found the same (read again only once they change)
        self._seen: dict[str, tuple[int, int]] = {}

    def unchanged(self) -> bool:
        """Whether every file still has its bytes and every place is as it was (a parse now would read the same)."""
        for path, want in self.files:
            try:
                st = os.stat(path)
                if self._seen.get(path) == (st.st_size, st.st_mtime_ns):
                    continue
                with open(path, "rb") as f:
                    if digest(f.read()) != want:
                        return False
                self._seen[path] = (st.st_size, st.st_mtime_ns)
            except OSError:
                return False
        return all(os.path.isfile(p) == there for p, there in self.probes.items())


def lookup(k: str) -> tuple[dict[str, Any], Read] | None:
    """The stored parse result of key `k` (and what it read) while nothing it read has changed, else None."""
    folder = directory()
    if folder is None:
        return None
    entry = os.path.join(folder, f"{k}.json")
    try:
        with open(entry, "rb") as f:
            check, _, packed = f.read().partition(b"\n")
        if check.decode() != digest(packed):
            return None
        stored = json.loads(zlib.decompress(packed))
        if stored["format"] != FORMAT:
            return None
        read = Read(stored["files"], stored["probes"])
        if not read.unchanged():
            return None
        os.utime(entry)  # (recently used: kept when the directory is pruned)
        result: dict[str, Any] = stored["result"]
        return result, read
    except (OSError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError, zlib.error):
        return None  # unreadable, cut short, edited or of another layout: parsed again


def store(k: str, result: dict[str, Any], args: list[str]) -> Read:
    """Keep `result` under key `k` with what it read (`result["sources"]`, from parse.py); a cache that cannot be
    written is skipped (the parse is only not kept). What the parse read, also without a cache (`load` checks it
    before it gives a module parsed earlier in the process)."""
    sources = result.pop("sources", None) or {}
    read = Read(sources.get("files", []), _probes(sources.get("includes", []), args))
    folder = directory()
    if folder is None:
        return read
    body = json.dumps({"format": FORMAT, "files": read.files, "probes": read.probes, "result": result}).encode()
    packed = zlib.compress(body, 1)  # (a tenth of the JSON's size, at ~30 MB/s)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(digest(packed).encode() + b"\n" + packed)
            os.replace(tmp, os.path.join(folder, f"{k}.json"))  # (atomic: a reader sees the old entry or this one)
        except BaseException:
            os.unlink(tmp)
            raise
        _prune(folder)
    except OSError:
        pass
    return read


def _prune(folder: str) -> None:
    """Remove the least recently used entries past MAX_ENTRIES."""
    names = [n for n in os.listdir(folder) if n.endswith(".json") and not n.startswith(".")]
    if len(names) <= MAX_ENTRIES:
        return
    aged = []
    for n in names:
        try:
            aged.append((os.stat(os.path.join(folder, n)).st_mtime_ns, n))
        except OSError:
            continue
    for _, n in sorted(aged)[: len(aged) - MAX_ENTRIES]:
        try:
            os.unlink(os.path.join(folder, n))
        except OSError:
            continue
