"""PEToolLLaMA training: LoRA SFT, then DPO from the SFT adapter, as thin wrappers over TRL.

Data use the chat layout petool tests with (docs/petoolbench.md §3): system = the prompt, user = the
query, assistant = the call JSON; TRL's conversational prompt/completion rows for SFT and
prompt/chosen/rejected rows for DPO, not LLaMA-Factory's single user turn.

Every stage writes into its own folder (``<output_dir>/sft``, ``<output_dir>/dpo``): the
adapter and tokenizer, ``run_config.json`` (petool config, resolved device/precision, the TRL
arguments), ``versions.json``, ``data_hashes.json``, ``log_history.json``, ``loss.html``,
``metrics.json``, ``progress.json`` (updated at each log, for UIs to poll) and
``checkpoint-N`` folders. Rerunning the same command resumes from the latest checkpoint.

The same code runs on one CPU, one GPU, or several GPUs under
``accelerate launch -m petool train all ...``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import platform
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from petool.schema import PreferenceExample, SFTExample

log = logging.getLogger(__name__)

SFT_TRAIN_FILE = "sft_train.jsonl"
SFT_EVAL_FILE = "sft_eval.jsonl"
DPO_TRAIN_FILE = "dpo_train.jsonl"
"""File names ``--data DIR`` is searched for (TRL JSONL; LLaMA-Factory ``.json`` also read)."""

PRECISIONS = ("auto", "fp32", "bf16")
REFERENCES = ("sft", "base")
RESUME_MODES = ("auto", "require", "never")
LOSS_TYPES = ("sigmoid", "hinge", "ipo", "robust", "bco_pair", "sppo_hard", "nca_pair", "aot", "aot_unpaired", "apo_zero", "apo_down", "exo_pair", "discopop", "sigmoid_norm")
SCHEDULERS = ("linear", "cosine", "cosine_with_restarts", "polynomial", "constant", "constant_with_warmup", "inverse_sqrt", "cosine_with_min_lr", "warmup_stable_decay")


def _help(text: str, default: Any = dataclasses.MISSING, factory: Any = dataclasses.MISSING):
    if factory is not dataclasses.MISSING:
        return field(default_factory=factory, metadata={"help": text})
    return field(default=default, metadata={"help": text})


@dataclass
class LoraSettings:
    """LoRA adapter shape; defaults are the authors' (rank 8, alpha 16, all linear layers)."""

    rank: int = _help("LoRA rank r.", 8)
    alpha: int = _help("LoRA alpha (scale = alpha / rank).", 16)
    dropout: float = _help("Dropout on the LoRA branch (LLaMA-Factory's default, 0, is what the authors ran).", 0.0)
    target_modules: Any = _help('"all-linear" or a list of module names.', "all-linear")

    def __post_init__(self):
        _floats(self, "alpha", "dropout")
        _check(isinstance(self.rank, int) and self.rank > 0, "lora.rank", self.rank, "a positive integer")
        _check(isinstance(self.alpha, (int, float)) and self.alpha > 0, "lora.alpha", self.alpha, "a positive number")
        _check(isinstance(self.dropout, (int, float)) and 0 <= self.dropout < 1, "lora.dropout", self.dropout, "in [0, 1)")
        ok = self.target_modules == "all-linear" or (
            isinstance(self.target_modules, list) and self.target_modules and all(isinstance(m, str) for m in self.target_modules)
        )
        _check(ok, "lora.target_modules", self.target_modules, '"all-linear" or a non-empty list of module names')


