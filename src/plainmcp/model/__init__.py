"""The bottom layer: content blocks, results, their options and errors, the principal's key.

Plain data and the mappings from Python values to it. Nothing here imports the rest of
plainmcp (tests/test_layers.py checks it), so `wire/` and every layer above can build on it.
"""
