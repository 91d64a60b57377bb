"""Retrieval quality and speed of the ONNX embedder on code nobody here wrote.

The check: from an installed package's source (default: rich and click), every function
with a docstring gives a query (the docstring's first line) and a document (the
function's source with all docstrings removed); functions without a docstring join as
distractors. Each query is scored by the rank of its own function among all documents:
R@1, R@10 and MRR. Speed: texts/s over ~2,000 40-line pieces of package source, one
short query's latency, and the cold import + load time in a fresh interpreter.

    .venv/bin/python benchmarks/embedding_quality.py [--fp32 /work/build/minilm-fp32.onnx]

``--fp32`` takes an fp32 ONNX export of the same model (scripts/export_model.py writes
one) and reports it beside the shipped int8 model, with the cosine agreement of the two.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import types
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
if "codecompass" not in sys.modules:
    # Import the embedders without running codecompass/__init__.py, which loads the whole
    # engine and its dependencies; the torch build venv of scripts/export_model.py has
    # only what the embedders need.
    _package = types.ModuleType("codecompass")
    _package.__path__ = [str(REPO / "src" / "codecompass")]
    sys.modules["codecompass"] = _package

from codecompass.embedders.onnx import PACKAGED_MODEL_DIR, OnnxEmbedder  # noqa: E402
from codecompass.protocols import Embedder, Vectors  # noqa: E402

DEFAULT_PACKAGES = ("rich", "click")
SPEED_PACKAGES = ("rich", "click", "pygments")


@dataclass(frozen=True)
class RetrievalSet:
    queries: list[str]
    documents: list[str]
    gold: list[int]  # index into documents of each query's function


def package_files(package: str) -> list[Path]:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {package!r} is not installed in {sys.executable}")
    root = Path(next(iter(spec.submodule_search_locations)))
    return sorted(root.rglob("*.py"))


def _docstring_node(node: ast.AST) -> ast.Expr | None:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return None
    body = node.body
    if not body or not isinstance(body[0], ast.Expr):
        return None
    value = body[0].value
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return body[0]
    return None


def _function_document(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> str:
    """The function's source, decorators included, without any docstring inside it."""
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    assert node.end_lineno is not None
    dropped: set[int] = set()
    for inner in ast.walk(node):
        doc = _docstring_node(inner)
        if doc is not None and doc.end_lineno is not None:
            dropped.update(range(doc.lineno, doc.end_lineno + 1))
    kept = [lines[i - 1] for i in range(start, node.end_lineno + 1) if i not in dropped]
    return textwrap.dedent("\n".join(kept)).strip()