@dataclass
class StageConfig:
    """Optimisation settings shared by both stages (one TRL run each)."""

    learning_rate: float = _help("Peak learning rate.", 1e-4)
    lr_scheduler_type: str = _help("Learning-rate schedule (transformers name).", "cosine")
    warmup_ratio: float = _help("Fraction of the steps spent warming up (TRL's float warmup_steps).", 0.1)
    num_train_epochs: float = _help("Epochs over the training data (ignored when max_steps > 0).", 1.0)
    max_steps: int = _help("Stop after this many optimiser steps; -1 = run the epochs.", -1)
    per_device_train_batch_size: int = _help("Examples per device per forward pass.", 1)
    gradient_accumulation_steps: int = _help("Forward passes per optimiser step.", 1)
    max_samples: int | None = _help("Use at most this many training examples (the authors used 2,000 per file); null = all.", None)
    eval_fraction: float = _help("Share of the training data held out for evaluation when no eval file is given (authors: 0.1).", 0.0)
    logging_steps: int = _help("Log the loss every this many optimiser steps.", 1)
    save_steps: int = _help("Write a resumable checkpoint every this many optimiser steps.", 10)
    save_total_limit: int | None = _help("Keep at most this many checkpoints (older ones are deleted); null = all.", 2)
    gradient_checkpointing: bool = _help("Recompute activations to save memory (~20% slower): on for GPUs, off on CPU.", False)

    def __post_init__(self):
        s = self._section
        _floats(self, "learning_rate", "warmup_ratio", "num_train_epochs", "eval_fraction")
        _check(_num(self.learning_rate) and self.learning_rate > 0, f"{s}.learning_rate", self.learning_rate, "a positive number")
        _check(self.lr_scheduler_type in SCHEDULERS, f"{s}.lr_scheduler_type", self.lr_scheduler_type, f"one of {', '.join(SCHEDULERS)}")
        _check(_num(self.warmup_ratio) and 0 <= self.warmup_ratio < 1, f"{s}.warmup_ratio", self.warmup_ratio, "in [0, 1)")
        _check(_num(self.num_train_epochs) and self.num_train_epochs > 0, f"{s}.num_train_epochs", self.num_train_epochs, "a positive number")
        _check(_int(self.max_steps) and (self.max_steps > 0 or self.max_steps == -1), f"{s}.max_steps", self.max_steps, "a positive integer or -1")
        for name in ("per_device_train_batch_size", "gradient_accumulation_steps", "logging_steps", "save_steps"):
            value = getattr(self, name)
            _check(_int(value) and value > 0, f"{s}.{name}", value, "a positive integer")
        for name in ("max_samples", "save_total_limit"):
            value = getattr(self, name)
            _check(value is None or (_int(value) and value > 0), f"{s}.{name}", value, "a positive integer or null")
        _check(_num(self.eval_fraction) and 0 <= self.eval_fraction < 1, f"{s}.eval_fraction", self.eval_fraction, "in [0, 1)")
        _check(isinstance(self.gradient_checkpointing, bool), f"{s}.gradient_checkpointing", self.gradient_checkpointing, "true or false")

    _section = "stage"


@dataclass
class SFTRunConfig(StageConfig):
    """Stage 1, supervised fine-tuning: authors' lr 1e-4, cosine, warmup 0.1, 1 epoch (batch 2 x 8)."""

    _section = "sft"


@dataclass
class DPORunConfig(StageConfig):
    """Stage 2, DPO from the SFT adapter: authors' sigmoid loss, beta 0.1, lr 5e-6 (batch 1 x 32).

    ``reference`` picks the frozen policy DPO measures against (see ``train_dpo``): ``"sft"``
    (default) = the SFT adapter itself, the reference DPO is defined with; ``"base"`` = the
    base model with adapters disabled, what the authors' LLaMA-Factory run used.
    """

    learning_rate: float = _help("Peak learning rate.", 5e-6)
    beta: float = _help("DPO temperature beta: how far the policy may move from the reference.", 0.1)
    loss_type: str = _help("TRL DPO loss (sigmoid = the original DPO loss).", "sigmoid")
    reference: str = _help('"sft": reference = the SFT adapter (proper DPO); "base": adapters disabled (the authors\' run).', "sft")

    def __post_init__(self):
        super().__post_init__()
        _floats(self, "beta")
        _check(_num(self.beta) and self.beta > 0, "dpo.beta", self.beta, "a positive number")
        _check(self.loss_type in LOSS_TYPES, "dpo.loss_type", self.loss_type, f"one of {', '.join(LOSS_TYPES)}")
        _check(self.reference in REFERENCES, "dpo.reference", self.reference, f"one of {', '.join(REFERENCES)}")

    _section = "dpo"


