"""The compliance measurement of a written mix, remembered beside the solved
gains (engine/mixdown/memo.py): the mix is the same bytes for the same
programme, gain and format, so a cached export measures nothing again."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from engine.export.compliance import Measurement
from engine.mixdown.memo import GainMemo


class MixMemo(GainMemo):
    """The gain memo's folder, with the measurements of the mixes it wrote."""

    def load_measurement(self, key: str) -> Measurement | None:
        """The remembered measurement of the mix a programme ``key`` wrote (see mix_key)."""
        data = self._read(key)
        if data is None:
            return None
        try:
            return Measurement(**data)  # type: ignore[arg-type]  # json reads -Infinity (silence) as Python does
        except TypeError:
            return None

    def save_measurement(self, key: str, measured: Measurement) -> None:
        self._write(key, asdict(measured))


def mix_key(programme: str, gain_db: float, subtype: str, file: str, size: int) -> str:
    """What a written mix depends on beyond its programme: the gain, format, name and its size."""
    blob = json.dumps([programme, repr(gain_db), subtype, file, size]).encode()
    return hashlib.sha256(blob).hexdigest()[:32]
