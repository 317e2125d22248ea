"""The live view's server: token, Host and Origin checks; JSON answers; a failing request does not stop it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from igraph_mcp.cli import main
from igraph_mcp.service import IGraphService
from igraph_mcp.view.assets import load_vis
from igraph_mcp.view.data import ViewData
from igraph_mcp.view.server import build_view_app, view_url

TOKEN = "t0ken-for-tests-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(indexed_service: IGraphService) -> Iterator[TestClient]:
    """A client of the view app over SAMPLE_REPO, speaking to 127.0.0.1."""
    app = build_view_app(ViewData(indexed_service), load_vis(), token=TOKEN, host="127.0.0.1", title="repo")
    with TestClient(app, base_url="http://127.0.0.1:8123", raise_server_exceptions=False) as c:
        yield c


def test_page_needs_the_token(client: TestClient) -> None:
    ok = client.get(f"/?token={TOKEN}")
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/html")
    assert ok.headers["cache-control"] == "no-store" and ok.headers["referrer-policy"] == "no-referrer"
    assert "connect-src 'self'" in ok.text
    for url in ("/", "/?token=", f"/?token={TOKEN}x", f"/?token={TOKEN[:-1]}"):
        refused = client.get(url)
        assert refused.status_code == 403, url
        assert TOKEN not in refused.text


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}, {"Authorization": f"Basic {TOKEN}"}],
)
def test_api_needs_the_token(client: TestClient, headers: dict[str, str]) -> None:
    assert client.get("/api/status", headers=headers).status_code == 403


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example:8123", "localhost.evil:1"])
def test_foreign_host_is_refused(client: TestClient, host: str) -> None:
    # DNS rebinding: a page on another name that resolves to 127.0.0.1 sends its own Host; the token does not help.
    response = client.get(f"/?token={TOKEN}", headers={"Host": host})
    assert response.status_code == 421


def test_foreign_origin_is_refused(client: TestClient) -> None:
    response = client.get("/api/status", headers={**AUTH, "Origin": "https://evil.example"})
    assert response.status_code == 403
    assert client.get("/api/status", headers={**AUTH, "Origin": "http://127.0.0.1:8123"}).status_code == 200


def test_api_answers(client: TestClient, indexed_service: IGraphService) -> None:
    status = client.get("/api/status", headers=AUTH).json()
    assert status["indexed"] and status["files"] == 3
    search = client.get("/api/search", params={"q": "log a user in"}, headers=AUTH).json()
    assert search["result"]["hits"] and search["graph"]["nodes"]
    node_id = search["result"]["hits"][0]["nodeId"]
    node = client.get("/api/node", params={"id": node_id}, headers=AUTH).json()
    assert node["found"] and node["detail"]["node"]["nodeId"] == node_id
    assert client.get("/api/map", headers=AUTH).json()["meta"]["view"] == "map"
    assert client.get("/api/file", params={"path": "app/auth.py"}, headers=AUTH).json()["found"]
    assert client.get("/api/resources", headers=AUTH).json()["total"] == 0


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/api/search", {"q": ""}),
        ("/api/node", {"id": "abc"}),
        ("/api/map", {"focus": "../../etc"}),
        ("/api/map", {"units": "1"}),
        ("/api/resources", {"offset": "-1"}),
        ("/api/file", {"path": "../outside.py"}),
    ],
)
def test_bad_requests_answer_400_and_the_server_keeps_serving(client: TestClient, path: str, params: dict) -> None:
    response = client.get(path, params=params, headers=AUTH)
    assert response.status_code == 400 and response.json()["error"]
    assert client.get("/api/status", headers=AUTH).status_code == 200


def test_an_unexpected_failure_is_a_500_not_a_dead_server(
    client: TestClient, indexed_service: IGraphService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from igraph_mcp.view.data import ViewData

    def boom(self: ViewData, focus: str = "", max_units: int = 80) -> dict:
        raise RuntimeError("boom")

    monkeypatch.setattr(ViewData, "map", boom)
    response = client.get("/api/map", headers=AUTH)
    assert response.status_code == 500 and "boom" not in response.text
    assert client.get("/api/status", headers=AUTH).status_code == 200


def test_unknown_paths_are_404_only_with_the_token(client: TestClient) -> None:
    assert client.get("/api/nothing", headers=AUTH).status_code == 404
    assert client.get("/api/nothing").status_code == 403


def test_url_and_remote_bind(indexed_service: IGraphService, capsys: pytest.CaptureFixture[str]) -> None:
    assert view_url("::1", 8000, "abc") == "http://[::1]:8000/?token=abc"
    assert main(["view", "--root", str(indexed_service.root), "--host", "0.0.0.0"]) == 1
    assert "refusing to bind 0.0.0.0" in capsys.readouterr().err


def test_the_command_serves_the_page_until_interrupted(indexed_service: IGraphService) -> None:
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import httpx

    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "igraph_mcp", "view", "--root", str(indexed_service.root)],
        cwd=repo,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("igraph-mcp view: open http://127.0.0.1:"), line
        url = line.split("open ", 1)[1].strip()
        with httpx.Client(timeout=10) as c:
            assert c.get(url).status_code == 200
            assert c.get(url.split("?", 1)[0]).status_code == 403
            token = url.split("token=", 1)[1]
            api = url.split("?", 1)[0] + "api/map"
            assert c.get(api, headers={"Authorization": f"Bearer {token}"}).json()["meta"]["files"] == 3
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
