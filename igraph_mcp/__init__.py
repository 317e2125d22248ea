"""igraph-mcp: a code graph in one SQLite file, searched with hybrid retrieval, served over MCP."""

import os

__version__ = "0.3.0"

# numpy's OpenBLAS starts a thread per core for a matrix-vector product as small as one query against a few
# thousand vectors; on shared cores, waking them cost 8-25 ms per product where one thread takes under 0.1 ms (and
# gives the same bits). Set before numpy loads, as OpenBLAS reads it once; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
