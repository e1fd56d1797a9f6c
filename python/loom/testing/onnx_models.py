"""Small, seeded ONNX models shaped like real PyTorch exports.

They carry what exporters emit: shape subgraphs (Shape -> Gather ->
Unsqueeze -> Concat -> Reshape), decomposed LayerNorm and erf-GELU,
Identity/Constant/Dropout noise and dynamic batch dimensions.

    python -m loom.testing.onnx_models OUTDIR [mlp gpt llama bert cnn ...]
    python -m loom.testing.onnx_models gpt -o gpt175b.onnx --config \
        layers=96,hidden=12288,heads=96,vocab=51200,seq=2048,batch=8,weightless=1
    python -m loom.testing.onnx_models llama -o llama3-8b.onnx --config \
        layers=32,hidden=4096,heads=32,kv_heads=8,ffn=14336,vocab=128256,seq=8192,batch=8,weightless=1

`weightless=1` makes a model of any size without its weights: they become
graph inputs with static shapes, named by the metadata entry
`loom.parameter_inputs` (a regex loomc reads), so the file stays small and
nothing is allocated. loomc prices and plans such a model; it cannot train or
compile it.
"""

import argparse
import inspect
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class GraphBuilder:
    """Accumulates nodes, initializers and Constant nodes, naming values."""

    def __init__(self, seed, train_init=False, weightless=False):
        self.rng = np.random.RandomState(seed)
        # As a model about to be trained starts (nanoGPT's initialisation):
        # normalisation scales 1, biases 0, weights N(0, 0.02).
        self.train_init = train_init
        # Weights as graph inputs with shapes and no data.
        self.weightless = weightless
        self.weight_inputs = []
        self.num_params = 0
        self.nodes = []
        self.initializers = []
        self.counter = 0

    def fresh(self, stem):
        self.counter += 1
        return f"{stem}_{self.counter}"

    def weight(self, name, shape, scale=0.1):
        self.num_params += int(np.prod(shape, dtype=np.int64))
        if self.weightless:
            self.weight_inputs.append(helper.make_tensor_value_info(
                name, TensorProto.FLOAT, shape))
            return name
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        if self.train_init:
            if name.endswith(".bias"):
                data = np.zeros(shape, np.float32)
            elif (".ln_" in name or name.startswith("ln_")
                  or name.endswith("norm.weight")):
                data = np.ones(shape, np.float32)
            else:
                data = (data * (0.02 / scale)).astype(np.float32)
        self.initializers.append(numpy_helper.from_array(data, name))
        return name

    def const(self, value, dtype=np.float32, as_node=True):
        """A constant, as a Constant node (as exporters do) or initializer."""
        array = np.array(value, dtype=dtype)
        name = self.fresh("const")
        if as_node:
            self.nodes.append(helper.make_node(
                "Constant", [], [name], name=name + "_node",
                value=numpy_helper.from_array(array, name)))
        else:
            self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def op(self, op_type, inputs, n_out=1, **attrs):
        outs = [self.fresh(op_type.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(
            op_type, inputs, outs, name=self.fresh(op_type), **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, inputs, outputs, opset, name):
        graph = helper.make_graph(self.nodes, name,
                                  inputs + self.weight_inputs, outputs,
                                  self.initializers)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)],
            producer_name="loom-tests")
        model.ir_version = 8 if opset < 19 else 9
        if self.weightless:
            helper.set_model_props(model, {
                "loom.parameter_inputs": names_regex(
                    [i.name for i in self.weight_inputs])})
        return model


def names_regex(names):
    """A POSIX extended regex matching each of `names` whole (and little
    else): digit runs become [0-9]+, so a 96-layer model's regex is as short
    as a 2-layer one's."""
    patterns = []
    for name in names:
        pattern = "[0-9]+".join(re.sub(r"([][.^$*+?(){}|\\])", r"\\\1", part)
                                for part in re.split(r"[0-9]+", name))
        if pattern not in patterns:
            patterns.append(pattern)
    return "|".join(patterns)


