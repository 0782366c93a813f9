"""The app's handlers as plain functions: no gradio server, a scripted fake model."""

from __future__ import annotations

import html
import json
import re
import sys
import zipfile
from pathlib import Path

import pytest

from petool import jobs
from petool.appconfig import AppConfig, parse_auth
from petool.schema import Tool, entry_from_dict, entry_to_dict
from petool.ui import compare, comparison, dash, entry_edits, errors, export
from petool.ui.render import call_html, esc, param_rows
from petool.ui.services import BASE, GENERATED, SAVED, TUNED, Services, _build_generated
from tests.app_fakes import FakePredictor


@pytest.fixture(scope="module")
def generated():
    return _build_generated(n=12, seed=1)


@pytest.fixture
def services(tmp_path, generated):
    config = AppConfig(db_path=str(tmp_path / "db" / "petool.db"), data_path=None)
    s = Services(config, predictor_factory=FakePredictor, generated=[entry_from_dict(entry_to_dict(e)) for e in generated])
    yield s
    s.store.close()


def first(services):
    return services.generated()[0]


# ---------------------------------------------------------------- config


def test_config_from_env(tmp_path):
    c = AppConfig.from_env(
        {
            "PETOOL_DB": str(tmp_path / "x.db"),
            "PETOOL_DEMO": "yes",
            "PETOOL_AUTH": "ann:pw,bob:pw2",
            "GRADIO_SERVER_PORT": "7999",
            "PETOOL_ADAPTER": "none",
        }
    )
    assert (c.demo, c.auth, c.server_port, c.adapter, c.ephemeral) == (True, [("ann", "pw"), ("bob", "pw2")], 7999, None, False)
    space = AppConfig.from_env({"SPACE_ID": "me/petool", "PETOOL_DB": str(tmp_path / "x.db")})
    assert space.demo and space.ephemeral and space.server_name == "0.0.0.0" and "ephemeral" in space.storage_notice


@pytest.mark.parametrize(
    "env, match",
    [
        ({"PETOOL_DEMO": "maybe"}, "PETOOL_DEMO"),
        ({"GRADIO_SERVER_PORT": "http"}, "GRADIO_SERVER_PORT"),
        ({"PETOOL_QUEUE": "0"}, "PETOOL_QUEUE"),
        ({"PETOOL_AUTH": "justaname"}, "PETOOL_AUTH"),
    ],
)
def test_config_errors_name_the_variable(env, match):
    with pytest.raises(ValueError, match=match):
        AppConfig.from_env(env)


def test_parse_auth_empty():
    assert parse_auth("") == []


# ---------------------------------------------------------------- rendering


def test_html_is_escaped():
    evil = {"tool_name": "<script>alert(1)</script>", "parameters": {"<img src=x onerror=alert(1)>": "<b>"}}
    out = call_html(evil, title="<i>t</i>", raw="<script>x</script>", gold={"tool_name": "x", "parameters": {}})
    assert "<script>" not in out and "<img" not in out and "<i>t</i>" not in out
    assert esc("<a>") == "&lt;a&gt;"


def test_param_rows_mark_type_sensitive_differences():
    rows = param_rows({"parameters": {"n": 5, "q": "x"}}, {"parameters": {"n": "5", "q": "x"}}, {"parameters": {"n": 5}})
    by = {r["name"]: r for r in rows}
    assert by["n"]["differs"] and not by["n"]["wrong"]
    assert not by["q"]["differs"] and by["q"]["wrong"]


# ---------------------------------------------------------------- builder


def test_build_a_history_from_scratch(services):
    d, msg = entry_edits.create_user(services, "ann", "privacy-first", seed=1)
    assert "ann" in msg and d["preferred_tools"]
    assert services.store.get_user("ann")["profile"]["profile"] == "privacy-first"
    cat = services.catalog()
    tool = next(t for t in cat.values() if t.required_parameters)
    params = entry_edits.example_params(tool)
    d = entry_edits.add_turn(services, d, "r", tool.name, "do the thing", params, "0")
    other = next(t for t in cat.values() if not t.required_parameters)
    d = entry_edits.add_turn(services, d, "r", other.name, "another thing", "{}", "1")
    assert [t["rating"] for t in d["histories"]["r"]] == [0, 1]
    d = entry_edits.rate_turn(d, "r", 1, "1")
    d, pos = entry_edits.move_turn(d, "r", 2, -1)
    assert pos == 1 and d["histories"]["r"][0]["instruction"] == "another thing"
    d = entry_edits.update_turn(services, d, "r", 2, tool.name, "edited", params, "0")
    d, msg = entry_edits.derive_settings(d, "r")
    assert len(d["histories"]["p"]) == 1 and [t["instruction"] for t in d["histories"]["c"]] == ["edited", "another thing"]
    assert "rating" not in d["histories"]["c"][0]
    d = entry_edits.delete_turn(d, "r", 1)
    assert len(d["histories"]["r"]) == 1
    d, msg = entry_edits.suggest_candidates(services, d, "Get the current weather in Paris")
    assert len(d["candidates"]) == entry_edits.N_CANDIDATES and "candidates" in msg
    name = d["candidates"][0]["tool_name"]
    d = entry_edits.remove_candidate(d, name)
    d = entry_edits.add_candidate(services, d, name)
    gold_tool = entry_from_dict(d).candidate(name)
    d = entry_edits.set_gold(services, d, name, entry_edits.example_params(gold_tool))
    system, user = entry_edits.preview_prompt(d, "r", "paper")
    assert "with user's binary ratings" in system and user == "Get the current weather in Paris"
    assert "Saved entry" in entry_edits.save_entry(services, d, "ann")
    [row] = services.store.list_entries(SAVED)
    assert row["user"] == "ann"
    loaded, _ = entry_edits.load_entry(services, SAVED, row["key"])
    assert loaded["query"] == d["query"] and loaded["ground_truth"]["tool_name"] == name


