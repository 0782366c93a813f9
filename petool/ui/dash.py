"""Tab "Dashboards": accuracy and errors from stored evaluation runs, win rates from labels.

The runs include the app's own: every scored comparison side is stored as an answer of the run
``app:<model>`` (``Services.record_sides``), and a sample evaluation from Pairs & training as a
run of its own, so someone who only uses the app sees its numbers here at once.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import time
from pathlib import Path

from petool import dashboards as dash
from petool.scoring import aggregate
from petool.ui.common import require_user, with_user
from petool.ui.render import md_text
from petool.ui.services import Services
from petool.ui.uploads import discard_uploads

RUN_FILES = ("predictions.jsonl", "metrics.json", "config.json")
TABLE_HEADERS = ["model", "setting", "n", "tool acc", "param acc", "both", "tool choice"]
TOOL_CHOICE_NOTE = (
    "*Tool choice* says how each model's answers chose their tool, as its name does: a name "
    "ending in `[rank-prior 0]` is the model's own choice (the Compare tab's default); a local "
    "model's name without that mark chose with the ranking's prior added (Compare's *Model + "
    "ranking (fused)* at weight 2.5, and `petool eval`'s default); `[rank-prior w]`, at weight w. "
    "The app's comparisons are stored as runs `app:<model>` under these names."
)
NO_PREDICTIONS = (
    "No scored answers yet: run a comparison on an entry with a known gold call (Compare & label), "
    "evaluate a model on a sample (Pairs & training), or import a run below."
)
"""What an empty chart says in the app: what to do here, no command line."""


def filter_options(services: Services) -> tuple[list[tuple[str, str]], list[str]]:
    """(run choices as (label, id), model names) for the filters."""
    runs = services.store.runs()
    run_choices = [(f"{r['id']} · {r['model']} · {r['n']} predictions · {r.get('scorer_version') or '?'}", r["id"]) for r in runs]
    models = sorted({p for r in runs for p in [r["model"]] if p})
    return run_choices, models


def records(services: Services, run_ids: list[str] | None, models: list[str] | None, settings: list[str] | None) -> list[dict]:
    """The stored predictions (without their outputs) of the chosen runs (all when none chosen),
    filtered by model and setting, as predictions.jsonl lines (the figures' records)."""
    page = services.store.stored_predictions(run_ids or None, model=models or None, setting=settings or None)
    return [s.record.to_json() for s in page.rows]


def mixed_versions(services: Services, run_ids: list[str] | None) -> str:
    """A warning when the chosen runs were scored by different scorer/benchmark versions."""
    runs = [r for r in services.store.runs() if not run_ids or r["id"] in run_ids]
    versions = {(r.get("scorer_version"), r.get("benchmark_version")) for r in runs}
    if len(versions) > 1:
        return "⚠️ These runs come from different scorer or benchmark versions: their numbers may not be comparable."
    return ""


def figures(services: Services, run_ids=None, models=None, settings=None) -> tuple:
    """Every dashboard figure plus the accuracy table and a status line.

    The prediction figures are derived once per change of the predictions and runs (and filter
    choice), the label figures once per new label (``Store.memo``): a page many visitors reload
    while annotators label costs a label figure per label, never the prediction figures again.
    """
    store = services.store
    _, fingerprint = store.prediction_summaries()
    chosen = (tuple(run_ids or ()), tuple(models or ()), tuple(settings or ()))
    recs, predicted = store.memo(
        ("dashboard predictions", chosen), fingerprint, lambda: _prediction_figures(services, run_ids, models, settings)
    )
    # Undone and edited labels no longer count (their replacement does).
    labels = [lab for lab in store.current_labels() if not lab.get("withdrawn")]
    labelled = store.memo("dashboard labels", store.labels_stamp(), lambda: (dash.label_stats_figure(labels), dash.win_rate_figure(labels)))
    status = f"{recs} predictions from {len(run_ids or []) or 'all'} run(s); {len(labels)} labels. " + predicted[-1]
    return (*predicted[:-2], *labelled, [list(r) for r in predicted[-2]], status)


def _prediction_figures(services: Services, run_ids, models, settings) -> tuple[int, tuple]:
    """(number of records, (five figures, accuracy table, version warning)) for the chosen runs."""
    recs = records(services, run_ids, models, settings)
    table = [
        [r["model"], r["setting"], r["n"], _pct(r["tool_acc"]), _pct(r["param_acc"]), _pct(r["both_acc"]), dash.tool_choice_of(r["model"])]
        for r in aggregate(recs, ["model", "setting"])
    ]
    return len(recs), (
        dash.accuracy_figure(recs, empty=NO_PREDICTIONS),
        dash.history_effect_figure(recs, empty=NO_PREDICTIONS),
        dash.bucket_figure(recs, empty=NO_PREDICTIONS),
        dash.category_figure(recs, empty=NO_PREDICTIONS),
        dash.error_figure(recs, empty=NO_PREDICTIONS),
        table,
        mixed_versions(services, run_ids),
    )


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def import_upload(services: Services, files: list | None, replace: bool = False) -> str:
    """Import a run from uploaded files (predictions.jsonl, and optionally metrics.json, config.json).

    The run id is config.json's ``run_id``, else a fresh ``upload_run_id()``; a run already
    stored under that id is kept (ValueError saying so) unless ``replace`` is set.
    """
    if not files:
        raise ValueError("Choose the run's files first: predictions.jsonl (and metrics.json, config.json).")
    paths = [Path(f if isinstance(f, str) else getattr(f, "name", f)) for f in files]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise ValueError(f"{', '.join(missing)} is no longer here (uploads are deleted once imported or refused): choose the files again")
    limit = services.config.max_upload_mb * 1024 * 1024
    for p in paths:
        if p.is_file() and p.stat().st_size > limit:
            raise ValueError(
                f"{p.name} is {p.stat().st_size / 2**20:.1f} MB; the upload limit is {services.config.max_upload_mb} MB (PETOOL_MAX_UPLOAD_MB)"
            )
    by_name = {p.name: p for p in paths}
    unknown = [p.name for p in paths if p.name not in RUN_FILES]
    if unknown:
        raise ValueError(f"unexpected file(s) {', '.join(unknown)}: upload {', '.join(RUN_FILES)} from one `petool eval --out` folder")
    if "predictions.jsonl" not in by_name:
        raise ValueError("predictions.jsonl is missing: it holds the run's predictions")
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / upload_run_id()
        run_dir.mkdir()
        for name, p in by_name.items():
            shutil.copy(p, run_dir / name)
        run_id = services.store.import_run(run_dir, with_entries=False, replace=replace)
    return f"Imported run {run_id}."


def upload_run_id() -> str:
    """``upload-<time>-<random>``: two uploads in the same second never share an id."""
    return f"upload-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}"


def import_path(services: Services, path: str, replace: bool = False) -> str:
    """Import a `petool eval` folder on the server (not in demo mode); see ``import_upload`` for ``replace``."""
    if services.config.demo:
        raise ValueError("Importing server folders is disabled in demo mode; upload the files instead.")
    if not (path or "").strip():
        raise ValueError("Type the path of a `petool eval --out` folder.")
    return f"Imported run {services.store.import_run(path.strip(), replace=replace)}."


def build(services: Services, session):
    """Lay out the tab and wire it; ``session`` is the page session's login State (common.with_user)."""
    import gradio as gr
    from gradio.utils import get_upload_folder

    run_choices, model_names = filter_options(services)
    with gr.Row():
        runs = gr.Dropdown(run_choices, multiselect=True, label="runs (none = all)", scale=3, elem_id="d-runs")
        models = gr.Dropdown(model_names, multiselect=True, label="models (none = all)", scale=2)
        settings = gr.CheckboxGroup(["p", "r", "c", "none"], label="settings (none = all)", scale=2)
        refresh = gr.Button("Refresh", scale=1, elem_id="d-refresh")
    status = gr.Markdown("", elem_id="d-status")
    with gr.Row():
        acc = gr.Plot(label="accuracy by setting", elem_id="d-acc")
        hist = gr.Plot(label="with vs without history", elem_id="d-hist")
    with gr.Row():
        bucket = gr.Plot(label="by history length", elem_id="d-bucket")
        errors = gr.Plot(label="error codes", elem_id="d-errors")
    cat = gr.Plot(label="by category", elem_id="d-cat")
    with gr.Row():
        lstats = gr.Plot(label="labels", elem_id="d-labels")
        wins = gr.Plot(label="win rate", elem_id="d-wins")
    table = gr.Dataframe(headers=TABLE_HEADERS, value=[], interactive=False, label="accuracy table", elem_id="d-table")
    gr.Markdown(TOOL_CHOICE_NOTE, elem_id="d-tool-choice")
    with gr.Accordion("Import an evaluation run", open=False):
        gr.Markdown(
            "Upload the files of a `petool eval --out DIR` folder, or (outside demo mode) give the folder's path on this server. `petool eval --db` imports directly."
        )
        if services.config.access_control and not services.config.auth_private:
            gr.Markdown("Only signed-in users may upload: log in first, or the upload is refused.")
        upload = gr.File(
            file_count="multiple", file_types=[".jsonl", ".json"], label="predictions.jsonl, metrics.json, config.json", elem_id="d-upload"
        )
        replace = gr.Checkbox(
            False, label="replace the stored run with the same id (config.json's run_id, or the folder's name)", elem_id="d-replace"
        )
        up_btn = gr.Button("Import uploaded files", elem_id="d-import")
        path = gr.Textbox(label="server folder", interactive=not services.config.demo)
        path_btn = gr.Button("Import folder", interactive=not services.config.demo)
        import_msg = gr.Markdown("", elem_id="d-import-msg")

    outputs = [acc, hist, bucket, cat, errors, lstats, wins, table, status]

    def on_refresh(r, m, s):
        return figures(services, r, m, s)

    refresh.click(on_refresh, [runs, models, settings], outputs, api_name="dashboards")

    def refresh_filters():
        rc, mn = filter_options(services)
        return gr.update(choices=rc), gr.update(choices=mn)

    # A refused import says why under its buttons (not only in a toast); the uploaded files are
    # deleted either way, so the upload box is emptied with them.
    def on_upload(user, f, rep):
        try:
            require_user(services.config, user, "import runs")
            return md_text(import_upload(services, f, rep)), None
        except ValueError as exc:
            return f"⚠️ {md_text(str(exc))}", None
        finally:
            discard_uploads(f, get_upload_folder())

    def on_path(user, p, rep):
        try:
            require_user(services.config, user, "import runs")
            return md_text(import_path(services, p, rep))
        except ValueError as exc:
            return f"⚠️ {md_text(str(exc))}"

    up_btn.click(with_user(on_upload, 2), [upload, replace, session], [import_msg, upload], api_visibility="private").then(
        refresh_filters, None, [runs, models]
    ).then(on_refresh, [runs, models, settings], outputs)
    path_btn.click(with_user(on_path, 2), [path, replace, session], import_msg, api_visibility="private").then(
        refresh_filters, None, [runs, models]
    ).then(on_refresh, [runs, models, settings], outputs)
    return {
        "refresh": on_refresh,
        "inputs": [runs, models, settings],
        "outputs": outputs,
        "refresh_filters": refresh_filters,
        "filters": [runs, models],
    }
