"""Word timings: kept from the model's durations with each clip, mapped onto a
line's written words, stored beside the clip in the cache, and used by the
captions (long lines split at word boundaries, WebVTT word timestamps)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from engine.export.captions import srt, vtt
from engine.project.defaults import DEFAULT_VOICE
from engine.project.model import Line, Project, Role, VoiceParams
from engine.project.timeline import layout
from engine.synth import wordtimes
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from engine.synth.wordmap import line_words, written_words
from tests.support.voices.generate_test_voice import PHONEME_ID_MAP

RATE = 48_000
LONG = ("The lighthouse keeper had not spoken to anyone in weeks. Then, just after midnight, "
        "the old radio on the shelf crackled, and a voice he had not heard in thirty years said his name.")


def synth_at(folder: Path) -> ClipSynthesizer:
    return ClipSynthesizer(VoiceLibrary(base_dir=folder), RATE, ClipCache(folder / "cache"))


def voiced_end(clip: np.ndarray, rate: int) -> float:
    """Where the clip's sound ends: the last 10 ms block above -40 dB of its loudest block."""
    block = rate // 100
    n = clip.shape[0] // block
    rms = np.sqrt(np.mean(clip[: n * block].reshape(n, block) ** 2, axis=1))
    return float((np.flatnonzero(rms >= rms.max() * 10 ** (-40 / 20))[-1] + 1) * block / rate)


def check_times(words: tuple[tuple[str, float, float], ...], text: str, clip: np.ndarray) -> None:
    duration = clip.shape[0] / RATE
    assert [w for w, _, _ in words] == [w for w, _, _ in written_words(text)]
    starts = [s for _, s, _ in words]
    assert starts == sorted(starts), "word starts go back in time"
    for word, start, end in words:
        assert 0.0 <= start <= end <= duration + 1e-6, (word, start, end, duration)


@pytest.mark.parametrize("params", [
    {}, {"speed": 1.6}, {"speed": 0.7}, {"pitch": 3.0}, {"pitch": -2.0},
], ids=["plain", "fast", "slow", "pitch-up", "pitch-down"])
def test_tiny_voice_words_follow_the_model_durations(tiny_voices, tmp_path, params):
    synth = synth_at(tmp_path)
    voice = VoiceParams(voice=str(tiny_voices["single"])).with_changes(**params)
    text = "Hello there, Dr. Watson. Is it 42 already? Yes!"
    plan = synth.plan(text, voice)
    clip = synth.finish(synth.infer(plan))
    words = line_words(text, plan, synth.cache)
    check_times(words, text, clip)
    # The tiny voice sounds through every id, the final "!", its pad and the
    # end mark too (4 ids of ceil(2 x length_scale) frames): the last word ends that much before the sound.
    per_id = math.ceil(2 / voice.speed) * 256 / 16_000
    assert 0 <= voiced_end(clip, RATE) - words[-1][2] <= 4 * per_id + 0.01
    # Several units: the pauses between them are between the words too.
    units = synth.phonemize(plan)
    assert len(units) >= 3
    clip_words = synth.cache.words(plan.key)
    assert clip_words is not None and not clip_words.estimated


def test_tiny_voice_word_spans_are_exact(tiny_voices, tmp_path):
    """One unit of the tiny voice: every id lasts ceil(2 x length_scale) frames
    of 256 samples at 16 kHz, so each word's start is known to the sample."""
    synth = synth_at(tmp_path)
    plan = synth.plan("Alpha bravo charlie", VoiceParams(voice=str(tiny_voices["single"])))
    [unit] = synth.phonemize(plan)
    raw = synth.infer(plan)
    synth.finish(raw)
    per_id = 2 * 256 / 16_000
    space, pad, stresses = 3, 0, {120, 121}  # " ", "_", "ˈ", "ˌ" in the Piper id map
    assert PHONEME_ID_MAP["ˈ"] == [120] and PHONEME_ID_MAP["ˌ"] == [121] and PHONEME_ID_MAP[" "] == [space]
    starts, after_space = [], True
    for i, token in enumerate(unit.ids[1:], start=1):  # after "^"
        if token == space:
            after_space = True
        elif after_space and token != pad and token not in stresses:
            starts.append(i)
            after_space = False
    # The sine is loud from its second sample: the trim keeps the clip's start.
    expected = [i * per_id for i in starts]
    got = [s for s, _, _ in synth.cache.words(plan.key).words]
    np.testing.assert_allclose(got, expected, atol=2e-3)


