# igraph-mcp in a container: the MCP server over the repository mounted at /repo, fully offline.
#
#   docker build -t igraph-mcp .
#   docker run -i --rm --user "$(id -u):$(id -g)" -v "$PWD:/repo" igraph-mcp            # stdio (MCP clients)
#   docker run -i --rm --user "$(id -u):$(id -g)" -v "$PWD:/repo" igraph-mcp index --root /repo
#
# HTTP from the host: inside the container the server must bind 0.0.0.0, which igraph-mcp only does with
# --allow-remote and a bearer token (publish the port on the host's loopback only):
#   docker run --rm -e IGRAPH_HTTP_TOKEN="$(openssl rand -hex 32)" -p 127.0.0.1:8765:8765 -v "$PWD:/repo" \
#     igraph-mcp serve --root /repo --transport http --host 0.0.0.0 --allow-remote
#
# The index lives in /repo/.igraph (on the mounted volume), so it survives the container; --user keeps its
# files owned by you.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /opt/igraph-mcp
COPY pyproject.toml README.md LICENSE ./
COPY igraph_mcp ./igraph_mcp
# No torch: the default embedder is the int8 all-MiniLM-L6-v2 in igraph_mcp/embed/bundled/, run by ONNX Runtime.
RUN pip install . \
    && python -c "from igraph_mcp.embed import shipped; shipped.load(); import igraph_mcp; print('igraph-mcp', igraph_mcp.__version__)"

# Offline at run time: the shipped model is used, and any attempt to reach the Hugging Face hub fails fast.
ENV HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    HOME=/tmp

RUN useradd --uid 10001 --no-create-home --shell /usr/sbin/nologin igraph
USER igraph

VOLUME ["/repo"]
WORKDIR /repo
EXPOSE 8765
ENTRYPOINT ["igraph-mcp"]
CMD ["serve", "--root", "/repo"]
