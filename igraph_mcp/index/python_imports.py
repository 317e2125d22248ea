"""Python's imports as scope inference reads them: the names each import statement binds in its file, the file's
star imports, and the files a module string names (an absolute name starts at a source root, never in a package)."""

from __future__ import annotations

import posixpath

from igraph_mcp.index.symbols import SymbolTable

ImportEntry = tuple[str, str, str]  # module, member, alias, as the table holds an import


class PythonImports:
    """A file's import bindings and the files a module string names, remembered for one resolve run."""

    def __init__(self, table: SymbolTable) -> None:
        self.t = table
        # Per-run memos: every lookup of a name used to scan the file's imports, and every module string was
        # matched against the file table again (sympy 1.1.1: ~70k lookups over ~1,100 files).
        self._bindings: dict[int, tuple[dict[str, ImportEntry], list[str]]] = {}
        self._module_files: dict[tuple[str, int], list[int]] = {}
        self._packages = {posixpath.dirname(p) for p in table.file_paths.values() if p.endswith("/__init__.py")}
        self._packages |= {"" for p in table.file_paths.values() if p == "__init__.py"}

    def bindings(self, file_id: int) -> tuple[dict[str, ImportEntry], list[str]]:
        """A file's imports as local name -> the first import binding it, and its star-imported modules."""
        got = self._bindings.get(file_id)
        if got is None:
            named: dict[str, ImportEntry] = {}
            stars: list[str] = []
            for module, member, alias in self.t.imports.get(file_id, []):
                if member == "*":
                    stars.append(module)
                elif member or alias:
                    named.setdefault(alias or member, (module, member, alias))
                elif not module.startswith("."):
                    named.setdefault(module.split(".")[0], (module, member, alias))
            got = self._bindings[file_id] = (named, stars)
        return got

    def module_files(self, module: str, importer: int) -> list[int]:
        """Files a Python module string names; an absolute name must start at a source root, not in a package."""
        key = (module, importer)
        got = self._module_files.get(key)
        if got is None:
            got = self._module_files[key] = self._find_module_files(module, importer)
        return got

    def _find_module_files(self, module: str, importer: int) -> list[int]:
        files = self.t.files_for_module(module, importer)
        if module.startswith("."):
            return files
        top_depth = module.count(".") + 1
        keep = []
        for f in files:
            path = self.t.file_paths.get(f, "")
            parts = path.split("/")
            depth = top_depth + (1 if parts[-1] in ("__init__.py", "__init__.pyi") else 0)
            root = "/".join(parts[: max(0, len(parts) - depth)])
            if root not in self._packages:  # `json` inside package flask is flask.json, not json
                keep.append(f)
        return keep
