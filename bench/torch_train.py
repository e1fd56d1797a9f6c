"""The PyTorch side of bench/train_step.py: the same model as the generated
ONNX (weights from an .npz of its initializers), trained with AdamW on
random data; prints the median step time. Run by a Python that has torch
(Debian's python3-torch):

    python3 bench/torch_train.py --model mlp|gpt --weights W.npz --batch B
        [--config layers=..,hidden=..,heads=..,vocab=..,seq=..] [--steps N]
        [--threads T] [--device cpu|cuda]

On `--device cuda` the step is timed after torch.cuda.synchronize(), in
fp32 with TF32 off unless `--tf32` (Loom's CUDA code is plain fp32).
"""

import argparse
import time

import numpy as np
import torch


class MLP(torch.nn.Module):
    def __init__(self, w):
        super().__init__()
        self.p = torch.nn.ParameterDict(
            {k.replace(".", "_"): torch.nn.Parameter(torch.tensor(v))
             for k, v in w.items()})

    def forward(self, x):
        p = self.p
        h = torch.relu(x @ p["fc1_weight"].T + p["fc1_bias"])
        return h @ p["fc2_weight"] + p["fc2_bias"]


class GPT(torch.nn.Module):
    def __init__(self, w, cfg):
        super().__init__()
        self.cfg = cfg
        self.p = torch.nn.ParameterDict(
            {k.replace(".", "_"): torch.nn.Parameter(torch.tensor(v))
             for k, v in w.items()})

    def ln(self, x, prefix):
        return torch.nn.functional.layer_norm(
            x, x.shape[-1:], self.p[prefix + "_weight"],
            self.p[prefix + "_bias"], 1e-5)

    def lin(self, x, prefix):
        return x @ self.p[prefix + "_weight"] + self.p[prefix + "_bias"]

    def forward(self, ids):
        p, c = self.p, self.cfg
        b, t = ids.shape
        h, nh = c["hidden"], c["heads"]
        x = p["wte_weight"][ids] + p["wpe_weight"][:t]
        mask = torch.ones(t, t, device=ids.device).tril() == 0
        for layer in range(c["layers"]):
            pre = f"h_{layer}"
            a = self.ln(x, pre + "_ln_1")
            q, k, v = self.lin(a, pre + "_attn_c_attn").split(h, dim=2)
            q, k, v = (z.reshape(b, t, nh, h // nh).transpose(1, 2)
                       for z in (q, k, v))
            s = (q @ k.transpose(2, 3)) / float(np.sqrt(h // nh))
            s = s.masked_fill(mask, float("-inf"))
            ctx = (torch.softmax(s, -1) @ v).transpose(1, 2).reshape(b, t, h)
            x = x + self.lin(ctx, pre + "_attn_c_proj")
            m = self.ln(x, pre + "_ln_2")
            m = torch.nn.functional.gelu(self.lin(m, pre + "_mlp_c_fc"))
            x = x + self.lin(m, pre + "_mlp_c_proj")
        return self.ln(x, "ln_f") @ p["lm_head_weight"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "gpt"], required=True)
    parser.add_argument("--weights", required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--config", default="")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tf32", action="store_true")
    args = parser.parse_args()
    cuda = args.device.startswith("cuda")
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = args.tf32
        torch.backends.cudnn.allow_tf32 = args.tf32
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = {k: int(v) for k, v in
           (item.split("=") for item in filter(None, args.config.split(",")))}
    w = dict(np.load(args.weights))
    model = (MLP(w) if args.model == "mlp" else GPT(w, cfg)).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    rng = np.random.default_rng(0)
    if args.model == "mlp":
        x = torch.tensor(rng.standard_normal((args.batch, 16)), dtype=torch.float32)
        y = torch.tensor(rng.integers(0, 10, args.batch))
    else:
        x = torch.tensor(rng.integers(0, cfg["vocab"], (args.batch, cfg["seq"])))
        y = torch.tensor(rng.integers(0, cfg["vocab"], (args.batch, cfg["seq"])))
    x, y = x.to(args.device), y.to(args.device)
    times = []
    for step in range(args.warmup + args.steps):
        start = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        if cuda:
            torch.cuda.synchronize()
        if step >= args.warmup:
            times.append(time.perf_counter() - start)
    print(f"torch {torch.__version__} median_ms {1000 * np.median(times):.4f} "
          f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
