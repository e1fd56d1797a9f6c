"""Checks loom.testing.onnx_models.llama's numerics three ways on one tiny
seeded model: onnxruntime against a plain float64 numpy Llama written from
the definition (RMSNorm, RoPE as a rotation of the pairs (i, i + head/2),
grouped-query attention by indexing the key/value head, SwiGLU), against
transformers' LlamaForCausalLM loaded with the same weights, and Loom
(loomc -o, loomrun) against onnxruntime.

Usage: llama_check.py OUTDIR [KEY=VALUE ...] (llama's arguments). Prints one
line per comparison with the largest error; exits non-zero on a mismatch.
"""
import inspect
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort
from onnx import numpy_helper

from loom.testing import onnx_models

RTOL, ATOL = 1e-4, 1e-5
EPS = 1e-5


def reference(weights, ids, layers, heads, kv_heads, theta):
    """Llama's forward pass in float64, from the definition."""
    w = {k: v.astype(np.float64) for k, v in weights.items()}

    def norm(x, name):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + EPS) * w[name]

    x = w["model.embed_tokens.weight"][ids]
    batch, seq, hidden = x.shape
    hd = hidden // heads
    half = hd // 2
    angle = np.arange(seq)[:, None] * theta ** (-2.0 * np.arange(half) / hd)
    cos, sin = np.cos(angle), np.sin(angle)

    def rotate(t):  # [b, n, s, hd]: pair (i, i + hd/2) turned by angle[s, i]
        a, b = t[..., :half], t[..., half:]
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], -1)

    def split(t, n):
        return t.reshape(batch, seq, n, hd).transpose(0, 2, 1, 3)

    causal = np.tril(np.ones((seq, seq), bool))
    for i in range(layers):
        p = f"model.layers.{i}."
        a = norm(x, p + "input_layernorm.weight")
        q = rotate(split(a @ w[p + "self_attn.q_proj.weight"], heads))
        k = rotate(split(a @ w[p + "self_attn.k_proj.weight"], kv_heads))
        v = split(a @ w[p + "self_attn.v_proj.weight"], kv_heads)
        ctx = np.empty_like(q)
        for h in range(heads):
            kv = h // (heads // kv_heads)
            s = q[:, h] @ k[:, kv].transpose(0, 2, 1) / np.sqrt(hd)
            s = np.where(causal, s, -np.inf)
            s = np.exp(s - s.max(-1, keepdims=True))
            ctx[:, h] = (s / s.sum(-1, keepdims=True)) @ v[:, kv]
        ctx = ctx.transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
        x = x + ctx @ w[p + "self_attn.o_proj.weight"]
        m = norm(x, p + "post_attention_layernorm.weight")
        gate = m @ w[p + "mlp.gate_proj.weight"]
        up = m @ w[p + "mlp.up_proj.weight"]
        silu = gate / (1 + np.exp(-gate))
        x = x + (silu * up) @ w[p + "mlp.down_proj.weight"]
    return norm(x, "model.norm.weight") @ w["lm_head.weight"]


def transformers_logits(weights, ids, layers, heads, kv_heads, theta):
    """LlamaForCausalLM with the generator's weights ([in, out] transposed
    back to nn.Linear's [out, in])."""
    import torch
    import transformers
    transformers.logging.set_verbosity_error()
    vocab, hidden = weights["model.embed_tokens.weight"].shape
    ffn = weights["model.layers.0.mlp.up_proj.weight"].shape[1]
    config = transformers.LlamaConfig(
        vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv_heads,
        intermediate_size=ffn,
        max_position_embeddings=ids.shape[1], rope_theta=float(theta),
        rms_norm_eps=EPS, tie_word_embeddings=False,
        attn_implementation="eager")
    model = transformers.LlamaForCausalLM(config).eval()
    state = {k: torch.from_numpy(np.array(
        v if v.ndim == 1 or "embed_tokens" in k else v.T))
        for k, v in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if "rotary_emb" not in k]
    if missing or unexpected:
        sys.exit(f"weights do not match LlamaForCausalLM: missing {missing}, "
                 f"unexpected {unexpected}")
    with torch.no_grad():
        return model(torch.from_numpy(ids)).logits.numpy()


def sharpen(model):
    """The generator's weights (N(0, 0.1)) make near-uniform attention, to
    which RoPE and the mask barely matter: RMSNorm scales become 1 + w and
    the query and key projections 4 w, so the scores spread over several
    units and a wrong rotation or head mapping shows."""
    for i, t in enumerate(model.graph.initializer):
        w = numpy_helper.to_array(t)
        if t.name.endswith("norm.weight"):
            w = 1 + w
        elif t.name.endswith(("q_proj.weight", "k_proj.weight")):
            w = 4 * w
        model.graph.initializer[i].CopyFrom(numpy_helper.from_array(
            w.astype(np.float32), t.name))


def compare(what, got, want):
    ok = got.shape == want.shape and np.allclose(got, want, rtol=RTOL,
                                                 atol=ATOL)
    err = float(np.abs(got - want).max()) if got.shape == want.shape \
        else float("inf")
    print(f"{what} {list(got.shape)}: {'match' if ok else 'MISMATCH'} "
          f"(max abs error {err:.2e})")
    return ok


def main():
    outdir, config = sys.argv[1], dict(a.split("=") for a in sys.argv[2:])
    config = {k: int(v) for k, v in config.items()}
    os.makedirs(outdir, exist_ok=True)
    model = onnx_models.llama(**config)
    sharpen(model)
    path = os.path.join(outdir, "llama.onnx")
    onnx_models.save(model, path)
    weights = {t.name: numpy_helper.to_array(t)
               for t in model.graph.initializer}
    shape = [d.dim_value or 3 for d in
             model.graph.input[0].type.tensor_type.shape.dim]
    vocab = weights["model.embed_tokens.weight"].shape[0]
    ids = np.random.default_rng(0).integers(0, vocab, shape).astype(np.int64)
    expected = ort.InferenceSession(path).run(None, {"input_ids": ids})[0]

    params = inspect.signature(onnx_models.llama).parameters
    args = [config.get(k, params[k].default)
            for k in ("layers", "heads", "kv_heads", "rope_theta")]
    ok = compare("onnxruntime vs numpy", expected, reference(weights, ids,
                                                             *args))
    ok &= compare("onnxruntime vs transformers", expected,
                  transformers_logits(weights, ids, *args))

    npy = os.path.join(outdir, "input_ids.npy")
    np.save(npy, ids)
    artifact = os.path.join(outdir, "llama.loom")
    subprocess.run(["loomc", path, "-o", artifact, "--input-shape",
                    "input_ids=" + "x".join(map(str, shape))], check=True)
    subprocess.run(["loomrun", artifact, "--threads", "2", "--input",
                    "input_ids=" + npy, "--output-dir",
                    os.path.join(outdir, "out")], check=True,
                   stdout=subprocess.DEVNULL)
    got = np.load(os.path.join(outdir, "out", "logits.npy"))
    ok &= compare("loom vs onnxruntime", got, expected)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
