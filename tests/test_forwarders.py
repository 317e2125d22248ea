"""Forwarders: a short function whose one call passes its arguments on to a definition of its own name (Go's
package-level wrappers around a default instance, a Python module function around a method) is folded into that
definition in explore answers: one hit, the implementation, naming the wrapper in ``alsoAt``."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import open_service, write_file

from igraph_mcp.render import render_explore
from igraph_mcp.retrieve.params import RetrievalParams
from igraph_mcp.service import IGraphService

pytestmark = pytest.mark.both_stores

CONF = (
    "package conf\n\n"
    "type Conf struct{ values map[string]string }\n\n"
    "var v *Conf\n\n"
    "// Lookup returns the configured value of a key, falling back to the environment.\n"
    "func (c *Conf) Lookup(key string) string {\n"
    "\tif value, ok := c.values[key]; ok {\n\t\treturn value\n\t}\n"
    '\treturn envValue("APP_" + key)\n'
    "}\n\n"
    "// Lookup returns the configured value of a key, falling back to the environment.\n"
    "func Lookup(key string) string { return v.Lookup(key) }\n\n"
    "// Reload reads the configured values of every key again and logs the environment fallback.\n"
    "func Reload(key string) string {\n\tlogValue(key)\n\treturn v.Lookup(key)\n}\n\n"
    "func envValue(name string) string { return name }\n\n"
    "func logValue(name string) {}\n"
)
PY = (
    "class Registry:\n"
    "    def register(self, name, handler):\n"
    '        """Register a handler for a named event; a second handler replaces the first."""\n'
    "        self.handlers[name] = handler\n"
    "        return handler\n\n\n"
    "_default = Registry()\n\n\n"
    "def register(name, handler):\n"
    '    """Register a handler for a named event on the default registry."""\n'
    "    return _default.register(name, handler)\n"
)


@pytest.fixture
def svc(tmp_path: Path) -> IGraphService:  # type: ignore[misc]
    write_file(tmp_path, "go.mod", "module example.com/conf\n\ngo 1.19\n")
    write_file(tmp_path, "conf/conf.go", CONF)
    write_file(tmp_path, "events/registry.py", PY)
    with open_service(tmp_path, index=True) as service:
        yield service


def _places(svc: IGraphService, query: str, name: str, **kw: object) -> list[tuple[str, int, list[str]]]:
    r = svc.explore(query, top_k=10, hops=0, **kw)  # type: ignore[arg-type]
    return [(h.qualifiedName, h.startLine, h.alsoAt) for h in r.hits if h.name == name]


def test_a_go_wrapper_folds_into_the_method_it_calls(svc: IGraphService) -> None:
    # `Lookup` calls through `var v *Conf`; Reload also calls v.Lookup but does more: it stays a hit of its own.
    got = _places(svc, "Lookup returns the configured value of a key", "Lookup")
    assert got == [("Conf.Lookup", 8, ["conf/conf.go:16"])]
    r = svc.explore("Lookup returns the configured value of a key", top_k=10, hops=0)
    assert "same name also at conf/conf.go:16" in render_explore(r)
    assert "Reload" in [h.qualifiedName for h in r.hits]


def test_a_python_module_function_folds_into_the_method(svc: IGraphService) -> None:
    got = _places(svc, "register a handler for a named event", "register")
    assert got == [("Registry.register", 2, ["events/registry.py:11"])]


def test_with_folding_off_both_are_hits(svc: IGraphService) -> None:
    off = RetrievalParams(fold_declarations=False, unique_names=False)
    got = _places(svc, "Lookup returns the configured value of a key", "Lookup", params=off)
    assert sorted((q, line) for q, line, _ in got) == [("Conf.Lookup", 8), ("Lookup", 16)]