@dataclass
class TrainConfig:
    """Everything one SFT→DPO run needs; loaded from YAML by ``load_config``."""

    model: str = _help('Base model: a local model folder, or a spec petool.models resolves ("default" = $PETOOL_MODEL, else the bundled SmolLM2).', "default")
    output_dir: str = _help("Run folder; stages write to <output_dir>/sft and <output_dir>/dpo.", "runs/petoolllama")
    seed: int = _help("Seed for adapter init, shuffling and the eval split.", 42)
    max_length: int | None = _help("Token cutoff for prompt + answer (authors: 4096); longer examples are dropped and counted, never truncated. null = no cutoff.", 4096)
    precision: str = _help('"auto" (bf16 on a bf16-capable GPU, else fp32), "fp32" or "bf16". bf16 on CPU is ~5x slower.', "auto")
    load_in_4bit: bool = _help("QLoRA: load the base model in 4-bit NF4 with bitsandbytes (meant for CUDA).", False)
    lora: LoraSettings = _help("LoRA adapter shape.", factory=LoraSettings)
    sft: SFTRunConfig = _help("Stage 1 settings.", factory=SFTRunConfig)
    dpo: DPORunConfig = _help("Stage 2 settings.", factory=DPORunConfig)

    def __post_init__(self):
        for name, cls in (("lora", LoraSettings), ("sft", SFTRunConfig), ("dpo", DPORunConfig)):
            value = getattr(self, name)
            if isinstance(value, dict):
                setattr(self, name, _build(cls, value, name))
            elif not isinstance(value, cls):
                raise ValueError(f"{name} must be a mapping of {cls.__name__} fields, got {value!r}")
        _check(isinstance(self.model, str) and self.model.strip() != "", "model", self.model, "a non-empty string")
        _check(isinstance(self.output_dir, str) and self.output_dir.strip() != "", "output_dir", self.output_dir, "a non-empty path")
        _check(_int(self.seed), "seed", self.seed, "an integer")
        _check(self.max_length is None or (_int(self.max_length) and self.max_length > 0), "max_length", self.max_length, "a positive integer or null")
        _check(self.precision in PRECISIONS, "precision", self.precision, f"one of {', '.join(PRECISIONS)}")
        _check(isinstance(self.load_in_4bit, bool), "load_in_4bit", self.load_in_4bit, "true or false")

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _check(ok: bool, name: str, value: Any, expected: str) -> None:
    if not ok:
        raise ValueError(f"{name} = {value!r} is invalid: expected {expected}")


def _floats(obj: Any, *names: str) -> None:
    """Read numeric strings as floats: PyYAML loads ``1e-4`` (no dot) as a string."""
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, str):
            try:
                setattr(obj, name, float(value))
            except ValueError:
                pass  # left as is, so validation names the bad string


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _build(cls, values: dict, section: str):
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = [k for k in values if k not in names]
    if unknown:
        where = f"section {section!r}" if section else "the config"
        raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))} in {where}; valid: {', '.join(names)}")
    return cls(**values)


def config_from_dict(values: dict) -> TrainConfig:
    """Build and validate a TrainConfig from a plain dict (YAML's shape); unknown keys raise."""
    if not isinstance(values, dict):
        raise ValueError(f"a training config must be a mapping, got {type(values).__name__}")
    return _build(TrainConfig, values, "")


def load_config(yaml_path: str | os.PathLike | None = None, **overrides: Any) -> TrainConfig:
    """Read a training YAML and apply overrides; both are validated.

    Args:
        yaml_path: YAML file (e.g. ``assets/train/cpu.yaml``); None starts from the defaults.
        overrides: top-level fields (``output_dir="runs/x"``) or section fields written
            ``sft__max_steps=2`` or, through a dict, ``**{"sft.max_steps": 2}``.
    Returns:
        The validated TrainConfig.
    """
    import yaml

    values: dict = {}
    if yaml_path is not None:
        path = Path(yaml_path)
        try:
            values = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except FileNotFoundError:
            raise ValueError(f"{path}: no such training config") from None
        except yaml.YAMLError as exc:
            raise ValueError(f"{path}: not valid YAML ({exc})") from None
        if not isinstance(values, dict):
            raise ValueError(f"{path}: a training config must be a mapping, got {type(values).__name__}")
    for key, value in overrides.items():
        parts = key.replace("__", ".").split(".")
        if len(parts) == 1:
            values[parts[0]] = value
        elif len(parts) == 2:
            section = values.setdefault(parts[0], {})
            if not isinstance(section, dict):
                raise ValueError(f"override {key!r}: {parts[0]!r} is not a section")
            section[parts[1]] = value
        else:
            raise ValueError(f"override {key!r}: expected 'field' or 'section.field'")
    return config_from_dict(values)


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def resolved_precision(config: TrainConfig) -> str:
    """``"bf16"`` or ``"fp32"``: what ``config.precision`` means on this machine."""
    if config.precision != "auto":
        return config.precision
    import torch

    return "bf16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "fp32"


