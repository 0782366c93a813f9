"""PEToolLLaMA training: LoRA SFT, then DPO from the SFT adapter, as thin wrappers over TRL.

Data use the chat layout petool tests with (docs/petoolbench.md §3): system = the prompt, user = the
query, assistant = the call JSON; TRL's conversational prompt/completion rows for SFT and
prompt/chosen/rejected rows for DPO, not LLaMA-Factory's single user turn.

The run is described by a ``petool.trainconfig.TrainConfig``. Every stage writes into its own
folder (``<output_dir>/sft``, ``<output_dir>/dpo``): the adapter and tokenizer, and the run
records ``petool.runs`` describes (``run_config.json``, ``versions.json``, ``data_hashes.json``,
``log_history.json``, ``loss.html``, ``metrics.json``, ``progress.json``), plus ``checkpoint-N``
folders. Rerunning the same command resumes from the latest checkpoint.

The same code runs on one CPU, one GPU, or several GPUs under
``accelerate launch -m petool train all ...``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from petool import dashboards, formats, models, store
from petool.runs import (
    LOG_HISTORY_FILE,
    PROGRESS_FILE,
    adapter_hash,
    data_record,
    library_versions,
    progress_callback,
    sha256_file,
    write_json,
)
from petool.schema import PreferenceExample, SFTExample
from petool.trainconfig import (
    RESUME_MODES,
    TrainConfig,
    check_value,
    dpo_args,
    is_int,
    load_config,
    lora_config,
    resolved_precision,
    sft_args,
    stage_dir,
)

log = logging.getLogger(__name__)

SFT_TRAIN_FILE = "sft_train.jsonl"
SFT_EVAL_FILE = "sft_eval.jsonl"
DPO_TRAIN_FILE = "dpo_train.jsonl"
"""File names ``--data DIR`` is searched for (TRL JSONL; LLaMA-Factory ``.json`` also read)."""


# ---------------------------------------------------------------- model loading


def load_model_and_tokenizer(config: TrainConfig):
    """Load the base model and tokenizer in the run's precision (4-bit when asked).

    A local folder (a saved model, like the tests' tiny LLaMA) loads with ``from_pretrained``;
    any other spec goes through ``petool.models`` (the bundled SmolLM2 GGUF cache, Hub ids).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dtype = torch.bfloat16 if resolved_precision(config) == "bf16" else torch.float32
    kwargs: dict[str, Any] = {"dtype": dtype}
    if config.load_in_4bit:
        from accelerate import PartialState
        from transformers import BitsAndBytesConfig

        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_quant_type="nf4",
            bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16 if dtype == torch.bfloat16 else torch.float32,
        )
        # A quantized model cannot be moved after loading: put each process's copy on its own GPU.
        kwargs["device_map"] = {"": PartialState().local_process_index} if torch.cuda.is_available() else {"": "cpu"}
    if Path(config.model).is_dir():
        model = AutoModelForCausalLM.from_pretrained(config.model, **kwargs)
        tokenizer = AutoTokenizer.from_pretrained(config.model)
    else:
        model, tokenizer = _load_through_models(config.model, kwargs)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.config.use_cache = False  # the KV cache is useless in training and clashes with checkpointing
    return model, tokenizer


def _load_through_models(spec: str, kwargs: dict):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    # petool.models' one resolution order (explicit, $PETOOL_MODEL, bundled GGUF cache, Hub);
    # loading stays here because training needs its own dtype and device placement.
    source = models.ensure_converted(models.resolve_model(spec))
    location = source.cache_dir if source.kind == "gguf-cache" else source.location
    log.info("base model: %s", source.describe())
    return AutoModelForCausalLM.from_pretrained(location, **kwargs), AutoTokenizer.from_pretrained(location)


# ---------------------------------------------------------------- data


def sft_rows(examples: Iterable[SFTExample]) -> list[dict]:
    """TRL conversational prompt/completion rows: system = prompt, user = query, assistant = call."""
    return [
        {
            "prompt": [{"role": "system", "content": e.system}, {"role": "user", "content": e.user}],
            "completion": [{"role": "assistant", "content": e.output}],
        }
        for e in examples
    ]


