"""Real architectures from transformers and torchvision, exported by
torch.onnx.export, checked end to end against PyTorch:

  import    opsets 14 and 17, and a dynamic batch axis (--input-shape)
  infer     loomc -o + loomrun against the module's own output
  dp2/tp2   the same on 2 ranks (--strategy=data / megatron), every family
  train     3 steps of loomc --train + loomrun --train against the same
            steps in PyTorch (losses, and the final weights and running
            statistics read back by loom-ckpt export)

    python real_models.py [--only NAME,...] [--loomc ...] WORKDIR

Prints a PASS/FAIL line per check and the model x check table.
"""

import argparse
import copy
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "utils"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Training"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
from loom.testing import torch_models as tm  # noqa: E402
import common  # noqa: E402
import read_safetensors  # noqa: E402

STEPS = 3
# What each family is checked for beyond import, inference and dp=2/tp=2.
TRAIN = {
    # name: list of (check name, optimizer flags, torch optimizer, extra)
    "llama": [("adamw", "adamw", {}), ("adamw-zero1-dp2", "adamw",
                                       {"mesh": "dp=2", "zero": 1})],
    "gpt2": [("adamw-tied", "adamw", {})],
    "bert": [("adamw-zero1-dp2", "adamw", {"mesh": "dp=2", "zero": 1,
                                           "wrap": "hidden_loss"})],
    # The CNNs' first gradients are large (norm ~400 for ResNet-18 with
    # batch statistics): smaller steps keep 3 steps out of chaos. Batch
    # statistics over 4 values (4 images of 32 pixels, 1x1 at the last
    # stage) are ill-conditioned in float32: 8 images of 64 pixels.
    "resnet18": [("sgd-bn-frozen", "sgd", {"lr": 1e-3}),
                 ("sgd-bn-train", "sgd", {"bn_train": True, "lr": 2e-4,
                                          "batch": 8, "image": 64})],
    "mobilenet_v2": [("sgd-bn-frozen", "sgd", {"lr": 1e-3}),
                     # MobileNetV2's batch statistics stay ill-conditioned
                     # (PyTorch's own float32 gradients are 7% off float64
                     # in places): smaller steps still.
                     ("sgd-bn-train", "sgd", {"bn_train": True, "lr": 5e-5,
                                              "batch": 8, "image": 64})],
}
HYPER = dict(lr=0.01, momentum=0.9, weight_decay=0.01, beta1=0.9, beta2=0.999,
             eps=1e-8)


class Suite:
    def __init__(self, args):
        self.args = args
        self.checks = common.Checks()
        self.table = {}

    def record(self, model, check, ok, text):
        self.checks(ok, f"{model} {check}: {text}")
        self.table.setdefault(model, {})[check] = "pass" if ok else "FAIL"

    def tool(self, cmd, model, check):
        out = common.run(cmd, fatal=False)
        if out is None:
            self.record(model, check, False, "exit status (above)")
        return out


def compare(got, want, rtol=1e-4, atol=1e-4):
    if got.shape != want.shape:
        return False, f"shape {list(got.shape)} != {list(want.shape)}"
    err = float(np.abs(got - want).max())
    ok = np.allclose(got, want, rtol=rtol, atol=atol)
    return ok, f"max abs error {err:.2e}"


def check_import(s, name, work, module, x):
    for opset, dynamic in [(14, False), (17, False), (17, True)]:
        tag = f"import{opset}" + ("-dyn" if dynamic else "")
        path = os.path.join(work, f"{tag}.onnx")
        tm.export(module, x, path, opset=opset, fold=tm.FAMILIES[name].fold,
                  dynamic_batch=dynamic)
        cmd = [s.args.loomc, path, "--emit=nn", "-o",
               os.path.join(work, tag + ".mlir")]
        if dynamic:
            cmd += ["--input-shape", "x=" + "x".join(map(str, x.shape))]
        if s.tool(cmd, name, tag) is not None:
            s.record(name, tag, True, "imported")


def check_inference(s, name, work, module, x):
    path = os.path.join(work, "import17.onnx")
    np.save(os.path.join(work, "x.npy"), x.numpy())
    with torch.no_grad():
        want = module(x).numpy()
    runs = [("infer", [], 1),
            ("dp2", ["--mesh", "dp=2", "--strategy=data"], 2),
            ("tp2", ["--mesh", "tp=2", "--strategy=megatron"], 2)]
    for check, flags, ranks in runs:
        art = os.path.join(work, check + ".loom")
        out = os.path.join(work, check + "-out")
        if s.tool([s.args.loomc, path, "-o", art, *flags], name,
                  check) is None:
            continue
        launch = [s.args.loomrun] + (["-np", str(ranks)] if ranks > 1 else [])
        if s.tool(launch + [art, "--input", "x=" + os.path.join(work, "x.npy"),
                            "--output-dir", out], name, check) is None:
            continue
        ok, text = compare(np.load(os.path.join(out, "y.npy")), want)
        s.record(name, check, ok, text)


