"""Tab "Pairs & training": DPO pairs from the labels, their exports, the database, a DPO run."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import zipfile
from pathlib import Path

from petool.dashboards import empty_figure, training_figure
from petool.formats import DPO_FILE, write_dataset_info, write_lf_dpo, write_trl_preferences
from petool.jobs import small_run_warning, start_dpo_job, stop_job
from petool.models import ModelNotFound, resolve_adapter
from petool.pairs import PairPolicy, pairs_from_labels
from petool.schema import SETTINGS
from petool.ui.common import require_user, with_user
from petool.ui.labels import accounting_line, statuses
from petool.ui.services import Services

FORMATS = {
    "TRL JSONL": "prompt/chosen/rejected as chat messages (TRL DPOTrainer)",
    "LLaMA-Factory": "ranking JSON (instruction, input, chosen, rejected) + dataset_info.json, zipped",
    "PEToolBench DPO files": "the authors' user_entries_dpo_{p,r,c}.json + dataset_info.json, zipped",
}
PAIR_HEADERS = ["source", "setting", "query", "chosen tool", "rejected"]
PAIRS_PAGE_SIZE = 100
"""Pairs shown at once: the preview is for reading, the export holds them all."""

EXPORT_PREFIX = "petool-export-"
"""Name start of the private folders exports are written to (tempfile.mkdtemp adds a random tail)."""
EXPORT_MAX_AGE_S = 600
"""How long a private export folder stays on disk. Gradio copies the file into its own cache as
the event's output at once (under a random name, served to the requester); the folder is
only a staging place, swept by the next export."""


def policy_from(both_bad: str, conflicts: str) -> PairPolicy:
    return PairPolicy(both_bad=both_bad, conflicts=conflicts)


def pair_setting(source: str) -> str:
    """The setting a label pair came from (``label:<id>:<setting>``)."""
    parts = (source or "").split(":")
    return parts[2] if len(parts) > 2 else "?"


def pair_rows(
    services: Services, both_bad: str = "ground_truth", conflicts: str = "drop", page: float | None = 1
) -> tuple[list[list], str]:
    """One page (PAIRS_PAGE_SIZE rows) of the pairs preview and a line of counts.

    The table is derived once per new label and policy (``Store.memo``) from the labels without
    their stored entries, so reloading the tab costs a slice of a cached list, not a pass over
    every label.
    """
    policy = policy_from(both_bad, conflicts)
    store = services.store
    labels = store.current_labels()

    def table():
        pairs = pairs_from_labels(labels, policy)
        return [[p.source, pair_setting(p.source), p.user[:80], _tool(p.chosen), _tool(p.rejected)[:80]] for p in pairs]

    rows = store.memo(("pair_rows", policy), store.labels_stamp(), table)
    _, status = statuses(services, policy)
    pages = max(1, -(-len(rows) // PAIRS_PAGE_SIZE))
    try:
        page = min(pages, max(1, int(page or 1)))
    except (TypeError, ValueError, OverflowError):
        page = 1
    start = (page - 1) * PAIRS_PAGE_SIZE
    shown = rows[start : start + PAIRS_PAGE_SIZE]
    msg = accounting_line(status)
    if pages > 1:
        msg += f" Page {page} of {pages}: pairs {start + 1}–{start + len(shown)}."
    return [list(r) for r in shown], msg


def _tool(text: str) -> str:
    try:
        return json.loads(text)["tool_name"]
    except (ValueError, KeyError, TypeError):
        return "(raw) " + text[:60]


def export_path(folder: str | Path, name: str) -> Path:
    """``folder/name``, refusing any name that would land outside ``folder``."""
    root = Path(folder).resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root) or path == root:
        raise ValueError(f"refusing to write {name!r} outside the export folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def private_export_dir() -> Path:
    """A fresh folder for one export: readable by this process's user only (mkdtemp: mode 0700,
    a random name) and outside every folder gradio serves, so the only way to the file is the
    copy gradio makes as the event's output for the one who asked. Old ones are swept first."""
    sweep_exports()
    return Path(tempfile.mkdtemp(prefix=EXPORT_PREFIX))


