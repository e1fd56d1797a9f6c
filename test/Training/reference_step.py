"""Training steps of the generated MLP (Gemm -> Relu -> MatMul + Add, cross
entropy) compiled by `loomc --train` and run by `loomrun --train`, against an
independent numpy implementation of the same steps (float64): SGD with
momentum and weight decay, and AdamW with weight decay, gradient clipping and
a cosine schedule with warm-up.

    python reference_step.py --loomc loomc --loomrun loomrun --loom-ckpt loom-ckpt WORKDIR

The data set has exactly one global batch of examples, so that every step
sees each example once whatever order the sampler picks (the loss is a mean
and the gradients are sums: order changes only rounding).
"""

import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "utils"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
sys.path.insert(0, os.path.dirname(__file__))
from loom.testing import onnx_models  # noqa: E402
import common  # noqa: E402
import read_safetensors  # noqa: E402

BATCH, STEPS = 32, 6


run = common.run


def initial_weights(model):
    from onnx import numpy_helper
    return {t.name: numpy_helper.to_array(t).astype(np.float64)
            for t in model.graph.initializer}


def forward_backward(w, x, y):
    h = x @ w["fc1.weight"].T + w["fc1.bias"]
    a = np.maximum(h, 0)
    z = a @ w["fc2.weight"] + w["fc2.bias"]
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    n = len(y)
    loss = -logp[np.arange(n), y].mean()
    dz = np.exp(logp)
    dz[np.arange(n), y] -= 1
    dz /= n
    g = {"fc2.weight": a.T @ dz, "fc2.bias": dz.sum(0)}
    da = dz @ w["fc2.weight"].T
    dh = da * (h > 0)
    g["fc1.weight"] = dh.T @ x
    g["fc1.bias"] = dh.sum(0)
    return loss, g


def lr_at(cfg, step):
    if cfg["schedule"] == "constant":
        return cfg["lr"]
    warmup, decay, lr, min_lr = (cfg["warmup"], cfg["decay_steps"], cfg["lr"],
                                 cfg["min_lr"])
    if step < warmup:
        return lr * (step + 1) / warmup
    t = min(step - warmup, decay) / decay
    return min_lr + (lr - min_lr) * (1 + math.cos(math.pi * t)) / 2


def reference(cfg, w, x, y):
    """Losses, grad norms and final weights of STEPS steps, as PyTorch's
    SGD/AdamW and clip_grad_norm_ compute them."""
    state = {k: np.zeros_like(v) for k, v in w.items()}
    v2 = {k: np.zeros_like(v) for k, v in w.items()}
    losses, norms = [], []
    for step in range(STEPS):
        loss, g = forward_backward(w, x, y)
        norm = math.sqrt(sum(float((gi * gi).sum()) for gi in g.values()))
        losses.append(loss)
        norms.append(norm)
        if cfg.get("clip"):
            coef = min(1.0, cfg["clip"] / (norm + 1e-6))
            g = {k: gi * coef for k, gi in g.items()}
        lr = lr_at(cfg, step)
        t = step + 1
        for k in w:
            if cfg["optimizer"] == "sgd":
                d = g[k] + cfg["wd"] * w[k]
                state[k] = cfg["momentum"] * state[k] + d
                w[k] = w[k] - lr * state[k]
            else:
                b1, b2 = cfg["beta1"], cfg["beta2"]
                w[k] = w[k] * (1 - lr * cfg["wd"])
                state[k] = state[k] + (g[k] - state[k]) * (1 - b1)
                v2[k] = v2[k] * b2 + g[k] * g[k] * (1 - b2)
                denom = np.sqrt(v2[k]) / math.sqrt(1 - b2 ** t) + cfg["eps"]
                w[k] = w[k] - (lr / (1 - b1 ** t)) * state[k] / denom
    return losses, norms, w


