"""Tiny random-weight configurations of real architectures, built with the
packages that define them (transformers, torchvision) and exported by
torch.onnx.export: the families test/Models/real checks end to end.

Each family is a `Family`: a builder of the module (seeded), its example
input, the loss Loom trains it with, and how it is exported. Needs torch,
torchvision and transformers (python/requirements.txt, Debian's
python3-torch); import this module only where they are installed.
"""

import copy
import dataclasses
import warnings

import torch

VOCAB, SEQ, BATCH, IMAGE, CLASSES = 64, 8, 4, 32, 10


def _lm_config(cls, **extra):
    base = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                num_attention_heads=4, intermediate_size=64,
                max_position_embeddings=64)
    return cls(**{**base, **extra})


def _no_dropout(**kw):
    keys = ["hidden_dropout_prob", "attention_probs_dropout_prob",
            "attention_dropout", "hidden_dropout", "resid_pdrop",
            "embd_pdrop", "attn_pdrop", "dropout_rate", "dropout"]
    return {**{k: 0.0 for k in keys}, **kw}


def _transformers():
    import transformers
    transformers.logging.set_verbosity_error()
    return transformers


class _Logits(torch.nn.Module):
    """The first output of a transformers model called on one tensor."""

    def __init__(self, module, keyword):
        super().__init__()
        self.m, self.keyword = module, keyword

    def forward(self, x):
        out = self.m(**{self.keyword: x}, return_dict=False)
        return out[0]


class _Plain(torch.nn.Module):
    def __init__(self, module):
        super().__init__()
        self.m = module

    def forward(self, x):
        return self.m(x)


class _HiddenLoss(torch.nn.Module):
    """An encoder trained on the mean square of the first 8 features of its
    last hidden state: a scalar loss inside the model (the pooler gets no
    gradient). Not of all features: after LayerNorm that is constant."""

    def __init__(self, module):
        super().__init__()
        self.m = module

    def forward(self, x):
        hidden = self.m(input_ids=x, return_dict=False)[0][:, :, :8]
        return (hidden * hidden).mean()


@dataclasses.dataclass
class Family:
    name: str
    build: callable          # () -> torch.nn.Module (the exported wrapper)
    kind: str                # "tokens" | "image" | "audio"
    loss: str                # "cross_entropy" | "output" (a scalar output)
    fold: bool = False       # export with constant folding (the default)


def _causal_lm(model, config, **extra):
    """A transformers causal LM `model` (class name) with the small
    configuration of class `config` and `extra` settings."""
    def build():
        t = _transformers()
        return _Logits(getattr(t, model)(_lm_config(getattr(t, config),
                                                    **extra)), "input_ids")
    return build


_llama = _causal_lm("LlamaForCausalLM", "LlamaConfig", num_key_value_heads=2)
_mistral = _causal_lm("MistralForCausalLM", "MistralConfig",
                      num_key_value_heads=2, sliding_window=None)
_qwen2 = _causal_lm("Qwen2ForCausalLM", "Qwen2Config", num_key_value_heads=2)
_phi = _causal_lm("PhiForCausalLM", "PhiConfig", **_no_dropout())
_gpt_neox = _causal_lm("GPTNeoXForCausalLM", "GPTNeoXConfig", **_no_dropout())


def _falcon():
    t = _transformers()
    return _Logits(t.FalconForCausalLM(t.FalconConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=4, **_no_dropout())), "input_ids")


def _gpt2():
    t = _transformers()
    return _Logits(t.GPT2LMHeadModel(t.GPT2Config(
        vocab_size=VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=4,
        **_no_dropout())), "input_ids")


def _bert():
    t = _transformers()
    return _HiddenLoss(t.BertModel(_lm_config(t.BertConfig, **_no_dropout())))


def _t5_encoder():
    t = _transformers()
    return _Logits(t.T5EncoderModel(t.T5Config(
        vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2,
        num_heads=4, dropout_rate=0.0)), "input_ids")


def _whisper_encoder():
    t = _transformers()
    return _Logits(t.WhisperForAudioClassification(t.WhisperConfig(
        num_mel_bins=8, d_model=32, encoder_layers=2,
        encoder_attention_heads=4, encoder_ffn_dim=64,
        max_source_positions=SEQ, num_labels=CLASSES, **_no_dropout())),
        "input_features")


def _vit():
    t = _transformers()
    return _Logits(t.ViTForImageClassification(_lm_config(
        t.ViTConfig, image_size=IMAGE, patch_size=8, num_labels=CLASSES,
        **_no_dropout())), "pixel_values")


