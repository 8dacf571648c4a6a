"""What the cast panel offers: voices, their speakers, effect presets.

A thin, cached view over engine.synth.library.VoiceLibrary so the panel can
ask "does this role's voice exist?" while painting without reading voice
configs from disk each time. A voice that cannot be found is not an error
here: the panel shows it in the role's row with the library's message.

Voices of every backend are offered: a Piper voice by its id, a Kokoro style
as ``kokoro:<name>`` (the id ``radioplay voices`` lists: engine/project/engines.py
says each engine's form). A role stores the backend and the voice apart
(``{"backend": "kokoro", "voice": "af_heart"}``), so picking an entry sets both at
once (:func:`params_for`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.project.defaults import DEFAULT_BACKEND
from engine.project.engines import blend_engine, engine_named, engine_names, engine_of_listed, listed_id
from engine.project.model import VoiceParams
from engine.project.presets import LANE_EFFECTS, MASTER_EFFECTS
from engine.sched.cost import prior_realtime
from engine.synth.backends.registry import native_language
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.casting import english_wer, reads_english
from engine.synth.errors import VoiceError, VoiceNotInstalled
from engine.synth.library import VoiceLibrary


@dataclass(frozen=True)
class VoiceEntry:
    id: str  # what the picker stores: a Piper voice id, or kokoro:<style>
    label: str  # what the picker shows
    speakers: tuple[str, ...]  # names of a multi-speaker voice, in id order; () if single
    backend: str = DEFAULT_BACKEND


def picker_id(params: VoiceParams) -> str:
    """The picker's id of a role's voice: ``kokoro:af_heart`` for a Kokoro role."""
    return listed_id(params.backend, params.voice)


def params_for(picked: str, current: VoiceParams) -> VoiceParams:
    """A role's voice settings with the picked voice: backend and voice together (one
    undo step), the speaker cleared, speed, pitch and variation kept. Paths (they
    contain a slash or end in .onnx) are Piper models whatever their name."""
    engine, voice = engine_of_listed(picked)
    return current.with_changes(backend=engine.name, voice=voice, speaker=None)


def _english_note(info: VoiceInfo) -> str:
    """For a Kokoro style of another language: how well it reads English, as measured
    (engine/synth/casting.py ENGLISH_WER), and whether casting offers it."""
    if not info.style or native_language(info).startswith("en"):
        return ""
    wer = english_wer(info.style)
    if wer is None:
        return ", English not measured"
    verdict = "cast for English" if reads_english(info.style) else "too hard to follow in English"
    return f", English WER {wer:.2f}: {verdict}"


def speed_text(realtime: float) -> str:
    """Audio seconds made per wall second, as a producer reads it."""
    return f"~{realtime:.0f}x" if realtime >= 2 else f"~{realtime:.1f}x".replace(".0x", "x")


class VoiceCatalog:
    def __init__(self, library: VoiceLibrary | None = None) -> None:
        self.library = library or VoiceLibrary()
        self._entries: list[VoiceEntry] | None = None
        self._resolved: dict[tuple[str, str], VoiceInfo | str] = {}
        self._absent: set[tuple[str, str]] = set()  # of _resolved: the voices not installed here
        # backend -> audio seconds per wall second on this machine, as the running engine
        # measures it (the window sets this); None before it has: the backend's prior.
        self.measured_realtime: Callable[[str], float | None] = lambda backend: None
        # Whether the engine has measured the backend here yet (the window sets this too).
        self.measured: Callable[[str], bool] = lambda backend: False

    def set_base_dir(self, base_dir: Path | None) -> None:
        """Relative voice paths in a project resolve beside the project file."""
        self.library.base_dir = base_dir
        self._resolved.clear()
        self._absent.clear()

    def refresh(self) -> None:
        self._entries = None
        self._resolved.clear()
        self._absent.clear()

    def entries(self) -> list[VoiceEntry]:
        if self._entries is None:
            self._entries = []
            for info in self.library.all():
                if not engine_named(info.backend).known:
                    continue
                where = "bundled" if info.source == "bundled" else "user folder"
                self._entries.append(VoiceEntry(info.id, f"{info.id} ({where}{_english_note(info)})",
                                                _speaker_names(info), info.backend))
            order = engine_names()  # grouped by backend, each group in library order
            self._entries.sort(key=lambda e: order.index(e.backend))
        return self._entries

    def kokoro_styles(self, style: str = "") -> list[str]:
        """The styles a Kokoro blend may mix: those of the voices file ``style``'s voice
        comes from (a blend mixes one file's vectors), else of the first one installed."""
        # The user folder's voices file first, as the library resolves a style name.
        kokoro = sorted((e for e in self.library.all() if engine_named(e.backend).blends),
                        key=lambda e: e.source != "user")
        info = self.resolve(style.split("+")[0].split(":")[0], blend_engine().name) if style else None
        if isinstance(info, VoiceInfo):
            kokoro = [e for e in kokoro if e.config_path == info.config_path]
        elif kokoro:
            kokoro = [e for e in kokoro if e.config_path == kokoro[0].config_path]
        return [e.style for e in kokoro]

    def realtime(self, backend: str) -> float:
        """How many seconds of this backend's audio a second of this machine makes: the
        running engine's figure (the play outlook's), else the backend's prior."""
        figure = self.measured_realtime(backend)
        return figure if figure is not None else prior_realtime(backend)

    def speed_label(self, backend: str) -> str:
        """What the picker says about a backend's speed: "Kokoro · ~1x real time here" once
        the engine has measured it here, "Piper · ~25x real time expected" before (a prior is
        not this machine's speed, and under load the two differ a hundredfold)."""
        where = "here" if self.measured(backend) else "expected"
        return f"{engine_named(backend).label} · {speed_text(self.realtime(backend))} real time {where}"

    def resolve(self, voice: str, backend: str = DEFAULT_BACKEND) -> VoiceInfo | str:
        """The voice, or the library's message saying why it cannot be used."""
        key = (backend, voice)
        if key not in self._resolved:
            try:
                self._resolved[key] = self.library.resolve(voice, backend)
            except VoiceNotInstalled as exc:
                self._resolved[key] = str(exc)
                self._absent.add(key)
            except VoiceError as exc:
                self._resolved[key] = str(exc)
        return self._resolved[key]

    def not_installed(self, voice: str, backend: str = DEFAULT_BACKEND) -> bool:
        """The voice is not on this machine (rather than there and unusable)."""
        self.resolve(voice, backend)
        return (backend, voice) in self._absent

    def speakers(self, voice: str, backend: str = DEFAULT_BACKEND) -> tuple[str, ...]:
        info = self.resolve(voice, backend)
        return _speaker_names(info) if isinstance(info, VoiceInfo) else ()

    def speaker_value(self, voice: str, picked: object, backend: str = DEFAULT_BACKEND) -> int | str | None:
        """What a role stores for a picked speaker: the name where the voice names its
        speakers (speaker_id_map; the file then reads "bob", not 1), else the number."""
        names = self.speakers(voice, backend)
        if isinstance(picked, str) and picked.isdigit():
            picked = int(picked)
        if isinstance(picked, int) and not isinstance(picked, bool) and 0 <= picked < len(names):
            return names[picked] if names[picked] != str(picked) else picked
        return picked if isinstance(picked, (int, str)) else None

    def problem(self, voice: str, speaker: int | str | None, backend: str = DEFAULT_BACKEND) -> str | None:
        """Why a role with this voice and speaker cannot speak, or None."""
        info = self.resolve(voice, backend)
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
