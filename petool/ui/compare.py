"""Tab "Compare & label": two models side by side on the current entry, a verdict, a queue.

Model A / B are the base model and PEToolLLaMA (the same base in memory, adapter toggled) or a
rule baseline. Blind mode shuffles the sides and hides the names until the verdict is in.
"""

from petool.label_rules import VERDICTS
from petool.models import DEFAULT_RANK_PRIOR_WEIGHT
from petool.schema import SETTINGS, entry_from_dict
from petool.scoring import ERROR_CODES
from petool.ui.common import acting_user, refusable, warning, with_user
from petool.ui.comparison import (
    CHOICE_MODES,
    FUSED_CHOICE,
    OWN_CHOICE,
    TAGS,
    VERDICT_LABELS,
    choice_mode_text,
    choice_rank_prior,
    gold_text,
    iter_compare,
    make_queue,
    queue_entry,
    stale_reason,
    submit_label,
)
from petool.ui.render import call_html, candidates_html, esc, gold_known, history_html, md_text
from petool.ui.services import BASE, MAX_RANK_PRIOR, TUNED, Services

# ---------------------------------------------------------------- rendering


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
    lines = [
        f"Entry {md_text(entry.key)} · setting **{result['setting']}** · prompt style `{result['style']}` · "
        f"tool choice: {choice_mode_text(result)}"
    ]
    if not done:
        while len(out) < 2:
            out.append(pending_card("AB"[len(out)], "running" if len(out) == len(sides) else "waiting"))
        lines.append(f"Side A is done ({sides[0]['latency_s'] or 0:.1f} s); side B is running…" if sides else "Side A is running…")
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
    with gr.Row():
        # The default shows each model's own choice: with the ranking's prior in, both sides
        # mostly repeat the ranking's first candidate and a vote says little about either model.
        choice_mode = gr.Radio(
            list(CHOICE_MODES.values()),
            value=OWN_CHOICE,
            label="how the models choose their tool",
            info="own choice: each model alone, which is what a vote compares; fused: the model's scores plus the ranking's prior, as petool eval chooses",
            elem_id="c-choice-mode",
        )
        rank_prior = gr.Slider(
            0,
            MAX_RANK_PRIOR,
            value=DEFAULT_RANK_PRIOR_WEIGHT,
            step=0.5,
            interactive=False,
            elem_id="c-rank-prior",
            label="the ranking prior's weight (fused mode)",
        )
    choice_mode.change(lambda m: gr.update(interactive=m == FUSED_CHOICE), choice_mode, rank_prior, api_visibility="private", queue=False)
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

    def on_run(d, s, a, b, bl, w=DEFAULT_RANK_PRIOR_WEIGHT, mode=OWN_CHOICE, progress=gr.Progress()):
        """Each side's card as soon as it is done: B's card says "running" meanwhile. The
        partial record never enters ``result_state`` (nothing half-done can be voted on)."""
        yield (None, pending_card("A", "running"), pending_card("B", "waiting"), "Side A is running…", "")
        try:
            for result in iter_compare(services, d, s, a, b, bl, None, progress, choice_rank_prior(mode, w)):
                yield (result if result["done"] else None, *render_result(result), "")
        except ValueError as exc:
            yield (None, "", "", warning(exc), gr.update())

    run_outs = [result_state, html_a, html_b, summary, gold]
    run_inputs = [entry_state, setting, model_a, model_b, blind, rank_prior, choice_mode]
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

    def run_next(go, queue, pos, auto, d, s, a, b, bl, w, mode, progress=gr.Progress()):
        if not go:
            yield (gr.update(),) * len(run_outs)
            return
        yield from maybe_run(queue, pos, auto, d, s, a, b, bl, w, mode, progress)

    def maybe_run(queue, pos, auto, d, s, a, b, bl, w, mode, progress=gr.Progress()):
        if not (queue and auto and pos < len(queue) and d):
            yield (gr.update(),) * len(run_outs)
            return
        yield from on_run(d, s, a, b, bl, w, mode, progress)

    # Verdicts skip the queue (queue=False): a label is a quick write, and must neither wait
    # behind model calls nor be refused as "queue full" while visitors wait for the model.
    # The browser then posts them straight to /gradio_api/run/label_*; gradio_client always
    # goes through the queue (see docs/app.md, "Access control and limits").
    advanced = gr.State(False)  # did the latest verdict move the queue on (then run the next entry)?
    verdict_outs = [*shown, tags, comment, gold, label_msg, entry_state, setting, pos_state, q_status, advanced, entry_html]
    queue_inputs = [queue_state, pos_state, q_auto, entry_state, setting, model_a, model_b, blind, rank_prior, choice_mode]

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