# ---------------------------------------------------------------- TRL arguments


def _common_args(config: TrainConfig, stage: StageConfig, output_dir: Path, progress: bool, has_eval: bool) -> dict:
    bf16 = resolved_precision(config) == "bf16"
    return dict(
        output_dir=str(output_dir),
        learning_rate=float(stage.learning_rate),
        lr_scheduler_type=stage.lr_scheduler_type,
        warmup_steps=float(stage.warmup_ratio),  # TRL 1.16: a float below 1 is a ratio
        num_train_epochs=float(stage.num_train_epochs),
        max_steps=stage.max_steps,
        per_device_train_batch_size=stage.per_device_train_batch_size,
        per_device_eval_batch_size=stage.per_device_train_batch_size,
        gradient_accumulation_steps=stage.gradient_accumulation_steps,
        activation_checkpointing=stage.gradient_checkpointing,  # transformers 5's name for it
        logging_steps=stage.logging_steps,
        logging_first_step=True,
        save_strategy="steps",
        save_steps=stage.save_steps,
        save_total_limit=stage.save_total_limit,
        eval_strategy="steps" if has_eval else "no",
        eval_steps=stage.save_steps if has_eval else None,
        bf16=bf16,  # TRL defaults to bf16, ~5x slower than fp32 on CPUs without bf16 units
        max_length=config.max_length,
        seed=config.seed,
        report_to="none",
        dataloader_pin_memory=_cuda(),
        disable_tqdm=not progress,
        # Every LoRA weight gets a gradient, so DDP need not search for unused parameters.
        ddp_find_unused_parameters=False,
    )


def sft_args(config: TrainConfig, output_dir: str | os.PathLike | None = None, progress: bool = True, has_eval: bool = False):
    """The ``trl.SFTConfig`` for stage 1 (loss on the assistant completion only)."""
    from trl import SFTConfig

    out = Path(output_dir) if output_dir else stage_dir(config, "sft")
    return SFTConfig(**_common_args(config, config.sft, out, progress, has_eval), completion_only_loss=True)


def dpo_args(config: TrainConfig, output_dir: str | os.PathLike | None = None, progress: bool = True, has_eval: bool = False):
    """The ``trl.DPOConfig`` for stage 2."""
    from trl import DPOConfig

    out = Path(output_dir) if output_dir else stage_dir(config, "dpo")
    return DPOConfig(**_common_args(config, config.dpo, out, progress, has_eval), beta=float(config.dpo.beta), loss_type=[config.dpo.loss_type])


def lora_config(config: TrainConfig):
    """The ``peft.LoraConfig`` of the adapter SFT creates."""
    from peft import LoraConfig

    return LoraConfig(
        r=config.lora.rank,
        lora_alpha=config.lora.alpha,
        lora_dropout=config.lora.dropout,
        target_modules=config.lora.target_modules,
        bias="none",
        task_type="CAUSAL_LM",
    )


def stage_dir(config: TrainConfig, stage: str) -> Path:
    return Path(config.output_dir) / stage


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
    try:
        from petool import models
    except ImportError as exc:
        raise ValueError(f"model {spec!r} is not a local folder, and petool.models (which resolves specs) is unavailable: {exc}") from None
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
    from petool import formats

    reader = formats.read_trl_sft if Path(path).suffix == ".jsonl" else formats.read_lf_sft
    examples, problems = reader(path)
    _raise_problems(path, problems)
    return examples


