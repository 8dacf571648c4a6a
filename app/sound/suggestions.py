"""The suggested sounds in the Sounds panel: what the script's action lines describe
(engine/project/sound_suggestions.py), offered for the producer to accept or dismiss.

Shown at the top of the Sounds tab, above the lanes: it is what the producer has to
answer after an import, and where a sound is chosen anyway. One row per suggestion not
answered yet: the cue, its lane kind, the library sound it matched ("no sound in the
library" where none did: never the nearest other sound), and as its tooltip the script's
sentence and where it stands. Selecting a row shows that line on the timeline; Accept
makes the selected rows clips where they stand (placeholders for the unmatched, which
the missing-sounds list then names), Dismiss keeps them answered. Each click is one
undo step (app/sound/edits.py). GUI thread only.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.sound import edits as sound_edits
from app.sound.access import SoundStudio
from engine.project.sound import SoundSuggestion
from engine.project.sound_suggestions import open_suggestions

_COLUMNS = ("Sound", "Where", "Lane", "Library")
ROWS_SHOWN = 6


class SuggestedSounds(QWidget):
    def __init__(self, studio: SoundStudio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("suggestedSounds")
        self.studio = studio
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("", self)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.rows = QTreeWidget(self)
        self.rows.setObjectName("suggestedSoundRows")
        self.rows.setHeaderLabels(_COLUMNS)
        self.rows.setRootIsDecorated(False)
        self.rows.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.rows.setColumnWidth(0, 200)
        self.rows.setColumnWidth(1, 90)
        self.rows.setColumnWidth(2, 100)  # "ambience bed"
        self.rows.itemSelectionChanged.connect(self._show_line)
        layout.addWidget(self.rows)
        buttons = QHBoxLayout()
        self.accept = QPushButton("Accept", self)
        self.accept.setObjectName("acceptSuggestedSound")
        self.accept.setToolTip("Make the selected sounds clips where the script describes them")
        self.accept.clicked.connect(lambda: self.answer(accept=True))
        self.dismiss = QPushButton("Dismiss", self)
        self.dismiss.setObjectName("dismissSuggestedSound")
        self.dismiss.setToolTip("Do not offer the selected sounds again")
        self.dismiss.clicked.connect(lambda: self.answer(accept=False))
        buttons.addWidget(self.accept)
        buttons.addWidget(self.dismiss)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        studio.doc.projectChanged.connect(self._project_changed)
        studio.doc.projectReplaced.connect(self.show_suggestions)
        self.show_suggestions()

    def _project_changed(self, field: str) -> None:
        if field == "sound_suggestions":
            self.show_suggestions()

    def show_suggestions(self) -> None:
        project = self.studio.doc.project
        offered = open_suggestions(project)
        number = {line.id: n for n, line in enumerate(project.lines, start=1)}  # as the script numbers them
        self.rows.clear()
        for suggestion in offered:
            self.rows.addTopLevelItem(_row(suggestion, number))
        matched = sum(1 for s in offered if s.file)
        self.title.setText(f"<b>Sounds the script describes</b> ({len(offered)}: {matched} found in the library). "
                           "Accept makes a clip where the script describes it; never spoken.")
        rows = min(len(offered), ROWS_SHOWN)
        self.rows.setFixedHeight(self.rows.header().sizeHint().height() + max(rows, 1) * 22 + 6)
        self.setVisible(bool(offered))

    def selected_ids(self) -> list[str]:
        return [item.data(0, Qt.ItemDataRole.UserRole) for item in self.rows.selectedItems()]

    def answer(self, accept: bool) -> None:
        chosen = self.selected_ids()
        if not chosen:
            return
        doc = self.studio.doc
        doc.undo.push(sound_edits.answer_suggestions(doc, chosen if accept else [], [] if accept else chosen))

    def _show_line(self) -> None:
        chosen = self.selected_ids()
        by_id = {s.id: s for s in self.studio.doc.project.sound_suggestions}
        if chosen and by_id[chosen[0]].line is not None:
            self.studio.timeline.select_line(by_id[chosen[0]].line)


def _row(suggestion: SoundSuggestion, number: dict[str, int]) -> QTreeWidgetItem:
    library = suggestion.file.rsplit("/", 1)[-1] if suggestion.file else "no sound in the library"
    at = number.get(suggestion.line or "")
    where = f"before line {at}" if at is not None else "at the end"
    # A scene's weather or exposure bed (engine/project/weather.py) says so beside its lane.
    lane = f"{suggestion.lane_kind} bed" if suggestion.kind == "bed" else suggestion.lane_kind
    item = QTreeWidgetItem([suggestion.text, f"{suggestion.scene or ''} {where}".strip(), lane, library])
    item.setData(0, Qt.ItemDataRole.UserRole, suggestion.id)
    item.setToolTip(0, f"\u201c{suggestion.evidence}\u201d (line {suggestion.source_line} of the script file)")
    if not suggestion.file:
        item.setToolTip(3, "No file of this sound in the library: accepted, it is a placeholder until you "
                           "drop a file on it or Assign one")
    return item
