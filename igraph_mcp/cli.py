"""Command line: a thin shell over IGraphService; library errors become one clean line and a documented exit code.

Messages from the service are written for both fronts (they name MCP tools and arguments); ``cli_terms`` turns
them into the commands and flags a person types here.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from igraph_mcp import __version__
from igraph_mcp.errors import IGraphError, IndexBusy
from igraph_mcp.explore_request import DEFAULT_HOPS, DEFAULT_TOP_K, HOPS_MAX, SNIPPET_HITS, TOP_K_MAX
from igraph_mcp.index.phases import Progress
from igraph_mcp.vocab.kinds import filterable_kinds

log = logging.getLogger("igraph_mcp")

# Exit codes (also in --help and the README): scripts can tell "not there" from "several" from "broken".
EXIT_OK = 0
EXIT_ERROR = 1  # bad input, no index yet, damaged index, storage or embedder failure: the message says what to do
EXIT_USAGE = 2  # unknown command or option (argparse)
EXIT_NOT_FOUND = 3  # node / file / related / unmount: nothing matches
EXIT_AMBIGUOUS = 4  # node / file / related: several candidates, listed; narrow with a qualified name or --file
EXIT_BUSY = 5  # another process is writing the index: retry when it is done
EXIT_INTERRUPTED = 130
EXIT_CODES_HELP = """exit codes:
  0  success (a search with no matches included)
  1  error: bad input, no index yet, damaged index, storage or embedder failure (the message says what to do)
  2  usage error (unknown command or option)
  3  not found: node, file, related or unmount matched nothing
  4  ambiguous: several symbols or files match; they are listed, narrow with a qualified name or --file
  5  busy: another igraph-mcp process is writing this index; retry when it is done
  130 interrupted (the index stays consistent; run the command again)"""

# MCP tool and argument names as they appear in service messages -> what a CLI user types.
_TOOL_TO_COMMAND = {
    "igraph_explore": "igraph-mcp search",
    "igraph_index": "igraph-mcp index",
    "igraph_node": "igraph-mcp node",
    "igraph_file": "igraph-mcp file",
    "igraph_related": "igraph-mcp related",
    "igraph_status": "igraph-mcp status",
    "igraph_list_resources": "igraph-mcp resources",
    "igraph_mount_resource": "igraph-mcp mount",
    "igraph_unmount_resource": "igraph-mcp unmount",
}
_ARGUMENT_TO_FLAG = {
    "topK": "--top-k",
    "maxTokens": "--max-tokens",
    "contextFiles": "--context-file",
    "replace=true": "--replace",
    "allowMassDelete=true": "--allow-mass-delete",
}
# "`igraph-mcp index` (or the igraph_index tool)" and "... or the igraph_index tool": the CLI half is enough.
_BOTH_FRONTS = re.compile(r"\s*\(?\bor the igraph_[a-z_]+ tool\)?")
_TOOL = re.compile(r"`?\b(" + "|".join(_TOOL_TO_COMMAND) + r")\b`?(?: tool)?")
_ARGUMENT = re.compile(r"\b(" + "|".join(map(re.escape, _ARGUMENT_TO_FLAG)) + r")\b")


def cli_terms(text: str) -> str:
    """A service message in the commands and flags of this CLI (``igraph_index`` -> `igraph-mcp index`)."""
    text = _BOTH_FRONTS.sub("", text)
    text = _TOOL.sub(lambda m: f"`{_TOOL_TO_COMMAND[m.group(1)]}`", text)
    text = _ARGUMENT.sub(lambda m: _ARGUMENT_TO_FLAG[m.group(1)], text)
    return text.replace("the file argument", "--file")


def _lookup_code(result: BaseModel) -> int:
    """Exit code of a lookup answer: found, not found, or ambiguous (candidates listed)."""
    if getattr(result, "found", True):
        return EXIT_OK
    return EXIT_AMBIGUOUS if getattr(result, "candidates", None) else EXIT_NOT_FOUND


def _emit(result: BaseModel | dict[str, Any], as_json: bool, render: Callable[[Any], str]) -> None:
    if as_json:
        data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(cli_terms(render(result)) + "\n")


@contextmanager
def _progress(enabled: bool) -> Iterator[Progress | None]:
    """A progress bar on a terminal; nothing when piped (scripts read only the summary)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from igraph_mcp.progress_bar import ProgressBar

    bar = ProgressBar()
    try:
        yield bar.update
    finally:
        bar.close()


def _root(args: argparse.Namespace) -> str:
    """The (first) --root, for commands that act on one repository (init, view)."""
    from igraph_mcp.workspace import parse_root

    roots = args.root if isinstance(args.root, list) else [args.root]
    return parse_root(roots[0])[1] if roots and roots[0] else "."


