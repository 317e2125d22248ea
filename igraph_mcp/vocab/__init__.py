"""Facts every room shares, each with one home: the language table and kind families, what an edge's confidence
means, how source bytes become text and lines, what a test path is. This package imports nothing of igraph_mcp."""
