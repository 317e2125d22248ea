"""The token file: its format, hashing at rest, edits, reload on change (fail closed), constant-time lookup, the CLI."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from igraph_mcp import tokens
from igraph_mcp.access import Identity
from igraph_mcp.cli import main
from igraph_mcp.errors import ConfigError, InvalidInput
from igraph_mcp.tokens import TokenTable, add_token, parse_table, read_table, revoke_token, token_hash, write_table

GOOD = "a" * 64


def _row(**kw: Any) -> dict[str, Any]:
    return {"name": "alice", "sha256": GOOD, "role": "write", "repos": None, **kw}


def _file(rows: list[Any], version: Any = 1) -> str:
    return json.dumps({"version": version, "tokens": rows})


def test_parse_table_reads_roles_and_allow_lists() -> None:
    text = _file([_row(), _row(name="bot", role="read", repos=["repo", "/srv/x"], sha256="b" * 64)])
    alice, bot = parse_table(text)
    assert alice.identity() == Identity("alice", "write", None)
    assert bot.identity() == Identity("bot", "read", ("repo", "/srv/x"))


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not valid JSON"),
        ("[]", "expected an object"),
        (_file([_row()], version=2), "unsupported version"),
        (_file(["alice"]), "tokens[0] is not an object"),
        (_file([_row(name="")]), "'name'"),
        (_file([_row(name="a b")]), "'name'"),
        (_file([_row(name="x\n access user=root")]), "'name'"),
        (_file([_row(name="env")]), "'name'"),
        (_file([_row(sha256="secret-token-in-clear")]), "'sha256'"),
        (_file([_row(sha256=GOOD.upper())]), "'sha256'"),
        (_file([_row(role="admin")]), "'role'"),
        (_file([_row(repos="repo")]), "'repos'"),
        (_file([_row(repos=[""])]), "'repos'"),
        (_file([_row(repos=["../repo"])]), "must be absolute"),
        (_file([_row(), _row(sha256="b" * 64)]), "appears twice"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_parse_table_names_the_problem(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=None) as info:
        parse_table(text)
    assert says in str(info.value)


def test_add_stores_only_the_hash_with_owner_only_permissions(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    token, entry = add_token(path, "alice", role="read", repos=("repo",))
    text = path.read_text()
    assert token.startswith("igraph_") and len(token) > 40
    assert token not in text and token_hash(token) in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_table(path) == (entry,)
    _, by_path = add_token(path, "carol", role="read", repos=("myrepo", "./some/dir"))
    assert by_path.repos == ("myrepo", os.path.realpath("./some/dir"))  # a relative path is stored absolute
    revoke_token(path, "carol")
    with pytest.raises(InvalidInput, match="revoke it first"):
        add_token(path, "alice", role="write", repos=None)
    with pytest.raises(InvalidInput, match="names IGRAPH_HTTP_TOKEN"):
        add_token(path, "env", role="write", repos=None)
    assert revoke_token(path, "alice").name == "alice" and read_table(path) == ()
    with pytest.raises(InvalidInput, match="token list"):
        revoke_token(path, "alice")


def test_edits_keep_the_readers_and_serialise(tmp_path: Path) -> None:
    import threading

    path = tmp_path / "tokens.json"
    add_token(path, "alice", role="write", repos=None)
    os.chmod(path, 0o640)  # a server running as the file's group reads it
    start = threading.Barrier(6)

    def add(i: int) -> None:
        start.wait()
        add_token(path, f"u{i}", role="read", repos=None)

    threads = [threading.Thread(target=add, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(e.name for e in read_table(path)) == ["alice", *(f"u{i}" for i in range(6))]
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_file_others_can_write_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    add_token(path, "alice", role="write", repos=None)
    os.chmod(path, 0o666)
    with pytest.raises(ConfigError, match="chmod 600"):
        read_table(path)


def test_a_file_of_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tokens.json"
    add_token(path, "alice", role="write", repos=None)
    if os.geteuid() == 0:
        os.chown(path, 12345, 12345)  # root reading a file another user swapped in
    else:
        monkeypatch.setattr(tokens.os, "geteuid", lambda: path.stat().st_uid + 1)  # we are someone else
    with pytest.raises(ConfigError, match="belongs to another user"):
        read_table(path)


def test_a_missing_file_says_how_to_create_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="token add NAME"):
        TokenTable(path=tmp_path / "none.json").load()


def test_revocation_and_reload_take_effect_on_the_next_lookup(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "tokens.json"
    alice, _ = add_token(path, "alice", role="write", repos=None)
    table = TokenTable(path=path)
    table.load()
    assert table.authenticate(alice) == Identity("alice")
    bob, _ = add_token(path, "bob", role="read", repos=None)
    assert table.authenticate(bob) == Identity("bob", "read")  # added while running
    revoke_token(path, "bob")
    assert table.authenticate(bob) is None  # revoked while running

    good = path.read_text()
    with caplog.at_level(logging.ERROR, logger="igraph_mcp.tokens"):
        path.write_text(good[: len(good) // 2])  # a half-written file
        assert table.authenticate(alice) == Identity("alice")  # the last good table, not an open door
        assert table.authenticate(bob) is None
    assert "keeping the last good table" in caplog.text and alice not in caplog.text

    path.write_text(_file([]))  # fixed: alice revoked by hand
    assert table.authenticate(alice) is None
    path.write_text(good)
    assert table.authenticate(alice) == Identity("alice")
    path.unlink()
    assert table.authenticate(alice) is None  # deleted: fail closed
    assert table.required  # configuration, not content, decides that a token is needed


@pytest.mark.parametrize("presented", [None, "", "igraph_wrong", "a" * 64, GOOD, "\0", "ü" * 300, "x" * 100_000])
def test_unknown_tokens_and_stored_hashes_are_not_accepted(tmp_path: Path, presented: str | None) -> None:
    path = tmp_path / "tokens.json"
    write_table(path, parse_table(_file([_row()])))  # the row's *hash* is GOOD: presenting it is no token
    table = TokenTable(path=path)
    table.load()
    assert table.authenticate(presented) is None


def test_every_candidate_is_compared_in_constant_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tokens.json"
    made = [add_token(path, f"u{i}", role="write", repos=None)[0] for i in range(4)]
    table = TokenTable(env_token="env-token-0123456789", path=path)
    table.load()
    calls: list[tuple[bytes, bytes]] = []
    real: Callable[[bytes, bytes], bool] = tokens.hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(tokens.hmac, "compare_digest", counting)
    for presented in [made[0], made[3], "env-token-0123456789", "wrong"]:
        calls.clear()
        table.authenticate(presented)
        assert len(calls) == 5  # the env token and all four rows, wherever (or whether) it matched
    assert table.authenticate("env-token-0123456789") == Identity("env")


def test_token_cli_add_list_revoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "t" / "tokens.json")
    assert main(["token", "add", "alice", "--read-only", "--repo", "repo", "--tokens", path]) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert token.startswith("igraph_") and "\n" not in token and "shown this once" in err and token not in err
    assert main(["token", "list", "--tokens", path]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("alice\tread\trepos=repo\t") and token_hash(token) not in listed
    assert main(["token", "list", "--json", "--tokens", path]) == 0
    assert "sha256" not in capsys.readouterr().out
    assert main(["token", "add", "alice", "--tokens", path]) == 1
    assert "revoke it first" in capsys.readouterr().err
    assert main(["token", "revoke", "alice", "--tokens", path]) == 0
    assert "revoked 'alice'" in capsys.readouterr().out
    assert main(["token", "revoke", "alice", "--tokens", path]) == 1
    assert "no token named 'alice'" in capsys.readouterr().err


def test_token_cli_needs_a_file(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("IGRAPH_HTTP_TOKENS_FILE", raising=False)
    assert main(["token", "list"]) == 1
    assert "pass --tokens FILE or set IGRAPH_HTTP_TOKENS_FILE" in capsys.readouterr().err


def test_serve_refuses_a_malformed_token_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "tokens.json"
    bad.write_text("{not json")
    argv = ["serve", "--transport", "http", "--tokens", str(bad), "--root", str(tmp_path)]
    assert main(argv) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert main([*argv[:-4], "--tokens", str(tmp_path / "missing.json"), "--root", str(tmp_path)]) == 2
    assert "token add NAME" in capsys.readouterr().err
    assert not (tmp_path / ".igraph").exists()
