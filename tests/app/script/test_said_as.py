"""The script's text column tells, on hover, what a line is said as (engine.text's
spoken form, the lexicon applied), where that differs from the words as written."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QToolTip

from app.document.document import Document
from app.script.model import Col, ScriptModel
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from tests.support.paths import ARTIFACTS


def _project() -> Project:
    cast = [Role("ANNA", "#e6194b", VoiceParams(voice="en_US-joe-medium")),
            Role("LUIS", "#3cb44b", VoiceParams(voice="es_ES-davefx-medium"))]
    lines = [Line("L1", "ANNA", "Dr. Penrose paid £3.50 at 11:20 on the 14th.", "S1"),
             Line("L2", "ANNA", "Good morning.", "S1"),
             Line("L3", "ANNA", "Meet me at St. Ives (softly) at 7pm.", "S1"),
             Line("L4", "LUIS", "Son las 11:20.", "S1")]
    return Project(title="Said as", cast=cast, scenes=[Scene("S1", "Station")], lines=lines,
                   lexicon={"St. Ives": "Saint Eve's"})


def _tip(model: ScriptModel, line_id: str) -> object:
    return model.data(model.index(model.row_of_line(line_id), Col.TEXT), Qt.ItemDataRole.ToolTipRole)


def test_the_text_tooltip_shows_the_spoken_form(qapp):
    model = ScriptModel(Document(_project()))
    assert _tip(model, "L1") == "Said as: Doctor Penrose paid three pounds fifty at eleven twenty on the fourteenth."
    # The lexicon wins and directions are not said.
    assert _tip(model, "L3") == "Said as: Meet me at Saint Eve's at seven p m."
    # Said as written: the column's own tip, not a "Said as" that repeats the line.
    assert not str(_tip(model, "L2")).startswith("Said as")
    # A Spanish voice reads its own numbers: nothing rewritten.
    assert not str(_tip(model, "L4")).startswith("Said as")


def test_the_tooltip_over_the_script_window(make_window, qtbot):
    window = make_window(project=_project())
    view = window.script.view
    index = view.model().index(window.script.model.row_of_line("L1"), Col.TEXT)
    rect = view.visualRect(index)
    text = view.model().data(index, Qt.ItemDataRole.ToolTipRole)
    QToolTip.showText(view.viewport().mapToGlobal(rect.center()), text, view.viewport(), rect)
    qtbot.waitUntil(lambda: QToolTip.isVisible(), timeout=5000)
    tips = [w for w in QApplication.topLevelWidgets() if w.inherits("QTipLabel") and w.isVisible()]
    assert tips and "three pounds fifty" in tips[0].text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = window.grab()
    from PySide6.QtGui import QPainter

    painter = QPainter(shot)
    # Offscreen, the tip is its own window: drawn where it shows, under the hovered cell's left edge.
    tip = tips[0].grab()
    at = view.viewport().mapTo(window, rect.bottomLeft() + QPoint(0, 4))
    painter.drawPixmap(QPoint(min(at.x(), shot.width() - tip.width()), at.y()), tip)
    painter.end()
    assert shot.save(str(ARTIFACTS / "script-said-as.png"))
    QToolTip.hideText()
