"""Tab "Compare & label": two models side by side on the current entry, a verdict, a queue.

Model A / B are the base model and PEToolLLaMA (the same base in memory, adapter toggled) or a
rule baseline. Blind mode shuffles the sides and hides the names until the verdict is in.
"""

import json
import random
import uuid
from collections.abc import Callable

from petool.label_rules import VERDICTS
from petool.models import DEFAULT_RANK_PRIOR_WEIGHT
from petool.parsing import parse_call
from petool.prompts import render_system_prompt
from petool.schema import SETTINGS, ToolCall, entry_from_dict, entry_to_dict
from petool.scoring import ERROR_CODES, score_call
from petool.ui.builder import checked_call
from petool.ui.common import MAX_CANDIDATES, MAX_JSON_CHARS, MAX_TEXT_CHARS, MAX_TURNS, acting_user, check_text
from petool.ui.render import call_html, candidates_html, esc, gold_known, history_html, md_text
from petool.ui.services import BASE, DEV, MAX_RANK_PRIOR, TUNED, Services

TAGS = [
    "wrong function",
    "ignores preference",
    "wrong parameter names",
    "wrong parameter values",
    "invalid format",
    "hallucinated tool",
    "gold is debatable",
]
VERDICT_LABELS = {"A": "A is better", "B": "B is better", "tie": "Tie", "both_bad": "Both are bad"}


# ---------------------------------------------------------------- plain handlers


def judge(entry, setting: str, text: str) -> dict:
    """Parse and, when the gold is known, score one output."""
    parsed = parse_call(text)
    if gold_known(entry):
        score = score_call(entry, setting, parsed)
        return {
            "call": score.call.to_json() if score.call else None,
            "error": score.error,
            "tool_ok": score.tool_ok,
            "params_ok": score.params_ok,
        }
    if parsed.call is None:
        return {"call": None, "error": parsed.error, "tool_ok": None, "params_ok": None}
    error = "unscored" if entry.candidate(parsed.call.tool_name) else "tool:hallucinated"
    return {"call": parsed.call.to_json(), "error": error, "tool_ok": None, "params_ok": None}


def run_compare(
    services: Services,
    d: dict,
    setting: str,
    model_a: str,
    model_b: str,
    blind: bool = False,
    seed: int | None = None,
    progress: Callable | None = None,
    rank_prior: float | None = None,
) -> dict:
    """Generate with both models on the entry; returns the comparison record the label is made of.

    In blind mode the two choices are shuffled (``swapped``), so "A" may be ``model_b``.
    ``rank_prior`` weighs the ranking's prior into both models' tool choice (None: the default;
    0: each model chooses alone, which shows what training changed).
    """
    *_, result = iter_compare(services, d, setting, model_a, model_b, blind, seed, progress, rank_prior)
    return result


def iter_compare(
    services: Services,
    d: dict,
    setting: str,
    model_a: str,
    model_b: str,
    blind: bool = False,
    seed: int | None = None,
    progress: Callable | None = None,
    rank_prior: float | None = None,
):
    """``run_compare`` one side at a time: yields the record with side A only (``done`` False:
    shown while B runs, never voted on), then the whole record. Refusals raise before any model runs."""
    if not d:
        raise ValueError("Load or build an entry first (tab Build).")
    entry = entry_from_dict(d)
    if not entry.query or not entry.candidates:
        raise ValueError("The entry needs a query and candidates (tab Build).")
    if setting != "none" and setting not in entry.histories:
        raise ValueError(f"this entry has no {setting} history; pick another setting")
    check_request_size(entry, setting)
    choices = [model_a, model_b]
    swapped = False
    if blind:
        swapped = random.Random(seed).random() < 0.5
        if swapped:
            choices.reverse()
    style = _style(services)
    result = {
        "id": uuid.uuid4().hex,  # one comparison, one vote
        "entry": entry_to_dict(entry),
        "setting": setting,
        "style": style,
        "prompt": render_system_prompt(entry, setting, style),
        "blind": bool(blind),
        "swapped": swapped,
        "revealed": not blind,
        "sides": [],
        "done": False,
        "labelled": None,
    }
    if progress and not services.model.loaded and any(c in (BASE, TUNED) for c in choices):
        progress((0, 2), desc="loading the model (first request of this process only)")
    for i, choice in enumerate(choices):
        if progress:
            progress((i, 2), desc=f"generating side {'AB'[i]}" + ("" if blind else f" ({choice})"))
        out = services.model.generate(choice, entry, setting, rank_prior)
        side = {
            "choice": choice,
            "model": out.model,
            "raw": out.text,
            "latency_s": out.latency_s,
            "prompt_tokens": out.prompt_tokens,
            "output_tokens": out.output_tokens,
            "model_error": out.error,
            "note": out.note,
            "tool_choice": out.tool_choice,
        }
        side.update(
            judge(entry, setting, out.text) if not out.error else {"call": None, "error": "model:error", "tool_ok": None, "params_ok": None}
        )
        result = {**result, "sides": [*result["sides"], side], "done": i == len(choices) - 1}
        if result["done"]:
            services.record_sides(entry, setting, result["sides"])  # the dashboards count the app's scored answers
            if progress:
                progress((2, 2), desc="done")
        yield result


