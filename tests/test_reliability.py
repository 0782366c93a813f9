"""Reliability and security of the store and the app: concurrent annotators, crashes, bad input,
injection, access control and resource limits. The big runs are benchmarks/concurrent_labels.py
and benchmarks/crash_recovery.py; these are their small versions plus the handler-level checks."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from benchmarks.concurrent_labels import (
    ClientLog,
    check_labels,
    integrity,
    label_loop,
    start_app,
    stop_app,
)
from petool.appconfig import AppConfig
from petool.call_grammar import CallGrammar
from petool.call_repair import close_call
from petool.decoding import constrained_generate
from petool.migrations import MIGRATIONS
from petool.schema import Generation, entry_to_dict
from petool.store import Store
from petool.ui import compare, comparison, dash, export
from petool.ui.common import MAX_TURNS, acting_user, logged_in
from petool.ui.services import BASE, TUNED, Services, _build_generated
from tests.app_fakes import FakePredictor, api_client, app_config, label_data, running_app
from tests.test_store import EXPECTED_SCHEMA, make_entry

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def generated():
    return _build_generated(n=6, seed=2)


@pytest.fixture
def services(tmp_path, generated):
    s = Services(
        AppConfig(db_path=str(tmp_path / "db" / "petool.db"), data_path=None), predictor_factory=FakePredictor, generated=list(generated)
    )
    yield s
    s.store.close()


def label_count(services) -> int:
    return services.store.stats()["labels"]


# ---------------------------------------------------------------- 1. concurrent annotators


def test_concurrent_clients_each_label_stored_exactly_once(tmp_path):
    """4 gradio clients x 10 labels against `python app.py`: 40 acknowledged, 40 stored, no duplicates."""
    db = tmp_path / "petool.db"
    proc, url = start_app(db, log_path=tmp_path / "app.log")
    try:
        logs = [ClientLog() for _ in range(4)]
        threads = [threading.Thread(target=label_loop, args=(url, w, 10, logs[w])) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
    finally:
        stop_app(proc)
    assert [e for log in logs for e in log.errors] == []
    result = check_labels(db, logs)
    assert (result["acknowledged"], result["stored"], result["missing"], result["duplicated"]) == (40, 40, [], [])
    assert integrity(db) == "ok"
    rows = sqlite3.connect(db).execute("SELECT annotator, COUNT(*) FROM labels GROUP BY annotator").fetchall()
    assert sorted(rows) == [(f"annotator-{w}", 10) for w in range(4)]


# ---------------------------------------------------------------- 2. crashes

WRITER = textwrap.dedent("""
    import sys
    from petool.store import Store
    from tests.test_store import make_entry
    store, entry = Store(sys.argv[1]), make_entry()
    for i in range(100000):
        store.add_label(annotator="w", entry=entry, setting="p", prompt="P" * 2000, model_a="a", model_b="b",
                        call_a=None, call_b=None, verdict="tie", comment=f"c{i}")
        print(f"c{i}", flush=True)  # acknowledged only once the commit has returned
