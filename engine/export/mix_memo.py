"""The compliance measurement of a written mix, remembered beside the solved
gains (engine/mixdown/memo.py): the mix is the same bytes for the same
programme, gain and format, so a cached export measures nothing again.

For the same reason the audio files a render wrote into an output folder
(mix, stems, DME) are remembered by their identity there
(engine/export/outputset.py file_identity) with what the limiter did: a
render of the same programme into the same folder keeps them (links them
into its set) instead of writing ~350 MB again (the sample), while a file
changed since is written again."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict
from pathlib import Path

from engine.export.compliance import Measurement
from engine.mixdown.memo import GainMemo

# Bump when the write pass changes the bytes it writes for the same programme and gain:
# audio an earlier render left in an output folder is then written again, not kept.
AUDIO_VERSION = 2


class MixMemo(GainMemo):
    """The gain memo's folder, with the measurements of the mixes it wrote."""

    def load_measurement(self, key: str) -> Measurement | None:
        """The remembered measurement of the mix a programme ``key`` wrote (see mix_key)."""
        data = self.folder.read(key)
        if data is None:
            return None
        try:
            return Measurement(**data)  # json reads -Infinity (silence) as Python does
        except TypeError:
            return None

    def save_measurement(self, key: str, measured: Measurement) -> None:
        self.folder.write(key, asdict(measured))


    def load_kept(self, key: str) -> tuple[dict[str, list[int]], dict[str, float]] | None:
        """The files the audio ``key`` (see kept_key) was written as, and the numbers kept with them."""
        data = self.folder.read(key)
        if data is None:
            return None
        files, numbers = data.get("files"), data.get("numbers")
        if not (isinstance(files, dict) and isinstance(numbers, dict)
                and all(isinstance(v, list) and len(v) == 3 and all(isinstance(x, int) for x in v)
                        for v in files.values())
                and all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers.values())):
            return None
        return ({str(k): [int(x) for x in v] for k, v in files.items()},
                {str(k): float(v) for k, v in numbers.items()})

    def save_kept(self, key: str, files: dict[str, list[int]], numbers: dict[str, float]) -> None:
        self.folder.write(key, {"files": files, "numbers": numbers})


    def load_words(self, key: str) -> dict[str, tuple[tuple[str, float, float], ...]] | None:
        """Remembered word timings of a render's lines (engine/export/texts.py), or None."""
        data = self.folder.read(key)
        lines = data.get("lines") if data is not None else None
        if not isinstance(lines, dict):
            return None
        try:
            return {str(lid): tuple((str(w), float(a), float(b)) for w, a, b in words) for lid, words in lines.items()}
        except (TypeError, ValueError):
            return None

    def save_words(self, key: str, lines: dict[str, tuple[tuple[str, float, float], ...]]) -> None:
        self.folder.write(key, {"lines": {lid: [list(w) for w in words] for lid, words in lines.items()}})


    def load_staging(self, key: str) -> float | None:
        """The levelling (master gain in dB) an export of the same clips ended with (see staging_hint_key)."""
        data = self.folder.read(key)
        value = data.get("staging_db") if data is not None else None
        return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None

    def save_staging(self, key: str, staging_db: float) -> None:
        self.folder.write(key, {"staging_db": staging_db})


def staging_hint_key(clips: dict[str, str], target_lufs: float) -> str:
    """The lines' clips (their content keys) and the loudness target: what names the levelling
    a render plans its mix for first. Only a hint: a programme planned from it is used only when
    its own key (engine/mixdown/memo.py) was measured with that levelling."""
    blob = json.dumps(["staging", sorted(clips.items()), repr(target_lufs)]).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


def kept_key(programme: str, gain_db: float, staging_db: float, subtypes: tuple[str, str], block: int,
             files: list[str], outdir: Path) -> str:
    """The audio files of a render as written into ``outdir``: what their bytes depend on beyond
    the programme's key (the gain and the levelling it was solved with, the master's and the
    stems' formats, the block, the files' names) and the folder."""
    blob = json.dumps([AUDIO_VERSION, programme, repr(gain_db), repr(staging_db), subtypes, block, files,
                       str(Path(outdir).resolve())]).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


def mix_key(programme: str, gain_db: float, subtype: str, file: str, size: int) -> str:
    """What a written mix depends on beyond its programme: the gain, format, name and its size."""
    blob = json.dumps([programme, repr(gain_db), subtype, file, size]).encode()
    return hashlib.sha256(blob).hexdigest()[:32]
