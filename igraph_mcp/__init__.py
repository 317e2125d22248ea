"""igraph-mcp: a code graph in one SQLite file, searched with hybrid retrieval, served over MCP."""

__version__ = "0.3.0"
