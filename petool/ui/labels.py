"""Section "My labels" (tab Pairs & training): each of the annotator's labels with what became of
it (a DPO pair, or the exact reason it is not one), undo and edit of one's own labels, and the
label counts of every annotator.

The statuses come from ``pairs.explain_labels``, the same pass that builds the pairs, so the
list and the pairs never disagree. Undo and edit go through ``Store.withdraw_label``, which checks
on the server that the label belongs to the acting annotator.
"""

from petool.label_rules import VERDICTS
from petool.pairs import LabelStatus, PairPolicy, explain_labels, pair_accounting
from petool.ui.common import acting_user, warning, with_user
from petool.ui.render import md_text
from petool.ui.services import Services

LABEL_HEADERS = ["label", "created", "entry", "setting", "model A", "model B", "verdict", "status"]
ANNOTATOR_HEADERS = ["annotator", "labels", "become pairs", "pairs", "not pairs"]
VERDICT_NAMES = {"A": "A better", "B": "B better", "tie": "tie", "both_bad": "both bad"}
DEFAULT_POLICY = PairPolicy()
REASON_NAMES = {
    "undone": "undone",
    "edited": "edited",
    "test": "test data",
    "replaced": "replaced by a later vote",
    "tie": "ties",
    "both_bad_no_gold": "both bad without a gold call",
    "both_bad_skipped": "both bad (skipped by the policy)",
    "unparsed_winner": "winner did not parse",
    "identical": "identical calls",
    "nothing_rejected": "nothing to reject",
    "duplicate": "duplicates of another label's pair",
    "conflict": "conflicting votes dropped by the policy",
}
"""Short names of the REASONS codes for the counts line (one per code: a test checks)."""


def statuses(services: Services, policy: PairPolicy) -> tuple[list[dict], dict[int, LabelStatus]]:
    """(every label, its status under ``policy``), derived once per label revision and policy."""
    store = services.store
    labels = store.current_labels()
    return labels, store.memo(("label statuses", policy), store.labels_stamp(), lambda: explain_labels(labels, policy)[1])


def accounting_line(status: dict[int, LabelStatus]) -> str:
    """Markdown: n labels = labels that become pairs + one count per reason (every label once)."""
    counts = pair_accounting(status)
    line = (
        f"{counts['labels']} label{'s' if counts['labels'] != 1 else ''} → **{counts['pairs']} DPO "
        f"pair{'s' if counts['pairs'] != 1 else ''}** from {counts['with_pairs']} of them"
    )
    if counts["reasons"]:
        line += "; not pairs: " + ", ".join(f"{n} {REASON_NAMES[code]}" for code, n in counts["reasons"].items())
    return line + "."


def my_labels(services: Services, annotator: str, policy: PairPolicy = DEFAULT_POLICY) -> tuple[list[list], str]:
    """(table rows, newest first, and a counts line) of ``annotator``'s labels with their status."""
    labels, status = statuses(services, policy)
    mine = [lab for lab in labels if lab.get("annotator") == annotator]
    rows = []
    for lab in reversed(mine):
        st = status[lab["id"]]
        rows.append(
            [
                lab["id"],
                lab.get("created") or "",
                lab.get("entry_key") or "",
                lab.get("setting") or "",
                lab.get("model_a") or "",
                lab.get("model_b") or "",
                VERDICT_NAMES.get(lab.get("verdict"), lab.get("verdict")),
                st.text,
            ]
        )
    if not mine:
        return [], f"No labels by {md_text(annotator)} yet: label a comparison in Compare & label."
    return rows, f"Your labels ({md_text(annotator)}): " + accounting_line({lab["id"]: status[lab["id"]] for lab in mine})


def annotator_counts(services: Services, policy: PairPolicy = DEFAULT_POLICY) -> list[list]:
    """One row per annotator: labels, how many become pairs, the pairs, the rest."""
    labels, status = statuses(services, policy)
    by: dict[str, dict[int, LabelStatus]] = {}
    for lab in labels:
        by.setdefault(lab.get("annotator") or "?", {})[lab["id"]] = status[lab["id"]]
    rows = []
    for name in sorted(by):
        c = pair_accounting(by[name])
        rows.append([name, c["labels"], c["with_pairs"], c["pairs"], c["labels"] - c["with_pairs"]])
    return rows


