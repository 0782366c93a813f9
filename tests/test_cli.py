"""The CLI: every subcommand documented in docs/cli.md, and each one run end to end."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from petool.cli import COMMANDS, build_parser, main
from petool.formats import write_combined
from tests.fixtures.entries import WEATHER_A, empty_history_entry, weather_entry

CLI_DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def test_every_subcommand_is_documented_in_docs_cli_md():
    text = CLI_DOC.read_text(encoding="utf-8")
    documented = set(re.findall(r"\| `petool (\w+)", text))
    assert documented == set(COMMANDS)
    for name, sub in build_parser()._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help":
                    assert flag in text, f"petool {name} {flag} is not in docs/cli.md"


def _data(tmp_path):
    return str(write_combined([weather_entry(), empty_history_entry()], tmp_path / "data.json"))


def test_eval_prints_a_table_and_resumes(tmp_path, capsys):
    data = _data(tmp_path)
    args = ["eval", "--data", data, "--model", "baseline:rules", "--settings", "p,r", "--out", str(tmp_path / "run"), "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert re.search(r"^p\s+2\s+\d", out, re.M) and re.search(r"^r\s+2\s+", out, re.M)
    assert main(args) == 0  # a rerun resumes: nothing left to do, same metrics
    lines = (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 4


def test_score_json_counts_missing_as_wrong(tmp_path, capsys):
    data = _data(tmp_path)
    good = json.dumps({"tool_name": WEATHER_A, "parameters": {"city": "Rome", "days": 5}})
    responses = tmp_path / "responses.json"
    responses.write_text(json.dumps([{"entry_id": 7, "setting": "p", "response": good}]))
    assert main(["score", "--data", data, "--responses", str(responses), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["by_setting"] == [{"setting": "p", "n": 2, "tool_acc": 0.5, "param_acc": 0.5, "both_acc": 0.5}]


def test_convert_round_trips_entries_and_training_files(tmp_path, capsys):
    data = _data(tmp_path)
    assert main(["convert", data, "--to", "release", "--out", str(tmp_path / "rel")]) == 0
    assert sorted(p.name for p in (tmp_path / "rel").iterdir())[0] == "user_entries_test_c.json"
    assert main(["convert", data, "--to", "lf-sft", "--out", str(tmp_path / "lf")]) == 0
    assert json.loads((tmp_path / "lf" / "dataset_info.json").read_text())["user_entries_sft_p"]["file_name"] == "user_entries_sft_p.json"
    assert main(["convert", str(tmp_path / "lf" / "user_entries_sft_p.json"), "--to", "trl-sft", "--out", str(tmp_path / "sft.jsonl")]) == 0
    assert len((tmp_path / "sft.jsonl").read_text().splitlines()) == 2


def test_errors_are_messages_not_tracebacks(tmp_path, capsys):
    assert main(["eval", "--data", str(tmp_path / "missing.json"), "--model", "baseline:rules", "--out", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["eval", "--data", _data(tmp_path), "--model", "baseline:smart", "--out", str(tmp_path / "o")]) == 2
    assert "valid: random" in capsys.readouterr().err
    assert main(["eval", "--data", _data(tmp_path), "--model", "baseline:rules", "--settings", "x", "--out", str(tmp_path / "o")]) == 2


def test_module_entry_point_and_help_are_fast_and_light():
    code = "import sys, petool.cli; petool.cli.main(['baselines']); print('torch' in sys.modules, 'gradio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "baseline:rules" in out and out.strip().endswith("False False")
    help_text = subprocess.run([sys.executable, "-m", "petool", "--help"], capture_output=True, text=True, check=True).stdout
    assert "eval" in help_text


def test_build_then_stats_then_eval_on_generated_data(tmp_path, capsys):
    out = tmp_path / "bench"
    args = ["build", "--out", str(out), "--n-train", "6", "--n-test", "4", "--seed", "3", "--no-progress", "--no-trl-sft"]
    assert main(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_train"] == 6 and summary["n_test"] == 4
    assert (out / "test" / "user_entries_test_r.json").exists() and (out / "train" / "dataset_info.json").exists()
    capsys.readouterr()
    assert main(["stats", str(out / "test" / "entries.json.gz"), "--no-real", "--figures", str(tmp_path / "fig")]) == 0
    text = capsys.readouterr().out
    assert "functional cluster size" in text and "prompt tokens: estimate" in text
    assert (tmp_path / "fig" / "index.html").exists()
    assert main(["eval", "--data", str(out / "test"), "--model", "baseline:evidence", "--out", str(tmp_path / "run"), "--no-progress"]) == 0


def test_build_rejects_bad_values_with_a_message(tmp_path, capsys):
    assert main(["build", "--out", str(tmp_path), "--n-train", "-1", "--no-progress"]) == 2
    assert "n_train" in capsys.readouterr().err
    assert main(["build", "--out", str(tmp_path), "--copied-clusters", "1.5", "--no-progress"]) == 2
    assert "p_copied_cluster" in capsys.readouterr().err


def test_build_copies_cluster_apis_when_asked(tmp_path):
    from petool.formats import load_entries
    from petool.schema import split_tool_name

    def api_names(out):
        entries = load_entries(out / "test" / "entries.json.gz").entries
        return [len({split_tool_name(n)[2] for n in e.cluster}) for e in entries]

    base = ["build", "--n-train", "0", "--n-test", "12", "--seed", "4", "--no-progress", "--no-trl-sft"]
    assert main(base + ["--out", str(tmp_path / "a"), "--copied-clusters", "1"]) == 0
    assert main(base + ["--out", str(tmp_path / "b")]) == 0
    assert json.loads((tmp_path / "a" / "build_config.json").read_text())["config"]["p_copied_cluster"] == 1.0
    assert max(api_names(tmp_path / "a")) == 1 < max(api_names(tmp_path / "b"))  # one API name per cluster


def test_build_merges_repeated_catalogs(tmp_path, capsys):
    from petool.formats import load_entries
    from petool.schema import split_tool_name

    small = json.loads((Path(__file__).parent / "fixtures" / "catalog_small.json").read_text())
    other = json.loads(json.dumps(small).replace("Weather", "Climate").replace("Music", "Audio"))
    for t in other["tools"]:
        t["name"] += " Two"
    other["clusters"] = {f"two.{cid}": text for cid, text in other["clusters"].items()}
    for t in other["tools"]:
        for a in t["apis"]:
            a["cluster"] = f"two.{a['cluster']}"
    (tmp_path / "a.json").write_text(json.dumps(small))
    (tmp_path / "b.json").write_text(json.dumps(other))
    base = ["build", "--n-train", "0", "--n-test", "40", "--seed", "4", "--no-progress", "--no-trl-sft"]
    assert main(base + ["--out", str(tmp_path / "m"), "--catalog", str(tmp_path / "a.json"), "--catalog", str(tmp_path / "b.json")]) == 0
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert summary["catalog"] == f"{tmp_path / 'a.json'} + {tmp_path / 'b.json'}"
    assert summary["catalog_summary"]["tools"] == 2 * len(small["tools"])
    categories = {split_tool_name(e.ground_truth.tool_name)[0] for e in load_entries(tmp_path / "m" / "test" / "entries.json.gz").entries}
    assert categories & {"Weather", "Music"} and categories & {"Climate", "Audio"}  # gold calls from both catalogs
    capsys.readouterr()
    assert main(base + ["--out", str(tmp_path / "x"), "--catalog", str(tmp_path / "a.json"), "--catalog", str(tmp_path / "a.json")]) == 2
    assert "is in both" in capsys.readouterr().err


# ---------------------------------------------------------------- hostile and broken inputs


def _gzip_bomb(path: Path, inflated_mib: int) -> Path:
    """A valid JSON list (``[`` spaces ``]``) that inflates about a thousandfold, written in chunks."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: the gzip container
    with path.open("wb") as f:
        f.write(packer.compress(b"["))
        for _ in range(inflated_mib):
            f.write(packer.compress(b" " * (1 << 20)))
        f.write(packer.compress(b"]") + packer.flush())
    return path


