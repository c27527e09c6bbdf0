"""The suite's pytest-xdist groups take effect: the tests that share an expensive fixture carry one
`xdist_group` mark, so one worker runs them and builds it once. A pytest or pytest-xdist upgrade that
loses the groups silently (pytest 9.2 did: pyproject.toml keeps pytest below it) fails here instead of
making both workers build those fixtures, or one wait on the other's lock."""

from __future__ import annotations

import os

import pytest


@pytest.mark.xdist_group("xdist_groups_check")
def test_a_grouped_test_reaches_the_scheduler_with_its_group(request: pytest.FixtureRequest) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER") or not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by pytest-xdist with --dist loadgroup (the suite's addopts)")
    # loadgroup hands its scheduler the group as a suffix of the test's id
    assert request.node.nodeid.endswith("@xdist_groups_check"), (
        f"pytest-xdist's groups are lost with pytest {pytest.__version__}: {request.node.nodeid}"
    )
