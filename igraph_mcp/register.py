"""`igraph-mcp register`: add (or update) the igraph server in an MCP client's JSON configuration.

Other servers and unknown keys are kept, the write is atomic and skipped when nothing changes, and no
secret is ever written: the entry holds only the command and its arguments.
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
            f"igraph-mcp: note: '{entry['command']}' is not an executable on this PATH; the client will not find "
            "it either (pass --command with an absolute path, or 'uvx --from /path/to/checkout igraph-mcp')\n"
        )
    if args.target == "claude-desktop":
        sys.stdout.write("  restart Claude Desktop to load it\n")
    return 0
