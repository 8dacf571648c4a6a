"""Render radioplay.svg to the PNG sizes of the icon set (hicolor/NxN/apps/radioplay.png;
the SVG itself is the scalable size).

Run it after editing the SVG and commit the PNGs with it:
``QT_QPA_PLATFORM=offscreen .venv/bin/python resources/icons/make_icons.py``
(Qt's SVG renderer, already a dependency of the studio).
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(svg: Path, size: int) -> QImage:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    svg = HERE / "radioplay.svg"
    for size in SIZES:
        out = HERE / "hicolor" / f"{size}x{size}" / "apps" / "radioplay.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        if not render(svg, size).save(str(out)):
            raise SystemExit(f"cannot write {out}")
        print(out.relative_to(HERE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