def test_default_voice_words_match_the_written_line(tmp_path):
    synth = synth_at(tmp_path)
    voice = VoiceParams(voice=DEFAULT_VOICE)
    lexicon = {"Siobhan": "shiv awn", "Tuesday": "[[tˈuːzdeɪ]]"}
    text = "Of the 42 people in the room, Siobhan said it's *well-known*: [sighs] nobody comes on Tuesday."
    plan = synth.plan(text, voice, lexicon)
    clip = synth.finish(synth.infer(plan))
    words = line_words(text, plan, synth.cache)
    check_times(words, text, clip)
    named = dict((w, (s, e)) for w, s, e in words)
    # Lexicon words are reported as written, and they last as long as a word does.
    assert named["Siobhan"][1] - named["Siobhan"][0] > 0.2
    assert named["Tuesday"][1] - named["Tuesday"][0] > 0.2
    assert "sighs" not in named  # a stage direction is not spoken
    assert words[-1][2] == pytest.approx(voiced_end(clip, RATE), abs=0.15)
    assert words[0][1] < 0.15


def test_kokoro_words_are_estimated(tmp_path):
    from tests.support.voices.generate_test_kokoro import generate_kokoro

    generate_kokoro(tmp_path / "kokoro")
    synth = ClipSynthesizer(VoiceLibrary(user_dir=tmp_path / "kokoro"), RATE, ClipCache(tmp_path / "cache"))
    text = "One two three. Four five."
    plan = synth.plan(text, VoiceParams(backend="kokoro", voice="af_alpha"))
    clip = synth.finish(synth.infer(plan))
    clip_words = synth.cache.words(plan.key)
    assert clip_words is not None and clip_words.estimated
    check_times(line_words(text, plan, synth.cache), text, clip)


def test_timings_survive_a_new_process_and_an_old_cache_still_loads(tiny_voices, tmp_path):
    voice = VoiceParams(voice=str(tiny_voices["single"]))
    text = "A line said once and kept."
    first = synth_at(tmp_path)
    plan = first.plan(text, voice)
    first.finish(first.infer(plan))
    kept = first.cache.words(plan.key)
    sidecar = first.cache.disk.words_path(plan.key)
    assert sidecar.is_file()

    again = synth_at(tmp_path)  # a new cache over the same folder: the memory tier is empty
    assert again.cache.words(plan.key) == kept
    assert again.cache.get(plan.key) is not None and again.synth_calls == 0

    for damage in ("", "{not json", '{"version": 99, "estimated": false, "words": []}',
                   '{"version": 1, "estimated": false, "words": [["a", 2]]}'):
        sidecar.write_text(damage, encoding="utf-8")
        fresh = synth_at(tmp_path)
        assert fresh.cache.words(plan.key) is None
        assert fresh.cache.get(plan.key) is not None
    sidecar.unlink()  # a cache from before word timings: the clip plays, without timings
    old = synth_at(tmp_path)
    assert old.cache.words(plan.key) is None and line_words(text, plan, old.cache) == ()
    assert old.cache.get(plan.key) is not None


def test_sidecar_round_trip():
    words = wordtimes.ClipWords(((0.01, 0.2, 3), (0.25, 0.5, 4)), estimated=False)
    assert wordtimes.loads(wordtimes.dumps(words)) == words


