"""``radioplay render`` as it mixed before the dialogue leveller (for bench/mix.py's "before").

The leveller's curve is replaced by unity, hot sound clips and staged lines are not trimmed,
and the remembered master gains are not used (they were solved for the
levelled lines). Bench only: the
product has no switch for this.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import engine.export.render as render  # noqa: E402
import engine.mixdown.dialogue as dialogue  # noqa: E402
import engine.mixdown.sound_placement as sounds  # noqa: E402
from engine.audio.leveller import LineEnvelope, cell_frames  # noqa: E402
from engine.export.mix_memo import MixMemo  # noqa: E402


def _unity(audio: np.ndarray, rate: int, offset_db: float, settings: object = None) -> LineEnvelope:
    return LineEnvelope(np.ones(1 + -(-audio.shape[0] // cell_frames(rate)), dtype=np.float32), cell_frames(rate))


dialogue.line_envelope = _unity  # type: ignore[assignment]
dialogue.DialogueChain.ceiling = lambda self, role: float("inf")  # type: ignore[assignment,method-assign,misc]  # no trim
dialogue.DialogueChain.trim_db = lambda self, role: 0.0  # type: ignore[assignment,method-assign,misc]  # no role trim
dialogue.DialogueChain.staged_trim = lambda self, role, peaks: 1.0  # type: ignore[assignment,method-assign,misc]  # no staged trim
sounds.sound_trim = lambda *args, **kwargs: 1.0  # type: ignore[assignment]
render.MixMemo = lambda directory: MixMemo(None)  # type: ignore[assignment,misc]

if __name__ == "__main__":
    from engine.cli import main

    sys.exit(main(sys.argv[1:]))
