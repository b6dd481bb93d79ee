"""The one binding rule of regsim's host-side public functions and constructors.

A call that does not bind (an unknown keyword, an argument too many, one missing, one given
twice) is a `ParameterError` naming the API and the parameter, in the format of
`regsim.errors.message`, not Python's bare `TypeError`; so is an int parameter given anything
but an int. A numpy integer scalar is an int; a bool is not (`alloc(rs.uint8, True)` is a
mistake, not one element).
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from regsim.errors import ParameterError, message

F = TypeVar("F", bound=Callable[..., Any])


def as_int(api: str, param: str, value: object, lo: int | None = None, hi: int | None = None) -> int:
    """`value` as a Python int: an int or numpy integer (not a bool) in `[lo, hi]` where given."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        n = int(value)
        if (lo is None or n >= lo) and (hi is None or n <= hi):
            return n
    bounds = f" in [{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]" if lo is not None or hi is not None else ""
    raise ParameterError(message(api, param, repr(value), f"an int{bounds} (a Python int or numpy integer, not a bool)"))


def host_api(api: str) -> Callable[[F], F]:
    """Decorate a public function or method so that a call that does not bind raises
    `ParameterError` naming `api` and the parameter. The wrapper costs nothing on calls that
    bind: it inspects the arguments only after the call failed with a `TypeError`."""

    def decorate(f: F) -> F:
        return _binding_checked(f, lambda args: api)

    return decorate


def host_method(f: F) -> F:
    """`host_api` for the `__call__` of a public API object (`rs.AscendC.Add` is one): the error
    names the object's `name`."""
    return _binding_checked(f, lambda args: str(args[0].name))


def _binding_checked(f: F, api_of: Callable[[tuple[Any, ...]], str]) -> F:
    sig = inspect.signature(f)

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except TypeError:
            try:
                sig.bind(*args, **kwargs)
            except TypeError:
                raise binding_error(api_of(args), sig, args, kwargs) from None
            raise

    return call  # type: ignore[return-value]


def binding_error(api: str, sig: inspect.Signature, args: Sequence[Any], kwargs: Mapping[str, Any]) -> ParameterError:
    """The `ParameterError` for arguments that do not bind to `sig`."""
    params = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    shown = [p for p in params if not p.name.startswith("_")]  # (a private parameter is the library's own)
    if len(params) < len(sig.parameters):  # a method: the instance or class is bound already
        args = args[1:]
    names = ", ".join("..." if p.kind is p.VAR_POSITIONAL else p.name for p in shown if p.kind is not p.VAR_KEYWORD)
    accepted = f"the parameters ({names})"
    keyword = {p.name for p in shown if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    takes_any_keyword = any(p.kind is p.VAR_KEYWORD for p in params)
    by_position = {p.name for p in params if p.kind is p.POSITIONAL_ONLY}
    for key, value in kwargs.items():
        if key in by_position:
            return ParameterError(message(api, key, f"{value!r} (given by keyword)", f"{key} by position: {api}({names})"))
        if key not in keyword and not takes_any_keyword:
            close = difflib.get_close_matches(key, sorted(keyword), n=1)
            hint = f" (did you mean {close[0]}=?)" if close else ""
            return ParameterError(message(api, key, f"{value!r} (an unknown keyword)", accepted + hint))
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(args) > len(positional) and not any(p.kind is p.VAR_POSITIONAL for p in params):
        extra = ", ".join(repr(a) for a in args[len(positional) :])
        return ParameterError(
            message(api, "arguments", f"{extra} (extra positional)", f"at most {len(positional)}: {api}({names})")
        )
    for p in positional[: len(args)]:
        if p.name in kwargs:
            return ParameterError(message(api, p.name, "given twice (by position and keyword)", "one value"))
    given = {p.name for p in positional[: len(args)]} | set(kwargs)
    for p in params:
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in given:
            return ParameterError(message(api, p.name, "missing", f"a value for {p.name}: {api}({names})"))
    return ParameterError(message(api, "arguments", "do not bind", accepted))
