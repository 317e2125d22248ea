"""Binding references to definitions: same file, import binding, same directory, unique global name.

Anything that does not bind to exactly one candidate stays unresolved ("ambiguous" or "unresolved") instead of
being guessed, so an agent can tell a certain edge from a guess.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict

from igraph_mcp.index.languages import TYPE_KINDS, source_extension, spec_for_path
from igraph_mcp.store.records import SymbolKey

# Kinds a reference of each kind may point at.
_CALLABLE = frozenset({"function", "method", "class", "struct", "constant", "type", "enum", "interface", "trait"})
_TYPE_LIKE = TYPE_KINDS
TARGET_KINDS: dict[str, frozenset[str]] = {
    "calls": _CALLABLE,
    "inherits": _TYPE_LIKE,
    "implements": _TYPE_LIKE,
    "references": _TYPE_LIKE | {"constant", "function"},
    "imports": _CALLABLE | _TYPE_LIKE | {"module"},
}
_SELF_QUALIFIERS = frozenset({"self", "this", "cls", "super", "Self", "@", "$this", "static", "parent"})
# An importer in a language the table does not know: any usual separator may split the module name.
_ANY_SEPARATORS = ("::", "\\", ".")


# A definition as the resolver sees it: the store's record, so the symbol table needs no copying.
Sym = SymbolKey


def _module_key(path: str) -> str:
    """``pkg/sub/mod.py`` -> ``pkg/sub/mod``; ``pkg/__init__.py`` -> ``pkg``."""
    ext = source_extension(path)
    stem = path[: -len(ext)] if ext else path
    head, _, last = stem.rpartition("/")
    spec = spec_for_path(path) if ext else None
    if head and spec is not None and last in spec.index_stems:
        return head
    return stem


def module_candidates(module: str, importer_path: str) -> list[str]:
    """Path-like keys an import's module string may name, most specific first (relative imports resolved)."""
    module = module.strip().strip("'\"<>")
    if not module:
        return []
    importer_dir = posixpath.dirname(importer_path)
    if module.startswith("./") or module.startswith("../"):
        joined = posixpath.normpath(posixpath.join(importer_dir, module))
        return [_module_key(joined), joined]
    if module.startswith("."):  # Python relative import: one dot = this package, each extra dot one level up
        dots = len(module) - len(module.lstrip("."))
        base = importer_dir
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        rest = module[dots:].replace(".", "/")
        return [posixpath.normpath(posixpath.join(base, rest)) if rest else base]
    importer = spec_for_path(importer_path)
    for sep in importer.module_separators if importer is not None else _ANY_SEPARATORS:
        module = module.replace(sep, "/")
    module = module.lstrip("/")
    for prefix in ("crate/", "self/"):
        if module.startswith(prefix):
            module = module[len(prefix) :]
    return [_module_key(module), module]


def _submodule(module: str, name: str) -> str:
    """``pkg`` + ``mod`` -> ``pkg.mod``; a bare relative package ``.``/``..`` + ``mod`` -> ``.mod``/``..mod``."""
    return module + name if module.endswith(".") else f"{module}.{name}"


