"""Allow ``python -m igraph_mcp``."""

from igraph_mcp.cli import main

raise SystemExit(main())