""")


def test_sigkill_of_a_writer_loses_no_acknowledged_label(tmp_path):
    db = tmp_path / "petool.db"
    Store(db).close()
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    acked = []
    while len(acked) < 300:
        line = proc.stdout.readline()
        assert line, "the writer died"
        acked.append(line.strip())
    proc.send_signal(signal.SIGKILL)
    acked += [x.strip() for x in proc.stdout.read().splitlines() if x.strip()]
    proc.wait()
    assert integrity(db) == "ok"
    store = Store(db)  # reopens without repair; the WAL is replayed
    comments = [r["comment"] for r in store.labels()]
    assert len(comments) == len(set(comments))
    assert set(acked) <= set(comments) and len(comments) - len(acked) <= 1  # at most the one in flight
    store.close()


def test_sigkill_of_the_app_mid_labelling(tmp_path):
    """The real app, two clients labelling, SIGKILL, restart on the same database, label again."""
    from benchmarks.crash_recovery import crash_round

    r = crash_round(tmp_path / "petool.db", tmp_path, 1, clients=2, kill_after_s=3.0)
    assert r["acked"] > 0, r
    assert (r["missing"], r["duplicated"]) == (0, 0), r
    assert r["integrity_after_kill"] == r["integrity_after_restart"] == "ok"
    assert r["label_after_restart"], r["probe_errors"]


def test_an_interrupted_migration_is_finished_on_the_next_start(tmp_path, monkeypatch):
    import petool.migrations as store_mod

    def half(db):
        db["users"].create({"id": int, "name": str}, pk="id")  # the first statement runs...
        raise KeyboardInterrupt  # ...then the process dies

    monkeypatch.setattr(store_mod, "MIGRATIONS", [(1, "initial", half)])
    with pytest.raises(KeyboardInterrupt):
        Store(tmp_path / "x.db")
    monkeypatch.setattr(store_mod, "MIGRATIONS", MIGRATIONS)
    store = Store(tmp_path / "x.db")  # the transaction was rolled back: migration 1 runs whole
    assert store.schema() == EXPECTED_SCHEMA and store.integrity() == "ok"
    store.close()


def test_a_half_migrated_old_database_opens(tmp_path):
    """A database whose migration ran partly outside a transaction (tables, no record) still opens."""
    path = tmp_path / "old.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM _migrations")
    conn.execute("DROP TABLE train_jobs")
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.schema() == EXPECTED_SCHEMA
    assert [n for n, _ in store.db.execute("SELECT id, name FROM _migrations").fetchall()] == [n for n, _, _ in MIGRATIONS]
    assert Store(path).migrate() == []  # and again: nothing to do
    store.close()


def test_concurrent_first_starts_migrate_once(tmp_path):
    path = tmp_path / "race.db"
    errors = []

    def open_store():
        try:
            Store(path).close()
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    store = Store(path)
    assert store.db.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == len(MIGRATIONS)
    store.close()


# ---------------------------------------------------------------- 3. bad input


class GarbagePredictor(FakePredictor):
    """Answers with text that is not JSON at all."""

    def generate(self, entry, setting, **options):
        return Generation("I think you should call the weather one!!! \x00 {not json", 0.01, 10, 10)


def test_model_output_that_is_not_json_is_labelled_as_raw(services):
    services.model._factory = GarbagePredictor
    d = entry_to_dict(services.generated()[0])
    result = comparison.run_compare(services, d, "p", BASE, TUNED)
    assert [s["error"] for s in result["sides"]] == ["format:no_call", "format:no_call"]
    html_a, _, _ = compare.render_result(result)
    assert "No tool call could be parsed" in html_a
    comparison.submit_label(services, result, "A", "ann")
    [label] = services.store.labels()
    assert label["call_a"] is None and label["raw_a"].startswith("I think")


@pytest.mark.parametrize(
    "content, match",
    [
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"this is not json\n", "line 1 is not valid JSON"),
        (b"[1, 2, 3]\n", "line 1 lacks entry_id"),
        (b'{"entry_id": 1, "setting": ["p"]}\n', "line 1 lacks entry_id or a string setting"),
        (b'{"entry_id": 1}\n', "lacks entry_id or a string setting"),
    ],
)
def test_bad_uploads_say_what_is_wrong_and_write_nothing(services, tmp_path, content, match):
    f = tmp_path / "predictions.jsonl"
    f.write_bytes(content)
    with pytest.raises(ValueError, match=match):
        dash.import_upload(services, [str(f)])
    assert services.store.stats()["runs"] == services.store.stats()["predictions"] == 0


def test_odd_but_parseable_values_import_without_crashing(services, tmp_path):
    f = tmp_path / "predictions.jsonl"
    rows = [
        {"entry_id": {"nested": 1}, "setting": "p", "model": ["a", "b"], "raw": {"x": 1}, "latency_s": "fast", "call": [1]},
        {"entry_id": 2, "setting": "r", "tool_ok": "yes", "error": 5},
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows))
    (tmp_path / "config.json").write_text(json.dumps({"config": [1, 2], "run_id": "odd"}))
    assert "Imported run" in dash.import_upload(services, [str(f), str(tmp_path / "config.json")])
    assert len(services.store.predictions()) == 2


def test_uploads_over_the_size_limit_are_refused(services, tmp_path):
    services.config.max_upload_mb = 1
    f = tmp_path / "predictions.jsonl"
    f.write_bytes(b" " * (1024 * 1024 + 1))
    with pytest.raises(ValueError, match="upload limit is 1 MB"):
        dash.import_upload(services, [str(f)])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"comment": "x" * 5001}, "comment is too long"),
        ({"gold": "{" * 20_001}, "gold call is too long"),
        ({"tags": ["<script>"]}, "unknown reason tag"),
        ({"gold": '{"tool_name": 5}'}, "gold call must look like"),
        ({"gold": '{"tool_name": "x", "parameters": []}'}, "not one of the candidates"),
    ],
)
def test_bad_label_input_writes_nothing(services, kwargs, match):
    result = comparison.run_compare(services, entry_to_dict(services.generated()[0]), "p", BASE, TUNED)
    with pytest.raises(ValueError, match=match):
        comparison.submit_label(services, result, "A", "ann", **kwargs)
    assert label_count(services) == 0


@pytest.mark.parametrize(
    "annotator, match",
    [
        ("", "annotator name"),
        ("a" * 101, "longer than 100"),
        ("ann\nbob", "control characters"),
        (None, "annotator name"),
    ],
)
def test_store_refuses_bad_annotators(annotator, match, tmp_path):
    store = Store(tmp_path / "s.db")
    with pytest.raises(ValueError, match=match):
        store.add_label(
            annotator=annotator, entry=make_entry(), setting="p", prompt="", model_a="a", model_b="b", call_a=None, call_b=None, verdict="A"
        )
    with pytest.raises(ValueError, match="unknown setting"):
        store.add_label(
            annotator="ann", entry=make_entry(), setting="x", prompt="", model_a="a", model_b="b", call_a=None, call_b=None, verdict="A"
        )
    assert store.labels() == []
    store.close()


def test_empty_and_huge_queries_are_refused_before_the_model(services):
    from petool.ui import entry_edits

    d = entry_edits.blank_entry("ann")
    with pytest.raises(ValueError, match="Type a query"):
        entry_edits.suggest_candidates(services, d, "   ")
    with pytest.raises(ValueError, match="query is too long"):
        entry_edits.suggest_candidates(services, d, "weather " * 1000)
    e = entry_to_dict(services.generated()[0])
    e["query"] = "x" * 3000
    with pytest.raises(ValueError, match="query is too long"):
        comparison.run_compare(services, e, "p", BASE, TUNED)
    assert services.model._predictor is None  # never reached the model


# ---------------------------------------------------------------- 4. injection


def test_malicious_annotator_and_tags_are_stored_verbatim(tmp_path):
    store = Store(tmp_path / "s.db")
    evil = "Robert'); DROP TABLE labels; --"
    store.add_label(
        annotator=evil,
        entry=make_entry(),
        setting="p",
        prompt="",
        model_a="a",
        model_b="b",
        call_a=None,
        call_b=None,
        verdict="A",
        tags=["x' OR '1'='1", '"; DELETE FROM labels; --'],
        comment="<script>alert(1)</script>",
    )
    [row] = store.labels(annotator=evil)
    assert row["annotator"] == evil and row["tags"][0] == "x' OR '1'='1" and "labels" in store.schema()
    assert store.labelled_keys(evil) == {("e1", "p")} and store.labels(annotator="x' OR '1'='1") == []
    store.close()


SQL_CALL = re.compile(r"""\.(?:execute|executemany|query)\(\s*f["']""")
REVIEWED_FSTRING_SQL = {
    # file: number of f-string SQL calls; each interpolates only column/table names taken from
    # the schema or checked against it, never a value (values always go through ``?``).
    "petool/store.py": 6,
}


def test_sql_values_are_always_parameters():
    found = {}
    for path in sorted((ROOT / "petool").rglob("*.py")):
        n = len(SQL_CALL.findall(path.read_text(encoding="utf-8")))
        if n:
            found[str(path.relative_to(ROOT))] = n
    assert found == REVIEWED_FSTRING_SQL, "review the new f-string SQL: values must be ? parameters"
    text = (ROOT / "petool" / "store.py").read_text(encoding="utf-8")
    assert not re.search(r"(execute|query)\([^)]*%\s*\(", text) and ".format(" not in text


@pytest.mark.parametrize("name", ["../../etc/passwd", "/tmp/x.jsonl", "a/../../b.json", "..", "."])
def test_export_names_cannot_escape(tmp_path, name):
    with pytest.raises(ValueError, match="outside"):
        export.export_path(tmp_path / "exports", name)


# ---------------------------------------------------------------- 5. access


def test_acting_user_is_the_login_when_access_control_is_on():
    open_cfg = AppConfig(db_path="x.db")
    assert acting_user(open_cfg, " ann ", None) == "ann"
    with pytest.raises(ValueError, match="Type your annotator name"):
        acting_user(open_cfg, "", None)
    pw = AppConfig(db_path="x.db", auth=[("ann", "pw")])
    assert acting_user(pw, "mallory", "ann") == "ann"  # the typed name is ignored
    oauth = AppConfig(db_path="x.db", oauth=True)
    with pytest.raises(ValueError, match="Sign in with Hugging Face"):
        acting_user(oauth, "mallory", None)
    assert logged_in(None, {"preferred_username": "zoe"}) == "zoe"


def test_oauth_config_only_on_a_space_with_a_client_id():
    assert not AppConfig.from_env({"OAUTH_CLIENT_ID": "x"}).oauth  # not a Space: gradio would fake a login
    space = AppConfig.from_env({"SPACE_ID": "me/petool", "OAUTH_CLIENT_ID": "x", "SPACE_AUTHOR_NAME": "me"})
    assert space.oauth and space.access_control and space.demo and space.admins == ["me"]
    assert not AppConfig.from_env({"SPACE_ID": "me/petool", "OAUTH_CLIENT_ID": "x", "PETOOL_OAUTH": "0"}).oauth
    assert AppConfig.from_env({"PETOOL_MAX_NEW_TOKENS": "64"}).max_new_tokens == 64
    with pytest.raises(ValueError, match="PETOOL_MAX_NEW_TOKENS"):
        AppConfig.from_env({"PETOOL_MAX_NEW_TOKENS": "0"})


def test_private_password_login_ties_labels_to_the_login_name(tmp_path):
    """PETOOL_AUTH_PRIVATE=1: gradio's login page guards the whole app (the in-app login is in test_access)."""
    with running_app(app_config(tmp_path, "p.db", auth=[("ann", "pw")], auth_private=True)) as (demo, url):
        with pytest.raises(ValueError, match="credentials were not provided"):
            api_client(url)  # nothing readable without a login
        client = api_client(url, auth=("ann", "pw"))
        client.predict("generated", "0", "p", api_name="/load_entry")
        client.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")
        client.predict("mallory", [], "", "", api_name="/label_B")  # a typed name cannot impersonate
        assert [r["annotator"] for r in demo.petool_services.store.labels()] == ["ann"]


def test_anonymous_visitors_read_but_do_not_write(tmp_path):
    config = app_config(tmp_path, "o.db", demo=True)
    with running_app(config) as (demo, url):
        config.oauth = True  # as on a Space with hf_oauth (the login button itself needs a real Space)
        client = api_client(url)
        assert "Loaded entry" in client.predict("generated", "0", "p", api_name="/load_entry")[0]
        client.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")  # reading and comparing: fine
        client.predict([], [], [], api_name="/dashboards")
        # refusals answer normally with the reason next to their control
        for args, api in (
            (("TRL JSONL", "ground_truth", "drop"), "/export_pairs"),
            ((), "/download_db"),
            ((5, "", "ground_truth", "drop"), "/train"),
            (("ann", [], "", ""), "/label_A"),
            (("generated", ["p"], 3, "ann"), "/start_queue"),
        ):
            out = client.predict(*args, api_name=api)
            out = out if isinstance(out, (list, tuple)) else [out]
            assert any(isinstance(o, str) and "Sign in with Hugging Face" in o for o in out), (api, out)
        assert demo.petool_services.store.stats()["labels"] == 0


def test_demo_mode_database_download_only_for_admins(services):
    services.config.demo = True
    with pytest.raises(ValueError, match="disabled in demo mode"):
        export.download_db(services, None)
    with pytest.raises(ValueError, match="disabled in demo mode"):
        export.download_db(services, "someone")
    services.config.admins = ["owner"]
    assert Path(export.download_db(services, "owner")).is_file()


# ---------------------------------------------------------------- 6. resource limits


def test_history_and_candidate_caps(services):
    d = entry_to_dict(services.generated()[0])
    turn = d["histories"]["p"][0]
    d["histories"]["p"] = [turn] * (MAX_TURNS + 1)
    with pytest.raises(ValueError, match=f"limit per request is {MAX_TURNS}"):
        comparison.run_compare(services, d, "p", BASE, TUNED)
    d = entry_to_dict(services.generated()[0])
    d["candidates"] = d["candidates"] * 10
    with pytest.raises(ValueError, match="candidates; the limit"):
        comparison.run_compare(services, d, "p", BASE, TUNED)


def test_generated_tokens_are_capped_by_config(tmp_path, monkeypatch):
    from petool import models

    seen = {}

    def fake_load(**kwargs):
        seen.update(kwargs)
        return FakePredictor()

    monkeypatch.setattr(models, "load_predictor", fake_load)
    s = Services(AppConfig(db_path=str(tmp_path / "t.db"), data_path=None, max_new_tokens=48, max_call_s=7), generated=[])
    s.model.predictor()
    assert seen["max_new_tokens"] == 48 and seen["max_time_s"] == 7
    s.store.close()


class SlowPredictor(FakePredictor):
    def generate(self, entry, setting, **options):
        time.sleep(1.5)
        return super().generate(entry, setting, **options)


def test_a_full_queue_answers_busy_instead_of_hanging(tmp_path):
    outcomes = []
    go = threading.Barrier(5)

    def one(c):
        go.wait()
        t0 = time.perf_counter()
        try:
            c.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")
            outcomes.append(("ok", time.perf_counter() - t0))
        except Exception as exc:  # noqa: BLE001
            outcomes.append((str(exc), time.perf_counter() - t0))

    with running_app(app_config(tmp_path, "q.db", queue_size=1), SlowPredictor) as (_, url):
        clients = []
        for _ in range(5):  # one at a time: loading is quick, the queue of one is free again
            clients.append(api_client(url))
            clients[-1].predict("generated", "0", "p", api_name="/load_entry")
        threads = [threading.Thread(target=one, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    assert len(outcomes) == 5
    busy = [o for o in outcomes if o[0] != "ok"]
    assert busy and all("Queue is full" in msg for msg, _ in busy), outcomes
    assert all(dt < 2.0 for _, dt in busy)  # refused at once, not after a hang
    assert any(msg == "ok" for msg, _ in outcomes)


class GatedPredictor(FakePredictor):
    """Answers at once, or, while ``hold`` is set, only once ``release`` is (a model kept busy)."""

    hold = threading.Event()
    release = threading.Event()

    def generate(self, entry, setting, **options):
        if self.hold.is_set():
            self.release.wait(timeout=60)
        return super().generate(entry, setting, **options)


def _wait_for(condition, timeout=30.0):
    t0 = time.perf_counter()
    while not condition():
        assert time.perf_counter() - t0 < timeout, "timed out waiting"
        time.sleep(0.05)


def send_as_the_browser(url: str, api_name: str, data: list, session_hash: str):
    """Post an event the way gradio's browser client does: an event configured with queue=False
    goes straight to /gradio_api/run/<name>, any other joins the queue (its skip_queue check)."""
    import httpx

    base = url.rstrip("/")
    config = httpx.get(base + "/config", timeout=30).json()
    dep = next(d for d in config["dependencies"] if d.get("api_name") == api_name)
    body = {"data": data, "fn_index": dep["id"], "session_hash": session_hash, "event_data": None}
    path = f"/gradio_api/run/{api_name}" if dep.get("queue") is False else "/gradio_api/queue/join"
    return httpx.post(base + path, json=body, timeout=30)


def test_labels_go_through_while_the_model_is_busy_and_the_queue_full(tmp_path):
    """Queue of one: one comparison runs (model held), one waits, a third is refused as full;
    a verdict sent as the browser sends it (straight to /run, no queue) is still stored at once."""
    import httpx
    from gradio_client.utils import QueueError

    GatedPredictor.hold.clear()
    GatedPredictor.release.clear()
    with running_app(app_config(tmp_path, "busy.db", queue_size=1), GatedPredictor) as (demo, url):
        services = demo.petool_services
        clients = [api_client(url) for _ in range(4)]
        for c in clients:
            c.predict("generated", "0", "p", api_name="/load_entry")
        labeller, running, waiting, refused = clients
        labeller.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")  # before the model is held
        GatedPredictor.hold.set()
        jobs = [running.submit("p", "base", "PEToolLLaMA", False, api_name="/compare")]
        try:
            _wait_for(services.model.busy)
            jobs.append(waiting.submit("p", "base", "PEToolLLaMA", False, api_name="/compare"))
            _wait_for(lambda: len(demo._queue) >= 1)
            with pytest.raises(QueueError, match="Queue is full"):
                refused.predict("p", "base", "PEToolLLaMA", False, api_name="/compare")
            t0 = time.perf_counter()
            response = send_as_the_browser(url, "label_A", label_data(demo, "label_A", "ann", "while busy"), labeller.session_hash)
            took = time.perf_counter() - t0
            assert response.status_code == 200, response.text
            assert services.model.busy() and len(demo._queue) >= 1  # still busy and full: it did not wait
            [label] = services.store.labels()
            assert (label["annotator"], label["comment"]) == ("ann", "while busy") and took < 5
            # Model calls cannot skip the queue that way (api_open=False): its size limit holds.
            fn_index = next(f._id for f in demo.fns.values() if f.api_name == "compare")
            direct = httpx.post(
                url.rstrip("/") + "/gradio_api/run/compare",
                timeout=30,
                json={"data": [None, "p", "base", "PEToolLLaMA", False], "fn_index": fn_index, "session_hash": refused.session_hash},
            )
            assert direct.status_code == 404 and "join the queue" in direct.text
        finally:
            GatedPredictor.release.set()
            for job in jobs:
                job.result(timeout=60)
            GatedPredictor.hold.clear()


# ---------------------------------------------------------------- the time limit per model call


def test_constrained_decoding_stops_at_the_time_limit_with_a_valid_call(tiny_llama_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.fixtures.entries import weather_entry

    tok = AutoTokenizer.from_pretrained(tiny_llama_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_llama_dir).eval()
    grammar = CallGrammar(tok, model.config.vocab_size)
    candidates = weather_entry().candidates
    prompt = tok(
        tok.apply_chat_template([{"role": "user", "content": "weather"}], tokenize=False, add_generation_prompt=True),
        add_special_tokens=False,
    )["input_ids"]
    free = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 200)
    assert free.complete and not free.timed_out and free.model_steps > 0
    cut = constrained_generate(model, tok, prompt, grammar.matcher(candidates), 200, max_time_s=0.0)
    assert cut.timed_out and not cut.complete and cut.model_steps == 0
    call = json.loads(close_call(tok.decode(cut.token_ids), candidates))  # what came out is still a call
    assert any(t.name == call["tool_name"] for t in candidates)


@pytest.mark.parametrize("mode", ["petool", "paper"])
def test_local_predictor_reports_the_time_limit(tiny_llama_dir, mode):
    from petool.models import load_predictor
    from petool.parsing import parse_call
    from tests.fixtures.entries import weather_entry

    entry = weather_entry()
    unlimited = load_predictor(tiny_llama_dir, mode=mode, max_new_tokens=40, device="cpu")
    assert unlimited.generate(entry, "p").timed_out is False
    limited = load_predictor(tiny_llama_dir, mode=mode, max_new_tokens=40, device="cpu", max_time_s=1e-6)
    assert limited.describe()["max_time_s"] == 1e-6
    g = limited.generate(entry, "p")
    assert g.timed_out is True and g.output_tokens < 40
    if mode == "petool":  # the cut call is closed, so it still parses to a candidate
        assert entry.candidate(parse_call(g.text, "paper").call.tool_name) is not None
    with pytest.raises(ValueError, match="max_time_s must be > 0"):
        load_predictor(tiny_llama_dir, max_time_s=0)


def test_remote_models_get_the_time_limit_as_their_timeout():
    from petool.predictors import build_predictor

    p = build_predictor("openai:some-model", base_url="http://127.0.0.1:9/v1", api_key="", max_time_s=7)
    assert p.timeout == 7
    assert build_predictor("openai:m", base_url="http://127.0.0.1:9/v1", api_key="", max_time_s=7, timeout=3).timeout == 3


class TimedOutPredictor(FakePredictor):
    """Answers like the fake, but says generation stopped at the time limit (as LocalPredictor does)."""

    def generate(self, entry, setting, **options):
        generation = super().generate(entry, setting, **options)
        generation.timed_out = generation.model == self._name(True)  # the adapter's side only
        return generation


def test_the_page_says_which_side_hit_the_time_limit(tmp_path, generated):
    s = Services(
        AppConfig(db_path=str(tmp_path / "t.db"), data_path=None, max_call_s=30),
        predictor_factory=TimedOutPredictor,
        generated=list(generated),
    )
    result = comparison.run_compare(s, entry_to_dict(generated[0]), "p", BASE, TUNED)
    base, tuned = result["sides"]
    assert base["note"] == "" and "time limit (30 s per model call" in tuned["note"]
    assert tuned["call"] is not None and tuned["error"] != "model:error"  # the output is parsed and scored
    html_a, html_b, summary = compare.render_result(result)
    assert "time limit" in html_b and "time limit" not in html_a
    assert "Side B stopped at the time limit" in summary and "Side A stopped" not in summary
    s.store.close()


def test_max_call_s_is_read_and_checked():
    assert AppConfig.from_env({}).max_call_s == 120
    assert AppConfig.from_env({"PETOOL_MAX_CALL_S": "30"}).max_call_s == 30
    for bad in ("0", "5000", "soon"):
        with pytest.raises(ValueError, match="PETOOL_MAX_CALL_S"):
            AppConfig.from_env({"PETOOL_MAX_CALL_S": bad})


def test_a_start_waits_out_a_writer_on_a_new_rollback_journal_file(tmp_path):
    """Switching a new file to WAL while another connection holds its write lock gets an
    immediate "database is locked" (SQLite skips the busy handler to avoid a deadlock); the start
    retries instead of failing, as six concurrent first starts once did."""
    path = tmp_path / "new.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE other (x)")  # a rollback-journal file, as a first start finds it
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO other VALUES (1)")
    release = threading.Timer(0.5, lambda: writer.execute("COMMIT"))
    release.start()
    store = Store(path)
    release.join()
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {k: v for k, v in store.schema().items() if k != "other"} == EXPECTED_SCHEMA
    store.close()
    writer.close()
