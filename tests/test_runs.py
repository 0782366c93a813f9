"""The run folder: loss series, the checkout's commit, training logs read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from petool import runs


def test_loss_series_reads_log_history():
    history = [{"step": 1, "loss": 2.0, "learning_rate": 1e-4}, {"step": 2, "eval_loss": 1.0}, {"step": 2, "train_runtime": 3.0}]
    assert runs.loss_series(history) == {"loss": [(1, 2.0)], "learning_rate": [(1, 1e-4)], "eval_loss": [(2, 1.0)]}


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git")
def test_git_commit_names_the_checkout_and_marks_changes(tmp_path):
    import subprocess

    assert runs.git_commit(tmp_path) is None  # not a checkout

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True).stdout.strip()

    git("init", "-q")
    (tmp_path / "a.txt").write_text("one")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = git("rev-parse", "HEAD")
    assert runs.git_commit(tmp_path) == head and len(head) == 40
    (tmp_path / "new.txt").write_text("untracked files do not count")
    assert runs.git_commit(tmp_path) == head
    (tmp_path / "a.txt").write_text("two")
    assert runs.git_commit(tmp_path) == head + "+dirty"


def test_training_logs_read_the_shipped_and_the_run_layouts(tmp_path):
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "sft_log_history.json").write_text(json.dumps([{"step": 1, "loss": 2.0}, "junk"]), encoding="utf-8")
    (shipped / "dpo_log_history.json").write_text("{not json", encoding="utf-8")  # unreadable: left out
    assert runs.training_logs(shipped) == {"sft": [{"step": 1, "loss": 2.0}]}
    run = tmp_path / "run"
    run.mkdir()
    (run / "log_history.json").write_text(json.dumps([{"step": 3, "loss": 0.6}]), encoding="utf-8")
    (run / "run_config.json").write_text(json.dumps({"stage": "dpo"}), encoding="utf-8")
    assert runs.training_logs(run) == {"dpo": [{"step": 3, "loss": 0.6}]}
    (run / "run_config.json").write_text("[]", encoding="utf-8")  # no stage to read: a plain name
    assert list(runs.training_logs(run)) == ["training"]
    assert runs.training_logs(tmp_path / "missing") == {}
    # the shipped adapter keeps both stages' logs
    logs = runs.training_logs(Path(__file__).resolve().parents[1] / "assets" / "adapters" / "petoolllama")
    assert set(logs) == {"sft", "dpo"} and all(any("loss" in rec for rec in history) for history in logs.values())
