"""The cost table: `cost_table.toml`, each entry a `value` and the `source` it comes from (a public page by
name, or "assumption: ..."), replaceable as a whole file or entry by entry."""

from __future__ import annotations

import functools
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from regsim.errors import ParameterError, message

DEFAULT: Path = Path(__file__).with_name("cost_table.toml")


class CostTable:
    """Dotted keys ("mte2.bytes_per_cycle") to their value and source."""

    def __init__(self, entries: Mapping[str, tuple[Any, str]], path: str) -> None:
        self.entries = dict(entries)
        self.path = path
        #: what `rs.profile` derives from the table, made once (`profile._geometry`)
        self.derived: Any = None

    def __getitem__(self, key: str) -> Any:
        return self.entries[key][0]

    def source(self, key: str) -> str:
        return self.entries[key][1]

    def op_cycles(self, api: str) -> float:
        """Cycles of one instruction of the compute op `api` ("Exp", "Div/specific" ...)."""
        return float(self["vector.op_cycles"].get(api, self["vector.cycles"]))


def load(path: str | os.PathLike[str] | None = None, overrides: Mapping[str, Any] | None = None) -> CostTable:
    """The table at `path` (default: the package's, read once), with `overrides` ({"dotted.key": value}) applied."""
    if path is None and not overrides:
        return _default()
    return _load(path, overrides)


@functools.cache
def _default() -> CostTable:
    return _load(None, None)


def _load(path: str | os.PathLike[str] | None, overrides: Mapping[str, Any] | None) -> CostTable:
    where = DEFAULT if path is None else Path(path)
    try:
        raw = tomllib.loads(where.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ParameterError(message("profile", "cost_table", repr(str(where)), f"a readable TOML cost table ({e})")) from None
    entries: dict[str, tuple[Any, str]] = {}
    for section, items in raw.items():
        for name, entry in items.items():
            key = f"{section}.{name}"
            if not isinstance(entry, dict) or "value" not in entry or not isinstance(entry.get("source"), str):
                raise ParameterError(
                    message("profile", "cost_table", f"entry {key} of {where}", "a table with a value and its source (a string)")
                )
            entries[key] = (entry["value"], entry["source"])
    base = load_default_keys() if path is not None else set(entries)
    missing = base - set(entries)
    if missing:
        raise ParameterError(
            message("profile", "cost_table", f"{where} lacks {sorted(missing)}", "every entry of the package's table")
        )
    for key, value in (overrides or {}).items():
        if key not in entries:
            raise ParameterError(message("profile", "cost", repr(key), f"one of {sorted(entries)}"))
        if type(value) is not type(entries[key][0]) and not (
            isinstance(value, (int, float)) and isinstance(entries[key][0], (int, float))
        ):
            raise ParameterError(message("profile", f"cost[{key!r}]", repr(value), f"a {type(entries[key][0]).__name__}"))
        entries[key] = (value, "given to rs.profile")
    return CostTable(entries, str(where))


def load_default_keys() -> set[str]:
    raw = tomllib.loads(DEFAULT.read_text(encoding="utf-8"))
    return {f"{s}.{n}" for s, items in raw.items() for n in items}