def sweep_exports(max_age_s: float = EXPORT_MAX_AGE_S, root: str | Path | None = None) -> int:
    """Delete this user's private export folders older than ``max_age_s``; returns how many."""
    root = Path(root or tempfile.gettempdir())
    cutoff = time.time() - max_age_s
    removed = 0
    for folder in root.glob(EXPORT_PREFIX + "*"):
        try:
            info = folder.lstat()
        except FileNotFoundError:  # another export swept it first
            continue
        if folder.is_dir() and not folder.is_symlink() and info.st_uid == os.getuid() and info.st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def export_pairs(services: Services, fmt: str, both_bad: str = "ground_truth", conflicts: str = "drop") -> str:
    """Write the pairs in ``fmt`` to a private folder of its own; returns the file to hand to the requester."""

    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; valid: {', '.join(FORMATS)}")
    pairs = services.store.preference_examples(policy_from(both_bad, conflicts))
    if not pairs:
        raise ValueError("No pairs to export yet: label some comparisons first.")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    root = private_export_dir()
    if fmt == "TRL JSONL":
        return str(write_trl_preferences(pairs, export_path(root, f"pairs-{stamp}.jsonl")))
    folder = export_path(root, f"pairs-{stamp}-{'lf' if fmt == 'LLaMA-Factory' else 'petoolbench'}")
    folder.mkdir(parents=True, exist_ok=True)
    if fmt == "LLaMA-Factory":
        write_lf_dpo(pairs, folder / "petool_dpo.json")
        write_dataset_info(folder, {"petool_dpo": ("petool_dpo.json", True)})
    else:
        files = {}
        for s in SETTINGS:
            mine = [p for p in pairs if pair_setting(p.source) == s]
            if mine:
                name = DPO_FILE.format(setting=s)
                write_lf_dpo(mine, folder / name)
                files[name.removesuffix(".json")] = (name, True)
        write_dataset_info(folder, files)
    zip_path = folder.with_suffix(".zip")
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(folder.iterdir()):
            z.write(f, f.name)
    shutil.rmtree(folder)
    return str(zip_path)


def snapshot_db(services: Services) -> str:
    """A consistent copy of the live database (SQLite backup API) in a private folder of its own."""
    path = export_path(private_export_dir(), f"petool-{time.strftime('%Y%m%d-%H%M%S')}.db")
    return str(services.store.backup(path))


def download_db(services: Services, user: str | None = None) -> str:
    """The database snapshot for ``user``; in demo mode only for PETOOL_ADMINS (it holds every
    annotator's name and work), and with access control only for signed-in users."""

    config = services.config
    require_user(config, user, "download the database")
    if config.demo and (not user or user not in config.admins):
        raise ValueError("Downloading the database is disabled in demo mode (only PETOOL_ADMINS may); export the pairs instead.")
    return snapshot_db(services)


def start_training(
    services: Services,
    max_steps: int | None,
    config_yaml: str | None,
    both_bad: str = "ground_truth",
    conflicts: str = "drop",
    command: list[str] | None = None,
) -> str:
    """Launch a DPO run on the labelled pairs from the configured adapter (not in demo mode)."""
    if services.config.demo:
        raise ValueError("Training is disabled in demo mode (PETOOL_DEMO=1).")
    adapter = services.config.adapter
    if command is None:
        try:
            path = resolve_adapter(adapter)
        except ModelNotFound as exc:
            raise ValueError(str(exc)) from None
        if path is None:
            raise ValueError("DPO continues from an SFT adapter: set PETOOL_ADAPTER.")
        adapter = str(path)
    pairs = services.store.preference_examples(policy_from(both_bad, conflicts))
    jobs_dir = Path(services.config.db_path).resolve().parent / "jobs"
    warning = small_run_warning(len(pairs), max_steps or None, config_yaml or None)
    job_id = start_dpo_job(services.store, pairs, adapter or "", jobs_dir, config_yaml or None, max_steps or None, command)
    return f"Started training job #{job_id} on {len(pairs)} pairs." + (f"\n\n⚠️ {warning}" if warning else "")


