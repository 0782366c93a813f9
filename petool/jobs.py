"""Background DPO runs on the labelled pairs: launch, supervise, report through the store.

``start_dpo_job`` writes the pairs to a file, records a ``train_jobs`` row and starts
``python -m petool.jobs DB JOB_ID`` in its own session. That supervisor runs the training
command (``python -m petool train dpo ...``), copies its ``progress.json`` (step, loss; read
through ``petool.runs``) into the row every few seconds and records the exit status. The page
only reads the row, so progress survives page reloads and app restarts. No gradio here: the app
(``petool.ui.export``) only calls ``start_dpo_job`` and ``stop_job``.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from petool import runs
from petool.formats import write_trl_preferences
from petool.store import Store
from petool.trainconfig import load_config

POLL_S = 2.0
LOG_TAIL_CHARS = 4000


def dpo_command(pairs_file: str, sft_adapter: str, out_dir: str, config_yaml: str | None, max_steps: int | None) -> list[str]:
    """The CLI call that trains DPO from ``sft_adapter`` on ``pairs_file``."""
    cmd = [
        sys.executable,
        "-m",
        "petool",
        "train",
        "dpo",
        "--dpo-file",
        pairs_file,
        "--sft-adapter",
        sft_adapter,
        "--out",
        out_dir,
        "--no-progress",
    ]
    if config_yaml:
        cmd += ["--config", config_yaml]
    if max_steps:
        cmd += ["--max-steps", str(int(max_steps))]
    return cmd


def small_run_warning(n_pairs: int, max_steps: int | None, config_yaml: str | None = None) -> str:
    """Why a DPO run of ``n_pairs`` pairs and ``max_steps`` steps would barely move the policy
    ("" when it would not), from the run's own recipe (batch, warm-up).

    The DPO loss starts at log 2 = 0.693 (the policy is the reference, so the reward margin is
    0) and only falls as updates push the margin up, each by at most the learning rate's worth:
    - fewer pairs than one optimiser step's batch (per-device batch x accumulation): every step
      averages over the same few pairs, the batch the recipe was tuned for never forms;
    - fewer steps than 1 / warmup_ratio: the warm-up, rounded up to a whole step, starts at
      learning rate 0, so a large share of such a run does not train at all, and the rest
      runs at a learning rate far below the recipe's.
    """

    try:
        dpo = load_config(config_yaml).dpo if config_yaml else load_config().dpo
    except ValueError:
        return ""  # the start itself says what is wrong with the config
    batch = dpo.per_device_train_batch_size * dpo.gradient_accumulation_steps
    steps = max_steps or (dpo.max_steps if dpo.max_steps > 0 else max(1, -(-n_pairs // batch)) * int(max(1, dpo.num_train_epochs)))
    min_steps = math.ceil(1 / dpo.warmup_ratio) if dpo.warmup_ratio > 0 else 2
    problems = []
    if n_pairs < batch:
        problems.append(
            f"{n_pairs} pair{'s' if n_pairs != 1 else ''} is fewer than one optimiser step's batch of {batch} "
            f"(batch {dpo.per_device_train_batch_size} x accumulation {dpo.gradient_accumulation_steps}): "
            "every step repeats the same pairs; label more comparisons"
        )
    if steps < min_steps:
        problems.append(
            f"{steps} step{'s' if steps != 1 else ''} is fewer than {min_steps} (1 / warm-up ratio "
            f"{dpo.warmup_ratio:g}): the warm-up starts at learning rate 0, so most of such a run barely "
            "updates the adapter and the DPO loss stays near log 2 = 0.693"
        )
    if not problems:
        return ""
    return "This run is too small to move the policy: " + "; ".join(problems) + "."


def start_dpo_job(
    store: Store,
    pairs,
    sft_adapter: str,
    jobs_dir: str | Path,
    config_yaml: str | None = None,
    max_steps: int | None = None,
    command: list[str] | None = None,
) -> int:
    """Write ``pairs`` (PreferenceExample list) and launch the supervised run; returns the job id.

    Args:
        command: replaces the training command (tests run a tiny script instead).
    """
    if not pairs:
        raise ValueError("No preference pairs yet: label some comparisons first (ties and test entries give none).")
    if any(j["status"] in ("queued", "running") for j in store.jobs()):
        raise ValueError("A training job is already running; wait for it or stop it.")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    job_dir = Path(jobs_dir).resolve() / f"dpo-{stamp}"
    job_dir.mkdir(parents=True, exist_ok=True)
    pairs_file = write_trl_preferences(list(pairs), job_dir / "pairs.jsonl")
    out_dir = job_dir / "run"
    cmd = command or dpo_command(str(pairs_file), sft_adapter, str(out_dir), config_yaml, max_steps)
    job_id = store.add_job(
        cmd,
        str(job_dir / "train.log"),
        str(out_dir),
        {"pairs": len(pairs), "sft_adapter": sft_adapter, "config": config_yaml, "max_steps": max_steps},
    )
    # The supervisor must import petool wherever the app was started from.
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "petool.jobs", store.path, str(job_id)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    store.update_job(job_id, pid=proc.pid, message="starting")
    return job_id


def stop_job(store: Store, job_id: int) -> None:
    """Stop a running job (its supervisor's whole process group) and mark it cancelled."""
    job = store.get_job(job_id)
    if job is None:
        raise ValueError(f"no job {job_id}")
    if job["status"] not in ("queued", "running"):
        raise ValueError(f"job {job_id} is not running ({job['status']})")
    if job.get("pid"):
        try:
            os.killpg(job["pid"], signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    store.update_job(job_id, status="cancelled", message="stopped by a user")


def read_progress(out_dir: str | Path) -> dict:
    """The DPO stage's latest ``progress.json`` (``runs.progress_callback``), or {}."""
    return runs.read_progress(Path(out_dir) / "dpo")


def merge_losses(losses: list, progress: dict) -> list:
    """Add the progress file's latest (step, loss) to the series, once per step."""
    loss = (progress.get("latest") or {}).get("loss")
    step = progress.get("step")
    if isinstance(loss, (int, float)) and isinstance(step, int) and all(s != step for s, _ in losses):
        losses = [*losses, [step, float(loss)]]
    return losses


def final_losses(out_dir: str | Path) -> list | None:
    """The whole loss series from ``log_history.json`` once training has finished."""
    history = runs.read_log_history(Path(out_dir) / "dpo")
    if history is None:
        return None
    return [[r.get("step", 0), float(r["loss"])] for r in history if isinstance(r.get("loss"), (int, float))]


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - LOG_TAIL_CHARS))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def supervise(db_path: str, job_id: int) -> int:
    """Run job ``job_id``'s command, mirroring its progress into the store; returns its exit code."""
    store = Store(db_path)
    job = store.get_job(job_id)
    if job is None:
        return 2
    with open(job["log_path"], "ab") as log:
        proc = subprocess.Popen(job["command"], stdout=log, stderr=subprocess.STDOUT)
        store.update_job(job_id, status="running", message=f"training (pid {proc.pid})")
        losses: list = []
        while proc.poll() is None:
            time.sleep(POLL_S)
            progress = read_progress(job["output_dir"])
            if progress:
                losses = merge_losses(losses, progress)
                total = progress.get("max_steps") or None
                step = progress.get("step") or 0
                store.update_job(
                    job_id,
                    step=step,
                    total_steps=total,
                    losses=losses,
                    progress=round(step / total, 4) if total else 0.0,
                    message=f"step {step}/{total or '?'}, eta {progress.get('eta_s', '?')} s",
                )
    code = proc.returncode
    losses = final_losses(job["output_dir"]) or losses
    current = store.get_job(job_id) or {}
    if current.get("status") == "cancelled":
        return code
    if code == 0:
        store.update_job(job_id, status="done", progress=1.0, losses=losses, message=f"finished: adapter in {job['output_dir']}/dpo")
    else:
        store.update_job(job_id, status="failed", losses=losses, message=f"exit code {code}; log tail:\n{_tail(job['log_path'])[-1500:]}")
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        sys.stderr.write("usage: python -m petool.jobs DB JOB_ID\n")
        return 2
    return supervise(argv[0], int(argv[1]))


if __name__ == "__main__":
    sys.exit(main())
