"""Dashboard figures and the win-rate statistics."""

from __future__ import annotations

import math

import pytest

from petool import dashboards as d


def preds():
    rows = []
    for model, ok in (("base", [True, False, False, False]), ("tuned", [True, True, True, False])):
        for i, setting in enumerate(["p", "r", "c", "none"]):
            rows.append(
                {
                    "model": model,
                    "setting": setting,
                    "tool_ok": ok[i],
                    "params_ok": True,
                    "error": "ok" if ok[i] else "tool:preference_mismatch",
                    "category": "Weather" if i % 2 else "Music",
                    "history_length": 10 * i,
                }
            )
    return rows


def labels(verdicts):
    return [{"model_a": "base", "model_b": "tuned", "verdict": v, "annotator": "ann"} for v in verdicts]


def test_bootstrap_ci_is_deterministic_and_brackets_the_mean():
    outcomes = [1, 0, 1, 1, 0.5, 1, 0, 1]
    mean, lo, hi = d.bootstrap_ci(outcomes, seed=3)
    assert lo <= mean <= hi and (mean, lo, hi) == d.bootstrap_ci(outcomes, seed=3)
    assert d.bootstrap_ci([1, 1]) == (1.0, 1.0, 1.0)
    assert all(math.isnan(x) for x in d.bootstrap_ci([]))
    with pytest.raises(ValueError, match="level"):
        d.bootstrap_ci([1], level=2)


@pytest.mark.parametrize(
    "label, model, expected",
    [
        ({"model_a": "x", "model_b": "y", "verdict": "A"}, "x", "win"),
        ({"model_a": "x", "model_b": "y", "verdict": "A"}, "y", "loss"),
        ({"model_a": "x", "model_b": "y", "verdict": "both_bad"}, "y", "tie"),
        ({"model_a": "x", "model_b": "y", "verdict": "tie"}, "z", None),
        ({"model_a": "x", "model_b": "x", "verdict": "A"}, "x", None),
    ],
)
def test_label_outcome(label, model, expected):
    assert d.label_outcome(label, model) == expected


def test_win_rate_counts_ties_half():
    row = d.win_rate(labels(["B", "B", "A", "tie"]), "tuned", "base")
    assert (row["n"], row["wins"], row["losses"], row["ties"]) == (4, 2, 1, 1)
    assert row["rate"] == pytest.approx(2.5 / 4)
    [once] = d.win_rates(labels(["B"]))  # once per pair of models, not mirrored
    assert (once["model"], once["opponent"], once["rate"]) == ("base", "tuned", 0.0)


def test_verdicts_count_by_model_not_by_side():
    """Blind mode shuffles the sides: the same preference shown as A or as B counts the same."""
    shown = [
        {"model_a": "base", "model_b": "tuned", "verdict": "B"},
        {"model_a": "tuned", "model_b": "base", "verdict": "A"},
        {"model_a": "tuned", "model_b": "base", "verdict": "both_bad"},
        {"model_a": "base", "model_b": "tuned", "verdict": "tie"},
    ]
    counts = d.verdicts_by_model(shown)
    assert counts["tuned"] == {"preferred": 2, "both bad": 1, "tie": 1}
    assert counts["base"] == {"not preferred": 2, "both bad": 1, "tie": 1}
    fig = d.label_stats_figure(shown)
    assert sorted(fig.data[0].x) == ["base", "tuned"] and {t.name for t in fig.data} == {"preferred", "not preferred", "tie", "both bad"}


def test_figures_have_data():
    recs = preds()
    fig = d.accuracy_figure(recs)
    assert {t.name for t in fig.data} == {"base", "tuned"}
    tuned_tool = next(t for t in fig.data if t.name == "tuned" and t.xaxis == "x")
    assert list(tuned_tool.y) == [1.0, 1.0, 1.0, 0.0]
    hist = d.history_effect_figure(recs)
    assert set(hist.data[0].x) == {"with", "without"}
    assert d.bucket_figure(recs).data and d.category_figure(recs).data and d.error_figure(recs).data
    assert d.label_stats_figure(labels(["A", "B"])).data
    assert d.win_rate_figure(labels(["A", "B"])).data


def test_empty_figures_say_so():
    for fig in (d.accuracy_figure([]), d.category_figure([]), d.error_figure([]), d.label_stats_figure([]), d.win_rate_figure([])):
        assert fig.layout.annotations and not fig.data


def test_training_figure_has_a_panel_per_stage_and_dpo_reward_accuracy():
    logs = {
        "sft": [{"step": 1, "loss": 1.0}, {"step": 2, "loss": 0.5}],
        "dpo": [{"step": 1, "loss": 0.69, "rewards/accuracies": 0.5}, {"step": 2, "loss": 0.6, "rewards/accuracies": 0.75}],
    }
    fig = d.training_figure(logs, "t")
    assert [(t.name, list(t.y)) for t in fig.data] == [
        ("sft loss", [1.0, 0.5]),
        ("dpo loss", [0.69, 0.6]),
        ("dpo rewards/accuracies", [0.5, 0.75]),
    ]
    assert [a.text for a in fig.layout.annotations] == ["SFT", "DPO"]
    # a stage that logged no loss has no panel; none at all says so
    no_sft_loss = d.training_figure({"sft": [{"step": 1, "learning_rate": 1e-4}], "dpo": logs["dpo"]})
    assert [a.text for a in no_sft_loss.layout.annotations] == ["DPO"]
    empty = d.training_figure({"sft": [{"step": 1, "learning_rate": 1e-4}]})
    assert not empty.data and "No training log" in empty.layout.annotations[0].text
