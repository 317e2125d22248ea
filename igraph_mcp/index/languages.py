"""The per-language table: grammar, file names, query files and the few rules a query cannot express."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

# Definition kinds inside which a function counts as a method.
CLASS_LIKE = frozenset({"class", "struct", "interface", "trait", "enum"})


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """One row of the language table; parse.py reads only these fields, never the language name.

    docstring: "python_string" (first string statement of the body), "preceding_comment"
    (comment lines directly above the definition) or "none".
    export_rule: "always", "python_underscore", "go_capitalized", "js_export_keyword_or_toplevel",
    "modifier_not_private" (no word of private_modifiers before the name), "modifier_public"
    (a word of public_modifiers, or a top-level/interface member), "modifier_required"
    (a word of public_modifiers is needed).
    module_style tells the resolver how a file path maps to an importable module:
    "python_dotted", "js_path", "go_package_dir", "java_package", "namespace", "path".
    """

    name: str
    grammar: str  # name in tree-sitter-language-pack
    extensions: tuple[str, ...]
    queries: tuple[str, ...]  # files in index/queries/, concatenated in this order
    docstring: str = "preceding_comment"
    export_rule: str = "always"
    module_style: str = "path"
    filenames: tuple[str, ...] = ()
    class_kinds: frozenset[str] = CLASS_LIKE
    public_modifiers: frozenset[str] = frozenset()
    private_modifiers: frozenset[str] = frozenset({"private"})
    # Node types allowed between a doc comment and its definition (attributes, annotations).
    doc_skip_types: frozenset[str] = frozenset()
    # Enclosing definition kinds that prefix a receiver-qualified name: C++
    # `namespace geo { void Shape::draw() {} }` -> "geo.Shape.draw" (a receiver is relative to them).
    receiver_scope_kinds: frozenset[str] = frozenset()


_ROWS = (
    LanguageSpec(
        name="python",
        grammar="python",
        extensions=(".py", ".pyi", ".pyw"),
        queries=("python.scm",),
        docstring="python_string",
        export_rule="python_underscore",
        module_style="python_dotted",
    ),
    # javascript.scm holds the ECMAScript patterns shared with TypeScript; tsx.scm holds the JSX ones.
    LanguageSpec(
        name="javascript",
        grammar="javascript",
        extensions=(".js", ".mjs", ".cjs", ".jsx"),
        queries=("javascript.scm", "tsx.scm"),
        export_rule="js_export_keyword_or_toplevel",
        module_style="js_path",
    ),
    LanguageSpec(
        name="typescript",
        grammar="typescript",
        extensions=(".ts", ".mts", ".cts"),
        queries=("javascript.scm", "typescript.scm"),
        export_rule="js_export_keyword_or_toplevel",
        module_style="js_path",
    ),
    LanguageSpec(
        name="tsx",
        grammar="tsx",
        extensions=(".tsx",),
        queries=("javascript.scm", "typescript.scm", "tsx.scm"),
        export_rule="js_export_keyword_or_toplevel",
        module_style="js_path",
    ),
    LanguageSpec(
        name="go",
        grammar="go",
        extensions=(".go",),
        queries=("go.scm",),
        export_rule="go_capitalized",
        module_style="go_package_dir",
    ),
    LanguageSpec(
        name="java",
        grammar="java",
        extensions=(".java",),
        queries=("java.scm",),
        export_rule="modifier_not_private",
        module_style="java_package",
    ),
    LanguageSpec(
        name="csharp",
        grammar="csharp",
        extensions=(".cs",),
        queries=("csharp.scm",),
        export_rule="modifier_public",
        module_style="namespace",
        public_modifiers=frozenset({"public", "protected", "internal"}),
    ),
    # Rows below are owned by the second parser engineer's query files.
    LanguageSpec(
        name="rust",
        grammar="rust",
        extensions=(".rs",),
        queries=("rust.scm",),
        export_rule="modifier_required",
        module_style="path",
        public_modifiers=frozenset({"pub"}),
        doc_skip_types=frozenset({"attribute_item"}),
    ),
    LanguageSpec(
        name="c",
        grammar="c",
        extensions=(".c", ".h"),
        queries=("c.scm",),
        export_rule="modifier_not_private",
        private_modifiers=frozenset({"static"}),
    ),
    LanguageSpec(
        name="cpp",
        grammar="cpp",
        extensions=(".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tpp"),
        queries=("cpp.scm",),
        export_rule="modifier_not_private",
        # Not "static": inside a class it marks a public member (`static Foo create();`), and
        # file-local C++ helpers live in anonymous namespaces more often than behind `static`.
        private_modifiers=frozenset(),
        receiver_scope_kinds=frozenset({"namespace"}),
    ),
    LanguageSpec(
        name="ruby",
        grammar="ruby",
        extensions=(".rb", ".rake", ".gemspec"),
        filenames=("Rakefile", "Gemfile", "Guardfile", "Vagrantfile"),
        queries=("ruby.scm",),
        # A `def` inside a module is a (mixin) method, not a free function.
        class_kinds=CLASS_LIKE | {"namespace"},
    ),
    LanguageSpec(
        name="php",
        grammar="php",
        extensions=(".php",),
        queries=("php.scm",),
        export_rule="modifier_not_private",
        module_style="namespace",
    ),
    LanguageSpec(
        name="kotlin",
        grammar="kotlin",
        extensions=(".kt", ".kts"),
        queries=("kotlin.scm",),
        export_rule="modifier_not_private",
        module_style="java_package",
        doc_skip_types=frozenset({"annotation"}),
    ),
)

LANGUAGES: dict[str, LanguageSpec] = {row.name: row for row in _ROWS}

_BY_EXTENSION: dict[str, str] = {ext: row.name for row in _ROWS for ext in row.extensions}
_BY_FILENAME: dict[str, str] = {fname: row.name for row in _ROWS for fname in row.filenames}


def language_for_path(path: str) -> str | None:
    """Return the language name for a file path, or None when no grammar handles it."""
    pure = PurePosixPath(path.replace("\\", "/"))
    by_name = _BY_FILENAME.get(pure.name)
    if by_name is not None:
        return by_name
    return _BY_EXTENSION.get(pure.suffix.lower())


def get_spec(language: str) -> LanguageSpec:
    """Return the table row for a language name; ValueError names the known languages."""
    spec = LANGUAGES.get(language)
    if spec is None:
        known = ", ".join(sorted(LANGUAGES))
        raise ValueError(f"unknown language {language!r}; expected one of: {known}")
    return spec
