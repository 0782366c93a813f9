"""Tab "Build": pick or create a user, edit the history per setting, the query, the candidates.

The layout and its event wiring; the handlers it calls, which take and return the entry as a
plain dict and run without gradio, are in ``petool.ui.entry_edits``.
"""

import json

from petool.models import DEFAULT_STYLE
from petool.prompts import STYLES
from petool.schema import ALL_SETTINGS, SETTINGS
from petool.ui.common import refusable, require_user, warning, with_user
from petool.ui.entry_edits import (
    CANDIDATE_HEADERS,
    TURN_HEADERS,
    add_candidate,
    add_turn,
    candidate_rows,
    create_user,
    delete_turn,
    derive_settings,
    entry_choices,
    example_params,
    load_entry,
    move_turn,
    preview_prompt,
    profiles,
    rate_turn,
    remove_candidate,
    save_entry,
    set_gold,
    set_query,
    suggest_candidates,
    summary,
    turn_rows,
    update_turn,
)
from petool.ui.render import esc
from petool.ui.services import Services

# ---------------------------------------------------------------- layout and wiring


def build(services: Services, entry_state, annotator, session):
    """Lay out the tab and wire it; ``entry_state`` is the shared gr.State of the current entry,
    ``session`` the page session's login State (common.with_user)."""
    import gradio as gr

    catalog_names = list(services.catalog())
    sources = services.sources()
    gr.Markdown(
        "Build a user's tool-use history, or start from a benchmark entry. Edit each setting's history "
        "(**p** preferred only, **r** with ratings, **c** chronological), type a query, get candidates, "
        "and preview the exact prompt. Everything can be saved and reloaded."
    )
    with gr.Row():
        with gr.Column(scale=1):
            with gr.Accordion("Load an entry", open=True):
                source = gr.Dropdown(sources, value=sources[0] if sources else None, label="source", elem_id="b-source")
                first = entry_choices(services, sources[0]) if sources else []
                key = gr.Dropdown(
                    first, value=first[0][1] if first else None, label="entry", filterable=True, allow_custom_value=True, elem_id="b-entry"
                )
                load_btn = gr.Button("Load entry", elem_id="b-load")
            with gr.Accordion("New user", open=False):
                profs = profiles()
                user_name = gr.Textbox(label="user name", elem_id="b-user")
                profile = gr.Dropdown(list(profs), value=next(iter(profs)), label="preference profile")
                profile_help = gr.Markdown(esc(next(iter(profs.values()))))
                create_btn = gr.Button("Create user and start an empty history", elem_id="b-create")
        with gr.Column(scale=2):
            info = gr.Markdown(summary({}), elem_id="b-summary")
            status = gr.Markdown("")
    setting = gr.Radio(list(SETTINGS), value="p", label="history setting being edited", elem_id="b-setting")
    turns = gr.Dataframe(
        headers=TURN_HEADERS,
        value=[],
        label="history (click a row to select it)",
        interactive=False,
        wrap=True,
        column_widths=["5%", "38%", "30%", "20%", "7%"],
        max_height=360,
        elem_id="b-turns",
    )
    with gr.Row():
        turn_index = gr.Number(label="selected turn #", precision=0, value=None, minimum=1, scale=1, elem_id="b-turn-index")
        tool = gr.Dropdown(catalog_names, value=None, label="tool (from the catalog)", filterable=True, scale=3, elem_id="b-tool")
        rating = gr.Radio(["1", "0"], value=None, label="rating (r only)", scale=1)
    with gr.Row():
        instruction = gr.Textbox(label="instruction", scale=3, elem_id="b-instruction")
        params = gr.Code("{}", language="json", label="parameters (JSON, checked against the tool's schema)", scale=2, elem_id="b-params")
    with gr.Row():
        add_btn = gr.Button("Add turn", variant="primary", elem_id="b-add")
        upd_btn = gr.Button("Update turn")
        del_btn = gr.Button("Delete turn")
        up_btn = gr.Button("Move up")
        down_btn = gr.Button("Move down")
        rate_btn = gr.Button("Set rating")
        derive_btn = gr.Button("Derive the other settings from this one")
    # What the latest turn edit did, or why it was refused: next to the buttons, never a toast.
    turn_msg = gr.Markdown("", elem_id="b-turn-msg")
    gr.Markdown("### Query and candidates")
    with gr.Row():
        query = gr.Textbox(label="query (the new instruction)", scale=4, elem_id="b-query")
        suggest_btn = gr.Button("Get candidates", scale=1, elem_id="b-suggest")
    query_msg = gr.Markdown("", elem_id="b-query-msg")
    cands = gr.Dataframe(
        headers=CANDIDATE_HEADERS,
        value=[],
        label="candidates (★ = expected call)",
        interactive=False,
        wrap=True,
        column_widths=["5%", "35%", "34%", "13%", "13%"],
        elem_id="b-cands",
    )
    with gr.Row():
        cand_tool = gr.Dropdown(catalog_names, value=None, label="candidate tool", filterable=True, scale=3, elem_id="b-cand-tool")
        cand_add = gr.Button("Add candidate", scale=1)
        cand_del = gr.Button("Remove candidate", scale=1)
    with gr.Row():
        gold_params = gr.Code("{}", language="json", label="expected call's parameters (optional gold)", scale=3)
        gold_btn = gr.Button("Set as expected call", scale=1, elem_id="b-gold-set")
    cand_msg = gr.Markdown("", elem_id="b-cand-msg")
    with gr.Accordion("Prompt preview", open=False):
        with gr.Row():
            pv_setting = gr.Radio(list(ALL_SETTINGS), value="p", label="setting", elem_id="b-pv-setting")
            # Default to what the app's models read; "paper" shows the authors' exact prompt.
            pv_style = gr.Radio(list(STYLES), value=DEFAULT_STYLE["petool"], label="prompt style", elem_id="b-style")
            pv_btn = gr.Button("Preview", elem_id="b-preview")
        pv_system = gr.Code(label="system message (exact text)", language=None, elem_id="b-prompt")
        pv_user = gr.Textbox(label="user message", lines=1)
        pv_msg = gr.Markdown("", elem_id="b-preview-msg")
    save_btn = gr.Button("Save entry", variant="primary", elem_id="b-save")
    save_msg = gr.Markdown("", elem_id="b-save-msg")

    views = [info, turns, cands]

    def show(d, s):
        return summary(d), turn_rows(d, s), candidate_rows(d)

    def on_source(src):
        choices = entry_choices(services, src)
        return gr.update(choices=choices, value=choices[0][1] if choices else None)

    source.change(on_source, source, key, api_visibility="private")
    source.focus(lambda: gr.update(choices=services.sources()), None, source, api_visibility="private")

    def on_load(src, k, s):
        d, msg = load_entry(services, src, k)
        return (d, msg, *show(d, s), d.get("query", "") if d else "")

    load_outs = [entry_state, status, *views, query]
    load_btn.click(refusable(on_load, len(load_outs), 1), [source, key, setting], load_outs, api_name="load_entry")
    profile.change(lambda p: esc(profiles().get(p, "")), profile, profile_help, api_visibility="private")

    def on_create(user, name, prof, s):
        d, msg = create_user(services, name, prof, persist=bool(user) or not services.config.access_control)
        return (d, msg, *show(d, s), "")

    create_btn.click(
        with_user(on_create, 3, refusal=(len(load_outs), 1)), [user_name, profile, setting, session], load_outs, api_name="create_user"
    )
    setting.change(lambda d, s: turn_rows(d, s), [entry_state, setting], turns, api_visibility="private")

    def on_select(d, s, evt: gr.SelectData):
        row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        t = (d.get("histories") or {}).get(s, [])[row]
        return (
            row + 1,
            t["tool_call"]["tool_name"],
            t["instruction"],
            json.dumps(t["tool_call"]["parameters"], ensure_ascii=False),
            None if t.get("rating") is None else str(t["rating"]),
        )

    turns.select(on_select, [entry_state, setting], [turn_index, tool, instruction, params, rating], api_visibility="private")
    # Only a tool the user picks starts the example parameters (.input): selecting a row sets the
    # dropdown too, and .change would then overwrite the row's parameters with the example.
    tool.input(lambda name: example_params(services.catalog().get(name)), tool, params, api_visibility="private")

    outs = [entry_state, turn_msg, *views]

    def edit(fn):
        def run(d, s, *args):
            new, msg = fn(d, s, *args)
            return (new, msg, *show(new, s))

        return refusable(run, len(outs), 1)

    def _add(d, s, name, ins, p, r):
        return add_turn(services, d, s, name, ins, p, r), "Turn added."

    def _upd(d, s, i, name, ins, p, r):
        return update_turn(services, d, s, i, name, ins, p, r), f"Turn #{int(i)} updated."

    def _del(d, s, i):
        return delete_turn(d, s, i), f"Turn #{int(i)} deleted."

    def _rate(d, s, i, r):
        return rate_turn(d, s, i, r), f"Turn #{int(i)} rated {r}."

    add_btn.click(edit(_add), [entry_state, setting, tool, instruction, params, rating], outs, api_name="add_turn")
    upd_btn.click(edit(_upd), [entry_state, setting, turn_index, tool, instruction, params, rating], outs, api_visibility="private")
    del_btn.click(edit(_del), [entry_state, setting, turn_index], outs, api_visibility="private")
    rate_btn.click(edit(_rate), [entry_state, setting, turn_index, rating], outs, api_visibility="private")
    derive_btn.click(edit(lambda d, s: derive_settings(d, s)), [entry_state, setting], outs, api_visibility="private")

    def mover(delta):
        def run(d, s, i):
            try:
                new, j = move_turn(d, s, i, delta)
            except ValueError as exc:
                return (d, warning(exc), *show(d, s), i)
            return (new, f"Turn moved to #{j}.", *show(new, s), j)

        return run

    up_btn.click(mover(-1), [entry_state, setting, turn_index], [*outs, turn_index], api_visibility="private")
    down_btn.click(mover(1), [entry_state, setting, turn_index], [*outs, turn_index], api_visibility="private")

    def on_suggest(d, s, q):
        new, msg = suggest_candidates(services, d, q)
        return (new, msg, *show(new, s))

    query_outs = [entry_state, query_msg, *views]
    suggest_btn.click(refusable(on_suggest, len(query_outs), 1), [entry_state, setting, query], query_outs, api_name="suggest_candidates")
    query.blur(lambda d, q: set_query(d, q), [entry_state, query], entry_state, api_visibility="private")

    cand_outs = [entry_state, cand_msg, *views]

    def cand_edit(fn, msg):
        def run(d, s, name):
            new = fn(d, name)
            return (new, msg, *show(new, s))

        return refusable(run, len(cand_outs), 1)

    cand_add.click(
        cand_edit(lambda d, n: add_candidate(services, d, n), "Candidate added."),
        [entry_state, setting, cand_tool],
        cand_outs,
        api_visibility="private",
    )
    cand_del.click(
        cand_edit(remove_candidate, "Candidate removed."), [entry_state, setting, cand_tool], cand_outs, api_visibility="private"
    )

    def on_gold(d, s, name, p):
        new = set_gold(services, d, name, p)
        return (new, "Expected call set.", *show(new, s))

    gold_btn.click(
        refusable(on_gold, len(cand_outs), 1), [entry_state, setting, cand_tool, gold_params], cand_outs, api_visibility="private"
    )
    cand_tool.input(lambda name: example_params(services.catalog().get(name)), cand_tool, gold_params, api_visibility="private")

    def on_preview(d, q, s, style):
        return (*preview_prompt(set_query(d, q), s, style), "")

    pv_inputs, pv_outs = [entry_state, query, pv_setting, pv_style], [pv_system, pv_user, pv_msg]
    pv_btn.click(refusable(on_preview, 3, 2), pv_inputs, pv_outs, api_name="preview_prompt")
    # A preview shown must match its setting and style: switching either redraws it.
    for changed in (pv_setting.change, pv_style.change):
        changed(refusable(on_preview, 3, 2), pv_inputs, pv_outs, api_visibility="private", queue=False)

    def on_save(user, d, q, who):
        require_user(services.config, user, "save entries")
        d = set_query(d, q)
        owner = (d.get("extra") or {}).get("user")  # a name for app-made users; a profile dict in generated entries
        if isinstance(owner, dict):
            owner = owner.get("user_id")
        return d, save_entry(services, d, (owner if isinstance(owner, str) else None) or user or who)

    save_btn.click(
        with_user(on_save, 3, refusal=(2, 1)), [entry_state, query, annotator, session], [entry_state, save_msg], api_name="save_entry"
    )
    return {"refresh": lambda d, s="p": show(d, s), "views": views, "setting": setting, "query": query}
