"""The bad-input matrix for the CLI and the Space, printed case by case.

Two parts, each case through the real entry point:

* the bad command lines of issue 40 and more of each kind (``tests/hardening/bad_args.py``: counts,
  seeds, seconds, ports, paths, names), run through :func:`dhp.cli.main` in a folder holding built
  datasets, results, a plain file and an empty folder; each must be refused in one line, exit 2, with
  no file or folder under that folder changed, created or removed;
* malformed and SSRF URLs, huge fields, odd unicode, path traversal in judge names, corrupted
  requests/results/cache files, a dataset folder with a missing config (``tests/support/bad_inputs.py``):
  refused with a clear message while the stored files stay unchanged.

Each case is printed with its exit code, the number of lines it wrote to stderr, whether anything
changed on disk, and the line itself. Usage: ``.venv/bin/python benchmarks/bench_bad_inputs.py``.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.hardening import bad_args  # noqa: E402
from tests.support.bad_inputs import run_all  # noqa: E402


def _cell(text: str, width: int = 110) -> str:
    one = " ".join(text.split()).replace("|", "\\|")
    return one if len(one) <= width else one[: width - 3] + "..."


def main() -> int:
    logging.basicConfig(level=logging.CRITICAL)
    t0 = time.perf_counter()
    lines = [
        "| # | entry | bad input | exit | lines | changed on disk | one line | message |",
        "|---|---|---|---|---|---|---|---|",
    ]
    good = total = 0
    with tempfile.TemporaryDirectory(prefix="dhp-bad-") as tmp:
        args = bad_args.run_all(Path(tmp) / "cli")
        for o, (_, _, words) in zip(args, bad_args.CASES, strict=True):
            total += 1
            ok = o.code == 2 and len(o.lines) == 1 and not o.changed and words in o.lines[0]
            good += ok
            changed = ", ".join(o.changed) if o.changed else "no"
            lines.append(f"| {total} | dhp {o.argv[0] if o.argv else ''} | {_cell(o.case, 50)} | {o.code} | "
                         f"{len(o.lines)} | {_cell(changed, 40)} | {'yes' if ok else 'NO'} | "
                         f"{_cell(o.lines[-1] if o.lines else '')} |")  # fmt: skip
        (Path(tmp) / "store").mkdir()
        for s in run_all(Path(tmp) / "store"):
            total += 1
            ok = s.refused and s.intact and "Traceback" not in s.message
            good += ok
            code = s.message.split(":", 1)[0].removeprefix("exit ") if s.message.startswith("exit ") else "-"
            lines.append(f"| {total} | {s.entry} | {_cell(s.case, 50)} | {code} | {len(s.message.splitlines())} | "
                         f"{'no' if s.intact else 'YES'} | {'yes' if ok else 'NO'} | {_cell(s.message)} |")  # fmt: skip
    print("\n".join(lines))
    print(f"{good}/{total} refused clearly in one line with nothing changed on disk; "
          f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
    return 0 if good == total else 1


if __name__ == "__main__":
    sys.exit(main())
