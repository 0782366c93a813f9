"""Instructions worded away from the gold API's docs (``petool.indirect``, ``BuildConfig.p_indirect``):
the table's rewording, values kept, determinism, share 0 as before the option, config validation."""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

import pytest

from petool.bench import BuildConfig, build, build_parts
from petool.catalog import load_catalog
from petool.indirect import alternatives, doc_words, stated_values, word_away
from petool.query import words

SMALL = Path(__file__).resolve().parent / "fixtures" / "catalog_small.json"


@pytest.fixture(scope="module")
def shipped():
    return load_catalog()


@pytest.mark.parametrize(
    "text, avoid, keep, gone, kept",
    [
        # the API's verb and object go, the value stays
        ("Search hotels in Lisbon.", {"search", "hotels"}, ["Lisbon"], ["search", "hotels"], ["Lisbon"]),
        # a value holding a word to avoid is left whole
        ("Translate 'weather report' to FR.", {"translate", "weather"}, ["weather report", "FR"], ["translate"], ["weather report", "FR"]),
        # plural forms take the singular's alternatives
        ("Show the latest headlines and articles.", {"latest", "headlines", "articles"}, [], ["latest", "headlines", "articles"], []),
        # a word not to avoid stays, even where the table has it
        ("What is the weather in Oslo?", {"forecast"}, ["Oslo"], [], ["weather", "Oslo"]),
        # the mask stays
        ("Check the status of order 4411 on ....", {"check", "status"}, ["4411", "..."], ["check", "status"], ["4411", "..."]),
    ],
)
def test_word_away_replaces_the_tables_words_and_keeps_values(text, avoid, keep, gone, kept):
    for seed in range(5):
        out = word_away(text, avoid, keep, random.Random(seed))
        left = set(words(out))
        for w in gone:
            assert w not in left, (w, out)
        for k in kept:
            assert k in out, (k, out)


def test_word_away_fixes_the_article_and_keeps_capitals():
    out = word_away("Resize an image, then Send an email.", {"image", "send", "email"}, [], random.Random(0))
    assert not re.search(r"\ban [^aeiouAEIOU\s]|\ba [aeiouAEIOU]", out), out
    assert out[0] == "R" and re.search(r"then [A-Z]", out), out


def test_word_away_leaves_words_without_an_alternative_and_compounds():
    # "zzyzx" has no alternative; "day-ahead" reads wrong with one half replaced
    avoid = {"zzyzx", "ahead", "prices"}
    out = word_away("Zzyzx day-ahead prices.", avoid, [], random.Random(0))
    assert out.startswith("Zzyzx day-ahead ") and "prices" not in out


def test_an_alternative_never_brings_back_a_word_to_avoid():
    # every alternative of "forecast" but one is also avoided: that one is always chosen
    avoid = {"forecast", "outlook", "prediction"}
    outs = {word_away("Daily forecast.", avoid, [], random.Random(s)) for s in range(10)}
    assert outs == {"Daily what to expect."}


def test_word_away_is_deterministic_per_seed():
    text, avoid = "Find the latest news and trending videos near the airport.", {"find", "latest", "news", "trending", "videos", "airport"}
    assert word_away(text, avoid, [], random.Random(3)) == word_away(text, avoid, [], random.Random(3))
    assert len({word_away(text, avoid, [], random.Random(s)) for s in range(10)}) > 1


def test_doc_words_leave_parameter_names():
    api = next(a for a in load_catalog(SMALL).apis if a.params)
    own = set(words(f"{api.name} {api.description}"))
    params = {w for p in api.params for w in words(p.name)}
    assert doc_words(api) == own - params


def test_stated_values_skip_flags_and_spell_lists():
    assert stated_values({"city": "Paris", "n": 3, "flag": True, "tags": ["a", "b"]}) == ["Paris", "3", "a", "b", "a, b"]


def test_every_reworded_query_keeps_its_values_and_loses_the_docs_words(shipped):
    config = {"seed": 11, "split_by": "category", "n_train": 40, "n_validation": 40, "n_test": 40}
    before = build_parts(shipped, BuildConfig(**config))
    after = build_parts(shipped, BuildConfig(**config, p_indirect=1.0))
    changed = 0
    for part in before:
        for old, new in zip(before[part], after[part], strict=True):
            api = next(a for a in shipped.apis if a.full_name == new.ground_truth.tool_name)
            values = stated_values(new.ground_truth.parameters)
            for v in values:
                if v in old.query:
                    assert v in new.query, (v, old.query, new.query)
            # outside values, masks and hyphenated compounds, no word the table can replace is left
            rest = new.query
            for v in sorted(values, key=len, reverse=True):
                rest = rest.replace(v, " ")
            rest = re.sub(r"\S*-\S*", " ", rest)
            avoid = doc_words(api)
            assert not {w for w in words(rest) if replaceable(w, avoid)}, (old.query, new.query)
            changed += old.query != new.query
    assert changed > 60  # most templates echo the docs


def replaceable(word: str, avoid: set[str]) -> bool:
    """The word is avoided and the table has an alternative for it that is not."""
    return word in avoid and any(not set(words(alt)) & avoid for alt in alternatives(word))