def reduce_mean(g, x, axes, opset):
    if opset >= 18:
        return g.op("ReduceMean", [x, g.const(axes, np.int64)], keepdims=1)
    return g.op("ReduceMean", [x], axes=axes, keepdims=1)


def decomposed_layer_norm(g, x, hidden, prefix, opset):
    """PyTorch's LayerNorm export before opset 17."""
    mean = reduce_mean(g, x, [-1], opset)
    centered = g.op("Sub", [x, mean])
    squared = g.op("Pow", [centered, g.const(2.0)])
    var = reduce_mean(g, squared, [-1], opset)
    std = g.op("Sqrt", [g.op("Add", [var, g.const(1e-5)])])
    normed = g.op("Div", [centered, std])
    scaled = g.op("Mul", [normed, g.weight(prefix + ".weight", [hidden])])
    return g.op("Add", [scaled, g.weight(prefix + ".bias", [hidden])])


def erf_gelu(g, x):
    """PyTorch's exact GELU export before opset 20."""
    scaled = g.op("Div", [x, g.const(1.4142135381698608)])
    erf = g.op("Erf", [scaled])
    plus = g.op("Add", [erf, g.const(1.0)])
    return g.op("Mul", [g.op("Mul", [x, plus]), g.const(0.5)])


def linear(g, x, inp, out, prefix):
    y = g.op("MatMul", [x, g.weight(prefix + ".weight", [inp, out])])
    return g.op("Add", [y, g.weight(prefix + ".bias", [out])])


def dim_of(g, x, index):
    """Shape(x)[index] as a rank-1 tensor, as exporters compute it."""
    shape = g.op("Shape", [x])
    dim = g.op("Gather", [shape, g.const(index, np.int64)], axis=0)
    return g.op("Unsqueeze", [dim, g.const([0], np.int64)])


def mlp(seed=0):
    """Gemm -> Relu -> MatMul + Add, with a dynamic batch."""
    g = GraphBuilder(seed)
    x = "x"
    h = g.op("Gemm", [x, g.weight("fc1.weight", [32, 16]),
                      g.weight("fc1.bias", [32])], transB=1)
    h = g.op("Identity", [g.op("Relu", [h])])
    h = g.op("Identity", [h])
    y = linear(g, h, 32, 10, "fc2")
    g.nodes.append(helper.make_node("Identity", [y], ["logits"], name="out"))
    return g.model(
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       ["batch", 10])],
        opset=13, name="mlp")


def language_model(g, x, head_weight, ids, batch, seq, vocab, opset, name):
    """The head of a decoder: `logits = x @ head_weight`, and the model with
    token ids [batch, seq] in and logits [batch, seq, vocab] out (`batch` 0:
    dynamic)."""
    g.nodes.append(helper.make_node(
        "MatMul", [x, head_weight], ["logits"], name="lm_head"))
    b = batch if batch else "batch"
    return g.model(
        [helper.make_tensor_value_info(ids, TensorProto.INT64, [b, seq])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       [b, seq, vocab])],
        opset=opset, name=name)