def training_warning(
    services: Services, max_steps, config_yaml: str | None, both_bad: str = "ground_truth", conflicts: str = "drop"
) -> str:
    """Said next to "Start DPO run" before it is clicked: why the run would be too small ("" if not)."""
    try:
        steps = int(max_steps) if max_steps else None
    except (TypeError, ValueError, OverflowError):
        steps = None
    n = len(services.store.preference_examples(policy_from(both_bad, conflicts)))
    warning = small_run_warning(n, steps, config_yaml or None)
    return f"⚠️ {warning}" if warning else ""


def job_view(services: Services):
    """(markdown status, loss figure) of the latest training job."""

    jobs = services.store.jobs()
    if not jobs:
        return "No training job yet.", empty_figure("DPO loss", "No training job yet.")
    job = jobs[0]
    pct = f"{100 * (job['progress'] or 0):.0f}%"
    lines = [
        f"**Job #{job['id']}: {job['status']}** · {pct} · step {job['step'] or 0}/{job['total_steps'] or '?'} · started {job['created']}"
    ]
    if job.get("message"):
        lines.append("```\n" + job["message"].replace("```", "'''") + "\n```")
    return "\n\n".join(lines), loss_figure(job["losses"], job["id"])


def loss_figure(losses: list, job_id: int | None = None):
    """A job's ``[[step, loss], ...]`` series drawn as the DPO panel of the one training figure."""
    if not losses:
        return training_figure({}, "DPO loss", empty="No loss logged yet.")
    history = [{"step": step, "loss": loss} for step, loss in losses]
    return training_figure({"dpo": history}, f"DPO loss (job #{job_id})")


def stop_latest(services: Services) -> str:
    running = [j for j in services.store.jobs() if j["status"] in ("queued", "running")]
    if not running:
        raise ValueError("No job is running.")
    stop_job(services.store, running[0]["id"])
    return f"Stopped job #{running[0]['id']}."


