"""bench/registry_fuzz.py as a module for the tests (its fuzzer and its memory-level call forms)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

_PATH = Path(__file__).resolve().parents[1] / "bench" / "registry_fuzz.py"
_SPEC = importlib.util.spec_from_file_location("registry_fuzz", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
rf: Any = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(rf)
