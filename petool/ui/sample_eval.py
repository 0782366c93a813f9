"""Section "Evaluate a trained adapter on a sample" of the Pairs & training tab.

A finished DPO job's adapter, the base and the shipped adapter are each run by
``petool.evaluate.evaluate`` on one sample of entries that no label refers to (so none of them
was a training pair), through the app's shared model (``ModelService.side_predictor``: the
model is never loaded twice), and each is stored as a run, so the Dashboards show the three
side by side. The sample is drawn by a fixed seed and named by its entries and settings; the
runs live in a folder per sample, so evaluating another job on the same sample reuses the base
and shipped-adapter answers already there (``evaluate`` resumes) instead of recomputing them.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from petool.evaluate import evaluate
from petool.schema import ALL_SETTINGS, Entry
from petool.scoring import aggregate
from petool.ui.common import require_user, warning, with_user
from petool.ui.services import BASE, DEV, GENERATED, TUNED, Services

MAX_SAMPLE = 50
"""Most entries one evaluation may take: each costs a model call per setting and model, on the
one model every visitor shares."""
DEFAULT_SAMPLE = 10
SAMPLE_SEED = 0
"""Fixed, so every evaluation on the same pool, settings and size draws the same sample (the
base and shipped-adapter runs are then reused, and every job is measured on equal terms)."""
RESULT_HEADERS = ["model", "setting", "n", "tool acc", "param acc", "both"]

_RUNNING = threading.Lock()
"""One sample evaluation at a time per app: two would write the same run folder."""


class EvaluationStopped(Exception):
    """Raised from the progress callback to stop a run (the page that started it has gone)."""


@dataclass(frozen=True)
class SampleRequest:
    """A validated request: evaluate ``adapter`` (``DPO job #N``) on ``n`` entries of ``pool``."""

    adapter: str
    pool: str
    settings: tuple[str, ...]
    n: int


@dataclass
class Progress:
    """Where a sample evaluation stands, for the page to show while it runs."""

    model: str = ""
    step: int = 0
    """Which model of ``models`` is running (1-based; 0 before the first)."""
    models: int = 3
    done: int = 0
    total: int = 0

    def line(self) -> str:
        if not self.step:
            return "Drawing the sample…"
        return f"Evaluating model {self.step} of {self.models} ({self.model}): {self.done}/{self.total} new answers."


@dataclass
class SampleResult:
    sample_id: str
    entries: int
    run_ids: list[str]
    rows: list[list]
    new_answers: dict[str, int] = field(default_factory=dict)
    """Answers computed by this evaluation per model (0: all reused from an earlier one)."""


def pool_choices(services: Services) -> list[str]:
    """The pools a sample may come from: entries with a gold call the app holds."""
    return [p for p, entries in ((GENERATED, services.generated()), (DEV, services.dev())) if entries]


def check_request(services: Services, adapter: Any, pool: Any, settings: Any, n: Any) -> SampleRequest:
    """The request the form describes, or ValueError saying what to change."""
    jobs = services.job_adapters()
    if not jobs:
        raise ValueError("No finished DPO job yet: start a DPO run above; once it is done its adapter can be evaluated here.")
    if adapter not in jobs:
        raise ValueError(f"Choose the adapter of a finished DPO job ({', '.join(jobs)}), not {str(adapter)[:80]!r}.")
    pools = pool_choices(services)
    if pool not in pools:
        raise ValueError(f"Choose where the sample comes from: {', '.join(pools) or 'no pool has entries'}.")
    if not isinstance(settings, (list, tuple)) or not settings:
        raise ValueError(f"Choose at least one setting ({', '.join(ALL_SETTINGS)}).")
    unknown = [str(s)[:20] for s in settings if s not in ALL_SETTINGS]
    if unknown:
        raise ValueError(f"Unknown setting {', '.join(unknown)}: choose among {', '.join(ALL_SETTINGS)}.")
    size = sample_size(n)
    return SampleRequest(adapter, pool, tuple(s for s in ALL_SETTINGS if s in settings), size)


def sample_size(n: Any) -> int:
    """``n`` as a whole number of entries in 1..MAX_SAMPLE, else ValueError."""
    if isinstance(n, bool) or n is None or n == "":
        raise ValueError(f"Type the sample size: a whole number of entries from 1 to {MAX_SAMPLE}.")
    try:
        value = float(n)
    except (TypeError, ValueError):
        raise ValueError(f"The sample size must be a whole number from 1 to {MAX_SAMPLE}, got {str(n)[:20]!r}.") from None
    if not math.isfinite(value) or value != int(value):
        raise ValueError(f"The sample size must be a whole number from 1 to {MAX_SAMPLE}, got {str(n)[:20]}.")
    if not 1 <= value <= MAX_SAMPLE:
        raise ValueError(
            f"The sample size must be from 1 to {MAX_SAMPLE} entries (each costs a model call per setting "
            f"and model on the shared model), got {int(value)}."
        )
    return int(value)


def draw_sample(entries: list[Entry], excluded: set[str], n: int, seed: int = SAMPLE_SEED) -> list[Entry]:
    """Up to ``n`` entries with a gold call whose keys are not in ``excluded``, drawn by ``seed``
    (the same pool, exclusions and ``n`` give the same sample, in key order).

    Example:
        >>> draw_sample([], set(), 3)
        []
    """
    candidates = sorted((e for e in entries if e.ground_truth.tool_name and e.key not in excluded), key=lambda e: e.key)
    chosen = random.Random(seed).sample(candidates, min(n, len(candidates)))
    return sorted(chosen, key=lambda e: e.key)


def sample_id(entries: list[Entry], settings: tuple[str, ...]) -> str:
    """A short name for a sample: the same entries and settings always get the same one."""
    text = "\n".join([",".join(settings), *(e.key for e in entries)])
    return hashlib.blake2b(text.encode("utf-8"), digest_size=5).hexdigest()


def run_id(sample: str, model: str) -> str:
    return f"sample-{sample}:{model}"


def folder_name(model: str) -> str:
    """A model name as a folder name (the names hold '+', '#' and spaces)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_") or "model"


def run_sample(
    services: Services,
    request: SampleRequest,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
    seed: int = SAMPLE_SEED,
) -> SampleResult:
    """Evaluate the base, the shipped adapter and ``request.adapter`` on one sample and store
    each as a run (``sample-<id>:<model>``, replacing an earlier one of the same name).

    Args:
        progress: updated as answers come (read by the page while this runs in a thread).
        stop: set it to stop after the current model call; answers so far stay in the run
            folder and the next evaluation of the same sample resumes from them.
    Raises:
        ValueError: the pool has no entry left once labelled ones are set aside, or another
            sample evaluation is running.
        EvaluationStopped: ``stop`` was set.
    """
    progress = progress or Progress()
    stop = stop or threading.Event()
    if not _RUNNING.acquire(blocking=False):
        raise ValueError("Another sample evaluation is running on the shared model: wait for it to finish.")
    try:
        entries = draw_sample(services.pool(request.pool), services.store.labelled_entry_keys(), request.n, seed)
        if not entries:
            raise ValueError(
                f"No entry of {request.pool} is left to evaluate on: every one with a gold call has a label "
                "(labelled entries may be training pairs, so they are never in the sample)."
            )
        sample = sample_id(entries, request.settings)
        folder = Path(services.config.db_path).resolve().parent / "evals" / f"sample-{sample}"
        _keep_entries(services, entries, f"sample:{sample}")
        result = SampleResult(sample, len(entries), [], [])
        choices = [BASE, TUNED, request.adapter]
        progress.models = len(choices)
        for step, choice in enumerate(choices, 1):
            side = services.model.side_predictor(choice)
            progress.model, progress.step, progress.done, progress.total = side.name, step, 0, 0
            result.new_answers[side.name] = 0

            def advance(done: int, total: int, name: str = side.name) -> None:
                progress.done, progress.total = done, total
                result.new_answers[name] = done
                if stop.is_set():
                    raise EvaluationStopped("stopped: the page that started the evaluation has gone")

            run_dir = folder / folder_name(side.name)
            evaluate(
                entries,
                request.settings,
                side,
                run_dir,
                progress=False,
                on_progress=advance,
                config={
                    "sample": sample,
                    "pool": request.pool,
                    "seed": seed,
                    "choice": choice,
                    "entries": [e.key for e in entries],
                    "source": "Pairs & training: evaluate on a sample",
                },
            )
            rid = run_id(sample, side.name)
            services.store.import_run(run_dir, run_id=rid, with_entries=False, replace=True)
            result.run_ids.append(rid)
        result.rows = result_rows(services, result.run_ids)
        return result
    finally:
        _RUNNING.release()


def _keep_entries(services: Services, entries: list[Entry], source: str) -> None:
    """Store the sample's entries once (under ``source``), so the Errors tab can show them whole."""
    if not services.store.list_entries(source):
        services.store.save_entries(entries, source)


def result_rows(services: Services, run_ids: list[str]) -> list[list]:
    """Tool/param accuracy per model and setting (and over all settings) of the stored runs."""
    records = [s.record.to_json() for s in services.store.stored_predictions(run_ids).rows]
    rows = aggregate(records, ["model", "setting"]) + aggregate([{**r, "setting": "all"} for r in records], ["model", "setting"])
    order = {m: i for i, m in enumerate(dict.fromkeys(r["model"] for r in records))}
    rows.sort(key=lambda r: (order.get(r["model"], 99), r["setting"] == "all", r["setting"]))
    return [[r["model"], r["setting"], r["n"], _pct(r["tool_acc"]), _pct(r["param_acc"]), _pct(r["both_acc"])] for r in rows]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def summary(request: SampleRequest, result: SampleResult) -> str:
    """What the page says once an evaluation is done (markdown; names come from the app, not users)."""
    reused = [m for m, k in result.new_answers.items() if k == 0]
    lines = [
        (
            f"**Done:** sample `{result.sample_id}`: {result.entries} entries of {request.pool} without a label, "
            f"settings {', '.join(request.settings)}. Stored as runs {', '.join(f'`{r}`' for r in result.run_ids)}: "
            "the Dashboards show them beside each other."
        )
    ]
    if reused:
        lines.append(f"Answers already on this sample were reused for {', '.join(reused)}.")
    return "\n\n".join(lines)


# ---------------------------------------------------------------- layout and wiring


def build(services: Services, session) -> dict:
    """Lay out the section and wire it; returns its refresh (for the tab's select event)."""
    import gradio as gr

    gr.Markdown("### Evaluate a trained adapter on a sample")
    gr.Markdown(
        "Runs the base, the shipped adapter and a finished DPO job's adapter on the same sample of entries that "
        "no label refers to (so none was a training pair), scores them with petool's evaluation and stores "
        "each as a run for the Dashboards. Each entry costs one call per setting and model on the shared model."
    )
    pools = pool_choices(services)
    with gr.Row(equal_height=True):
        adapter = gr.Dropdown(
            list(services.job_adapters()),
            value=None,
            label="adapter (finished DPO jobs)",
            allow_custom_value=True,
            scale=2,
            elem_id="s-adapter",
        )
        pool = gr.Radio(
            pools, value=(DEV if DEV in pools else pools[0]) if pools else None, label="entries from", scale=2, elem_id="s-pool"
        )
        settings = gr.CheckboxGroup(list(ALL_SETTINGS), value=["r"], label="settings", scale=2, elem_id="s-settings")
        # No minimum/maximum here: gradio would refuse out-of-range values with an error
        # badge; check_request says why next to the button instead.
        size = gr.Number(DEFAULT_SAMPLE, precision=0, label=f"sample size (1–{MAX_SAMPLE} entries)", scale=1, elem_id="s-n")
        run_btn = gr.Button("Evaluate on the sample", variant="primary", scale=1, elem_id="s-run")
    message = gr.Markdown("", elem_id="s-msg")
    table = gr.Dataframe(headers=RESULT_HEADERS, value=[], interactive=False, label="accuracy on the sample", elem_id="s-table")
    request = gr.State(None)  # the checked request, held by the server for the run step

    def check(user, a, p, s, n):
        try:
            require_user(services.config, user, "evaluate adapters")
            return "Starting…", check_request(services, a, p, s, n)
        except ValueError as exc:
            return warning(exc), None

    def run(req: SampleRequest | None):
        if req is None:  # refused by check: its reason stays on the page
            yield gr.update(), gr.update()
            return
        progress, stop, outcome = Progress(), threading.Event(), {}

        def work():
            try:
                outcome["result"] = run_sample(services, req, progress, stop)
            except Exception as exc:  # noqa: BLE001 (shown next to the button; never a server error)
                outcome["error"] = exc

        worker = threading.Thread(target=work, name="petool-sample-eval", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                yield progress.line(), gr.update()
                worker.join(0.5)
        finally:
            stop.set()  # the page went away mid-run: stop after the current call
        if "error" in outcome:
            exc = outcome["error"]
            yield warning(exc if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"), gr.update()
            return
        result = outcome["result"]
        yield summary(req, result), result.rows

    run_btn.click(
        with_user(check, 4), [adapter, pool, settings, size, session], [message, request], queue=False, api_visibility="private"
    ).then(run, [request], [message, table], api_visibility="private", show_progress="minimal")

    def refresh_choices(current=None):
        jobs = list(services.job_adapters())
        return gr.update(choices=jobs, value=current if current in jobs else (jobs[0] if jobs else None))

    adapter.focus(lambda a: refresh_choices(a), adapter, adapter, api_visibility="private", queue=False)
    return {"refresh": refresh_choices, "outputs": [adapter]}
