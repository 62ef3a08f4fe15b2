"""``dhp score`` imports only what it uses: its own command module, and no pandas on the scoring path
(the start-up's figure is benchmarks/bench_startup.py's, not a test's)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from dhp.cli import COMMANDS, build_parser
from dhp.cli.args import DefaultsFormatter

REPO = Path(__file__).resolve().parents[2]

#: runs ``dhp`` in this process, then prints the loaded modules of interest as JSON (its last line)
_LOADED = (
    "import json, sys\n"
    "from dhp.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "print(json.dumps([rc, sorted(m for m in sys.modules if m.startswith(('dhp.cli.', 'pandas', 'pyarrow.dataset')))]))\n"
)


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_each_command_module_registers_the_commands_its_entry_names() -> None:
    for names, register in COMMANDS:
        parser = argparse.ArgumentParser(formatter_class=DefaultsFormatter)
        register(parser.add_subparsers())
        assert set(_commands(parser)) == names
    every = _commands(build_parser())
    assert sorted(every) == sorted({"spec"}.union(*(names for names, _ in COMMANDS)))
    assert _commands(build_parser(["score", "--judge", "random"])) == [
        "spec",
        "score",
        "report",
        "stability",
        "robustness",
    ]
    assert _commands(build_parser(["-h", "score"])) == _commands(build_parser(["no-such-command"])) == every


def test_dhp_score_loads_no_other_command_module_and_no_pandas(tmp_path: Path, tiny_root: Path) -> None:
    args = ["score", "--judge", "random", "--data", str(tiny_root), "--datasets", "story-cloze"]
    proc = subprocess.run(
        [sys.executable, "-c", _LOADED, *args, "--n-boot", "0", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)},
        timeout=300,
        check=False,
    )
    rc, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    assert rc == 0, proc.stderr
    assert loaded == ["dhp.cli.args", "dhp.cli.score"]  # neither pandas nor pyarrow.dataset (pq.read_table's)
