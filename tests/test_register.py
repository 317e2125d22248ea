"""`igraph-mcp register`: config locations, merging, idempotency, no secrets, broken files left alone."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from igraph_mcp.errors import ConfigError, IGraphError
from igraph_mcp.register import (
    config_file,
    install_source,
    launch_words,
    register,
    server_entry,
    server_name,
    update_config,
)


@pytest.fixture(autouse=True)
def console_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run register as if from a virtualenv's console script (pytest's own argv[0] would say pytest)."""
    script = tmp_path / "venv" / "bin" / "igraph-mcp"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script), "register"])
    monkeypatch.delenv("UV", raising=False)
    return str(script)


def run(*argv: str) -> int:
    """`igraph-mcp register ARGS` as the CLI calls it: register(Namespace), library errors -> exit 1."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--root", default=".")
    parser.add_argument("--config-path", default=None)
    parser.add_argument("--command", default=None)
    try:
        return register(parser.parse_args(argv))
    except IGraphError as exc:
        sys.stderr.write(f"igraph-mcp: {exc}\n")
        return 1


@pytest.mark.parametrize(("target", "relative"), [("claude-code", ".mcp.json"), ("cursor", ".cursor/mcp.json")])
def test_project_targets_write_in_the_root(
    tmp_path: Path, target: str, relative: str, console_script: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--target", target, "--root", str(tmp_path)) == 0
    data = json.loads((tmp_path / relative).read_text())
    # The absolute path of the running executable: a client does not see the caller's PATH or virtualenv.
    assert data == {
        "mcpServers": {"igraph": {"command": console_script, "args": ["serve", "--root", str(tmp_path.resolve())]}}
    }
    assert "registered" in capsys.readouterr().out


def test_claude_desktop_paths() -> None:
    home = Path("/home/u")
    assert (
        config_file("claude-desktop", home, platform="linux", home=home, env={})
        == home / ".config" / "Claude" / "claude_desktop_config.json"
    )
    assert config_file("claude-desktop", home, platform="linux", home=home, env={"XDG_CONFIG_HOME": "/x"}) == Path(
        "/x/Claude/claude_desktop_config.json"
    )
    assert (
        config_file("claude-desktop", home, platform="darwin", home=home, env={})
        == home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    )
    assert (
        config_file("claude-desktop", home, platform="win32", home=home, env={"APPDATA": "C:/AppData"})
        == Path("C:/AppData") / "Claude" / "claude_desktop_config.json"
    )


def test_desktop_entry_is_named_per_repository(tmp_path: Path) -> None:
    repo = tmp_path / "my repo!"
    repo.mkdir()
    config = tmp_path / "claude_desktop_config.json"
    assert run("--target", "claude-desktop", "--root", str(repo), "--config-path", str(config)) == 0
    servers = json.loads(config.read_text())["mcpServers"]
    assert list(servers) == ["igraph-my-repo"] and server_name("cursor", repo) == "igraph"


def test_preserves_other_servers_and_keys_and_is_idempotent(
    tmp_path: Path, console_script: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".mcp.json"
    original = {
        "mcpServers": {
            "other": {"command": "other-mcp", "env": {"X": "1"}},
            "igraph": {"command": "old", "args": [], "disabled": False},
        },
        "someClientSetting": True,
    }
    config.write_text(json.dumps(original))
    assert run("--target", "claude-code", "--root", str(tmp_path)) == 0
    first = config.read_text()
    data = json.loads(first)
    assert data["mcpServers"]["other"] == original["mcpServers"]["other"]
    assert data["someClientSetting"] is True
    assert data["mcpServers"]["igraph"]["command"] == console_script
    assert data["mcpServers"]["igraph"]["disabled"] is False
    stamp = config.stat().st_mtime_ns
    capsys.readouterr()
    assert run("--target", "claude-code", "--root", str(tmp_path)) == 0
    assert config.read_text() == first and config.stat().st_mtime_ns == stamp
    assert "already registered" in capsys.readouterr().out


def test_uvx_command_form_and_no_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IGRAPH_API_KEY", "sk-secret-value-123")
    monkeypatch.setenv("IGRAPH_HTTP_TOKEN", "token-secret-value-456")
    assert run("--target", "cursor", "--root", str(tmp_path), "--command", "uvx igraph-mcp") == 0
    text = (tmp_path / ".cursor" / "mcp.json").read_text()
    entry = json.loads(text)["mcpServers"]["igraph"]
    assert entry == {"command": "uvx", "args": ["igraph-mcp", "serve", "--root", str(tmp_path.resolve())]}
    assert "secret" not in text and "env" not in entry


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"mcpServers": []}'])
def test_broken_config_is_refused_and_left_untouched(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".mcp.json"
    config.write_text(content)
    assert run("--target", "claude-code", "--root", str(tmp_path)) == 1
    assert config.read_text() == content
    assert "nothing was changed" in capsys.readouterr().err
    with pytest.raises(ConfigError):
        update_config(config, "igraph", server_entry(tmp_path))


def test_missing_root_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--target", "cursor", "--root", str(tmp_path / "absent")) == 1
    assert "not a directory" in capsys.readouterr().err


def test_launch_words_on_path_and_as_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "igraph-mcp"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    # Started by name from PATH: the name is looked up and written as an absolute path.
    assert launch_words(argv0="igraph-mcp", prefix="/v", env={}) == [str(script)]
    # `python -m igraph_mcp register`: the interpreter path as given (a venv's python is a symlink; keep it).
    python = str(tmp_path / "venv" / "bin" / "python")
    words = launch_words(argv0="/x/igraph_mcp/__main__.py", executable=python, prefix="/v", env={})
    assert words == [python, "-m", "igraph_mcp"]


def test_launch_words_under_uvx(tmp_path: Path) -> None:
    uv_dir = tmp_path / "uvbin"
    uv_dir.mkdir()
    (uv_dir / "uv").write_text("")
    (uv_dir / "uvx").write_text("")
    ephemeral = str(tmp_path / "cache" / "uv" / "archive-v0" / "AbC123")
    words = launch_words(
        argv0=ephemeral + "/bin/igraph-mcp",
        prefix=ephemeral,
        env={"UV": str(uv_dir / "uv")},
        source="/src/igraph-mcp",
    )
    assert words == [str(uv_dir / "uvx"), "--from", "/src/igraph-mcp", "igraph-mcp"]
    # `uv run` in a project's own .venv is not ephemeral: its console script path stays valid.
    project = str(tmp_path / "proj" / ".venv")
    script = project + "/bin/igraph-mcp"
    assert launch_words(argv0=script, prefix=project, env={"UV": str(uv_dir / "uv")}) == [script]


@pytest.mark.parametrize(
    ("direct_url", "source"),
    [
        ('{"url": "file:///home/me/igraph-mcp", "dir_info": {}}', "/home/me/igraph-mcp"),
        (
            '{"url": "https://github.com/o/igraph-mcp.git", "vcs_info": {"vcs": "git", "requested_revision": "main",'
            ' "commit_id": "abc"}}',
            "git+https://github.com/o/igraph-mcp.git@main",
        ),
        (
            '{"url": "https://github.com/o/r", "vcs_info": {"vcs": "git", "commit_id": "abc"}}',
            "git+https://github.com/o/r@abc",
        ),
        ("", "igraph-mcp"),
        ("{broken", "igraph-mcp"),
    ],
)
def test_install_source_from_direct_url(direct_url: str, source: str) -> None:
    assert install_source(direct_url) == source
