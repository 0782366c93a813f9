"""The run folder a training stage writes, and readers of it for the UI and the job runner.

A stage folder (``<output_dir>/sft`` or ``<output_dir>/dpo``) holds, next to the adapter:
``run_config.json``, ``versions.json`` (``library_versions``), ``data_hashes.json``
(``data_record``), ``log_history.json`` (read back by ``training_logs`` / ``loss_series``),
``loss.html``, ``metrics.json`` and ``progress.json`` (written by ``progress_callback`` at each
log, read by ``read_progress``). Files are replaced atomically (``write_json``), so a reader never
sees half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

PROGRESS_FILE = "progress.json"
LOG_HISTORY_FILE = "log_history.json"


def sha256_file(path: str | os.PathLike) -> str:
    """The file's sha256, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def data_record(source: Any, rows: list[dict]) -> dict:
    """Where a dataset came from and its sha256 (of the file, else of the rows as JSONL)."""
    if isinstance(source, (str, os.PathLike)):
        return {"path": str(Path(source).resolve()), "sha256": sha256_file(source), "rows": len(rows)}
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    return {
        "path": None,
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "rows": len(rows),
        "note": "in-memory rows, hashed as sorted-key JSONL",
    }


def adapter_hash(folder: Path) -> str | None:
    """sha256 of the adapter weights in ``folder``, or None when it holds none."""
    for name in ("adapter_model.safetensors", "adapter_model.bin"):
        if (folder / name).exists():
            return sha256_file(folder / name)
    return None


def library_versions() -> dict:
    """Versions of the libraries a run depends on, plus Python, platform and accelerator."""
    from importlib import metadata

    versions = {"python": platform.python_version(), "platform": platform.platform()}
    for name in ("petool", "torch", "transformers", "trl", "peft", "accelerate", "datasets", "bitsandbytes", "tokenizers"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    import torch

    versions["cuda"] = torch.version.cuda if torch.cuda.is_available() else None
    versions["device_name"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    # the data a run builds depends on petool's own code (the ranking orders the training
    # prompts), so the commit is what reproduces it, more than the package version
    versions["petool_commit"] = git_commit(Path(__file__).resolve().parent.parent)
    return versions


def git_commit(folder: str | os.PathLike) -> str | None:
    """The commit checked out in ``folder`` ("+dirty" if tracked files differ from it), or None
    outside a git checkout or without git."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10, check=True).stdout

    try:
        commit = git("rev-parse", "HEAD").strip()
        dirty = bool(git("status", "--porcelain", "--untracked-files=no").strip())
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "")


def loss_series(log_history: list[dict]) -> dict[str, list[tuple[int, float]]]:
    """Per-step series from a trainer's log_history: loss, eval_loss, DPO rewards and the like.

    Example:
        >>> loss_series([{"step": 1, "loss": 2.0}, {"step": 2, "loss": 1.5, "epoch": 0.5}])
        {'loss': [(1, 2.0), (2, 1.5)]}
    """
    wanted = (
        "loss",
        "eval_loss",
        "rewards/accuracies",
        "rewards/margins",
        "eval_rewards/accuracies",
        "eval_rewards/margins",
        "learning_rate",
    )
    series: dict[str, list[tuple[int, float]]] = {}
    for rec in log_history:
        for k in wanted:
            if k in rec and _is_number(rec[k]):
                series.setdefault(k, []).append((rec.get("step", 0), float(rec[k])))
    return series


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def training_logs(adapter_dir: str | os.PathLike) -> dict[str, list[dict]]:
    """The trainer logs kept beside an adapter, by stage: ``sft`` and ``dpo`` from a shipped
    adapter's ``sft_log_history.json`` / ``dpo_log_history.json``, or the run folder's own
    ``log_history.json`` under its ``stage`` name (``run_config.json``). Missing or unreadable
    files are left out; an adapter without logs gives ``{}``.
    """
    folder = Path(adapter_dir)
    files = {"sft": folder / "sft_log_history.json", "dpo": folder / "dpo_log_history.json"}
    if (folder / LOG_HISTORY_FILE).is_file():
        try:
            stage = json.loads((folder / "run_config.json").read_text(encoding="utf-8")).get("stage", "training")
        except (OSError, ValueError, AttributeError):
            stage = "training"
        files = {str(stage): folder / LOG_HISTORY_FILE}
    logs = {}
    for stage, path in files.items():
        try:
            history = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(history, list):
            logs[stage] = [rec for rec in history if isinstance(rec, dict)]
    return logs


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON through a temporary file, so readers never see half of it."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def progress_callback(path: str | os.PathLike, stage: str):
    """A TrainerCallback writing ``progress.json`` (step, max_steps, latest logs, elapsed, ETA).

    A UI polls the file, so progress survives a page reload and needs no shared memory.
    """
    from transformers import TrainerCallback

    class ProgressFile(TrainerCallback):
        def __init__(self):
            self.path, self.started = Path(path), time.time()

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not state.is_world_process_zero:
                return
            elapsed = time.time() - self.started
            step = state.global_step
            eta = elapsed / step * (state.max_steps - step) if step and state.max_steps else None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_json(
                self.path,
                {
                    "stage": stage,
                    "step": step,
                    "max_steps": state.max_steps,
                    "epoch": state.epoch,
                    "latest": logs or {},
                    "elapsed_s": round(elapsed, 1),
                    "eta_s": None if eta is None else round(eta, 1),
                    "updated": time.strftime("%Y-%m-%dT%H:%M:%S"),
                },
            )

    return ProgressFile()


def read_progress(stage_folder: str | os.PathLike) -> dict:
    """The trainer's latest ``progress.json`` in a stage folder (``progress_callback``), or {}."""
    path = Path(stage_folder) / PROGRESS_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


def read_log_history(stage_folder: str | os.PathLike) -> Any:
    """The parsed ``log_history.json`` a stage writes when it finishes, or None while there is
    none (or it cannot be read)."""
    path = Path(stage_folder) / LOG_HISTORY_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