def torch_steps(module, x, y, optimizer, hyper, loss_kind):
    """STEPS steps of PyTorch on one batch: the losses and final state."""
    params = [p for p in module.parameters()]
    if optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=hyper["lr"],
                              momentum=hyper["momentum"],
                              weight_decay=hyper["weight_decay"])
    else:
        opt = torch.optim.AdamW(params, lr=hyper["lr"],
                                betas=(hyper["beta1"], hyper["beta2"]),
                                eps=hyper["eps"],
                                weight_decay=hyper["weight_decay"])
    losses = []
    for _ in range(STEPS):
        opt.zero_grad(set_to_none=True)
        out = module(x)
        if loss_kind == "output":
            loss = out
        else:
            loss = torch.nn.functional.cross_entropy(
                out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(float(loss))
    return losses, {k: v.detach().numpy().copy()
                    for k, v in module.state_dict().items()}


def check_training(s, name, work):
    for check, optimizer, extra in TRAIN.get(name, []):
        module = tm.build(name)
        loss_kind = tm.FAMILIES[name].loss
        if extra.get("wrap") == "hidden_loss":
            module = tm._HiddenLoss(module.m)
            loss_kind = "output"
        x = tm.example_input(name, batch=extra.get("batch", tm.BATCH),
                             image=extra.get("image", tm.IMAGE))
        y = tm.labels(name, module, x) if loss_kind == "cross_entropy" \
            else None
        bn_train = extra.get("bn_train", False)
        path = os.path.join(work, check + ".onnx")
        tm.export(module, x, path, fold=tm.FAMILIES[name].fold,
                  training=bn_train)
        tm.load_exported_state(module, path)
        np.save(os.path.join(work, "tx.npy"), x.numpy())
        data = ["--data", "x=" + os.path.join(work, "tx.npy")]
        hyper = dict(HYPER, lr=extra.get("lr", HYPER["lr"]))
        flags = ["--train", f"--optimizer={optimizer}", f"--lr={hyper['lr']}",
                 f"--weight-decay={hyper['weight_decay']}"]
        if optimizer == "sgd":
            flags.append(f"--momentum={hyper['momentum']}")
        else:
            flags += [f"--beta1={hyper['beta1']}", f"--beta2={hyper['beta2']}",
                      f"--eps={hyper['eps']}"]
        if loss_kind == "output":
            flags.append("--loss=y")
        else:
            flags += ["--loss=cross_entropy", "--logits=y"]
            np.save(os.path.join(work, "ty.npy"), y.numpy())
            data += ["--data", "labels=" + os.path.join(work, "ty.npy")]
        if "mesh" in extra:
            flags += ["--mesh", extra["mesh"], "--strategy=data"]
        if "zero" in extra:
            flags.append(f"--zero={extra['zero']}")
        ranks = 2 if "mesh" in extra else 1
        art = os.path.join(work, check + ".loom")
        if s.tool([s.args.loomc, path, "-o", art, *flags], name, check) is None:
            continue
        metrics = os.path.join(work, check + ".jsonl")
        ckpt = os.path.join(work, check + ".ckpt")
        launch = [s.args.loomrun] + (["-np", str(ranks)] if ranks > 1 else [])
        if s.tool(launch + [art, "--train", *data, "--steps", str(STEPS),
                            "--metrics", metrics, "--ckpt", ckpt],
                  name, check) is None:
            continue
        exported = os.path.join(work, check + ".safetensors")
        if s.tool([s.args.loom_ckpt, "export", ckpt, "-o", exported,
                   "--artifact", art], name, check) is None:
            continue
        got = [r["loss"] for r in common.records(metrics)]
        if bn_train:
            module.train()
        # PyTorch in float32 and in float64: Loom must be as close to the
        # float64 result as PyTorch's float32 is (x3), or within 5e-5
        # relative (losses) and 1e-4 relative to each tensor's scale (at
        # least 1). Batch statistics over few values make some of these
        # models ill-conditioned in float32; PyTorch accumulates them in
        # float64 on the CPU, Loom in float32.
        want, state = torch_steps(copy.deepcopy(module), x, y, optimizer,
                                  hyper, loss_kind)
        exact, exact_state = torch_steps(
            copy.deepcopy(module).double(),
            x.double() if x.is_floating_point() else x, y, optimizer, hyper,
            loss_kind)
        # How far float32 may land depends on the convolution algorithm:
        # MobileNetV2's last batch statistics (8 values a channel) amplify
        # its rounding. PyTorch's oneDNN convolutions end within 1e-6 of
        # float64 on a Xeon, its plain ones 4.3e-4 away (and oneDNN 3.3e-4
        # on an AMD EPYC): the tolerance takes the farther of the two.
        with torch.backends.mkldnn.flags(enabled=False):
            plain, plain_state = torch_steps(copy.deepcopy(module), x, y,
                                             optimizer, hyper, loss_kind)
        loss_err = max_rel(got, exact)
        loss_tol = max(5e-5, 3 * max_rel(want, exact),
                       3 * max_rel(plain, exact))
        weights = {k: v[1] for k, v in
                   read_safetensors.read(exported)[0].items()}
        # The exported names are the state_dict's (of the wrapper: "m.").
        worst, worst_key, missing, torch_worst = 0.0, "", [], 0.0
        for key, value in weights.items():
            if key not in state:
                missing.append(key)
                continue
            if value.shape != state[key].shape:
                value = value.T
            scale = max(1.0, float(np.abs(exact_state[key]).max()))
            err = float(np.abs(value - exact_state[key]).max()) / scale
            torch_worst = max(
                torch_worst,
                float(np.abs(state[key] - exact_state[key]).max()) / scale,
                float(np.abs(plain_state[key] - exact_state[key]).max()) /
                scale)
            if err > worst:
                worst, worst_key = err, key
        weight_tol = max(1e-4, 3 * torch_worst)
        round_trip = load_back(module, weights, state)
        ok = (len(got) == STEPS and loss_err <= loss_tol and not missing and
              worst <= weight_tol and not round_trip)
        s.record(name, check, ok,
                 f"losses {['%.6f' % v for v in got]}, PyTorch "
                 f"{['%.6f' % v for v in want]}; vs float64 PyTorch: rel "
                 f"err {loss_err:.1e} (tolerance {loss_tol:.1e}); "
                 f"{len(weights)} exported tensors, max scaled error "
                 f"{worst:.1e} ({worst_key or '-'}, tolerance "
                 f"{weight_tol:.1e})" +
                 (f"; unknown names {missing[:3]}" if missing else "") +
                 (f"; load_state_dict: {round_trip}" if round_trip else
                  "; loads back into the module"))


def load_back(module, weights, trained):
    """Loads the exported weights into a copy of `module` (before training):
    what is wrong ("" when nothing). The file may lack only what an ONNX
    export does not hold (BatchNorm's step counters, the second name of a
    tied weight) and what training leaves as it is (`trained`, PyTorch's
    state after the steps: BERT's pooler when the loss does not use it)."""
    fresh = copy.deepcopy(module)
    try:
        result = fresh.load_state_dict(
            {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in
             weights.items()}, strict=False)
    except RuntimeError as e:
        return str(e).splitlines()[0]
    state = module.state_dict()
    exported = {state[k].data_ptr() for k in weights if k in state}
    missing = [k for k in result.missing_keys
               if not k.endswith("num_batches_tracked") and
               state[k].data_ptr() not in exported and
               not np.array_equal(state[k].numpy(), trained[k])]
    if result.unexpected_keys or missing:
        return (f"unexpected {result.unexpected_keys[:3]}, missing "
                f"{missing[:3]}")
    return ""


def max_rel(values, exact):
    if len(values) != len(exact):
        return float("inf")
    return max((abs(v - e) / max(abs(e), 1e-12)
                for v, e in zip(values, exact)), default=0.0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loomc", default="loomc")
    parser.add_argument("--loomrun", default="loomrun")
    parser.add_argument("--loom-ckpt", default="loom-ckpt")
    parser.add_argument("--only", default="",
                        help="comma-separated families (default: all)")
    parser.add_argument("workdir")
    args = parser.parse_args()
    if os.path.exists(args.workdir):
        shutil.rmtree(args.workdir)
    names = args.only.split(",") if args.only else list(tm.FAMILIES)
    s = Suite(args)
    for name in names:
        work = os.path.join(args.workdir, name)
        os.makedirs(work)
        module = tm.build(name)
        x = tm.example_input(name)
        check_import(s, name, work, module, x)
        check_inference(s, name, work, module, x)
        check_training(s, name, work)
    columns = []
    for row in s.table.values():
        columns += [c for c in row if c not in columns]
    print("model".ljust(16) + " ".join(c.ljust(16) for c in columns))
    for model, row in s.table.items():
        print(model.ljust(16) + " ".join(row.get(c, "-").ljust(16)
                                         for c in columns))
    print(f"{s.checks.failures} checks failed")
    sys.exit(1 if s.checks.failures else 0)


if __name__ == "__main__":
    main()
