"""dbt-tests-adapter's suites count the results of each dbt command and the nodes of the
manifest. Every test project has the package (the adapter ships it; package mode installs
it), and dbt runs a package's `on-run-start` hook (dbt_vulcan's creates the state table before
dbt's threads start): one more node, and one more result in every run, seed and test, which
dbt's suites, written for a project without packages, do not expect. Their `run_dbt` and
`get_manifest` here leave that hook out; everything else they check is unchanged."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest
from dbt.tests import util


def _is_package_hook(node: Any) -> bool:
    return (
        getattr(node, "resource_type", None) == "operation"
        and getattr(node, "package_name", None) == "dbt_vulcan"
    )


def _run_without_package_hook(run_dbt: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        result = run_dbt(*args, **kwargs)
        results = getattr(result, "results", None)
        if isinstance(results, list):
            results[:] = [r for r in results if not _is_package_hook(getattr(r, "node", None))]
        return result

    return run


def _manifest_without_package_hook(get_manifest: Callable[..., Any]) -> Callable[..., Any]:
    def manifest(*args: Any, **kwargs: Any) -> Any:
        found = get_manifest(*args, **kwargs)
        if found is not None:
            for unique_id in [k for k, node in found.nodes.items() if _is_package_hook(node)]:
                del found.nodes[unique_id]
        return found

    return manifest


@pytest.fixture(autouse=True)
def _dbt_suites_see_no_package_hook(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    originals = {"run_dbt": util.run_dbt, "get_manifest": util.get_manifest}
    wrappers = {
        "run_dbt": _run_without_package_hook(util.run_dbt),
        "get_manifest": _manifest_without_package_hook(util.get_manifest),
    }
    # the suites' modules import these by name; run_dbt_and_capture calls util's
    modules = {util.__name__} | {cls.__module__ for cls in type(request.instance).__mro__}
    for name in modules:
        module = sys.modules.get(name)
        for attribute, wrapper in wrappers.items():
            if module is not None and getattr(module, attribute, None) is originals[attribute]:
                monkeypatch.setattr(module, attribute, wrapper)


@pytest.fixture(autouse=True)
def _dbt_suites_get_their_artifacts(monkeypatch: pytest.MonkeyPatch) -> None:
    """dbt's suites read run_results.json (tests/conftest.py turns the artifacts off)."""
    monkeypatch.setenv("DBT_WRITE_JSON", "true")
