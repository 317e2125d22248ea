"""Go module paths from go.mod: which folder an import names, and binding through a module's root package."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import index_repo, make_plain_repo

from igraph_mcp.index.go_modules import import_names, module_path, package_folder, read_go_modules
from igraph_mcp.index.manifests import dumps, loads


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("module github.com/yuin/goldmark\n\ngo 1.19\n", "github.com/yuin/goldmark"),
        ("// a comment\nmodule   example.com/app/v2 // trailing\n", "example.com/app/v2"),
        ('module "example.com/quoted"\n', "example.com/quoted"),
        ("module localapp\n", "localapp"),
        ("go 1.21\nrequire example.com/x v1.0.0\n", None),
    ],
)
def test_module_path(text: str, path: str | None) -> None:
    assert module_path(text) == path


@pytest.mark.parametrize(
    ("imported", "names"),
    [
        ("github.com/yuin/goldmark/parser", ["parser"]),
        ("example.com/mod/v2", ["mod"]),
        ("gopkg.in/yaml.v3", ["yaml"]),
        ("github.com/go-git/go-git/v5", ["git"]),
        ("github.com/mattn/go-isatty", ["isatty"]),
        ('"fmt"', ["fmt"]),
        ("example.com/some-thing", []),
    ],
)
def test_import_names(imported: str, names: list[str]) -> None:
    assert import_names(imported) == names


def test_package_folder_takes_the_longest_module_and_leaves_libraries_alone() -> None:
    modules = {"": "github.com/yuin/goldmark", "tools": "github.com/yuin/goldmark/tools"}
    assert package_folder(modules, "github.com/yuin/goldmark") == ""
    assert package_folder(modules, "github.com/yuin/goldmark/parser") == "parser"
    assert package_folder(modules, "github.com/yuin/goldmark/tools") == "tools"
    assert package_folder(modules, "github.com/yuin/goldmark/tools/gen") == "tools/gen"
    assert package_folder(modules, "github.com/yuin/goldmark-emoji") is None  # another module
    assert package_folder(modules, "golang.org/x/text") is None


def test_read_go_modules_finds_the_root_and_nested_modules(tmp_path: Path) -> None:
    (tmp_path / "sub" / "pkg").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "go.mod").write_text("module example.com/root\n")
    (tmp_path / "sub" / "go.mod").write_text("module example.com/sub\n")
    (tmp_path / "docs" / "go.mod").write_text("module example.com/docs\n")  # no Go file at or below it
    found = read_go_modules(tmp_path, ["main.go", "sub/pkg/a.go"])
    assert found == {"": "example.com/root", "sub": "example.com/sub"}
    assert loads(dumps(found)) == found
    assert loads(None) == {} and loads("not json") == {} and loads("[1]") == {}


ROOT_PACKAGE = {
    "go.mod": "module example.com/mod/v2\n\ngo 1.21\n",
    "mod.go": (
        "package mod\n\n"
        "type Client struct{}\n\n"
        "func (c *Client) Send() int { return 1 }\n\n"
        "func Dial() *Client { return &Client{} }\n"
    ),
    "cmd/tool/main.go": 'package main\n\nimport "example.com/mod/v2"\n\nfunc main() { mod.Dial().Send() }\n',
    # A decoy Send and Dial elsewhere: without the module's path, no guess picks mod.go's.
    "other/other.go": (
        "package other\n\n"
        "type Pipe struct{}\n\n"
        "func (p *Pipe) Send() int { return 2 }\n\n"
        "func Dial() *Pipe { return &Pipe{} }\n"
    ),
}


def test_a_module_root_package_is_imported_by_its_go_mod_path(tmp_path: Path) -> None:
    svc = index_repo(make_plain_repo(tmp_path, ROOT_PACKAGE))
    try:
        rows = svc.db.rows(
            "SELECT e.target_name, t.qualified_name, f.path, e.resolution FROM edges e "
            "JOIN nodes s ON s.id = e.source_id LEFT JOIN nodes t ON t.id = e.target_id "
            "LEFT JOIN files f ON f.id = t.file_id WHERE s.qualified_name = 'main' AND e.kind = 'calls' "
            "ORDER BY e.target_name"
        )
        assert [tuple(r) for r in rows] == [
            ("Dial", "Dial", "mod.go", "import"),
            ("Send", "Client.Send", "mod.go", "inferred"),
        ]
    finally:
        svc.close()
