"""Loom's Python helpers: test-model generators now; bindings later."""