@pytest.mark.parametrize(
    "params, match",
    [
        ("{bad", "not valid JSON"),
        ("[1]", "JSON object"),
        ('{"nope": 1}', "unknown parameter"),
    ],
)
def test_turn_parameters_are_validated(services, params, match):
    d = entry_edits.blank_entry("ann")
    tool = next(t for t in services.catalog().values() if not t.required_parameters)
    with pytest.raises(ValueError, match=match):
        entry_edits.add_turn(services, d, "p", tool.name, "x", params)


def test_validate_params_types():
    from petool.schema import Parameter

    tool = Tool("<A>.<B>.<c>", required_parameters=[Parameter("n", "NUMBER")], optional_parameters=[Parameter("flag", "BOOLEAN")])
    assert entry_edits.validate_params(tool, {"n": 3}) == []
    assert entry_edits.validate_params(tool, {}) == ["missing required parameter 'n'"]
    assert "must be a number" in entry_edits.validate_params(tool, {"n": "3"})[0]
    assert "true or false" in entry_edits.validate_params(tool, {"n": 1, "flag": "yes"})[0]


def test_builder_errors_are_clear(services):
    d = entry_edits.blank_entry("x")
    with pytest.raises(ValueError, match="Select a turn"):
        entry_edits.delete_turn(d, "p", None)
    with pytest.raises(ValueError, match="no turn #3"):
        entry_edits.delete_turn(d, "p", 3)
    with pytest.raises(ValueError, match="Type a query"):
        entry_edits.suggest_candidates(services, d, "  ")
    with pytest.raises(ValueError, match="unknown tool"):
        entry_edits.add_turn(services, d, "p", "<No>.<Such>.<tool>", "x", "{}")


def test_load_generated_entry(services):
    e = first(services)
    d, msg = entry_edits.load_entry(services, GENERATED, e.key)
    assert d["query"] == e.query and entry_edits.turn_rows(d, "p") and entry_edits.candidate_rows(d)
    assert "★" in "".join(r[1] for r in entry_edits.candidate_rows(d))


# ---------------------------------------------------------------- compare and label


def test_compare_and_label(services):
    e = first(services)
    d = entry_to_dict(e)
    seen = []
    result = comparison.run_compare(services, d, "r", BASE, TUNED, progress=lambda *a, **k: seen.append(k.get("desc")))
    a, b = result["sides"]
    assert a["model"] == "fake-base" and b["model"] == "fake-base+fake-adapter"
    assert b["error"] == "ok" and b["tool_ok"] and a["error"] == "tool:preference_mismatch"
    assert seen[-1] == "done" and "with user's binary ratings" in result["prompt"]
    html_a, html_b, md = compare.render_result(result)
    assert "fake-base" in html_a and "pt-wrong" in html_a and "pt-right" in html_b
    # how each side chose its tool: log-likelihood + rank prior per name, the chosen one marked
    assert b["tool_choice"]["scores"][e.ground_truth.tool_name] == -0.5
    assert "log-likelihood" not in md  # the scores have their own collapsed block
    md = compare.render_scores(result)
    assert "Side B chose the tool by log-likelihood + rank prior" in md
    gold_line = next(line for line in md.split("\n") if "← chosen" in line and "Side" not in line and "-0.50 + -0.00" in line)
    assert "**-0.50**" in gold_line
    labelled = comparison.submit_label(services, result, "B", "ann", ["ignores preference"], "B knows the user")
    [label] = services.store.labels()
    assert label["verdict"] == "B" and label["model_b"] == "fake-base+fake-adapter" and label["tags"] == ["ignores preference"]
    assert label["prompt"] == result["prompt"] and labelled["labelled"]["id"] == label["id"]
    [pair] = services.store.preference_examples()
    assert json.loads(pair.chosen) == e.ground_truth.to_json()


def test_compare_sets_the_ranking_prior_per_call(services):
    d = entry_to_dict(first(services))
    comparison.run_compare(services, d, "r", BASE, TUNED, rank_prior=0)
    fake = services.model.predictor()
    assert fake.weights[-2:] == [0.0, 0.0]
    comparison.run_compare(services, d, "r", BASE, TUNED)  # None: the default weight again
    assert fake.weights[-2:] == [2.5, 2.5]
    result = comparison.run_compare(services, d, "r", BASE, TUNED, rank_prior=11)
    assert all("ranking prior" in side["model_error"] for side in result["sides"])


