"""Listening to a person: voice activity, speech recognition, following a line.

Shared by everything that hears speech: the table read (engine/rehearse/)
listens to a reader live; the speech check hears synthesized clips. Nothing
here knows about sessions or the scheduler: callers run it on their own
threads (the table read's listener at the front, the check at the lowest
priority).

- :mod:`engine.listen.vad`: voice activity (silero-vad's ONNX model, or an
  energy detector) and a speech tracker with start/end times.
- :mod:`engine.listen.recognizer`: an offline recognizer (pocketsphinx's
  English model from the package index) biased to the words expected.
- :mod:`engine.listen.follow`: where in a line a reader is, tolerant of
  paraphrase.
"""
