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
    # Without their outputs, from the store's list of every prediction read once per change:
    # a filter never loads raw outputs, and many visitors filtering cost one read of the table.
    page = services.store.stored_predictions(
        run_id or None,
        model=model or None,
        setting=setting or None,
        error=error or None,
        category=category or None,
        bucket=bucket or None,
        only_wrong=bool(only_wrong),
        limit=MAX_ROWS,
    )
    table = [
        [
            s.id,
            s.run_id,
            s.record.model,
            s.record.setting,
            s.record.entry_id,
            s.record.error,
            s.record.category or "",
            s.record.history_length,
            _yn(s.record.tool_ok),
            _yn(s.record.params_ok),
        ]
        for s in page.rows
    ]
    more = f" (showing the first {MAX_ROWS})" if page.total > MAX_ROWS else ""
    return table, f"{page.total} predictions{more}."


def _yn(v) -> str:
    return "" if v is None else ("correct" if v else "wrong")


def filter_choices(services: Services) -> dict[str, list]:
    records = [s.record for s in services.store.stored_predictions().rows]
    pick = lambda k: sorted({str(getattr(p, k)) for p in records if getattr(p, k) not in (None, "")})  # noqa: E731
    return {
        "run": [r["id"] for r in services.store.runs()],
        "model": pick("model"),
        "setting": pick("setting"),
        "error": pick("error"),
        "category": pick("category"),
        "bucket": sorted({history_bucket(p.history_length) for p in records}),
    }


def inspect(services: Services, prediction_id: int) -> tuple[str, str, str, str]:
    """(entry html, prompt, raw output, call-vs-gold html) of one prediction."""
    found = services.store.stored_predictions(ids=int(prediction_id), with_output=True).rows
    if not found:
        raise ValueError(f"no prediction {prediction_id}")
    [stored] = found
    pred = stored.record
    run = next((r for r in services.store.runs() if r["id"] == stored.run_id), {})
    entry = services.store.run_entry(stored.run_id, pred.entry_id)
    call = pred.call.to_json() if pred.call else None
    meaning = ERROR_CODES.get(pred.error, "")
    if entry is None:
        note = "<p class='pt-muted'>The entry itself is not stored (its data file was not readable when the run was imported).</p>"
        return (
            note,
            "",
            pred.raw or "",
            call_html(call, title="parsed call", error=pred.error, note=meaning, latency_s=pred.latency_s),
        )
    style = run.get("style") if run.get("style") in STYLES else "paper"
    prompt = render_system_prompt(entry, pred.setting, style)
    if style != (run.get("style") or "paper"):
        prompt = f"(the run used style {run.get('style')!r}; shown in the paper style)\n" + prompt
    picks = {call["tool_name"]: "model"} if call else {}
    gold = entry.ground_truth.to_json()
    diff = call_html(
        call,
        title=f"{esc(pred.model)}'s call vs the gold call",
        gold=gold,
        error=pred.error,
        latency_s=pred.latency_s,
        note=meaning,
    )
    diff += call_html(gold, title="gold call")
    return entry_html(entry, pred.setting, picks), prompt + "\n[user]\n" + entry.query, pred.raw or "", diff


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
