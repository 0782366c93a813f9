"""Read and write PEToolBench, LLaMA-Factory and TRL files.

Reading never drops an entry silently: each malformed entry becomes a problem string naming its
position and reason, and the rest still load; ``strict=True`` turns the first problem into a
``ValueError`` instead.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from petool.prompts import INSTRUCTION_FIELDS, build_messages, render_system_prompt, split_paper_prompt
from petool.schema import (
    ALL_SETTINGS,
    SETTINGS,
    Entry,
    PreferenceExample,
    SFTExample,
    Tool,
    ToolCall,
    Turn,
    join_tool_name,
    split_tool_name,
)

RELEASE_FILE = "user_entries_test_{setting}.json"
SFT_FILE = "user_entries_sft_{setting}.json"
DPO_FILE = "user_entries_dpo_{setting}.json"


@dataclass
class LoadResult:
    """Entries read from a path, the problems met on the way, and the format recognised."""

    entries: list[Entry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    kind: str = ""


# ---------------------------------------------------------------- reading entries


ENV_MAX_UNZIPPED = "PETOOL_MAX_UNZIPPED_MB"
MAX_UNZIPPED_MB = 512
"""Largest content a ``.gz`` file may decompress to, in MiB, unless ``PETOOL_MAX_UNZIPPED_MB``
says otherwise. A gzip bomb inflates about a thousandfold, so without a cap a small file fills the
memory; the cap leaves room for entry files well past PEToolBench's size."""

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK_BYTES = 1 << 20


def max_unzipped_bytes(env: Mapping[str, str] = os.environ) -> int:
    """The decompression cap in bytes: ``PETOOL_MAX_UNZIPPED_MB`` (a whole number of MiB) or the default."""
    raw = env.get(ENV_MAX_UNZIPPED, "").strip()
    if not raw:
        return MAX_UNZIPPED_MB << 20
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"PETOOL_MAX_UNZIPPED_MB must be a whole number of MiB, at least 1, got {raw!r}")
    return int(raw) << 20


def read_bytes(path: str | os.PathLike, max_unzipped: int | None = None) -> bytes:
    """The bytes of a plain file, or of a gzip file decompressed in chunks and refused past a cap.

    Args:
        max_unzipped: the most bytes a gzip file may decompress to (default: ``max_unzipped_bytes()``).
    Raises:
        ValueError naming the file and the cap when the content is larger; OSError / EOFError as
        reading raises them (missing file, damaged gzip stream).
    """
    limit = max_unzipped_bytes() if max_unzipped is None else max_unzipped
    with open(path, "rb") as f:
        if f.read(2) != _GZIP_MAGIC:
            f.seek(0)
            return f.read()
        f.seek(0)
        out = io.BytesIO()
        with gzip.GzipFile(fileobj=f) as unzipped:
            # Read one chunk past the cap at most: memory stays bounded whatever the file claims.
            while chunk := unzipped.read(min(_CHUNK_BYTES, limit + 1 - out.tell())):
                out.write(chunk)
                if out.tell() > limit:
                    raise ValueError(
                        f"{path}: decompresses to more than {_mib(limit)} MiB, the limit for .gz files "
                        "(set PETOOL_MAX_UNZIPPED_MB to allow more)"
                    )
        return out.getvalue()


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g}"


def read_text(path: str | os.PathLike, max_unzipped: int | None = None) -> str:
    """UTF-8 text of a plain or gzip file (see read_bytes), with errors that name the file."""
    path = Path(path)
    try:
        return read_bytes(path, max_unzipped).decode("utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except (OSError, EOFError) as exc:
        raise ValueError(f"{path}: cannot read ({exc})") from None


def read_json(path: str | os.PathLike, max_unzipped: int | None = None) -> Any:
    """Load JSON from a plain or gzip file with a message that names the file when it fails."""
    text = read_text(path, max_unzipped)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno} column {exc.colno})") from None


