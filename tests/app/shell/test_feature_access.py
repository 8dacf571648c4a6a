"""The studio's feature packages as the shell composes them: a built main window has every member
each feature's Protocol (app/<feature>/access.py) and the shell's StudioWindow ask of it, down
through the members that are Protocols themselves; app/ keeps its top level small; a lane's kind is
never read from its name.

mypy (strict over app/) checks the members' types where main_window.py hands the window to each
feature; it takes a member declared without a value (``self.recent_menu: QMenu``, made later by
app/shell/menus.py) on trust. This test builds the window and finds each member on it."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from app.document.recovery import RecoveryStore
from app.lexicon.access import LexiconStudio
from app.live.access import LiveStudio
from app.revisions.access import RevisionStudio
from app.script.access import CheckStudio
from app.shell.main_window import MainWindow, default_session_factory
from app.shell.studio_window import StudioWindow
from app.sound.access import SoundStudio
from app.takes.access import TakesStudio
from app.transport.access import TableReadStudio

APP = Path(__file__).resolve().parents[3] / "app"
FEATURE_PROTOCOLS = (SoundStudio, LexiconStudio, TakesStudio, TableReadStudio, CheckStudio, LiveStudio,
                     RevisionStudio, StudioWindow)


def _members(protocol: type) -> dict[str, Any]:
    """A Protocol's members, each with the Protocol its value must satisfy in turn (or None)."""
    found: dict[str, Any] = {}
    for name, value in vars(protocol).items():
        if name.startswith("_"):
            continue
        inner = None
        if isinstance(value, property) and value.fget is not None:
            hint = typing.get_type_hints(value.fget).get("return")
            inner = hint if getattr(hint, "_is_protocol", False) else None
        found[name] = inner
    for name in getattr(protocol, "__annotations__", {}):
        found.setdefault(name, None)
    return found


def _missing(obj: object, protocol: type, path: str) -> list[str]:
    missing = []
    for name, inner in _members(protocol).items():
        if not hasattr(obj, name):
            missing.append(f"{path}.{name}")
        elif inner is not None:
            missing += _missing(getattr(obj, name), inner, f"{path}.{name}")
    return missing


def test_the_main_window_has_what_every_feature_asks_of_it(qtbot, tmp_path, monkeypatch):
    state = tmp_path / "state"
    monkeypatch.setenv("RADIOPLAY_STATE_DIR", str(state))
    window = MainWindow(None, settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat),
                        session_factory=default_session_factory(output="null", prerender=False, check=False),
                        recovery=RecoveryStore(state))
    try:
        for protocol in FEATURE_PROTOCOLS:
            assert _members(protocol), protocol
            assert not _missing(window, protocol, protocol.__name__)
        # the checker checks: a member the window lacks is found, nested ones too
        class Asks(typing.Protocol):
            @property
            def sound(self) -> SoundStudio: ...
        assert _missing(type("W", (), {"sound": window})(), Asks, "W") == []
        assert "W.sound.engine" in _missing(type("W", (), {"sound": type("S", (), {"doc": 1})()})(), Asks, "W")
    finally:
        window.shutdown()


def test_the_studios_top_level_holds_at_most_six_modules():
    modules = sorted(p.name for p in APP.glob("*.py"))
    assert len(modules) <= 6, modules
    packages = sorted(p.name for p in APP.iterdir() if (p / "__init__.py").exists())
    assert {"shell", "document", "timeline", "sound", "widgets"} <= set(packages)


def test_no_lane_kind_is_read_from_a_name():
    """The sound lanes' "♪ " key mark is made in one place and never tested for."""
    readers = []
    for path in sorted(APP.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        for needle in ("startswith(PREFIX)", "removeprefix(PREFIX)", "sound_lanes.PREFIX", "is_sound_lane",
                       'startswith("♪', "startswith('♪"):
            if needle in source:
                readers.append(f"{path.relative_to(APP.parent)}: {needle}")
    assert not readers, readers