def gpt(seed=0, opset=17, layers=2, hidden=32, heads=4, vocab=64, seq=16,
        train_init=0, batch=0, weightless=0, tied=0):
    """A GPT-style decoder: token and position embeddings, causal attention
    masked with Trilu/Where, decomposed LayerNorm, erf-GELU MLP. `batch`
    fixes the batch dimension (0: dynamic); `weightless` makes the weights
    graph inputs without data (see the module's doc); `tied` makes the head
    the transposed token embedding, as GPT-2 exports write it."""
    if hidden % heads:
        sys.exit(f"gpt: hidden={hidden} is not divisible by heads={heads}")
    g = GraphBuilder(seed, bool(train_init), bool(weightless))
    head = hidden // heads
    ids = "input_ids"
    tok = g.op("Gather", [g.weight("wte.weight", [vocab, hidden]), ids], axis=0)
    # Positions: Range(0, Shape(ids)[1]) as exporters write it.
    shape = g.op("Shape", [ids])
    length = g.op("Gather", [shape, g.const(1, np.int64)], axis=0)
    pos = g.op("Range", [g.const(0, np.int64), length, g.const(1, np.int64)])
    pos = g.op("Unsqueeze", [pos, g.const([0], np.int64)])
    x = g.op("Add", [tok, g.op("Gather", [g.weight("wpe.weight", [seq, hidden]),
                                          pos], axis=0)])
    x = g.op("Dropout", [x, g.const(0.1)])
    # Causal mask: ones -> Trilu -> Equal(0) -> Where(-inf).
    ones = g.op("ConstantOfShape", [g.op("Concat", [dim_of(g, ids, 1),
                                                    dim_of(g, ids, 1)], axis=0)],
                value=numpy_helper.from_array(np.array([1.0], np.float32)))
    lower = g.op("Trilu", [ones], upper=0)
    masked = g.op("Equal", [lower, g.const(0.0)])
    for layer in range(layers):
        p = f"h.{layer}"
        a = decomposed_layer_norm(g, x, hidden, p + ".ln_1", opset)
        qkv = linear(g, a, hidden, 3 * hidden, p + ".attn.c_attn")
        q, k, v = g.op("Split", [qkv, g.const([hidden] * 3, np.int64)],
                       n_out=3, axis=2)

        def heads_of(t):
            new_shape = g.op("Concat", [dim_of(g, t, 0), dim_of(g, t, 1),
                                        g.const([heads, head], np.int64)],
                             axis=0)
            t = g.op("Reshape", [t, new_shape])
            return g.op("Transpose", [t], perm=[0, 2, 1, 3])

        q, k, v = heads_of(q), heads_of(k), heads_of(v)
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        scores = g.op("Div", [g.op("MatMul", [q, kt]),
                              g.const(float(np.sqrt(head)))])
        scores = g.op("Where", [masked, g.const(-np.inf), scores])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v])],
                   perm=[0, 2, 1, 3])
        merged = g.op("Reshape", [ctx, g.op("Concat", [
            dim_of(g, ctx, 0), dim_of(g, ctx, 1),
            g.const([hidden], np.int64)], axis=0)])
        x = g.op("Add", [x, linear(g, merged, hidden, hidden,
                                   p + ".attn.c_proj")])
        m = decomposed_layer_norm(g, x, hidden, p + ".ln_2", opset)
        m = erf_gelu(g, linear(g, m, hidden, 4 * hidden, p + ".mlp.c_fc"))
        x = g.op("Add", [x, linear(g, m, 4 * hidden, hidden,
                                   p + ".mlp.c_proj")])
    x = decomposed_layer_norm(g, x, hidden, "ln_f", opset)
    head_weight = (g.op("Transpose", ["wte.weight"], perm=[1, 0]) if tied
                   else g.weight("lm_head.weight", [hidden, vocab]))
    return language_model(g, x, head_weight, ids, batch, seq, vocab, opset,
                          "gpt")


def rms_norm(g, x, hidden, name, opset, eps=1e-5):
    """Llama's RMSNorm as PyTorch exports it: x * rsqrt(mean(x^2) + eps) *
    weight, the mean taken in float32 (a Cast exporters write even when x
    already is), rsqrt as Sqrt -> Reciprocal."""
    x = g.op("Cast", [x], to=TensorProto.FLOAT)
    var = reduce_mean(g, g.op("Pow", [x, g.const(2.0)]), [-1], opset)
    inv = g.op("Reciprocal", [g.op("Sqrt", [g.op("Add", [var,
                                                          g.const(eps)])])])
    return g.op("Mul", [g.weight(name, [hidden]), g.op("Mul", [x, inv])])