# --- captions -----------------------------------------------------------------------------

_TIMING = re.compile(r"(\d{2,}):(\d{2}):(\d{2})\.(\d{3}) --> (\d{2,}):(\d{2}):(\d{2})\.(\d{3})")
_STAMP_TAG = re.compile(r"<(\d{2,}):(\d{2}):(\d{2})\.(\d{3})>")


def _s(h: str, m: str, s: str, ms: str) -> float:
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def strict_vtt(text: str) -> list[dict]:
    """The WebVTT rules the captions rely on, checked strictly: the header, a
    blank line between blocks, an id, a timing line (start < end), payload
    lines that are not empty and hold no "-->"; in the payload only ``<v NAME>``
    and timestamp tags, each timestamp after the cue start, before its end and
    after the previous one; "&" only as &amp; &lt; &gt;."""
    assert text.startswith("WEBVTT\n\n") and text.endswith("\n") and "\r" not in text
    cues = []
    for block in text[len("WEBVTT\n\n"):].rstrip("\n").split("\n\n"):
        ident, timing, *payload = block.split("\n")
        assert ident and "-->" not in ident
        m = _TIMING.fullmatch(timing)
        assert m, timing
        start, end = _s(*m.groups()[:4]), _s(*m.groups()[4:])
        assert start < end, timing
        assert payload and all(row and "-->" not in row for row in payload)
        body = "\n".join(payload)
        assert body.startswith("<v ")
        voice_end = body.index(">")
        rest = body[voice_end + 1:]
        stamps = []
        for tag in re.findall(r"<[^>]*>", rest):
            t = _STAMP_TAG.fullmatch(tag)
            assert t, f"unexpected tag {tag!r}"
            stamps.append(_s(*t.groups()))
        assert all(start < a < end for a in stamps) and stamps == sorted(set(stamps)), (start, end, stamps)
        plain = re.sub(r"<[^>]*>", "", rest)
        assert "<" not in plain and ">" not in plain
        assert re.sub(r"&(amp|lt|gt);", "", plain).count("&") == 0
        cues.append({"id": ident, "start": start, "end": end, "rows": plain.split("\n"), "stamps": stamps})
    return cues


def test_long_line_captions_split_at_word_times(tiny_voices, tmp_path):
    synth = synth_at(tmp_path)
    project = Project(title="Words", sample_rate=RATE, cast=[Role("KEEPER", voice=VoiceParams(voice=DEFAULT_VOICE)),
                                                             Role("GULL", voice=VoiceParams(voice=str(tiny_voices["single"])))],
                      lines=[Line("L1", "KEEPER", LONG), Line("L2", "GULL", "Short one."),
                             Line("L3", "GULL", LONG)])
    plans = {line.id: synth.plan(line.text, project.role(line.role).voice) for line in project.lines}
    clips = {line_id: synth.finish(synth.infer(plan)) for line_id, plan in plans.items()}
    placements = layout(project, {k: c.shape[0] / RATE for k, c in clips.items()})
    timed = {line.id: line_words(line.text, plans[line.id], synth.cache) for line in project.lines}

    cues = strict_vtt(vtt(project, placements, timed))
    by_line: dict[str, list[dict]] = {}
    for cue in cues:
        by_line.setdefault(cue["id"].split("-")[0], []).append(cue)
    assert len(by_line["L2"]) == 1 and by_line["L2"][0]["rows"] == ["Short one."]
    for line_id in ("L1", "L3"):
        place = next(p for p in placements if p.line_id == line_id)
        parts = by_line[line_id]
        assert len(parts) >= 2  # 180 characters: more than one cue of two 42-character rows
        assert [c["id"] for c in parts] == [line_id] + [f"{line_id}-{i}" for i in range(2, len(parts) + 1)]
        assert parts[0]["start"] == pytest.approx(place.start, abs=1e-3)
        assert parts[-1]["end"] == pytest.approx(place.end, abs=1e-3)
        for a, b in zip(parts, parts[1:], strict=False):
            assert a["end"] == b["start"]  # back to back, never overlapping
        words = timed[line_id]
        shown = " ".join(" ".join(c["rows"]) for c in parts)
        assert shown == LONG
        for cue in parts:
            assert len(cue["rows"]) <= 2 and all(len(r) <= 42 for r in cue["rows"])
        # Each later cue starts when its first word is spoken.
        for cue in parts[1:]:
            first = re.match(r"[^\W_]+", cue["rows"][0])
            assert first is not None
            heard = [place.start + s for w, s, _ in words if w == first.group()]
            assert min(abs(cue["start"] - t) for t in heard) < 2e-3
        # The word timestamps are the words' starts on the timeline.
        stamps = [s for c in parts for s in c["stamps"]]
        assert len(stamps) >= len(words) - len(parts) - 2
        starts = [place.start + s for _, s, _ in words]
        assert all(min(abs(s - t) for t in starts) <= 0.0015 for s in stamps)  # stamps are whole ms

    srt_text = srt(project, placements, timed)
    blocks = srt_text.strip("\n").split("\n\n")
    assert len(blocks) == len(cues)
    for n, block in enumerate(blocks, start=1):
        number, timing, *rows = block.split("\n")
        assert int(number) == n and re.fullmatch(r"\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}", timing)
        assert rows[0].split(": ", 1)[0] in ("KEEPER", "GULL") and 1 <= len(rows) <= 2
        assert all(len(r) <= 42 for r in rows)


