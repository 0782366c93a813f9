"""Training configuration: the validated dataclasses one SFT→DPO run is described by, read
from YAML, and the TRL / PEFT arguments they translate to.

Every field carries its help text; every value is checked when the dataclass is built, so a
bad YAML key or value fails with its name before any model loads. ``petool.train`` runs the
stages these configs describe.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PRECISIONS = ("auto", "fp32", "bf16")
REFERENCES = ("sft", "base")
RESUME_MODES = ("auto", "require", "never")
LOSS_TYPES = (
    "sigmoid",
    "hinge",
    "ipo",
    "robust",
    "bco_pair",
    "sppo_hard",
    "nca_pair",
    "aot",
    "aot_unpaired",
    "apo_zero",
    "apo_down",
    "exo_pair",
    "discopop",
    "sigmoid_norm",
)
SCHEDULERS = (
    "linear",
    "cosine",
    "cosine_with_restarts",
    "polynomial",
    "constant",
    "constant_with_warmup",
    "inverse_sqrt",
    "cosine_with_min_lr",
    "warmup_stable_decay",
)


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
        check_value(isinstance(self.rank, int) and self.rank > 0, "lora.rank", self.rank, "a positive integer")
        check_value(isinstance(self.alpha, (int, float)) and self.alpha > 0, "lora.alpha", self.alpha, "a positive number")
        check_value(isinstance(self.dropout, (int, float)) and 0 <= self.dropout < 1, "lora.dropout", self.dropout, "in [0, 1)")
        ok = self.target_modules == "all-linear" or (
            isinstance(self.target_modules, list) and self.target_modules and all(isinstance(m, str) for m in self.target_modules)
        )
        check_value(ok, "lora.target_modules", self.target_modules, '"all-linear" or a non-empty list of module names')


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
        check_value(is_number(self.learning_rate) and self.learning_rate > 0, f"{s}.learning_rate", self.learning_rate, "a positive number")
        check_value(
            self.lr_scheduler_type in SCHEDULERS, f"{s}.lr_scheduler_type", self.lr_scheduler_type, f"one of {', '.join(SCHEDULERS)}"
        )
        check_value(is_number(self.warmup_ratio) and 0 <= self.warmup_ratio < 1, f"{s}.warmup_ratio", self.warmup_ratio, "in [0, 1)")
        check_value(
            is_number(self.num_train_epochs) and self.num_train_epochs > 0,
            f"{s}.num_train_epochs",
            self.num_train_epochs,
            "a positive number",
        )
        check_value(
            is_int(self.max_steps) and (self.max_steps > 0 or self.max_steps == -1),
            f"{s}.max_steps",
            self.max_steps,
            "a positive integer or -1",
        )
        for name in ("per_device_train_batch_size", "gradient_accumulation_steps", "logging_steps", "save_steps"):
            value = getattr(self, name)
            check_value(is_int(value) and value > 0, f"{s}.{name}", value, "a positive integer")
        for name in ("max_samples", "save_total_limit"):
            value = getattr(self, name)
            check_value(value is None or (is_int(value) and value > 0), f"{s}.{name}", value, "a positive integer or null")
        check_value(is_number(self.eval_fraction) and 0 <= self.eval_fraction < 1, f"{s}.eval_fraction", self.eval_fraction, "in [0, 1)")
        check_value(
            isinstance(self.gradient_checkpointing, bool), f"{s}.gradient_checkpointing", self.gradient_checkpointing, "true or false"
        )

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
        check_value(is_number(self.beta) and self.beta > 0, "dpo.beta", self.beta, "a positive number")
        check_value(self.loss_type in LOSS_TYPES, "dpo.loss_type", self.loss_type, f"one of {', '.join(LOSS_TYPES)}")
        check_value(self.reference in REFERENCES, "dpo.reference", self.reference, f"one of {', '.join(REFERENCES)}")

    _section = "dpo"


@dataclass
class TrainConfig:
    """Everything one SFT→DPO run needs; loaded from YAML by ``load_config``."""

    model: str = _help(
        'Base model: a local model folder, or a spec petool.models resolves ("default" = $PETOOL_MODEL, else the bundled SmolLM2).',
        "default",
    )
    output_dir: str = _help("Run folder; stages write to <output_dir>/sft and <output_dir>/dpo.", "runs/petoolllama")
    seed: int = _help("Seed for adapter init, shuffling and the eval split.", 42)
    max_length: int | None = _help(
        "Token cutoff for prompt + answer (authors: 4096); longer examples are dropped and counted, never truncated. null = no cutoff.",
        4096,
    )
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
        check_value(isinstance(self.model, str) and self.model.strip() != "", "model", self.model, "a non-empty string")
        check_value(isinstance(self.output_dir, str) and self.output_dir.strip() != "", "output_dir", self.output_dir, "a non-empty path")
        check_value(is_int(self.seed), "seed", self.seed, "an integer")
        check_value(
            self.max_length is None or (is_int(self.max_length) and self.max_length > 0),
            "max_length",
            self.max_length,
            "a positive integer or null",
        )
        check_value(self.precision in PRECISIONS, "precision", self.precision, f"one of {', '.join(PRECISIONS)}")
        check_value(isinstance(self.load_in_4bit, bool), "load_in_4bit", self.load_in_4bit, "true or false")

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def check_value(ok: bool, name: str, value: Any, expected: str) -> None:
    """Raise ValueError naming the field, its value and what was expected, unless ``ok``."""
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


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_int(value: Any) -> bool:
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
    return DPOConfig(
        **_common_args(config, config.dpo, out, progress, has_eval), beta=float(config.dpo.beta), loss_type=[config.dpo.loss_type]
    )


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
