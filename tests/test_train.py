"""Training: data files read, pairs merge, SFT and DPO run end to end on the tiny LLaMA, resume, save, reload."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import pytest

from petool import formats, train
from petool.schema import PreferenceExample, SFTExample
from petool.trainconfig import TrainConfig, load_config

ROOT = Path(__file__).resolve().parents[1]

SYSTEM = "Your task is to use a tool that meets real-time user instructions.\nAvailable tools you can call with input parameters are listed here:"
CALL_A = '{"tool_name": "<Weather>.<Open Meteo>.<forecast>", "parameters": {"city": "Paris"}}'
CALL_B = '{"tool_name": "<Travel>.<flight | flight aggregator>.<flight>", "parameters": {}}'


def sft_examples(n: int = 8) -> list[SFTExample]:
    return [SFTExample(SYSTEM, f"Get the weather {i}", CALL_A if i % 2 else CALL_B) for i in range(n)]


def pairs(n: int = 6) -> list[PreferenceExample]:
    return [PreferenceExample(SYSTEM, f"Get the weather {i}", CALL_A, CALL_B) for i in range(n)]


def tiny_config(model_dir: str, out: Path, **overrides) -> TrainConfig:
    """cpu.yaml shrunk to seconds: a few steps of batch 2 on the tiny LLaMA."""
    small = {
        "model": model_dir,
        "output_dir": str(out),
        "max_length": 512,
        "sft.max_steps": 3,
        "sft.per_device_train_batch_size": 2,
        "sft.gradient_accumulation_steps": 1,
        "sft.save_steps": 2,
        "sft.learning_rate": 5e-3,  # large, so three steps visibly move the random model
        "dpo.max_steps": 2,
        "dpo.per_device_train_batch_size": 2,
        "dpo.gradient_accumulation_steps": 1,
        "dpo.save_steps": 1,
        "dpo.learning_rate": 5e-3,
    }
    small.update(overrides)
    return load_config(ROOT / "assets" / "train" / "cpu.yaml", **small)


def lora_tensors(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "adapter_model.safetensors"))


@pytest.fixture(scope="module")
def sft_run(tiny_llama_dir, tmp_path_factory):
    """One SFT run shared by the DPO tests (the DPO stage starts from it)."""
    out = tmp_path_factory.mktemp("run")
    config = tiny_config(tiny_llama_dir, out)
    return config, train.train_sft(config, sft_examples(), progress=False)


# ---------------------------------------------------------------- data


def test_rows_use_the_inference_chat_layout():
    [row] = train.sft_rows([SFTExample("SYS", "QUERY", CALL_A)])
    assert row == {
        "prompt": [{"role": "system", "content": "SYS"}, {"role": "user", "content": "QUERY"}],
        "completion": [{"role": "assistant", "content": CALL_A}],
    }
    [pref] = train.preference_rows([PreferenceExample("SYS", "QUERY", CALL_A, CALL_B)])
    assert pref["prompt"] == row["prompt"]
    assert (pref["chosen"], pref["rejected"]) == ([{"role": "assistant", "content": CALL_A}], [{"role": "assistant", "content": CALL_B}])


def test_training_files_round_trip_through_formats(tmp_path):
    sft_path = formats.write_trl_sft(sft_examples(3), tmp_path / "sft.jsonl")
    dpo_path = formats.write_trl_preferences(pairs(2), tmp_path / "dpo.jsonl")
    assert train.read_sft_file(sft_path) == sft_examples(3)
    assert train.read_preference_file(dpo_path) == pairs(2)


def test_malformed_training_file_names_its_rows(tmp_path):
    path = tmp_path / "sft.jsonl"
    path.write_text('{"prompt": []}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match="2 malformed row"):
        train.read_sft_file(path)


A = PreferenceExample("s", "q", "A", "B")
A_REVERSED = PreferenceExample("s", "q", "B", "A")
C = PreferenceExample("s", "q2", "C", "D")


@pytest.mark.parametrize(
    "bench, human, weight, dedupe, expected",
    [
        ([A, C], [], 1, True, [("A", "B"), ("C", "D")]),  # nothing to merge
        ([A, A, C], [], 1, True, [("A", "B"), ("C", "D")]),  # duplicate bench pair kept once
        ([A, A], [], 1, False, [("A", "B"), ("A", "B")]),  # no dedupe: as is
        ([C], [A], 3, True, [("C", "D"), ("A", "B"), ("A", "B"), ("A", "B")]),  # weight by repetition
        ([A, C], [A], 1, True, [("C", "D"), ("A", "B")]),  # human copy replaces the bench one
        ([A, C], [A_REVERSED], 2, True, [("C", "D"), ("B", "A"), ("B", "A")]),  # human verdict wins
        ([A, C], [A_REVERSED], 0, True, [("C", "D")]),  # weight 0: human pairs out, contradictions still dropped
        ([A], [A_REVERSED], 1, False, [("A", "B"), ("B", "A")]),
        ([], [A, A], 2, True, [("A", "B"), ("A", "B")]),  # human duplicates kept once, then weighted
    ],
)
def test_merge_pairs(bench, human, weight, dedupe, expected):
    merged = train.merge_pairs(bench, human, human_weight=weight, dedupe=dedupe)
    assert [(p.chosen, p.rejected) for p in merged] == expected


@pytest.mark.parametrize("weight", [-1, 1.5, True])
def test_merge_pairs_rejects_bad_weight(weight):
    with pytest.raises(ValueError, match=f"human_weight = {weight!r}"):
        train.merge_pairs([A], [C], human_weight=weight)


def test_load_db_pairs_needs_an_existing_database(tmp_path):
    with pytest.raises(ValueError, match="no such database|petool.store"):
        train.load_db_pairs(tmp_path / "missing.db")


# ---------------------------------------------------------------- SFT


def test_sft_trains_saves_and_reloads(sft_run, tiny_llama_dir):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    config, out = sft_run
    assert out == Path(config.output_dir) / "sft"
    history = json.loads((out / "log_history.json").read_text())
    losses = [r["loss"] for r in history if "loss" in r]
    assert losses and all(loss > 0 for loss in losses)
    # LoRA B starts at zero: any non-zero B means the adapter was trained.
    weights = lora_tensors(out)
    b = [t for name, t in weights.items() if "lora_B" in name]
    assert b and any(t.abs().sum() > 0 for t in b)
    assert any("mlp" in name for name in weights) and any("self_attn" in name for name in weights)  # all linear layers
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_llama_dir), str(out))
    reloaded = {n: p for n, p in model.named_parameters() if "lora_B" in n}
    assert reloaded and any(p.abs().sum() > 0 for p in reloaded.values())


def test_sft_writes_run_records(sft_run):
    config, out = sft_run
    for name in (
        "run_config.json",
        "versions.json",
        "data_hashes.json",
        "metrics.json",
        "log_history.json",
        "loss.html",
        "progress.json",
        "adapter_config.json",
    ):
        assert (out / name).exists(), name
    run = json.loads((out / "run_config.json").read_text())
    assert run["config"]["sft"]["max_steps"] == 3 and run["resolved"]["precision"] == "fp32"
    assert run["trl_args"]["bf16"] is False
    versions = json.loads((out / "versions.json").read_text())
    assert versions["trl"] == "1.16.0" and versions["peft"] and "petool_commit" in versions
    data = json.loads((out / "data_hashes.json").read_text())
    assert data["train"]["rows"] == 8 and len(data["train"]["sha256"]) == 64
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["global_step"] == 3 and "train_loss" in metrics
    assert json.loads((out / "progress.json").read_text())["step"] == 3
    html = (out / "loss.html").read_text()
    assert 'src="plotly.min.js"' in html and "cdn.plot.ly" not in html  # opens offline
    assert '"name":"sft loss"' in html  # the app's training figure, the SFT panel
    assert (out / "plotly.min.js").stat().st_size > 1_000_000


def test_sft_hashes_data_files_and_holds_out_eval(tiny_llama_dir, tmp_path):
    path = formats.write_trl_sft(sft_examples(10), tmp_path / "sft_train.jsonl")
    config = tiny_config(tiny_llama_dir, tmp_path / "run", **{"sft.max_steps": 1, "sft.eval_fraction": 0.2})
    out = train.train_sft(config, path, progress=False)
    data = json.loads((out / "data_hashes.json").read_text())
    assert data["train"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    run = json.loads((out / "run_config.json").read_text())
    assert (run["resolved"]["train_rows"], run["resolved"]["eval_rows"]) == (8, 2)
    assert "eval_loss" in json.loads((out / "metrics.json").read_text())


def test_sft_drops_examples_longer_than_max_length(tiny_llama_dir, tmp_path):
    examples = sft_examples(4) + [SFTExample(SYSTEM * 40, "long", CALL_A)]
    config = tiny_config(tiny_llama_dir, tmp_path / "run", **{"sft.max_steps": 1, "max_length": 256})
    out = train.train_sft(config, examples, progress=False)
    run = json.loads((out / "run_config.json").read_text())
    assert run["resolved"]["dropped_too_long"]["train"] == 1 and run["resolved"]["train_rows"] == 4


def test_sft_rerun_resumes_from_latest_checkpoint(tiny_llama_dir, tmp_path):
    config = tiny_config(tiny_llama_dir, tmp_path / "run", **{"sft.max_steps": 4, "sft.save_steps": 2, "sft.save_total_limit": None})
    out = train.train_sft(config, sft_examples(), progress=False)
    assert (out / "checkpoint-2").is_dir() and (out / "checkpoint-4").is_dir()
    # As if the run died after step 2's checkpoint: the same call picks up there.
    import shutil

    shutil.rmtree(out / "checkpoint-4")
    train.train_sft(config, sft_examples(), progress=False)
    run = json.loads((out / "run_config.json").read_text())
    assert run["resolved"]["resumed_from"].endswith("checkpoint-2")
    assert json.loads((out / "metrics.json").read_text())["global_step"] == 4
    steps = [r["step"] for r in json.loads((out / "log_history.json").read_text()) if "loss" in r]
    assert steps[-2:] == [3, 4]


def test_a_checkpoint_cut_short_while_saving_is_passed_over(tiny_llama_dir, tmp_path):
    config = tiny_config(tiny_llama_dir, tmp_path / "run", **{"sft.max_steps": 4, "sft.save_steps": 2, "sft.save_total_limit": None})
    out = train.train_sft(config, sft_examples(), progress=False)
    # As if the run was killed while writing checkpoint-4: the Trainer writes trainer_state.json last.
    (out / "checkpoint-4" / "trainer_state.json").unlink()
    (out / "checkpoint-6").mkdir()  # killed just after creating the folder
    assert train.latest_complete_checkpoint(out) == str(out / "checkpoint-2")
    (out / "checkpoint-2" / "trainer_state.json").write_text('{"global_step": 2, "log_hi')  # cut short
    assert train.latest_complete_checkpoint(out) is None
    (out / "checkpoint-2" / "trainer_state.json").write_text(json.dumps({"global_step": 2}))
    assert train.latest_complete_checkpoint(out) == str(out / "checkpoint-2")
    assert train.latest_complete_checkpoint(tmp_path / "missing") is None


def test_a_rerun_resumes_past_a_checkpoint_cut_short(tiny_llama_dir, tmp_path):
    config = tiny_config(tiny_llama_dir, tmp_path / "run", **{"sft.max_steps": 4, "sft.save_steps": 2, "sft.save_total_limit": None})
    out = train.train_sft(config, sft_examples(), progress=False)
    (out / "checkpoint-4" / "trainer_state.json").unlink()
    (out / "metrics.json").unlink()
    train.train_sft(config, sft_examples(), progress=False)
    assert json.loads((out / "run_config.json").read_text())["resolved"]["resumed_from"].endswith("checkpoint-2")
    assert json.loads((out / "metrics.json").read_text())["global_step"] == 4


def test_resume_modes(tiny_llama_dir, tmp_path):
    config = tiny_config(tiny_llama_dir, tmp_path / "run", **{"sft.max_steps": 2, "sft.save_steps": 1})
    with pytest.raises(ValueError, match="no checkpoint-N folder"):
        train.train_sft(config, sft_examples(), progress=False, resume="require")
    with pytest.raises(ValueError, match="resume = 'maybe'"):
        train.train_sft(config, sft_examples(), progress=False, resume="maybe")
    out = train.train_sft(config, sft_examples(), progress=False)
    (out / "checkpoint-99").mkdir()  # a stale checkpoint "never" must clear
    train.train_sft(config, sft_examples(), progress=False, resume="never")
    assert not (out / "checkpoint-99").exists()
    assert json.loads((out / "run_config.json").read_text())["resolved"]["resumed_from"] is None


def test_qlora_loads_the_base_in_4bit_and_trains(tiny_llama_dir, tmp_path):
    pytest.importorskip("bitsandbytes")
    config = tiny_config(tiny_llama_dir, tmp_path / "run", load_in_4bit=True, **{"sft.max_steps": 1, "sft.warmup_ratio": 0.0})
    model, _ = train.load_model_and_tokenizer(config)
    assert getattr(model, "is_loaded_in_4bit", False)
    out = train.train_sft(config, sft_examples(), progress=False)
    assert any(t.abs().sum() > 0 for name, t in lora_tensors(out).items() if "lora_B" in name)


# ---------------------------------------------------------------- DPO


def test_dpo_trains_from_the_sft_adapter(sft_run, tiny_llama_dir):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    config, sft_dir = sft_run
    out = train.train_dpo(config, pairs(), sft_dir, progress=False)
    assert out == Path(config.output_dir) / "dpo"
    history = json.loads((out / "log_history.json").read_text())
    assert any("loss" in r for r in history) and any("rewards/margins" in r for r in history)
    before, after = lora_tensors(sft_dir), lora_tensors(out)
    assert before.keys() == after.keys()
    assert any(not before[k].equal(after[k]) for k in before)
    assert not (out / "ref").exists()  # TRL's frozen reference copy is not saved as a result
    run = json.loads((out / "run_config.json").read_text())
    assert run["resolved"]["reference"].startswith("sft: ref")
    # Reference = the SFT policy: at the first step policy and reference agree, so the sigmoid
    # loss is exactly log 2 and the reward margin 0.
    first = next(r for r in history if "loss" in r)
    assert first["loss"] == pytest.approx(0.6931, abs=1e-3) and first["rewards/margins"] == pytest.approx(0, abs=1e-4)
    data = json.loads((out / "data_hashes.json").read_text())
    assert data["sft_adapter"]["sha256"] == hashlib.sha256((sft_dir / "adapter_model.safetensors").read_bytes()).hexdigest()
    PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_llama_dir), str(out))


def test_dpo_reference_base_disables_adapters(sft_run, tmp_path):
    config, sft_dir = sft_run
    config = load_config(None, **{**_flat(config), "output_dir": str(tmp_path / "run"), "dpo.reference": "base", "dpo.max_steps": 1})
    out = train.train_dpo(config, pairs(), sft_dir, progress=False)
    assert json.loads((out / "run_config.json").read_text())["resolved"]["reference"] == "base: adapters disabled (base model)"
    # Reference = the base model: the SFT adapter already differs from it at the first step.
    first = next(r for r in json.loads((out / "log_history.json").read_text()) if "loss" in r)
    assert first["rewards/margins"] != pytest.approx(0, abs=1e-4)


def test_dpo_resumes_with_its_reference_adapter(sft_run, tmp_path):
    import shutil

    config, sft_dir = sft_run
    config = load_config(None, **{**_flat(config), "output_dir": str(tmp_path / "run"), "dpo.save_total_limit": None})
    out = train.train_dpo(config, pairs(), sft_dir, progress=False)
    assert (out / "checkpoint-1" / "ref").is_dir()  # checkpoints carry the frozen reference
    shutil.rmtree(out / "checkpoint-2")
    train.train_dpo(config, pairs(), sft_dir, progress=False)
    assert json.loads((out / "run_config.json").read_text())["resolved"]["resumed_from"].endswith("checkpoint-1")
    assert json.loads((out / "metrics.json").read_text())["global_step"] == 2


def test_dpo_needs_an_adapter_folder(sft_run, tmp_path):
    config, _ = sft_run
    with pytest.raises(ValueError, match="not a LoRA adapter folder"):
        train.train_dpo(config, pairs(), tmp_path)


def _flat(config: TrainConfig) -> dict:
    d = config.to_json()
    flat = {k: v for k, v in d.items() if not isinstance(v, dict)}
    for section in ("lora", "sft", "dpo"):
        flat.update({f"{section}.{k}": v for k, v in d[section].items()})
    return flat


# ---------------------------------------------------------------- CLI glue


def test_train_command_runs_both_stages_with_db_pairs(tiny_llama_dir, tmp_path, monkeypatch):
    data = tmp_path / "data"
    formats.write_trl_sft(sft_examples(4), data / train.SFT_TRAIN_FILE)
    formats.write_trl_preferences(pairs(2), data / train.DPO_TRAIN_FILE)
    db = tmp_path / "labels.db"
    db.write_bytes(b"")
    seen = {}

    def fake_db_pairs(path):
        seen["path"] = path
        return [PreferenceExample(SYSTEM, "human", CALL_B, CALL_A)]

    monkeypatch.setattr(train, "load_db_pairs", fake_db_pairs)
    parser = argparse.ArgumentParser()
    train.add_train_arguments(parser)
    args = parser.parse_args(
        [
            "all",
            "--config",
            str(ROOT / "assets" / "train" / "cpu.yaml"),
            "--data",
            str(data),
            "--out",
            str(tmp_path / "run"),
            "--model",
            tiny_llama_dir,
            "--max-steps",
            "1",
            "--pairs-from-db",
            str(db),
            "--human-weight",
            "2",
            "--no-progress",
        ]
    )
    assert train.run_train_command(args) == 0
    assert seen["path"] == str(db)
    hashes = json.loads((tmp_path / "run" / "dpo" / "data_hashes.json").read_text())
    assert hashes["train"]["rows"] == 4 and set(hashes) >= {"bench_pairs", "pairs_db", "sft_adapter"}
    assert (tmp_path / "run" / "sft" / "adapter_model.safetensors").exists()
    assert (tmp_path / "run" / "dpo" / "adapter_model.safetensors").exists()


def test_train_command_without_data_says_what_to_pass(tmp_path):
    parser = argparse.ArgumentParser()
    train.add_train_arguments(parser)
    with pytest.raises(ValueError, match="--data DIR"):
        train.run_train_command(parser.parse_args(["sft", "--out", str(tmp_path)]))
