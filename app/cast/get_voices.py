"""Voices > Get Voices…: browse a voice catalogue, hear samples, download voices.

The catalogue is engine.synth.catalogue's (the same as ``radioplay voices
--catalog``): search, language and quality filters, speakers and size, and
whether a voice is installed. A download is engine.synth.download's, so it is
verified (size, MD5) and installed under its final names only when whole.

Threads: reading the catalogue (``radioplay-catalogue``), fetching a sample
(``radioplay-sample``) and each download (``radioplay-download``) run on their
own threads through app.document.marshal.run_task; progress and results come back
through the Marshal, so the GUI thread never waits on the network. Cancel
sets an event the download checks between chunks. Closing the dialog only
hides it: a download goes on, and reopening shows its progress.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.cast.voices import VoiceCatalog
from app.document.marshal import Marshal, Task, run_task
from engine.synth.catalogue import (
    DEFAULT_CATALOGUE_URL,
    Catalogue,
    CatalogueVoice,
    format_size,
)
from engine.synth.download import DownloadCancelled, download_voice, fetch_recording, load_catalogue
from engine.synth.errors import CatalogueError, DownloadError

COLUMNS = ("Voice", "Language", "Quality", "Speakers", "Size", "Installed")
PlayRecording = Callable[[np.ndarray, int], bool]  # False when there is no engine to play it


def describe(exc: BaseException) -> str:
    if isinstance(exc, (CatalogueError, DownloadError)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


class GetVoicesDialog(QDialog):
    """``voiceInstalled(key)`` once a voice is in the user voice folder (and the catalog refreshed)."""

    voiceInstalled = Signal(str)

    def __init__(self, catalog: VoiceCatalog, marshal: Marshal, play_recording: PlayRecording,
                 location: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("getVoicesDialog")
        self.setWindowTitle("Get Voices")
        self.resize(820, 560)
        self.catalog, self.marshal, self.play_recording = catalog, marshal, play_recording
        self.catalogue: Catalogue | None = None
        self.shown: list[CatalogueVoice] = []
        self.task: Task | None = None  # the last download
        self.downloading: CatalogueVoice | None = None  # while a download runs
        self.cancel_event = threading.Event()
        self._sampling = False  # a sample is being fetched
        self._permille = -1

        self.source = QLineEdit(location or DEFAULT_CATALOGUE_URL, self)
        self.source.setObjectName("catalogueSource")
        self.source.setToolTip("A voices.json in the Piper voices format: a URL or a local file. Voice files are "
                               "fetched from the same folder.")
        self.source.returnPressed.connect(self.load)
        self.load_button = QPushButton("Load", self)
        self.load_button.clicked.connect(self.load)
        self.search = QLineEdit(self)
        self.search.setObjectName("voiceSearch")
        self.search.setPlaceholderText("Search voices…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.refill)
        self.language = QComboBox(self)
        self.language.setObjectName("languageFilter")
        self.quality = QComboBox(self)
        self.quality.setObjectName("qualityFilter")
        for combo in (self.language, self.quality):
            combo.currentIndexChanged.connect(self.refill)
        self.installed_only = QCheckBox("Installed only", self)
        self.installed_only.toggled.connect(self.refill)

        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setObjectName("catalogueTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col, width in enumerate((0, 170, 70, 70, 80, 70)):
            if width:
                self.table.setColumnWidth(col, width)
        self.table.itemSelectionChanged.connect(self.update_actions)

        self.speaker = QComboBox(self)
        self.speaker.setObjectName("sampleSpeaker")
        self.speaker.setToolTip("Speaker whose sample to play")
        self.speaker.currentIndexChanged.connect(self.update_actions)
        self.play_button = QPushButton("▶ Play sample", self)
        self.play_button.setObjectName("playSample")
        self.play_button.clicked.connect(self.play_sample)
        self.download_button = QPushButton("Download", self)
        self.download_button.setObjectName("downloadVoice")
        self.download_button.clicked.connect(self.download)
        self.cancel_button = QPushButton("Cancel download", self)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.status = QLabel(self)
        self.status.setObjectName("getVoicesStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.hide)

        top = QHBoxLayout()
        top.addWidget(QLabel("Catalogue:", self))
        top.addWidget(self.source, 1)
        top.addWidget(self.load_button)
        filters = QHBoxLayout()
        filters.addWidget(self.search, 1)
        filters.addWidget(self.language)
        filters.addWidget(self.quality)
        filters.addWidget(self.installed_only)
        actions = QHBoxLayout()
        actions.addWidget(QLabel("Speaker:", self))
        actions.addWidget(self.speaker)
        actions.addWidget(self.play_button)
        actions.addStretch(1)
        actions.addWidget(self.progress, 2)
        actions.addWidget(self.cancel_button)
        actions.addWidget(self.download_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addLayout(actions)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self._fill_filters()
        self.update_actions()

    # ---- the catalogue -----------------------------------------------------------------
    def load(self) -> Task:
        location = self.source.text().strip() or DEFAULT_CATALOGUE_URL
        self.load_button.setEnabled(False)
        self.status.setText(f"Reading the catalogue {location}…")
        return run_task("radioplay-catalogue", lambda: load_catalogue(location), self.marshal,
                        self._loaded, self._load_failed)

    def _loaded(self, catalogue: Catalogue) -> None:
        self.load_button.setEnabled(True)
        self.catalogue = catalogue
        self._fill_filters()
        self.refill()
        self.status.setText(f"{len(catalogue.voices)} voices in {catalogue.source}. Voices install into "
                            f"{self.catalog.library.user_dir}.")

    def _load_failed(self, exc: BaseException) -> None:
        self.load_button.setEnabled(True)
        self.status.setText(f"Cannot read the catalogue: {describe(exc)}. Enter a mirror's URL or a local "
                            f"voices.json above.")

    def _fill_filters(self) -> None:
        for combo, items, everything in (
                (self.language, self.catalogue.languages() if self.catalogue else [], "All languages"),
                (self.quality, [(q, q) for q in self.catalogue.qualities()] if self.catalogue else [],
                 "All qualities")):
            current = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(everything, None)
            for code, label in items:
                combo.addItem(code if code == label else f"{label} · {code}", code)
            combo.setCurrentIndex(max(0, combo.findData(current)))
            combo.blockSignals(False)

    def refill(self) -> None:
        selected = self.current()
        key = selected.key if selected is not None else None
        folder = self.catalog.library.user_dir
        self.shown = [] if self.catalogue is None else self.catalogue.select(
            self.language.currentData(), self.quality.currentData(), self.search.text(),
            installed_in=folder if self.installed_only.isChecked() else None)
        self.table.setRowCount(len(self.shown))
        for row, voice in enumerate(self.shown):
            installed = voice.installed_in(folder)
            cells = (voice.key, voice.language_name, voice.quality, str(voice.num_speakers),
                     format_size(voice.size), "yes" if installed else "")
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col in (3, 4):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if col == 0:
                    item.setToolTip(f"{voice.key}: {voice.name}, {voice.language_name}"
                                    + (f", also {', '.join(voice.aliases)}" if voice.aliases else ""))
                self.table.setItem(row, col, item)
        rows = [i for i, v in enumerate(self.shown) if v.key == key]
        if rows:
            self.table.selectRow(rows[0])
        self.update_actions()

    def select(self, key: str) -> None:
        for row, voice in enumerate(self.shown):
            if voice.key == key:
                self.table.selectRow(row)

    def current(self) -> CatalogueVoice | None:
        rows = self.table.selectionModel().selectedRows()
        return self.shown[rows[0].row()] if rows and rows[0].row() < len(self.shown) else None

    # ---- buttons -------------------------------------------------------------------------
    def update_actions(self) -> None:
        voice = self.current()
        self._fill_speakers(voice)
        folder = self.catalog.library.user_dir
        busy = self.downloading is not None
        installed = voice is not None and voice.installed_in(folder)
        self.download_button.setEnabled(voice is not None and not busy and not installed)
        self.download_button.setText("Installed" if installed else "Download")
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy or self.progress.value() > 0)
        reason = self._no_sample_reason(voice)
        self.play_button.setEnabled(reason is None)
        self.play_button.setToolTip(reason or f"Play the catalogue's sample of {voice.key if voice else ''}")

    def _fill_speakers(self, voice: CatalogueVoice | None) -> None:
        names = voice.speaker_names() if voice is not None else []
        wanted = [f"{n} ({i})" if n != str(i) else n for i, n in enumerate(names)]
        if [self.speaker.itemText(i) for i in range(self.speaker.count())] != wanted:
            self.speaker.blockSignals(True)
            self.speaker.clear()
            for i, label in enumerate(wanted):
                self.speaker.addItem(label, i)
            self.speaker.blockSignals(False)
        self.speaker.setEnabled(bool(names))

    def _no_sample_reason(self, voice: CatalogueVoice | None) -> str | None:
        if voice is None:
            return "Choose a voice to hear its sample"
        if voice.sample(self._speaker_id()) is None:
            return f"The catalogue lists no sample recording for {voice.key}"
        if self._sampling:
            return "Fetching the sample…"
        return None

    def _speaker_id(self) -> int:
        data = self.speaker.currentData()
        return int(data) if data is not None else 0

    def play_sample(self) -> Task | None:
        voice, catalogue = self.current(), self.catalogue
        file = voice.sample(self._speaker_id()) if voice is not None else None
        if voice is None or catalogue is None or file is None:
            return None
        url = catalogue.url_of(file)
        self.status.setText(f"Fetching the sample of {voice.key}…")
        self._sampling = True
        task = run_task("radioplay-sample", lambda: fetch_recording(url), self.marshal,
                        lambda result: self._sample_ready(voice, result), self._sample_failed)
        self.update_actions()
        return task

    def _sample_ready(self, voice: CatalogueVoice, result: tuple[np.ndarray, int]) -> None:
        audio, rate = result
        self._sampling = False
        played = self.play_recording(audio, rate)
        self.status.setText(f"Playing the sample of {voice.key} ({audio.shape[0] / rate:.1f} s)" if played
                            else "The sample is here, but no sound output is running (the engine is starting "
                                 "or failed)")
        self.update_actions()

    def _sample_failed(self, exc: BaseException) -> None:
        self._sampling = False
        self.status.setText(f"Cannot play the sample: {describe(exc)}")
        self.update_actions()

    def download(self) -> Task | None:
        voice, catalogue = self.current(), self.catalogue
        if voice is None or catalogue is None or self.downloading is not None:
            return None
        self.cancel_event.clear()
        self.downloading, self._permille = voice, -1
        self.progress.setValue(0)
        self.progress.setFormat(f"{voice.key}: %p%")
        folder = self.catalog.library.user_dir
        self.status.setText(f"Downloading {voice.key} ({format_size(voice.size)}) into {folder}…")

        def job() -> list[Any]:
            return download_voice(catalogue, voice, folder, self._worker_progress, self.cancel_event.is_set)

        self.task = run_task("radioplay-download", job, self.marshal, self._downloaded, self._download_failed)
        self.update_actions()
        return self.task

    def _worker_progress(self, name: str, done: int, total: int) -> None:  # the download thread
        permille = done * 1000 // max(total, 1)
        if permille != self._permille:  # at most 1001 hops to the GUI thread per voice
            self._permille = permille
            self.marshal.to_main(self._show_progress, permille)

    def _show_progress(self, permille: int) -> None:
        if self.downloading is not None:
            self.progress.setValue(permille)

    def cancel(self) -> None:
        self.cancel_event.set()
        self.status.setText("Cancelling…")

    def _downloaded(self, _files: list[Any]) -> None:
        voice, self.downloading = self.downloading, None
        self.progress.setValue(1000)
        self.catalog.refresh()
        self.refill()
        if voice is not None:
            self.status.setText(f"Installed {voice.key} (size and MD5 verified): every role's voice picker "
                                f"lists it now.")
            self.voiceInstalled.emit(voice.key)

    def _download_failed(self, exc: BaseException) -> None:
        voice, self.downloading = self.downloading, None
        self.progress.setValue(0)
        key = voice.key if voice is not None else "the voice"
        if isinstance(exc, DownloadCancelled):
            self.status.setText(f"Download of {key} cancelled; nothing installed. What was fetched is kept, and "
                                f"the next download resumes it.")
        else:
            self.status.setText(f"Download of {key} failed: {describe(exc)}")
        self.update_actions()
