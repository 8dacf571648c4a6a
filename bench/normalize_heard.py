"""Is a script of written forms heard as its spoken forms, with and without the normalizer?

    python bench/normalize_heard.py

The held-out script (tests/engine/text/data/held_out_script.tsv) is voiced with the
bundled voice (joe) twice: with the normalizer, and without it (the line as written
goes to espeak-ng, as before engine.text: the baseline, measured in the same run).
Each clip is heard by pocketsphinx twice: with its general English language model
(independent of the script, but it mishears synthetic speech often) and with a model
of the whole script's spoken lines, none weighted toward the clip (the table read's
way). A form counts as heard when all its words the dictionary has were heard where
they belong (tests/support/held_out.py).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shaping_wer import Recognizer as GeneralRecognizer  # noqa: E402
from engine.listen.recognizer import Recognizer, pronunciations  # noqa: E402
from engine.listen.vad import VAD_RATE  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.synth import frontend, shaping  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402
from engine.text import Normalized, normalize  # noqa: E402
from tests.support.held_out import forms_heard, script, words  # noqa: E402

RATE = 22_050


def voiced(texts: list[str]) -> list[np.ndarray]:
    synth = ClipSynthesizer(VoiceLibrary(), RATE, ClipCache())
    return [np.array(synth.synthesize(text, VoiceParams())) for text in texts]


def main() -> None:
    lines = script()
    spoken = [normalize(line.text, "en-us").text for line in lines]
    started = time.perf_counter()
    clips = {"normalized": voiced([line.text for line in lines])}
    original = frontend.normalize
    frontend.normalize = lambda text, language="en-us", protected=(): Normalized(text, ())  # type: ignore[assignment,misc]
    try:
        clips["as written (baseline)"] = voiced([line.text for line in lines])
    finally:
        frontend.normalize = original
    synth_s = time.perf_counter() - started
    general, scripted, vocabulary = GeneralRecognizer(), Recognizer(spoken), set(pronunciations())
    results: dict[str, object] = {"lines": len(lines), "synthesis_s": round(synth_s, 1)}
    for name, voice_clips in clips.items():
        for listener in ("general model", "script model"):
            heard_forms = total = 0
            missed = []
            for line, said, clip in zip(lines, spoken, voice_clips, strict=True):
                if listener == "general model":
                    heard = words(general(clip, RATE))
                else:
                    audio16 = np.asarray(shaping.resample(clip, RATE, VAD_RATE), dtype=np.float32)
                    heard = [w.text.split("(")[0] for w in scripted.recognize(audio16)]
                scored = forms_heard(words(said), heard, line.forms, vocabulary)
                heard_forms += sum(ok for _, ok in scored)
                total += len(scored)
                missed += [form.written for form, ok in scored if not ok]
            results[f"{name}, {listener}"] = {"heard": f"{heard_forms}/{total}", "share": round(heard_forms / total, 3),
                                             "missed": missed}
    results["load"] = os.getloadavg()
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