def test_blind_mode_hides_then_reveals(services):
    d = entry_to_dict(first(services))
    results = [comparison.run_compare(services, d, "p", BASE, TUNED, blind=True, seed=s) for s in range(6)]
    assert {r["swapped"] for r in results} == {True, False}
    r = results[0]
    html_a, _, _ = compare.render_result(r)
    assert "hidden until your verdict" in html_a and r["sides"][0]["model"] not in html_a
    # the scores would tell the sides apart (the tuned one is sure of its tool): hidden until the vote
    assert compare.render_scores(r) == compare.SCORES_HIDDEN
    done = comparison.submit_label(services, r, "tie", "ann")
    html_a, _, md = compare.render_result(done)
    assert r["sides"][0]["model"] in html_a and "A was" in md
    assert "chose the tool by log-likelihood" in compare.render_scores(done)
    assert services.store.labels()[0]["blind"] is True


def test_gold_edit_becomes_chosen(services):
    e = first(services)
    result = comparison.run_compare(services, entry_to_dict(e), "p", BASE, BASE)
    gold = comparison.gold_text(result, "ground truth")
    comparison.submit_label(services, result, "both_bad", "ann", gold=gold)
    assert services.store.labels()[0]["gold_call"] == e.ground_truth.to_json()
    with pytest.raises(ValueError, match="not one of the candidates"):
        comparison.submit_label(services, result, "A", "ann", gold='{"tool_name": "<X>.<Y>.<Z>", "parameters": {}}')
    with pytest.raises(ValueError, match="not valid JSON"):
        comparison.submit_label(services, result, "A", "ann", gold="{")


def test_label_needs_annotator_and_comparison(services):
    with pytest.raises(ValueError, match="Run a comparison"):
        comparison.submit_label(services, None, "A", "ann")
    result = comparison.run_compare(services, entry_to_dict(first(services)), "p", BASE, TUNED)
    with pytest.raises(ValueError, match="annotator"):
        comparison.submit_label(services, result, "A", " ")


def test_one_vote_per_comparison_and_only_on_its_own_entry(services):
    e, other = services.generated()[:2]
    d = entry_to_dict(e)
    result = comparison.run_compare(services, d, "p", BASE, TUNED)
    assert comparison.stale_reason(result, d, "p") is None
    assert "another entry" in comparison.stale_reason(result, entry_to_dict(other), "p")
    assert "setting p, not r" in comparison.stale_reason(result, d, "r")
    edited = entry_edits.delete_turn(d, "p", 1)  # the same entry, edited in Build after the run
    assert "another entry" in comparison.stale_reason(result, edited, "p")
    with pytest.raises(ValueError, match="another entry"):
        comparison.submit_label(services, result, "A", "ann", current=entry_to_dict(other))
    assert services.store.labels() == []
    done = comparison.submit_label(services, result, "A", "ann", current=d)
    with pytest.raises(ValueError, match=r"already has a vote \(label #\d+: A is better\); run a new round"):
        comparison.submit_label(services, done, "B", "ann", current=d)
    assert [r["verdict"] for r in services.store.labels()] == ["A"]
    again = comparison.run_compare(services, d, "p", BASE, TUNED)
    assert again["id"] != result["id"]
    comparison.submit_label(services, again, "B", "ann", current=d)
    assert [r["verdict"] for r in services.store.labels()] == ["A", "B"]


def test_refusals_leave_outputs_alone_but_the_message():
    from petool.ui.common import refusable

    def handler(x):
        if x < 0:
            raise ValueError("x must be <b>positive</b>")
        return "done", x

    run = refusable(handler, 2, 0)
    assert run(1) == ("done", 1)
    message, untouched = run(-1)
    assert message == "⚠️ x must be &lt;b&gt;positive&lt;/b&gt;" and untouched == {"__type__": "update"}


def test_model_failure_is_shown_not_raised(services):
    def broken():
        raise RuntimeError("no weights here")

    services.model._factory = broken
    result = comparison.run_compare(services, entry_to_dict(first(services)), "p", BASE, "baseline:rules")
    assert result["sides"][0]["error"] == "model:error" and "no weights" in result["sides"][0]["model_error"]
    assert result["sides"][1]["model"] == "baseline:rules" and result["sides"][1]["call"]


def test_user_built_entry_without_gold(services):
    d = entry_edits.blank_entry("ann")
    d, _ = entry_edits.suggest_candidates(services, d, "weather forecast for Paris")
    result = comparison.run_compare(services, d, "p", BASE, "baseline:nohistory")
    assert {s["error"] for s in result["sides"]} <= {"unscored", "tool:hallucinated"}


