"""The training-job supervisor: runs a command, mirrors the run folder's progress into the store."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from petool import jobs
from petool.store import Store


@pytest.fixture
def store(tmp_path):
    s = Store(str(tmp_path / "petool.db"))
    yield s
    s.close()


def test_supervise_records_failure(store, tmp_path):
    jid = store.add_job([sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"], str(tmp_path / "log"), str(tmp_path / "out"))
    assert jobs.supervise(store.path, jid) == 3
    job = store.get_job(jid)
    assert job["status"] == "failed" and "exit code 3" in job["message"] and "boom" in job["message"]


def test_merge_losses_once_per_step():
    losses = jobs.merge_losses([], {"step": 1, "latest": {"loss": 0.7}})
    assert jobs.merge_losses(losses, {"step": 1, "latest": {"loss": 0.7}}) == [[1, 0.7]]


def test_progress_and_final_losses_come_from_the_dpo_stage_folder(tmp_path):
    assert jobs.read_progress(tmp_path) == {} and jobs.final_losses(tmp_path) is None  # nothing written yet
    stage = tmp_path / "dpo"
    stage.mkdir()
    (stage / "progress.json").write_text(json.dumps({"step": 2, "max_steps": 4, "latest": {"loss": 0.5}}), encoding="utf-8")
    assert jobs.read_progress(tmp_path)["step"] == 2
    (stage / "log_history.json").write_text(
        json.dumps([{"step": 1, "loss": 0.7}, {"step": 2, "train_runtime": 1.0}, {"step": 2, "loss": 0.5}]), encoding="utf-8"
    )
    assert jobs.final_losses(tmp_path) == [[1, 0.7], [2, 0.5]]
    (stage / "progress.json").write_text("{half a file", encoding="utf-8")
    assert jobs.read_progress(tmp_path) == {}


def test_the_supervisor_runs_without_gradio():
    code = "import sys, petool.jobs; sys.exit('gradio' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
    usage = subprocess.run([sys.executable, "-m", "petool.jobs"], capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and "python -m petool.jobs DB JOB_ID" in usage.stderr
