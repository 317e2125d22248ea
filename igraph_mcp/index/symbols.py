"""The symbol table the resolver and scope inference both read: definitions by id, name, file and parent, what
each scope states about its names, and which files an import's module string names."""

from __future__ import annotations

import functools
import itertools
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Generic, Protocol, TypeVar, overload

from igraph_mcp.index.go_modules import package_folder
from igraph_mcp.index.rust_crates import module_folder
from igraph_mcp.store.records import BaseRef, ImportRef, ScopeFact, SymbolKey
from igraph_mcp.vocab.languages import CLASS_LIKE, LanguageSpec, language_for_path, source_extension, spec_for_path

# A definition as the resolver sees it: the store's record, so the symbol table needs no copying.
Sym = SymbolKey

# A Go file of this suffix is a test of its package: it sees the package's other files, they do not see it.
GO_TEST_SUFFIX = "_test.go"
# An importer in a language the table does not know: any usual separator may split the module name.
_ANY_SEPARATORS = ("::", "\\", ".")


@functools.lru_cache(maxsize=65536)
def module_key(path: str) -> str:
    """``pkg/sub/mod.py`` -> ``pkg/sub/mod``; ``pkg/__init__.py`` -> ``pkg``."""
    # Remembered: finding a path's source extension tries every known one, ~60k import strings per resolve.
    ext = source_extension(path)
    stem = path[: -len(ext)] if ext else path
    head, _, last = stem.rpartition("/")
    spec = spec_for_path(path) if ext else None
    if head and spec is not None and last in spec.index_stems:
        return head
    return stem


@functools.lru_cache(maxsize=65536)
def _spec_of(path: str) -> LanguageSpec | None:
    """spec_for_path, remembered: an importer asks once per import statement (~60k at 113k symbols)."""
    return spec_for_path(path)


def module_candidates(module: str, importer_path: str) -> list[str]:
    """Path-like keys an import's module string may name, most specific first (relative imports resolved)."""
    module = module.strip().strip("'\"<>")
    if not module:
        return []
    importer_dir = posixpath.dirname(importer_path)
    if module.startswith("./") or module.startswith("../"):
        joined = posixpath.normpath(posixpath.join(importer_dir, module))
        head, _, last = joined.rpartition("/")
        spec = _spec_of(importer_path)
        if spec is not None and last in spec.index_stems and not source_extension(joined):
            return [module_key(joined), joined, head]  # `from "./index"`: the folder's index file, keyed by the folder
        return [module_key(joined), joined]
    if module.startswith("."):  # Python relative import: one dot = this package, each extra dot one level up
        dots = len(module) - len(module.lstrip("."))
        base = importer_dir
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        rest = module[dots:].replace(".", "/")
        return [posixpath.normpath(posixpath.join(base, rest)) if rest else base]
    importer = _spec_of(importer_path)
    for sep in importer.module_separators if importer is not None else _ANY_SEPARATORS:
        module = module.replace(sep, "/")
    module = module.lstrip("/")
    for prefix in ("crate/", "self/"):
        if module.startswith(prefix):
            module = module[len(prefix) :]
    return [module_key(module), module]


# Everything module_candidates may treat as a separator (languages' module separators, quotes, brackets, spaces).
_PIECE_BREAKS = re.compile(r"[/\\:.'\"<>\s]")


def _pieces(text: str) -> set[str]:
    """The pieces of a module string or path between separators."""
    return set(_PIECE_BREAKS.split(text))


def _relative(module: str) -> bool:
    """Whether module_candidates resolves ``module`` against the importer's folder."""
    return module.strip().strip("'\"<>").startswith(".")


def submodule(module: str, name: str) -> str:
    """``pkg`` + ``mod`` -> ``pkg.mod``; a bare relative package ``.``/``..`` + ``mod`` -> ``.mod``/``..mod``."""
    return module + name if module.endswith(".") else f"{module}.{name}"


