"""Store URLs: which ones name PostgreSQL, and the form of one that is safe to print (no password)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

PG_SCHEMES = ("postgresql", "postgres")
_SECRET_PARAMS = {"password", "sslpassword"}


def is_pg_url(text: str) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL."""
    return urlsplit(text.strip()).scheme.lower() in PG_SCHEMES


def safe_url(url: str) -> str:
    """The URL with any password (in the user part or the query) replaced by ``***``: the only form we print."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<an unparsable store URL>"
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, "***" if k.lower() in _SECRET_PARAMS else v) for k, v in pairs], safe="/*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
