"""nemo-text-processing's English normalizer on the same table as bench/normalize.py.

    python -m venv /tmp/nemo-venv && /tmp/nemo-venv/bin/pip install nemo-text-processing
    /tmp/nemo-venv/bin/python bench/normalize_nemo.py [CACHE_DIR]

Run in a virtualenv of its own (it brings pynini, transformers and pandas: 1.1 GB).
Its first start compiles the grammars into CACHE_DIR (minutes); later starts load them.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.normalize_table import rows, score  # noqa: E402


def main() -> None:
    cache = sys.argv[1] if len(sys.argv) > 1 else "/tmp/nemo-cache"
    started = time.perf_counter()
    from nemo_text_processing.text_normalization.normalize import Normalizer

    normalizer = Normalizer(input_case="cased", lang="en", cache_dir=cache, overwrite_cache=False)
    init = time.perf_counter() - started
    times: list[float] = []

    def say(text: str, language: str) -> str:
        t0 = time.perf_counter()
        try:
            out = str(normalizer.normalize(text, punct_post_process=True))
        except Exception as error:  # noqa: BLE001 - a form it cannot read is a wrong reading
            out = f"<error {error}>"
        times.append(time.perf_counter() - t0)
        return out

    table = rows()
    share, per, wrong = score(say, table)
    times.sort()
    print(json.dumps({"init_s": round(init, 2), "share": round(share, 4), "rows": len(table), "per_category": per,
                      "median_ms": round(1000 * times[len(times) // 2], 1),
                      "mean_ms": round(1000 * sum(times) / len(times), 1), "load": os.getloadavg()}))
    print("\n".join(wrong))


if __name__ == "__main__":
    main()
