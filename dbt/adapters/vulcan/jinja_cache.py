"""Compiled Jinja kept between `dbt` processes (adapter mode only).

dbt compiles every macro it calls, in every process: a one-day run of an interval kind
compiles about 70 KB of macro source (its plan, the write, the state append) and dbt's own
materialization code, half a second of a run that writes in about as long. Each template's
source compiles to the same Python code every time, so the code is kept on disk with Jinja's
own bytecode cache (`jinja2.FileSystemBytecodeCache`: one file per template, the Python
version's marker checked, written atomically) and in memory for the process.

The key of a template is a digest of its source and of everything else the compiled code
depends on: the environment's class and code generator, its extensions and syntax settings,
the template's name and file name, and Jinja's version (the Python version is checked by the
cache itself). Anything Jinja compiles that is not plain source text (raw Python source, a
parsed tree) goes to Jinja unchanged.

Where: `VULCAN_JINJA_CACHE` (a folder; `off` turns the cache off), else
`$XDG_CACHE_HOME/dbt-vulcan/jinja` or `~/.cache/dbt-vulcan/jinja`. A folder that cannot be
created or written leaves the in-memory cache only; a corrupt or foreign file is compiled
again and replaced.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any

import dbt_common.clients.jinja as dbt_jinja
import jinja2
from jinja2.bccache import Bucket, FileSystemBytecodeCache

ENV_VAR = "VULCAN_JINJA_CACHE"
OFF = {"off", "0", "false", "no"}

_lock = threading.Lock()
# dbt's environments (NativeSandboxEnvironment is a MacroFuzzEnvironment)
_ENV = dbt_jinja.MacroFuzzEnvironment
_installed = False
_memory: dict[str, CodeType] = {}
_disk: FileSystemBytecodeCache | None = None


def cache_dir(environ: dict[str, str] | None = None) -> Path | None:
    """The cache's folder from the environment (None: the cache is off)."""
    env = os.environ if environ is None else environ
    chosen = env.get(ENV_VAR, "").strip()
    if chosen.lower() in OFF:
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(base) / "dbt-vulcan" / "jinja"


def template_key(
    env: jinja2.Environment, source: str, name: str | None, filename: str | None
) -> str:
    """What the compiled code of `source` depends on, as one digest."""
    extensions = sorted(
        f"{type(e).__module__}.{type(e).__qualname__}" for e in env.extensions.values()
    )
    settings = (
        type(env).__module__ + "." + type(env).__qualname__,
        env.code_generator_class.__module__ + "." + env.code_generator_class.__qualname__,
        ",".join(extensions),
        repr(
            (
                env.block_start_string,
                env.block_end_string,
                env.variable_start_string,
                env.variable_end_string,
                env.comment_start_string,
                env.comment_end_string,
                env.line_statement_prefix,
                env.line_comment_prefix,
                env.trim_blocks,
                env.lstrip_blocks,
                env.newline_sequence,
                env.keep_trailing_newline,
                env.optimized,
                env.is_async,
                # the code calls these when set (a callable autoescape: by its name)
                getattr(env.autoescape, "__qualname__", env.autoescape),
                getattr(env.finalize, "__qualname__", env.finalize),
                name,
                filename,
            )
        ),
        jinja2.__version__,
    )
    digest = hashlib.sha256()
    for part in settings:
        digest.update(part.encode())
        digest.update(b"\x00")
    digest.update(source.encode())
    return digest.hexdigest()


def _disk_cache(directory: Path | None) -> FileSystemBytecodeCache | None:
    if directory is None:
        return None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return None  # not writable here: the process's memory only
    return FileSystemBytecodeCache(str(directory), "%s.jinja")


def compiled(
    env: jinja2.Environment,
    source: str,
    name: str | None,
    filename: str | None,
    compile_: Callable[[], CodeType],
) -> CodeType:
    """The code of `source` in `env`: from memory, from disk, or compiled (and kept)."""
    key = template_key(env, source, name, filename)
    code = _memory.get(key)
    if code is not None:
        return code
    bucket: Bucket | None = None
    if _disk is not None:
        bucket = Bucket(env, key, key)
        _disk.load_bytecode(bucket)
        code = bucket.code
    if code is None:
        code = compile_()
        if bucket is not None:
            bucket.code = code
            # a full or read-only disk: compiled again next time
            with contextlib.suppress(OSError):
                _disk.dump_bytecode(bucket)  # type: ignore[union-attr]
    _memory[key] = code
    return code


def install(environ: dict[str, str] | None = None) -> bool:
    """Serve dbt's Jinja environments' compiles from the cache (idempotent). False when the
    cache is off."""
    global _disk, _installed
    directory = cache_dir(environ)
    if directory is None:
        return False
    with _lock:
        if not _installed:
            _disk = _disk_cache(directory)
            _ENV.compile = _cached(_ENV.compile)  # type: ignore[method-assign]
            _installed = True
    return True


def uninstall() -> None:
    """Back to Jinja's own compile (tests)."""
    global _disk, _installed
    with _lock:
        if _installed:
            del _ENV.compile  # Jinja's own, inherited again
            _installed = False
        _memory.clear()
        _disk = None


def _cached(original: Any) -> Any:
    def compile(
        self: jinja2.Environment,
        source: Any,
        name: str | None = None,
        filename: str | None = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Any:
        # dbt's macro debugging puts each compiled source in linecache: compiled every time
        if raw or defer_init or not isinstance(source, str) or dbt_jinja.MACRO_DEBUGGING:
            return original(self, source, name, filename, raw, defer_init)
        return compiled(
            self, source, name, filename, lambda: original(self, source, name, filename)
        )

    return compile