def load_entries(path: str | os.PathLike, strict: bool = False) -> LoadResult:
    """Read PEToolBench entries from an early combined file, a release file, or a folder of them.

    Args:
        path: ``early_test_dev.json(.gz)``, ``user_entries_test_{p,r,c}.json``, or a folder
            holding release files (``user_entries_test_*.json``) or combined files.
        strict: raise ``ValueError`` on the first malformed entry instead of reporting it.
    Returns:
        LoadResult with the entries, one problem string per skipped entry, and the kind read.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("user_entries_test_*.json")) or sorted(p for p in path.glob("*.json*") if p.name != "dataset_info.json")
        if not files:
            raise ValueError(f"{path}: no user_entries_test_*.json or *.json files in this folder")
        result = LoadResult(kind="folder")
        for f in files:
            part = load_entries(f, strict)
            result.entries += part.entries
            result.problems += part.problems
        result.entries = merge_settings(result.entries)
        return result
    data = read_json(path)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of entries, got {type(data).__name__}")
    result = LoadResult()
    for i, item in enumerate(data):
        try:
            entry, kind = entry_from_json(item)
        except (ValueError, KeyError, TypeError) as exc:
            problem = f"{path.name}: entry #{i}{_id_hint(item)}: {exc}"
            if strict:
                raise ValueError(problem) from None
            result.problems.append(problem)
            continue
        result.entries.append(entry)
        result.kind = result.kind or kind
    return result


def merge_settings(entries: list[Entry]) -> list[Entry]:
    """One entry per id: release files hold one setting each, so a folder of them gives every
    entry once per file; those with the same id, query and gold call are joined (histories
    merged), in first-seen order. Entries that disagree stay apart.

    Example:
        >>> from petool.schema import ToolCall
        >>> a = Entry(1, "q", [], ToolCall("<A>.<B>.<c>"), {"p": []})
        >>> b = Entry(1, "q", [], ToolCall("<A>.<B>.<c>"), {"r": []})
        >>> [sorted(e.histories) for e in merge_settings([a, b])]
        [['p', 'r']]
    """
    merged: dict[str, Entry] = {}
    out: list[Entry] = []
    for entry in entries:
        first = merged.get(entry.key)
        if (
            first is not None
            and first.query == entry.query
            and first.ground_truth == entry.ground_truth
            and not set(first.histories) & set(entry.histories)
        ):
            first.histories.update(entry.histories)
            first.cluster = first.cluster or entry.cluster
            first.history_length = first.history_length if first.history_length is not None else entry.history_length
            continue
        if first is None:
            merged[entry.key] = entry
        out.append(entry)
    return out


def entry_from_json(d: Any) -> tuple[Entry, str]:
    """Build an Entry from an authors'-format dict; returns (entry, "combined" | "release")."""
    if not isinstance(d, dict):
        raise ValueError(f"an entry must be a JSON object, got {type(d).__name__}")
    for key in ("query", "api_call_ground_truth"):
        if key not in d:
            raise ValueError(f"missing field {key!r}")
    if not isinstance(d["query"], str):
        raise ValueError("'query' must be a string")
    ground_truth = ToolCall.from_json(d["api_call_ground_truth"])
    histories: dict[str, list[Turn]] = {}
    candidates_raw = None
    if "apis_candidate" in d:
        raw = d["apis_candidate"]
        candidates_raw = json.loads(raw) if isinstance(raw, str) else raw
    for setting in SETTINGS:
        prompt = d.get(INSTRUCTION_FIELDS[setting])
        if prompt is None:
            continue
        if not isinstance(prompt, str):
            raise ValueError(f"{INSTRUCTION_FIELDS[setting]!r} must be a string")
        try:
            found, history, cands = split_paper_prompt(prompt)
        except ValueError as exc:
            raise ValueError(f"{INSTRUCTION_FIELDS[setting]}: {exc}") from None
        if found != setting:
            raise ValueError(f"{INSTRUCTION_FIELDS[setting]} holds a prompt of setting {found!r}")
        histories[setting] = [Turn.from_json(t) for t in history]
        candidates_raw = cands if candidates_raw is None else candidates_raw
    if candidates_raw is None and isinstance(d.get(INSTRUCTION_FIELDS["none"]), str):
        candidates_raw = split_paper_prompt(d[INSTRUCTION_FIELDS["none"]])[2]
    if candidates_raw is None:
        raise ValueError("no candidate tools: neither 'apis_candidate' nor an instruction_* prompt")
    if not isinstance(candidates_raw, list):
        raise ValueError("'apis_candidate' must be a list")
    gt_api = d.get("api_ground_truth") if isinstance(d.get("api_ground_truth"), dict) else {}
    cluster = [_api_record_name(a) for a in d.get("apis_same_func") or [] if isinstance(a, dict)]
    entry = Entry(
        entry_id=d.get("entry_id"),
        query=d["query"],
        candidates=[Tool.from_json(c) for c in candidates_raw],
        ground_truth=ground_truth,
        histories=histories,
        history_length=_int_or_none(d.get("history_length")),
        category=gt_api.get("category_name") or _category_of(ground_truth.tool_name),
        cluster=[c for c in cluster if c],
        func=None if d.get("func") is None else str(d["func"]),
        preferred_tools=list(d.get("tool_comb") or []),
        extra={k: d[k] for k in ("api_ground_truth", "apis_same_func", "num_tools_combined", "user") if k in d},
    )
    kind = "combined" if len(histories) > 1 else "release"
    return entry, kind


