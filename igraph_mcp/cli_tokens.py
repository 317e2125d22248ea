"""`igraph-mcp token add|list|revoke`: the named bearer tokens of an HTTP server, as sub-commands of the CLI."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _tokens_path(args: argparse.Namespace) -> Path:
    from igraph_mcp.errors import InvalidInput
    from igraph_mcp.transport import tokens_file

    path = tokens_file(args.tokens)
    if path is None:
        raise InvalidInput("no token file: pass --tokens FILE or set IGRAPH_HTTP_TOKENS_FILE")
    return path


def cmd_token_add(args: argparse.Namespace) -> int:
    from igraph_mcp.tokens import add_token

    path = _tokens_path(args)
    token, entry = add_token(
        path, args.name, role="read" if args.read_only else "write", repos=tuple(args.repo) if args.repo else None
    )
    repos = ", ".join(entry.repos) if entry.repos is not None else "all repositories"
    sys.stderr.write(
        f"added {entry.role} token '{entry.name}' ({repos}) to {path}; only its hash is stored, so copy the token "
        "now: it is shown this once. A running server accepts it from its next request.\n"
    )
    sys.stdout.write(token + "\n")  # alone on stdout, so `TOKEN=$(igraph-mcp token add ...)` works
    return 0


def cmd_token_list(args: argparse.Namespace) -> int:
    from igraph_mcp.tokens import read_table

    entries = read_table(_tokens_path(args))
    if args.json:
        rows = [{k: v for k, v in e.to_json().items() if k != "sha256"} for e in entries]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    for e in entries:
        repos = ",".join(e.repos) if e.repos is not None else "*"
        sys.stdout.write(f"{e.name}\t{e.role}\trepos={repos}\tcreated={e.created or '-'}\n")
    if not entries:
        sys.stderr.write("no tokens; add one with `igraph-mcp token add NAME`\n")
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    from igraph_mcp.tokens import revoke_token

    path = _tokens_path(args)
    entry = revoke_token(path, args.name)
    sys.stdout.write(f"revoked '{entry.name}' in {path}; a running server refuses it from its next request\n")
    return 0


def token_options(t: argparse.ArgumentParser) -> None:
    """`igraph-mcp token add|list|revoke`: the named tokens of an HTTP server."""
    files = argparse.ArgumentParser(add_help=False)
    files.add_argument("--tokens", default=None, metavar="FILE", help="token file (default $IGRAPH_HTTP_TOKENS_FILE)")
    tsub = t.add_subparsers(dest="token_command", required=True)
    s = tsub.add_parser("add", parents=[files], help="create a token: prints it once, stores only its hash")
    s.add_argument("name")
    s.add_argument("--read-only", action="store_true", help="may not index, mount or unmount")
    s.add_argument("--repo", action="append", help="allow only this repository (directory name or path; repeatable)")
    s.set_defaults(func=cmd_token_add)
    s = tsub.add_parser("list", parents=[files], help="names, roles and allow-lists (never tokens or hashes)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=cmd_token_list)
    s = tsub.add_parser("revoke", parents=[files], help="remove a token; a running server refuses it at once")
    s.add_argument("name")
    s.set_defaults(func=cmd_token_revoke)
