"""Run a model over entries, store every prediction as it comes, and compute the metrics.

A run folder holds ``config.json`` (what ran), ``predictions.jsonl`` (one line per entry and
setting, appended and flushed as each finishes, so an interrupted run resumes where it stopped)
and ``metrics.json`` (aggregates by setting and error code). ``read_run_folder`` reads one back
for the store.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from petool.formats import load_entries
from petool.parsing import PARSE_MODES, parse_call
from petool.schema import ALL_SETTINGS, Entry, Generation, Prediction
from petool.scoring import SCORER_VERSION, aggregate, error_counts, score_call, score_without_gold

if TYPE_CHECKING:  # the predictors (and the models behind them) are not needed to read or score runs
    from petool.predictors import Predictor

BENCHMARK_VERSION = "petoolbench-format/1"


def record_for(entry: Entry, setting: str, model: str, generation: Generation | None, parse_mode: str, model_error: str = "") -> Prediction:
    """One prediction: the raw output, the parsed call, the verdicts, the cost and, where the tool
    was chosen as a whole name, how (each shortlisted name's log-likelihood and prior bias).

    The one builder of the record "a model answer, parsed and scored": an evaluation's
    predictions.jsonl lines and the app's comparison sides are both made here. ``model_error``
    (the exception's text, with no generation) makes the error ``model:error`` and is kept as
    ``parse_detail``. An entry without a gold call (built in the app) is judged as far as it can
    be (``scoring.score_without_gold``): its verdicts and gold are None.
    """
    parsed = parse_call(generation.text, parse_mode) if generation else None
    gold_known = bool(entry.ground_truth.tool_name)
    score = score_call(entry, setting, parsed) if gold_known else score_without_gold(entry, setting, parsed)
    if model_error:
        score.error = score.param_error = "model:error"
    return Prediction(
        entry_id=entry.entry_id,
        setting=setting,
        model=model,
        raw=generation.text if generation else None,
        call=score.call,
        parse_detail=parsed.detail if parsed else model_error,
        tool_ok=score.tool_ok,
        params_ok=score.params_ok,
        error=score.error,
        param_error=score.param_error,
        gold=entry.ground_truth if gold_known else None,
        latency_s=round(generation.latency_s, 4) if generation else None,
        prompt_tokens=generation.prompt_tokens if generation else None,
        output_tokens=generation.output_tokens if generation else None,
        category=entry.category,
        history_length=entry.history_length,
        cluster_size=len(entry.cluster_candidates()),
        tool_choice={"scores": generation.tool_scores, "bias": generation.tool_bias} if generation and generation.tool_scores else None,
    )


def read_predictions(path: str | os.PathLike) -> list[dict]:
    """Prediction lines of a run; a torn last line (a crash mid-write) is skipped."""
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def compute_metrics(records: list[dict]) -> dict:
    """Metrics of a run: accuracy by setting (and overall), error shares, cost per prediction."""
    latencies = sorted(r["latency_s"] for r in records if r.get("latency_s") is not None)
    return {
        "scorer_version": SCORER_VERSION,
        "n": len(records),
        "by_setting": aggregate(records, ["setting"]),
        "overall": aggregate([{**r, "all": "all"} for r in records], ["all"]),
        "errors": error_counts(records, ["setting"]),
        "median_latency_s": latencies[len(latencies) // 2] if latencies else None,
    }


def evaluate(
    entries: list[Entry],
    settings: Iterable[str],
    predictor: Predictor,
    out_dir: str | os.PathLike,
    limit: int | None = None,
    parse_mode: str = "robust",
    progress: bool = True,
    config: dict | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Run ``predictor`` on each entry in each setting, resuming a run already in ``out_dir``.

    Args:
        entries: the entries; the first ``limit`` are used when given.
        settings: any of p, r, c, none; an entry lacking a setting's history is skipped for it.
        out_dir: the run folder (created); predictions already there are kept and not redone.
        config: extra facts to record in config.json (data path, mode, style…).
        on_progress: called with (answers done, answers to do) in this call after each answer
            is stored (the app shows it); an exception it raises stops the run, which resumes later.
    Returns:
        The metrics dict also written to ``out_dir/metrics.json``.
    """
    if parse_mode not in PARSE_MODES:
        raise ValueError(f"unknown parse mode {parse_mode!r}; valid: {', '.join(PARSE_MODES)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    settings = list(settings)
    chosen = entries[:limit] if limit else entries
    run_config = {
        "model": predictor.name,
        "predictor": predictor.describe(),
        "settings": settings,
        "parse_mode": parse_mode,
        "limit": limit,
        "n_entries": len(chosen),
        "scorer_version": SCORER_VERSION,
        "benchmark_version": BENCHMARK_VERSION,
        "python": platform.python_version(),
        **(config or {}),
    }
    config_path = out / "config.json"
    if config_path.exists():
        previous = json.loads(config_path.read_text(encoding="utf-8"))
        if previous.get("model") != predictor.name:
            raise ValueError(f"{out} holds a run of {previous.get('model')!r}; use another --out for {predictor.name!r}")
    config_path.write_text(json.dumps(run_config, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")

    pred_path = out / "predictions.jsonl"
    _drop_torn_tail(pred_path)
    done = {(str(r["entry_id"]), r["setting"]) for r in read_predictions(pred_path)}
    jobs = [(e, s) for e in chosen for s in settings if s in e.settings and (e.key, s) not in done]
    bar = _progress(len(jobs), progress, desc=predictor.name)
    with pred_path.open("a", encoding="utf-8") as f:
        for answered, (entry, setting) in enumerate(jobs, 1):
            try:
                generation, error = predictor.generate(entry, setting), ""
            except Exception as exc:  # one failing entry must not lose the rest of a long run
                generation, error = None, f"{type(exc).__name__}: {exc}"
            row = record_for(entry, setting, predictor.name, generation, parse_mode, error)
            f.write(json.dumps(row.to_json(), ensure_ascii=False) + "\n")
            f.flush()
            if bar:
                bar.update(1)
            if on_progress:
                on_progress(answered, len(jobs))
    if bar:
        bar.close()
    metrics = compute_metrics(read_predictions(pred_path))
    metrics["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    return metrics


def score_responses(
    entries: list[Entry], responses: list[dict], parse_mode: str = "robust", settings: Iterable[str] | None = None
) -> list[dict]:
    """Score ``{"entry_id", "setting", "response"}`` items; entries without a response count as wrong.

    The settings scored are ``settings`` or, by default, those that occur in the responses.
    """
    by_key: dict[tuple[str, str], str] = {}
    for i, item in enumerate(responses):
        if not isinstance(item, dict) or "entry_id" not in item or "setting" not in item:
            raise ValueError(f"response #{i} must be an object with entry_id, setting and response")
        if item["setting"] not in ALL_SETTINGS:  # a list or object here would be unhashable below
            raise ValueError(f"response #{i}: setting must be one of {', '.join(ALL_SETTINGS)}, got {json.dumps(item['setting'])}")
        if item.get("response") is not None and not isinstance(item["response"], str):
            raise ValueError(f"response #{i}: response must be the model's text (a string) or null, got {type(item['response']).__name__}")
        by_key[(str(item["entry_id"]), item["setting"])] = item.get("response")
    settings = list(settings) if settings else sorted({s for _, s in by_key})
    records = []
    for entry in entries:
        for setting in settings:
            if setting not in entry.settings:
                continue
            text = by_key.get((entry.key, setting))
            generation = Generation(text) if text is not None else None
            records.append(record_for(entry, setting, "responses", generation, parse_mode).to_json())
    return records


# ---------------------------------------------------------------- reading a run folder back


@dataclass
class RunFolder:
    """A ``petool eval`` run folder as the store saves it: the run's row and its prediction lines."""

    run: dict
    """The ``runs`` row: id, model, adapter, mode, style, settings, data path, versions, created,
    run_dir, and config.json and metrics.json whole."""
    predictions: list[dict]
    """predictions.jsonl, one dict per line, in file order."""

    def entries(self) -> list[Entry] | None:
        """The entries the run scored, read from its data file, each marked ``split: test``; None
        when the run names no data file or it is gone ([] when it no longer reads)."""
        data_path = self.run.get("data_path")
        if not data_path or not Path(data_path).exists():
            return None
        wanted = {str(p["entry_id"]) for p in self.predictions}
        try:
            loaded = load_entries(data_path).entries
        except ValueError:
            loaded = []
        kept = [e for e in loaded if e.key in wanted]
        for e in kept:
            # Evaluated entries are test data: labels on them must never become training pairs.
            e.extra.setdefault("split", "test")
        return kept


def read_run_folder(run_dir: str | os.PathLike, run_id: str | None = None) -> RunFolder:
    """Read a folder that ``evaluate`` wrote (config.json, metrics.json, predictions.jsonl).

    Unlike resuming (``read_predictions``), every line must be whole: a bad line is reported,
    not skipped. The run id is ``run_id``, else config.json's ``run_id``, else the folder's name.

    Raises:
        ValueError: naming the missing predictions.jsonl, a file that is not JSON or not UTF-8,
            the bad line, or an empty predictions file.
    """
    run_dir = Path(run_dir)
    pred_path = run_dir / "predictions.jsonl"
    if not pred_path.is_file():
        raise ValueError(f"{run_dir}: no predictions.jsonl here; is this a `petool eval` output folder?")
    config = _read_json_file(run_dir / "config.json")
    metrics = _read_json_file(run_dir / "metrics.json")
    predictions = []
    for n, line in enumerate(_read_text(pred_path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{pred_path}: line {n} is not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict) or "entry_id" not in row or not isinstance(row.get("setting"), str):
            raise ValueError(f"{pred_path.name}: line {n} lacks entry_id or a string setting")
        predictions.append(row)
    if not predictions:
        raise ValueError(f"{pred_path.name} holds no predictions: nothing to import (is it the right file?)")
    cfg = config.get("config", config)
    cfg = cfg if isinstance(cfg, dict) else {}
    models = sorted({str(p.get("model")) for p in predictions if p.get("model")})
    settings = sorted({p["setting"] for p in predictions})
    data_path = cfg.get("data") or cfg.get("data_path")
    run = {
        "id": run_id or str(config.get("run_id") or run_dir.name),
        "model": cfg.get("model") or ", ".join(models),
        "adapter": cfg.get("adapter"),
        "mode": cfg.get("mode"),
        "style": cfg.get("style"),
        "settings": settings,
        "data_path": data_path if isinstance(data_path, str) else None,
        "scorer_version": _str_or_none(config.get("scorer_version") or cfg.get("scorer_version")),
        "benchmark_version": _str_or_none(config.get("benchmark_version") or cfg.get("benchmark_version")),
        "created": config.get("created"),  # none: the store stamps the time it saves the run
        "run_dir": str(run_dir),
        "config": config,
        "metrics": metrics,
    }
    return RunFolder(run, predictions)


def _read_json_file(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        value = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    return value if isinstance(value, dict) else {}


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path.name}: not UTF-8 text (bad byte at offset {exc.start})") from None


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _drop_torn_tail(path: Path) -> None:
    """Cut a last line left half-written by a crash, so appended lines start on a fresh line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)


def _progress(total: int, enabled: bool, desc: str):
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="entry", dynamic_ncols=True)
