"""Voice files laid out as a user's voice folder holds them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def install_voice(folder: Path, source: Path, name: str, language: str | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, folder / f"{name}.onnx")
    config = json.loads(Path(f"{source}.json").read_text(encoding="utf-8"))
    if language:
        config["language"] = {"code": language}
    (folder / f"{name}.onnx.json").write_text(json.dumps(config), encoding="utf-8")
