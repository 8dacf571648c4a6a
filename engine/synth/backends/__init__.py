"""The voice engines' room: one folder per engine (piper/, kokoro/) on one base.

``base.py`` is the contract every engine keeps (voices loaded from a VoiceInfo,
phonemize, infer, sample rate, what it supports, its cost per audio second) and the
ONNX session plumbing they share (``onnx_sessions.py``: how many sessions, how
threaded, made on first use); ``registry.py`` maps an engine's name to its backend.
What the floors below know of an engine without loading it is its row in
engine/project/engines.py.
"""
