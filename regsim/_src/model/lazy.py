"""Third-party modules loaded when first used, not when regsim is imported.

`ml_dtypes` (bfloat16, the fp8 formats, complex32) takes about a second to import, most of
`import regsim`, yet many kernels never touch those types. `lazy(name)` is the module whose body
runs at the first read of one of its attributes (the standard library's `importlib.util.LazyLoader`,
as its documentation's "Implementing lazy imports" recipe uses it); regsim's modules take
`ml_dtypes` from here (`from regsim._src.model.lazy import ml_dtypes`) and never read its names at
import time (tables of ml_dtypes types are made when first used). An `import ml_dtypes` statement
loads it at once (the import system reads the module's `__spec__`), so regsim has none; the oracles,
which import nothing of regsim, name ml_dtypes types by string and look them up when first used.
Only third-party modules are loaded so; regsim's own modules are imported at the top of each file.
"""

from __future__ import annotations

import importlib.util
import sys
import types


def lazy(name: str) -> types.ModuleType:
    """The module `name`, imported now if already imported, else to be loaded at its first attribute access."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


#: ml_dtypes (typed as a module: its attributes are `Any` to mypy)
ml_dtypes = lazy("ml_dtypes")