def preference_rows(pairs: Iterable[PreferenceExample]) -> list[dict]:
    """TRL conversational preference rows: prompt (system, user), chosen, rejected."""
    return [
        {
            "prompt": [{"role": "system", "content": p.system}, {"role": "user", "content": p.user}],
            "chosen": [{"role": "assistant", "content": p.chosen}],
            "rejected": [{"role": "assistant", "content": p.rejected}],
        }
        for p in pairs
    ]


def read_sft_file(path: str | os.PathLike) -> list[SFTExample]:
    """SFT examples from TRL JSONL (``.jsonl``) or a LLaMA-Factory alpaca file (``.json``).

    Malformed rows raise ValueError naming the first few: training on silently fewer rows
    would hide a data bug.
    """
    reader = formats.read_trl_sft if Path(path).suffix == ".jsonl" else formats.read_lf_sft
    examples, problems = reader(path)
    _raise_problems(path, problems)
    return examples


def read_preference_file(path: str | os.PathLike) -> list[PreferenceExample]:
    """Preference pairs from TRL JSONL (``.jsonl``) or a LLaMA-Factory ranking file (``.json``)."""
    reader = formats.read_trl_preferences if Path(path).suffix == ".jsonl" else formats.read_lf_dpo
    pairs, problems = reader(path)
    _raise_problems(path, problems)
    return pairs


def _raise_problems(path, problems: list[str]) -> None:
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise ValueError(f"{path}: {len(problems)} malformed row(s): " + "; ".join(problems[:3]) + more)


def merge_pairs(
    bench_pairs: list[PreferenceExample],
    human_pairs: list[PreferenceExample],
    human_weight: int = 1,
    dedupe: bool = True,
) -> list[PreferenceExample]:
    """Combine benchmark and human preference pairs into one DPO training list.

    Human pairs count ``human_weight`` times (by repetition, so any DPO loss honours it). With
    ``dedupe``, identical pairs (same system, user, chosen, rejected) are kept once before
    weighting, a human pair replaces an identical benchmark pair, and a benchmark pair whose
    human reverse exists (the human preferred the benchmark's rejected call) is dropped:
    the human verdict wins.

    Args:
        bench_pairs: pairs derived from the benchmark.
        human_pairs: pairs from annotators' verdicts.
        human_weight: copies of each human pair, 0 to leave them out.
        dedupe: apply the rules above; False concatenates as is.
    Returns:
        Benchmark pairs first, then the repeated human pairs, orders kept.

    Example:
        >>> a = PreferenceExample("s", "q", "A", "B")
        >>> [p.chosen for p in merge_pairs([a], [PreferenceExample("s", "q", "B", "A")], human_weight=2)]
        ['B', 'B']
    """
    if not is_int(human_weight) or human_weight < 0:
        raise ValueError(f"human_weight = {human_weight!r} is invalid: expected an integer >= 0")
    if not dedupe:
        return list(bench_pairs) + [p for p in human_pairs for _ in range(human_weight)]

    def key(p: PreferenceExample) -> tuple:
        return (p.system, p.user, p.chosen, p.rejected)

    humans = list({key(p): p for p in reversed(human_pairs)}.values())[::-1]  # first occurrence wins
    human_keys = {key(p) for p in humans}
    reversed_keys = {(p.system, p.user, p.rejected, p.chosen) for p in humans}
    bench, seen = [], set()
    for p in bench_pairs:
        k = key(p)
        if k in seen or k in human_keys or k in reversed_keys:
            continue
        seen.add(k)
        bench.append(p)
    return bench + [p for p in humans for _ in range(human_weight)]


def load_db_pairs(db_path: str | os.PathLike) -> list[PreferenceExample]:
    """Human preference pairs from the app's SQLite store (``petool.store``)."""
    if not Path(db_path).exists():
        raise ValueError(f"{db_path}: no such database")
    return list(store.Store(db_path).preference_examples())


def _as_sft(data: Any) -> list[SFTExample]:
    return read_sft_file(data) if isinstance(data, (str, os.PathLike)) else list(data)


def _as_pairs(data: Any) -> list[PreferenceExample]:
    return read_preference_file(data) if isinstance(data, (str, os.PathLike)) else list(data)


