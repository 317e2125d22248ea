"""Rust crate names: which folder of the tree `use regex_syntax::hir::Hir` or `log::set_max_level(..)` names.

A Rust path starts with a crate's name (its Cargo.toml's `[lib] name`, else its package name with `-` read as `_`)
or with `crate`, `self` or `super`; the crate's modules are files and folders under its library's root
(`src/lib.rs`: `src/`). A workspace's crates use each other by name, and a package's tests, examples and benches
use the package's own library by name. Without the manifests a path's first word is only a guess.
"""

from __future__ import annotations

import posixpath
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from igraph_mcp.index import manifests
from igraph_mcp.store.db import Database

CARGO = "Cargo.toml"
# The meta key holding the last run's crates: a change binds every edge again (note).
META_KEY = "rust_crates"


def library_root(folder: str, manifest: Mapping[str, object], exists: Callable[[str], bool]) -> tuple[str, str] | None:
    """(the crate's name in paths, its library's root folder) for a Cargo.toml's content in ``folder``; None for a
    manifest without a package or whose library file is missing (a binary-only or virtual manifest)."""
    package = manifest.get("package")
    lib = manifest.get("lib", {})
    if not isinstance(package, dict) or not isinstance(lib, dict):
        return None
    name = lib.get("name") or package.get("name")
    path = lib.get("path", "src/lib.rs")
    if not isinstance(name, str) or not isinstance(path, str) or not name:
        return None
    lib_file = posixpath.normpath(posixpath.join(folder, path)) if folder else posixpath.normpath(path)
    if not exists(lib_file):
        return None
    return name.replace("-", "_"), posixpath.dirname(lib_file)


def read_rust_crates(root: Path, rust_files: Iterable[str]) -> dict[str, str]:
    """crate name -> its library's root folder ("" for the tree's root), for every Cargo.toml in a folder holding
    or above the indexed Rust files (relative POSIX paths); unreadable manifests and binary-only crates are left
    out. Two crates of one name (a fork vendored beside its original): the first folder in path order."""
    crates: dict[str, str] = {}
    for folder, text in manifests.manifest_texts(root, rust_files, CARGO):
        try:
            manifest = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            continue
        found = library_root(folder, manifest, lambda rel: (root / rel).is_file())
        if found is not None:
            crates.setdefault(*found)
    return crates


def note(db: Database, root: Path, rust_files: Iterable[str]) -> None:
    """Keep the crates of the tree's Cargo.toml files where binding reads them (``stored``); where they changed,
    flag every edge for binding again: a path's first word may name another folder now."""
    manifests.note(db, META_KEY, read_rust_crates(root, rust_files))


def stored(db: Database) -> dict[str, str]:
    """The crates the last run found (crate name -> library root folder)."""
    return manifests.stored(db, META_KEY)


def module_folder(importer: str, crates: Mapping[str, str], segments: list[str]) -> str | None:
    """The folder-like path a Rust path's leading segments name, seen from the file ``importer``: `crate::a` from
    its crate's root, `self::a` / `super::a` from its module (`src/x/mod.rs` and `src/x.rs` are module x, whose
    children lie in `src/x/`), `other_crate::a` from that crate's root; None when the first segment is none of
    these (an outside crate, or a name the caller's own scope knows)."""
    if not segments:
        return None
    head = segments[0]
    if head in ("self", "super"):
        directory, _, file_name = importer.rpartition("/")
        stem = file_name.rsplit(".", 1)[0]
        here = directory if stem in ("mod", "lib", "main") else posixpath.join(directory, stem)
        rest = list(segments)
        while rest and rest[0] in ("self", "super"):
            if rest.pop(0) == "super":
                here = posixpath.dirname(here)
        return posixpath.join(here, *rest) if rest else here
    if head == "crate":
        roots = [r for r in crates.values() if not r or importer.startswith(r + "/")]
        if not roots:
            return None
        return posixpath.join(max(roots, key=len), *segments[1:])
    if head in crates:
        return posixpath.join(crates[head], *segments[1:])
    return None