class Resolver:
    """In-memory symbol and module tables built from the index, used to bind reference edges."""

    def __init__(
        self,
        symbols: list[Sym],
        file_paths: dict[int, str],
        imports: dict[int, list[tuple[str, str, str]]],
    ) -> None:
        self.file_paths = file_paths
        self.imports = imports
        self.by_id = {s.id: s for s in symbols}
        self.by_name: dict[str, list[Sym]] = defaultdict(list)
        self.by_file_name: dict[tuple[int, str], list[Sym]] = defaultdict(list)
        self.module_of_file: dict[int, Sym] = {}
        for s in symbols:
            if s.kind == "module":
                self.module_of_file[s.file_id] = s
                continue
            self.by_name[s.name].append(s)
            self.by_file_name[(s.file_id, s.name)].append(s)
        self.dir_of_file = {fid: posixpath.dirname(p) for fid, p in file_paths.items()}
        # Module key suffixes -> files, so "requests.sessions" finds "src/requests/sessions.py".
        self.files_by_suffix: dict[str, list[int]] = defaultdict(list)
        self.files_by_dir_suffix: dict[str, list[int]] = defaultdict(list)
        for fid, path in file_paths.items():
            parts = _module_key(path).split("/")
            for i in range(len(parts)):
                self.files_by_suffix["/".join(parts[i:])].append(fid)
            dparts = posixpath.dirname(path).split("/")
            for i in range(len(dparts)):
                self.files_by_dir_suffix["/".join(dparts[i:])].append(fid)
            full = path.split("/")  # exact file names with extension, for C includes and JS paths with extensions
            for i in range(len(full)):
                self.files_by_suffix["/".join(full[i:])].append(fid)
        self._binding_cache: dict[int, dict[str, tuple[list[int], str]]] = {}

    # -- imports -----------------------------------------------------------------------------------------------
    def _files_for_module(self, module: str, importer: int) -> list[int]:
        importer_path = self.file_paths.get(importer, "")
        for key in module_candidates(module, importer_path):
            hits = self.files_by_suffix.get(key) or self.files_by_dir_suffix.get(key)
            if hits:
                if len(hits) > 1:  # prefer the candidate closest to the importer
                    hits = sorted(hits, key=lambda f: -len(posixpath.commonpath([self.file_paths[f], importer_path])))
                    best = posixpath.commonpath([self.file_paths[hits[0]], importer_path])
                    hits = [f for f in hits if posixpath.commonpath([self.file_paths[f], importer_path]) == best]
                return list(dict.fromkeys(hits))
        return []

    def _bindings(self, file_id: int) -> dict[str, tuple[list[int], str]]:
        """Local name -> (files the import points at, imported member name or "" for a module binding)."""
        cached = self._binding_cache.get(file_id)
        if cached is not None:
            return cached
        out: dict[str, tuple[list[int], str]] = {}
        for module, name, alias in self.imports.get(file_id, []):
            files = self._files_for_module(module, file_id)
            if name and name != "*":
                sub = self._files_for_module(_submodule(module, name), file_id) if "/" not in module else []
                local = alias or name
                # `from pkg import mod` binds a module when pkg/mod exists, otherwise a member of pkg.
                out[local] = (sub, "") if sub else (files, name)
            else:
                local = alias or module.replace("::", ".").replace("/", ".").rstrip(".").split(".")[-1]
                out[local] = (files, "")
        self._binding_cache[file_id] = out
        return out

    def resolve_import(self, file_id: int, module: str, name: str) -> tuple[int | None, str]:
        """Target of an import statement: the imported symbol, else the module node of the imported file."""
        files = self._files_for_module(module, file_id)
        if name and name != "*":
            sub = self._files_for_module(_submodule(module, name), file_id)
            if len(sub) == 1 and sub[0] in self.module_of_file:
                return self.module_of_file[sub[0]].id, "import"
            hits = [s for f in files for s in self.by_file_name.get((f, name), [])]
            if len(hits) == 1:
                return hits[0].id, "import"
        if len(files) == 1 and files[0] in self.module_of_file:
            return self.module_of_file[files[0]].id, "import"
        return None, "ambiguous" if len(files) > 1 else "unresolved"

    # -- references --------------------------------------------------------------------------------------------
    def resolve(self, source_id: int, file_id: int, kind: str, name: str, qualifier: str) -> tuple[int | None, str]:
        """Bind one reference; returns (target id or None, resolution method)."""
        allowed = TARGET_KINDS.get(kind, _CALLABLE)
        source = self.by_id.get(source_id)
        head = qualifier.split(".")[0] if qualifier else ""

        # 1. self/this calls: a member of the enclosing class-like definition.
        if head in _SELF_QUALIFIERS and source is not None:
            owner = self._enclosing_type(source)
            if owner is not None:
                members = [s for s in self.by_file_name.get((file_id, name), []) if s.parent_id == owner.id]
                if len(members) == 1:
                    return members[0].id, "same_file"

        # 2. import binding: the name itself, or the qualifier's head, was imported.
        bindings = self._bindings(file_id)
        bound = bindings.get(name) if not qualifier else bindings.get(head)
        if bound is not None:
            files, member = bound
            wanted = name if qualifier or not member else member
            hits = [s for f in files for s in self.by_file_name.get((f, wanted), []) if s.kind in allowed]
            if not hits and member == "default":
                # `import makeWidget from './widget'`: the default export is not named as such in the symbol
                # table, but by convention it carries the local name.
                hits = [s for f in files for s in self.by_file_name.get((f, name), []) if s.kind in allowed]
            if len(hits) == 1:
                return hits[0].id, "import"
            if len(hits) > 1:
                top = [s for s in hits if s.parent_id is None or self._is_module(s.parent_id)]
                if len(top) == 1:
                    return top[0].id, "import"

        # 3. same file (unqualified or self-qualified names).
        if not qualifier or head in _SELF_QUALIFIERS:
            local = [s for s in self.by_file_name.get((file_id, name), []) if s.kind in allowed and s.id != source_id]
            if len(local) == 1:
                return local[0].id, "same_file"
            if len(local) > 1:
                top = [s for s in local if s.parent_id is None or self._is_module(s.parent_id)]
                if len(top) == 1:
                    return top[0].id, "same_file"

        candidates = [s for s in self.by_name.get(name, []) if s.kind in allowed and s.id != source_id]
        if qualifier and head not in _SELF_QUALIFIERS:
            # `Foo.bar()` or `Foo::bar`: prefer members of a type whose name is the qualifier's last part.
            owner_name = qualifier.split(".")[-1].split("::")[-1]
            owned = [s for s in candidates if s.parent_id is not None and self._name_of(s.parent_id) == owner_name]
            if len(owned) == 1:
                return owned[0].id, "qualified_name"
        # 4. same directory.
        directory = self.dir_of_file.get(file_id)
        same_dir = [s for s in candidates if self.dir_of_file.get(s.file_id) == directory]
        if len(same_dir) == 1:
            return same_dir[0].id, "same_directory"
        # 5. unique global name.
        if len(candidates) == 1:
            return candidates[0].id, "unique_global"
        return None, "ambiguous" if candidates else "unresolved"

    def _enclosing_type(self, sym: Sym) -> Sym | None:
        cur: Sym | None = sym
        while cur is not None:
            if cur.kind in _TYPE_LIKE:
                return cur
            cur = self.by_id.get(cur.parent_id) if cur.parent_id is not None else None
        return None

    def _is_module(self, node_id: int) -> bool:
        sym = self.by_id.get(node_id)
        return sym is not None and sym.kind == "module"

    def _name_of(self, node_id: int) -> str:
        sym = self.by_id.get(node_id)
        return sym.name if sym is not None else ""
