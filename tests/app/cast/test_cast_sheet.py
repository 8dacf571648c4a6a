"""The cast sheet: each role's gender and age with the evidence in the cast panel,
set by the producer in one undo step; a screenshot of the panel."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from app.cast.model import Col
from app.cast.panel import CastPanel
from app.cast.voices import VoiceCatalog
from app.document.document import Document
from engine.project.casting import infer_characters
from engine.project.importers.build import import_script
from engine.synth.library import VoiceLibrary

ARTIFACTS = Path(os.environ.get("RADIOPLAY_ARTIFACTS", Path(__file__).parents[1] / "artifacts"))
SCRIPT = """INT. KITCHEN - DAY

MARGARET (60s) stirs a pot. ROSIE, a girl of nine, watches.

MARGARET
Sit down, Rosie.

ROSIE
Yes, Gran.

MR. PIKE
Is anyone home?

BLORP
Beep.
"""


def _panel(qtbot, tmp_path: Path) -> tuple[Document, CastPanel]:
    script = tmp_path / "kitchen.fountain"
    script.write_text(SCRIPT, encoding="utf-8")
    project, _ = import_script(script)
    doc = Document(project)
    panel = CastPanel(doc, VoiceCatalog(VoiceLibrary(user_dir=tmp_path / "voices")))
    qtbot.addWidget(panel)
    return doc, panel


def test_the_cast_sheet_shows_the_character_and_its_evidence(qtbot, tmp_path: Path) -> None:
    doc, panel = _panel(qtbot, tmp_path)
    model = panel.model
    shown = {model.index(r, Col.NAME).data(): model.index(r, Col.CHARACTER).data() for r in range(model.rowCount())}
    assert shown == {"MARGARET": "older woman", "ROSIE": "girl", "MR. PIKE": "male", "BLORP": "?"}
    tip = model.index(0, Col.CHARACTER).data(Qt.ItemDataRole.ToolTipRole)
    assert "MARGARET (60s)" in tip and "from the script" in tip
    header = panel.view.horizontalHeader()
    assert header.visualIndex(Col.CHARACTER) == header.visualIndex(Col.NAME) + 1  # beside the name


def test_the_producer_overrides_a_character_in_one_undo_step(qtbot, tmp_path: Path) -> None:
    doc, panel = _panel(qtbot, tmp_path)
    model = panel.model
    row = doc.project.role_names().index("BLORP")
    before = doc.project.role("BLORP").character
    assert model.setData(model.index(row, Col.CHARACTER), "female/older")
    blorp = doc.project.role("BLORP").character
    assert (blorp.gender, blorp.age, blorp.by_producer) == ("female", "older", True)
    assert model.index(row, Col.CHARACTER).data() == "older woman ✎"
    assert infer_characters(doc.project)["BLORP"] == blorp  # a new inference keeps the producer's choice
    doc.undo.undo()
    assert doc.project.role("BLORP").character == before


def test_screenshot_of_the_cast_sheet(qtbot, tmp_path: Path) -> None:
    _doc, panel = _panel(qtbot, tmp_path)
    panel.resize(900, 260)
    panel.show()
    qtbot.waitExposed(panel)
    image = panel.grab().toImage()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "cast-sheet.png"
    assert image.save(str(path))
    small = image.scaled(64, 40).convertToFormat(QImage.Format.Format_RGB32)
    assert len({small.pixel(x, y) for x in range(64) for y in range(40)}) > 10
