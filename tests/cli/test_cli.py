from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dhp.cli import main


def test_spec_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "--datasets", "story-cloze"]) == 0
    out = capsys.readouterr().out
    assert "sent_wrong_ending" in out and "redistribution restricted" in out
    assert "summeval" not in out


def test_spec_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["datasets"][0]["name"] == "summeval"
    assert len(data["datasets"]) == 6


def test_spec_with_weights_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "w.json"
    f.write_text(json.dumps({"summeval": {"sent_reorder_minor": {"coherence": 0.25, "fluency": 0.75}}}))
    assert main(["spec", "--datasets", "summeval", "--weights", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["datasets"][0]
    entries = d["weights"]["entries"]
    assert entries["sent_reorder_minor"]["weights"] == {"coherence": 0.25, "fluency": 0.75}
    assert d["weights"]["source"] == str(f) and d["hub_repo"] == "dhp/summeval"
    # a dataset's weights.entries, as printed, is a weights file's block: it reads back to the same weights
    again = tmp_path / "again.json"
    again.write_text(json.dumps({"summeval": entries}))
    assert main(["spec", "--datasets", "summeval", "--weights", str(again), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["datasets"][0]["weights"]["entries"] == entries


def test_user_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "--datasets", "nope"]) == 2
    assert "unknown dataset 'nope'" in capsys.readouterr().err


def test_console_entry_point_runs() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "dhp", "spec", "--datasets", "answer-equivalence"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "answer_quality" in out.stdout


def test_a_missing_extra_is_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dhp import cli

    def needs_gradio(args: object) -> int:
        raise ModuleNotFoundError("No module named 'gradio'", name="gradio")

    def needs_a_bug(args: object) -> int:
        raise ModuleNotFoundError("No module named 'dhp.nothing'", name="dhp.nothing")

    monkeypatch.setattr(cli, "_cmd_spec", needs_gradio)
    monkeypatch.chdir(Path(cli.__file__).resolve().parents[2])  # the clone's folder, where the tests run from
    assert cli.main(["spec"]) == 2
    assert capsys.readouterr().err == (  # from a clone, the command that works there
        "dhp spec: error: needs gradio, which the core install leaves out: pip install -e '.[board]'\n"
    )
    monkeypatch.setattr(cli, "_cmd_spec", needs_a_bug)
    with pytest.raises(ModuleNotFoundError):  # not an extra's module: a bug, with its traceback
        cli.main(["spec"])


def test_the_missing_extra_names_the_command_that_works_where_the_user_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dhp import extras

    root = Path(extras.__file__).resolve().parents[1]
    monkeypatch.chdir(tmp_path)
    assert extras.install_command("report") == f"pip install -e '.[report]' (in {root})"  # a clone, elsewhere
    monkeypatch.setattr(extras, "clone_root", lambda: None)  # an installed package
    assert extras.install_command("report") == "pip install 'dhp-bench[report]'"
    line = extras.missing_extra(
        ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib"), "compare"
    )
    assert line == "needs matplotlib, which the core install leaves out: pip install 'dhp-bench[report]'"


def test_dhp_show_of_a_dataset_that_is_not_built_says_unknown_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "summeval").mkdir()
    assert main(["show", "nosuch", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"dhp show: error: unknown dataset 'nosuch': no folder {tmp_path / 'nosuch'}; built in {tmp_path}: summeval\n"
    )