def test_a_gzip_bomb_is_refused_before_it_fills_the_memory(tmp_path, monkeypatch):
    import time
    import tracemalloc

    from petool.formats import MAX_UNZIPPED_MB, max_unzipped_bytes, read_json

    bomb = _gzip_bomb(tmp_path / "entries.json.gz", inflated_mib=128)
    assert bomb.stat().st_size < 1 << 20  # under a MiB on disk
    monkeypatch.setenv("PETOOL_MAX_UNZIPPED_MB", "4")
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ValueError, match=r"entries\.json\.gz: decompresses to more than 4 MiB.*PETOOL_MAX_UNZIPPED_MB"):
            read_json(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"peak {peak / 2**20:.0f} MiB while refusing a 128 MiB payload"
    assert time.perf_counter() - started < 5
    # Under the cap the same reader still reads gzip files whole.
    assert read_json(_gzip_bomb(tmp_path / "small.json.gz", inflated_mib=2)) == []
    assert max_unzipped_bytes({}) == MAX_UNZIPPED_MB << 20 and max_unzipped_bytes({"PETOOL_MAX_UNZIPPED_MB": "3"}) == 3 << 20
    for bad in ("0", "-1", "lots", "1.5"):
        with pytest.raises(ValueError, match="PETOOL_MAX_UNZIPPED_MB must be a whole number"):
            max_unzipped_bytes({"PETOOL_MAX_UNZIPPED_MB": bad})


@pytest.mark.parametrize(
    "command",
    [
        ["eval", "--data", "{bomb}", "--model", "baseline:rules", "--out", "{tmp}/run", "--no-progress"],
        ["score", "--data", "{bomb}", "--responses", "{tmp}/responses.json"],
        ["score", "--data", "{data}", "--responses", "{bomb}"],
        ["convert", "{bomb}", "--to", "release", "--out", "{tmp}/rel"],
        ["convert", "{bomb_jsonl}", "--to", "lf-dpo", "--out", "{tmp}/dpo"],
        ["stats", "{bomb}", "--no-real"],
    ],
)
def test_every_cli_reader_refuses_a_gzip_bomb(tmp_path, capsys, monkeypatch, command):
    monkeypatch.setenv("PETOOL_MAX_UNZIPPED_MB", "4")
    bomb = _gzip_bomb(tmp_path / "bomb.json.gz", inflated_mib=32)
    bomb_jsonl = _gzip_bomb(tmp_path / "bomb.jsonl.gz", inflated_mib=32)
    (tmp_path / "responses.json").write_text("[]")
    values = {"bomb": str(bomb), "bomb_jsonl": str(bomb_jsonl), "tmp": str(tmp_path), "data": _data(tmp_path)}
    assert main([part.format(**values) for part in command]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "bomb.json" in err and "more than 4 MiB" in err


def _responses(tmp_path: Path, rows: list) -> str:
    path = tmp_path / "responses.json"
    path.write_text(json.dumps(rows))
    return str(path)


def _write_bytes(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def _only_p_entry():
    entry = empty_history_entry()
    entry.histories = {"p": []}
    return entry


def _damaged_db(tmp_path: Path, page: str = "root") -> str:
    """A store of 300 users with one page garbled: the users table's root page, or a few cells of
    a page in the middle of the file (a leaf of the users table), the header left sound."""
    import sqlite3

    from petool.store import Store

    path = tmp_path / f"damaged-{page}.db"
    store = Store(path)
    for i in range(300):
        store.save_user(f"user{i}", {"bio": "x" * 500})
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    (page_count,) = conn.execute("PRAGMA page_count").fetchone()
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'users'").fetchone()
    conn.close()
    with path.open("r+b") as f:
        if page == "root":
            f.seek((root - 1) * page_size)
            f.write(b"\xff" * page_size)
        else:
            f.seek((page_count // 2 - 1) * page_size + 100)
            f.write(b"\xff" * 200)
    return str(path)


# (argv with {data} / {tmp} placeholders, files to make first, words the one error line must hold)
FAILURES = {
    "score: a list as setting": (
        ["score", "--data", "{data}", "--responses", "{responses}"],
        lambda t: {"responses": _responses(t, [{"entry_id": 7, "setting": ["p"], "response": "x"}])},
        ["responses.json", "response #0", "setting must be one of p, r, c, none"],
    ),
    "score: an object as response": (
        ["score", "--data", "{data}", "--responses", "{responses}"],
        lambda t: {"responses": _responses(t, [{"entry_id": 7, "setting": "p", "response": {"tool_name": "x"}}])},
        ["responses.json", "response #0", "a string"],
    ),
    "convert: a missing file": (
        ["convert", "{tmp}/missing.jsonl", "--to", "lf-dpo", "--out", "{tmp}/out"],
        lambda t: {},
        ["missing.jsonl", "no such file"],
    ),
    "convert: a non-UTF-8 jsonl": (
        ["convert", "{latin}", "--to", "lf-dpo", "--out", "{tmp}/out"],
        lambda t: {"latin": _write_bytes(t / "latin.jsonl", '{"prompt": "café"}\n'.encode("latin-1"))},
        ["latin.jsonl", "not UTF-8"],
    ),
    "convert: messages that are not objects": (
        ["convert", "{odd}", "--to", "lf-dpo", "--out", "{tmp}/out"],
        lambda t: {"odd": _write_bytes(t / "odd.jsonl", b'{"prompt": ["hi"], "chosen": "a", "rejected": "b"}\n')},
        ["odd.jsonl", "no usable rows", "nothing written"],
    ),
    "convert: no usable row": (
        ["convert", "{rows}", "--to", "trl-dpo", "--out", "{tmp}/out/pairs.jsonl"],
        lambda t: {"rows": _write_bytes(t / "rows.json", b'[{"instruction": "only"}]')},
        ["rows.json", "no usable rows", "nothing written"],
    ),
    "convert: no entry has the setting": (
        ["convert", "{data}", "--to", "lf-sft", "--settings", "c", "--out", "{tmp}/out"],
        lambda t: {"data": write_combined([_only_p_entry()], t / "only_p.json")},
        ["only_p.json", "no entry has the settings c", "nothing written"],
    ),
    "eval --db: not a database": (
        ["eval", "--data", "{data}", "--model", "baseline:rules", "--settings", "p", "--out", "{tmp}/run", "--no-progress", "--db", "{db}"],
        lambda t: {"db": _write_bytes(t / "junk.db", b"not sqlite " * 500)},
        ["junk.db", "not a sound SQLite database"],
    ),
    "eval --db: a damaged page": (
        ["eval", "--data", "{data}", "--model", "baseline:rules", "--settings", "p", "--out", "{tmp}/run", "--no-progress", "--db", "{db}"],
        lambda t: {"db": _damaged_db(t)},
        ["damaged-root.db", "not a sound SQLite database"],
    ),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_each_failure_is_one_line_and_a_nonzero_exit(tmp_path, capsys, case):
    argv, make, words = FAILURES[case]
    values = {"data": _data(tmp_path), "tmp": str(tmp_path)}
    values.update({k: str(v) for k, v in make(tmp_path).items()})
    code = main([part.format(**values) for part in argv])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert code == 2 and "Traceback" not in err
    assert len(lines) == 1 and lines[0].startswith(f"petool {argv[0]}: error: ")
    for word in words:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
    assert not (tmp_path / "out").exists()  # a refused convert writes nothing


def test_a_damaged_store_is_refused_at_the_start(tmp_path):
    import sqlite3

    from petool.store import Store

    for page in ("root", "leaf"):  # the root page unreadable; a leaf's cells garbled (quick_check's list)
        with pytest.raises(sqlite3.DatabaseError, match=rf"damaged-{page}\.db: not a sound SQLite database \(") as caught:
            Store(_damaged_db(tmp_path, page))
        assert type(caught.value).__name__ == "StoreDamaged"
    junk = _write_bytes(tmp_path / "junk.db", b"\x00garbage" * 1000)
    with pytest.raises(sqlite3.DatabaseError, match=r"junk\.db: not a sound SQLite database"):
        Store(junk)
    assert Path(junk).read_bytes() == b"\x00garbage" * 1000  # refused, not written over


def test_eval_adapter_none_means_the_base_alone(tmp_path, capsys, tiny_llama_dir):
    data = _data(tmp_path)
    base = ["eval", "--data", data, "--settings", "p", "--limit", "1", "--no-progress"]
    assert main(base + ["--model", "baseline:rules", "--adapter", "none", "--out", str(tmp_path / "rules")]) == 0
    assert main(base + ["--model", tiny_llama_dir, "--adapter", "none", "--out", str(tmp_path / "lm")]) == 0
    assert json.loads((tmp_path / "lm" / "config.json").read_text())["adapter"] is None
    capsys.readouterr()
    assert main(base + ["--model", tiny_llama_dir, "--adapter", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "petool eval: error: adapter not found: " in err and "nowhere" in err


def test_a_reader_that_left_ends_the_command_quietly(tmp_path):
    """`petool score ... | head -1`: head leaves after its line; here the pipe's reading end is
    closed before the command writes, so every write meets the closed pipe."""
    import os

    data = _data(tmp_path)
    responses = _responses(tmp_path, [{"entry_id": 7, "setting": "p", "response": "x"}])
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for extra in ([], ["--json"]):
        read_end, write_end = os.pipe()
        os.close(read_end)
        proc = subprocess.run(
            [sys.executable, "-m", "petool", "score", "--data", data, "--responses", responses, *extra],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=root,
            timeout=120,
            check=False,
        )
        os.close(write_end)
        assert proc.stderr == "" and proc.returncode == 141  # as a shell shows a command ended by SIGPIPE
