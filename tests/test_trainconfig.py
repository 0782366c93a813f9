"""Training configs: YAML and overrides validate, name bad values, and become TRL arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from petool import trainconfig

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_CONFIGS = sorted((ROOT / "assets" / "train").glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED_CONFIGS, ids=lambda p: p.name)
def test_shipped_config_builds_trl_configs(path):
    config = trainconfig.load_config(path)
    sft = trainconfig.sft_args(config, "/tmp/x")
    dpo = trainconfig.dpo_args(config, "/tmp/x")
    lora = trainconfig.lora_config(config)
    assert (lora.r, lora.lora_alpha, lora.target_modules) == (8, 16, "all-linear")
    assert (sft.learning_rate, sft.lr_scheduler_type, sft.warmup_steps) == (1e-4, "cosine", 0.1)
    assert (dpo.learning_rate, dpo.beta, dpo.loss_type) == (5e-6, 0.1, ["sigmoid"])
    assert sft.report_to == [] or sft.report_to == "none" or sft.report_to == ["none"]


def test_both_configs_are_shipped():
    assert {p.name for p in SHIPPED_CONFIGS} >= {"cpu.yaml", "gpu.yaml"}


def test_cpu_config_trains_in_fp32():
    config = trainconfig.load_config(ROOT / "assets" / "train" / "cpu.yaml")
    assert trainconfig.resolved_precision(config) == "fp32"
    assert trainconfig.sft_args(config).bf16 is False and trainconfig.dpo_args(config).bf16 is False


def test_defaults_mirror_the_authors():
    c = trainconfig.TrainConfig()
    assert (c.lora.rank, c.lora.alpha, c.lora.target_modules, c.max_length) == (8, 16, "all-linear", 4096)
    assert (c.sft.learning_rate, c.sft.lr_scheduler_type, c.sft.warmup_ratio) == (1e-4, "cosine", 0.1)
    assert (c.dpo.learning_rate, c.dpo.beta, c.dpo.loss_type, c.dpo.reference) == (5e-6, 0.1, "sigmoid", "sft")


def test_yaml_exponent_without_dot_is_a_float():
    assert trainconfig.load_config(None, **{"sft.learning_rate": "2e-4"}).sft.learning_rate == 2e-4


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"lora.rank": 0}, "lora.rank = 0"),
        ({"lora.target_modules": []}, "lora.target_modules = []"),
        ({"sft.learning_rate": -1}, "sft.learning_rate = -1"),
        ({"sft.learning_rate": "fast"}, "sft.learning_rate = 'fast'"),
        ({"dpo.lr_scheduler_type": "cosin"}, "dpo.lr_scheduler_type = 'cosin'"),
        ({"sft.max_steps": 0}, "sft.max_steps = 0"),
        ({"dpo.save_steps": 0}, "dpo.save_steps = 0"),
        ({"dpo.warmup_ratio": 1.5}, "dpo.warmup_ratio = 1.5"),
        ({"dpo.beta": 0}, "dpo.beta = 0"),
        ({"dpo.loss_type": "dpo"}, "dpo.loss_type = 'dpo'"),
        ({"dpo.reference": "policy"}, "dpo.reference = 'policy'"),
        ({"precision": "fp16"}, "precision = 'fp16'"),
        ({"max_length": -5}, "max_length = -5"),
        ({"sft.lr": 1e-4}, "unknown key(s) 'lr' in section 'sft'"),
        ({"epochs": 3}, "unknown key(s) 'epochs' in the config"),
        ({"a.b.c": 1}, "'a.b.c'"),
    ],
)
def test_validation_names_the_bad_value(overrides, message):
    with pytest.raises(ValueError) as err:
        trainconfig.load_config(ROOT / "assets" / "train" / "cpu.yaml", **overrides)
    assert message in str(err.value)


def test_missing_yaml_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no such training config"):
        trainconfig.load_config(tmp_path / "nope.yaml")
