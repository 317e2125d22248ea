"""igraph_explore's engine: one index, its parameters and its dense state, and the stages a query runs through."""

from __future__ import annotations

from igraph_mcp.explore_request import ExploreRequest
from igraph_mcp.models import ExploreResult
from igraph_mcp.retrieve import stages
from igraph_mcp.retrieve.dense_state import DenseState
from igraph_mcp.retrieve.params import RetrievalParams
from igraph_mcp.retrieve.stages import ResourceFinder, StaleCheck
from igraph_mcp.store.db import Database


class Explorer:
    """Runs queries against one index with one set of parameters (see ``stages.run`` for where a query goes)."""

    def __init__(
        self,
        db: Database,
        params: RetrievalParams,
        dense: DenseState,
        resource_finder: ResourceFinder | None = None,
        stale_check: StaleCheck | None = None,
    ) -> None:
        self.db = db
        self.params = params
        self.dense = dense
        self.resource_finder = resource_finder
        self.stale_check = stale_check

    def explore(self, request: ExploreRequest) -> ExploreResult:
        """Answer a question about the code with ranked symbols, files, neighbours and resources."""
        resolved = request.resolved(self.params.node_top_k, self.params.graph_hops)
        return stages.run(self.db, resolved, self.params, self.dense, self.resource_finder, self.stale_check)
