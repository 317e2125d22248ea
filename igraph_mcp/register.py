"""`igraph-mcp register`: add (or update) the igraph server in an MCP client's JSON configuration.

Other servers and unknown keys are kept, the write is atomic and skipped when nothing changes, and no
secret is ever written: the entry holds only the command and its arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from igraph_mcp.errors import ConfigError, InvalidInput

TARGETS = ("claude-code", "cursor", "claude-desktop")
DEFAULT_COMMAND = "igraph-mcp"


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


def server_entry(root: Path, command: str | None = None) -> dict[str, Any]:
    """The stdio launch entry: ``igraph-mcp serve --root <abs root>`` or e.g. ``uvx igraph-mcp serve ...``."""
    words = shlex.split(command) if command else [DEFAULT_COMMAND]
    if not words:
        raise InvalidInput("--command is empty; pass e.g. 'igraph-mcp' or 'uvx igraph-mcp'")
    return {"command": words[0], "args": [*words[1:], "serve", "--root", str(root)]}


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


def update_config(path: Path, name: str, entry: dict[str, Any]) -> bool:
    """Set ``mcpServers[name]`` to ``entry`` (keeping the entry's other keys); True when the file changed."""
    data = _load(path)
    servers: dict[str, Any] = data.setdefault("mcpServers", {})
    old = servers.get(name)
    servers[name] = {**old, **entry} if isinstance(old, dict) else dict(entry)
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
    entry = server_entry(root, _launch_command(args))
    changed = update_config(path, name, entry)
    verb = "registered" if changed else "already registered (nothing changed)"
    sys.stdout.write(f"{verb}: '{name}' in {path}\n  {shlex.join([entry['command'], *entry['args']])}\n")
    if shutil.which(entry["command"]) is None:
        sys.stderr.write(
            f"igraph-mcp: note: '{entry['command']}' is not on this PATH; the client may not find "
            "it either (pass --command with an absolute path, or 'uvx igraph-mcp')\n"
        )
    if args.target == "claude-desktop":
        sys.stdout.write("  restart Claude Desktop to load it\n")
    return 0