def _service(args: argparse.Namespace, **kwargs: Any) -> Any:
    from igraph_mcp.service import IGraphService
    from igraph_mcp.workspace import store_options

    return IGraphService(Path(_root(args)), **store_options(args), **kwargs)


def _workspace(args: argparse.Namespace, **kwargs: Any) -> Any:
    """The repositories of the command: one --root as always, or several (--root repeated, --workspace FILE)."""
    from igraph_mcp.service import IGraphService
    from igraph_mcp.workspace import Workspace, store_options, workspace_roots

    roots = workspace_roots(args.root, getattr(args, "workspace", None))
    kwargs.update(store_options(args, roots=len(roots)))
    if len(roots) == 1:
        return Workspace.single(IGraphService(roots[0].root, **kwargs))
    return Workspace.open(roots, **kwargs)


# -- commands -------------------------------------------------------------------------------------------------
def cmd_index(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_index

    if args.path:
        args.root = [args.path]
    ws = _workspace(args)
    names = ws.select(args.repo)
    code = EXIT_OK
    for name in names:  # a workspace without --repo: every repository in turn; one that fails does not stop the rest
        try:
            with _progress(not args.json) as progress:
                kwargs = {
                    "full": args.full,
                    "dry_run": args.dry_run,
                    "embed": not args.no_embed,
                    "all_skipped": args.all_skipped or args.verbose,
                    "replace": args.replace,
                    "allow_mass_delete": args.allow_mass_delete,
                }
                result = ws.service(name).index(**kwargs, progress=progress)
        except IGraphError as exc:
            if len(names) == 1:
                raise
            sys.stderr.write(f"igraph-mcp: {name}: {cli_terms(str(exc))}\n")
            code = code or (EXIT_BUSY if isinstance(exc, IndexBusy) else EXIT_ERROR)
            continue
        _emit(result.model_copy(update={"repo": name}) if ws.multi else result, args.json, render_index)
    return code


def cmd_search(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_explore

    ws = _workspace(args)
    channels = {"hybrid": ("fts", "dense"), "fts": ("fts",), "dense": ("dense",)}[args.channels]
    result = ws.explore(
        args.query,
        repos=ws.select(args.repo),
        top_k=args.top_k,
        hops=args.hops,
        kinds=args.kind or None,
        context_files=args.context_file or (),
        max_tokens=args.max_tokens,
        channels=channels,
    )
    _emit(result, args.json, render_explore)
    return 0


def cmd_node(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_node

    ws = _workspace(args)
    result = ws.lookup(ws.select(args.repo), lambda svc: svc.node(args.name, args.file), "the name")
    _emit(result, args.json, render_node)
    return _lookup_code(result)


def cmd_file(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_file

    ws = _workspace(args)
    result = ws.lookup(ws.select(args.repo), lambda svc: svc.file(args.path), "the path")
    _emit(result, args.json, render_file)
    return _lookup_code(result)


def cmd_related(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_related

    ws = _workspace(args)
    related = (args.name, args.direction, args.hops, args.limit)
    result = ws.lookup(ws.select(args.repo), lambda svc: svc.related(*related), "the name")
    _emit(result, args.json, render_related)
    return _lookup_code(result)


def cmd_status(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_status

    ws = _workspace(args, embed=False)
    name = ws.one(args.repo)
    _emit(ws.status(name, summary=ws.names if args.repo is None else ()), args.json, render_status)
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from igraph_mcp.config import write_default_config

    path = write_default_config(Path(_root(args)), overwrite=args.force)
    sys.stdout.write(f"wrote {path}\n")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    started = None
    if args.transport == "stdio":
        from igraph_mcp.server_state import open_state

        # The background work (the first build, or finishing an interrupted one) starts before the MCP SDK is
        # imported: that import takes a second, several on a busy machine, and the embedding runs meanwhile.
        started = open_state(args)
        started.attach()
    from igraph_mcp.server import serve

    return serve(args, started=started)


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


def cmd_register(args: argparse.Namespace) -> int:
    from igraph_mcp.register import register

    return register(args)


def cmd_mount(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_mount

    ws = _workspace(args)
    name = ws.one(args.repo)
    result = ws.service(name).mount(args.path, source_type=args.type, name=args.name)
    _emit(result.model_copy(update={"repo": name}) if ws.multi else result, args.json, render_mount)
    return 0


def cmd_unmount(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_unmount

    ws = _workspace(args)
    name = ws.one(args.repo)
    result = ws.service(name).unmount(args.target)
    result = result.model_copy(update={"repo": name}) if ws.multi else result
    _emit(result, args.json, render_unmount)
    return _lookup_code(result)


def cmd_resources(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_resources

    ws = _workspace(args, embed=False)
    _emit(ws.list_resources(ws.select(args.repo)), args.json, render_resources)
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    from igraph_mcp.view import launch

    svc = _service(args)
    if args.out:
        sys.stdout.write(launch.write_out(svc, Path(args.out), queries=args.query or [], focus=args.focus) + "\n")
    else:
        launch.serve(svc, host=args.host, port=args.port, allow_remote=args.allow_remote, open_browser=args.open)
    return 0


# -- parser ---------------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and docs)."""
    p = argparse.ArgumentParser(
        prog="igraph-mcp",
        description="Code graph + hybrid retrieval for AI agents. "
        "With no command, serves MCP over stdio for the current directory.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"igraph-mcp {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    stores = argparse.ArgumentParser(add_help=False)
    stores.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="where the index lives: postgresql://... (default: $IGRAPH_DATABASE_URL, else $IGRAPH_DATABASE_URL_FILE, "
        "else the SQLite file in .igraph/); `sqlite` forces the file",
    )
    stores.add_argument(
        "--repo-name",
        default=None,
        metavar="NAME",
        help="the repository's name in a shared PostgreSQL store (default: the root folder's name)",
    )
    common = argparse.ArgumentParser(add_help=False, parents=[stores])
    common.add_argument(
        "--root",
        action="append",
        default=None,
        metavar="[NAME=]PATH",
        help="repository root (default: current directory); repeat for a workspace of several repositories",
    )
    common.add_argument("--workspace", default=None, metavar="FILE", help="a workspace file (see `serve --help`)")
    common.add_argument("--repo", default=None, metavar="NAME", help="in a workspace: only this repository")
    common.add_argument("--json", action="store_true", help="machine-readable output")
    sub = p.add_subparsers(dest="command")

    s = sub.add_parser("index", parents=[common], help="build or update the index (incremental)")
    s.add_argument("path", nargs="?", help="repository root (same as --root)")
    s.add_argument("--full", action="store_true", help="rebuild from scratch")
    s.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    s.add_argument("--no-embed", action="store_true", help="structure and FTS only, skip embeddings")
    s.add_argument(
        "-v",
        "--verbose",
        dest="all_skipped",
        action="store_true",
        help="name every skipped file (default: the first 20, then a count)",
    )
    s.add_argument(
        "--replace",
        action="store_true",
        help="in a shared store: take over a --repo-name bound to another repository (its index becomes this one's)",
    )
    s.add_argument(
        "--allow-mass-delete",
        action="store_true",
        help="allow a run that deletes more than half of the indexed files (refused by default: a wrong root?)",
    )
    s.set_defaults(func=cmd_index)

    s = sub.add_parser(
        "search",
        parents=[common],
        help="hybrid search: 10 hits plus their callers/callees and linked documents (as the igraph_explore tool)",
    )
    s.add_argument("query")
    s.add_argument(
        "--top-k",
        type=int,
        default=None,
        help=f"ranked symbols to return, 1-{TOP_K_MAX} (default: retrieval.nodeTopK of the config, {DEFAULT_TOP_K}; "
        f"{SNIPPET_HITS} with snippets)",
    )
    s.add_argument(
        "--hops",
        type=int,
        default=None,
        help=f"call-graph hops around the hits, 0-{HOPS_MAX} (default: retrieval.graphHops of the config, "
        f"{DEFAULT_HOPS}); 0 = hits only",
    )
    s.add_argument(
        "--kind", action="append", help=f"only symbols of this kind (repeatable): {', '.join(filterable_kinds())}"
    )
    s.add_argument("--context-file", action="append", help="boost symbols in this file (repeatable)")
    s.add_argument("--max-tokens", type=int, default=None)
    s.add_argument("--channels", choices=("hybrid", "fts", "dense"), default="hybrid")
    s.set_defaults(func=cmd_search)

    s = sub.add_parser("node", parents=[common], help="details of one symbol")
    s.add_argument("name")
    s.add_argument("--file", default=None)
    s.set_defaults(func=cmd_node)

    s = sub.add_parser("file", parents=[common], help="outline of one file")
    s.add_argument("path")
    s.set_defaults(func=cmd_file)

    s = sub.add_parser("related", parents=[common], help="callers / callees of a symbol")
    s.add_argument("name")
    s.add_argument("--direction", choices=("callers", "callees", "both"), default="both")
    s.add_argument("--hops", type=int, default=1)
    s.add_argument("--limit", type=int, default=None, help="symbols to list, 1-1000 (default 100); the rest is counted")
    s.set_defaults(func=cmd_related)

    s = sub.add_parser("status", parents=[common], help="index statistics")
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("init", parents=[common], help="write .igraph/config.json with the defaults")
    s.add_argument("--force", action="store_true")
    s.set_defaults(func=cmd_init)

    s = sub.add_parser("mount", parents=[common], help="mount a PRD or DB schema")
    s.add_argument("path")
    s.add_argument("--type", choices=("prd", "db", "auto"), default="auto")
    s.add_argument("--name", default=None)
    s.set_defaults(func=cmd_mount)

    s = sub.add_parser("unmount", parents=[common], help="unmount a resource by id or path")
    s.add_argument("target")
    s.set_defaults(func=cmd_unmount)

    s = sub.add_parser("resources", parents=[common], help="list mounted resources")
    s.set_defaults(func=cmd_resources)

    s = sub.add_parser("serve", parents=[stores], help="run the MCP server")
    s.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="repository root (default: current directory); repeat for a workspace of several, each named by "
        "its directory or NAME=",
    )
    s.add_argument(
        "--workspace",
        default=None,
        metavar="FILE",
        help='a workspace file: {"repos": [{"name": "api", "root": "../api"}, ...]} (roots relative to the file)',
    )
    s.add_argument("--transport", choices=("stdio", "http", "sse"), default="stdio")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8765)
    s.add_argument("--watch", action="store_true", help="keep the index current with a file watcher")
    s.add_argument("--allow-remote", action="store_true", help="allow binding a non-loopback host (needs a token)")
    s.add_argument(
        "--no-auto-index",
        action="store_true",
        help="do not build the index on start, nor finish one a killed build left unfinished",
    )
    s.add_argument(
        "--tokens",
        default=None,
        metavar="FILE",
        help="named bearer tokens (igraph-mcp token add), re-read when it changes; default $IGRAPH_HTTP_TOKENS_FILE",
    )
    s.add_argument("--log-queries", action="store_true", help="put tool arguments (query text) in the access log lines")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser(
        "view",
        help="a browser view of what the agent sees: search, a symbol's neighbourhood, the map, resources "
        "(needs the 'view' extra)",
        parents=[stores],
    )
    s.add_argument("--root", default=".")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=0, help="default: any free port (the URL is printed)")
    s.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host (the token still applies)")
    s.add_argument("--open", action="store_true", help="open the page in the default browser")
    s.add_argument("--out", default=None, help="write FILE.html (opens offline) or the map as FILE.graphml / .json")
    s.add_argument("--query", action="append", help="with --out FILE.html: a search the file answers (repeatable)")
    s.add_argument("--focus", default="", help="with --out .graphml/.json: the folder whose map to write")
    s.set_defaults(func=cmd_view)
    _add_token_parser(sub)

    s = sub.add_parser("register", help="add igraph-mcp to an MCP client's configuration")
    s.add_argument("--target", choices=("claude-code", "cursor", "claude-desktop"), required=True)
    s.add_argument("--root", default=".")
    s.add_argument("--config-path", default=None, help="override the client's config file location")
    s.add_argument(
        "--command",
        dest="launch_command",
        default=None,
        help="command the client should run (default: the absolute path of this igraph-mcp, "
        "or `uvx --from <source> igraph-mcp` when run under uvx)",
    )
    s.add_argument(
        "--url", default=None, help="register a running HTTP server (e.g. https://igraph.example.com/mcp) instead"
    )
    s.add_argument(
        "--token-env",
        default="IGRAPH_HTTP_TOKEN",
        metavar="VAR",
        help="with --url: the environment variable the client reads the bearer token from (default %(default)s)",
    )
    s.set_defaults(func=cmd_register)
    return p


def _add_token_parser(sub: Any) -> None:
    """`igraph-mcp token add|list|revoke`: the named tokens of an HTTP server."""
    files = argparse.ArgumentParser(add_help=False)
    files.add_argument("--tokens", default=None, metavar="FILE", help="token file (default $IGRAPH_HTTP_TOKENS_FILE)")
    t = sub.add_parser("token", help="named bearer tokens for `serve --transport http --tokens FILE`")
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``igraph-mcp`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if args.command is None:
        args = parser.parse_args(["serve", *(argv or [])])
    try:
        return int(args.func(args))
    except IndexBusy as exc:
        sys.stderr.write(f"igraph-mcp: {cli_terms(str(exc))}\n")
        return EXIT_BUSY
    except IGraphError as exc:
        sys.stderr.write(f"igraph-mcp: {cli_terms(str(exc))}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("igraph-mcp: interrupted; the index stays consistent, run the command again to finish\n")
        return EXIT_INTERRUPTED