CONFIGS = {
    # Two microbatches of 16: the same step as one batch of 32.
    "adamw-accum2": {"optimizer": "adamw", "lr": 0.01, "beta1": 0.9,
                     "beta2": 0.999, "eps": 1e-8, "wd": 0.0,
                     "schedule": "constant", "micro": BATCH // 2,
                     "flags": ["--optimizer=adamw", "--lr", "0.01",
                               "--grad-accum", "2"]},
    "sgd": {"optimizer": "sgd", "lr": 0.1, "momentum": 0.9, "wd": 0.01,
            "schedule": "constant",
            "flags": ["--optimizer=sgd", "--lr", "0.1", "--momentum", "0.9",
                      "--weight-decay", "0.01"]},
    "adamw": {"optimizer": "adamw", "lr": 0.01, "beta1": 0.9, "beta2": 0.99,
              "eps": 1e-8, "wd": 0.1, "clip": 0.5, "schedule": "cosine",
              "warmup": 2, "decay_steps": 3, "min_lr": 0.001,
              "flags": ["--optimizer=adamw", "--lr", "0.01", "--beta2",
                        "0.99", "--weight-decay", "0.1", "--clip-grad-norm",
                        "0.5", "--lr-schedule=cosine", "--warmup", "2",
                        "--decay-steps", "3", "--min-lr", "0.001"]},
}


def main():
    args = common.parse_arguments()
    model = onnx_models.mlp()
    onnx_path = os.path.join(args.workdir, "mlp.onnx")
    onnx_models.save(model, onnx_path)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((BATCH, 16)).astype(np.float32)
    y = rng.integers(0, 10, BATCH).astype(np.int64)
    np.save(os.path.join(args.workdir, "x.npy"), x)
    np.save(os.path.join(args.workdir, "y.npy"), y)
    failures = 0
    for name, cfg in CONFIGS.items():
        art = os.path.join(args.workdir, name + ".loom")
        micro = cfg.get("micro", BATCH)
        run([args.loomc, onnx_path, "--input-shape", f"x={micro}x16",
             "--train", "--loss=cross_entropy", "--logits=logits",
             "-o", art] + cfg["flags"])
        metrics = os.path.join(args.workdir, name + ".jsonl")
        ckpt = os.path.join(args.workdir, name + ".ckpt")
        run([args.loomrun, art, "--train", "--data",
             "x=" + os.path.join(args.workdir, "x.npy"), "--data",
             "labels=" + os.path.join(args.workdir, "y.npy"), "--steps",
             str(STEPS), "--metrics", metrics, "--ckpt", ckpt])
        got = common.records(metrics)
        exported = os.path.join(args.workdir, name + ".safetensors")
        run([args.loom_ckpt, "export", ckpt, "-o", exported])
        weights = {k: v[1] for k, v in read_safetensors.read(exported)[0].items()}
        losses, norms, final = reference(cfg, initial_weights(model),
                                         x.astype(np.float64), y)
        ok = len(got) == STEPS
        loss_err = max(abs(r["loss"] - l) / abs(l) for r, l in zip(got, losses))
        norm_err = max(abs(r["grad_norm"] - n) / n for r, n in zip(got, norms))
        lr_err = max(abs(r["lr"] - lr_at(cfg, i)) for i, r in enumerate(got))
        w_err = max(float(np.max(np.abs(weights[k] - final[k]) /
                                 (np.abs(final[k]) + 1e-3)))
                    for k in final)
        ok = ok and loss_err < 1e-5 and norm_err < 1e-5 and lr_err < 1e-9 \
            and w_err < 1e-4
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'}: {name}: {len(got)} steps, loss "
              f"{got[0]['loss']:.5f} -> {got[-1]['loss']:.5f}; max relative "
              f"error: loss {loss_err:.1e}, grad norm {norm_err:.1e}, "
              f"weights {w_err:.1e}")
    print(f"{len(CONFIGS) - failures} of {len(CONFIGS)} optimizers match the "
          "numpy reference")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
