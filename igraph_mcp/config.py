"""Configuration: ``<root>/.igraph/config.json`` validated with pydantic, IGraph's keys, IGRAPH_* overrides."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from igraph_mcp.errors import ConfigError
from igraph_mcp.explore_request import (
    DEFAULT_HOPS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TOP_K,
    HOPS_MAX,
    MAX_TOKENS_MAX,
    MAX_TOKENS_MIN,
)

CONFIG_DIR = ".igraph"
CONFIG_FILE = "config.json"
DB_FILE = "igraph.db"
MOUNTS_FILE = "mounts.json"

# Keys that look like credentials must never live in a file inside the repository.
_CREDENTIAL_KEY = re.compile(r"(api[_-]?key|secret|token|password|passwd|credential|auth)", re.IGNORECASE)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class RetrievalConfig(_Strict):
    """Retrieval knobs, same names and defaults as IGraph."""

    fileTopK: int = Field(10, ge=1, le=200)
    nodeTopK: int = Field(DEFAULT_TOP_K, ge=1, le=200)
    fallbackThreshold: float = Field(0.75, ge=0.0, le=1.0)
    graphHops: int = Field(DEFAULT_HOPS, ge=0, le=HOPS_MAX)
    fusion: Literal["rrf"] = "rrf"
    rrfK: int = Field(60, ge=1, le=1000)
    denseWeight: float = Field(1.0, ge=0.0, le=10.0)
    ftsWeight: float = Field(1.0, ge=0.0, le=10.0)
    resourceTopK: int = Field(3, ge=0, le=50)
    maxTokens: int = Field(DEFAULT_MAX_TOKENS, ge=MAX_TOKENS_MIN, le=MAX_TOKENS_MAX)


class EmbedderConfig(_Strict):
    """Which embedding backend to use; credentials only ever come from IGRAPH_API_KEY."""

    backend: Literal["local", "static", "openai", "hash", "none"] = "local"
    # local only: ONNX Runtime (no torch on the query path) or sentence-transformers on torch.
    runtime: Literal["onnx", "torch"] = "onnx"
    # onnx only: int8 weights; its vectors differ from fp32 (another embedder id, so never mixed). "auto" = int8 on
    # onnx, none on torch (embed/registry.AUTO_QUANTIZE says why).
    quantize: Literal["auto", "none", "int8"] = "auto"
    # local only: a shipped weight adapter by name, or "none" for the plain model; unset = the model's default.
    adapter: str | None = None
    # A shipped transform of query vectors by name (embed/query_transform.py), or "none"; unset = the default.
    queryTransform: str | None = None
    model: str | None = None
    baseUrl: str | None = None
    dimension: int | None = Field(None, ge=8, le=8192)
    batchSize: int = Field(64, ge=1, le=4096)


class MultimodalConfig(_Strict):
    """Thresholds for linking mounted documents to code, as IGraph's defaults."""

    strongLinkThreshold: float = Field(0.85, ge=0.0, le=1.0)
    weakLinkThreshold: float = Field(0.70, ge=0.0, le=1.0)
    allowedDirs: list[str] = Field(default_factory=list)


class IndexConfig(_Strict):
    """Walker limits and parse workers."""

    maxFileBytes: int = Field(1_000_000, ge=1_000, le=100_000_000)
    exclude: list[str] = Field(default_factory=list)
    # Processes that parse a large batch of changed files: 0 = one per core (up to 4), 1 = parse in the indexer.
    parseWorkers: int = Field(0, ge=0, le=32)


class Config(_Strict):
    """The whole configuration file."""

    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    multimodal: MultimodalConfig = Field(default_factory=MultimodalConfig)
    index: IndexConfig = Field(default_factory=IndexConfig)


# Our own setting names are never credentials, even when they look like one ("maxTokens" contains "token").
_KNOWN_KEYS = frozenset(
    name
    for model in (Config, RetrievalConfig, EmbedderConfig, MultimodalConfig, IndexConfig)
    for name in model.model_fields
)


def _reject_credentials(data: Any, where: str = "") -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            if key not in _KNOWN_KEYS and _CREDENTIAL_KEY.search(str(key)):
                raise ConfigError(
                    f"config.json contains a credential-like key '{where}{key}'; remove it and set the "
                    "IGRAPH_API_KEY environment variable instead (secrets never belong in the repository)"
                )
            _reject_credentials(value, f"{where}{key}.")


_STORE_KEY = re.compile(r"^(store|database|databaseurl|database_url|dburl|db_url|storeurl|store_url|dsn)$", re.I)
_STORE_URL = re.compile(r"^\s*postgres(ql)?://", re.IGNORECASE)


def _reject_store(data: Any, where: str = "") -> None:
    """A cloned repository must not choose which database its index goes to, nor carry the credentials to it."""
    if isinstance(data, dict):
        for key, value in data.items():
            if _STORE_KEY.match(str(key)) or (isinstance(value, str) and _STORE_URL.match(value)):
                raise ConfigError(
                    f"config.json names a store at '{where}{key}'; a repository's config may never choose the "
                    "database its index is written to - remove it and pass --store URL or set IGRAPH_DATABASE_URL "
                    "(or IGRAPH_DATABASE_URL_FILE) instead"
                )
            _reject_store(value, f"{where}{key}.")
    elif isinstance(data, list):
        _reject_store({str(i): value for i, value in enumerate(data)}, where)