def _api_record_name(api: dict) -> str | None:
    if all(isinstance(api.get(k), str) for k in ("category_name", "tool_name", "api_name")):
        return join_tool_name(api["category_name"], api["tool_name"], api["api_name"])
    return None


def _category_of(full_name: str) -> str | None:
    parts = split_tool_name(full_name)
    return parts[0] if parts else None


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _id_hint(item: Any) -> str:
    return f" (entry_id {item['entry_id']!r})" if isinstance(item, dict) and "entry_id" in item else ""


# ---------------------------------------------------------------- writing entries


def entry_to_json(entry: Entry, settings: Iterable[str] = SETTINGS) -> dict:
    """The authors' combined-format dict for an entry (all of its settings that are asked for)."""
    d: dict[str, Any] = {"query": entry.query}
    for setting in settings:
        if setting in entry.histories:
            d[INSTRUCTION_FIELDS[setting]] = render_system_prompt(entry, setting)
    d[INSTRUCTION_FIELDS["none"]] = render_system_prompt(entry, "none")
    d["apis_candidate"] = json.dumps([t.to_json() for t in entry.candidates], ensure_ascii=False)
    d["api_call_ground_truth"] = entry.ground_truth.to_json()
    for key in ("api_ground_truth", "apis_same_func"):
        if key in entry.extra:
            d[key] = entry.extra[key]
    if entry.func is not None:
        d["func"] = entry.func
    if entry.preferred_tools:
        d["tool_comb"] = entry.preferred_tools
        d["num_tools_combined"] = str(len(entry.preferred_tools))
    if "user" in entry.extra:
        d["user"] = entry.extra["user"]
    d["history_length"] = entry.history_length
    d["entry_id"] = entry.entry_id
    return d