def label_number(value) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("Pick one of your labels first (click its row, or type its number).") from None
    if number < 1:
        raise ValueError("Pick one of your labels first (click its row, or type its number).")
    return number


def undo_label(services: Services, annotator: str, label_id) -> str:
    """Withdraw ``annotator``'s own label (refused for anyone else's)."""
    number = label_number(label_id)
    services.store.withdraw_label(number, annotator)
    return f"Label #{number} undone: it no longer counts (the record stays, marked undone)."


def edit_label(services: Services, annotator: str, label_id, verdict: str) -> str:
    """Change the verdict of ``annotator``'s own label: a copy with the new verdict replaces it."""
    number = label_number(label_id)
    if verdict not in VERDICTS:
        raise ValueError(f"Choose the new verdict ({', '.join(VERDICT_NAMES.values())}).")
    new = services.store.withdraw_label(number, annotator, {"verdict": verdict})
    return f"Label #{number} edited: label #{new} now says **{VERDICT_NAMES[verdict]}**."


# ---------------------------------------------------------------- layout and wiring


def build(services: Services, annotator, session, policy_inputs: list):
    """Lay out the section; ``policy_inputs`` are the Pairs tab's (both_bad, conflicts) radios,
    so the statuses follow the policy the pairs table shows."""
    import gradio as gr

    gr.Markdown(
        "### My labels\nEvery label you gave, and what became of it: a DPO pair, or why not. "
        "Pick a row to undo it or change its verdict (only your own labels)."
    )
    with gr.Row():
        refresh = gr.Button("Show my labels", elem_id="l-refresh", scale=0, min_width=160)
        counts = gr.Markdown("", elem_id="l-counts")
    table = gr.Dataframe(headers=LABEL_HEADERS, value=[], interactive=False, wrap=True, elem_id="l-table")
    with gr.Row(equal_height=True):
        number = gr.Number(None, precision=0, minimum=1, label="label #", elem_id="l-id", scale=1)
        verdict = gr.Radio([(VERDICT_NAMES[v], v) for v in VERDICTS], value=None, label="new verdict", elem_id="l-verdict", scale=3)
        edit_btn = gr.Button("Change verdict", elem_id="l-edit", scale=1)
        undo_btn = gr.Button("Undo label", variant="stop", elem_id="l-undo", scale=1)
    message = gr.Markdown("", elem_id="l-msg")
    with gr.Accordion("Labels per annotator", open=False):
        per_annotator = gr.Dataframe(headers=ANNOTATOR_HEADERS, value=[], interactive=False, elem_id="l-annotators")

    outputs = [table, counts, per_annotator]

    def view(user, who, both_bad, conflicts):
        policy = PairPolicy(both_bad=both_bad, conflicts=conflicts)
        name = acting_user(services.config, who, user, "see your labels")
        rows, line = my_labels(services, name, policy)
        return rows, line, annotator_counts(services, policy)

    def shown(user, who, both_bad, conflicts):
        try:
            return view(user, who, both_bad, conflicts)
        except ValueError as exc:
            policy = PairPolicy(both_bad=both_bad, conflicts=conflicts)
            return [], warning(exc), annotator_counts(services, policy)

    inputs = [annotator, *policy_inputs]
    refresh.click(with_user(shown, 3), [*inputs, session], outputs, api_name="my_labels")

    def act(action):
        def run(user, who, both_bad, conflicts, label_id, new_verdict):
            name = acting_user(services.config, who, user, "undo or edit labels")
            msg = undo_label(services, name, label_id) if action == "undo" else edit_label(services, name, label_id, new_verdict)
            return (msg, *view(user, who, both_bad, conflicts), None, None)

        return run

    act_outputs = [message, *outputs, number, verdict]
    for btn, action in ((undo_btn, "undo"), (edit_btn, "edit")):
        btn.click(
            with_user(act(action), 5, refusal=(len(act_outputs), 0)),
            [*inputs, number, verdict, session],
            act_outputs,
            api_name=f"{action}_label",
            queue=False,
        )

    def pick(evt: gr.SelectData):
        row = evt.row_value or []
        return row[0] if row else gr.update()

    table.select(pick, None, number, api_visibility="private", queue=False)
    return {"refresh": shown, "inputs": inputs, "outputs": outputs, "policy": policy_inputs}
