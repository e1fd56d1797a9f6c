"""Test fixtures: ONNX model generators (onnx_models), hostile models
(bad_onnx) and a character-level training corpus (chardata)."""
