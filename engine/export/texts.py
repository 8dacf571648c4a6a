"""The text files of a render: captions (SRT, WebVTT), the cue sheet and, asked
for, the DAW project; and the written words' timings the captions carry,
remembered for the same lines in the mix memo (engine/export/mix_memo.py):
weighing every written word with espeak-ng and aligning it to the spoken
words (engine/synth/wordmap.py) was a noticeable share of a cached export, the
same work for the same clips at every export.
"""

from __future__ import annotations

import hashlib
import json

from engine.export import captions
from engine.export.mix_memo import MixMemo
from engine.export.outputset import OutputSet
from engine.mixdown.dialogue import LevelledLines
from engine.mixdown.sound_placement import SoundSet
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement
from engine.synth.pipeline import SynthesisResult
from engine.synth.synthesizer import ClipSynthesizer
from engine.synth.wordmap import WordTime, line_words

TEXT_FILES = ("captions.srt", "captions.vtt", "cues.json")
# Bump when engine/synth/wordmap.py times the same words differently: remembered timings are then not used.
WORDS_VERSION = 1


def write_texts(project: Project, synth: ClipSynthesizer, result: SynthesisResult, placements: list[Placement],
                sound_placements: list[SoundPlacement], sounds: SoundSet, output: OutputSet, daw: str, name: str,
                stems: dict[str, str], staging_db: float, memo: MixMemo,
                scene_db: dict[str, float] | None = None) -> None:
    """Captions, the cue sheet and (``daw`` named) the DAW project ``name`` (``stems``: each
    role's stem file in the set, which the hand-offs carry beside a staged role's dry lines;
    the line files are the lines as the mix levels them for ``staging_db``, each scene's
    ``scene_db`` louder, before their staging)."""
    timed = timed_lines(project, synth, result, memo)
    texts = (captions.srt(project, placements, timed), captions.vtt(project, placements, timed),
             captions.cue_sheet(project, placements, sound_placements, sounds.files))
    for file, text in zip(TEXT_FILES, texts, strict=True):
        output.path(file).write_text(text, encoding="utf-8", newline="\n")
    if daw:
        from engine.export.daw import write_daw  # its modules (0.2 s of imports) only when asked for

        write_daw(daw, project, name, placements, LevelledLines(project, result.clips, staging_db, scene_db), output,
                  sound_placements, sounds, stems)


def timed_lines(project: Project, synth: ClipSynthesizer, result: SynthesisResult,
                memo: MixMemo) -> dict[str, tuple[WordTime, ...]]:
    """Each voiced line's written words timed in its clip (a recording has no timings):
    remembered for the same texts, clips, lexicon entries and languages, else timed now."""
    lines = [line for line in project.lines if line.id in result.plans and line.recording is None]
    blob = json.dumps(["words", WORDS_VERSION, [
        [line.id, line.text, result.plans[line.id].key, [list(e) for e in result.plans[line.id].prepared.lexicon_used],
         result.plans[line.id].voice.language] for line in lines]], ensure_ascii=False).encode()
    key = hashlib.sha256(blob).hexdigest()[:32]
    known = memo.load_words(key)
    if known is not None and set(known) == {line.id for line in lines}:
        return known
    timed = {line.id: line_words(line.text, result.plans[line.id], synth.cache) for line in lines}
    if all(timed.values()):  # a clip without timings yet (an older cache) may get them: not remembered
        memo.save_words(key, timed)
    return timed
