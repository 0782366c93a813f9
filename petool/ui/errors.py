"""Tab "Errors": a filterable table of stored predictions; a row opens its whole entry."""

import json

from petool.prompts import STYLES, render_system_prompt
from petool.scoring import ERROR_CODES, history_bucket
from petool.ui.common import guard
from petool.ui.render import call_html, entry_html, esc
from petool.ui.services import Services

HEADERS = ["id", "run", "model", "setting", "entry", "error", "category", "full history (turns)", "tool ok", "params ok"]
MAX_ROWS = 500


def prediction_rows(
    services: Services,
    run_id: str | None = None,
    model: str | None = None,
    setting: str | None = None,
    error: str | None = None,
    category: str | None = None,
    bucket: str | None = None,
    only_wrong: bool = True,
) -> tuple[list[list], str]:
    """Table rows of predictions matching the filters (at most MAX_ROWS), and a count line."""
    # The scored columns of every prediction, cached per change of the predictions: a filter
    # never loads raw outputs, and many visitors filtering cost one read of the table.
    rows, _ = services.store.prediction_summaries()
    filters = {"run_id": run_id, "model": model, "setting": setting, "error": error, "category": category}
    for col, value in filters.items():
        if value:
            rows = [r for r in rows if r.get(col) == value]
    if bucket:
        rows = [r for r in rows if history_bucket(r.get("history_length")) == bucket]
    if only_wrong:
        rows = [r for r in rows if not (r.get("tool_ok") and r.get("params_ok"))]
    table = [
        [
            r["id"],
            r["run_id"],
            r["model"],
            r["setting"],
            r["entry_id"],
            r["error"],
            r.get("category") or "",
            r.get("history_length"),
            _yn(r.get("tool_ok")),
            _yn(r.get("params_ok")),
        ]
        for r in rows[:MAX_ROWS]
    ]
    more = f" (showing the first {MAX_ROWS})" if len(rows) > MAX_ROWS else ""
    return table, f"{len(rows)} predictions{more}."


def _yn(v) -> str:
    return "" if v is None else ("correct" if v else "wrong")


def filter_choices(services: Services) -> dict[str, list]:
    rows, _ = services.store.prediction_summaries()
    pick = lambda k: sorted({str(r[k]) for r in rows if r.get(k) not in (None, "")})  # noqa: E731
    return {
        "run": [r["id"] for r in services.store.runs()],
        "model": pick("model"),
        "setting": pick("setting"),
        "error": pick("error"),
        "category": pick("category"),
        "bucket": sorted({history_bucket(r.get("history_length")) for r in rows}),
    }


def inspect(services: Services, prediction_id: int) -> tuple[str, str, str, str]:
    """(entry html, prompt, raw output, call-vs-gold html) of one prediction."""
    found = services.store.db.execute("SELECT run_id FROM predictions WHERE id = ?", [int(prediction_id)]).fetchone()
    if not found:
        raise ValueError(f"no prediction {prediction_id}")
    [pred] = [p for p in services.store.predictions([found[0]]) if p["id"] == int(prediction_id)]
    run = next((r for r in services.store.runs() if r["id"] == pred["run_id"]), {})
    entry = services.store.run_entry(pred["run_id"], pred["entry_id"])
    call = pred.get("call")
    meaning = ERROR_CODES.get(pred["error"], "")
    if entry is None:
        note = "<p class='pt-muted'>The entry itself is not stored (its data file was not readable when the run was imported).</p>"
        return (
            note,
            "",
            pred.get("raw") or "",
            call_html(call, title="parsed call", error=pred["error"], note=meaning, latency_s=pred.get("latency_s")),
        )
    style = run.get("style") if run.get("style") in STYLES else "paper"
    prompt = render_system_prompt(entry, pred["setting"], style)
    if style != (run.get("style") or "paper"):
        prompt = f"(the run used style {run.get('style')!r}; shown in the paper style)\n" + prompt
    picks = {call["tool_name"]: "model"} if call else {}
    gold = entry.ground_truth.to_json()
    diff = call_html(
        call,
        title=f"{esc(pred['model'])}'s call vs the gold call",
        gold=gold,
        error=pred["error"],
        latency_s=pred.get("latency_s"),
        note=meaning,
    )
    diff += call_html(gold, title="gold call")
    return entry_html(entry, pred["setting"], picks), prompt + "\n[user]\n" + entry.query, pred.get("raw") or "", diff


def build(services: Services):
    import gradio as gr

    ch = filter_choices(services)
    with gr.Row():
        run = gr.Dropdown(ch["run"], label="run", value=None, elem_id="e-run")
        model = gr.Dropdown(ch["model"], label="model", value=None)
        setting = gr.Dropdown(ch["setting"], label="setting", value=None)
        error = gr.Dropdown(ch["error"], label="error code", value=None)
        category = gr.Dropdown(ch["category"], label="category", value=None, filterable=True)
        bucket = gr.Dropdown(ch["bucket"], label="full history length (turns)", value=None)
    with gr.Row():
        only_wrong = gr.Checkbox(True, label="only wrong predictions")
        search = gr.Button("Filter", elem_id="e-filter")
    count = gr.Markdown("")
    table = gr.Dataframe(headers=HEADERS, value=[], interactive=False, label="predictions (click a row)", elem_id="e-table", max_height=360)
    detail = gr.HTML(elem_id="e-detail")
    with gr.Row():
        prompt = gr.Code(label="prompt", language=None, lines=12, elem_id="e-prompt")
        raw = gr.Code(label="raw output", language=None, lines=12, elem_id="e-raw")
    diff = gr.HTML(elem_id="e-diff")
    filters = [run, model, setting, error, category, bucket, only_wrong]

    def on_filter(*args):
        return prediction_rows(services, *args)

    search.click(on_filter, filters, [table, count], api_name="predictions")

    def on_select(rows, evt: gr.SelectData):
        row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        values = rows.values.tolist() if hasattr(rows, "values") else rows
        return guard(inspect)(services, int(values[row][0]))

    table.select(on_select, table, [detail, prompt, raw, diff], api_visibility="private")

    def inspect_prediction(prediction_id: int) -> str:
        """The entry html, prompt, raw output and diff of one prediction, as a JSON list."""
        return json.dumps(guard(inspect)(services, int(prediction_id)), ensure_ascii=False)

    gr.api(inspect_prediction, api_name="inspect_prediction")

    def refresh_choices():
        c = filter_choices(services)
        return [gr.update(choices=c[k]) for k in ("run", "model", "setting", "error", "category", "bucket")]

    return {
        "refresh": lambda *a: (*refresh_choices(), *on_filter(None, None, None, None, None, None, True)),
        "outputs": [run, model, setting, error, category, bucket, table, count],
    }