def stale_reason(result: dict | None, d: dict | None, setting: str | None) -> str | None:
    """Why ``result`` is not a comparison of the page's current entry ``d`` in ``setting`` (None
    when it is): the entry was changed or replaced (Build, the queue) or the setting switched
    since the models ran. Such a result must be neither shown under the current entry nor voted on.
    """
    if not result:
        return None
    current = entry_to_dict(entry_from_dict(d)) if d else None
    if current is None or current != result["entry"]:
        return (
            f"this comparison was made on entry {result['entry'].get('entry_id')!r}, "
            "and the page now shows another entry (or an edited one): run the comparison again"
        )
    if setting is not None and setting != result["setting"]:
        return f"this comparison was made in setting {result['setting']}, not {setting}: run it again"
    return None


def check_request_size(entry, setting: str) -> None:
    """Refuse a model request whose prompt would be unreasonably big (one visitor's request
    must not hold the shared model for minutes): query length, history turns, candidates."""
    check_text(entry.query, "the query", MAX_TEXT_CHARS)
    turns = entry.history(setting) if setting != "none" else []
    if len(turns) > MAX_TURNS:
        raise ValueError(f"the {setting} history has {len(turns)} turns; the limit per request is {MAX_TURNS}")
    if len(entry.candidates) > MAX_CANDIDATES:
        raise ValueError(f"the entry has {len(entry.candidates)} candidates; the limit per request is {MAX_CANDIDATES}")
    for i, t in enumerate(turns, 1):
        check_text(t.instruction, f"the instruction of turn #{i}", MAX_TEXT_CHARS)


def _style(services: Services) -> str:
    p = services.model._predictor
    return getattr(p, "style", None) or "paper"


def side_title(result: dict, i: int) -> str:
    side = result["sides"][i]
    label = "AB"[i]
    if result["blind"] and not result["revealed"]:
        return f"{label}: (hidden until your verdict)"
    return f"{label}: {side['model']}"


SIDE_STATES = {"running": "running…", "waiting": "waiting (runs after A)", "cancelled": "cancelled", "queued": "queued"}
"""What a side's card says before its call is there."""


def pending_card(label: str, state: str) -> str:
    """A side's card while its call is not there yet: ``state`` is a key of SIDE_STATES."""
    return (
        f'<div class="pt-call pt-pending" data-state="{esc(state)}"><h4>{esc(label)}: {esc(SIDE_STATES[state])}</h4>'
        '<p class="pt-muted">The call shows here as soon as this side is done.</p></div>'
    )