def write_json(data: Any, path: str | os.PathLike) -> Path:
    """Write JSON (gzip when the name ends in .gz) atomically, so a crash never leaves half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    payload = gzip.compress(text.encode(), mtime=0) if path.suffix == ".gz" else text.encode()
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(payload)
    os.replace(tmp, path)
    return path


def write_combined(entries: list[Entry], path: str | os.PathLike) -> Path:
    """Write entries in the early combined format (every setting in one list)."""
    return write_json([entry_to_json(e) for e in entries], path)


def write_release_files(entries: list[Entry], folder: str | os.PathLike, settings: Iterable[str] = ALL_SETTINGS) -> list[Path]:
    """Write ``user_entries_test_{setting}.json`` per setting as the authors' evaluator reads them.

    Each file holds the fields the official evaluator reads: ``query``, the setting's
    instruction, ``instruction_wo_history``, ``api_call_ground_truth``, ``entry_id``,
    ``history_length``; plus ``apis_candidate`` and cluster fields so petool can score errors.
    """
    written = []
    for setting in settings:
        rows = []
        for e in entries:
            if setting != "none" and setting not in e.histories:
                continue
            full = entry_to_json(e, [setting] if setting != "none" else [])
            rows.append(full)
        written.append(write_json(rows, Path(folder) / RELEASE_FILE.format(setting=setting)))
    return written


# ---------------------------------------------------------------- training files


def entry_to_sft(entry: Entry, setting: str, style: str = "paper") -> SFTExample:
    """A supervised example for ``entry``: its system prompt, query and gold call."""
    messages = build_messages(entry, setting, style)
    return SFTExample(messages[0]["content"], messages[1]["content"], entry.ground_truth.to_text())


def write_lf_sft(examples: list[SFTExample], path: str | os.PathLike) -> Path:
    """LLaMA-Factory alpaca SFT file: instruction = prompt, input = query, output = call."""
    return write_json([{"instruction": e.system, "input": e.user, "output": e.output} for e in examples], path)


def write_lf_dpo(examples: list[PreferenceExample], path: str | os.PathLike) -> Path:
    """LLaMA-Factory ranking file (the authors' DPO format): instruction, input, chosen, rejected."""
    rows = [{"instruction": e.system, "input": e.user, "chosen": e.chosen, "rejected": e.rejected} for e in examples]
    return write_json(rows, path)


def write_dataset_info(folder: str | os.PathLike, files: dict[str, tuple[str, bool]]) -> Path:
    """LLaMA-Factory ``dataset_info.json`` for alpaca files; ``ranking`` marks DPO files."""
    info = {}
    for name, (file_name, ranking) in files.items():
        columns = {"prompt": "instruction", "query": "input"}
        columns.update({"chosen": "chosen", "rejected": "rejected"} if ranking else {"response": "output"})
        info[name] = {"file_name": file_name, "formatting": "alpaca", "columns": columns}
        if ranking:
            info[name]["ranking"] = True
    return write_json(info, Path(folder) / "dataset_info.json")


def _read_rows(
    path: str | os.PathLike, required: tuple[str, ...], strict: bool, convert: Callable[[dict], Any] | None = None
) -> tuple[list, list[str]]:
    """Rows (or ``convert(row)`` for each) of a JSON list or JSONL file; a row lacking a field or
    failing ``convert`` becomes a problem naming its number."""
    path = Path(path)
    if path.name.endswith((".jsonl", ".jsonl.gz")):
        rows, problems = [], []
        for n, line in enumerate(read_text(path).splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    problems.append(f"{path.name}: line {n}: not valid JSON ({exc.msg})")
    else:
        rows, problems = read_json(path), []
        if not isinstance(rows, list):
            raise ValueError(f"{path}: expected a JSON list, got {type(rows).__name__}")
    good = []
    for i, row in enumerate(rows):
        missing = [k for k in required if not isinstance(row, dict) or k not in row]
        if missing:
            problems.append(f"{path.name}: row #{i}: missing {', '.join(missing)}")
            continue
        try:
            good.append(convert(row) if convert else row)
        except (ValueError, TypeError, AttributeError) as exc:  # messages that are not role/content objects
            problems.append(f"{path.name}: row #{i}: {exc}")
    if strict and problems:
        raise ValueError(problems[0])
    return good, problems


def read_lf_sft(path: str | os.PathLike, strict: bool = False) -> tuple[list[SFTExample], list[str]]:
    """Read a LLaMA-Factory alpaca SFT file; returns (examples, problems)."""
    rows, problems = _read_rows(path, ("instruction", "output"), strict)
    return [SFTExample(r["instruction"], r.get("input", ""), _text(r["output"])) for r in rows], problems


def read_lf_dpo(path: str | os.PathLike, strict: bool = False) -> tuple[list[PreferenceExample], list[str]]:
    """Read a LLaMA-Factory ranking (DPO) file; returns (pairs, problems)."""
    rows, problems = _read_rows(path, ("instruction", "chosen", "rejected"), strict)
    return [PreferenceExample(r["instruction"], r.get("input", ""), _text(r["chosen"]), _text(r["rejected"])) for r in rows], problems


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _prompt_messages(system: str, user: str) -> list[dict]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def write_jsonl(rows: Iterable[dict], path: str | os.PathLike) -> Path:
    """Write one JSON object per line, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    return path


def write_trl_sft(examples: list[SFTExample], path: str | os.PathLike) -> Path:
    """TRL conversational prompt/completion JSONL (the chat format petool tests with)."""
    return write_jsonl(
        ({"prompt": _prompt_messages(e.system, e.user), "completion": [{"role": "assistant", "content": e.output}]} for e in examples),
        path,
    )


def write_trl_preferences(examples: list[PreferenceExample], path: str | os.PathLike) -> Path:
    """TRL conversational preference JSONL: prompt / chosen / rejected."""
    return write_jsonl(
        (
            {
                "prompt": _prompt_messages(e.system, e.user),
                "chosen": [{"role": "assistant", "content": e.chosen}],
                "rejected": [{"role": "assistant", "content": e.rejected}],
            }
            for e in examples
        ),
        path,
    )


def _check_messages(messages: Any, field_name: str) -> None:
    if not isinstance(messages, list) or not all(isinstance(m, dict) and isinstance(m.get("content", ""), str) for m in messages):
        raise ValueError(f"{field_name!r} must be a list of messages, objects with a role and a text content")


def _split_prompt(messages: Any) -> tuple[str, str]:
    _check_messages(messages, "prompt")
    system = "".join(m.get("content", "") for m in messages if m.get("role") == "system")
    user = "".join(m.get("content", "") for m in messages if m.get("role") == "user")
    return system, user


def _assistant(messages: Any) -> str:
    if isinstance(messages, str):
        return messages
    _check_messages(messages, "answer")
    return "".join(m.get("content", "") for m in messages if m.get("role") == "assistant")


def read_trl_sft(path: str | os.PathLike, strict: bool = False) -> tuple[list[SFTExample], list[str]]:
    """Read TRL prompt/completion JSONL back into SFT examples."""
    return _read_rows(path, ("prompt", "completion"), strict, _trl_sft_example)


def _trl_sft_example(row: dict) -> SFTExample:
    system, user = _split_prompt(row["prompt"])
    return SFTExample(system, user, _assistant(row["completion"]))


def read_trl_preferences(path: str | os.PathLike, strict: bool = False) -> tuple[list[PreferenceExample], list[str]]:
    """Read TRL conversational preference JSONL back into pairs."""
    return _read_rows(path, ("prompt", "chosen", "rejected"), strict, _trl_preference)


def _trl_preference(row: dict) -> PreferenceExample:
    system, user = _split_prompt(row["prompt"])
    return PreferenceExample(system, user, _assistant(row["chosen"]), _assistant(row["rejected"]))
