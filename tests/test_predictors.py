"""One door from a model spec to a predictor: what each spec names and what gets built."""

from __future__ import annotations

import pytest

from petool.baselines import RuleBaseline
from petool.predictors import ModelSpec, build_predictor
from petool.remote import OpenAIPredictor
from tests.fixtures.entries import weather_entry


@pytest.mark.parametrize(
    "text, kind, target",
    [
        ("baseline:rules", "baseline", "rules"),
        ("evidence", "baseline", "evidence"),  # a bare rule name, as `petool eval --model` accepts
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("default", "local", "default"),
        ("HuggingFaceTB/SmolLM2-135M-Instruct", "local", "HuggingFaceTB/SmolLM2-135M-Instruct"),
        ("./my-model", "local", "./my-model"),
    ],
)
def test_a_spec_says_what_it_names(text, kind, target):
    spec = ModelSpec.parse(text)
    assert (spec.kind, spec.target, spec.text) == (kind, target, text)
    assert spec.is_local == (kind == "local")


def test_rule_baselines_are_built_with_their_seed_and_refuse_an_adapter():
    p = build_predictor("baseline:random", seed=3)
    assert isinstance(p, RuleBaseline) and p.seed == 3 and not p.has_adapter
    assert build_predictor(ModelSpec.parse("latest")).name == "baseline:latest"
    with pytest.raises(ValueError, match="--adapter applies to language models"):
        build_predictor("baseline:rules", adapter="default")
    with pytest.raises(ValueError, match="unknown baseline"):
        build_predictor("baseline:nope")
    g = p.generate(weather_entry(), "p", rank_prior=3.0)
    assert g.model == "baseline:random" and g.tool_scores is None and not g.timed_out
    with pytest.raises(ValueError, match="has no adapter"):
        p.generate(weather_entry(), "p", use_adapter=True)


def test_an_endpoint_model_gets_the_time_limit_and_no_local_options():
    p = build_predictor("openai:m", base_url="http://127.0.0.1:9/v1", api_key="", max_time_s=5, max_new_tokens=9)
    assert isinstance(p, OpenAIPredictor) and p.timeout == 5 and not p.has_adapter and p.style == "paper"
    with pytest.raises(TypeError, match="openai:NAME models only"):
        build_predictor("default", api_key="x")


def test_the_spec_describes_itself_for_the_about_tab():
    assert ModelSpec.parse("baseline:rules").describe() == "baseline:rules"
    assert "OpenAI-compatible" in ModelSpec.parse("openai:m").describe()