def render_result(result: dict | None) -> tuple[str, str, str]:
    """(html A, html B, markdown summary) of a comparison; with side A only (``done`` False),
    B's card says it is running."""
    if not result:
        return "", "", "*Run a comparison to see both calls here.*"
    entry = entry_from_dict(result["entry"])
    gold = entry.ground_truth.to_json() if gold_known(entry) else None
    sides = result["sides"]
    done = result.get("done", True) and len(sides) == 2
    out = []
    for i, me in enumerate(sides):
        other = sides[1 - i] if done else None
        note = ERROR_CODES.get(me["error"], "")
        if me.get("model_error"):
            note = me["model_error"]
        elif me.get("note"):
            note = f"{me['note']}; {note}" if note else me["note"]
        out.append(
            call_html(
                me["call"],
                title=side_title(result, i),
                other=None if other is None else other["call"],
                gold=gold,
                raw=me["raw"],
                error=me["error"],
                latency_s=me["latency_s"],
                note=note,
                compared=other is not None,
            )
        )
    lines = [f"Entry {md_text(entry.key)} · setting **{result['setting']}** · prompt style `{result['style']}`"]
    if not done:
        while len(out) < 2:
            out.append(pending_card("AB"[len(out)], "running" if len(out) == len(sides) else "waiting"))
        lines.append(f"Side A is done ({sides[0]['latency_s']:.1f} s); side B is running…" if sides else "Side A is running…")
        return out[0], out[1], "  \n".join(lines)
    a, b = sides
    same = a["call"] == b["call"] and a["call"] is not None
    legend = (
        "Green = matches the gold call, red = does not; ≠ marks what differs between A and B."
        if gold
        else "Yellow = differs between A and B (this entry has no gold call)."
    )
    lines.append("Both sides made **the same call**." if same else legend)
    for side_name, side in zip("AB", (a, b), strict=False):
        if side.get("note"):
            lines.append(f"Side {side_name} {md_text(side['note'])}.")
    if result.get("labelled"):
        lines.append(
            f"Saved label #{result['labelled']['id']}: **{VERDICT_LABELS[result['labelled']['verdict']]}**"
            + (f" — A was {md_text(a['model'])}, B was {md_text(b['model'])}" if result["blind"] else "")
        )
    return out[0], out[1], "  \n".join(lines)


SCORES_HIDDEN = "*Hidden in blind mode until your verdict: the scores would tell the models apart.*"


def render_scores(result: dict | None) -> str:
    """Markdown of how each side chose its tool (log-likelihood + rank prior per name), for the
    collapsed "scores" block; hidden in blind mode until the verdict."""
    if not result or not result.get("done", True):
        return ""
    if result["blind"] and not result["revealed"]:
        return SCORES_HIDDEN
    lines = []
    for side_name, side in zip("AB", result["sides"], strict=False):
        lines += tool_choice_lines(side_name, side.get("tool_choice"), (side.get("call") or {}).get("tool_name"))
    return "  \n".join(lines) or "*No scores: neither side chose its tool by log-likelihood.*"


def tool_choice_lines(side_name: str, choice: dict | None, chosen: str | None) -> list[str]:
    """Markdown lines saying how a side chose its tool: per shortlisted name, the model's
    log-likelihood plus the ranking's prior, best total first."""
    if not choice or not choice.get("scores"):
        return []
    scores, bias = choice["scores"], choice.get("bias") or {}
    total = {name: score + bias.get(name, 0.0) for name, score in scores.items()}
    lines = [f"Side {side_name} chose the tool by log-likelihood + rank prior:"]
    for name in sorted(total, key=total.get, reverse=True):
        mark = " ← chosen" if name == chosen else ""
        lines.append(f"&nbsp;&nbsp;{md_text(name)}: {scores[name]:.2f} + {bias.get(name, 0.0):.2f} = **{total[name]:.2f}**{mark}")
    return lines


def gold_text(result: dict | None, which: str) -> str:
    """JSON of call A, call B or the ground truth, as the start of a gold-call edit."""
    if not result:
        raise ValueError("Run a comparison first.")
    if which == "ground truth":
        gt = result["entry"].get("ground_truth") or {}
        if not gt.get("tool_name"):
            raise ValueError("This entry has no known gold call.")
        call = gt
    else:
        call = result["sides"]["AB".index(which)]["call"]
        if call is None:
            raise ValueError(f"Side {which} has no parsed call to start from.")
    return json.dumps(call, ensure_ascii=False, indent=1)


