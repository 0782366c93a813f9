"""The CLI: every subcommand documented in docs/cli.md, and each one run end to end."""

import json
import re
import subprocess
import sys
from pathlib import Path

from petool.cli import COMMANDS, build_parser, main
from petool.formats import write_combined
from tests.fixtures.entries import WEATHER_A, empty_history_entry, weather_entry

CLI_DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def test_every_subcommand_is_documented_in_docs_cli_md():
    text = CLI_DOC.read_text(encoding="utf-8")
    documented = set(re.findall(r"\| `petool (\w+)", text))
    assert documented == set(COMMANDS)
    for name, sub in build_parser()._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help":
                    assert flag in text, f"petool {name} {flag} is not in docs/cli.md"


def _data(tmp_path):
    return str(write_combined([weather_entry(), empty_history_entry()], tmp_path / "data.json"))


def test_eval_prints_a_table_and_resumes(tmp_path, capsys):
    data = _data(tmp_path)
    args = ["eval", "--data", data, "--model", "baseline:rules", "--settings", "p,r", "--out", str(tmp_path / "run"), "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert re.search(r"^p\s+2\s+\d", out, re.M) and re.search(r"^r\s+2\s+", out, re.M)
    assert main(args) == 0  # a rerun resumes: nothing left to do, same metrics
    lines = (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 4


def test_score_json_counts_missing_as_wrong(tmp_path, capsys):
    data = _data(tmp_path)
    good = json.dumps({"tool_name": WEATHER_A, "parameters": {"city": "Rome", "days": 5}})
    responses = tmp_path / "responses.json"
    responses.write_text(json.dumps([{"entry_id": 7, "setting": "p", "response": good}]))
    assert main(["score", "--data", data, "--responses", str(responses), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["by_setting"] == [{"setting": "p", "n": 2, "tool_acc": 0.5, "param_acc": 0.5, "both_acc": 0.5}]


def test_convert_round_trips_entries_and_training_files(tmp_path, capsys):
    data = _data(tmp_path)
    assert main(["convert", data, "--to", "release", "--out", str(tmp_path / "rel")]) == 0
    assert sorted(p.name for p in (tmp_path / "rel").iterdir())[0] == "user_entries_test_c.json"
    assert main(["convert", data, "--to", "lf-sft", "--out", str(tmp_path / "lf")]) == 0
    assert json.loads((tmp_path / "lf" / "dataset_info.json").read_text())["user_entries_sft_p"]["file_name"] == "user_entries_sft_p.json"
    assert main(["convert", str(tmp_path / "lf" / "user_entries_sft_p.json"), "--to", "trl-sft", "--out", str(tmp_path / "sft.jsonl")]) == 0
    assert len((tmp_path / "sft.jsonl").read_text().splitlines()) == 2


def test_errors_are_messages_not_tracebacks(tmp_path, capsys):
    assert main(["eval", "--data", str(tmp_path / "missing.json"), "--model", "baseline:rules", "--out", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["eval", "--data", _data(tmp_path), "--model", "baseline:smart", "--out", str(tmp_path / "o")]) == 2
    assert "valid: random" in capsys.readouterr().err
    assert main(["eval", "--data", _data(tmp_path), "--model", "baseline:rules", "--settings", "x", "--out", str(tmp_path / "o")]) == 2


def test_module_entry_point_and_help_are_fast_and_light():
    code = "import sys, petool.cli; petool.cli.main(['baselines']); print('torch' in sys.modules, 'gradio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "baseline:rules" in out and out.strip().endswith("False False")
    help_text = subprocess.run([sys.executable, "-m", "petool", "--help"], capture_output=True, text=True, check=True).stdout
    assert "eval" in help_text


def test_build_then_stats_then_eval_on_generated_data(tmp_path, capsys):
    out = tmp_path / "bench"
    args = ["build", "--out", str(out), "--n-train", "6", "--n-test", "4", "--seed", "3", "--no-progress", "--no-trl-sft"]
    assert main(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_train"] == 6 and summary["n_test"] == 4
    assert (out / "test" / "user_entries_test_r.json").exists() and (out / "train" / "dataset_info.json").exists()
    capsys.readouterr()
    assert main(["stats", str(out / "test" / "entries.json.gz"), "--no-real", "--figures", str(tmp_path / "fig")]) == 0
    text = capsys.readouterr().out
    assert "functional cluster size" in text and "prompt tokens: estimate" in text
    assert (tmp_path / "fig" / "index.html").exists()
    assert main(["eval", "--data", str(out / "test"), "--model", "baseline:evidence", "--out", str(tmp_path / "run"), "--no-progress"]) == 0


def test_build_rejects_bad_values_with_a_message(tmp_path, capsys):
    assert main(["build", "--out", str(tmp_path), "--n-train", "-1", "--no-progress"]) == 2
    assert "n_train" in capsys.readouterr().err
    assert main(["build", "--out", str(tmp_path), "--copied-clusters", "1.5", "--no-progress"]) == 2
    assert "p_copied_cluster" in capsys.readouterr().err


def test_build_copies_cluster_apis_when_asked(tmp_path):
    from petool.formats import load_entries
    from petool.schema import split_tool_name

    def api_names(out):
        entries = load_entries(out / "test" / "entries.json.gz").entries
        return [len({split_tool_name(n)[2] for n in e.cluster}) for e in entries]

    base = ["build", "--n-train", "0", "--n-test", "12", "--seed", "4", "--no-progress", "--no-trl-sft"]
    assert main(base + ["--out", str(tmp_path / "a"), "--copied-clusters", "1"]) == 0
    assert main(base + ["--out", str(tmp_path / "b")]) == 0
    assert json.loads((tmp_path / "a" / "build_config.json").read_text())["config"]["p_copied_cluster"] == 1.0
    assert max(api_names(tmp_path / "a")) == 1 < max(api_names(tmp_path / "b"))  # one API name per cluster
