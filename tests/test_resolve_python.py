"""Python calls resolved by scope and inferred receiver types: one fixture per cause of a wrong edge (issue 12)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator

import pytest
from _factories import edge_target, index_repo, make_repo

from igraph_mcp.index.infer import chain, type_core
from igraph_mcp.render import render_node
from igraph_mcp.service import IGraphService

REPO = {
    # The package re-exports App and CookieJar; code importing `pkg` never sees pkg/app.py directly.
    "pkg/__init__.py": "from .app import App\nfrom .jar import CookieJar\n",
    "pkg/jar.py": """
        class CookieJar:
            def set(self, key, value):
                return key

            def update(self, other):
                return other

            def copy(self):
                return CookieJar()

            def read(self):
                return ""
        """,
    "pkg/session.py": """
        class Session:
            def get(self):
                return 1

            def close(self):
                return 2
        """,
    "pkg/app.py": """
        from .jar import CookieJar
        from .session import Session


        class Base:
            def send(self):
                return 1


        class App(Base):
            def __init__(self, headers: dict):
                self.headers = headers
                self.session = Session()
                self.jar = CookieJar()

            def copy(self):
                return App({})

            def unknown_receiver(self, runner, settings):
                runner.invoke("x")
                return settings.update({})

            def builtins(self, settings):
                kwargs = {}
                kwargs.update(settings)
                handle = open("f")
                handle.read()
                return set(settings)

            def attribute_receiver(self):
                return self.headers.copy()

            def self_through_bases(self):
                return self.send()

            def typed_attribute(self):
                return self.jar.set("a", 1)

            def local_inference(self):
                sess = Session()
                return sess.get()

            def make(self) -> "Session":
                return Session()

            def returned_type(self):
                return self.make().close()
        """,
    "client.py": """
        import pkg
        from pkg import App


        def through_module_alias():
            return pkg.App({})


        def through_package_reexport():
            return App({})


        def annotated(app: pkg.App):
            return app.copy()
        """,
    "tests/helpers.py": """
        class Runner:
            def invoke(self, name):
                return name


        def unique_helper():
            return 1
        """,
    "pkg/uses_helper.py": """
        def library_code():
            return unique_helper()
        """,
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IGraphService]:
    service = index_repo(make_repo(tmp_path_factory.mktemp("pyres"), REPO))
    yield service
    service.close()


def test_receiver_of_unknown_type_is_not_bound_by_name(svc: IGraphService) -> None:
    # `runner` is a parameter: its `invoke` is not the test helper's, its `update` not CookieJar's.
    assert edge_target(svc.db, "App.unknown_receiver", "invoke") == (None, None, "ambiguous")
    assert edge_target(svc.db, "App.unknown_receiver", "update") == (None, None, "ambiguous")


def test_ambiguous_reference_records_its_candidates(svc: IGraphService) -> None:
    (candidates,) = svc.db.one(
        "SELECT e.candidates FROM edges e JOIN nodes s ON s.id = e.source_id "
        "WHERE s.qualified_name = 'App.unknown_receiver' AND e.target_name = 'invoke'"
    )
    (runner_invoke,) = svc.db.one("SELECT id FROM nodes WHERE qualified_name = 'Runner.invoke'")
    assert json.loads(candidates) == [runner_invoke]


def test_builtins_and_literals_are_not_repository_code(svc: IGraphService) -> None:
    assert edge_target(svc.db, "App.builtins", "set") == (None, None, "external")
    assert edge_target(svc.db, "App.builtins", "open") == (None, None, "external")
    assert edge_target(svc.db, "App.builtins", "update") == (None, None, "external")  # `{}` is a dict
    assert edge_target(svc.db, "App.builtins", "read") == (None, None, "external")  # what open() returns


def test_self_attribute_method_is_not_a_self_method(svc: IGraphService) -> None:
    # self.headers is a dict parameter: its copy() is not App.copy.
    assert edge_target(svc.db, "App.attribute_receiver", "copy") == (None, None, "external")


def test_self_call_walks_the_bases(svc: IGraphService) -> None:
    assert edge_target(svc.db, "App.self_through_bases", "send") == ("pkg/app.py", "Base.send", "self")


def test_attribute_typed_by_its_assignment(svc: IGraphService) -> None:
    assert edge_target(svc.db, "App.typed_attribute", "set") == ("pkg/jar.py", "CookieJar.set", "inferred")


def test_local_variable_typed_by_its_constructor(svc: IGraphService) -> None:
    assert edge_target(svc.db, "App.local_inference", "Session") == ("pkg/session.py", "Session", "import")
    assert edge_target(svc.db, "App.local_inference", "get") == ("pkg/session.py", "Session.get", "inferred")


def test_return_annotation_types_the_result(svc: IGraphService) -> None:
    assert edge_target(svc.db, "App.returned_type", "close") == ("pkg/session.py", "Session.close", "inferred")


def test_reexport_through_package_init(svc: IGraphService) -> None:
    assert edge_target(svc.db, "through_module_alias", "App") == ("pkg/app.py", "App", "import")
    assert edge_target(svc.db, "through_package_reexport", "App") == ("pkg/app.py", "App", "import")


def test_annotated_parameter_types_the_receiver(svc: IGraphService) -> None:
    assert edge_target(svc.db, "annotated", "copy") == ("pkg/app.py", "App.copy", "inferred")


def test_library_code_is_not_bound_to_test_code(svc: IGraphService) -> None:
    assert edge_target(svc.db, "library_code", "unique_helper") == (None, None, "unresolved")


def test_callee_is_shown_at_its_definition_and_the_call_at_the_caller(svc: IGraphService) -> None:
    detail = svc.node("App.self_through_bases")
    (send,) = [e for e in detail.callees if e.name == "send"]
    lines = textwrap.dedent(REPO["pkg/app.py"]).lstrip("\n").splitlines()
    base_send_line = lines.index("    def send(self):") + 1
    call_line = lines.index("        return self.send()") + 1
    assert (send.filePath, send.line, send.callSite) == ("pkg/app.py", base_send_line, f"pkg/app.py:{call_line}")
    assert send.certain and send.confidence >= 0.9
    text = render_node(detail)
    assert f"Base.send  pkg/app.py:{base_send_line}  (called at pkg/app.py:{call_line})" in text


def test_callers_show_their_own_call_site(svc: IGraphService) -> None:
    callers = svc.node("Session.get").callers
    sites = sorted(c.callSite for c in callers)
    assert sites and all(s.startswith("pkg/app.py:") for s in sites)
    assert {c.qualifiedName for c in callers} == {"App.local_inference"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "self.session.get(url).json",
            [("name", "self"), ("attr", "session"), ("attr", "get"), ("call", ""), ("attr", "json")],
        ),
        ("x[0]", [("name", "x"), ("index", "")]),
        ("f('a)b')", [("name", "f"), ("call", "")]),
        ("(a or b)", None),
        ("a.", None),
        ("", None),
    ],
)
def test_chain(text: str, expected: list[tuple[str, str]] | None) -> None:
    assert chain(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Session", ("Session", False)),
        ("'Session'", ("Session", False)),
        ("Optional[pkg.Session]", ("pkg.Session", False)),
        ("Session|None", ("Session", False)),
        ("t.Optional[Session]", ("Session", False)),
        ("type[Session]", ("Session", True)),
        ("list[Session]", ("list", False)),
        ("Session|Other", None),
        ("Callable[[int],str]", ("Callable", False)),
    ],
)
def test_type_core(text: str, expected: tuple[str, bool] | None) -> None:
    assert type_core(text) == expected