K = TypeVar("K")
K_contra = TypeVar("K_contra", contravariant=True)
V = TypeVar("V")

FactsByName = dict[str, list[tuple[str, str]]]  # name -> [(kind, text)]


class Lookup(Protocol[K_contra, V]):
    """What the resolver asks of a per-id table: ``get(key, default)``."""

    def get(self, key: K_contra, default: V, /) -> V:
        """The value for ``key``, else ``default``."""
        ...


class Table(Protocol[K_contra, V]):
    """What the resolver asks of a symbol table's index: ``get(key)`` or ``get(key, default)`` (a dict, or one
    filled on demand)."""

    @overload
    def get(self, key: K_contra, /) -> V | None: ...
    @overload
    def get(self, key: K_contra, default: V, /) -> V: ...


class OnDemand(Generic[K, V]):
    """A per-id table read one key at a time, each key once: an incremental run asks about a few hundred scopes,
    not the whole repository's. A key with no rows reads as an empty value, which equals the eager table's default."""

    def __init__(self, load: Callable[[K], V]) -> None:
        self._load = load
        self._seen: dict[K, V] = {}

    def get(self, key: K, default: V, /) -> V:
        """The loaded value for ``key`` (empty when it has no rows; ``default`` is not needed)."""
        try:
            return self._seen[key]
        except KeyError:
            value = self._seen[key] = self._load(key)
            return value


def facts_by_name(rows: list[ScopeFact]) -> FactsByName:
    """A scope's facts [(name, kind, text)] in source order, grouped by name (order kept)."""
    by_name: FactsByName = {}
    for name, kind, text in rows:
        by_name.setdefault(name, []).append((kind, text))
    return by_name


class _DirOf:
    """file id -> its folder, worked out when first asked (most runs ask about a few files; binding every edge of
    a large tree asks 750k times)."""

    __slots__ = ("_dirs", "_paths")

    def __init__(self, file_paths: dict[int, str]) -> None:
        self._paths = file_paths
        self._dirs: dict[int, str | None] = {}

    def get(self, file_id: int) -> str | None:
        """The folder of a file, or None for an unknown id."""
        try:
            return self._dirs[file_id]
        except KeyError:
            path = self._paths.get(file_id)
            folder = self._dirs[file_id] = posixpath.dirname(path) if path is not None else None
            return folder


