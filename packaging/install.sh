#!/bin/sh
# Install the Radioplay desktop build (this folder) for one user or system-wide.
#
#   ./install.sh                      for you: ~/.local/lib/radioplay, ~/.local/bin/radioplay
#   sudo ./install.sh --prefix /usr/local     for everyone
#   ./install.sh --uninstall [--prefix DIR]   remove it again
#
# It copies the application folder to PREFIX/lib/radioplay, links
# PREFIX/bin/radioplay to it, and installs the menu entry, the AppStream
# metadata, the icons and the .radioplay file type under PREFIX/share.
# Nothing else is needed: the folder carries its own Python, Qt and voice.
set -eu

APP_ID=invalid.radioplay.radioplay
prefix="${HOME:?}/.local"
action=install
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --uninstall) action=uninstall; shift ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac
here="$(cd "$(dirname "$0")" && pwd)"
app="$prefix/lib/radioplay"
share="$prefix/share"
icon_sizes="16 24 32 48 64 128 256 512"

refresh() {  # caches of the desktop environment; each is optional
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$share/applications" || true
    command -v update-mime-database >/dev/null 2>&1 && update-mime-database "$share/mime" >/dev/null 2>&1 || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$share/icons/hicolor" || true
}

if [ "$action" = uninstall ]; then
    rm -rf "$app"
    rm -f "$prefix/bin/radioplay" "$share/applications/radioplay.desktop" \
        "$share/metainfo/$APP_ID.metainfo.xml" "$share/mime/packages/radioplay.xml" \
        "$share/icons/hicolor/scalable/apps/radioplay.svg"
    for n in $icon_sizes; do rm -f "$share/icons/hicolor/${n}x$n/apps/radioplay.png"; done
    refresh
    echo "Radioplay removed from $prefix"
    exit 0
fi

[ -x "$here/radioplay" ] && [ -d "$here/_internal" ] || {
    echo "install.sh: run me from the Radioplay folder (dist/radioplay)" >&2; exit 1; }
case "$app" in *'"'*|*'`'*|*'$'*|*'\'*)
    echo "install.sh: $app: the menu entry cannot name a folder with \" \` \$ or \\ in it" >&2; exit 1 ;;
esac

if [ "$here" != "$app" ]; then
    mkdir -p "$prefix/lib"
    rm -rf "$app.new"
    cp -a "$here" "$app.new"
    rm -rf "$app"
    mv "$app.new" "$app"
fi
mkdir -p "$prefix/bin" "$share/applications" "$share/metainfo" "$share/mime/packages" \
    "$share/icons/hicolor/scalable/apps"
ln -sf "$app/radioplay" "$prefix/bin/radioplay"
# The menu entry starts this copy by its full path: PREFIX/bin need not be on PATH.
sed -e "s|^Exec=radioplay |Exec=\"$app/radioplay\" |" -e "s|^TryExec=radioplay\$|TryExec=$app/radioplay|" \
    "$here/share/applications/radioplay.desktop" > "$share/applications/radioplay.desktop"
cp "$here/share/metainfo/$APP_ID.metainfo.xml" "$share/metainfo/"
cp "$here/share/mime/packages/radioplay.xml" "$share/mime/packages/"
cp "$here/share/icons/hicolor/scalable/apps/radioplay.svg" "$share/icons/hicolor/scalable/apps/"
for n in $icon_sizes; do
    mkdir -p "$share/icons/hicolor/${n}x$n/apps"
    cp "$here/share/icons/hicolor/${n}x$n/apps/radioplay.png" "$share/icons/hicolor/${n}x$n/apps/"
done
refresh
echo "Radioplay installed in $app"
echo "  menu: Radioplay (Sound & Video); command: $prefix/bin/radioplay"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "  ($prefix/bin is not on your PATH; the menu entry works without it)" ;; esac