def rope_tables(seq, head, theta):
    """The rotary embedding's cos and sin, [seq, head] float32, as
    transformers' LlamaRotaryEmbedding computes them: angle (p, i) =
    p * theta^(-2i/head) for i < head/2, the half repeated."""
    inv_freq = 1.0 / theta ** (np.arange(0, head, 2, dtype=np.float64) / head)
    angles = np.outer(np.arange(seq, dtype=np.float64), inv_freq)
    angles = np.concatenate([angles, angles], axis=-1)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def llama_ffn(hidden):
    """Meta's FeedForward width for `hidden` without ffn_dim_multiplier:
    int(2/3 * 4 * hidden) rounded up to a multiple of multiple_of=256
    (Llama 2 7B: 11008, 13B: 13824), of `hidden` itself below 256 (32 -> 96).
    Llama 3 sizes need ffn given: their ffn_dim_multiplier (1.3; 405B 1.2)
    and multiple_of (8B 1024, else 4096) make 8B 14336, 70B 28672, 405B
    53248."""
    multiple_of = min(256, hidden)
    width = int(8 * hidden / 3)
    return -(-width // multiple_of) * multiple_of


def llama(seed=0, opset=17, layers=2, hidden=32, heads=4, kv_heads=2, ffn=0,
          vocab=64, seq=16, batch=0, weightless=0, train_init=0,
          rope_theta=500000):
    """A Llama-style decoder (Llama 3, transformers' LlamaForCausalLM): token
    embedding only, RMSNorm (eps 1e-5) before attention and MLP, rotary
    position embedding (rotate-half, cos/sin tables of base `rope_theta` as
    Constants), grouped-query attention with `kv_heads` key/value heads
    repeated to `heads` (Unsqueeze -> Expand -> Reshape, transformers'
    repeat_kv), an additive causal mask (Trilu, times float32's lowest), a
    SwiGLU MLP down(silu(gate(x)) * up(x)) with silu = x * Sigmoid(x), no
    biases, a final RMSNorm and an untied head. `ffn` is the MLP width
    (0: llama_ffn's rule). Weights are named as transformers names them
    (model.layers.0.self_attn.q_proj.weight, ...) and stored [in, out] for
    MatMul, as torch.onnx.export's constant folding stores nn.Linear's
    transposed weight. `batch` and `weightless` as for gpt."""
    if hidden % heads:
        sys.exit(f"llama: hidden={hidden} is not divisible by heads={heads}")
    if heads % kv_heads:
        sys.exit(f"llama: heads={heads} is not divisible by "
                 f"kv_heads={kv_heads}")
    head = hidden // heads
    if head % 2:
        sys.exit(f"llama: the head size {head} is odd (RoPE rotates pairs)")
    ffn = ffn or llama_ffn(hidden)
    g = GraphBuilder(seed, bool(train_init), bool(weightless))
    ids = "input_ids"
    x = g.op("Gather", [g.weight("model.embed_tokens.weight", [vocab, hidden]),
                        ids], axis=0)
    cos, sin = rope_tables(seq, head, float(rope_theta))
    cos, sin = g.const(cos), g.const(sin)
    # Additive causal mask: triu(ones, 1) * float32's lowest, [1, 1, s, s].
    square = g.op("Concat", [dim_of(g, ids, 1), dim_of(g, ids, 1)], axis=0)
    ones = g.op("ConstantOfShape", [square], value=numpy_helper.from_array(
        np.array([1.0], np.float32)))
    mask = g.op("Mul", [g.op("Trilu", [ones, g.const(1, np.int64)], upper=1),
                        g.const(float(np.finfo(np.float32).min))])
    mask = g.op("Unsqueeze", [mask, g.const([0, 1], np.int64)])

    def proj(t, inp, out, name):
        return g.op("MatMul", [t, g.weight(name + ".weight", [inp, out])])

    def heads_of(t, n):
        t = g.op("Reshape", [t, g.op("Concat", [
            dim_of(g, t, 0), dim_of(g, t, 1), g.const([n, head], np.int64)],
            axis=0)])
        return g.op("Transpose", [t], perm=[0, 2, 1, 3])

    def rotary(t):
        half = head // 2
        x1 = g.op("Slice", [t, g.const([0], np.int64),
                            g.const([half], np.int64),
                            g.const([3], np.int64)])
        x2 = g.op("Slice", [t, g.const([half], np.int64),
                            g.const([np.iinfo(np.int64).max], np.int64),
                            g.const([3], np.int64)])
        rotated = g.op("Concat", [g.op("Neg", [x2]), x1], axis=-1)
        return g.op("Add", [g.op("Mul", [t, cos]),
                            g.op("Mul", [rotated, sin])])

    def repeat_kv(t):
        if heads == kv_heads:
            return t
        t = g.op("Unsqueeze", [t, g.const([2], np.int64)])
        t = g.op("Expand", [t, g.op("Concat", [
            dim_of(g, ids, 0),
            g.const([kv_heads, heads // kv_heads, seq, head], np.int64)],
            axis=0)])
        return g.op("Reshape", [t, g.op("Concat", [
            dim_of(g, ids, 0), g.const([heads, seq, head], np.int64)],
            axis=0)])

    for layer in range(layers):
        p = f"model.layers.{layer}"
        a = rms_norm(g, x, hidden, p + ".input_layernorm.weight", opset)
        q = heads_of(proj(a, hidden, heads * head, p + ".self_attn.q_proj"),
                     heads)
        k = heads_of(proj(a, hidden, kv_heads * head,
                          p + ".self_attn.k_proj"), kv_heads)
        v = heads_of(proj(a, hidden, kv_heads * head,
                          p + ".self_attn.v_proj"), kv_heads)
        q, k = rotary(q), rotary(k)
        k, v = repeat_kv(k), repeat_kv(v)
        kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
        scores = g.op("Div", [g.op("MatMul", [q, kt]),
                              g.const(float(np.sqrt(head)))])
        probs = g.op("Softmax", [g.op("Add", [scores, mask])], axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v])],
                   perm=[0, 2, 1, 3])
        merged = g.op("Reshape", [ctx, g.op("Concat", [
            dim_of(g, ctx, 0), dim_of(g, ctx, 1),
            g.const([hidden], np.int64)], axis=0)])
        x = g.op("Add", [x, proj(merged, hidden, hidden,
                                 p + ".self_attn.o_proj")])
        m = rms_norm(g, x, hidden, p + ".post_attention_layernorm.weight",
                     opset)
        gate = proj(m, hidden, ffn, p + ".mlp.gate_proj")
        silu = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
        up = proj(m, hidden, ffn, p + ".mlp.up_proj")
        x = g.op("Add", [x, proj(g.op("Mul", [silu, up]), ffn, hidden,
                                 p + ".mlp.down_proj")])
    x = rms_norm(g, x, hidden, "model.norm.weight", opset)
    return language_model(g, x, g.weight("lm_head.weight", [hidden, vocab]),
                          ids, batch, seq, vocab, opset, "llama")


# The GPT-style decoder the CPU benchmarks and fidelity checks train
# (bench/train_step.py's): 4 layers, hidden 256, 8 heads, vocabulary 512.
BENCH_GPT = dict(layers=4, hidden=256, heads=8, vocab=512, seq=128)


def write_bench_gpt(work, tokens=100000):
    """Writes the bench GPT to WORK/gpt.onnx and `tokens` seeded token ids
    (uint16) to WORK/tokens.bin; returns both paths."""
    model = os.path.join(work, "gpt.onnx")
    save(gpt(**BENCH_GPT), model)
    data = os.path.join(work, "tokens.bin")
    np.random.default_rng(0).integers(0, BENCH_GPT["vocab"], tokens).astype(
        "<u2").tofile(data)
    return model, data


def bert(seed=0, layers=2, hidden=32, heads=4, vocab=64, seq=16):
    """A BERT-style encoder at opset 20: LayerNormalization and Gelu ops,
    a padding mask from attention_mask, Split by num_outputs."""
    g = GraphBuilder(seed)
    head = hidden // heads
    ids, mask = "input_ids", "attention_mask"
    emb = g.op("Add", [
        g.op("Gather", [g.weight("word_embeddings", [vocab, hidden]), ids]),
        g.weight("position_embeddings", [seq, hidden])])
    x = g.op("LayerNormalization", [emb, g.weight("emb_ln.weight", [hidden]),
                                    g.weight("emb_ln.bias", [hidden])],
             axis=-1, epsilon=1e-12)
    # (1 - mask) * -10000, broadcast over heads and queries.
    m = g.op("Cast", [mask], to=TensorProto.FLOAT)
    m = g.op("Mul", [g.op("Sub", [g.const(1.0), m]), g.const(-10000.0)])
    m = g.op("Unsqueeze", [m, g.const([1, 2], np.int64)])
    for layer in range(layers):
        p = f"layer.{layer}"
        qkv = linear(g, x, hidden, 3 * hidden, p + ".qkv")
        q, k, v = g.op("Split", [qkv], n_out=3, axis=-1, num_outputs=3)

        def heads_of(t):
            t = g.op("Reshape", [t, g.const([0, 0, heads, head], np.int64)])
            return g.op("Transpose", [t], perm=[0, 2, 1, 3])

        q, k, v = heads_of(q), heads_of(k), heads_of(v)
        scores = g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])])
        scores = g.op("Add", [g.op("Mul", [scores,
                                           g.const(1.0 / np.sqrt(head))]), m])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]),
                               g.const([0, 0, -1], np.int64)])
        x = g.op("LayerNormalization", [
            g.op("Add", [x, linear(g, ctx, hidden, hidden, p + ".out")]),
            g.weight(p + ".ln1.weight", [hidden]),
            g.weight(p + ".ln1.bias", [hidden])], axis=-1)
        f = g.op("Gelu", [linear(g, x, hidden, 4 * hidden, p + ".ffn1")])
        x = g.op("LayerNormalization", [
            g.op("Add", [x, linear(g, f, 4 * hidden, hidden, p + ".ffn2")]),
            g.weight(p + ".ln2.weight", [hidden]),
            g.weight(p + ".ln2.bias", [hidden])], axis=-1)
    pooled = g.op("Tanh", [linear(g, g.op("Gather", [x, g.const(0, np.int64)],
                                          axis=1), hidden, hidden, "pooler")])
    g.nodes.append(helper.make_node("Identity", [pooled], ["pooled"],
                                    name="out"))
    return g.model(
        [helper.make_tensor_value_info(ids, TensorProto.INT64, [2, seq]),
         helper.make_tensor_value_info(mask, TensorProto.INT64, [2, seq])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT,
                                       [2, hidden])],
        opset=20, name="bert")