def read_preference_file(path: str | os.PathLike) -> list[PreferenceExample]:
    """Preference pairs from TRL JSONL (``.jsonl``) or a LLaMA-Factory ranking file (``.json``)."""
    from petool import formats

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
    if not _int(human_weight) or human_weight < 0:
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
    try:
        from petool import store
    except ImportError as exc:
        raise ValueError(f"--pairs-from-db needs petool.store, which is not available here: {exc}") from None
    if not Path(db_path).exists():
        raise ValueError(f"{db_path}: no such database")
    return list(store.Store(db_path).preference_examples())


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _data_record(source: Any, rows: list[dict]) -> dict:
    """Where a dataset came from and its sha256 (of the file, else of the rows as JSONL)."""
    if isinstance(source, (str, os.PathLike)):
        return {"path": str(Path(source).resolve()), "sha256": sha256_file(source), "rows": len(rows)}
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    return {"path": None, "sha256": hashlib.sha256(text.encode()).hexdigest(), "rows": len(rows), "note": "in-memory rows, hashed as sorted-key JSONL"}


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
        longest = max(
            len(_ids(tokenizer.apply_chat_template(row["prompt"] + row[k], tokenize=True))) for k in answer_keys
        )
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
    data = {"train": _data_record(train_source, train)}
    if eval_examples is not None:
        data["eval"] = _data_record(eval_source, evals)
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
        callbacks=[progress_callback(out / "progress.json", "sft"), *(callbacks or [])],
    )
    extra = {"dropped_too_long": {"train": dropped, "eval": dropped_eval}, "train_rows": len(train_ds), "eval_rows": len(eval_ds) if eval_ds is not None else 0}
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
    data = {"train": _data_record(source, rows), "sft_adapter": {"path": str(sft_adapter_dir.resolve()), "sha256": _adapter_hash(sft_adapter_dir)}}
    if eval_pairs is not None:
        data["eval"] = _data_record(eval_pairs, evals)
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
        callbacks=[progress_callback(out / "progress.json", "dpo"), *(callbacks or [])],
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


def train_all(
    config: TrainConfig,
    sft_examples: Iterable[SFTExample] | str | os.PathLike,
    pairs: Iterable[PreferenceExample] | str | os.PathLike,
    sft_eval: Iterable[SFTExample] | str | os.PathLike | None = None,
    progress: bool = True,
    resume: str = "auto",
) -> dict[str, Path]:
    """SFT then DPO from the new SFT adapter; returns ``{"sft": dir, "dpo": dir}``."""
    sft_dir = train_sft(config, sft_examples, sft_eval, progress=progress, resume=resume)
    dpo_dir = train_dpo(config, pairs, sft_dir, progress=progress, resume=resume)
    return {"sft": sft_dir, "dpo": dpo_dir}


def _split(train_ds, evals: list[dict], fraction: float, seed: int):
    from datasets import Dataset

    if evals:
        return train_ds, Dataset.from_list(evals)
    if fraction > 0 and len(train_ds) >= 2:
        parts = train_ds.train_test_split(test_size=fraction, seed=seed)
        return parts["train"], parts["test"]
    return train_ds, None


def _checkpoint_to_resume(out: Path, resume: str) -> str | None:
    _check(resume in RESUME_MODES, "resume", resume, f"one of {', '.join(RESUME_MODES)}")
    from transformers.trainer_utils import get_last_checkpoint

    last = get_last_checkpoint(str(out)) if out.is_dir() else None
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
        _write_json(out / "run_config.json", {
            "stage": stage,
            "config": config.to_json(),
            "resolved": {"precision": resolved_precision(config), "device": str(trainer.args.device), "world_size": trainer.args.world_size, "resumed_from": checkpoint, **extra},
            "trl_args": json.loads(args.to_json_string()),
        })
        _write_json(out / "versions.json", library_versions())
        _write_json(out / "data_hashes.json", data)
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
        _write_json(out / "log_history.json", history)
        write_loss_plot(history, out / "loss.html", title=f"{stage.upper()} — {config.model}")
        metrics.update({"global_step": trainer.state.global_step, "wall_s": round(time.time() - started, 2)})
        _write_json(out / "metrics.json", metrics)
    trainer.accelerator.wait_for_everyone()
    return out


def _adapter_hash(folder: Path) -> str | None:
    for name in ("adapter_model.safetensors", "adapter_model.bin"):
        if (folder / name).exists():
            return sha256_file(folder / name)
    return None


