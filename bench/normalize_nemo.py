"""nemo-text-processing's English normalizer on the same table as bench/normalize.py.

    python -m venv /tmp/nemo-venv && /tmp/nemo-venv/bin/pip install nemo-text-processing
    /tmp/nemo-venv/bin/python bench/normalize_nemo.py [CACHE_DIR]

Run in a virtualenv of its own (it brings pynini, transformers and pandas: 1.1 GB).
Its first start compiles the grammars into CACHE_DIR (minutes); later starts load them.
"""
import os
import sys, time, json
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = sys.argv[1] if len(sys.argv) > 1 else "/tmp/nemo-cache"
from tests.support.normalize_table import rows, score
t = time.perf_counter()
from nemo_text_processing.text_normalization.normalize import Normalizer
n = Normalizer(input_case="cased", lang="en", cache_dir=CACHE, overwrite_cache=False)
init = time.perf_counter() - t
table = rows()
times = []
def say(text, language):
    t0 = time.perf_counter()
    try:
        out = n.normalize(text, punct_post_process=True)
    except Exception as e:
        out = f"<error {e}>"
    times.append(time.perf_counter() - t0)
    return out
share, per, wrong = score(say, table)
times.sort()
print(json.dumps({"init_cached_s": init, "share": share, "rows": len(table), "per": per,
                  "median_ms": 1000 * times[len(times) // 2], "mean_ms": 1000 * sum(times) / len(times), "load": os.getloadavg()}))
print("\n".join(wrong))
