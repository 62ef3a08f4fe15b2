"""Write the embedded sample (dhp/builder/sources/sample/) from a sources folder, deterministically.

    python scripts/make_sample.py [SOURCES_DIR [OUT_DIR]]
        (default: $DHP_SOURCES, else ../shared/sources; into this checkout's dhp/builder/sources/sample)

Per dataset whose source terms allow redistribution: the first 20 items of the dataset's own
selection, as its loader reads them, and a manifest naming each source's licence and the raw files
(sha256) the items come from. The raw files themselves are never copied. Running it twice gives
byte-identical files (tests/core/test_demo.py checks the committed sample against a rerun when the
sources folder is there).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from dhp.builder.sources import SourceLocator
from dhp.builder.sources.sample import write_sample
from dhp.spec import BENCHMARK

REPO = Path(__file__).resolve().parents[1]
#: this checkout's sample folder (not the one of whichever dhp is installed)
OUT = REPO / "dhp" / "builder" / "sources" / "sample"


def main(argv: list[str]) -> int:
    default = os.environ.get("DHP_SOURCES") or str(
        Path(__file__).resolve().parents[1] / ".." / "shared" / "sources"
    )
    sources = Path(argv[0] if argv else default)
    if not sources.is_dir():
        print(
            f"make_sample: {sources}: not a directory (the sources folder of docs/datasets.md)",
            file=sys.stderr,
        )
        return 2
    out = Path(argv[1]) if len(argv) > 1 else OUT
    counts = write_sample(list(BENCHMARK.values()), SourceLocator(sources), out)
    size = sum(f.stat().st_size for f in out.iterdir() if f.is_file())
    print(f"sample in {out}: {counts}; {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