def test_queue_walks_unlabelled_entries(services):
    queue = comparison.make_queue(services, GENERATED, ["p", "r"], 3, "ann")
    assert len(queue) == 3
    d, setting, msg = comparison.queue_entry(services, queue, 0)
    assert d["entry_id"] is not None and setting in ("p", "r") and "1 of 3" in msg
    result = comparison.run_compare(services, d, setting, BASE, TUNED)
    comparison.submit_label(services, result, "B", "ann")
    again = comparison.make_queue(services, GENERATED, ["p", "r"], 100, "ann")
    assert [GENERATED, str(d["entry_id"]), setting] not in again
    assert comparison.queue_entry(services, queue, 3)[0] is None


# ---------------------------------------------------------------- pairs, exports, training


def label_some(services, n=3):
    for e in services.generated()[:n]:
        result = comparison.run_compare(services, entry_to_dict(e), "r", BASE, TUNED)
        comparison.submit_label(services, result, "B", "ann")


def test_exports(services):
    label_some(services)
    rows, msg = export.pair_rows(services)
    assert len(rows) == 3 and "3 DPO pairs" in msg
    trl = Path(export.export_pairs(services, "TRL JSONL"))
    lines = [json.loads(x) for x in trl.read_text().splitlines()]
    assert len(lines) == 3 and lines[0]["chosen"][0]["role"] == "assistant"
    lf = zipfile.ZipFile(export.export_pairs(services, "LLaMA-Factory"))
    assert sorted(lf.namelist()) == ["dataset_info.json", "petool_dpo.json"]
    assert json.loads(lf.read("dataset_info.json"))["petool_dpo"]["ranking"] is True
    pb = zipfile.ZipFile(export.export_pairs(services, "PEToolBench DPO files"))
    assert sorted(pb.namelist()) == ["dataset_info.json", "user_entries_dpo_r.json"]
    row = json.loads(pb.read("user_entries_dpo_r.json"))[0]
    assert set(row) == {"instruction", "input", "chosen", "rejected"}
    # Each export in a fresh private folder of its own: not beside the database, not shared.
    folders = {trl.parent, Path(lf.filename).parent, Path(pb.filename).parent}
    assert len(folders) == 3
    for folder in folders:
        assert folder.name.startswith(export.EXPORT_PREFIX) and (folder.stat().st_mode & 0o777) == 0o700
        assert not folder.is_relative_to(Path(services.config.db_path).parent)
    assert sorted(p.name for p in Path(lf.filename).parent.iterdir()) == [Path(lf.filename).name]


def test_old_private_exports_are_swept(services, tmp_path):
    import os
    import time

    label_some(services, 1)
    old, new = Path(export.export_pairs(services, "TRL JSONL")).parent, Path(export.snapshot_db(services)).parent
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    assert export.sweep_exports() >= 1
    assert not old.exists() and new.exists()
    stranger = tmp_path / (export.EXPORT_PREFIX + "not-a-folder")
    stranger.write_text("kept")
    os.utime(stranger, (hour_ago, hour_ago))
    export.sweep_exports(root=tmp_path)
    assert stranger.read_text() == "kept"  # only folders are swept


def test_export_path_cannot_escape(tmp_path):
    with pytest.raises(ValueError, match="outside"):
        export.export_path(tmp_path, "../evil.json")
    with pytest.raises(ValueError, match="outside"):
        export.export_path(tmp_path, "/etc/passwd")
    assert export.export_path(tmp_path, "ok.json") == (tmp_path / "ok.json").resolve()


def test_db_snapshot_is_a_full_copy(services):
    label_some(services, 1)
    from petool.store import Store

    copy = Store(export.snapshot_db(services))
    assert len(copy.labels()) == 1
    copy.close()


def test_no_pairs_no_export(services):
    with pytest.raises(ValueError, match="No pairs"):
        export.export_pairs(services, "TRL JSONL")


def test_training_disabled_in_demo(services):
    services.config.demo = True
    with pytest.raises(ValueError, match="demo mode"):
        export.start_training(services, 5, None)


FAKE_TRAINER = r"""
import json, pathlib, sys, time
out = pathlib.Path(sys.argv[1]) / "dpo"
out.mkdir(parents=True, exist_ok=True)
for step in (1, 2, 3):
    (out / "progress.json").write_text(json.dumps({"step": step, "max_steps": 3, "latest": {"loss": 1.0 / step}}))
    time.sleep(0.3)
(out / "log_history.json").write_text(json.dumps([{"step": s, "loss": 1.0 / s} for s in (1, 2, 3)]))
print("trained")
"""