def _drop_too_long(rows: list[dict], tokenizer, max_length: int | None, answer_keys: tuple[str, ...]) -> tuple[list[dict], int]:
    """Drop rows whose prompt + longest answer exceed ``max_length`` tokens.

    TRL truncates on the right, which would cut the answer (the only supervised part) off a
    long prompt: better to drop the row and say how many went.
    """
    if max_length is None:
        return rows, 0
    kept = []
    for row in rows:
        longest = max(len(_ids(tokenizer.apply_chat_template(row["prompt"] + row[k], tokenize=True))) for k in answer_keys)
        if longest <= max_length:
            kept.append(row)
    return kept, len(rows) - len(kept)


def _ids(encoded: Any) -> list:
    # transformers 5 returns a BatchEncoding (dict) from apply_chat_template(tokenize=True).
    return encoded["input_ids"] if isinstance(encoded, dict) or hasattr(encoded, "keys") else encoded


# ---------------------------------------------------------------- running


def train_sft(
    config: TrainConfig,
    train_examples: Iterable[SFTExample] | str | os.PathLike,
    eval_examples: Iterable[SFTExample] | str | os.PathLike | None = None,
    progress: bool = True,
    resume: str = "auto",
    callbacks: list | None = None,
) -> Path:
    """Stage 1: train a LoRA adapter on (system, user) → call completions.

    Args:
        config: the run's TrainConfig (its ``sft`` section, LoRA, model, precision).
        train_examples: SFTExample list, or a TRL JSONL / LLaMA-Factory JSON file.
        eval_examples: held-out examples or file; without them ``sft.eval_fraction`` of the
            training data is held out (0 = no evaluation).
        progress: show tqdm progress bars.
        resume: ``"auto"`` continues from the latest checkpoint in the stage folder when there
            is one, ``"require"`` fails without one, ``"never"`` deletes old checkpoints first.
        callbacks: extra ``transformers.TrainerCallback`` objects (a UI's progress hook, timers).
    Returns:
        The stage folder ``<output_dir>/sft``, holding the adapter (load it with
        ``PeftModel.from_pretrained(base, path)``) and the run records.
    """
    from datasets import Dataset
    from trl import SFTTrainer

    out = stage_dir(config, "sft")
    checkpoint = _checkpoint_to_resume(out, resume)
    train_source, eval_source = train_examples, eval_examples
    train = sft_rows(_as_sft(train_examples))[: config.sft.max_samples]
    evals = sft_rows(_as_sft(eval_examples)) if eval_examples is not None else []
    data = {"train": data_record(train_source, train)}
    if eval_examples is not None:
        data["eval"] = data_record(eval_source, evals)
    model, tokenizer = load_model_and_tokenizer(config)
    train, dropped = _drop_too_long(train, tokenizer, config.max_length, ("completion",))
    evals, dropped_eval = _drop_too_long(evals, tokenizer, config.max_length, ("completion",))
    train_ds, eval_ds = _split(Dataset.from_list(train), evals, config.sft.eval_fraction, config.seed)
    args = sft_args(config, out, progress, has_eval=eval_ds is not None)
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=train_ds,
        eval_dataset=eval_ds,
        processing_class=tokenizer,
        peft_config=lora_config(config),
        callbacks=[progress_callback(out / PROGRESS_FILE, "sft"), *(callbacks or [])],
    )
    extra = {
        "dropped_too_long": {"train": dropped, "eval": dropped_eval},
        "train_rows": len(train_ds),
        "eval_rows": len(eval_ds) if eval_ds is not None else 0,
    }
    return _run(trainer, config, "sft", out, args, data, extra, checkpoint)


