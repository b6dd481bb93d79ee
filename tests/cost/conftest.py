"""Cost tests run in both loop modes: every VF loop in order, and batched where exact (the default)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import regsim as rs


@pytest.fixture(params=["sequential", "auto"])
def loops(request: pytest.FixtureRequest) -> Iterator[str]:
    """The loop mode the test's kernels run in (`rs.configure(loops=...)`)."""
    with rs.configure(loops=request.param):
        yield request.param
