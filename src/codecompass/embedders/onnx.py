"""The default, offline embedder: all-MiniLM-L6-v2 run by onnxruntime.

The model ships inside the package (``embedders/model/``: an int8 ONNX graph and the
upstream ``tokenizer.json``; ``MODEL.md`` there says how they were made). Vectors are
computed the way sentence-transformers computes them for this model: at most 256
tokens, mean pooling over the attention mask, then L2 normalization.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from codecompass.errors import EmbedderError
from codecompass.protocols import Vectors

PACKAGED_MODEL_DIR = Path(__file__).resolve().parent / "model"
PACKAGED_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2:onnx-int8"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MAX_TOKENS = 256

# Texts are tokenized a window at a time: enough to sort into well-filled batches,
# few enough that the tokenizer's per-text objects never pile up.
_WINDOW_BATCHES = 16
_MIN_WINDOW = 256


class OnnxEmbedder:
    """Embeds texts with a BERT-style ONNX model and its ``tokenizer.json``.

    ``model_dir`` defaults to the packaged int8 all-MiniLM-L6-v2. Another folder with
    the same two files (for example the fp32 export) works too; its ``model_id`` is then
    ``onnx:<folder name>:<first 12 hex digits of the model's SHA-256>`` unless given,
    so vectors of different models never share an embedding cache.

    ``batch_size`` defaults to 1 because the int8 model quantizes activations with one
    scale per run: a text batched with others gets a slightly different vector (cosine
    0.97-0.99) than alone, and the embedding cache would then depend on what was
    batched together. One text per run makes every vector a function of its text only;
    measured on 2 cores it is as fast as batches of 32 for code (which is mostly
    long), though batches of 8 were ~15% faster. Larger batches are sorted by length and
    padded per batch.

    The ONNX session is created on first use. One instance may be shared by threads.
    """

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        threads: int | None = None,
        batch_size: int = 1,
        model_id: str | None = None,
    ) -> None:
        if batch_size < 1:
            raise EmbedderError(f"batch_size must be at least 1, got {batch_size}.")
        if threads is not None and threads < 1:
            raise EmbedderError(f"threads must be at least 1, got {threads}.")
        packaged = model_dir is None
        self._dir = PACKAGED_MODEL_DIR if model_dir is None else Path(model_dir)
        self._model_path = self._dir / MODEL_FILE
        self._tokenizer_path = self._dir / TOKENIZER_FILE
        for path in (self._model_path, self._tokenizer_path):
            if not path.is_file():
                if packaged:
                    fix = (
                        "The packaged model is missing: reinstall codecompass, or in a "
                        "source checkout run scripts/export_model.py (see its docstring)."
                    )
                else:
                    fix = f"Point model_dir at a folder holding {MODEL_FILE} and {TOKENIZER_FILE}."
                raise EmbedderError(f"Embedding model file not found: {path}. {fix}")
        self._threads = threads
        self._batch_size = batch_size
        self._model_id = model_id or (PACKAGED_MODEL_ID if packaged else None)
        self._lock = threading.Lock()
        self._session: Any = None
        self._input_names: frozenset[str] = frozenset()
        self._dim = 0
        self._tokenizer: Any = None
        self._counter: Any = None

    @property
    def model_id(self) -> str:
        if self._model_id is None:
            digest = hashlib.sha256()
            with self._model_path.open("rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            self._model_id = f"onnx:{self._dir.resolve().name}:{digest.hexdigest()[:12]}"
        return self._model_id

    @property
    def dim(self) -> int:
        self._load()
        return self._dim

    @property
    def max_tokens(self) -> int:
        return MAX_TOKENS

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text, untruncated, counting the [CLS] and [SEP] the model adds.

        So a text is truncated when embedded exactly when its count exceeds max_tokens.
        """
        # The tokenizer alone: chunking a first index counts tokens long before the
        # model runs (it may never run in this process).
        if self._counter is None:
            counter = self._read_tokenizer()
            counter.no_padding()
            counter.no_truncation()
            self._counter = counter
        encodings = self._counter.encode_batch(list(texts))
        return [len(e.ids) for e in encodings]

    def embed(self, texts: Sequence[str]) -> Vectors:
        self._load()
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single str")
        texts = list(texts)
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        # A rough sort by characters brings texts of similar token length into the same
        # window; the exact sort by tokens inside each window then keeps padding low.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        window = max(_MIN_WINDOW, self._batch_size * _WINDOW_BATCHES)
        for start in range(0, len(order), window):
            positions = order[start : start + window]
            encodings = self._tokenizer.encode_batch([texts[i] for i in positions])
            ids = [np.asarray(e.ids, dtype=np.int64) for e in encodings]
            del encodings
            by_length = sorted(range(len(ids)), key=lambda k: len(ids[k]))
            for b in range(0, len(by_length), self._batch_size):
                batch = by_length[b : b + self._batch_size]
                vectors = self._run([ids[k] for k in batch])
                out[[positions[k] for k in batch]] = vectors
        return out

    def _run(self, ids: list[npt.NDArray[np.int64]]) -> Vectors:
        width = max(len(row) for row in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for r, row in enumerate(ids):
            input_ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        try:
            hidden = self._session.run(None, feeds)[0]
        except Exception as exc:
            raise EmbedderError(f"ONNX model {self._model_path} failed to run: {exc}") from exc
        weights = mask.astype(np.float32)[:, :, None]
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: Vectors = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return result

    def _read_tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        try:
            return Tokenizer.from_file(str(self._tokenizer_path))
        except Exception as exc:
            raise EmbedderError(
                f"Cannot read tokenizer {self._tokenizer_path}: {exc}. "
                "Reinstall codecompass or re-export the model."
            ) from exc

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort

            tokenizer = self._read_tokenizer()
            # The upstream tokenizer.json pads every text to a fixed 128 tokens and
            # truncates at 128; the model is meant to read 256 (sentence-transformers'
            # max_seq_length). Padding is done per batch in _run.
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=MAX_TOKENS)

            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.inter_op_num_threads = 1
            # Idle threads spin 0.5 ms, not the default's far longer: after each query
            # they kept a core busy while the search went on, a third of a search
            # process's CPU time. Batches embed as fast (docs/retrieval.md).
            options.add_session_config_entry("session.intra_op.spin_duration_us", "500")
            if self._threads is not None:
                options.intra_op_num_threads = self._threads
            try:
                session = ort.InferenceSession(
                    str(self._model_path), options, providers=["CPUExecutionProvider"]
                )
            except Exception as exc:
                raise EmbedderError(
                    f"Cannot load ONNX model {self._model_path}: {exc}. "
                    "Reinstall codecompass or re-export the model."
                ) from exc
            self._input_names = frozenset(i.name for i in session.get_inputs())
            missing = {"input_ids", "attention_mask"} - self._input_names
            if missing:
                raise EmbedderError(
                    f"ONNX model {self._model_path} lacks the inputs {sorted(missing)}; "
                    "expected a BERT-style encoder exported with input_ids and attention_mask."
                )
            shape = session.get_outputs()[0].shape
            if len(shape) != 3 or not isinstance(shape[2], int):
                raise EmbedderError(
                    f"ONNX model {self._model_path} has output shape {shape}; expected "
                    "(batch, sequence, hidden) with a fixed hidden size."
                )
            self._dim = shape[2]
            self._tokenizer = tokenizer
            self._session = session
