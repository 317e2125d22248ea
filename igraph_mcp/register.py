"""`igraph-mcp register`: add (or update) the igraph server in an MCP client's JSON configuration.

Other servers and unknown keys are kept, the write is atomic and skipped when nothing changes, and no
secret is ever written: a stdio entry holds only the command and its arguments, an HTTP entry (``--url``) the
URL and an ``Authorization`` header that names an environment variable the client expands when it connects.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

from igraph_mcp.errors import ConfigError, InvalidInput

TARGETS = ("claude-code", "cursor", "claude-desktop")
DIST_NAME = "igraph-mcp"
CONSOLE_SCRIPT = "igraph-mcp"
# uv keeps `uvx` environments in its cache under buckets with these names; they are garbage-collected, so a path
# inside one must never be written into a client's configuration.
_UV_EPHEMERAL_BUCKETS = ("archive-v", "builds-v", "environments-v")


def config_file(
    target: str,
    root: Path,
    *,
    platform: str | None = None,
    home: Path | None = None,
    env: dict[str, str] | None = None,
) -> Path:
    """Where ``target`` reads its MCP servers: project files (Claude Code, Cursor) or per-user (Desktop)."""
    if target == "claude-code":
        return root / ".mcp.json"
    if target == "cursor":
        return root / ".cursor" / "mcp.json"
    if target != "claude-desktop":
        raise InvalidInput(f"unknown target '{target}'; choose one of {', '.join(TARGETS)}")
    platform = platform or sys.platform
    home = home or Path.home()
    env = dict(os.environ) if env is None else env
    if platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if platform.startswith("win"):
        return Path(env.get("APPDATA") or home / "AppData" / "Roaming") / "Claude" / "claude_desktop_config.json"
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    return base / "Claude" / "claude_desktop_config.json"


def server_name(target: str, root: Path) -> str:
    """Entry name: 'igraph' in a project's own file; 'igraph-<dir>' in Desktop's global file, one per repo."""
    if target != "claude-desktop":
        return "igraph"
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", root.name).strip("-")[:40]
    return f"igraph-{slug}" if slug else "igraph"


def launch_words(
    *,
    argv0: str | None = None,
    executable: str | None = None,
    prefix: str | None = None,
    env: dict[str, str] | None = None,
    source: str | None = None,
) -> list[str]:
    """The command that runs *this* igraph-mcp, for a client that does not share the caller's PATH or virtualenv.

    Under uvx (an environment in uv's cache that uv may delete) that is ``uvx --from <source> igraph-mcp``;
    otherwise the absolute path of the running console script, or ``<python> -m igraph_mcp`` when started that
    way. Arguments default to this process (they are parameters so tests can describe other processes).
    """
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    prefix = sys.prefix if prefix is None else prefix
    env = dict(os.environ) if env is None else env
    if env.get("UV") and _is_uv_ephemeral(prefix):
        uv = Path(env["UV"])
        uvx = uv.with_name("uvx" + uv.suffix)  # installed side by side with uv
        return [str(uvx) if uvx.exists() else "uvx", "--from", source or install_source(), CONSOLE_SCRIPT]
    name = Path(argv0).name
    if name in ("__main__.py", "-m") or name.startswith("python"):
        # `python -m igraph_mcp register`: the interpreter is the stable entry point. abspath, not realpath: a
        # virtualenv's python is a symlink whose target knows nothing of the virtualenv's packages.
        return [os.path.abspath(executable), "-m", "igraph_mcp"]
    found = argv0 if os.sep in argv0 else shutil.which(argv0)
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(executable), "-m", "igraph_mcp"]


def _is_uv_ephemeral(prefix: str) -> bool:
    return any(part.startswith(_UV_EPHEMERAL_BUCKETS) for part in Path(prefix).parts)


def install_source(direct_url: str | None = None) -> str:
    """What ``uvx --from`` needs to install this copy again: a directory, a ``git+`` URL, or the package name.

    Read from the installed distribution's PEP 610 ``direct_url.json``, which uv and pip write for installs
    from a path or a repository URL.
    """
    if direct_url is None:
        try:
            direct_url = importlib.metadata.distribution(DIST_NAME).read_text("direct_url.json")
        except importlib.metadata.PackageNotFoundError:
            direct_url = None
    try:
        info = json.loads(direct_url) if direct_url else {}
    except json.JSONDecodeError:
        info = {}
    url = info.get("url") if isinstance(info, dict) else None
    if not isinstance(url, str) or not url:
        return DIST_NAME
    vcs = info.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git":
        rev = vcs.get("requested_revision") or vcs.get("commit_id")
        return f"git+{url}" + (f"@{rev}" if rev else "")
    if url.startswith("file://"):
        return url2pathname(urlparse(url).path)
    return url


def server_entry(root: Path, command: str | None = None) -> dict[str, Any]:
    """The stdio launch entry: ``<command> serve --root <abs root>``; the command defaults to ``launch_words()``."""
    words = shlex.split(command) if command is not None else launch_words()
    if not words:
        raise InvalidInput("--command is empty; pass e.g. '/path/to/venv/bin/igraph-mcp'")
    return {"command": words[0], "args": [*words[1:], "serve", "--root", str(root)]}


DEFAULT_TOKEN_ENV = "IGRAPH_HTTP_TOKEN"  # noqa: S105 - the variable's name, not a secret
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_STDIO_KEYS = ("command", "args")
_HTTP_KEYS = ("type", "url", "headers")


def http_entry(target: str, url: str, token_env: str = DEFAULT_TOKEN_ENV) -> dict[str, Any]:
    """An entry for a running HTTP server: its URL and a bearer header read from ``token_env`` by the client."""
    parts = urlparse(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput("--url must be an http(s) URL such as https://igraph.example.com/mcp")
    if not _ENV_NAME.match(token_env):
        raise InvalidInput("--token-env must be an environment variable name such as IGRAPH_HTTP_TOKEN")
    if target == "claude-code":  # .mcp.json expands ${VAR} in url and headers
        return {"type": "http", "url": url, "headers": {"Authorization": f"Bearer ${{{token_env}}}"}}
    if target == "cursor":  # Cursor's mcp.json spells it ${env:VAR}
        return {"url": url, "headers": {"Authorization": f"Bearer ${{env:{token_env}}}"}}
    raise InvalidInput(
        "Claude Desktop's configuration file starts local servers only; add a remote one in its settings "
        "(Connectors), or register --url with --target claude-code or cursor"
    )


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix it by hand, nothing was changed") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; fix it by hand, nothing was changed")
    if not isinstance(data.get("mcpServers", {}), dict):
        raise ConfigError(f"'mcpServers' in {path} is not an object; fix it by hand, nothing was changed")
    return data


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)  # keep the user's permissions on their file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def update_config(path: Path, name: str, entry: dict[str, Any], *, drop: tuple[str, ...] = ()) -> bool:
    """Set ``mcpServers[name]`` to ``entry`` (keeping the entry's other keys but ``drop``); True when it changed."""
    data = _load(path)
    servers: dict[str, Any] = data.setdefault("mcpServers", {})
    old = servers.get(name)
    kept = {k: v for k, v in old.items() if k not in drop} if isinstance(old, dict) else {}
    servers[name] = {**kept, **entry}
    if path.exists() and servers[name] == old:
        return False
    _write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return True


def _launch_command(args: argparse.Namespace) -> str | None:
    # `--command` shares its dest with the CLI's sub-command name unless the parser renames it.
    explicit = getattr(args, "launch_command", None)
    if explicit is not None:
        return str(explicit)
    value = getattr(args, "command", None)
    return None if value in (None, "register") else str(value)


def register(args: argparse.Namespace) -> int:
    """CLI entry: write the target client's configuration and say where."""
    root = Path(os.path.realpath(args.root))
    if not root.is_dir():
        raise InvalidInput(f"--root {args.root} is not a directory")
    path = Path(args.config_path).expanduser() if args.config_path else config_file(args.target, root)
    name = server_name(args.target, root)
    url = getattr(args, "url", None)
    if url is not None:
        return _register_http(args, path, name, url)
    entry = server_entry(root, _launch_command(args))
    changed = update_config(path, name, entry, drop=_HTTP_KEYS)
    verb = "registered" if changed else "already registered (nothing changed)"
    sys.stdout.write(f"{verb}: '{name}' in {path}\n  {shlex.join([entry['command'], *entry['args']])}\n")
    if shutil.which(entry["command"]) is None:
        sys.stderr.write(
            f"igraph-mcp: note: '{entry['command']}' is not an executable on this PATH; the client will not find "
            "it either (pass --command with an absolute path, or 'uvx --from /path/to/checkout igraph-mcp')\n"
        )
    if args.target == "claude-desktop":
        sys.stdout.write("  restart Claude Desktop to load it\n")
    return 0


def _register_http(args: argparse.Namespace, path: Path, name: str, url: str) -> int:
    token_env = getattr(args, "token_env", None) or DEFAULT_TOKEN_ENV
    entry = http_entry(args.target, url, token_env)
    changed = update_config(path, name, entry, drop=_STDIO_KEYS)
    verb = "registered" if changed else "already registered (nothing changed)"
    sys.stdout.write(f"{verb}: '{name}' in {path}\n  {url} with 'Authorization: Bearer ${token_env}'\n")
    sys.stdout.write(f"  set {token_env} to your token where the client starts (the file holds only its name)\n")
    host = urlparse(url).hostname or ""
    if urlparse(url).scheme == "http" and host not in ("localhost", "127.0.0.1", "::1"):
        sys.stderr.write(
            "igraph-mcp: note: a plain http:// URL to another machine sends the token in clear; put TLS in "
            "front of the server (README: 'For teams') and use https://\n"
        )
    return 0
