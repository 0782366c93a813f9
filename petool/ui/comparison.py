"""A comparison round without gradio: both models run on the entry and are judged, one vote is
stored per comparison, and the labelling queue hands out the entries. Tab "Compare & label"
(compare.py) lays this out and wires it.
"""

import json
import random
import uuid
from collections.abc import Callable

from petool.evaluate import record_for
from petool.label_rules import VERDICTS
from petool.models import DEFAULT_RANK_PRIOR_WEIGHT
from petool.prompts import render_system_prompt
from petool.schema import Prediction, ToolCall, entry_from_dict, entry_to_dict
from petool.ui.common import MAX_CANDIDATES, MAX_JSON_CHARS, MAX_TEXT_CHARS, MAX_TURNS, check_text
from petool.ui.entry_edits import checked_call
from petool.ui.render import md_text
from petool.ui.services import BASELINE_CHOICES, DEV, Services

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


OWN_CHOICE = "Each model's own choice"
FUSED_CHOICE = "Model + ranking (fused)"
CHOICE_MODES = {"own": OWN_CHOICE, "fused": FUSED_CHOICE}
"""How the language-model sides choose their tool, as the Compare tab names it. ``own``: the
model alone (ranking prior 0), the app's default, so that a vote compares the models; ``fused``:
the model's scores plus the ranking's prior at a weight (``petool eval``'s default mode)."""


def choice_rank_prior(mode: str, weight: float | None = None) -> float:
    """The ranking prior's weight a comparison in ``mode`` (a value or a name of CHOICE_MODES)
    passes to the models: 0 for each model's own choice, else ``weight`` (None: the default)."""
    key = next((k for k, name in CHOICE_MODES.items() if mode in (k, name)), None)
    if key is None:
        raise ValueError(f"unknown tool-choice mode {mode!r}; valid: {', '.join(CHOICE_MODES.values())}")
    if key == "own":
        return 0.0
    return DEFAULT_RANK_PRIOR_WEIGHT if weight is None else float(weight)


def choice_mode_text(result: dict) -> str:
    """How the comparison's models chose their tool, in words (with the weight when fused)."""
    if result.get("choice_mode") == "own":
        return f"{OWN_CHOICE.lower()} (ranking prior 0)"
    return f"model + ranking prior (fused, weight {result.get('rank_prior', DEFAULT_RANK_PRIOR_WEIGHT):g})"


SIDE_FIELDS = ("choice", "model_error", "note")
"""What a comparison side holds beside its ``Prediction`` (``comparison_side``)."""


def comparison_side(choice: str, prediction: Prediction, model_error: str = "", note: str = "") -> dict:
    """A comparison side: the ``Prediction`` of the answer (``to_json``), plus what the
    comparison adds: the ``choice`` it was asked as (BASE, TUNED, a baseline...), the failure's
    text (``model_error``) and a ``note`` shown beside the call. ``Prediction.from_json`` of a
    side gives the prediction back."""
    return {**prediction.to_json(), "choice": choice, "model_error": model_error, "note": note}


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
    ``rank_prior`` weighs the ranking's prior into both models' tool choice (None: the default
    weight; 0: each model chooses alone, which shows what training changed; ``choice_rank_prior``
    maps the Compare tab's modes to it). The record says which it was: ``rank_prior`` (the
    weight) and ``choice_mode`` (``own`` at 0, else ``fused``); each side's ``model`` is the
    name the predictor gives the call, which for a local model names any weight but the default
    (``[rank-prior 0]`` for its own choice), so labels and the app's runs keep the two apart.
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
    if any(c not in BASELINE_CHOICES for c in choices):
        if progress and not services.model.loaded:
            progress((0, 2), desc="loading the model (first request of this process only)")
        try:
            services.model.predictor()  # loaded first, so the record states the style it reads
        except RuntimeError:
            pass  # each side reports the failure as its model error
    style = _style(services)
    weight = DEFAULT_RANK_PRIOR_WEIGHT if rank_prior is None else float(rank_prior)
    result = {
        "id": uuid.uuid4().hex,  # one comparison, one vote
        "entry": entry_to_dict(entry),
        "setting": setting,
        "style": style,
        "prompt": render_system_prompt(entry, setting, style),
        "blind": bool(blind),
        "swapped": swapped,
        "choice_mode": "own" if weight == 0 else "fused",
        "rank_prior": weight,
        "revealed": not blind,
        "sides": [],
        "done": False,
        "labelled": None,
    }
    predictions: list[Prediction] = []
    for i, choice in enumerate(choices):
        if progress:
            progress((i, 2), desc=f"generating side {'AB'[i]}" + ("" if blind else f" ({choice})"))
        out = services.model.generate(choice, entry, setting, weight)
        prediction = record_for(entry, setting, out.model, out.generation, "robust", out.error)
        predictions.append(prediction)
        side = comparison_side(choice, prediction, out.error, out.note)
        result = {**result, "sides": [*result["sides"], side], "done": i == len(choices) - 1}
        if result["done"]:
            services.record_sides(predictions)  # the dashboards count the app's scored answers
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
        raw_a=a["raw"] or "",
        raw_b=b["raw"] or "",
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
