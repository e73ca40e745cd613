"""MkDocs hooks of the docs site (mkdocs.yml `hooks:`).

The Environments guide (docs/guides/environments.md) is written with the virtual layer it
describes; until the file is there, the site gets a short generated page in its place, so the
nav and the links to it resolve and `mkdocs build --strict` passes. Once the file exists this
hook adds nothing."""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

GUIDE = "guides/environments.md"
STAND_IN = """# Environments

With `vulcan_virtual: true` a model's rows live in a physical table named by its version, in a
schema every target shares, and each target's relation is a view over it. The vars that turn it
on and shape it are in [the reference](../reference/vars-and-profile.md#environments), and the
operations that compare, clean up and drop environments in
[Operations](../reference/operations.md#environments).
"""


def on_files(files: Files, config: Any) -> Files:
    if files.get_file_from_path(GUIDE) is None:
        files.append(File.generated(config, GUIDE, content=STAND_IN))
    return files