def parse_gold(result: dict, text: str) -> ToolCall | None:
    """The annotator's gold call (empty = none), validated against the entry's candidates."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the gold call is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(value, dict) or not isinstance(value.get("tool_name"), str):
        raise ValueError('the gold call must look like {"tool_name": "...", "parameters": {...}}')
    entry = entry_from_dict(result["entry"])
    if entry.candidate(value["tool_name"]) is None:
        raise ValueError(f"the gold call's tool {value['tool_name']!r} is not one of the candidates")
    return checked_call({}, value["tool_name"], json.dumps(value.get("parameters") or {}), entry.candidates)


def submit_label(
    services: Services,
    result: dict | None,
    verdict: str,
    annotator: str,
    tags: list[str] | None = None,
    comment: str = "",
    gold: str = "",
    current: dict | None = None,
) -> dict:
    """Append the verdict to the store; returns the result, now revealed and marked labelled.

    One vote per comparison: a labelled result is refused (run a new round instead). With the
    page's ``current`` entry given, a result made on another entry (or an earlier version) is
    refused too, so the verdict is always on the calls the annotator saw under that entry's query.
    """
    if not result:
        raise ValueError("Run a comparison first.")
    if not result.get("done", True):
        raise ValueError("the comparison is still running (or was cancelled): wait for both sides, or run it again")
    if result.get("labelled"):
        done = result["labelled"]
        raise ValueError(
            f"this comparison already has a vote (label #{done['id']}: {VERDICT_LABELS[done['verdict']]}); "
            "run a new round (r) or go to the next entry (n) to vote again"
        )
    if current is not None:
        reason = stale_reason(result, current, None)
        if reason:
            raise ValueError(reason)
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}")
    if not (annotator or "").strip():
        raise ValueError("Type your annotator name (top of the page) first.")
    unknown = [t for t in tags or [] if t not in TAGS]
    if unknown:
        raise ValueError(f"unknown reason tag(s) {unknown!r}; valid: {', '.join(TAGS)}")
    check_text(comment, "the comment", 5_000)
    gold_call = parse_gold(result, check_text(gold, "the gold call", MAX_JSON_CHARS))
    a, b = result["sides"]
    label_id = services.store.add_label(
        annotator=annotator,
        entry=entry_from_dict(result["entry"]),
        setting=result["setting"],
        prompt=result["prompt"],
        model_a=a["model"],
        model_b=b["model"],
        call_a=a["call"],
        call_b=b["call"],
        raw_a=a["raw"],
        raw_b=b["raw"],
        blind=result["blind"],
        verdict=verdict,
        tags=tags or [],
        comment=comment or "",
        gold_call=gold_call,
    )
    return {**result, "revealed": True, "labelled": {"id": label_id, "verdict": verdict}}


def make_queue(services: Services, source: str, settings: list[str], size: int, annotator: str, seed: int = 0) -> list[list]:
    """A batch of (source, key, setting) items this annotator has not labelled yet, shuffled."""
    if not settings:
        raise ValueError("Pick at least one setting for the queue.")
    if not (annotator or "").strip():
        raise ValueError("Type your annotator name (top of the page) first.")
    done = services.store.labelled_keys(annotator.strip())
    items = [[source, e.key, s] for e in services.pool(source) for s in settings if s in e.settings and (e.key, s) not in done]
    random.Random(seed).shuffle(items)
    if not items:
        raise ValueError(f"Nothing left to label in {source!r} for {annotator!r}.")
    return items[: max(1, int(size))]


def queue_entry(services: Services, queue: list[list], pos: int) -> tuple[dict | None, str, str]:
    """The entry dict and setting at ``pos``, and a progress line; (None, …) past the end."""
    if not queue or pos >= len(queue):
        return None, "p", "Queue finished." if queue else ""
    source, key, setting = queue[pos]
    entry = services.find(source, key)
    if entry is None:
        raise ValueError(f"entry {key!r} is gone from {source!r}")
    d = entry_to_dict(entry)
    if source == DEV:
        d["extra"]["split"] = "test"
    return d, setting, f"Queue item {pos + 1} of {len(queue)}: entry {md_text(key)}, setting {md_text(setting)}."


def entry_view(d: dict | None, setting: str) -> str:
    if not d:
        return "<p class='pt-muted'>No entry loaded: use the Build tab or start a queue.</p>"
    e = entry_from_dict(d)
    history = history_html(e.history(setting) if setting in e.settings else [], setting, e.preferred_tools)
    return f"<p class='pt-muted'>entry {esc(e.key)} · setting {esc(setting)}</p><p><b>Query:</b> {esc(e.query)}</p><details><summary>history and candidates</summary>{history}{candidates_html(e)}</details>"


# ---------------------------------------------------------------- layout and wiring

KEYS_HELP = "Keys (outside text boxes): **r** run · **1** A better · **2** B better · **3** tie · **4** both bad · **n** next in queue"


def build(services: Services, entry_state, annotator, session):
    """Lay out the tab and wire it; ``session`` is the page session's login State (common.with_user)."""
    import gradio as gr

    from petool.ui.common import refusable, warning, with_user

    result_state = gr.State(None)
    queue_state = gr.State([])
    pos_state = gr.State(0)
    choices = services.model.model_choices()
    gr.Markdown("Run two models on the current entry, compare their calls, and label which is better. " + KEYS_HELP)
    with gr.Row():
        setting = gr.Radio([*SETTINGS, "none"], value="p", label="setting", elem_id="c-setting")
        model_a = gr.Dropdown(choices, value=BASE, label="model A", elem_id="c-model-a")
        model_b = gr.Dropdown(choices, value=TUNED, label="model B", elem_id="c-model-b")
        blind = gr.Checkbox(value=False, label="blind (hide and shuffle the models)", elem_id="c-blind")
        rank_prior = gr.Slider(
            0,
            MAX_RANK_PRIOR,
            value=DEFAULT_RANK_PRIOR_WEIGHT,
            step=0.5,
            elem_id="c-rank-prior",
            label="ranking prior in the tool choice (0: each model chooses alone)",
        )
    entry_html = gr.HTML(entry_view(None, "p"), elem_id="c-entry")
    with gr.Row():
        run_btn = gr.Button("Run comparison", variant="primary", elem_id="c-run", scale=3)
        cancel_btn = gr.Button("Cancel", variant="stop", interactive=False, elem_id="c-cancel", scale=1)
    summary = gr.Markdown("*Run a comparison to see both calls here.*", elem_id="c-summary")
    with gr.Row(equal_height=False, elem_id="c-cards"):
        html_a = gr.HTML(elem_id="c-side-a")
        html_b = gr.HTML(elem_id="c-side-b")
    # Collapsed: the scores would push the cards below the fold (and tell the sides apart in blind mode).
    with gr.Accordion("Scores: how each side chose its tool (log-likelihood + rank prior)", open=False, elem_id="c-scores-box"):
        scores = gr.Markdown("", elem_id="c-scores")
    with gr.Row():
        btns = {
            v: gr.Button(f"{VERDICT_LABELS[v]} [{i}]", elem_id=f"verdict-{v.replace('_', '-')}", variant="secondary")
            for i, v in enumerate(VERDICTS, 1)
        }
    # The saved label, or why a verdict was refused: next to the buttons, never an error toast.
    label_msg = gr.Markdown("", elem_id="c-label-msg")
    with gr.Row():
        tags = gr.CheckboxGroup(TAGS, label="reasons (optional)", scale=3, elem_id="c-tags")
        comment = gr.Textbox(label="comment (optional)", scale=2, elem_id="c-comment")
    with gr.Accordion("Edit into a gold call (becomes the chosen side)", open=False):
        with gr.Row():
            start_from = gr.Radio(["A", "B", "ground truth"], value="A", label="start from")
            start_btn = gr.Button("Copy into the editor")
        gold = gr.Code("", language="json", label="gold call (leave empty for none)", elem_id="c-gold")
    with gr.Accordion("Queue: label a batch one entry after another", open=False):
        with gr.Row():
            q_source = gr.Dropdown(services.sources(), value=(services.sources() or [None])[0], label="entries from")
            q_settings = gr.CheckboxGroup(list(SETTINGS), value=["r"], label="settings")
            q_size = gr.Number(10, precision=0, minimum=1, maximum=500, label="batch size", elem_id="q-size")
            q_auto = gr.Checkbox(True, label="run the models automatically")
        with gr.Row():
            q_start = gr.Button("Start queue", elem_id="q-start")
            q_next = gr.Button("Skip / next [n]", elem_id="q-next")
        q_status = gr.Markdown("", elem_id="q-status")

    no_result = (None, *render_result(None), "")  # result_state, html_a, html_b, summary, scores
    shown = [result_state, html_a, html_b, summary, scores]

    def rendered(result):
        return (result, *render_result(result), render_scores(result))

    def drop_stale(result, d, s):
        """Clear the cards when they show a comparison of another entry or setting than the
        header's; a fresh result (or none) is left alone, so this may run in any order with a run."""
        if stale_reason(result, d, s) is None:
            return (gr.update(),) * len(shown)
        return no_result

    def on_entry(d, s):
        return entry_view(d, s)

    for changed in (entry_state.change, setting.change):
        changed(on_entry, [entry_state, setting], entry_html, api_visibility="private")
        changed(drop_stale, [result_state, entry_state, setting], shown, api_visibility="private", queue=False)

    def on_run(d, s, a, b, bl, w=DEFAULT_RANK_PRIOR_WEIGHT, progress=gr.Progress()):
        """Each side's card as soon as it is done: B's card says "running" meanwhile. The
        partial record never enters ``result_state`` (nothing half-done can be voted on)."""
        yield (None, pending_card("A", "running"), pending_card("B", "waiting"), "Side A is running…", "")
        try:
            for result in iter_compare(services, d, s, a, b, bl, None, progress, w):
                yield (result if result["done"] else None, *render_result(result), "")
        except ValueError as exc:
            yield (None, "", "", warning(exc), gr.update())

    run_outs = [result_state, html_a, html_b, summary, gold]
    run_inputs = [entry_state, setting, model_a, model_b, blind, rank_prior]
    controls = [run_btn, cancel_btn, *btns.values(), q_start, q_next]

    def busy(running: bool):
        """While a comparison runs only Cancel is live: no second run, no vote on the old cards."""
        return (
            gr.update(interactive=not running),
            gr.update(interactive=running),
            *(gr.update(interactive=not running) for _ in btns),
            gr.update(interactive=not running),
            gr.update(interactive=not running),
        )

    def after_run(result, d, s):  # also after a queue step that ran nothing: unlocking is harmless
        # The entry may change while the models run (Build, the queue): check again when they are done.
        shown_now = no_result if stale_reason(result, d, s) else (gr.update(),) * 4 + (render_scores(result),)
        return (*shown_now, *busy(False))

    def on_cancel(result):
        if result and result.get("done", True):
            return (gr.update(),) * 3 + (gr.update(),) + busy(False)
        return (
            None,
            gr.update(),
            pending_card("B", "cancelled"),
            "Cancelled: nothing to vote on. A model call already under way finishes in the background.",
            *busy(False),
        )

    def new_round():  # no verdict, no scores yet; only Cancel live
        return ("", "", *busy(True))

    start_evt = run_btn.click(new_round, None, [label_msg, scores, *controls], api_visibility="private", queue=False)
    run_evt = start_evt.then(
        on_run, run_inputs, run_outs, concurrency_limit=1, concurrency_id="model", api_name="compare", show_progress_on=[summary]
    )
    run_evt.then(after_run, [result_state, entry_state, setting], [*shown, *controls], api_visibility="private", queue=False)
    cancellable = [run_evt]

    def run_after(event):
        """Run the comparison after ``event`` (the page's "start here"), as "Run comparison" does."""
        evt = event.then(new_round, None, [label_msg, scores, *controls], api_visibility="private", queue=False).then(
            on_run, run_inputs, run_outs, concurrency_limit=1, concurrency_id="model", api_visibility="private", show_progress_on=[summary]
        )
        cancellable.append(evt)
        evt.then(after_run, [result_state, entry_state, setting], [*shown, *controls], api_visibility="private", queue=False)

    def on_verdict(verdict):
        def run(user, result, who, t, c, g, d, queue, pos):
            try:
                annotator = acting_user(services.config, who, user, "label")
                new = submit_label(services, result, verdict, annotator, t, c, g, current=d)
            except ValueError as exc:
                raise ValueError(f"Not saved: {exc}") from None
            done = new["labelled"]
            saved = f"Saved label #{done['id']}: **{VERDICT_LABELS[verdict]}**" + (
                f" — A was {md_text(new['sides'][0]['model'])}, B was {md_text(new['sides'][1]['model'])}" if new["blind"] else ""
            )
            if not queue or pos >= len(queue):
                return (*rendered(new), [], "", "", saved, gr.update(), gr.update(), pos, gr.update(), False, gr.update())
            # The queue moves on: the cards of the labelled entry go (they would sit under the
            # next entry's query), and the next comparison runs if the queue runs automatically.
            d_next, s_next, msg = queue_entry(services, queue, pos + 1)
            if d_next is None:
                return (*rendered(new), [], "", "", saved, gr.update(), gr.update(), pos + 1, msg, False, gr.update())
            # The header is an output too: a State set by an event that skips the queue fires no .change.
            return (*no_result, [], "", "", saved, d_next, s_next, pos + 1, msg, True, entry_view(d_next, s_next))

        return with_user(run, 8, refusal=(len(verdict_outs), verdict_outs.index(label_msg)))

    def run_next(go, queue, pos, auto, d, s, a, b, bl, w, progress=gr.Progress()):
        if not go:
            yield (gr.update(),) * len(run_outs)
            return
        yield from maybe_run(queue, pos, auto, d, s, a, b, bl, w, progress)

    def maybe_run(queue, pos, auto, d, s, a, b, bl, w, progress=gr.Progress()):
        if not (queue and auto and pos < len(queue) and d):
            yield (gr.update(),) * len(run_outs)
            return
        yield from on_run(d, s, a, b, bl, w, progress)

    # Verdicts skip the queue (queue=False): a label is a quick write, and must neither wait
    # behind model calls nor be refused as "queue full" while visitors wait for the model.
    # The browser then posts them straight to /gradio_api/run/label_*; gradio_client always
    # goes through the queue (see docs/app.md, "Access control and limits").
    advanced = gr.State(False)  # did the latest verdict move the queue on (then run the next entry)?
    verdict_outs = [*shown, tags, comment, gold, label_msg, entry_state, setting, pos_state, q_status, advanced, entry_html]
    queue_inputs = [queue_state, pos_state, q_auto, entry_state, setting, model_a, model_b, blind, rank_prior]

    def then_run(event, fn, inputs, runs):
        """After ``event``, the queue's next comparison (when it runs automatically), cancellable;
        the controls wait only when the component ``runs`` says a comparison follows (a plain
        vote must leave the keys live, or a second vote would vanish instead of being refused)."""
        evt = event.then(
            lambda go: busy(True) if go else (gr.update(),) * len(controls), runs, controls, api_visibility="private", queue=False
        )
        evt = evt.then(
            fn, inputs, run_outs, concurrency_limit=1, concurrency_id="model", api_visibility="private", show_progress_on=[summary]
        )
        cancellable.append(evt)
        evt.then(after_run, [result_state, entry_state, setting], [*shown, *controls], api_visibility="private", queue=False)

    for v, btn in btns.items():
        then_run(
            btn.click(
                on_verdict(v),
                [result_state, annotator, tags, comment, gold, entry_state, queue_state, pos_state, session],
                verdict_outs,
                api_name=f"label_{v}",
                queue=False,
            ),
            run_next,
            [advanced, *queue_inputs],
            advanced,
        )

    start_btn.click(refusable(gold_text, 1, 0), [result_state, start_from], gold, api_visibility="private")

    def on_queue(user, src, sets, n, who):
        queue = make_queue(services, src, sets, n, acting_user(services.config, who, user, "label"))
        d, s, msg = queue_entry(services, queue, 0)
        return queue, 0, d, s, msg, *no_result

    def on_skip(queue, pos):
        if not queue:
            raise ValueError("Start a queue first.")
        d, s, msg = queue_entry(services, queue, pos + 1)
        if d is None:
            return pos + 1, gr.update(), gr.update(), msg, *(gr.update(),) * len(shown)
        return pos + 1, d, s, msg, *no_result

    queue_outs = [queue_state, pos_state, entry_state, setting, q_status, *shown]
    then_run(
        q_start.click(
            with_user(on_queue, 4, refusal=(len(queue_outs), queue_outs.index(q_status))),
            [q_source, q_settings, q_size, annotator, session],
            queue_outs,
            api_name="start_queue",
        ),
        maybe_run,
        queue_inputs,
        q_auto,
    )
    skip_outs = [pos_state, entry_state, setting, q_status, *shown]
    then_run(
        q_next.click(
            refusable(on_skip, len(skip_outs), skip_outs.index(q_status)), [queue_state, pos_state], skip_outs, api_visibility="private"
        ),
        maybe_run,
        queue_inputs,
        q_auto,
    )
    q_source.focus(lambda: gr.update(choices=services.sources()), None, q_source, api_visibility="private")
    # Adapters trained in the app (finished DPO jobs) join the choices as soon as their job ends.
    for dropdown in (model_a, model_b):
        dropdown.focus(lambda: gr.update(choices=services.model.model_choices()), None, dropdown, api_visibility="private", queue=False)

    def wire_cancel():
        """Call once every run event exists: Cancel stops whichever is under way."""
        cancel_btn.click(on_cancel, result_state, [*shown[:4], *controls], cancels=cancellable, api_visibility="private", queue=False)

    return {"setting": setting, "run_after": run_after, "wire_cancel": wire_cancel}
