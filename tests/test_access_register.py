"""`register --url`: an HTTP entry whose bearer header names an environment variable, never holds the token."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from igraph_mcp.cli import main
from igraph_mcp.errors import InvalidInput
from igraph_mcp.register import http_entry


@pytest.mark.parametrize(
    ("target", "relative", "entry"),
    [
        (
            "claude-code",
            ".mcp.json",
            {
                "type": "http",
                "url": "https://ig.example/mcp",
                "headers": {"Authorization": "Bearer ${IGRAPH_HTTP_TOKEN}"},
            },
        ),
        (
            "cursor",
            ".cursor/mcp.json",
            {"url": "https://ig.example/mcp", "headers": {"Authorization": "Bearer ${env:IGRAPH_HTTP_TOKEN}"}},
        ),
    ],
)
def test_register_url_writes_the_clients_header_syntax(
    tmp_path: Path, target: str, relative: str, entry: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    # an earlier stdio entry: its launch keys go, the user's own keys stay
    config.write_text(json.dumps({"mcpServers": {"igraph": {"command": "/x/igraph-mcp", "args": [], "note": 1}}}))
    argv = ["register", "--target", target, "--root", str(tmp_path), "--url", "https://ig.example/mcp"]
    assert main(argv) == 0
    assert json.loads(config.read_text())["mcpServers"]["igraph"] == {**entry, "note": 1}
    assert "set IGRAPH_HTTP_TOKEN" in capsys.readouterr().out
    assert main(argv) == 0 and "nothing changed" in capsys.readouterr().out


def test_register_url_warns_about_plain_http_to_another_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["register", "--target", "claude-code", "--root", str(tmp_path), "--url", "http://10.0.0.5:8765/mcp"]
    assert main([*argv, "--token-env", "TEAM_TOKEN"]) == 0
    entry = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["igraph"]
    assert entry["headers"] == {"Authorization": "Bearer ${TEAM_TOKEN}"}
    assert "in clear" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("target", "url", "token_env", "says"),
    [
        ("claude-code", "ftp://x/mcp", "T", "http(s) URL"),
        ("claude-code", "not a url", "T", "http(s) URL"),
        ("cursor", "https://x/mcp", "A-B", "environment variable name"),
        ("cursor", "https://x/mcp", "${X}", "environment variable name"),
        ("claude-desktop", "https://x/mcp", "T", "Connectors"),
    ],
)
def test_http_entry_refuses_bad_input(target: str, url: str, token_env: str, says: str) -> None:
    with pytest.raises(InvalidInput) as info:
        http_entry(target, url, token_env)
    assert says in str(info.value)
