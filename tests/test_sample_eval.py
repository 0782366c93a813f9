"""Issue 30 #9: a finished DPO job's adapter evaluated on a sample from the Pairs & training tab
(petool.ui.sample_eval), with the scripted fake model: the request is validated, the three
models answer the same sample of unlabelled entries through the one shared model, and each is
stored as a run the Dashboards list."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from petool.appconfig import AppConfig
from petool.store import entry_from_dict, entry_to_dict
from petool.ui import dash, sample_eval
from petool.ui.sample_eval import (
    EvaluationStopped,
    Progress,
    SampleRequest,
    check_request,
    run_sample,
)
from petool.ui.services import DEV, GENERATED, Services, _build_generated, job_choice
from tests.app_fakes import FakePredictor


@pytest.fixture(scope="module")
def generated():
    return _build_generated(n=12, seed=1)


@pytest.fixture
def built():
    """How many times the shared model was built."""
    return []


@pytest.fixture
def services(tmp_path, generated, built):
    def factory():
        built.append(FakePredictor())
        return built[-1]

    config = AppConfig(db_path=str(tmp_path / "db" / "petool.db"), data_path=None)
    s = Services(config, predictor_factory=factory, generated=[entry_from_dict(entry_to_dict(e)) for e in generated])
    yield s
    s.store.close()


def finish_job(services: Services, folder: Path) -> str:
    """A DPO job that has finished with its adapter on disk (as jobs.supervise leaves it); its choice."""
    job_id = services.store.add_job(["train"], str(folder / "train.log"), str(folder / "run"))
    (folder / "run" / "dpo").mkdir(parents=True)
    (folder / "run" / "dpo" / "adapter_config.json").write_text("{}")
    services.store.update_job(job_id, status="done", progress=1.0)
    return job_choice(job_id)


def label(services: Services, entry, verdict: str = "B") -> None:
    services.store.add_label(
        annotator="ann",
        entry=entry,
        setting="r",
        prompt="",
        model_a="fake-base",
        model_b="fake-base+fake-adapter",
        call_a=None,
        call_b=None,
        verdict=verdict,
    )


# ---------------------------------------------------------------- validation


def test_no_finished_job_is_refused_with_what_to_do(services, tmp_path):
    with pytest.raises(ValueError, match="No finished DPO job yet"):
        check_request(services, "DPO job #1", GENERATED, ["r"], 5)
    # a running job's adapter is not on offer either
    services.store.add_job(["train"], str(tmp_path / "log"), str(tmp_path / "run"))
    with pytest.raises(ValueError, match="No finished DPO job yet"):
        check_request(services, "DPO job #1", GENERATED, ["r"], 5)


@pytest.mark.parametrize(
    "adapter, pool, settings, n, match",
    [
        ("DPO job #9", GENERATED, ["r"], 5, r"finished DPO job \(DPO job #1\)"),
        ("PEToolLLaMA", GENERATED, ["r"], 5, "finished DPO job"),
        (None, GENERATED, ["r"], 5, "finished DPO job"),
        ("DPO job #1", DEV, ["r"], 5, "where the sample comes from: generated"),
        ("DPO job #1", "saved", ["r"], 5, "where the sample comes from"),
        ("DPO job #1", GENERATED, [], 5, "at least one setting"),
        ("DPO job #1", GENERATED, None, 5, "at least one setting"),
        ("DPO job #1", GENERATED, "r", 5, "at least one setting"),
        ("DPO job #1", GENERATED, ["r", "x"], 5, "Unknown setting x"),
        ("DPO job #1", GENERATED, ["r"], 0, "from 1 to 50 entries"),
        ("DPO job #1", GENERATED, ["r"], -3, "from 1 to 50 entries"),
        ("DPO job #1", GENERATED, ["r"], 51, "from 1 to 50 entries"),
        ("DPO job #1", GENERATED, ["r"], 10**9, "from 1 to 50 entries"),
        ("DPO job #1", GENERATED, ["r"], 2.5, "whole number"),
        ("DPO job #1", GENERATED, ["r"], float("inf"), "whole number"),
        ("DPO job #1", GENERATED, ["r"], float("nan"), "whole number"),
        ("DPO job #1", GENERATED, ["r"], "ten", "whole number"),
        ("DPO job #1", GENERATED, ["r"], None, "Type the sample size"),
        ("DPO job #1", GENERATED, ["r"], True, "Type the sample size"),
    ],
)
def test_a_bad_request_says_what_to_change(services, tmp_path, adapter, pool, settings, n, match):
    finish_job(services, tmp_path / "job1")
    with pytest.raises(ValueError, match=match):
        check_request(services, adapter, pool, settings, n)
    assert services.store.runs() == [] and not services.model.loaded  # nothing ran, nothing stored


def test_a_good_request_is_normalised(services, tmp_path):
    choice = finish_job(services, tmp_path / "job1")
    assert check_request(services, choice, GENERATED, ["c", "r", "p"], 5.0) == SampleRequest(choice, GENERATED, ("p", "r", "c"), 5)
    assert sample_eval.pool_choices(services) == [GENERATED]  # no dev data configured


# ---------------------------------------------------------------- the evaluation


def test_the_job_the_base_and_the_shipped_adapter_answer_one_sample_of_unlabelled_entries(services, tmp_path, built):
    choice = finish_job(services, tmp_path / "job1")
    labelled = services.generated()[:4]
    for entry in labelled:
        label(services, entry)
    progress = Progress()
    result = run_sample(services, check_request(services, choice, GENERATED, ["p", "r"], 6), progress)

    runs = {r["id"]: r for r in services.store.runs()}
    names = ["fake-base", "fake-base+fake-adapter", f"fake-base+{choice}"]
    assert result.run_ids == [f"sample-{result.sample_id}:{m}" for m in names] and set(runs) == set(result.run_ids)
    predictions = {rid: services.store.predictions([rid]) for rid in result.run_ids}
    keys = [sorted({(p["entry_id"], p["setting"]) for p in rows}) for rows in predictions.values()]
    assert keys[0] == keys[1] == keys[2] and len(keys[0]) == 12  # the same 6 entries x 2 settings for all three
    sampled = {k for k, _ in keys[0]}
    assert not sampled & {e.key for e in labelled}  # labelled entries (the pairs' material) are never in the sample
    assert [runs[rid]["model"] for rid in result.run_ids] == names
    assert {p["model"] for rid in result.run_ids for p in predictions[rid]} == set(names)
    # one shared model, the job's own adapter used for its run
    assert len(built) == 1 and built[0].extra_paths == {choice: str(tmp_path / "job1" / "run" / "dpo")}
    # accuracy per model and setting, and over both settings
    assert result.rows == [
        ["fake-base", "p", 6, "0.0%", result.rows[0][4], "0.0%"],
        ["fake-base", "r", 6, "0.0%", result.rows[1][4], "0.0%"],
        ["fake-base", "all", 12, "0.0%", result.rows[2][4], "0.0%"],
        *[[m, s, n, "100.0%", "100.0%", "100.0%"] for m in names[1:] for s, n in (("p", 6), ("r", 6), ("all", 12))],
    ]
    assert (progress.step, progress.done, progress.total) == (3, 12, 12) and result.new_answers == dict.fromkeys(names, 12)
    # the Dashboards list the runs and count their answers
    run_choices, models = dash.filter_options(services)
    assert {rid for _, rid in run_choices} == set(result.run_ids) and set(names) <= set(models)
    table = dash.figures(services, result.run_ids)[7]
    assert sorted(row[:4] for row in table) == sorted(
        [m, s, 6, "0.0%" if m == "fake-base" else "100.0%"] for m in names for s in ("p", "r")
    )
    # the sampled entries are kept whole for the Errors tab
    assert services.store.run_entry(result.run_ids[2], next(iter(sampled))) is not None
    assert "Stored as runs" in sample_eval.summary(check_request(services, choice, GENERATED, ["p", "r"], 6), result)


def test_a_second_job_on_the_same_sample_reuses_the_base_and_shipped_answers(services, tmp_path, built):
    first = finish_job(services, tmp_path / "job1")
    one = run_sample(services, check_request(services, first, GENERATED, ["r"], 5))
    calls = len(built[0].calls)
    second = finish_job(services, tmp_path / "job2")
    two = run_sample(services, check_request(services, second, GENERATED, ["r"], 5))
    assert two.sample_id == one.sample_id and two.run_ids[:2] == one.run_ids[:2]
    assert two.new_answers == {"fake-base": 0, "fake-base+fake-adapter": 0, f"fake-base+{second}": 5}
    assert len(built[0].calls) == calls + 5  # only the new adapter answered
    assert "reused for fake-base, fake-base+fake-adapter" in sample_eval.summary(check_request(services, second, GENERATED, ["r"], 5), two)
    # a newly labelled entry of the sample changes the sample (it may now be a training pair)
    label(services, services.store.run_entry(one.run_ids[0], services.store.predictions([one.run_ids[0]])[0]["entry_id"]))
    assert run_sample(services, check_request(services, second, GENERATED, ["r"], 5)).sample_id != one.sample_id


def test_nothing_left_to_sample_is_said(services, tmp_path):
    choice = finish_job(services, tmp_path / "job1")
    for entry in services.generated():
        label(services, entry)
    with pytest.raises(ValueError, match="No entry of generated is left"):
        run_sample(services, check_request(services, choice, GENERATED, ["r"], 5))
    assert services.store.runs() == []


def test_one_evaluation_at_a_time(services, tmp_path):
    choice = finish_job(services, tmp_path / "job1")
    request = check_request(services, choice, GENERATED, ["r"], 3)
    with sample_eval._RUNNING, pytest.raises(ValueError, match="Another sample evaluation is running"):
        run_sample(services, request)
    assert run_sample(services, request).run_ids  # free again afterwards


def test_a_stopped_evaluation_keeps_its_answers_and_resumes(services, tmp_path, built):
    choice = finish_job(services, tmp_path / "job1")
    request = check_request(services, choice, GENERATED, ["r"], 4)
    stop = threading.Event()
    stop.set()
    with pytest.raises(EvaluationStopped):
        run_sample(services, request, stop=stop)
    assert services.store.runs() == [] and len(built[0].calls) == 1  # stopped after the first answer
    result = run_sample(services, request)
    assert result.new_answers["fake-base"] == 3 and len(services.store.predictions([result.run_ids[0]])) == 4