def cnn(seed=0):
    """Conv -> BatchNorm -> Relu -> MaxPool -> Conv(SAME, stride 2) ->
    Relu -> GlobalAveragePool -> Flatten -> Gemm."""
    g = GraphBuilder(seed)
    x = g.op("Conv", ["image", g.weight("conv1.weight", [8, 3, 3, 3]),
                      g.weight("conv1.bias", [8])],
             kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    x = g.op("BatchNormalization", [
        x, g.weight("bn1.weight", [8]), g.weight("bn1.bias", [8]),
        g.weight("bn1.running_mean", [8]),
        g.const(np.abs(g.rng.standard_normal(8)) + 0.5, as_node=False)],
        epsilon=1e-5)
    x = g.op("MaxPool", [g.op("Relu", [x])], kernel_shape=[2, 2],
             strides=[2, 2])
    x = g.op("Relu", [g.op("Conv", [x, g.weight("conv2.weight",
                                                [16, 8, 3, 3])],
                           kernel_shape=[3, 3], strides=[2, 2],
                           auto_pad="SAME_UPPER")])
    x = g.op("Flatten", [g.op("GlobalAveragePool", [x])], axis=1)
    g.nodes.append(helper.make_node(
        "Gemm", [x, g.weight("fc.weight", [10, 16]), g.weight("fc.bias", [10])],
        ["logits"], name="fc", transB=1))
    return g.model(
        [helper.make_tensor_value_info("image", TensorProto.FLOAT,
                                       ["batch", 3, 16, 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       ["batch", 10])],
        opset=13, name="cnn")


MODELS = {
    "mlp": mlp,
    "gpt": gpt,
    "gpt_opset18": lambda: gpt(opset=18),
    "llama": llama,
    "bert": bert,
    "cnn": cnn,
}


def save(model, path, external=False):
    onnx.checker.check_model(model)
    if external:
        onnx.save_model(model, path, save_as_external_data=True,
                        all_tensors_to_one_file=True,
                        location=os.path.basename(path) + ".data",
                        size_threshold=0)
    else:
        onnx.save_model(model, path)


def count_params(model):
    """Parameters of `model`: float initializers and weightless inputs
    (those its `loom.parameter_inputs` metadata names), without reading
    any data."""
    graph = model.graph
    total = sum(int(np.prod(t.dims, dtype=np.int64))
                for t in graph.initializer
                if t.data_type == TensorProto.FLOAT and len(t.dims) > 0)
    props = {p.key: p.value for p in model.metadata_props}
    if "loom.parameter_inputs" in props:
        pattern = re.compile("(" + props["loom.parameter_inputs"] + ")")
        for value in graph.input:
            if pattern.fullmatch(value.name):
                total += int(np.prod([d.dim_value for d in
                                      value.type.tensor_type.shape.dim],
                                     dtype=np.int64))
    return total


def human_count(n):
    """1234567 -> '1.23 M'."""
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return str(n)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="With -o FILE the positional arguments are the one model to "
               "write; without it, the first is the output directory.")
    parser.add_argument("args", nargs="*", metavar="OUTDIR|MODEL",
                        help="OUTDIR [MODEL ...] (default: every model), "
                             "or MODEL with -o")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write one model to FILE")
    parser.add_argument("--external-data", action="store_true",
                        help="store the weights in a .data file beside each "
                             "model")
    parser.add_argument("--config", default="",
                        help="gpt, llama and bert sizes as KEY=VALUE,... "
                             "(layers, hidden, heads, vocab, seq, seed; gpt "
                             "and llama also train_init=1: the "
                             "initialisation of a model about to be trained; "
                             "batch=N: a static batch; weightless=1: weights "
                             "as graph inputs without data; llama also "
                             "kv_heads, ffn (0: Meta's rule), rope_theta)")
    parser.add_argument("--params", action="store_true",
                        help="print each model's parameter count")
    args = parser.parse_args(argv)
    config = {}
    for item in filter(None, args.config.split(",")):
        key, _, value = item.partition("=")
        if key not in ("layers", "hidden", "heads", "vocab", "seq", "seed",
                       "train_init", "batch", "weightless", "kv_heads", "ffn",
                       "rope_theta"):
            sys.exit(f"--config: unknown key {key!r}")
        try:
            config[key] = int(value)
        except ValueError:
            sys.exit(f"--config: {key}={value!r} is not an integer")
    if args.output:
        if len(args.args) != 1:
            sys.exit("-o FILE writes one model: name it (e.g. gpt -o gpt.onnx)")
        outputs = [(args.args[0], args.output)]
    else:
        if not args.args:
            parser.error("give an output directory (or -o FILE)")
        outdir, names = args.args[0], args.args[1:] or sorted(MODELS)
        os.makedirs(outdir, exist_ok=True)
        outputs = [(name, os.path.join(outdir, name + ".onnx"))
                   for name in names]
    for name, path in outputs:
        if name not in MODELS:
            sys.exit(f"unknown model {name!r}; known: {', '.join(MODELS)}")
        if config:
            accepted = inspect.signature(MODELS[name]).parameters
            unknown = [k for k in config if k not in accepted]
            if unknown:
                sys.exit(f"--config: model {name!r} takes no "
                         f"{', '.join(unknown)}")
        model = MODELS[name](**config) if config else MODELS[name]()
        save(model, path, args.external_data)
        if args.params or config.get("weightless"):
            n = count_params(model)
            print(f"{path}: {n} parameters ({human_count(n)})")


if __name__ == "__main__":
    main()
