#!/usr/bin/env bash
# `make package-test`: run the desktop build headless, with no Python involved.
#
#   packaging/smoke_test.sh [BUNDLE]      (default dist/radioplay)
#
# Every run of the bundle gets a bare environment (env -i): PATH is a folder
# of decoy `python`/`python3` commands that record any use, then /usr/bin:/bin;
# no virtualenv, no PYTHONPATH, a fresh HOME. The checks:
#   1. `radioplay --version` and `radioplay voices` (the bundled voice is found);
#   2. the studio opens offscreen on a copy of the bundled sample, paints, starts
#      its voice engine, and closes with exit status 0 and no traceback
#      (`radioplay studio --self-test REPORT.json`, app/shell/self_test.py, reports what it
#      loaded: Qt platform, PortAudio, torch);
#      where Xvfb is installed, once more on X11 through the xcb platform plugin;
#   3. `radioplay render` of the sample writes mix.wav, stems/, captions.srt,
#      captions.vtt and cues.json; the WAVs are read chunk by chunk and must
#      have the project's rate, two channels, the mix's length (the last cue's
#      end plus at most 5 s) and one stem per role of the same length; while it
#      renders, /proc shows that the only Python code loaded is the bundle's;
#   4. `radioplay import` of the bundled Fountain sample;
#   5. install.sh into a temporary prefix, the installed command, uninstall;
#   6. no decoy python was ever run.
# Needs only bash and coreutils (Xvfb and desktop-file-validate are used if present).
set -euo pipefail

bundle="$(cd "${1:-dist/radioplay}" 2>/dev/null && pwd -P)" || {
    echo "package-test: ${1:-dist/radioplay} not found; run make package first" >&2; exit 1; }
exe="$bundle/radioplay"
[ -x "$exe" ] || { echo "package-test: $exe is not an executable" >&2; exit 1; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/radioplay-package-test.XXXXXX")"
xvfb=""
trap '[ -z "$xvfb" ] || kill "$xvfb" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/decoys" "$tmp/home" "$tmp/run" "$tmp/studio" "$tmp/render"
chmod 700 "$tmp/run"
for name in python python3 python3.11 python3.12 python3.13; do
    printf '#!/bin/sh\necho "$0 $*" >> "%s/python-used"\nexit 97\n' "$tmp" > "$tmp/decoys/$name"
    chmod +x "$tmp/decoys/$name"
done

failures=0
pass() { echo "  ok    $*"; }
fail() { echo "  FAIL  $*"; failures=$((failures + 1)); }
check() { local what="$1"; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

# The bundle in a bare environment.
bare_env=(PATH="$tmp/decoys:/usr/bin:/bin" HOME="$tmp/home" LANG=C.UTF-8 XDG_RUNTIME_DIR="$tmp/run"
          RADIOPLAY_STATE_DIR="$tmp/home/state")
bare() { env -i "${bare_env[@]}" QT_QPA_PLATFORM=offscreen "$@"; }

# JSON written by --self-test (app/shell/self_test.py: one "key": value per line); prints the raw value.
json_value() { sed -n "s/^  \"$2\": \(.*\)$/\1/p" "$1" | sed 's/,$//'; }

u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
u16() { od -An -tu2 -j "$2" -N2 "$1" | tr -d ' '; }
tag() { dd if="$1" bs=1 skip="$2" count=4 status=none; }

# wav_info FILE -> "format channels rate bits frames", walking the RIFF chunks.
wav_info() {
    local f="$1" size pos id len fmt="" ch="" rate="" bits="" data=""
    size=$(stat -c %s "$f")
    [ "$size" -ge 44 ] && [ "$(tag "$f" 0)" = RIFF ] && [ "$(tag "$f" 8)" = WAVE ] || return 1
    pos=12
    while [ $((pos + 8)) -le "$size" ]; do
        id=$(tag "$f" "$pos"); len=$(u32 "$f" $((pos + 4)))
        case "$id" in
            "fmt ") fmt=$(u16 "$f" $((pos + 8))); ch=$(u16 "$f" $((pos + 10)))
                    rate=$(u32 "$f" $((pos + 12))); bits=$(u16 "$f" $((pos + 22))) ;;
            data) data=$len; [ $((pos + 8 + len)) -le "$size" ] || return 1; break ;;
        esac
        pos=$((pos + 8 + len + len % 2))
    done
    [ -n "$fmt" ] && [ -n "$data" ] && [ "$ch" -gt 0 ] && [ "$bits" -gt 0 ] || return 1
    echo "$fmt $ch $rate $bits $((data / (ch * bits / 8)))"
}

echo "package-test: $bundle"
version=$(bare "$exe" --version)
check "radioplay --version: $version" test -n "$version"
voices=$(bare "$exe" voices 2>&1) || true
check "radioplay voices lists the bundled voice" grep -q "en_US-joe-medium" <<<"$voices"

