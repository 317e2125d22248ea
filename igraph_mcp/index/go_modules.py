"""Go module paths: which folder of the tree an import like `github.com/yuin/goldmark` names.

An import names a package by its module's path (the `module` line of a go.mod) and the package's folder under the
module's root. Without go.mod the folder can only be guessed from the import's trailing words, and a module's root
package (`github.com/yuin/goldmark`, `github.com/go-git/go-git/v5`) has no words of a folder left to match.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from igraph_mcp.index import manifests
from igraph_mcp.store.db import Database

GO_MOD = "go.mod"
# The meta key holding the last run's module paths: a change binds every edge again (note).
META_KEY = "go_modules"
_MODULE_LINE = re.compile(r"^\s*module\s+(\"[^\"]+\"|`[^`]+`|\S+)", re.MULTILINE)


def module_path(text: str) -> str | None:
    """The module path a go.mod's text declares, None when it declares none."""
    match = _MODULE_LINE.search(text)
    return match.group(1).strip('"`') if match else None


def read_go_modules(root: Path, go_files: Iterable[str]) -> dict[str, str]:
    """folder ("" for the root) -> module path, for every go.mod in a folder holding or above the indexed Go files
    (relative POSIX paths); unreadable or module-less go.mod files are left out."""
    modules: dict[str, str] = {}
    for folder, text in manifests.manifest_texts(root, go_files, GO_MOD):
        declared = module_path(text)
        if declared:
            modules[folder] = declared
    return modules


def note(db: Database, root: Path, go_files: Iterable[str]) -> None:
    """Keep the module paths of the tree's go.mod files where binding reads them (``stored``); where they
    changed, flag every edge for binding again: an import's folder may be another one now."""
    manifests.note(db, META_KEY, read_go_modules(root, go_files))


def stored(db: Database) -> dict[str, str]:
    """The module paths the last run found (folder -> module path)."""
    return manifests.stored(db, META_KEY)


def package_folder(modules: Mapping[str, str], imported: str) -> str | None:
    """The folder an import path names inside one of ``modules`` (the longest module path that prefixes it), or
    None when it names none of them (a library)."""
    best: tuple[int, str] | None = None
    for folder, path in modules.items():
        if imported == path or imported.startswith(path + "/"):
            rest = imported[len(path) :].strip("/")
            if best is None or len(path) > best[0]:
                best = (len(path), posixpath.join(folder, rest) if folder and rest else folder or rest)
    return best[1] if best is not None else None


_MAJOR_VERSION = re.compile(r"v[0-9]+")
_DOT_VERSION = re.compile(r"\.v[0-9]+$")


def import_names(imported: str) -> list[str]:
    """The names an unaliased Go import may bind, most likely first: its last path element, which is the package's
    name by convention, except a major-version element (`example.com/mod/v2` is package mod), a gopkg.in version
    (`gopkg.in/yaml.v3` is yaml) and a `go-` prefix or `-go` suffix no identifier can hold (`go-git` is git)."""
    parts = [p for p in imported.strip().strip('"').split("/") if p]
    if not parts:
        return []
    last = parts[-1]
    if _MAJOR_VERSION.fullmatch(last) and len(parts) > 1:
        last = parts[-2]
    last = _DOT_VERSION.sub("", last)
    if "-" in last:
        last = last.removeprefix("go-").removesuffix("-go")
    return [last] if last.isidentifier() else []
