"""benchmarks/fit_scorers.py: the fit-alone measure, the learned scorer's training, the stripped
guard and the base model's PMI (on the tiny model)."""

import dataclasses

import numpy as np
import pytest

from benchmarks import fit_scorers as fs
from petool.schema import ToolCall
from tests.fixtures.entries import NEWS, WEATHER_A, WEATHER_B, weather_entry


def test_fit_outcome_says_whether_the_best_candidate_lies_in_the_cluster_and_where_the_gold_ranks():
    entry = dataclasses.replace(weather_entry(), cluster=[WEATHER_A, WEATHER_B])
    assert fs.fit_outcomes(entry, {WEATHER_A: 0.2, WEATHER_B: 0.9, NEWS: 0.5} | _zero(entry)) == (True, 3)
    assert fs.fit_outcomes(entry, {WEATHER_A: 0.2, WEATHER_B: 0.1, NEWS: 0.5} | _zero(entry))[0] is False
    other = dataclasses.replace(entry, ground_truth=ToolCall(WEATHER_B, {}))
    assert fs.fit_outcomes(other, {WEATHER_A: 0.2, WEATHER_B: 0.9, NEWS: 0.5} | _zero(entry)) == (True, 1)


def _zero(entry):
    return {t.name: 0.0 for t in entry.candidates if t.name not in (WEATHER_A, WEATHER_B, NEWS)}


def test_summary_paired_sign_test_and_wilson_interval():
    a = [(True, 1), (True, 2), (False, 5), (False, 3)]
    b = [(True, 1), (False, 2), (True, 1), (True, 2)]
    m = fs.summary(b)
    assert (m["n"], m["cluster_first"], m["gold_first"], m["gold_listed"]) == (4, 75.0, 50.0, 100.0)
    assert fs.paired(a, b).startswith("+2 / -1")
    assert fs.paired(a, a) == "+0 / -0 (sign test p = 1.000)"
    lo, hi = fs.wilson(45, 50)
    assert 78 < lo < 90 < hi < 96


def test_the_listwise_scorer_learns_which_feature_marks_the_cluster():
    rng = np.random.default_rng(0)
    xs, targets = [], []
    for _ in range(40):
        x = rng.random((6, 2))
        t = np.zeros(6)
        t[int(np.argmax(x[:, 1]))] = 1.0  # the second feature finds the target, the first is noise
        xs.append(x)
        targets.append(t)
    w = fs.train_listwise(xs, targets, steps=300)
    assert w[1] > 1.0 > abs(w[0])


def test_stripping_removes_the_golds_own_words_and_keeps_the_rest():
    entry = dataclasses.replace(weather_entry(), query="Daily forecast for the city of Rome, please.")
    gold = entry.candidate(entry.ground_truth.tool_name)
    stripped = fs.strip_gold_words(entry)
    own = set(fs.words(f"{fs.ranking.api_name(gold)} {gold.description}"))
    assert own & set(fs.words(entry.query)), "the fixture's query should share words with its gold"
    assert not own & set(fs.words(stripped.query))
    assert "Rome," in stripped.query and "please." in stripped.query
    assert stripped.candidates == entry.candidates and stripped.ground_truth == entry.ground_truth


def test_lexical_features_are_scaled_within_the_entry():
    entry = weather_entry()
    x = fs.lexical_features(entry.query, entry.candidates)
    assert x.shape == (len(entry.candidates), len(fs.FEATURES))
    assert x.max() <= 1.0 and np.allclose(x[:, fs.FEATURES.index("lexical")].max(), 1.0)


@pytest.fixture(scope="module")
def tiny_pmi(tmp_path_factory):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.tiny_model import build_tiny_llama

    path = build_tiny_llama(tmp_path_factory.mktemp("tiny"))
    return fs.PMIScorer(AutoModelForCausalLM.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path))


def test_pmi_batched_equals_one_by_one_and_is_cached(tiny_pmi):
    entry = weather_entry()
    docs = [fs.api_doc(t) for t in entry.candidates[:3]] + [""]
    batched = tiny_pmi._log_likelihoods(entry.query, docs)
    single = [tiny_pmi._log_likelihoods(entry.query, [d])[0] for d in docs]
    assert batched == pytest.approx(single, abs=1e-4)
    scores = tiny_pmi(entry.query, entry.candidates[:3])
    assert list(scores.values()) == pytest.approx([b - batched[-1] for b in batched[:3]], abs=1e-4)
    calls = tiny_pmi.calls
    assert tiny_pmi(entry.query, entry.candidates[:3]) == scores and tiny_pmi.calls == calls
