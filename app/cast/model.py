"""The cast as a table: one row per role, one column per setting.

Reads the Document's Project directly and writes only through undo
commands, so every cast change can be undone and reaches the engine the
same way. Value ranges are the engine's (engine/project/defaults.py: the file format
checks the same), so the studio cannot make a project the file format would reject.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyle

from app.cast.voices import VoiceCatalog, effect_presets, params_for, picker_id
from app.document.commands import RenameRole, SetRoleField
from app.document.document import Document
from app.widgets.delegates import range_text
from engine.project.defaults import GAIN_DB_RANGE, PAN_RANGE, PRIORITY_RANGE, VOICE_RANGES
from engine.project.engines import engine_named
from engine.project.model import AGES, GENDERS, Character, Role
from engine.project.starting_voices import design_name

ROLE_NAME = Qt.ItemDataRole.UserRole + 1  # data(index, ROLE_NAME) -> the row's role name
_Index = QModelIndex | QPersistentModelIndex


class Col(IntEnum):
    COLOUR = 0
    NAME = 1
    VOICE = 2
    SPEAKER = 3
    SPEED = 4
    PITCH = 5
    VARIATION = 6
    GAIN = 7
    PAN = 8
    PRIORITY = 9
    EFFECT = 10
    MUTE = 11
    SOLO = 12
    AUDITION = 13
    CHARACTER = 14  # shown after the name (CastPanel moves the section)


HEADERS = {
    Col.COLOUR: "", Col.NAME: "Role", Col.VOICE: "Voice", Col.SPEAKER: "Speaker", Col.SPEED: "Speed",
    Col.PITCH: "Pitch", Col.VARIATION: "Variation", Col.GAIN: "Gain", Col.PAN: "Pan",
    Col.PRIORITY: "Priority", Col.EFFECT: "Effect", Col.MUTE: "M", Col.SOLO: "S", Col.AUDITION: "",
    Col.CHARACTER: "Who",
}
HEADER_TIPS = {
    Col.COLOUR: "Lane colour (double-click to change)",
    Col.NAME: "Character name as it appears in the script",
    Col.VOICE: "Voice model: the bundled voice, voices from your voice folder, or a model file",
    Col.SPEAKER: "Speaker of a multi-speaker voice",
    Col.SPEED: "Speaking rate (1.00 = the voice's natural pace)",
    Col.PITCH: "Pitch shift in semitones (formants preserved)",
    Col.VARIATION: "Liveliness: 0 = flat and steady, 1 = the voice's default",
    Col.GAIN: "Lane level in the mix (dB); changes apply live, no re-synthesis",
    Col.PAN: "Stereo position: -1 left, 0 centre, +1 right",
    Col.PRIORITY: "Scheduler weight: leads get their lines synthesized first",
    Col.EFFECT: "Effect preset on this lane",
    Col.MUTE: "Mute this lane",
    Col.SOLO: "Solo: only soloed lanes are heard",
    Col.AUDITION: "Play a sample line in this voice",
    Col.CHARACTER: "Gender and age as read from the script (hover for the evidence); Suggest Cast matches "
                   "voices to it. Double-click to set it yourself",
}
# The choices of the Who column: (label, "gender/age").
CHARACTER_CHOICES: tuple[tuple[str, str], ...] = (
    ("unknown", "/"), ("woman", "female/adult"), ("man", "male/adult"), ("girl", "female/child"),
    ("boy", "male/child"), ("older woman", "female/older"), ("older man", "male/older"), ("child", "/child"),
    ("adult", "/adult"), ("older", "/older"), ("female", "female/"), ("male", "male/"),
)


def character_label(character: Character) -> str:
    key = f"{character.gender}/{character.age}"
    label = next((name for name, value in CHARACTER_CHOICES if value == key), "unknown")
    return label if key != "/" else "?"

# (minimum, maximum, step, decimals, suffix) for the spin boxes: the limits are the ones
# the file format checks on load (engine/project/defaults.py).
RANGES: dict[Col, tuple[float, float, float, int, str]] = {
    Col.SPEED: (*VOICE_RANGES["speed"], 0.02, 2, "×"),
    Col.PITCH: (*VOICE_RANGES["pitch"], 0.5, 1, " st"),
    Col.VARIATION: (*VOICE_RANGES["variation"], 0.05, 2, ""),
    Col.GAIN: (*GAIN_DB_RANGE, 0.5, 1, " dB"),
    Col.PAN: (*PAN_RANGE, 0.05, 2, ""),
    Col.PRIORITY: (*PRIORITY_RANGE, 0.25, 2, ""),
}
_FIELD = {
    Col.SPEED: "voice.speed", Col.PITCH: "voice.pitch", Col.VARIATION: "voice.variation", Col.GAIN: "gain_db",
    Col.PAN: "pan", Col.PRIORITY: "priority", Col.MUTE: "mute", Col.SOLO: "solo", Col.COLOUR: "colour",
    Col.EFFECT: "effect", Col.SPEAKER: "voice.speaker",
}
_COLUMN_OF_FIELD = {field: col for col, field in _FIELD.items()} | {"voice": Col.VOICE, "voice.voice": Col.VOICE,
                                                                     "character": Col.CHARACTER}


def column_tip(col: Col) -> str:
    """The header's explanation, with the range for a numeric column."""
    if col in RANGES:
        lo, hi, _step, _decimals, suffix = RANGES[col]
        return f"{HEADER_TIPS[col]}. Range {range_text(lo, hi, suffix)}"
    return HEADER_TIPS[col]


