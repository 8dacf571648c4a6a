"""The question at start-up after a crash: which autosaved productions to recover.

Lists every autosave a crashed studio left (two windows, two studios: two
rows), each with the file it will be saved back into, or why it opens as a
new unsaved production instead (its file changed or is gone).
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.document.recovery import Recovery

DISCARD = 2  # the dialog's result when the producer discards every autosave


def describe_target(recovery: Recovery) -> str:
    """Where Save will write the recovered production, in the producer's words."""
    if recovery.restore_to is not None:
        return str(recovery.restore_to)
    if recovery.reason:
        return f"New unsaved production: {recovery.reason}"
    return "New unsaved production (it was never saved)"


class RecoveryDialog(QDialog):
    """Recover (the ticked rows; the others are discarded), Discard All, or Later (keep them all)."""

    def __init__(self, recoveries: list[Recovery], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recoveryDialog")
        self.setWindowTitle("Recover unsaved work?")
        self.recoveries = recoveries
        many = len(recoveries) > 1
        intro = QLabel(
            "Radioplay did not close properly last time. Unsaved changes to "
            f"{'these productions' if many else 'this production'} were kept by autosave. "
            + ("Each one you recover opens in its own window." if many else ""), self)
        intro.setWordWrap(True)
        self.list = QTreeWidget(self)
        self.list.setObjectName("recoveryList")
        self.list.setHeaderLabels(["Production", "Save goes to", "Autosaved"])
        self.list.setRootIsDecorated(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # keep the file name and its folder's start
        warning = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        self.items: list[QTreeWidgetItem] = []  # one per recovery, in its order
        for recovery in recoveries:
            name = recovery.title or (recovery.original.name if recovery.original else "Untitled")
            when = datetime.fromtimestamp(recovery.saved_at).strftime("%Y-%m-%d %H:%M")
            item = QTreeWidgetItem([name, describe_target(recovery), when])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked)
            item.setToolTip(1, describe_target(recovery))
            if recovery.reason:
                item.setIcon(1, warning)
            self.list.addTopLevelItem(item)
            self.items.append(item)
        self.list.resizeColumnToContents(0)
        self.list.setColumnWidth(0, max(160, self.list.columnWidth(0) + 24))
        self.list.setColumnWidth(1, 560)
        # The reasons in full: a path elided in the list must still be readable somewhere.
        reasons = [f"• {item.text(0)}: {r.reason}." for item, r in zip(self.items, recoveries, strict=True) if r.reason]
        note = QLabel("\n".join(["Never saved over a file that changed or disappeared since; these open as new "
                                 "productions and Save asks for a name:", *reasons]), self)
        note.setWordWrap(True)
        note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        note.setObjectName("recoveryNote")
        note.setVisible(bool(reasons))
        self.buttons = QDialogButtonBox(self)
        recover = self.buttons.addButton("Recover", QDialogButtonBox.ButtonRole.AcceptRole)
        recover.setDefault(True)
        discard = QPushButton("Discard All", self)
        self.buttons.addButton(discard, QDialogButtonBox.ButtonRole.DestructiveRole)
        self.buttons.addButton("Later", QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        discard.clicked.connect(lambda: self.done(DISCARD))
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list)
        layout.addWidget(note)
        layout.addWidget(self.buttons)
        self.resize(920, 260 + 28 * min(len(recoveries), 8))

    def chosen(self) -> list[Recovery]:
        return [r for item, r in zip(self.items, self.recoveries, strict=True)
                if item.checkState(0) == Qt.CheckState.Checked]
