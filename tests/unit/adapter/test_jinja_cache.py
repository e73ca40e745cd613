"""The compiled-Jinja cache (dbt/adapters/vulcan/jinja_cache.py): dbt's templates render the
same from the cache, a second process finds them on disk, and what the code depends on
keys it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dbt_common.clients.jinja as dbt_jinja
import jinja2
import pytest
from dbt_common.clients.jinja import get_environment, get_template

from dbt.adapters.vulcan import jinja_cache

# the sum of 0..x-1, then x
MACRO = (
    "{% set ns = namespace(t=0) %}{% for i in range(x) %}{% set ns.t = ns.t + i %}{% endfor %}"
    "{{ ns.t }} {{ x | string }}"
)


@pytest.fixture(autouse=True)
def restore() -> Iterator[None]:
    """The cache as the process had it (the macro harness installs it) after each test."""
    was = jinja_cache._installed
    yield
    jinja_cache.uninstall()
    if was:
        jinja_cache.install()


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    jinja_cache.uninstall()
    assert jinja_cache.install({jinja_cache.ENV_VAR: str(tmp_path)})
    yield tmp_path


def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources Jinja itself compiles from now on (what the cache did not serve)."""
    seen: list[str] = []
    original = jinja2.Environment._compile

    def counting(self: jinja2.Environment, source: str, filename: str) -> Any:
        seen.append(source)
        return original(self, source, filename)

    monkeypatch.setattr(jinja2.Environment, "_compile", counting)
    return seen


def test_a_template_renders_the_same_from_the_cache(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = compiles(monkeypatch)
    first = get_template(MACRO, {}).render({"x": 1})
    assert len(seen) == 1 and list(cache.glob("*.jinja"))
    again = get_template(MACRO, {}).render({"x": 40})
    assert (first, again) == ("0 1", "780 40")
    assert len(seen) == 1  # served from memory


def test_another_process_reads_the_code_from_disk(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    get_template(MACRO, {}).render({"x": 1})
    jinja_cache._memory.clear()  # what a new process starts with
    seen = compiles(monkeypatch)
    assert get_template(MACRO, {}).render({"x": 5}) == "10 5"
    assert seen == []


def test_a_corrupt_file_is_compiled_again_and_replaced(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    get_template(MACRO, {}).render({"x": 1})
    [stored] = cache.glob("*.jinja")
    stored.write_bytes(b"not marshal data")
    jinja_cache._memory.clear()
    seen = compiles(monkeypatch)
    assert get_template(MACRO, {}).render({"x": 2}) == "1 2"
    assert len(seen) == 1
    assert stored.read_bytes() != b"not marshal data"


def test_native_and_text_environments_and_sources_key_apart(cache: Path) -> None:
    text = get_environment()
    native = get_environment(native=True)
    keys = {
        jinja_cache.template_key(text, MACRO, None, None),
        jinja_cache.template_key(native, MACRO, None, None),
        jinja_cache.template_key(text, MACRO + " ", None, None),
        jinja_cache.template_key(text, MACRO, "a_name", None),
    }
    assert len(keys) == 4
    # the native environment's code returns Python values, the text one's strings
    source = "{{ [1, 2] | as_native }}"
    assert get_template(source, {}, native=True).render({}) == [1, 2]
    assert get_template(source, {}).render({}) == "[1, 2]"


def test_macro_debugging_compiles_every_time(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    get_template(MACRO, {}).render({"x": 1})
    monkeypatch.setattr(dbt_jinja, "MACRO_DEBUGGING", True)
    seen = compiles(monkeypatch)
    assert get_template(MACRO, {}).render({"x": 1}) == "0 1"
    assert len(seen) == 1


def test_off_and_the_default_folder() -> None:
    assert jinja_cache.cache_dir({jinja_cache.ENV_VAR: "off"}) is None
    assert jinja_cache.cache_dir({"XDG_CACHE_HOME": "/x"}) == Path("/x/dbt-vulcan/jinja")
    assert jinja_cache.cache_dir({jinja_cache.ENV_VAR: "/c"}) == Path("/c")
    jinja_cache.uninstall()
    assert not jinja_cache.install({jinja_cache.ENV_VAR: "off"})
    assert "compile" not in dbt_jinja.MacroFuzzEnvironment.__dict__


def test_an_unwritable_folder_keeps_the_cache_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the folder should be
    jinja_cache.uninstall()
    assert jinja_cache.install({jinja_cache.ENV_VAR: str(blocked / "jinja")})
    seen = compiles(monkeypatch)
    assert get_template(MACRO, {}).render({"x": 1}) == "0 1"
    assert get_template(MACRO, {}).render({"x": 1}) == "0 1"
    assert len(seen) == 1