@functools.lru_cache(maxsize=2)
def _suffix_index(paths: tuple[str, ...]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(key suffix -> paths, folder suffix -> paths) of sorted ``paths``; remembered, since consecutive runs of a
    long-lived indexer (a server, a watch) mostly see the same paths (18k files: 0.5 s to build)."""
    by_suffix: dict[str, list[str]] = defaultdict(list)
    by_dir_suffix: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        parts = module_key(path).split("/")
        for i in range(len(parts)):
            by_suffix["/".join(parts[i:])].append(path)
        dparts = posixpath.dirname(path).split("/")
        for i in range(len(dparts)):
            by_dir_suffix["/".join(dparts[i:])].append(path)
        full = path.split("/")  # exact file names with extension, for C includes and JS paths with extensions
        for i in range(len(full)):
            by_suffix["/".join(full[i:])].append(path)
    return dict(by_suffix), dict(by_dir_suffix)


class SymbolReader(Protocol):
    """Where a lazily filled SymbolTable reads definitions: by file, by name and by id, through indexed queries."""

    def file_symbols(self, file_id: int) -> list[Sym]:
        """Every definition of one file (its module node included), in id order."""
        ...

    def symbols_named(self, name: str) -> list[Sym]:
        """Every non-module definition called ``name``, ordered by file path, then id."""
        ...

    def file_of_node(self, node_id: int) -> int | None:
        """The file a node belongs to, or None when there is no such node."""
        ...


class ImportRows(Protocol):
    """Where importers_closure reads imports when the table holds them on demand: by word, or all of them."""

    def mentioning(self, words: list[str]) -> dict[int, list[ImportRef]]:
        """file id -> [(module, name, alias)] of imports whose module, name or (relative) importer path contains one
        of ``words``, case kept (more may come; none that does may be missing)."""
        ...

    def every(self) -> dict[int, list[ImportRef]]:
        """file id -> [(module, name, alias)] of every import."""
        ...


class _Filled(Generic[K, V]):
    """A dict whose keys are made present (``fill(key)``) before they are read: a table filled on demand."""

    __slots__ = ("_data", "_fill")

    def __init__(self, data: dict[K, V], fill: Callable[[K], None]) -> None:
        self._data = data
        self._fill = fill

    @overload
    def get(self, key: K, /) -> V | None: ...
    @overload
    def get(self, key: K, default: V, /) -> V: ...
    def get(self, key: K, default: V | None = None, /) -> V | None:
        """The value for ``key`` once it is filled, else ``default``."""
        self._fill(key)
        return self._data.get(key, default)


# Where a C++ member defined outside its class sits: a namespace, or the file's top level.
_OUTSIDE_CLASS = frozenset({"namespace", "module"})
# Languages whose methods may be written outside their type, owned by their qualified name's qualifier.
_OWNED_BY_QUALIFIER = frozenset({"cpp", "rust"})
_RUST_OWNERS = CLASS_LIKE | {"type"}
# Members written outside their type: a C++ or Rust method; a Rust impl's associated type (`type Item = State`).
_OWNED_KINDS = frozenset({"method", "type"})


class SymbolTable:
    """In-memory tables over the index's definitions, files, imports, facts and bases, built once per resolve.

    Given every definition (a list), the tables are built at once; given a SymbolReader, a file's definitions are
    read the first time a question needs that file, and a name's definitions the first time it is asked (an
    incremental run at 1M symbols asks about a few hundred files, not all of them). Definitions of one name are
    kept in file path order, then id order, which is a fresh build's id order: cutting candidates at
    MAX_CANDIDATES picks the same ones after an incremental update as after a rebuild.
    """

    def __init__(
        self,
        symbols: list[Sym] | SymbolReader,
        file_paths: dict[int, str],
        imports: dict[int, list[ImportRef]] | Lookup[int, list[ImportRef]],
        *,
        languages: dict[int, str] | None = None,
        facts: dict[int, list[ScopeFact]] | Lookup[int, FactsByName] | None = None,
        bases: dict[int, list[BaseRef]] | Lookup[int, list[BaseRef]] | None = None,
        import_rows: ImportRows | None = None,
        go_modules: Mapping[str, str] | None = None,
        rust_crates: Mapping[str, str] | None = None,
    ) -> None:
        """``imports``, ``facts`` and ``bases`` are either every row (a dict) or a Lookup that reads them on demand;
        with imports on demand, importers_closure asks ``import_rows``. ``go_modules``: folder -> the module path
        its go.mod declares (index/go_modules.py); ``rust_crates``: crate name -> its library's root folder
        (index/rust_crates.py)."""
        self.file_paths = file_paths
        self.go_modules = go_modules or {}
        self.rust_crates = rust_crates or {}
        self._rust_words: set[str] | None = None
        self.imports = imports  # file id -> [(module, imported name, alias)]
        self._import_rows = import_rows
        self._all_imports: list[tuple[int, str, str, set[str]]] | None = None
        self.languages = languages or {}
        # scope node id -> name -> [(kind, text)]: what each scope states about its names (see model.Fact).
        self.facts: Lookup[int, FactsByName] = {}
        self.bases: Lookup[int, list[BaseRef]] = {}  # class id -> [(base name, qualifier)]
        self._owners: dict[int, Sym | None] = {}  # a C++ member defined outside its class -> that class
        self.set_facts(facts, bases)
        by_id: dict[int, Sym] = {}
        by_name: dict[str, list[Sym]] = {}
        by_file_name: dict[tuple[int, str], list[Sym]] = {}
        children: dict[tuple[int, str], list[Sym]] = {}
        members: dict[int, list[Sym]] = {}  # class id -> its methods
        module_of_file: dict[int, Sym] = {}
        self.by_id: Table[int, Sym] = by_id
        self.by_name: Table[str, list[Sym]] = by_name
        self.by_file_name: Table[tuple[int, str], list[Sym]] = by_file_name
        self.children: Table[tuple[int, str], list[Sym]] = children
        self.members: Table[int, list[Sym]] = members
        self.module_of_file: Table[int, Sym] = module_of_file
        loaded: set[int] = set()

        def add(syms: list[Sym], *, named: bool) -> None:
            for s in syms:
                by_id[s.id] = s
                if s.kind == "module":
                    module_of_file[s.file_id] = s
                    continue
                if named:
                    by_name.setdefault(s.name, []).append(s)
                by_file_name.setdefault((s.file_id, s.name), []).append(s)
                if s.parent_id is not None:
                    children.setdefault((s.parent_id, s.name), []).append(s)
                    if s.kind == "method":
                        members.setdefault(s.parent_id, []).append(s)

        if isinstance(symbols, list):
            add(self._in_path_order(symbols), named=True)
        else:
            reader = symbols
            absent: set[int] = set()

            def load_file(file_id: int) -> None:
                if file_id not in loaded:
                    loaded.add(file_id)
                    add(reader.file_symbols(file_id), named=False)

            def load_node(node_id: int) -> None:
                if node_id not in by_id and node_id not in absent:
                    file_id = reader.file_of_node(node_id)
                    if file_id is None:
                        absent.add(node_id)
                    else:
                        load_file(file_id)

            def load_name(name: str) -> None:
                if name not in by_name:
                    by_name[name] = reader.symbols_named(name)

            self.by_id = _Filled[int, Sym](by_id, load_node)
            self.by_name = _Filled[str, list[Sym]](by_name, load_name)
            self.by_file_name = _Filled[tuple[int, str], list[Sym]](by_file_name, lambda key: load_file(key[0]))
            self.children = _Filled[tuple[int, str], list[Sym]](children, lambda key: load_node(key[0]))
            self.members = _Filled[int, list[Sym]](members, load_node)
            self.module_of_file = _Filled[int, Sym](module_of_file, load_file)
        self.dir_of_file = _DirOf(file_paths)
        # Module key suffixes -> paths, so "requests.sessions" finds "src/requests/sessions.py"; in path order, so
        # the files of an ambiguous import come in the same order whatever ids an incremental run gave them.
        self._files_by_suffix, self._files_by_dir_suffix = _suffix_index(tuple(sorted(file_paths.values())))
        self._id_of_path = {path: fid for fid, path in file_paths.items()}
        # (module string, importer file) -> files: a large repository asks the same question ~100k times.
        self._module_files: dict[tuple[str, str, str], tuple[list[int], frozenset[int]]] = {}
        self._files_in_dir: defaultdict[str, list[int]] | None = None  # folder -> files, for Go module paths

    def _in_path_order(self, symbols: list[Sym]) -> list[Sym]:
        """``symbols`` ordered by their file's path, then id (a fresh build's order already: then left as it is)."""
        rank = {fid: i for i, (fid, _path) in enumerate(sorted(self.file_paths.items(), key=lambda item: item[1]))}
        keys = [(rank.get(s.file_id, -1), s.id) for s in symbols]
        if all(a <= b for a, b in itertools.pairwise(keys)):
            return symbols
        return [s for _key, s in sorted(zip(keys, symbols, strict=True), key=lambda pair: pair[0])]

    def files_for_module(self, module: str, importer: int) -> list[int]:
        """Files an import's module string may name, the ones closest to the importer first."""
        # The answer depends on the importer's folder and language, not the file (a Java package's 300 files each
        # importing the same 40 modules asked 12,000 times instead of 40), unless the importer is among the
        # files found: then it is the closest, and that answer is its own.
        path = self.file_paths.get(importer, "")
        spec = _spec_of(path)
        if spec is not None and spec.name == "rust":
            # `self::`, `super::`, `crate::` and a crate's name name exact folders, the same for every file of a
            # module; `a.b` is how a listed item joins its path (`use a::{b}`)
            module = self._rust_folder(path, module) or module.replace(".", "::")
        key = (module, posixpath.dirname(path), spec.name if spec is not None else "")
        cached = self._module_files.get(key)
        if cached is None:
            cached = self._module_files[key] = self._find_module_files(module, path)
        closest, found = cached
        if importer in found:
            # Measured from the importer itself, no file is closer than it (a Java file's own package: each of
            # java.base's files measured its distance to the package's hundreds, once per file).
            return [importer]
        return list(closest)

    def _find_module_files(self, module: str, importer_path: str) -> tuple[list[int], frozenset[int]]:
        """(the files closest to the importer's folder, every file the module string names)."""
        near = posixpath.join(posixpath.dirname(importer_path), "\0")
        for key in module_candidates(module, importer_path):
            found = self._files_by_suffix.get(key) or self._files_by_dir_suffix.get(key)
            hits = [self._id_of_path[path] for path in found] if found else []
            if hits:
                every = frozenset(hits)
                if len(hits) > 1:  # prefer the candidate closest to the importer
                    common = {f: posixpath.commonpath([self.file_paths[f], near]) for f in hits}
                    hits = sorted(hits, key=lambda f: -len(common[f]))
                    best = common[hits[0]]
                    hits = [f for f in hits if common[f] == best]
                return list(dict.fromkeys(hits)), every
        return self._go_module_files(module, importer_path), frozenset()

    def _go_module_files(self, module: str, importer_path: str) -> list[int]:
        """Go's `github.com/org/repo/pkg/sub`: the package folder under the module root, here the repository's
        root (`pkg/sub`); only exact folders, so a package's path never picks another folder ending the same way."""
        spec = _spec_of(importer_path)
        imported = module.strip().strip('"')
        if spec is None or spec.name != "go":
            return []
        folder = package_folder(self.go_modules, imported) if self.go_modules else None
        if folder is not None:  # a package of a module the tree holds: its folder, exactly
            return list(self._folder_files().get(folder, ()))
        parts = imported.split("/")
        if "." not in parts[0]:
            return []
        for i in range(1, len(parts)):
            found = self._folder_files().get("/".join(parts[i:]))
            if found:
                return list(found)
        return []

    def _folder_files(self) -> defaultdict[str, list[int]]:
        """folder -> its files in path order, worked out when first asked."""
        if self._files_in_dir is None:
            self._files_in_dir = defaultdict(list)
            for fid, path in sorted(self.file_paths.items(), key=lambda item: item[1]):
                self._files_in_dir[posixpath.dirname(path)].append(fid)
        return self._files_in_dir

    def language_of(self, file_id: int) -> str:
        """A file's language: as stored, else by its path ("" when neither tells)."""
        return self.languages.get(file_id) or language_for_path(self.file_paths.get(file_id, "")) or ""

    def package_files(self, file_id: int, *, seen_from: bool = True) -> list[int]:
        """The other files of a Go file's package (its folder's other `.go` files), in path order; [] in other
        languages. ``seen_from``: only those whose top-level names this file sees (a `_test.go` file sees the
        package's files, the others not the test files); else every file of the package."""
        path = self.file_paths.get(file_id, "")
        spec = _spec_of(path)
        if spec is None or spec.name != "go":
            return []
        test = path.endswith(GO_TEST_SUFFIX)
        out = []
        for other in self._folder_files().get(posixpath.dirname(path), ()):
            other_path = self.file_paths[other]
            if other == file_id or _spec_of(other_path) is not spec:
                continue
            if seen_from and not test and other_path.endswith(GO_TEST_SUFFIX):
                continue
            out.append(other)
        return out

    def set_facts(
        self,
        facts: dict[int, list[ScopeFact]] | Lookup[int, FactsByName] | None,
        bases: dict[int, list[BaseRef]] | Lookup[int, list[BaseRef]] | None,
    ) -> None:
        """Use these facts and bases: every row (dicts) or Lookups that read them on demand."""
        if isinstance(facts, dict) or facts is None:
            self.facts = {nid: facts_by_name(rows) for nid, rows in (facts or {}).items()}
        else:
            self.facts = facts
        self.bases = bases or {}

    def importers_closure(self, file_ids: list[int]) -> set[int]:
        """``file_ids`` and every file whose imports name one of them, directly or through other such files. The
        files of a Go package see each other's top-level names without an import: each is the others' importer."""
        seen = set(file_ids)
        frontier = set(file_ids)
        while frontier:
            siblings = {o for f in frontier for o in self.package_files(f, seen_from=False)} - seen
            seen |= siblings
            frontier |= siblings
            tails = [_pieces(t) for f in frontier for t in self._tails(f)]
            # A top-level file's directory key is "", which any import may name; and past a few dozen files the
            # test costs more than asking (files_for_module remembers its answers).
            every = len(tails) > 96 or any(t == {""} for t in tails)
            found: set[int] = set()
            for importer, module, name, pieces in self._imports_naming(None if every else tails):
                if importer in seen or importer in found:
                    continue
                # Cheap and necessary: a key that names the file ends in one of its tails, and every key of an
                # import is made of the import's pieces (see _import_pieces).
                if not every and not any(t <= pieces for t in tails):
                    continue
                targets = self.files_for_module(module, importer)
                if name and name != "*":  # `from pkg import mod` may name the file pkg/mod
                    targets += self.files_for_module(submodule(module, name), importer)
                if not frontier.isdisjoint(targets):
                    found.add(importer)
            seen |= found
            frontier = found
        return seen

    def _imports_naming(self, tails: list[set[str]] | None) -> list[tuple[int, str, str, set[str]]]:
        """(importer, module, name, pieces) of every import that may name a file with one of ``tails`` (None:
        every import): all of them from a table given every import, else those the ImportRows find by word."""
        if isinstance(self.imports, dict):
            if self._all_imports is None:
                self._all_imports = self._with_pieces(self.imports)
            return self._all_imports
        if self._import_rows is None:
            raise TypeError("importers_closure reads imports: give the table every import or an ImportRows")
        if tails is None:
            if self._all_imports is None:
                self._all_imports = self._with_pieces(self._import_rows.every())
            return self._all_imports
        # Each tail's longest piece must occur in an import that names the file: asked by word, not all read. A
        # Rust path names its folder by `crate`, `self`, `super` or a crate's name, which no piece of it spells.
        words = {max(t, key=len) for t in tails} | self._rust_heads()
        return self._with_pieces(self._import_rows.mentioning(sorted(words)))

    def _rust_heads(self) -> set[str]:
        """The first words of a Rust path that name a folder of the tree, where the tree has Rust files."""
        if self._rust_words is None:
            rust = any(path.endswith(".rs") for path in self.file_paths.values())
            self._rust_words = {"crate", "self", "super", *self.rust_crates} if rust else set()
        return self._rust_words

    def _with_pieces(self, imports: dict[int, list[ImportRef]]) -> list[tuple[int, str, str, set[str]]]:
        return [
            (importer, module, name, self._import_pieces(importer, module, name))
            for importer, rows in imports.items()
            for module, name, _alias in rows
        ]

    def _import_pieces(self, importer: int, module: str, name: str) -> set[str]:
        """Every piece a key of module_candidates for this import (or its submodule) can contain: the module's and
        the imported name's, and for a relative import also the importer's folders it is joined to."""
        pieces = _pieces(module) | (_pieces(name) if name and name != "*" else set())
        path = self.file_paths.get(importer, "")
        if _relative(module):
            pieces |= _pieces(path)
        elif path.endswith(".rs"):  # `super::x`, `regex_syntax::hir`: the folder the path's first word names
            pieces |= _pieces(self._rust_folder(path, module) or "")
        return pieces

    def _rust_folder(self, importer_path: str, module: str) -> str | None:
        """The folder a Rust module path names from ``importer_path`` (rust_crates.module_folder), else None."""
        return module_folder(importer_path, self.rust_crates, module.replace(".", "::").split("::"))

    def _tails(self, file_id: int) -> tuple[str, ...]:
        """The last segments of every key that names a file: of its module key, its file name and its folder. The
        folder's is left out when a file's key equals the folder (an ``__init__.py``): a lookup by the folder's
        keys then finds that file first and never lists the folder's files."""
        path = self.file_paths.get(file_id, "")
        folder = posixpath.dirname(path)
        named = module_key(path).rsplit("/", 1)[-1], path.rsplit("/", 1)[-1]
        return named if folder in self._files_by_suffix else (*named, folder.rsplit("/", 1)[-1])

    def parent(self, sym: Sym) -> Sym | None:
        """The definition ``sym`` is nested in (None at the top, or when the parent is unknown)."""
        return self.by_id.get(sym.parent_id) if sym.parent_id is not None else None

    def enclosing(self, sym: Sym, kinds: frozenset[str]) -> Sym | None:
        """``sym`` itself or the nearest definition around it whose kind is one of ``kinds``; a C++ member defined
        outside its class (`void App::run() {...}` in a namespace) is inside that class."""
        cur: Sym | None = sym
        while cur is not None:
            if cur.kind in kinds:
                return cur
            cur = self.scope_parent(cur)
        return None

    def scope_parent(self, sym: Sym) -> Sym | None:
        """The definition whose names ``sym``'s body sees next: its parent, but for a C++ member defined outside its
        class or a Rust method of an `impl` block, that type (its fields are in scope there, as in a body written
        inside the class; `self` is one)."""
        parent = self.parent(sym)
        if sym.kind in _OWNED_KINDS and (parent is None or parent.kind in _OUTSIDE_CLASS):
            return self._defined_for(sym) or parent
        return parent

    def _defined_for(self, method: Sym) -> Sym | None:
        """The one class a C++ member defined outside it or a Rust method belongs to (its qualified name's owner:
        `impl Foo { fn f }` is `Foo.f`), kept for the table's life; None in other languages or where no single class
        has that qualified name. Rust types of one name in several files (`dense::DFA`, `sparse::DFA`): the one in
        the method's file, else the only one in its folder (an `impl` lies in the type's module, or one below)."""
        try:
            return self._owners[method.id]
        except KeyError:
            pass
        owner: Sym | None = None
        qualifier, _, _name = method.qualified_name.rpartition(".")
        language = self.language_of(method.file_id) if qualifier else ""
        if language in _OWNED_BY_QUALIFIER and (method.kind == "method" or language == "rust"):
            name = qualifier.rpartition(".")[2]
            kinds = _RUST_OWNERS if language == "rust" else CLASS_LIKE  # `impl OwnedDFA` for an alias of DFA
            found = [s for s in self.by_name.get(name, []) if s.kind in kinds and s.qualified_name == qualifier]
            if len(found) > 1 and language == "rust":
                found = [s for s in found if s.file_id == method.file_id] or [
                    s for s in found if self.dir_of_file.get(s.file_id) == self.dir_of_file.get(method.file_id)
                ]
            owner = found[0] if len(found) == 1 else None
        self._owners[method.id] = owner
        return owner
