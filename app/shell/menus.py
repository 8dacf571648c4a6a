"""The main window's menus and toolbars, and the small dialogs behind Help.

Menus only arrange the window's QActions (app/shell/actions.py) and the panels'
own actions; every command itself lives on the window, the file commands or
a panel, but for the synthesis device's choice (a setting and an engine start,
nothing else of the window). The Mix menu's master presets and the Transport
menu's output devices and synthesis devices are filled when they open, from
the engine's current lists.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QMessageBox, QToolBar

from app.cast.voices import master_presets
from app.document.commands import SetProjectField
from app.document.settings import SYNTH_DEVICE
from app.revisions.dialog import open_revision_dialog
from app.shell import panels
from app.shell.actions import shortcut_table
from app.shell.studio_window import StudioWindow
from app.sound.menus import sound_menu
from app.transport.table_read import open_table_read
from engine import __version__
from engine.synth.backends.synth_device import cuda_offered


def build_menus(w: StudioWindow) -> None:
    a = w.actions_
    bar = w.menuBar()
    file_menu = bar.addMenu("&File")
    for name in ("new", "open"):
        file_menu.addAction(a[name])
    w.recent_menu = QMenu("Open &Recent", w.window())
    w.recent_menu.setObjectName("recentMenu")
    w.recent_menu.aboutToShow.connect(w.fill_recent_menu)
    file_menu.addMenu(w.recent_menu)
    file_menu.addSeparator()
    for name in ("save", "save_as"):
        file_menu.addAction(a[name])
    file_menu.addSeparator()
    file_menu.addAction(a["import"])
    revision = file_menu.addAction("Import Re&vision…")
    revision.setObjectName("importRevisionAction")
    revision.setStatusTip("Bring a new draft of the script in, keeping the takes of every line that did not change")
    revision.triggered.connect(lambda: open_revision_dialog(w))
    file_menu.addAction(a["export"])
    file_menu.addSeparator()
    file_menu.addAction(a["quit"])

    edit = bar.addMenu("&Edit")
    edit.addAction(a["undo"])
    edit.addAction(a["redo"])
    edit.addSeparator()
    script = w.script.edit_actions()  # cut, copy, paste, insert, delete, find, replace, find next/previous
    for group in (script[:3], script[3:5], script[5:]):
        for action in group:
            edit.addAction(action)
        edit.addSeparator()
    edit.addAction(a["add_role"])
    edit.addAction(a["audition"])
    edit.addSeparator()
    edit.addAction(a["fix_flagged"])  # app/script/check_marks.py
    edit.addAction(a["timing"])  # app/dialogs/timing.py

    transport = bar.addMenu("&Transport")
    for name in ("play_pause", "stop", "from_start", "play_line", "loop"):
        transport.addAction(a[name])
    transport.addSeparator()
    w.output_menu = QMenu("Sound &Output", w.window())
    w.output_menu.setObjectName("outputMenu")
    w.output_menu.setToolTipsVisible(True)
    w.output_menu.aboutToShow.connect(lambda: fill_output_menu(w))
    transport.addMenu(w.output_menu)
    w.device_menu = QMenu("S&ynthesis Device", w.window())
    w.device_menu.setObjectName("synthesisDeviceMenu")
    w.device_menu.aboutToShow.connect(lambda: fill_device_menu(w))
    transport.addMenu(w.device_menu)
    transport.addSeparator()
    table_read = transport.addAction("Table &Read…")
    table_read.setObjectName("tableReadAction")
    table_read.triggered.connect(lambda: open_table_read(w))

    mix = bar.addMenu("&Mix")
    w.master_menu = QMenu("&Master Effect", w.window())
    w.master_menu.setObjectName("masterMenu")
    w.master_menu.setToolTipsVisible(True)
    w.master_menu.aboutToShow.connect(lambda: fill_master_menu(w))
    mix.addMenu(w.master_menu)
    bar.addMenu(sound_menu(w.doc, w.window()))  # app/sound/menus.py: Add Sound Lane

    cast = bar.addMenu("&Cast")
    for name in ("add_role", "audition"):
        cast.addAction(a[name])
    cast.addSeparator()
    cast.addAction(a["suggest_cast"])
    cast.addAction(a["design_voice"])
    cast.addAction(a["blend_voice"])
    voices = bar.addMenu("V&oices")
    voices.addAction(a["get_voices"])

    view = bar.addMenu("&View")
    for dock in (w.cast_dock, w.timeline_dock, w.monitor_dock):
        view.addAction(dock.toggleViewAction())
    view.addSeparator()
    view.addAction(w.script.follow_action)
    for action in panels.timeline_actions(w.timeline):
        view.addAction(action)
    view.addSeparator()
    view.addAction(a["reset_layout"])

    help_menu = bar.addMenu("&Help")
    help_menu.addAction(a["shortcuts"])
    help_menu.addAction(a["about"])
    for action in a.values():  # shortcuts work even while a menu bar is hidden
        w.addAction(action)


def build_toolbars(w: StudioWindow) -> None:
    w.addToolBar(Qt.ToolBarArea.TopToolBarArea, w.transport)
    project = QToolBar("Project", w.window())
    project.setObjectName("projectToolBar")
    project.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    for name in ("save", "import", "export"):
        project.addAction(w.actions_[name])
    w.addToolBar(Qt.ToolBarArea.TopToolBarArea, project)


def fill_output_menu(w: StudioWindow) -> None:
    """Sound devices as the engine listed them when it started, and "null" (no sound)."""
    menu = w.output_menu
    menu.clear()
    outputs = w.engine.outputs
    state = w.engine.state()
    current = state.transport.output if state is not None else None
    if not outputs:
        menu.addAction("No engine running").setEnabled(False)
        return
    group = QActionGroup(menu)
    for name in outputs:
        action = menu.addAction("No sound (silent clock)" if name == "null" else name)
        action.setCheckable(True)
        action.setChecked(name == current)
        group.addAction(action)
        action.triggered.connect(lambda _=False, n=name: w.set_output(n))


def fill_device_menu(w: StudioWindow) -> None:
    """Where synthesis runs now and why, and the devices to choose from (remembered; the
    engine starts again on the new one)."""
    menu = w.device_menu
    menu.clear()
    session = w.session()
    device = session.synth.device if session is not None else None
    if session is None:
        now = "No engine running"
    elif device is None:  # a session made without a device (a test's, a bench's): plain CPU runs
        now = "Now: cpu (plain sessions)"
    else:
        now = f"Now: {device.name} ({device.reason})"
    menu.addAction(now).setEnabled(False)
    menu.addSeparator()
    choices = [("auto", "Auto (a GPU that answers, else the CPU)"), ("cpu", "CPU")]
    if cuda_offered():  # the provider's list only: probing a GPU here would hold the window up
        choices.append(("cuda", "GPU (CUDA device 0)"))
    if w.synthesis_device not in {name for name, _ in choices}:  # --device cuda:1, or a GPU gone since
        choices.append((w.synthesis_device, w.synthesis_device))
    group = QActionGroup(menu)
    for name, label in choices:
        action = menu.addAction(label)
        action.setCheckable(True)
        action.setChecked(name == w.synthesis_device)
        group.addAction(action)
        action.triggered.connect(lambda _=False, n=name: set_synthesis_device(w, n))


def set_synthesis_device(w: StudioWindow, name: str) -> None:
    """Synthesize on another device (remembered): the engine starts again on it (its clips stay cached)."""
    if name != w.synthesis_device:
        w.synthesis_device = name
        SYNTH_DEVICE.write(w.settings, name)
        w.statusBar().showMessage(f"Synthesis device: {name}; the engine starts again on it", 5000)
        w.start_engine()


def fill_master_menu(w: StudioWindow) -> None:
    menu = w.master_menu
    menu.clear()
    presets = master_presets()
    current = getattr(w.doc.project, "master_effect", None)
    if not presets or current is None:
        menu.addAction("No master effects in this engine").setEnabled(False)
        return
    group = QActionGroup(menu)
    for name, description in presets.items():
        action = menu.addAction(name.capitalize())
        action.setToolTip(description)
        action.setCheckable(True)
        action.setChecked(name == current)
        group.addAction(action)
        action.triggered.connect(lambda _=False, n=name: set_master_effect(w, n))


def set_master_effect(w: StudioWindow, name: str) -> None:
    if name != getattr(w.doc.project, "master_effect", name):
        w.doc.undo.push(SetProjectField(w.doc, "master_effect", name, f"Master effect: {name}"))


def fill_recent_menu(w: StudioWindow) -> None:
    menu = w.recent_menu
    menu.clear()
    paths = w.files.recent.paths()
    for i, path in enumerate(paths, start=1):
        action = menu.addAction(f"&{i} {path.name}")
        action.setToolTip(str(path))
        action.triggered.connect(lambda _=False, p=path: w.files.open(p))
    if not paths:
        menu.addAction("No recent projects").setEnabled(False)
    else:
        menu.addSeparator()
        menu.addAction("Clear list", w.files.recent.clear)


def _box(w: StudioWindow, icon: QMessageBox.Icon, title: str, text: str, name: str) -> QMessageBox:
    """A message box that does not block the event loop and deletes itself when closed."""
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Close, w.window())
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setObjectName(name)
    box.open()
    return box


def show_shortcuts(w: StudioWindow) -> QMessageBox:
    # Then every other action the window answers to (a panel's, such as Add to Lexicon's Ctrl+Shift+L).
    extra: list[QAction] = [*w.script.edit_actions(), *panels.timeline_actions(w.timeline), *w.actions()]
    rows = shortcut_table(w.actions_, extra)
    html = "<table>" + "".join(f"<tr><td>{c}</td><td>&nbsp;&nbsp;<b>{k}</b></td></tr>" for c, k in rows) + "</table>"
    return _box(w, QMessageBox.Icon.NoIcon, "Keyboard shortcuts", html, "shortcutsBox")


def show_about(w: StudioWindow) -> QMessageBox:
    return _box(w, QMessageBox.Icon.Information, "About Radioplay",
                f"<b>Radioplay {__version__}</b><br>A studio for multi-voice audio drama with local neural "
                "voices.<br>GPL-3.0-or-later.", "aboutBox")