# ---- 2. the studio -------------------------------------------------------------------
sample="$bundle/_internal/samples/the-last-broadcast.radioplay"
check "the sample is in the bundle" test -f "$sample"
expected_lines=$(grep -c '"role":' "$sample")   # one per script line (the cast has "name")
roles=$(grep -c '"colour":' "$sample")          # one per cast role
cp "$sample" "$tmp/studio/"
report="$tmp/studio/report.json"
launched=$(date +%s.%N)
set +e
bare timeout 180 "$exe" studio --self-test "$report" "$tmp/studio/the-last-broadcast.radioplay" \
    >"$tmp/studio/out.log" 2>&1
status=$?
set -e
check "studio exits cleanly (status $status)" test "$status" -eq 0
if grep -Eq "Traceback|QThread: Destroyed|Segmentation|Aborted" "$tmp/studio/out.log"; then
    fail "studio output has no traceback or crash:"; sed 's/^/        /' "$tmp/studio/out.log" | tail -30
else
    pass "studio output has no traceback or crash"
fi
if [ -f "$report" ]; then
    for expect in 'frozen=true' 'qt_platform="offscreen"' 'application_name="Radioplay Studio"' \
                  'desktop_file_name="radioplay"' "script_lines=$expected_lines" 'engine_label="Engine: ready"' \
                  'portaudio_error=null' 'torch_loaded=false' 'last_error=null' 'icon_beside_app=true'; do
        key=${expect%%=*}; want=${expect#*=}; got=$(json_value "$report" "$key")
        check "studio: $key = $want" test "$got" = "$want"
    done
    title=$(json_value "$report" window_title)
    check "studio: window title $title names the sample" grep -q "the-last-broadcast.radioplay" <<<"$title"
    lib=$(json_value "$report" portaudio_library)
    pass "studio: PortAudio loaded from $lib"
    shot="$tmp/studio/report.png"
    check "studio: screenshot of the window is a PNG" test "$(od -An -c -j1 -N3 "$shot" 2>/dev/null | tr -d ' ')" = PNG
    painted=$(json_value "$report" first_paint); ready=$(json_value "$report" engine_ready)
    awk -v l="$launched" -v p="$painted" -v r="$ready" \
        'BEGIN { printf "  info  start-up: window painted %.2f s, voice engine ready %.2f s after launch\n", p - l, r - l }'
else
    fail "studio wrote its smoke report"; tail -30 "$tmp/studio/out.log"
fi

# ---- 2b. the studio on X11, where Xvfb is installed (the platform plugin of a desktop session)
if command -v Xvfb >/dev/null; then
    display=77
    while [ -e "/tmp/.X11-unix/X$display" ] || [ -e "/tmp/.X$display-lock" ]; do display=$((display + 1)); done
    Xvfb ":$display" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
    xvfb=$!
    for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$display" ] && break; sleep 0.2; done
    mkdir -p "$tmp/xcb"; cp "$sample" "$tmp/xcb/"
    set +e
    env -i "${bare_env[@]}" DISPLAY=":$display" timeout 180 "$exe" studio --self-test "$tmp/xcb/report.json" \
        "$tmp/xcb/the-last-broadcast.radioplay" --output null >"$tmp/xcb/out.log" 2>&1
    status=$?
    set -e
    kill "$xvfb" 2>/dev/null || true; wait "$xvfb" 2>/dev/null || true; xvfb=""
    check "studio on X11 (Xvfb :$display) exits cleanly (status $status)" test "$status" -eq 0
    [ "$status" -eq 0 ] || tail -20 "$tmp/xcb/out.log"
    check "studio on X11: the xcb platform plugin loaded" test "$(json_value "$tmp/xcb/report.json" qt_platform)" = '"xcb"'
    check "studio on X11: voice engine ready" test "$(json_value "$tmp/xcb/report.json" engine_label)" = '"Engine: ready"'
else
    echo "  skip  studio on X11 (install Xvfb to check the xcb platform plugin too)"
fi

# ---- 3. render -------------------------------------------------------------------------
cp "$sample" "$tmp/render/"
project="$tmp/render/the-last-broadcast.radioplay"
out="$tmp/render/out"
# exec: the background job's process becomes the bundle's, so /proc/$pid is the bundle.
(exec env -i "${bare_env[@]}" "$exe" render "$project" -o "$out") >"$tmp/render/out.log" 2>&1 &
pid=$!
: > "$tmp/render/maps"
while kill -0 "$pid" 2>/dev/null; do
    cat "/proc/$pid/maps" >> "$tmp/render/maps" 2>/dev/null || true
    readlink "/proc/$pid/exe" >> "$tmp/render/exe" 2>/dev/null || true
    for child in $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do  # a bootloader child, if any
        cat "/proc/$child/maps" >> "$tmp/render/maps" 2>/dev/null || true
    done
    sleep 1
done
set +e; wait "$pid"; status=$?; set -e
check "render exits with status 0" test "$status" -eq 0
[ "$status" -eq 0 ] || tail -30 "$tmp/render/out.log"
check "render ran the bundle's executable" grep -qx "$exe" "$tmp/render/exe"
python_maps=$(awk '{print $6}' "$tmp/render/maps" | grep -i python | sort -u || true)
check "render loaded the bundle's Python ($(grep -c . <<<"$python_maps") python files mapped)" \
    grep -q "^$bundle/_internal/libpython" <<<"$python_maps"
foreign=$(grep -v "^$bundle/" <<<"$python_maps" || true)
check "render loaded no Python from outside the bundle${foreign:+: $foreign}" test -z "$foreign"

for f in mix.wav captions.srt captions.vtt cues.json; do
    check "render wrote $f" test -s "$out/$f"
done
rate=$(sed -n 's/^ *"sample_rate": \([0-9]*\).*/\1/p' "$project" | head -1)
lines=$(grep -c '"id": "L' "$out/cues.json" || true)
last_end=$(sed -n 's/^ *"end": \([0-9.]*\).*/\1/p' "$out/cues.json" | sort -g | tail -1)
check "cues.json has a cue per script line ($lines of $expected_lines)" test "$lines" -eq "$expected_lines"
# At least one caption per line: a long line is split into several (engine/export/cuesplit.py).
captions=$(grep -c -- '-->' "$out/captions.srt" || true)
check "captions.srt has a caption per line at least ($captions for $lines lines)" test "$captions" -ge "$lines" -a "$lines" -gt 0
check "captions.vtt is WebVTT" test "$(head -1 "$out/captions.vtt" | tr -d '\r')" = WEBVTT
if info=$(wav_info "$out/mix.wav"); then
    read -r fmt ch wrate bits frames <<<"$info"
    seconds=$(awk -v f="$frames" -v r="$wrate" 'BEGIN { printf "%.3f", f / r }')
    pass "mix.wav is a WAV: format $fmt, $ch channels, $wrate Hz, $bits bit, $seconds s"
    check "mix.wav is 24-bit PCM stereo at the project's $rate Hz" \
        test "$ch" = 2 -a "$wrate" = "$rate" -a "$bits" = 24 -a \( "$fmt" = 1 -o "$fmt" = 65534 \)
    check "mix.wav lasts the play: $seconds s for cues ending at $last_end s" \
        awk -v s="$seconds" -v e="$last_end" 'BEGIN { exit !(s >= e && s <= e + 5) }'
    stems=0
    for stem in "$out"/stems/*.wav; do
        [ -e "$stem" ] || break
        stems=$((stems + 1))
        sinfo=$(wav_info "$stem") || { fail "$(basename "$stem") is a valid WAV"; continue; }
        read -r sfmt sch srate sbits sframes <<<"$sinfo"
        [ "$sframes" = "$frames" ] && [ "$srate" = "$rate" ] && [ "$sch" = 2 ] \
            || fail "stem $(basename "$stem") matches the mix ($sinfo vs $info)"
    done
    check "stems/: one WAV per role, each as long as the mix ($stems of $roles)" test "$stems" -eq "$roles"
else
    fail "mix.wav is a valid WAV file"
fi

# ---- 4. import ------------------------------------------------------------------------
bare "$exe" import "$bundle/_internal/samples/the-lighthouse.fountain" -o "$tmp/lighthouse.radioplay" \
    >"$tmp/import.log" 2>&1 || true
check "radioplay import of the Fountain sample" grep -q '"format_version"' "$tmp/lighthouse.radioplay"
grep -q '"format_version"' "$tmp/lighthouse.radioplay" 2>/dev/null || tail -n 5 "$tmp/import.log" | sed 's/^/        /'

# ---- 5. install.sh ----------------------------------------------------------------------
prefix="$tmp/prefix"
if bare "$bundle/install.sh" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
    pass "install.sh --prefix installs"
    check "the installed radioplay runs" test "$(bare "$prefix/bin/radioplay" --version)" = "$version"
    desktop="$prefix/share/applications/radioplay.desktop"
    check "the menu entry starts the installed copy" grep -q "^Exec=\"$prefix/lib/radioplay/radioplay\" studio %f" "$desktop"
    check "the menu entry names the window class" grep -qx "StartupWMClass=Radioplay Studio" "$desktop"
    if command -v desktop-file-validate >/dev/null; then
        check "desktop-file-validate the installed entry" desktop-file-validate "$desktop"
    fi
    bare "$bundle/install.sh" --prefix "$prefix" --uninstall >>"$tmp/install.log" 2>&1
    check "install.sh --uninstall removes it" test ! -e "$prefix/bin/radioplay" -a ! -e "$prefix/lib/radioplay" -a ! -e "$desktop"
else
    fail "install.sh --prefix installs"; cat "$tmp/install.log"
fi

# ---- 6. no Python from PATH --------------------------------------------------------------
if [ -e "$tmp/python-used" ]; then
    fail "no python from PATH was run:"; cat "$tmp/python-used"
else
    pass "no python from PATH was run"
fi

if [ "$failures" -ne 0 ]; then
    echo "package-test: $failures check(s) failed"
    exit 1
fi
echo "package-test: OK"