def train_dpo(
    config: TrainConfig,
    pairs: Iterable[PreferenceExample] | str | os.PathLike,
    sft_adapter_dir: str | os.PathLike,
    progress: bool = True,
    resume: str = "auto",
    eval_pairs: Iterable[PreferenceExample] | str | os.PathLike | None = None,
    sources: dict[str, str | os.PathLike] | None = None,
    callbacks: list | None = None,
) -> Path:
    """Stage 2: continue training the SFT adapter with DPO on preference pairs.

    The reference model. TRL 1.16's DPOTrainer, given a PeftModel that already holds a trained
    adapter and ``ref_model=None``, adds a frozen copy of that adapter named ``"ref"`` and
    computes reference log-probs through it (dpo_trainer.py, "create a 'ref' adapter that is a
    copy of the 'default' adapter"); only when no "ref" adapter exists does it disable the
    adapters, i.e. fall back to the base model. petool therefore loads the SFT adapter as
    trainable and, by default (``dpo.reference = "sft"``), keeps TRL's copy: reference = the
    SFT policy, the reference DPO's derivation assumes (the chosen/rejected log-ratios measure
    movement away from where DPO started), at the cost of one extra LoRA's memory.
    ``dpo.reference = "base"`` deletes that copy, so the reference is the base model with
    adapters disabled — what the authors' LLaMA-Factory run did (docs/petoolbench.md §4) — for a
    faithful reproduction. Only the trained ``"default"`` adapter is saved.

    Args:
        config: the run's TrainConfig (its ``dpo`` section, model, precision).
        pairs: PreferenceExample list (e.g. from ``merge_pairs``), or a TRL JSONL /
            LLaMA-Factory ranking file.
        sft_adapter_dir: folder of the SFT adapter (``train_sft``'s result).
        progress: show tqdm progress bars.
        resume: as in ``train_sft``.
        eval_pairs: optional held-out pairs (else ``dpo.eval_fraction`` of ``pairs``).
        sources: named files in-memory ``pairs`` were built from (a benchmark pairs file, the
            label database), hashed into ``data_hashes.json`` too.
        callbacks: extra ``transformers.TrainerCallback`` objects.
    Returns:
        The stage folder ``<output_dir>/dpo`` with the DPO-trained adapter and run records.
    """
    from datasets import Dataset
    from peft import PeftModel
    from trl import DPOTrainer

    sft_adapter_dir = Path(sft_adapter_dir)
    if not (sft_adapter_dir / "adapter_config.json").exists():
        raise ValueError(f"{sft_adapter_dir}: no adapter_config.json, so not a LoRA adapter folder (run SFT first)")
    out = stage_dir(config, "dpo")
    checkpoint = _checkpoint_to_resume(out, resume)
    source = pairs
    rows = preference_rows(_as_pairs(pairs))[: config.dpo.max_samples]
    evals = preference_rows(_as_pairs(eval_pairs)) if eval_pairs is not None else []
    data = {
        "train": data_record(source, rows),
        "sft_adapter": {"path": str(sft_adapter_dir.resolve()), "sha256": adapter_hash(sft_adapter_dir)},
    }
    if eval_pairs is not None:
        data["eval"] = data_record(eval_pairs, evals)
    for name, path in (sources or {}).items():
        data[name] = {"path": str(Path(path).resolve()), "sha256": sha256_file(path)}
    base, tokenizer = load_model_and_tokenizer(config)
    model = PeftModel.from_pretrained(base, str(sft_adapter_dir), is_trainable=True)
    rows, dropped = _drop_too_long(rows, tokenizer, config.max_length, ("chosen", "rejected"))
    evals, dropped_eval = _drop_too_long(evals, tokenizer, config.max_length, ("chosen", "rejected"))
    train_ds, eval_ds = _split(Dataset.from_list(rows), evals, config.dpo.eval_fraction, config.seed)
    args = dpo_args(config, out, progress, has_eval=eval_ds is not None)
    trainer = DPOTrainer(
        model=model,
        ref_model=None,
        args=args,
        train_dataset=train_ds,
        eval_dataset=eval_ds,
        processing_class=tokenizer,
        callbacks=[progress_callback(out / PROGRESS_FILE, "dpo"), *(callbacks or [])],
    )
    if config.dpo.reference == "base" and "ref" in trainer.model.peft_config:
        trainer.model.delete_adapter("ref")
    reference = "ref" if "ref" in trainer.model.peft_config else "adapters disabled (base model)"
    extra = {
        "dropped_too_long": {"train": dropped, "eval": dropped_eval},
        "train_rows": len(train_ds),
        "eval_rows": len(eval_ds) if eval_ds is not None else 0,
        "reference": f"{config.dpo.reference}: {reference}",
    }
    return _run(trainer, config, "dpo", out, args, data, extra, checkpoint)


