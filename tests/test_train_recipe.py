"""The shipped adapter's recipe (scripts/train_petoolllama.py): its default data unchanged by the
new options, several catalogs, near-miss negatives, a run killed mid-SFT resuming, and the card."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from petool import adapter_card
from petool.catalog import DEFAULT_CATALOG, load_catalog

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "train_petoolllama.py"
SMALL_DATA = ["--n-entries", "120", "--n-heldout", "12", "--sft-per-setting", "16", "--dpo-per-setting", "6"]


@pytest.fixture(scope="module")
def recipe():
    spec = importlib.util.spec_from_file_location("train_petoolllama", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def data_hashes(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((out / "data").iterdir()) if p.name != "data.json"}


def renamed_shipped_catalog(path: Path) -> Path:
    """The shipped catalog under other names (every tool and cluster renamed): a second catalog
    that merges with the shipped one and gives as many entries."""
    data = json.loads(DEFAULT_CATALOG.read_text(encoding="utf-8"))
    for t in data["tools"]:
        t["name"] += " Two"
        for a in t["apis"]:
            a["cluster"] = f"two.{a['cluster']}" if a.get("cluster") else a.get("cluster")
    data["clusters"] = {f"two.{cid}": text for cid, text in data["clusters"].items()}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_new_options_at_their_defaults_build_the_same_data(recipe, tmp_path):
    plain, explicit = tmp_path / "plain", tmp_path / "explicit"
    assert recipe.main(["--out", str(plain), "--stop-after", "data", *SMALL_DATA]) == 0
    defaults = ["--catalog", str(DEFAULT_CATALOG), "--hard-negatives", "0", "--extra-sft-per-setting", "0", "--save-steps", "7"]
    assert recipe.main(["--out", str(explicit), "--stop-after", "data", *SMALL_DATA, *defaults]) == 0
    assert data_hashes(plain) == data_hashes(explicit)
    assert not (plain / "sft").exists()  # --stop-after data
    facts = json.loads((plain / "data" / "data.json").read_text())
    [catalog] = facts["catalogs"]
    assert catalog["path"] == "assets/catalog.json" and catalog["sha256"] == hashlib.sha256(DEFAULT_CATALOG.read_bytes()).hexdigest()
    assert facts["sft_by_catalog"] == {"assets/catalog.json": facts["sft"]} and "bench:near_miss" not in facts["dpo_sources"]


def test_a_second_catalog_near_misses_and_extra_sft_examples(recipe, tmp_path):
    second = renamed_shipped_catalog(tmp_path / "two.json")
    base = ["--stop-after", "data", *SMALL_DATA, "--catalog", str(DEFAULT_CATALOG), "--catalog", str(second)]
    assert recipe.main(["--out", str(tmp_path / "merged"), *base]) == 0
    assert recipe.main(["--out", str(tmp_path / "more"), *base, "--hard-negatives", "2", "--extra-sft-per-setting", "5"]) == 0
    merged = json.loads((tmp_path / "merged" / "data" / "data.json").read_text())
    more = json.loads((tmp_path / "more" / "data" / "data.json").read_text())
    assert [c["path"] for c in merged["catalogs"]] == ["assets/catalog.json", str(second)]
    assert merged["catalogs"][1]["summary"]["tools"] == load_catalog().summary()["tools"]
    assert set(merged["sft_by_catalog"]) == {"assets/catalog.json", str(second)}  # gold calls from both
    # the extras come from the added catalog, on top of the usual draw
    assert more["sft"] == merged["sft"] + 3 * 5
    assert more["sft_by_catalog"][str(second)] == merged["sft_by_catalog"][str(second)] + 3 * 5
    # near misses come on top of the usual pairs, which stay as they were
    near = more["dpo_sources"].pop("bench:near_miss")
    assert 0 < near <= 2 * 3 * 6 and more["dpo_sources"] == merged["dpo_sources"]
    rows = [json.loads(line) for line in (tmp_path / "more" / "data" / "dpo_bench.jsonl").read_text().splitlines()]
    plain = [json.loads(line) for line in (tmp_path / "merged" / "data" / "dpo_bench.jsonl").read_text().splitlines()]
    assert len(rows) == len(plain) + near


def test_clashing_catalogs_stop_the_run_before_training(recipe, tmp_path):
    with pytest.raises(ValueError, match="is in both"):
        recipe.main(["--out", str(tmp_path / "x"), "--catalog", str(DEFAULT_CATALOG), "--catalog", str(DEFAULT_CATALOG), *SMALL_DATA])


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--save-steps", "0"], "--save-steps must be at least 1"),
        (["--hard-negatives", "-1"], "--hard-negatives must be 0 or more"),
        (["--card-figures", "dev"], "expected LABEL=PATH"),
        (["--card-figures", "dev=/nonexistent/run"], "no metrics file at /nonexistent/run/metrics.json"),
    ],
)
def test_bad_options_fail_before_any_work(recipe, tmp_path, flags, message):
    with pytest.raises((SystemExit, ValueError), match=message):
        recipe.main(["--out", str(tmp_path / "x"), *flags])
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--out", "r", "--card-figures", "dev=a", "--seed", "3"], ["--out", "r", "--seed", "3"]),
        (["--card-figures=dev=a", "--no-ship", "--card-figures", "held-out=b"], ["--no-ship"]),
        ([], []),
    ],
)
def test_the_cards_command_line_leaves_the_figures_out(recipe, argv, expected):
    assert recipe.without_option(argv, "--card-figures") == expected


# ---------------------------------------------------------------- a long run killed and resumed


def test_a_run_killed_after_a_checkpoint_resumes_and_ends_with_the_same_steps(tiny_llama_dir, tmp_path):
    out = tmp_path / "run"
    command = [
        sys.executable,
        str(SCRIPT),
        "--out",
        str(out),
        "--base",
        tiny_llama_dir,
        "--n-entries",
        "40",
        "--n-heldout",
        "6",
        "--sft-per-setting",
        "8",
        "--dpo-per-setting",
        "2",
        "--sft-steps",
        "6",
        "--save-steps",
        "2",
        "--stop-after",
        "sft",
        "--no-ship",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    sft = out / "sft"
    deadline = time.time() + 300
    try:
        while not (sft / "checkpoint-2" / "trainer_state.json").exists():
            assert first.poll() is None, "the run ended before its first checkpoint"
            assert time.time() < deadline, "no checkpoint-2 within 300 s"
            time.sleep(0.05)
    finally:
        first.send_signal(signal.SIGKILL)  # as a machine going down: no clean-up runs
        first.wait()
    assert not (sft / "metrics.json").exists()  # killed mid-SFT, not after it
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    resumed = json.loads((sft / "run_config.json").read_text())["resolved"]["resumed_from"]
    assert resumed and Path(resumed).parent == sft and int(Path(resumed).name.split("-")[1]) >= 2
    assert json.loads((sft / "metrics.json").read_text())["global_step"] == 6
    steps = [r["step"] for r in json.loads((sft / "log_history.json").read_text()) if "loss" in r]
    assert steps[-1] == 6
    timings = json.loads((out / "timings.json").read_text())
    assert [s["end"] is None for s in timings["sft"]] == [True, False]  # one killed segment, one finished
    assert len(timings["data"]) == 1  # the data stage was not redone


# ---------------------------------------------------------------- the card


def metrics_file(path: Path, rows: list[tuple[str, int, float, float]]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    by_setting = [{"setting": s, "n": n, "tool_acc": t, "param_acc": p} for s, n, t, p in rows]
    (path / "metrics.json").write_text(json.dumps({"by_setting": by_setting, "finished": "2026-12-07T10:00:00"}))
    return path / "metrics.json"


def test_read_figures_takes_an_evaluations_metrics_file_or_folder(tmp_path):
    path = metrics_file(tmp_path / "eval", [("p", 100, 0.7, 0.869), ("r", 100, 0.956, 0.9074)])
    for spec in (f"dev={path}", f"dev={path.parent}", f" dev = {path}"):
        fig = adapter_card.read_figures(spec)
        assert fig["label"] == "dev" and fig["path"] == str(path)
        assert fig["by_setting"] == {"p": {"n": 100, "tool": 70.0, "param": 86.9}, "r": {"n": 100, "tool": 95.6, "param": 90.7}}


@pytest.mark.parametrize(
    "content, message",
    [
        ("not json", "is not JSON"),
        ('{"overall": {}}', "no 'by_setting' rows"),
        ('{"by_setting": [{"setting": "p"}]}', "malformed row"),
    ],
)
def test_read_figures_refuses_what_is_not_an_evaluation(tmp_path, content, message):
    (tmp_path / "metrics.json").write_text(content)
    with pytest.raises(ValueError, match=message):
        adapter_card.read_figures(f"dev={tmp_path / 'metrics.json'}")


def card_facts(figures: list[dict]) -> dict:
    return {
        "base_model": "HuggingFaceTB/SmolLM2-135M-Instruct",
        "args": {"sft_per_setting": 128, "extra_sft_per_setting": 0, "hard_negatives": 2, "mistake_entries": 48, "base": "default"},
        "data": {
            "sft": 384,
            "dpo_bench": 90,
            "config": {"seed": 7, "n_train": 900, "n_test": 60, "style": "shortlist"},
            "catalogs": [{"path": "assets/catalog.json", "sha256": "c85a57d40b36" + "0" * 52, "summary": load_catalog().summary()}],
            "dpo_sources": {"bench:preference": 53, "bench:near_miss": 18},
        },
        "files": {"data/sft_train.jsonl": {"rows": 384, "sha256": "4c4a9a45" + "0" * 56}},
        "mistakes": 33,
        "dpo_pairs": 123,
        "time": {"sft": (1765.0, 2, 1), "dpo": (2158.0, 1, 0)},
        "figures": figures,
    }


def test_card_states_data_time_and_leaves_slots_for_missing_figures():
    text = adapter_card.render_card(card_facts([]))
    assert "| `assets/catalog.json` | `c85a57d40b36…` | 39 | 188 | 621 | 278 |" in text
    assert "`4c4a9a45" in text and "384 examples" in text and "bench:near_miss 18" in text and "near misses: up to 2" in text
    assert "- sft: 1,765 s (29 min), 2 runs, 1 interrupted (their time not counted)" in text
    assert "- in all: 3,923 s (65 min)" in text
    for label in adapter_card.REQUIRED_FIGURES:
        assert f"not measured yet: `--card-figures {label}=PATH/metrics.json`" in text


def test_card_fills_the_figure_rows_from_metrics_files(tmp_path):
    held_out = adapter_card.read_figures(f"held-out={metrics_file(tmp_path / 'h', [('p', 300, 0.5, 0.6), ('c', 300, 0.8, 0.75)])}")
    extra = adapter_card.read_figures(f"seen={metrics_file(tmp_path / 's', [('r', 300, 0.9, 0.91)])}")
    text = adapter_card.render_card(card_facts([held_out, extra]))
    row = next(line for line in text.splitlines() if line.startswith("| generated held-out"))
    assert "| 50.0 / 60.0 (n 300) | – | 80.0 / 75.0 (n 300) |" in row and str(tmp_path / "h" / "metrics.json") in row
    assert "not measured yet: `--card-figures dev=" in text  # the dev slot stays open
    assert "| seen | – | 90.0 / 91.0 (n 300) | – |" in text


def test_stage_seconds_counts_finished_segments_only():
    timings = {"sft": [{"start": 0, "end": None}, {"start": 100, "end": 160}, {"start": 200, "end": 230}], "data": []}
    assert adapter_card.stage_seconds(timings) == {"sft": (90, 3, 1), "data": (0, 0, 0)}