def format_pan(pan: float) -> str:
    if abs(pan) < 0.005:
        return "C"
    return f"{'L' if pan < 0 else 'R'}{round(abs(pan) * 100)}"


class CastModel(QAbstractTableModel):
    def __init__(self, doc: Document, catalog: VoiceCatalog, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc, self.catalog = doc, catalog
        self.effects = effect_presets()
        doc.roleChanged.connect(self._role_changed)
        doc.castReset.connect(self.reset)
        doc.projectReplaced.connect(self.reset)

    # ---- structure ------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.doc.project.cast)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(Col)

    def role_at(self, row: int) -> Role:
        return self.doc.project.cast[row]

    def row_of(self, name: str) -> int:
        return self.doc.project.role_names().index(name)

    def reset(self) -> None:
        self.beginResetModel()
        self.effects = effect_presets()
        self.endResetModel()

    def _role_changed(self, name: str, field: str) -> None:
        try:
            row = self.row_of(name)
        except ValueError:
            return
        col = _COLUMN_OF_FIELD.get(field)
        if field == "voice":  # the whole VoiceParams (Suggest Cast, a design): speed, pitch, variation too
            self.dataChanged.emit(self.index(row, Col.VOICE), self.index(row, Col.VARIATION))
        elif field == "voice.voice":  # a new voice changes speaker choices and problems too
            self.dataChanged.emit(self.index(row, Col.VOICE), self.index(row, Col.SPEAKER))
        elif field in ("mute", "solo"):  # solo changes what every lane's mute means
            self.dataChanged.emit(self.index(0, Col.MUTE), self.index(self.rowCount() - 1, Col.SOLO))
        elif col is not None:
            self.dataChanged.emit(self.index(row, col), self.index(row, col))

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(Col):
            return None
        col = Col(section)
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return column_tip(col) if col != Col.EFFECT or self.effects else "Effect presets arrive with the effects module"
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        col = Col(index.column())
        role = self.role_at(index.row())
        if col in (Col.MUTE, Col.SOLO):
            return base | Qt.ItemFlag.ItemIsUserCheckable
        if col == Col.EFFECT:
            return base | Qt.ItemFlag.ItemIsEditable if self.effects else Qt.ItemFlag.ItemIsSelectable
        if col == Col.SPEAKER:
            return base | Qt.ItemFlag.ItemIsEditable if self.catalog.speakers(role.voice.voice,
                                                                             role.voice.backend) else base
        if col in (Col.AUDITION, Col.COLOUR):
            return base
        return base | Qt.ItemFlag.ItemIsEditable

    # ---- reading ------------------------------------------------------------
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r = self.role_at(index.row())
        col = Col(index.column())
        if role == ROLE_NAME:
            return r.name
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(r, col)
        if role == Qt.ItemDataRole.EditRole:
            return self._edit_value(r, col)
        if role == Qt.ItemDataRole.CheckStateRole and col in (Col.MUTE, Col.SOLO):
            on = r.mute if col == Col.MUTE else r.solo
            return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.BackgroundRole and col == Col.COLOUR:
            return QBrush(QColor(r.colour))
        if col == Col.VOICE:
            problem = self.catalog.problem(r.voice.voice, r.voice.speaker, r.voice.backend)
            if problem:
                if role == Qt.ItemDataRole.ToolTipRole:
                    return f"This role cannot speak: {problem}"
                if role == Qt.ItemDataRole.ForegroundRole:
                    return QBrush(QColor("#d03030"))
                if role == Qt.ItemDataRole.DecorationRole:
                    return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
            elif role == Qt.ItemDataRole.ToolTipRole:
                info = self.catalog.resolve(r.voice.voice, r.voice.backend)
                return (f"{picker_id(r.voice)}\n{getattr(info, 'model_path', '')}\n"
                        f"{self.catalog.speed_label(r.voice.backend)}")
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == Col.MUTE and r.mute and any(c.solo for c in self.doc.project.cast):
                return "Muted (another lane is soloed, so solo decides what is heard)"
            if col == Col.AUDITION:
                return f"Audition {r.name}: play a sample line in this voice"
            if col == Col.CHARACTER:
                c = r.character
                if c.by_producer:
                    return f"{r.name}: {character_label(c)}, set by you"
                return f"{r.name}: {character_label(c)}, from the script: {c.evidence}" if c.evidence else \
                    f"{r.name}: the script does not say; double-click to set it"
            if col == Col.EFFECT and self.effects:
                effect = str(getattr(r, "effect", "") or "none")
                return f"{effect}: {self.effects.get(effect, 'unknown preset')}"
            return column_tip(col)
        if role == Qt.ItemDataRole.ForegroundRole and col == Col.NAME and r.name not in self.doc.project.audible_roles():
            return QApplication.palette().brush(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in RANGES:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, r: Role, col: Col) -> str | None:
        v = r.voice
        if col == Col.NAME:
            return r.name
        if col == Col.VOICE:
            problem = self.catalog.problem(v.voice, v.speaker, v.backend)
            shown = engine_named(v.backend).called(picker_id(v))
            if not v.design.is_neutral:  # say so, by its presets where it is made of them ("boy (bright)")
                name = design_name(v)
                shown += f" · {name if name != 'custom' else 'designed'}"
            if not problem or not isinstance(self.catalog.resolve(v.voice, v.backend), str):
                return shown
            return f"{shown} — {'not installed' if self.catalog.not_installed(v.voice, v.backend) else 'missing'}"
        if col == Col.SPEAKER:
            speakers = self.catalog.speakers(v.voice, v.backend)
            if not speakers:
                return "—"
            if isinstance(v.speaker, int) and 0 <= v.speaker < len(speakers):
                return speakers[v.speaker]
            return str(v.speaker) if v.speaker is not None else speakers[0]
        if col == Col.SPEED:
            return f"{v.speed:.2f}×"
        if col == Col.PITCH:
            return f"{v.pitch:+.1f} st"
        if col == Col.VARIATION:
            return f"{v.variation:.2f}"
        if col == Col.GAIN:
            return f"{r.gain_db:+.1f} dB"
        if col == Col.PAN:
            return format_pan(r.pan)
        if col == Col.PRIORITY:
            return f"{r.priority:g}"
        if col == Col.EFFECT:
            return str(getattr(r, "effect", "") or "none") if self.effects else "—"
        if col == Col.AUDITION:
            return "▶"
        if col == Col.CHARACTER:
            return character_label(r.character) + (" ✎" if r.character.by_producer else "")
        return None

    def _edit_value(self, r: Role, col: Col) -> Any:
        if col == Col.NAME:
            return r.name
        if col == Col.VOICE:
            return picker_id(r.voice)
        if col == Col.SPEAKER:
            return r.voice.speaker
        if col == Col.EFFECT:
            return getattr(r, "effect", "")
        if col == Col.COLOUR:
            return r.colour
        if col == Col.CHARACTER:
            return f"{r.character.gender}/{r.character.age}"
        field = _FIELD.get(col)
        if field is None:
            return None
        if field.startswith("voice."):
            return getattr(r.voice, field.removeprefix("voice."))
        return getattr(r, field)

    # ---- writing (through undo commands) -------------------------------------
    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid():
            return False
        r = self.role_at(index.row())
        col = Col(index.column())
        undo = self.doc.undo
        if role == Qt.ItemDataRole.CheckStateRole and col in (Col.MUTE, Col.SOLO):
            on = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
            if on != (r.mute if col == Col.MUTE else r.solo):
                undo.push(SetRoleField(self.doc, r.name, _FIELD[col], on))
            return True
        if role != Qt.ItemDataRole.EditRole:
            return False
        if col == Col.NAME:
            new = str(value).strip()
            if not new or new == r.name or new in self.doc.project.role_names():
                return False
            undo.push(RenameRole(self.doc, r.name, new))
            return True
        if col == Col.VOICE:
            picked = str(value).strip()
            if not picked or picked == picker_id(r.voice):
                return False
            # Backend and voice change together: one undo step, never a Piper id run by Kokoro.
            undo.push(SetRoleField(self.doc, r.name, "voice", params_for(picked, r.voice)))
            return True
        if col == Col.COLOUR:
            colour = QColor(str(value))
            if not colour.isValid() or colour.name() == r.colour:
                return False
            undo.push(SetRoleField(self.doc, r.name, "colour", colour.name()))
            return True
        if col == Col.SPEAKER:
            speaker = self.catalog.speaker_value(r.voice.voice, value, r.voice.backend)
            if speaker == r.voice.speaker:
                return False
            undo.push(SetRoleField(self.doc, r.name, "voice.speaker", speaker))
            return True
        if col == Col.CHARACTER:
            gender, _, age = str(value).partition("/")
            if gender not in ("", *GENDERS) or age not in ("", *AGES):
                return False
            if (gender, age) == (r.character.gender, r.character.age) and r.character.by_producer:
                return False
            undo.push(SetRoleField(self.doc, r.name, "character",
                                   Character(gender, age, "set by the producer", by_producer=True)))
            return True
        if col == Col.EFFECT:
            if not self.effects or value == getattr(r, "effect", None):
                return False
            undo.push(SetRoleField(self.doc, r.name, "effect", str(value)))
            return True
        if col in RANGES:
            lo, hi, *_ = RANGES[col]
            try:
                number = min(hi, max(lo, float(value)))
            except (TypeError, ValueError):
                return False
            if number == self._edit_value(r, col):
                return False
            undo.push(SetRoleField(self.doc, r.name, _FIELD[col], number))
            return True
        return False