def build(services: Services, session):
    """Lay out the tab and wire it; ``session`` is the page session's login State (common.with_user)."""
    import gradio as gr

    gr.Markdown(
        "Human labels become DPO pairs by one pure function (petool.pairs) with an explicit policy; "
        "labels themselves are never changed. Labels on test entries (the real dev data) never become pairs."
    )
    with gr.Row():
        both_bad = gr.Radio(["ground_truth", "skip"], value="ground_truth", label="both bad → gold call chosen over both, or skip")
        conflicts = gr.Radio(["drop", "keep"], value="drop", label="contradicting pairs")
        page = gr.Number(1, precision=0, minimum=1, label=f"page ({PAIRS_PAGE_SIZE} pairs each)", elem_id="p-page")
        refresh = gr.Button("Refresh pairs", elem_id="p-refresh")
    counts = gr.Markdown("", elem_id="p-counts")
    table = gr.Dataframe(headers=PAIR_HEADERS, value=[], interactive=False, wrap=True, elem_id="p-table")
    with gr.Row():
        fmt = gr.Radio(list(FORMATS), value="TRL JSONL", label="export format", info="; ".join(f"{k}: {v}" for k, v in FORMATS.items()))
        export_btn = gr.Button("Export pairs", variant="primary", elem_id="p-export")
        db_btn = gr.Button("Download the database", elem_id="p-db", interactive=not (services.config.demo and not services.config.admins))
    export_msg = gr.Markdown("", elem_id="p-export-msg")  # why an export or download was refused
    files = gr.File(label="download", interactive=False, elem_id="p-file")
    gr.Markdown("### DPO run on the labelled pairs")
    disabled = services.config.demo
    if disabled:
        gr.Markdown(
            "Training is disabled in demo mode (the default on a Space). Run locally with `PETOOL_DEMO=0`, or use `petool train dpo --pairs-from-db`."
        )
    with gr.Row():
        steps = gr.Number(20, precision=0, minimum=1, label="max steps", interactive=not disabled)
        yaml = gr.Textbox("assets/train/cpu.yaml", label="training config", interactive=not disabled)
        train_btn = gr.Button("Start DPO run", variant="primary", interactive=not disabled, elem_id="p-train")
        stop_btn = gr.Button("Stop", interactive=not disabled)
    size_md = gr.Markdown("", elem_id="p-size")  # the too-small-run warning, before the run
    job_md = gr.Markdown("", elem_id="p-job")
    job_plot = gr.Plot(label="loss", elem_id="p-loss")
    # Polls only while a job runs (and after a reload, once the tab is opened): idle pages stay quiet.
    timer = gr.Timer(3.0, active=False)

    def on_refresh(bb, cf, pg=1):
        rows, msg = pair_rows(services, bb, cf, pg)
        return rows, msg

    refresh.click(on_refresh, [both_bad, conflicts, page], [table, counts], api_name="pairs")
    if not disabled:
        for changed in (refresh.click, steps.change, yaml.change, both_bad.change, conflicts.change):
            changed(
                lambda n, y, bb, cf: training_warning(services, n, y, bb, cf),
                [steps, yaml, both_bad, conflicts],
                size_md,
                api_visibility="private",
                queue=False,
            )
    page.submit(on_refresh, [both_bad, conflicts, page], [table, counts], api_visibility="private")

    def on_export(user, f, bb, cf):
        require_user(services.config, user, "export pairs")
        return export_pairs(services, f, bb, cf), ""

    def on_train(user, n, y, bb, cf):
        require_user(services.config, user, "train")
        return start_training(services, n, y, bb, cf)

    def on_stop(user):
        require_user(services.config, user, "stop training")
        if services.config.demo:
            raise ValueError("Training is disabled in demo mode (PETOOL_DEMO=1).")
        return stop_latest(services)

    # A refusal (not signed in, not an admin) answers with its reason beside the buttons, never an error.
    export_btn.click(
        with_user(on_export, 3, refusal=(2, 1)), [fmt, both_bad, conflicts, session], [files, export_msg], api_name="export_pairs"
    )
    db_btn.click(
        with_user(lambda user: (download_db(services, user), ""), 0, refusal=(2, 1)), [session], [files, export_msg], api_name="download_db"
    )

    def poll():
        return (*job_view(services), gr.Timer(active=job_running(services)))

    train_btn.click(with_user(on_train, 4, refusal=(1, 0)), [steps, yaml, both_bad, conflicts, session], job_md, api_name="train").success(
        lambda: gr.Timer(active=True), None, timer, api_visibility="private"
    )
    stop_btn.click(with_user(on_stop, 0, refusal=(1, 0)), [session], job_md, api_visibility="private")
    timer.tick(poll, None, [job_md, job_plot, timer], api_visibility="private", show_progress="hidden")
    gr.api(lambda_job_status(services), api_name="job_status")
    return {
        "refresh": lambda: (*on_refresh("ground_truth", "drop"), *poll()),
        "outputs": [table, counts, job_md, job_plot, timer],
        "policy": [both_bad, conflicts],
    }


def job_running(services: Services) -> bool:
    return any(j["status"] in ("queued", "running") for j in services.store.jobs())


def lambda_job_status(services: Services):
    def job_status() -> str:
        """The latest training job's row (status, progress, losses) as JSON."""
        jobs = services.store.jobs()
        return json.dumps(jobs[0] if jobs else {}, ensure_ascii=False, default=str)

    return job_status
