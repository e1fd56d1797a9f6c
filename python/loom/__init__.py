"""Loom's Python helpers: the runtime binding (runtime), sampling a trained
model (generate); test fixtures in loom.testing."""