def test_the_share_rewords_only_queries_and_about_that_many(shipped):
    config = {"seed": 5, "split_by": "category", "n_train": 0, "n_validation": 100, "n_test": 100}
    plain = build_parts(shipped, BuildConfig(**config))
    half = build_parts(shipped, BuildConfig(**config, p_indirect=0.5))
    full = build_parts(shipped, BuildConfig(**config, p_indirect=1.0))
    for part in ("validation", "test"):
        reworded = 0
        for a, b, c in zip(plain[part], half[part], full[part], strict=True):
            assert (a.ground_truth, a.candidates, a.histories["p"]) == (b.ground_truth, b.candidates, b.histories["p"])
            assert [t.call for t in a.histories["r"]] == [t.call for t in b.histories["r"]]
            # the same draw decides: an entry reworded at 0.5 is reworded the same way at 1.0
            if b.query != a.query:
                reworded += 1
                assert b.query == c.query
        assert 25 <= reworded <= 65


def test_the_query_turn_in_r_is_worded_away_from_its_alternative(shipped):
    config = {"seed": 2, "split_by": "category", "n_train": 0, "n_validation": 0, "n_test": 150}
    plain = build_parts(shipped, BuildConfig(**config))["test"]
    full = build_parts(shipped, BuildConfig(**config, p_indirect=1.0))["test"]
    by_name = {a.full_name: a for a in shipped.apis}
    redone = 0
    for a, b in zip(plain, full, strict=True):
        for old, new in zip(a.histories["r"], b.histories["r"], strict=True):
            assert old.call == new.call and old.rating == new.rating
            if old.instruction != new.instruction:  # only the query asked of an alternative changes
                alt = by_name[new.call.tool_name]
                assert new.rating == 0 and alt.full_name in b.cluster and alt.full_name != b.ground_truth.tool_name
                assert not set(words(new.instruction)) & {w for w in doc_words(alt) if replaceable(w, doc_words(alt))}
                redone += 1
    assert redone


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "build_config.json":  # it names library versions
            h.update(str(p.relative_to(folder)).encode())
            data = p.read_bytes()
            if p.name == "summary.json":  # it names the catalog by its absolute path, which differs per checkout
                summary = json.loads(data)
                summary["catalog"] = Path(summary["catalog"]).name
                data = json.dumps(summary, sort_keys=True).encode()
            h.update(data)
    return h.hexdigest()


# The files of this build and its config as written before the option existed (bc0020b); a
# deliberate change of the generator updates them.
BEFORE_THE_OPTION = "6d62cd2993b5cbc6fa284625cab08edab50c79424ece570935a66085058f2c01"
CONFIG_BEFORE_THE_OPTION = "c7643f400797685e27603443d2a8f8a9ca13bdcaac28fec52db33051688dccda"


def test_share_zero_builds_what_was_built_before_the_option(tmp_path):
    cfg = BuildConfig(seed=7, n_train=12, n_test=8, n_users=5, n_candidates=6, window=8, k_range=(2, 3))
    build(cfg, tmp_path / "a", SMALL, progress=False)
    assert _digest(tmp_path / "a") == BEFORE_THE_OPTION
    config = json.loads((tmp_path / "a" / "build_config.json").read_text())["config"]
    assert "p_indirect" not in config
    assert hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest() == CONFIG_BEFORE_THE_OPTION
    build(BuildConfig(**{**cfg.__dict__, "p_indirect": 0.5}), tmp_path / "b", SMALL, progress=False)
    assert _digest(tmp_path / "b") != BEFORE_THE_OPTION
    assert json.loads((tmp_path / "b" / "build_config.json").read_text())["config"]["p_indirect"] == 0.5


@pytest.mark.parametrize("share", [-0.1, 1.5, float("nan")])
def test_a_share_outside_0_1_is_refused(share):
    with pytest.raises(ValueError, match=r"p_indirect must be a probability in 0\.\.1"):
        BuildConfig(p_indirect=share)


def test_petool_build_takes_the_share(tmp_path, capsys):
    from petool.cli import main

    base = ["build", "--n-train", "0", "--n-test", "6", "--seed", "4", "--no-progress", "--no-trl-sft", "--catalog", str(SMALL)]
    assert main(base + ["--out", str(tmp_path / "a"), "--indirect", "1.5"]) == 2
    assert "p_indirect" in capsys.readouterr().err
    assert main(base + ["--out", str(tmp_path / "b"), "--indirect", "0.5"]) == 0
    assert json.loads((tmp_path / "b" / "build_config.json").read_text())["config"]["p_indirect"] == 0.5


def test_generalisation_parts_take_the_share():
    from benchmarks import generalisation as gen

    plain, worded = gen.generated_parts(10, seed=4), gen.generated_parts(10, seed=4, indirect=1.0)
    pairs = [(a, b) for part in plain for a, b in zip(plain[part], worded[part], strict=True)]
    assert all(a.ground_truth == b.ground_truth and a.candidates == b.candidates for a, b in pairs)
    assert sum(a.query != b.query for a, b in pairs) > len(pairs) / 2
