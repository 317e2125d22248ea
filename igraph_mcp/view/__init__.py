"""The browser view: what the agent sees, as a local page (``igraph-mcp view``) or one offline HTML file."""