def _convnext():
    t = _transformers()
    return _Logits(t.ConvNextForImageClassification(t.ConvNextConfig(
        num_channels=3, hidden_sizes=[8, 16], depths=[1, 1], num_stages=2,
        image_size=IMAGE, num_labels=CLASSES)), "pixel_values")


def _resnet18():
    import torchvision
    return _Plain(torchvision.models.resnet18(num_classes=CLASSES))


def _mobilenet_v2():
    import torchvision
    return _Plain(torchvision.models.mobilenet_v2(num_classes=CLASSES,
                                                  dropout=0.0))


FAMILIES = {f.name: f for f in [
    Family("llama", _llama, "tokens", "cross_entropy"),
    Family("mistral", _mistral, "tokens", "cross_entropy"),
    Family("qwen2", _qwen2, "tokens", "cross_entropy"),
    Family("phi", _phi, "tokens", "cross_entropy"),
    Family("gpt_neox", _gpt_neox, "tokens", "cross_entropy"),
    Family("falcon", _falcon, "tokens", "cross_entropy"),
    Family("gpt2", _gpt2, "tokens", "cross_entropy", fold=True),
    Family("bert", _bert, "tokens", "output"),
    Family("t5_encoder", _t5_encoder, "tokens", "output"),
    Family("whisper_encoder", _whisper_encoder, "audio", "cross_entropy"),
    Family("vit", _vit, "image", "cross_entropy"),
    Family("convnext", _convnext, "image", "cross_entropy"),
    Family("resnet18", _resnet18, "image", "cross_entropy"),
    Family("mobilenet_v2", _mobilenet_v2, "image", "cross_entropy"),
]}


def build(name, seed=0):
    """The family's module, seeded, in eval mode."""
    torch.manual_seed(seed)
    return FAMILIES[name].build().eval()


def example_input(name, batch=BATCH, seed=1, image=IMAGE):
    """A seeded input batch for the family (images `image` pixels square)."""
    g = torch.Generator().manual_seed(seed)
    kind = FAMILIES[name].kind
    if kind == "tokens":
        # Not token 0: BERT's padding index, whose embedding row PyTorch
        # never gives a gradient (padding_idx), which an ONNX export does
        # not record (docs/PyTorch.md).
        return torch.randint(1, VOCAB, (batch, SEQ), generator=g)
    if kind == "audio":  # mel frames: 2 x max_source_positions
        return torch.randn(batch, 8, 2 * SEQ, generator=g)
    return torch.randn(batch, 3, image, image, generator=g)


def labels(name, module, x, seed=2):
    """Class labels for cross-entropy: the logits' shape without its last
    dimension."""
    with torch.no_grad():
        shape = module(x).shape[:-1]
    g = torch.Generator().manual_seed(seed)
    classes = VOCAB if FAMILIES[name].kind == "tokens" else CLASSES
    return torch.randint(0, classes, shape, generator=g)


def export(module, x, path, opset=17, fold=False, training=False,
           dynamic_batch=False):
    """torch.onnx.export of `module` on `x`: input `x`, output `y`.
    `training` keeps BatchNorm in training mode (batch statistics, running
    statistics updated); otherwise eval (torch folds BatchNorm into Conv
    unless it is kept with TrainingMode.PRESERVE, which this uses)."""
    mode = (torch.onnx.TrainingMode.TRAINING if training
            else torch.onnx.TrainingMode.PRESERVE)
    # Tracing in training mode runs BatchNorm's update: export a copy.
    module = copy.deepcopy(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module, (x,), path, opset_version=opset, input_names=["x"],
            output_names=["y"], do_constant_folding=fold, training=mode,
            dynamic_axes={"x": {0: "batch"}} if dynamic_batch else None)


def load_exported_state(module, path):
    """Copies the initializers of the ONNX model at `path` that name entries
    of `module`'s state_dict into it. torch.onnx.export in training mode runs
    one forward pass, which moves BatchNorm's running statistics in what it
    exports: a reference run starts from the exported values."""
    import onnx
    from onnx import numpy_helper
    state = module.state_dict()
    update = {}
    for tensor in onnx.load(path).graph.initializer:
        if tensor.name in state:
            value = torch.from_numpy(numpy_helper.to_array(tensor).copy())
            if value.shape == state[tensor.name].shape:
                update[tensor.name] = value
    module.load_state_dict(update, strict=False)
