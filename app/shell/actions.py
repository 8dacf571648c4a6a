"""Every window-level command as a QAction with its shortcut, in one table.

Tests trigger these actions and assert their key bindings (key clicks do not
reach QShortcut on the offscreen platform); the Help > Keyboard Shortcuts
dialog lists the same table, so the documentation cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

Std = QKeySequence.StandardKey


@dataclass(frozen=True)
class ActionSpec:
    name: str
    text: str
    keys: tuple[QKeySequence.StandardKey | str, ...]
    tip: str
    menu: str


SPECS = (
    ActionSpec("new", "&New", (Std.New,), "Start an empty production", "file"),
    ActionSpec("open", "&Open…", (Std.Open,), "Open a .radioplay project", "file"),
    ActionSpec("save", "&Save", (Std.Save,), "Save the project", "file"),
    ActionSpec("save_as", "Save &As…", ("Ctrl+Shift+S",), "Save the project under a new name", "file"),
    ActionSpec("import", "&Import Script…", ("Ctrl+I",), "Import a Fountain or 'NAME: line' script", "file"),
    ActionSpec("export", "&Export…", ("Ctrl+E",), "Render the mix, one stem per role, captions and cues",
               "file"),
    ActionSpec("quit", "&Quit", (Std.Quit, "Ctrl+Q"), "Close Radioplay", "file"),
    ActionSpec("undo", "&Undo", (Std.Undo,), "Undo the last edit", "edit"),
    ActionSpec("redo", "&Redo", (Std.Redo, "Ctrl+Y"), "Redo the edit you undid", "edit"),
    ActionSpec("add_role", "Add &Role", ("Ctrl+Shift+R",), "Add a role to the cast", "edit"),
    ActionSpec("audition", "&Audition Role", ("Ctrl+Shift+A",), "Hear the selected role's voice at once", "edit"),
    ActionSpec("fix_flagged", "&Fix Flagged Lines…", (), "Make new takes of the lines the speech check flagged "
               "(never locked ones) and keep the best-scoring take of each (one undo step)", "edit"),
    ActionSpec("timing", "Project &Timing…", (), "Gaps between lines and scenes, and the lengths of (beat), "
               "(pause) and (long pause)", "edit"),
    ActionSpec("suggest_cast", "&Suggest Cast", (), "Give every role a voice of its own from the installed voices "
               "and speakers, leads first (one undo step)", "cast"),
    ActionSpec("design_voice", "&Design Voice…", (), "Make a character of the selected role's voice: pitch, "
               "vocal tract, breath, brightness, rate, from presets such as woman, girl, older man; heard as "
               "the sliders move", "cast"),
    ActionSpec("blend_voice", "&Blend Kokoro Styles…", (), "Blend Kokoro style vectors into the selected role's "
               "voice, hearing it as the weights move", "cast"),
    ActionSpec("get_voices", "&Get Voices…", (), "Browse the voice catalogue, hear samples, download voices",
               "voices"),
    ActionSpec("play_pause", "&Play/Pause", ("Space",), "Play from the playhead, or pause", "transport"),
    ActionSpec("stop", "&Stop", ("Shift+Space",), "Stop and return to where playback started", "transport"),
    ActionSpec("from_start", "Play from &Start", ("Home",), "Play from the beginning", "transport"),
    ActionSpec("loop", "&Loop Selection", ("Ctrl+L",), "Repeat the loop region set on the ruler", "transport"),
    ActionSpec("play_line", "Play from &Line", ("Ctrl+P",), "Play from the line selected in the script",
               "transport"),
    ActionSpec("reset_layout", "Reset &Layout", (), "Put every panel back where it started", "view"),
    ActionSpec("shortcuts", "&Keyboard Shortcuts", ("F1",), "List every shortcut", "help"),
    ActionSpec("about", "&About Radioplay", (), "Version and licence", "help"),
)


def build_actions(parent: QObject) -> dict[str, QAction]:
    actions: dict[str, QAction] = {}
    for spec in SPECS:
        action = QAction(spec.text, parent)
        action.setObjectName(f"action_{spec.name}")
        keys: list[QKeySequence] = []
        for key in spec.keys:
            if isinstance(key, str):
                seq = QKeySequence(key)
                if seq not in keys:
                    keys.append(seq)
            else:
                keys.extend(k for k in QKeySequence.keyBindings(key) if k not in keys)
        action.setShortcuts(keys)
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        shown = keys[0].toString(QKeySequence.SequenceFormat.NativeText) if keys else ""
        action.setToolTip(f"{spec.tip} ({shown})" if shown else spec.tip)
        action.setStatusTip(spec.tip)
        actions[spec.name] = action
    actions["loop"].setCheckable(True)
    return actions


_K = Qt.Key
# Named keys every PC keyboard has; with F1-F12 and the printable keys, what the shortcut list shows.
_TYPEABLE = {_K.Key_Space, _K.Key_Home, _K.Key_End, _K.Key_Delete, _K.Key_Insert, _K.Key_Backspace,
             _K.Key_Return, _K.Key_Enter, _K.Key_Escape, _K.Key_Tab, _K.Key_PageUp, _K.Key_PageDown,
             _K.Key_Left, _K.Key_Right, _K.Key_Up, _K.Key_Down}
_PRINTABLE_END = 0x01000000  # Qt numbers the printable keys below this, the special keys above


def _typeable(sequence: QKeySequence) -> bool:
    for i in range(sequence.count()):
        key = sequence[i].key()  # type: ignore[index]  # QKeySequence[i] is a QKeyCombination at run time
        if key.value >= _PRINTABLE_END and key not in _TYPEABLE and not _K.Key_F1.value <= key.value <= _K.Key_F12.value:
            return False
    return True


def readable_keys(action: QAction) -> list[str]:
    """The action's bindings a person types on an ordinary keyboard, primary first. Qt's
    standard bindings add keys only some keyboards have (Undo, Copy, F14), which read as noise."""
    return [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if _typeable(k)]


def shortcut_table(actions: dict[str, QAction], extra: list[QAction] | None = None) -> list[tuple[str, str]]:
    """(command, keys) rows for the shortcuts dialog."""
    rows = []
    seen: set[int] = set()
    for action in [*actions.values(), *(extra or [])]:
        keys = ", ".join(readable_keys(action))
        if keys and id(action) not in seen:
            seen.add(id(action))
            rows.append((action.text().replace("&", ""), keys))
    return rows