def _split(train_ds, evals: list[dict], fraction: float, seed: int):
    from datasets import Dataset

    if evals:
        return train_ds, Dataset.from_list(evals)
    if fraction > 0 and len(train_ds) >= 2:
        parts = train_ds.train_test_split(test_size=fraction, seed=seed)
        return parts["train"], parts["test"]
    return train_ds, None


def latest_complete_checkpoint(out: Path) -> str | None:
    """The highest-numbered ``checkpoint-N`` in ``out`` that was saved whole, or None.

    The Trainer writes ``trainer_state.json`` last (after the adapter, optimizer and RNG state),
    so a process killed while saving leaves a folder without it, or with it cut short; resuming
    from such a folder would fail, so it is passed over for the one before.
    """
    found = []
    for path in out.glob("checkpoint-*") if out.is_dir() else []:
        m = re.fullmatch(r"checkpoint-(\d+)", path.name)
        if m and path.is_dir():
            found.append((int(m.group(1)), path))
    for _, path in sorted(found, reverse=True):
        try:
            json.loads((path / "trainer_state.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return str(path)
    return None


def _checkpoint_to_resume(out: Path, resume: str) -> str | None:
    check_value(resume in RESUME_MODES, "resume", resume, f"one of {', '.join(RESUME_MODES)}")
    last = latest_complete_checkpoint(out)
    if resume == "require" and last is None:
        raise ValueError(f"{out}: no checkpoint-N folder to resume from")
    if resume == "never":
        from accelerate import PartialState

        state = PartialState()
        # Stale higher-numbered checkpoints would otherwise be picked up by the next auto-resume.
        if state.is_main_process:
            for old in out.glob("checkpoint-*") if out.is_dir() else []:
                shutil.rmtree(old)
        state.wait_for_everyone()
        return None
    return last


def _run(trainer, config: TrainConfig, stage: str, out: Path, args, data: dict, extra: dict, checkpoint: str | None) -> Path:
    """Train (resuming when asked), save the adapter and write the run records next to it."""
    main = trainer.accelerator.is_main_process
    started = time.time()
    if main:
        out.mkdir(parents=True, exist_ok=True)
        write_json(
            out / "run_config.json",
            {
                "stage": stage,
                "config": config.to_json(),
                "resolved": {
                    "precision": resolved_precision(config),
                    "device": str(trainer.args.device),
                    "world_size": trainer.args.world_size,
                    "resumed_from": checkpoint,
                    **extra,
                },
                "trl_args": json.loads(args.to_json_string()),
            },
        )
        write_json(out / "versions.json", library_versions())
        write_json(out / "data_hashes.json", data)
    if checkpoint:
        log.info("%s: resuming from %s", stage, checkpoint)
    result = trainer.train(resume_from_checkpoint=checkpoint)
    metrics = dict(result.metrics)
    if trainer.eval_dataset is not None:
        metrics.update(trainer.evaluate())
    model = trainer.accelerator.unwrap_model(trainer.model)
    if main:
        # Only the trained adapter: TRL's frozen "ref" copy (DPO) is no part of the result.
        model.save_pretrained(str(out), selected_adapters=["default"])
        trainer.processing_class.save_pretrained(str(out))
        history = trainer.state.log_history
        write_json(out / LOG_HISTORY_FILE, history)
        write_loss_plot(stage, history, out / "loss.html", title=f"{stage.upper()} — {config.model}")
        metrics.update({"global_step": trainer.state.global_step, "wall_s": round(time.time() - started, 2)})
        write_json(out / "metrics.json", metrics)
    trainer.accelerator.wait_for_everyone()
    return out


def write_loss_plot(stage: str, log_history: list[dict], path: str | os.PathLike, title: str = "training") -> Path:
    """Write the stage's loss figure (``dashboards.training_figure``, the one the app shows) as a page.

    plotly.js is written beside the HTML (``plotly.min.js``, shared by the folder's plots), so
    the plot opens offline; ``log_history.json`` holds the same numbers.
    """
    path = Path(path)
    dashboards.training_figure({stage: log_history}, title).write_html(str(path), include_plotlyjs="directory", full_html=True)
    return path


# ---------------------------------------------------------------- CLI glue


def add_train_arguments(parser) -> None:
    """Options of ``petool train sft|dpo|all`` (cli.py adds them to its subparser)."""
    parser.add_argument("stage", choices=("sft", "dpo", "all"), help="sft, dpo (from --sft-adapter or OUT/sft), or both in order")
    parser.add_argument("--config", default=None, help="training YAML, e.g. assets/train/cpu.yaml (defaults apply when omitted)")
    parser.add_argument("--data", default=None, help=f"folder holding {SFT_TRAIN_FILE}, optional {SFT_EVAL_FILE}, and {DPO_TRAIN_FILE}")
    parser.add_argument("--sft-file", default=None, help="SFT training file (TRL .jsonl or LLaMA-Factory .json); overrides --data")
    parser.add_argument("--dpo-file", default=None, help="preference pairs file (TRL .jsonl or LLaMA-Factory .json); overrides --data")
    parser.add_argument("--out", default=None, help="run folder (overrides output_dir in the config)")
    parser.add_argument("--model", default=None, help="base model folder or spec (overrides model in the config)")
    parser.add_argument("--sft-adapter", default=None, help="SFT adapter for `dpo` (default OUT/sft)")
    parser.add_argument("--pairs-from-db", default=None, metavar="PATH", help="add human preference pairs from the app's SQLite store")
    parser.add_argument("--human-weight", type=int, default=1, help="copies of each human pair (0 = none)")
    parser.add_argument("--no-dedupe", action="store_true", help="keep duplicate and contradicted pairs")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help="fail unless a checkpoint exists (resuming is automatic anyway)")
    group.add_argument("--fresh", action="store_true", help="delete the stage's old checkpoints and start over")
    parser.add_argument("--max-steps", type=int, default=None, help="override max_steps of both stages (quick runs)")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def run_train_command(args) -> int:
    """Run ``petool train`` from parsed arguments; returns the exit code. Config errors raise ValueError."""
    overrides: dict[str, Any] = {}
    if args.out:
        overrides["output_dir"] = args.out
    if args.model:
        overrides["model"] = args.model
    if args.max_steps is not None:
        overrides["sft.max_steps"] = overrides["dpo.max_steps"] = args.max_steps
    config = load_config(args.config, **overrides)
    resume = "require" if args.resume else "never" if args.fresh else "auto"
    progress = not args.no_progress
    data = Path(args.data) if args.data else None
    done: dict[str, Path] = {}
    if args.stage in ("sft", "all"):
        sft_file = _data_file(args.sft_file, data, SFT_TRAIN_FILE, "--sft-file")
        eval_file = data / SFT_EVAL_FILE if data and (data / SFT_EVAL_FILE).exists() else None
        done["sft"] = train_sft(config, sft_file, eval_file, progress=progress, resume=resume)
    if args.stage in ("dpo", "all"):
        dpo_file = _data_file(args.dpo_file, data, DPO_TRAIN_FILE, "--dpo-file")
        pairs, sources = dpo_file, None
        if args.pairs_from_db:
            human = load_db_pairs(args.pairs_from_db)
            pairs = merge_pairs(read_preference_file(dpo_file), human, args.human_weight, dedupe=not args.no_dedupe)
            sources = {"bench_pairs": dpo_file, "pairs_db": args.pairs_from_db}
        sft_dir = Path(args.sft_adapter) if args.sft_adapter else done.get("sft", stage_dir(config, "sft"))
        done["dpo"] = train_dpo(config, pairs, sft_dir, progress=progress, resume=resume, sources=sources)
    for stage, path in done.items():
        log.info("%s adapter: %s", stage, path)
    return 0


def _data_file(explicit: str | None, folder: Path | None, name: str, flag: str) -> Path:
    path = Path(explicit) if explicit else (folder / name if folder else None)
    if path is None:
        raise ValueError(f"no training data: pass --data DIR (holding {name}) or {flag} FILE")
    if not path.exists():
        json_twin = path.with_suffix(".json")
        if not explicit and json_twin.exists():
            return json_twin
        raise ValueError(f"{path}: no such training file")
    return path