def test_captions_without_timings_split_in_proportion():
    project = Project(cast=[Role("A")], lines=[Line("L1", "A", LONG)])
    placements = layout(project, {"L1": 12.0})
    cues = strict_vtt(vtt(project, placements))
    assert len(cues) >= 2 and all(not c["stamps"] for c in cues)
    assert cues[0]["start"] == 0.0 and cues[-1]["end"] == pytest.approx(12.0)
    assert all(a["end"] == b["start"] for a, b in zip(cues, cues[1:], strict=False))


def test_timing_and_splitting_a_huge_line_is_linear():
    """A pasted chapter as one line: aligning its words and cutting its cues grow
    linearly (the alignment is banded, the cue breaks are searched near their share)."""
    from engine.export.cuesplit import split_caption
    from engine.synth.wordmap import word_times
    from tests.support.growth import LINEAR, growth

    def run(text: str) -> object:
        n = len(text.split())
        clip = wordtimes.ClipWords(tuple((i * 0.3, i * 0.3 + 0.2, 3 + i % 4) for i in range(n)), False)
        return split_caption(text, 0.0, n * 0.3, word_times(text, clip), 7)

    assert growth(run, lambda n: " ".join(("word", "an", "elephant", "x")[i % 4] for i in range(n)), 500) < LINEAR


def test_mapping_words_keeps_the_productions_lexicon_index(tiny_voices, tmp_path):
    """Timing a line's words must not push a production's big lexicon out of the
    frontend's index cache (rebuilding it costs every later plan)."""
    from engine.synth import frontend

    synth = synth_at(tmp_path)
    voice = VoiceParams(voice=str(tiny_voices["single"]))
    lexicon = {f"word{i}": f"wurd {i}" for i in range(20_000)} | {"Siobhan": "shiv awn"}
    plans = [synth.plan(f"Siobhan says hello to word{i}.", voice, lexicon) for i in range(12)]
    for plan in plans:
        synth.finish(synth.infer(plan))
    for i, plan in enumerate(plans):
        words = line_words(f"Siobhan says hello to word{i}.", plan, synth.cache)
        assert [w for w, _, _ in words] == ["Siobhan", "says", "hello", "to", f"word{i}"]
    assert id(lexicon) in frontend._INDEXES