def _functions(path: Path) -> Iterator[tuple[str | None, str]]:
    """(first docstring line or None, document) for each function in a file."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc_node = _docstring_node(node)
        if doc_node is not None and doc_node.lineno == node.lineno:
            continue  # a one-line "def f(): '''doc'''" has no separate body to find
        document = _function_document(node, lines)
        docstring = ast.get_docstring(node) or ""
        first = next((s.strip() for s in docstring.splitlines() if s.strip()), None)
        yield first, document


def build_retrieval_set(packages: Sequence[str]) -> RetrievalSet:
    found = [item for p in packages for f in package_files(p) for item in _functions(f)]
    counts = Counter(q for q, _ in found if q)
    documents: list[str] = []
    index: dict[str, int] = {}
    queries: list[str] = []
    gold: list[int] = []
    for query, document in found:
        if document not in index:
            index[document] = len(documents)
            documents.append(document)
        # Short or repeated first lines ("Get the value.") name no single function;
        # their functions stay in as distractors.
        if query and len(query.split()) >= 3 and counts[query] == 1:
            queries.append(query)
            gold.append(index[document])
    return RetrievalSet(queries, documents, gold)


def retrieval_scores(
    query_vectors: Vectors, doc_vectors: Vectors, gold: Sequence[int]
) -> dict[str, float]:
    scores = query_vectors @ doc_vectors.T
    own = scores[np.arange(len(gold)), np.asarray(gold)]
    ranks = 1 + (scores > own[:, None]).sum(axis=1)
    return {
        "R@1": float(np.mean(ranks <= 1)),
        "R@10": float(np.mean(ranks <= 10)),
        "MRR": float(np.mean(1.0 / ranks)),
    }


def speed_pieces(count: int, lines_per_piece: int = 40) -> list[str]:
    pieces: list[str] = []
    for package in SPEED_PACKAGES:
        if importlib.util.find_spec(package) is None:
            continue
        for path in package_files(package):
            lines = path.read_text(encoding="utf-8").splitlines()
            for start in range(0, len(lines), lines_per_piece):
                piece = "\n".join(lines[start : start + lines_per_piece]).strip()
                if piece:
                    pieces.append(piece)
                if len(pieces) == count:
                    return pieces
    return pieces


def throughput(embedder: Embedder, texts: Sequence[str]) -> float:
    embedder.embed(list(texts[:8]))  # warm-up
    start = time.perf_counter()
    embedder.embed(texts)
    return len(texts) / (time.perf_counter() - start)


def query_latency_ms(embedder: Embedder, queries: Sequence[str], runs: int = 100) -> float:
    embedder.embed(list(queries[:4]))
    times = []
    for query in list(queries)[:runs]:
        start = time.perf_counter()
        embedder.embed([query])
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def cold_load_seconds(model_dir: Path | None) -> tuple[float, float]:
    """Seconds to import numpy, onnxruntime and tokenizers, and to load the model and
    embed one short text, in a fresh interpreter."""
    code = textwrap.dedent(
        f"""
        import sys, time
        t0 = time.perf_counter()
        import numpy, onnxruntime, tokenizers
        t1 = time.perf_counter()
        sys.path.insert(0, {str(REPO / "benchmarks")!r})
        from embedding_quality import OnnxEmbedder
        t2 = time.perf_counter()
        e = OnnxEmbedder({None if model_dir is None else str(model_dir)!r})
        e.embed(["x"])
        t3 = time.perf_counter()
        print(t1 - t0, t3 - t2)
        """
    )
    runs = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        imp, load = out.stdout.split()
        runs.append((float(imp), float(load)))
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def fp32_embedder(
    onnx_file: Path, workdir: Path, threads: int | None = None, batch_size: int = 1
) -> OnnxEmbedder:
    """An embedder for an fp32 export, reusing the packaged tokenizer."""
    (workdir / "model.onnx").symlink_to(onnx_file.resolve())
    (workdir / "tokenizer.json").symlink_to(PACKAGED_MODEL_DIR / "tokenizer.json")
    return OnnxEmbedder(
        workdir,
        threads=threads,
        batch_size=batch_size,
        model_id="sentence-transformers/all-MiniLM-L6-v2:onnx-fp32",
    )


def evaluate(
    embedder: Embedder, data: RetrievalSet, pieces: Sequence[str], *, speed: bool = True
) -> dict[str, object]:
    start = time.perf_counter()
    doc_vectors = embedder.embed(data.documents)
    query_vectors = embedder.embed(data.queries)
    result: dict[str, object] = dict(retrieval_scores(query_vectors, doc_vectors, data.gold))
    result["embed_seconds"] = time.perf_counter() - start
    result["doc_vectors"] = doc_vectors
    if speed:
        result["texts_per_s"] = throughput(embedder, pieces)
        result["query_ms"] = query_latency_ms(embedder, data.queries)
    return result


def cosine_agreement(a: Vectors, b: Vectors) -> tuple[float, float]:
    cos = np.sum(a * b, axis=1)
    return float(cos.min()), float(cos.mean())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fp32", type=Path, help="fp32 ONNX file of the same model to compare")
    parser.add_argument("--package", action="append", help="package(s) to draw functions from")
    parser.add_argument("--chunks", type=int, default=2000, help="pieces for the throughput run")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    parser.add_argument("--batch-size", type=int, default=1, help="texts per onnxruntime run")
    args = parser.parse_args(argv)

    data = build_retrieval_set(args.package or DEFAULT_PACKAGES)
    pieces = speed_pieces(args.chunks)
    int8 = OnnxEmbedder(threads=args.threads, batch_size=args.batch_size)
    tokens = int8.count_tokens(pieces)
    print(
        f"retrieval: {len(data.queries)} queries, {len(data.documents)} documents "
        f"({len(data.documents) - len(data.queries)} distractors) "
        f"from {', '.join(args.package or DEFAULT_PACKAGES)}"
    )
    print(
        f"speed: {len(pieces)} 40-line pieces, median {statistics.median(tokens):.0f} tokens, "
        f"{np.mean(np.asarray(tokens) > int8.max_tokens):.0%} over {int8.max_tokens}"
    )
    rows: list[tuple[str, dict[str, object], tuple[float, float]]] = []
    rows.append(("int8 (shipped)", evaluate(int8, data, pieces), cold_load_seconds(None)))
    if args.fp32:
        with tempfile.TemporaryDirectory() as tmp:
            fp32 = fp32_embedder(args.fp32, Path(tmp), args.threads, args.batch_size)
            rows.append(("fp32", evaluate(fp32, data, pieces), cold_load_seconds(Path(tmp))))
    print(
        f"{'model':<16}{'R@1':>7}{'R@10':>7}{'MRR':>7}{'texts/s':>9}{'query ms':>10}"
        f"{'import s':>10}{'load s':>8}"
    )
    for name, r, (imp, load) in rows:
        print(
            f"{name:<16}{r['R@1']:>7.3f}{r['R@10']:>7.3f}{r['MRR']:>7.3f}"
            f"{r['texts_per_s']:>9.1f}{r['query_ms']:>10.2f}{imp:>10.2f}{load:>8.2f}"
        )
    if args.fp32:
        a, b = rows[0][1]["doc_vectors"], rows[1][1]["doc_vectors"]
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
        low, mean = cosine_agreement(a, b)
        print(f"int8 vs fp32 cosine over the {len(a)} documents: min {low:.4f}, mean {mean:.4f}")


if __name__ == "__main__":
    main()
