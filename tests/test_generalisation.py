"""benchmarks/generalisation.py: parts disjoint by category, petool's own scoring, the table's shape."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import generalisation as gen
from petool.formats import write_combined


def test_generated_parts_share_no_category_and_are_seeded():
    parts = gen.generated_parts(12, seed=4)
    assert list(parts) == ["seen", "validation", "held-out"] and all(len(v) == 12 for v in parts.values())
    cats = {name: {e.category for e in entries} for name, entries in parts.items()}
    assert not cats["seen"] & cats["validation"] and not cats["seen"] & cats["held-out"] and not cats["validation"] & cats["held-out"]
    assert gen.generated_parts(12, seed=4) == parts


def test_the_table_has_every_part_and_gap_per_setting_and_uses_petools_runs(tmp_path):
    dev = tmp_path / "dev.json.gz"
    write_combined(gen.generated_parts(5, seed=9)["held-out"], dev)  # any entries file stands in for the dev file
    results, notes = gen.run("baseline:evidence", n=8, limit=6, seed=1, settings=["p", "r"], dev=dev, out=tmp_path / "runs")
    assert not notes
    assert set(results) == {"seen", "validation", "held-out", "dev"}
    assert results["dev"]["r"][0] == 5 and all(results[p]["p"][0] == 6 for p in ("seen", "validation", "held-out"))
    # the figures are the ones petool eval's run folders hold
    metrics = json.loads((tmp_path / "runs" / "held-out" / "metrics.json").read_text())
    row = next(r for r in metrics["by_setting"] if r["setting"] == "r")
    assert results["held-out"]["r"][1:] == (100 * row["tool_acc"], 100 * row["param_acc"])
    text = gen.tables(results, ["p", "r"], notes)
    blocks = text.split("setting ")[1:]
    assert [b.split("\n", 1)[0] for b in blocks] == ["p", "r"]
    for s, b in zip(["p", "r"], blocks, strict=False):
        rows = [
            [c.strip() for c in line.strip("|").split("|")]
            for line in b.splitlines()
            if line.startswith("| ") and not line.startswith("| part")
        ]
        assert [r[0] for r in rows] == ["seen", "validation", "held-out", "dev", "gap seen - held-out", "gap held-out - dev"]
        assert all(len(r) == 4 for r in rows)
        for r, part in zip(rows, ["seen", "validation", "held-out", "dev"], strict=False):
            assert (int(r[1]), float(r[2]), float(r[3])) == (
                results[part][s][0],
                round(results[part][s][1], 1),
                round(results[part][s][2], 1),
            )
        for r, (a, z) in zip(rows[4:], [("seen", "held-out"), ("held-out", "dev")], strict=False):
            assert float(r[2]) == round(results[a][s][1] - results[z][s][1], 1)
            assert float(r[3]) == round(results[a][s][2] - results[z][s][2], 1)


def test_a_missing_dev_file_is_skipped_with_a_note(tmp_path):
    missing = Path(tmp_path / "absent.json.gz")
    results, notes = gen.run("baseline:random", n=3, settings=["c"], dev=missing)
    assert "dev" not in results and str(missing) in notes["dev"]
    text = gen.tables(results, ["c"], notes)
    assert f"| dev | 0 | – | – | (skipped: no dev file at {missing})" in text
    assert "| gap held-out - dev | – | – | – |" in text