# IGRAPH_* environment overrides: variable -> (section, key).
_ENV_OVERRIDES: dict[str, tuple[str, str]] = {
    **{f"IGRAPH_{re.sub(r'(?<!^)(?=[A-Z])', '_', k).upper()}": ("retrieval", k) for k in RetrievalConfig.model_fields},
    "IGRAPH_EMBEDDER": ("embedder", "backend"),
    "IGRAPH_EMBED_MODEL": ("embedder", "model"),
    "IGRAPH_EMBED_RUNTIME": ("embedder", "runtime"),
    "IGRAPH_EMBED_QUANTIZE": ("embedder", "quantize"),
    "IGRAPH_EMBED_ADAPTER": ("embedder", "adapter"),
    "IGRAPH_EMBED_QUERY_TRANSFORM": ("embedder", "queryTransform"),
    "IGRAPH_EMBED_BASE_URL": ("embedder", "baseUrl"),
    "IGRAPH_EMBED_DIMENSION": ("embedder", "dimension"),
    "IGRAPH_EMBED_BATCH_SIZE": ("embedder", "batchSize"),
    "IGRAPH_PARSE_WORKERS": ("index", "parseWorkers"),
}


def config_path(root: Path) -> Path:
    """Location of the configuration file for ``root``."""
    return root / CONFIG_DIR / CONFIG_FILE


def load_config(root: Path, env: dict[str, str] | None = None) -> Config:
    """Read, check and validate the config file, then apply IGRAPH_* environment overrides."""
    env = dict(os.environ) if env is None else env
    path = config_path(root)
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{path} is not valid JSON ({exc}); fix it or delete it to use the defaults") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{path} must hold a JSON object; fix it or delete it to use the defaults")
        _reject_store(data)
        _reject_credentials(data)
        if (data.get("multimodal") or {}).get("allowedDirs"):
            # A cloned repository must not widen what an agent may read outside it: only the user can.
            raise ConfigError(
                f"{path} sets multimodal.allowedDirs, which lets mounts read outside the repository; remove it "
                "and list such directories in the IGRAPH_ALLOWED_DIRS environment variable (separated by "
                f"'{os.pathsep}') instead"
            )
    for var, (section, key) in _ENV_OVERRIDES.items():
        if var in env and env[var] != "":
            data.setdefault(section, {})[key] = env[var]
    if env.get("IGRAPH_ALLOWED_DIRS"):
        dirs = [d for d in env["IGRAPH_ALLOWED_DIRS"].split(os.pathsep) if d.strip()]
        data.setdefault("multimodal", {})["allowedDirs"] = dirs
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)
        )
        raise ConfigError(f"invalid configuration ({problems}); fix {path} or the IGRAPH_* variables") from exc


def write_default_config(root: Path, *, overwrite: bool = False) -> Path:
    """Write the default configuration file and return its path."""
    path = config_path(root)
    if path.exists() and not overwrite:
        raise ConfigError(f"{path} already exists; pass --force to overwrite it")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(Config().model_dump(), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"{path} cannot be written ({exc.strerror or type(exc).__name__}); make {path.parent} a writable "
            "directory, or set options through the IGRAPH_* environment variables instead"
        ) from exc
    return path


# -- where the index lives -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StateLocation:
    """The directory holding the index, the lock and mounts.json, and why it is not ``<root>/.igraph``."""

    path: Path
    fallback_reason: str | None = None

    def note(self) -> str | None:
        """One line for ``status`` when the index lives outside the repository."""
        if self.fallback_reason is None:
            return None
        return f"the index is kept in {self.path} because {self.fallback_reason}"


def cache_state_dir(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The per-user location for a repository's index: one directory per real path of the root."""
    env = os.environ if env is None else env
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = re.sub(r"[^\w.-]", "_", Path(real).name)[:40] or "root"
    return base / "igraph-mcp" / "indexes" / f"{digest}-{name}"


def can_write(path: Path) -> bool:
    """Whether this process may create files in (or write) ``path``; EROFS counts, root's bypass too."""
    return os.access(path, os.W_OK)


def locate_state_dir(
    root: Path, env: Mapping[str, str] | None = None, *, writable: Callable[[Path], bool] | None = None
) -> StateLocation:
    """``<root>/.igraph`` when it can be written, else the per-user cache location (read-only checkouts,
    another user's tree). Nothing is created here: a query on a never-indexed repository leaves no trace."""
    writable = writable or can_write  # looked up per call, so a test can stand in for the permission probe
    in_repo = root / CONFIG_DIR
    if in_repo.is_dir():
        db = in_repo / DB_FILE
        if writable(in_repo) and (not db.exists() or writable(db)):
            return StateLocation(in_repo)
        reason = f"{in_repo} is not writable"
    elif in_repo.exists() or in_repo.is_symlink():
        reason = f"{in_repo} is not a directory"
    elif writable(root):
        return StateLocation(in_repo)
    else:
        reason = f"the repository {root} is not writable"
    return StateLocation(cache_state_dir(root, env), reason)