def test_training_job_runs_in_background_and_reports(services, tmp_path, monkeypatch):
    monkeypatch.setattr(jobs, "POLL_S", 0.1)
    label_some(services, 2)
    script = tmp_path / "fake_train.py"
    script.write_text(FAKE_TRAINER)
    out = tmp_path / "fake_out"
    msg = export.start_training(services, 3, None, command=[sys.executable, str(script), str(out)])
    assert "Started training job" in msg
    with pytest.raises(ValueError, match="already running"):
        export.start_training(services, 3, None, command=[sys.executable, "-c", "pass"])
    # The supervisor is a separate process: run one here too, synchronously, on a second job.
    job = services.store.jobs()[0]
    import time

    for _ in range(100):
        job = services.store.get_job(job["id"])
        if job["status"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert job["status"] == "done", job
    text, fig = export.job_view(services)
    assert "done" in text


def test_job_loss_is_the_training_figures_dpo_panel():
    fig = export.loss_figure([[1, 0.7], [2, 0.5]], 3)
    assert [t.name for t in fig.data] == ["dpo loss"] and list(fig.data[0].y) == [0.7, 0.5]
    assert fig.layout.title.text == "DPO loss (job #3)"
    assert "No loss logged yet." in export.loss_figure([], 3).layout.annotations[0].text


# ---------------------------------------------------------------- dashboards and errors


def write_run(folder: Path, entries, model="fake", data_path=None):
    from petool.evaluate import record_for
    from petool.schema import Generation

    folder.mkdir(parents=True)
    rows = []
    for i, e in enumerate(entries):
        for s in ("p", "none"):
            text = e.ground_truth.to_text() if i % 2 else "print('hello')"
            rows.append(record_for(e, s, model, Generation(text, 0.1), "robust").to_json())
    (folder / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "config.json").write_text(json.dumps({"model": model, "data": data_path, "scorer_version": "petool-scorer/1"}))
    (folder / "metrics.json").write_text("{}")
    return folder


def test_dashboards_from_an_imported_run(services, tmp_path):
    from petool.formats import write_combined

    entries = services.generated()[:4]
    data = write_combined(entries, tmp_path / "data.json")
    services.store.import_run(write_run(tmp_path / "run1", entries, data_path=str(data)))
    label_some(services, 2)
    figs = dash.figures(services)
    acc, hist, bucket, cat, err, lstats, wins, table, status = figs
    assert acc.data and hist.data and err.data and lstats.data and wins.data
    # 8 imported, and the 2 labelled comparisons' 4 scored answers as the app runs of their models
    assert "12 predictions" in status and len(table) == 4
    assert dash.figures(services, models=["nobody"])[-1].startswith("0 predictions")


def test_error_inspection(services, tmp_path):
    from petool.formats import write_combined

    entries = services.generated()[:4]
    data = write_combined(entries, tmp_path / "data.json")
    services.store.import_run(write_run(tmp_path / "run1", entries, data_path=str(data)))
    rows, msg = errors.prediction_rows(services, run_id="run1")
    assert len(rows) == 4 and all(r[5] == "format:no_call" for r in rows)
    rows_p, _ = errors.prediction_rows(services, setting="p", only_wrong=False)
    assert len(rows_p) == 4
    detail, prompt, raw, diff = errors.inspect(services, rows[0][0])
    assert "★ gold" in detail and "Query:" in detail and "print(" in raw and "Available tools" in prompt
    assert "No tool call could be parsed" in diff
    assert services.store.run_entry("run1", rows[0][4]).extra["split"] == "test"


def test_upload_import_gives_clear_messages(services, tmp_path):
    with pytest.raises(ValueError, match="Choose the run's files"):
        dash.import_upload(services, [])
    bad = tmp_path / "notes.txt"
    bad.write_text("x")
    with pytest.raises(ValueError, match="unexpected file"):
        dash.import_upload(services, [str(bad)])
    broken = tmp_path / "u" / "predictions.jsonl"
    broken.parent.mkdir()
    broken.write_text("{not json\n")
    with pytest.raises(ValueError, match="line 1"):
        dash.import_upload(services, [str(broken)])
    run = write_run(tmp_path / "ok", services.generated()[:2])
    assert "Imported run" in dash.import_upload(services, [str(run / n) for n in dash.RUN_FILES])


def test_uploads_in_the_same_second_get_their_own_runs(services, tmp_path, monkeypatch):
    import time

    monkeypatch.setattr(time, "strftime", lambda fmt, *args: "20250101-120000")  # both in one second
    first_run = write_run(tmp_path / "one", services.generated()[:3])
    second_run = write_run(tmp_path / "two", services.generated()[3:4])
    ids = [
        dash.import_upload(services, [str(run / "predictions.jsonl")]).removeprefix("Imported run ").rstrip(".")
        for run in (first_run, second_run)
    ]
    assert ids[0] != ids[1] and all(i.startswith("upload-20250101-120000") for i in ids)
    assert [len(services.store.predictions([i])) for i in ids] == [6, 2]


def test_an_upload_naming_a_stored_run_is_refused_unless_replace_is_ticked(services, tmp_path):
    stored = write_run(tmp_path / "stored", services.generated()[:3])
    services.store.import_run(stored, run_id="mine")
    other = write_run(tmp_path / "other", services.generated()[3:4])
    (other / "config.json").write_text(json.dumps({"run_id": "mine", "model": "other"}))
    files = [str(other / n) for n in dash.RUN_FILES]
    with pytest.raises(ValueError, match="'mine' is already stored.*replace the stored run"):
        dash.import_upload(services, files)
    assert len(services.store.predictions(["mine"])) == 6
    assert dash.import_upload(services, files, replace=True) == "Imported run mine."
    assert len(services.store.predictions(["mine"])) == 2


def test_an_empty_predictions_upload_is_refused(services, tmp_path):
    empty = tmp_path / "predictions.jsonl"
    empty.write_text("")
    with pytest.raises(ValueError, match="holds no predictions"):
        dash.import_upload(services, [str(empty)])
    assert services.store.runs() == []


def test_discard_uploads_deletes_only_inside_the_upload_folder(tmp_path):
    from petool.ui.uploads import discard_uploads

    uploads, outside = tmp_path / "gradio", tmp_path / "mine.jsonl"
    (uploads / "abc123").mkdir(parents=True)
    inside = uploads / "abc123" / "predictions.jsonl"
    inside.write_text("{}")
    outside.write_text("{}")
    assert discard_uploads([str(inside), str(outside), str(uploads / ".." / "mine.jsonl")], uploads) == 1
    assert not inside.exists() and not (uploads / "abc123").exists() and outside.exists()
    with pytest.raises(ValueError, match="no longer here.*choose the files again"):
        dash.import_upload(None, [str(inside)])


def test_dev_entries_are_test_only(tmp_path):
    dev = Path(__file__).resolve().parents[2] / "shared" / "petoolbench" / "early_test_dev.json.gz"
    if not dev.exists():
        pytest.skip("../shared/petoolbench is not present")
    s = Services(AppConfig(db_path=str(tmp_path / "x.db"), data_path=str(dev)), predictor_factory=FakePredictor, generated=[])
    e = s.dev()[0]
    assert e.extra["split"] == "test"
    result = comparison.run_compare(s, entry_to_dict(e), "r", BASE, TUNED)
    comparison.submit_label(s, result, "B", "ann")
    assert s.store.preference_examples() == []


def test_header_and_about_show_storage_and_config(services):
    from petool.ui.app import about, header

    services.config.ephemeral = True
    assert "ephemeral" in header(services.config, services)
    text = about(services.config, services)
    assert "PETOOL_DB" in text and "store:" in text


@pytest.mark.slow
def test_compare_with_the_bundled_model(tmp_path, generated):
    """The real SmolLM2 base against a rule baseline (the shipped adapter may be absent)."""
    s = Services(AppConfig(db_path=str(tmp_path / "x.db"), data_path=None), generated=list(generated))
    result = comparison.run_compare(s, entry_to_dict(generated[0]), "p", BASE, "baseline:rules")
    base, rule = result["sides"]
    assert not base["model_error"], base["model_error"]
    assert base["call"] is not None and base["latency_s"] > 0
    assert rule["model"] == "baseline:rules"


def test_about_draws_the_adapters_training(services, tmp_path):
    from petool.ui.app import adapter_training_figure

    services.config.adapter = "default"  # the shipped adapter keeps its SFT and DPO logs
    assert [t.name for t in adapter_training_figure(services.config).data] == ["sft loss", "dpo loss", "dpo rewards/accuracies"]
    services.config.adapter = str(tmp_path / "nowhere")
    missing = adapter_training_figure(services.config)
    assert not missing.data and "nowhere" in missing.layout.annotations[0].text
    services.config.adapter = None
    assert "No adapter configured" in adapter_training_figure(services.config).layout.annotations[0].text


def test_pairs_view_pages_show_every_pair_once(services):
    """250 labels, each its own pair: pages of PAIRS_PAGE_SIZE cover every pair exactly once;
    a page past the end shows the last one, a bad page the first."""
    from tests.test_store import add_pair_label

    for i in range(250):
        add_pair_label(services.store, i)
    size = export.PAIRS_PAGE_SIZE
    pages = [export.pair_rows(services, page=p) for p in (1, 2, 3)]
    sources = [row[0] for rows, _ in pages for row in rows]
    assert [len(rows) for rows, _ in pages] == [size, size, 250 - 2 * size]
    assert len(sources) == len(set(sources)) == 250
    assert {p.source for p in services.store.preference_examples()} == set(sources)
    assert "250 labels → **250 DPO pairs**" in pages[2][1] and f"Page 3 of 3: pairs {2 * size + 1}–250" in pages[2][1]
    assert export.pair_rows(services, page=99) == pages[2] and export.pair_rows(services, page=None) == pages[0]
    assert export.pair_rows(services, page="x") == pages[0]
    add_pair_label(services.store, 250)
    rows, msg = export.pair_rows(services, page=3)
    assert len(rows) == 51 and "251 DPO pairs" in msg


# ---------------------------------------------------------------- my labels (issue 30 #5)


def seven_labels(services):
    """The issue's walk: 7 labels, 1 pair. A vote replaced by a re-vote, a tie, votes on identical
    calls (base against base), a test entry, both bad without a gold call, and the one pair."""
    from petool.ui import labels as my

    es = services.generated()
    d = [entry_to_dict(e) for e in es[:5]]

    def vote(i, a, b, v, who="ann"):
        return comparison.submit_label(services, comparison.run_compare(services, d[i], "r", a, b), v, who)

    first = vote(0, BASE, TUNED, "A")["labelled"]["id"]  # replaced by the re-vote below
    vote(0, BASE, TUNED, "B")  # the pair
    vote(1, BASE, TUNED, "tie")  # a tie
    vote(2, BASE, BASE, "A")  # identical calls
    test = {**d[3], "extra": {**d[3]["extra"], "split": "test"}}
    comparison.submit_label(services, comparison.run_compare(services, test, "r", BASE, TUNED), "B", "ann")
    no_gold = {**d[4], "ground_truth": {"tool_name": "", "parameters": {}}}
    comparison.submit_label(services, comparison.run_compare(services, no_gold, "r", BASE, TUNED), "both_bad", "ann")
    vote(1, BASE, TUNED, "B", who="bob")  # another annotator's pair
    return my, first


def test_my_labels_give_each_label_its_status_from_the_pair_builder(services):
    my, _ = seven_labels(services)
    rows, line = my.my_labels(services, "ann")
    assert [r[0] for r in rows] == [6, 5, 4, 3, 2, 1]  # newest first, bob's label not among them
    status = {r[0]: r[-1] for r in rows}
    assert status == {
        1: "replaced by a later vote (label #2) on the same calls",
        2: "becomes 1 pair",
        3: "a tie: no order between the two calls",
        4: "identical calls: the chosen and the rejected call are the same",
        5: "test data: labels on test entries never become training pairs",
        6: "both bad, and no gold call is known (type one to make a pair)",
    }
    assert line.startswith("Your labels (ann): 6 labels → **1 DPO pair** from 1 of them; not pairs: ")
    for part in ("1 replaced by a later vote", "1 ties", "1 identical calls", "1 test data", "1 both bad without a gold call"):
        assert part in line
    assert my.annotator_counts(services) == [["ann", 6, 1, 1, 5], ["bob", 1, 1, 1, 0]]
    assert my.my_labels(services, "nobody") == ([], "No labels by nobody yet: label a comparison in Compare & label.")


def test_the_pair_summary_accounts_for_every_label(services):
    seven_labels(services)
    rows, line = export.pair_rows(services)
    counts = [int(n) for n in __import__("re").findall(r"(\d+) [a-z]", line.split("not pairs: ")[1])]
    assert line.startswith("7 labels → **2 DPO pairs** from 2 of them; not pairs: ") and len(rows) == 2
    assert 2 + sum(counts) == 7


def test_reason_names_cover_every_reason():
    from petool.pairs import REASONS
    from petool.ui.labels import REASON_NAMES

    assert set(REASON_NAMES) == set(REASONS)


def test_undo_and_edit_only_ones_own_label(services):
    my, _ = seven_labels(services)
    with pytest.raises(ValueError, match="not yours"):
        my.undo_label(services, "bob", 2)
    with pytest.raises(ValueError, match="not yours"):
        my.edit_label(services, "bob", 2, "A")
    assert len(services.store.preference_examples()) == 2
    assert "Label #2 undone" in my.undo_label(services, "ann", 2)
    # Undoing the re-vote brings back the vote it replaced: label #1 (A, base over tuned) is a pair again.
    status = {r[0]: r[-1] for r in my.my_labels(services, "ann")[0]}
    assert status[2] == "undone by its annotator" and status[1] == "becomes 1 pair"
    assert [p.source for p in services.store.preference_examples() if p.source.startswith("label:1:")] == ["label:1:r"]
    assert "edited: label #8 now says **tie**" in my.edit_label(services, "ann", 1, "tie").replace("Label #1 edited: ", "edited: ")
    status = {r[0]: r[-1] for r in my.my_labels(services, "ann")[0]}
    assert status[1] == "edited: replaced by label #8" and status[8] == "a tie: no order between the two calls"
    assert [p.source for p in services.store.preference_examples()] == ["label:7:r"]
    for bad, match in ((None, "Pick one of your labels"), ("x", "Pick one of your labels"), (99, "no label #99")):
        with pytest.raises(ValueError, match=match):
            my.undo_label(services, "ann", bad)
    with pytest.raises(ValueError, match="already undone"):
        my.undo_label(services, "ann", 2)
    with pytest.raises(ValueError, match="new verdict"):
        my.edit_label(services, "ann", 3, None)
    assert len(services.store.labels()) == 8  # nothing deleted


# ---------------------------------------------------------------- dashboards from the app (issue 30 #6)


def test_dashboards_count_the_apps_comparisons_and_labels(services):
    """With no imported run, the app's scored comparisons are a run per model and its labels give
    one win rate per pair of models and verdicts by model (blind or not)."""
    empty = dash.figures(services)
    assert all("petool" not in (a.text or "") for fig in empty[:7] for a in fig.layout.annotations)
    assert "Compare & label" in empty[0].layout.annotations[0].text
    es = services.generated()[:3]
    for i, e in enumerate(es):
        result = comparison.run_compare(services, entry_to_dict(e), "r", BASE, TUNED, blind=True, seed=i)
        winner = "AB"[[s["choice"] for s in result["sides"]].index(TUNED)]
        comparison.submit_label(services, result, winner, "ann")
    # the same entry again replaces that model's answer: one answer per (entry, setting) per run
    comparison.run_compare(services, entry_to_dict(es[0]), "r", BASE, TUNED)
    runs = {r["id"]: r for r in services.store.runs()}
    assert set(runs) == {"app:fake-base", "app:fake-base+fake-adapter"} and runs["app:fake-base"]["n"] == 3
    acc, hist, bucket, cat, errs, verdicts, wins, table, status = dash.figures(services)
    assert sorted(row[:4] for row in table) == [["fake-base", "r", 3, "0.0%"], ["fake-base+fake-adapter", "r", 3, "100.0%"]]
    assert {t.name for t in acc.data} == {"fake-base", "fake-base+fake-adapter"} and "6 predictions" in status
    by_name = {t.name: dict(zip(t.x, t.y, strict=False)) for t in verdicts.data}
    assert by_name == {
        "preferred": {"fake-base": 0, "fake-base+fake-adapter": 3},
        "not preferred": {"fake-base": 3, "fake-base+fake-adapter": 0},
    }
    [bar] = wins.data  # one bar per pair of models, not both directions
    assert list(bar.x) == [0.0] and len(bar.y) == 1 and "fake-base<br>over fake-base+fake-adapter" in bar.y[0]
    assert bar.error_x.array is not None
    # an undone label leaves the dashboards too
    services.store.withdraw_label(1, "ann")
    assert "2 labels" in dash.figures(services)[5].layout.title.text


# ---------------------------------------------------------------- the train loop closes (issue 30 #9)


def test_a_finished_jobs_adapter_becomes_a_compare_choice(services, tmp_path, monkeypatch):
    """A DPO job trained in the app: warned as too small before it starts, and once it is done its
    adapter is a model choice in Compare that answers (through the predictor's extra adapter)."""
    import time

    from petool.ui.services import job_choice

    monkeypatch.setattr(jobs, "POLL_S", 0.1)
    label_some(services, 1)
    assert "too small to move the policy" in export.training_warning(services, 2, "assets/train/cpu.yaml")
    assert "1 pair is fewer than one optimiser step's batch of 4" in export.training_warning(services, 2, "assets/train/cpu.yaml")
    script = tmp_path / "fake_train.py"
    script.write_text(FAKE_TRAINER + "(out / 'adapter_config.json').write_text('{}')\n")
    monkeypatch.setattr(jobs.time, "strftime", lambda *a: "test")  # the job folder: jobs/dpo-test
    run_dir = Path(services.config.db_path).resolve().parent / "jobs" / "dpo-test" / "run"
    msg = export.start_training(services, 2, "assets/train/cpu.yaml", command=[sys.executable, str(script), str(run_dir)])
    assert "Started training job #1" in msg and "too small to move the policy" in msg
    choice = job_choice(1)
    assert choice not in services.model.model_choices()  # not before the job has finished
    for _ in range(100):
        if services.store.get_job(1)["status"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert services.store.get_job(1)["status"] == "done"
    assert services.model.model_choices()[:3] == [BASE, TUNED, choice]
    result = comparison.run_compare(services, entry_to_dict(first(services)), "r", BASE, choice)
    assert [s["model"] for s in result["sides"]] == ["fake-base", f"fake-base+{choice}"]
    assert services.model.predictor().extra_paths == {choice: str(run_dir / "dpo")}
    # back to the shipped adapter afterwards
    assert (
        comparison.run_compare(services, entry_to_dict(first(services)), "r", BASE, TUNED)["sides"][1]["model"] == "fake-base+fake-adapter"
    )
    assert export.training_warning(services, 30, "assets/train/cpu.yaml").count("fewer than") == 1  # steps fine, pairs not


def test_candidates_group_by_what_the_catalog_knows(services):
    """Issue 30 #8: the "same function" group is the matched API's catalog cluster, the status
    escapes tool names (they look like HTML tags), and nothing is called preferred without a history."""
    d = entry_edits.blank_entry("ann", preferred=["SkyCast Pro", "OpenMeteoHub"])  # a hidden profile's tools
    d, msg = entry_edits.suggest_candidates(services, d, "What's the current weather in Madrid?")
    best = re.search(r"Best match: (.+?) \(shared words", msg).group(1)
    assert best.startswith("&lt;Weather&gt;.")  # escaped, so the markdown shows the whole name
    name = html.unescape(best)
    known = [n for n in services.clusters().get(name, []) if n in services.catalog()]
    if len(known) < 2:
        assert d["cluster"] == []
    else:
        assert name in d["cluster"] and set(d["cluster"]) <= set(known)
    assert "history" not in msg  # the profile's tools are not shown anywhere: no "preferred" claim
    with pytest.raises(ValueError, match="no content words"):
        entry_edits.suggest_candidates(services, d, "what is the")


def test_history_length_says_full_vs_embedded():
    """Issue 30 #8: the Errors tab's "history length 89" above 20 shown turns said neither which."""
    from petool.ui.render import history_length_text

    assert history_length_text(89, 20, "p") == "full history 89 turns; the prompt embeds 20 of them (shown below)"
    assert history_length_text(5, 5, "r") == "history 5 turns (all embedded in the prompt)"
    assert "none embedded" in history_length_text(12, 0, "none")
