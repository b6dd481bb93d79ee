"""C++ sources for the front end's tests, each written once to a folder of its own named by the file's name and bytes.

The parse cache (docs/cpp.md, "The parse cache") keys a parse by the file's path: a source written to a test's own
tmp_path is a new path in every test and every run, so each such load was a libclang parse (~0.15 s of a child
process). Written here, the same file is the same path in every test, worker and run that writes it, and clang parses it
once while the cache keeps the entry. The folder holds that file and nothing else (what a parse reads or probes for
beside it is the same wherever it is), and nothing writes to it once it is complete: a test that edits a file after
loading it, or needs other files beside it, writes to its tmp_path.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path


def _root() -> Path:
    """The user's folder of sources in the temporary directory (its own, not another user's: checked)."""
    root = Path(tempfile.gettempdir()) / f"regsim-test-cpp-{getpass.getuser()}"
    root.mkdir(mode=0o700, exist_ok=True)
    if hasattr(os, "getuid"):
        assert root.stat().st_uid == os.getuid(), f"{root} belongs to another user"
    return root


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text() == text
    except OSError:
        return False


def cpp_source(name: str, text: str) -> Path:
    """The path of a file `name` (relative: `arch35/shim.h` is in a folder `arch35`) holding `text`, alone in its
    folder."""
    digest = hashlib.blake2b(json.dumps([name, text]).encode(), digest_size=16).hexdigest()
    folder = _root() / digest
    path = folder / name
    if not _holds(path, text):
        shutil.rmtree(folder, ignore_errors=True)  # (left edited: written again)
        new = Path(tempfile.mkdtemp(prefix=".tmp-", dir=folder.parent))
        (new / name).parent.mkdir(parents=True, exist_ok=True)
        (new / name).write_text(text)
        try:
            os.rename(new, folder)  # (whole or not at all: a reader never sees a folder half written)
        except OSError:  # another process wrote it first
            shutil.rmtree(new, ignore_errors=True)
            assert _holds(path, text), f"{path} does not hold the text its folder is named by"
    return path