def library_versions() -> dict:
    """Versions of the libraries a run depends on, plus Python, platform and accelerator."""
    from importlib import metadata

    versions = {"python": platform.python_version(), "platform": platform.platform()}
    for name in ("petool", "torch", "transformers", "trl", "peft", "accelerate", "datasets", "bitsandbytes", "tokenizers"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    import torch

    versions["cuda"] = torch.version.cuda if torch.cuda.is_available() else None
    versions["device_name"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    # the data a run builds depends on petool's own code (the ranking orders the training
    # prompts), so the commit is what reproduces it, more than the package version
    versions["petool_commit"] = git_commit(Path(__file__).resolve().parent.parent)
    return versions


def git_commit(folder: str | os.PathLike) -> str | None:
    """The commit checked out in ``folder`` ("+dirty" if tracked files differ from it), or None
    outside a git checkout or without git."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10, check=True).stdout

    try:
        commit = git("rev-parse", "HEAD").strip()
        dirty = bool(git("status", "--porcelain", "--untracked-files=no").strip())
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "")


def write_loss_plot(log_history: list[dict], path: str | os.PathLike, title: str = "training") -> Path:
    """Plot every logged loss-like series (train loss, eval loss, DPO reward accuracy/margin) by step.

    plotly.js is written beside the HTML (``plotly.min.js``, shared by the folder's plots), so
    the plot opens offline; ``log_history.json`` holds the same numbers.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    series = loss_series(log_history)
    metrics = [k for k in series if "loss" in k] or list(series)
    others = [k for k in series if k not in metrics]
    fig = make_subplots(rows=2 if others else 1, cols=1, shared_xaxes=True, subplot_titles=["loss"] + (["other metrics"] if others else []))
    for row, names in ((1, metrics), (2, others)):
        for name in names:
            steps, values = zip(*series[name])
            fig.add_trace(go.Scatter(x=steps, y=values, mode="lines+markers", name=name), row=row, col=1)
    fig.update_layout(title=title, xaxis_title="step", height=400 if not others else 700)
    path = Path(path)
    fig.write_html(str(path), include_plotlyjs="directory", full_html=True)
    return path


def loss_series(log_history: list[dict]) -> dict[str, list[tuple[int, float]]]:
    """Per-step series from a trainer's log_history: loss, eval_loss, DPO rewards and the like.

    Example:
        >>> loss_series([{"step": 1, "loss": 2.0}, {"step": 2, "loss": 1.5, "epoch": 0.5}])
        {'loss': [(1, 2.0), (2, 1.5)]}
    """
    wanted = ("loss", "eval_loss", "rewards/accuracies", "rewards/margins", "eval_rewards/accuracies", "eval_rewards/margins", "learning_rate")
    series: dict[str, list[tuple[int, float]]] = {}
    for rec in log_history:
        for k in wanted:
            if k in rec and _num(rec[k]):
                series.setdefault(k, []).append((rec.get("step", 0), float(rec[k])))
    return series


def training_logs(adapter_dir: str | os.PathLike) -> dict[str, list[dict]]:
    """The trainer logs kept beside an adapter, by stage: ``sft`` and ``dpo`` from a shipped
    adapter's ``sft_log_history.json`` / ``dpo_log_history.json``, or the run folder's own
    ``log_history.json`` under its ``stage`` name (``run_config.json``). Missing or unreadable
    files are left out; an adapter without logs gives ``{}``.
    """
    folder = Path(adapter_dir)
    files = {"sft": folder / "sft_log_history.json", "dpo": folder / "dpo_log_history.json"}
    if (folder / "log_history.json").is_file():
        try:
            stage = json.loads((folder / "run_config.json").read_text(encoding="utf-8")).get("stage", "training")
        except (OSError, ValueError, AttributeError):
            stage = "training"
        files = {str(stage): folder / "log_history.json"}
    logs = {}
    for stage, path in files.items():
        try:
            history = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(history, list):
            logs[stage] = [rec for rec in history if isinstance(rec, dict)]
    return logs


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def progress_callback(path: str | os.PathLike, stage: str):
    """A TrainerCallback writing ``progress.json`` (step, max_steps, latest logs, elapsed, ETA).

    A UI polls the file, so progress survives a page reload and needs no shared memory.
    """
    from transformers import TrainerCallback

    class ProgressFile(TrainerCallback):
        def __init__(self):
            self.path, self.started = Path(path), time.time()

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not state.is_world_process_zero:
                return
            elapsed = time.time() - self.started
            step = state.global_step
            eta = elapsed / step * (state.max_steps - step) if step and state.max_steps else None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _write_json(self.path, {
                "stage": stage,
                "step": step,
                "max_steps": state.max_steps,
                "epoch": state.epoch,
                "latest": logs or {},
                "elapsed_s": round(elapsed, 1),
                "eta_s": None if eta is None else round(eta, 1),
                "updated": time.strftime("%Y-%m-%dT%H:%M:%S"),
            })

    return ProgressFile()


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
