"""What the cast panel offers: voices, their speakers, effect presets.

A thin, cached view over engine.synth.library.VoiceLibrary so the panel can
ask "does this role's voice exist?" while painting without reading voice
configs from disk each time. A voice that cannot be found is not an error
here: the panel shows it in the role's row with the library's message.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.project.presets import LANE_EFFECTS, MASTER_EFFECTS
from engine.synth.errors import VoiceError
from engine.synth.library import VoiceInfo, VoiceLibrary


@dataclass(frozen=True)
class VoiceEntry:
    id: str  # what goes into VoiceParams.voice
    label: str  # what the picker shows
    speakers: tuple[str, ...]  # names of a multi-speaker voice, in id order; () if single


class VoiceCatalog:
    def __init__(self, library: VoiceLibrary | None = None) -> None:
        self.library = library or VoiceLibrary()
        self._entries: list[VoiceEntry] | None = None
        self._resolved: dict[str, VoiceInfo | str] = {}

    def set_base_dir(self, base_dir: Path | None) -> None:
        """Relative voice paths in a project resolve beside the project file."""
        self.library.base_dir = base_dir
        self._resolved.clear()

    def refresh(self) -> None:
        self._entries = None
        self._resolved.clear()

    def entries(self) -> list[VoiceEntry]:
        if self._entries is None:
            self._entries = []
            for info in self.library.all():
                if info.backend != "piper":
                    continue  # the picker sets only a Piper voice id; a Kokoro role needs backend "kokoro" too
                where = "bundled" if info.source == "bundled" else "user folder"
                self._entries.append(VoiceEntry(info.id, f"{info.id} ({where})", _speaker_names(info)))
        return self._entries

    def resolve(self, voice: str) -> VoiceInfo | str:
        """The voice, or the library's message saying why it cannot be used."""
        if voice not in self._resolved:
            try:
                self._resolved[voice] = self.library.resolve(voice)
            except VoiceError as exc:
                self._resolved[voice] = str(exc)
        return self._resolved[voice]

    def speakers(self, voice: str) -> tuple[str, ...]:
        info = self.resolve(voice)
        return _speaker_names(info) if isinstance(info, VoiceInfo) else ()

    def speaker_value(self, voice: str, picked: object) -> int | str | None:
        """What a role stores for a picked speaker: the name where the voice names its
        speakers (speaker_id_map; the file then reads "bob", not 1), else the number."""
        names = self.speakers(voice)
        if isinstance(picked, str) and picked.isdigit():
            picked = int(picked)
        if isinstance(picked, int) and not isinstance(picked, bool) and 0 <= picked < len(names):
            return names[picked] if names[picked] != str(picked) else picked
        return picked if isinstance(picked, (int, str)) else None

    def problem(self, voice: str, speaker: int | str | None) -> str | None:
        """Why a role with this voice and speaker cannot speak, or None."""
        info = self.resolve(voice)
        if isinstance(info, str):
            return info
        try:
            info.speaker_id(speaker)
        except VoiceError as exc:
            return str(exc)
        return None


def _speaker_names(info: VoiceInfo) -> tuple[str, ...]:
    if info.num_speakers <= 1:
        return ()
    by_id = {sid: name for name, sid in info.speakers.items()}
    return tuple(by_id.get(i, str(i)) for i in range(info.num_speakers))


def effect_presets() -> dict[str, str]:
    """Lane effect presets: name -> what the preset menu shows."""
    return dict(LANE_EFFECTS)


def master_presets() -> dict[str, str]:
    """Master bus presets: name -> what the preset menu shows."""
    return dict(MASTER_EFFECTS)
