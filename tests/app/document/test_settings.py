"""Settings are declared once (app/document/settings.py) and read back as their declared type."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

from app.document import settings as keys


def test_values_come_back_typed_whatever_the_file_holds(tmp_path):
    path = tmp_path / "settings.ini"
    store = QSettings(str(path), QSettings.Format.IniFormat)
    assert keys.RECENT_FILES.read(store) == [] and keys.OUTPUT_DEVICE.read(store) is None
    keys.RECENT_FILES.read(store).append("changed")  # the default is a copy, not shared
    assert keys.RECENT_FILES.read(store) == []

    keys.RECENT_FILES.write(store, ["/only/one.radioplay"])
    keys.WINDOW_STATE.write(store, QByteArray(b"\x00\x01state"))
    store.setValue(keys.WINDOW_GEOMETRY.key, 42)  # not a geometry: ignored, as if unset
    store.setValue(keys.EXPORT_FOLDER.key, "")
    store.sync()
    again = QSettings(str(path), QSettings.Format.IniFormat)
    assert keys.RECENT_FILES.read(again) == ["/only/one.radioplay"]  # a lone string in the file
    assert keys.WINDOW_STATE.read(again) == QByteArray(b"\x00\x01state")
    assert keys.WINDOW_GEOMETRY.read(again) is None and keys.EXPORT_FOLDER.read(again) is None


def test_every_key_is_declared_once():
    declared = [v for v in vars(keys).values() if isinstance(v, keys.Setting)]
    assert len(declared) >= 5 and len({s.key for s in declared}) == len(declared)
