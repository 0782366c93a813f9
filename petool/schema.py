"""Typed records shared by every stage: tools, calls, turns, entries, predictions, scores.

They mirror PEToolBench's JSON shapes (see docs/petoolbench.md §3) so that ``to_json`` of each
record gives back the exact dict the authors' files hold, key order included.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

Setting = Literal["p", "r", "c", "none"]
"""A setting's name: the three history settings of PEToolBench, or the no-history ablation."""

SETTINGS: tuple[Setting, ...] = ("p", "r", "c")
"""Preferred-only, rating-integrated, chronological."""

ALL_SETTINGS: tuple[Setting, ...] = SETTINGS + ("none",)
"""The three history settings plus the no-history ablation."""

SETTING_NAMES = {
    "p": "preferred-only",
    "r": "rating-integrated",
    "c": "chronological",
    "none": "no history",
}

_NAME_RE = re.compile(r"^<(?P<category>.*?)>\.<(?P<tool>.*)>\.<(?P<api>.*)>$", re.S)


def split_tool_name(full_name: str) -> tuple[str, str, str] | None:
    """Split ``<Category>.<Tool>.<API>`` into its three parts, or None if it has another shape.

    Example:
        >>> split_tool_name("<Travel>.<flight | flight aggregator>.<flight>")
        ('Travel', 'flight | flight aggregator', 'flight')
    """
    m = _NAME_RE.match(full_name) if isinstance(full_name, str) else None
    return (m["category"], m["tool"], m["api"]) if m else None


def join_tool_name(category: str, tool: str, api: str) -> str:
    """Build the ``<Category>.<Tool>.<API>`` string PEToolBench compares exactly.

    Example:
        >>> join_tool_name("Music", "Spotify", "Get playlist")
        '<Music>.<Spotify>.<Get playlist>'
    """
    return f"<{category}>.<{tool}>.<{api}>"


def provider_of(full_name: str) -> str:
    """The tool (provider) part of a full API name: preferences attach to it, not to the API."""
    parts = split_tool_name(full_name)
    return f"{parts[0]}.{parts[1]}" if parts else full_name


def extends_name(short: str, long: str) -> bool:
    """True if ``long`` goes on where ``short`` closes one of its ``<...>`` parts.

    Example:
        >>> extends_name("<Data>.<Azure>.<GetNews>", "<Data>.<Azure>.<GetNewsByTopic>")
        True
        >>> extends_name("<Music>.<Spotify>.<Search>", "<Music>.<Spotify Web>.<Search>")
        True
        >>> extends_name("<Data>.<Azure>.<GetNews>", "<Data>.<Azure>.<GetEvents>")
        False
    """
    i = 0
    while i < min(len(short), len(long)) and short[i] == long[i]:
        i += 1
    return i < len(short) and i < len(long) and short[i] == ">" and long[i] != ">"


def setting_list(text: str, allowed: tuple[str, ...] = ALL_SETTINGS) -> list[str]:
    """Parse a comma list of settings such as ``"p,r,c"``; unknown names raise ValueError."""
    items = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in items if s not in allowed]
    if bad or not items:
        raise ValueError(f"unknown setting(s) {bad or text!r}; valid: {', '.join(allowed)}")
    return list(dict.fromkeys(items))


@dataclass
class Parameter:
    """One API parameter as ToolBench describes it (type strings are kept verbatim)."""

    name: str
    type: str = "STRING"
    description: str = ""
    default: Any = ""

    def to_json(self) -> dict:
        return {"name": self.name, "type": self.type, "description": self.description, "default": self.default}

    @classmethod
    def from_json(cls, d: dict) -> Parameter:
        if not isinstance(d, dict) or not isinstance(d.get("name"), str):
            raise ValueError(f"a parameter must be an object with a string 'name', got {_short(d)}")
        return cls(d["name"], d.get("type", "STRING"), d.get("description", ""), d.get("default", ""))


@dataclass
class Tool:
    """A callable API as it appears in a candidate list (``tool_name`` is the full name)."""

    name: str
    description: str = ""
    required_parameters: list[Parameter] = field(default_factory=list)
    optional_parameters: list[Parameter] = field(default_factory=list)

    @property
    def parameter_names(self) -> list[str]:
        return [p.name for p in self.required_parameters + self.optional_parameters]

    def to_json(self) -> dict:
        return {
            "tool_name": self.name,
            "tool_description": self.description,
            "required_parameters": [p.to_json() for p in self.required_parameters],
            "optional_parameters": [p.to_json() for p in self.optional_parameters],
        }

    @classmethod
    def from_json(cls, d: dict) -> Tool:
        if not isinstance(d, dict) or not isinstance(d.get("tool_name"), str):
            raise ValueError(f"a candidate tool must be an object with a string 'tool_name', got {_short(d)}")
        return cls(
            d["tool_name"],
            d.get("tool_description", "") or "",
            [Parameter.from_json(p) for p in d.get("required_parameters") or []],
            [Parameter.from_json(p) for p in d.get("optional_parameters") or []],
        )


@dataclass
class ToolCall:
    """One tool call: the model's answer, a history turn's call, or a gold answer."""

    tool_name: str
    parameters: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"tool_name": self.tool_name, "parameters": self.parameters}

    def to_text(self) -> str:
        """The call as one line of JSON, the way PEToolBench's SFT outputs write it."""
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def from_json(cls, d: Any) -> ToolCall:
        if not isinstance(d, dict) or not isinstance(d.get("tool_name"), str):
            raise ValueError(f"a tool call must be an object with a string 'tool_name', got {_short(d)}")
        params = d.get("parameters", {})
        if not isinstance(params, dict):
            raise ValueError(f"'parameters' must be an object, got {_short(params)}")
        return cls(d["tool_name"], params)


@dataclass
class Turn:
    """One past interaction: an instruction and the call made for it (rating only in setting r)."""

    instruction: str
    call: ToolCall
    rating: int | None = None

    def to_json(self) -> dict:
        d = {"instruction": self.instruction, "tool_call": self.call.to_json()}
        if self.rating is not None:
            d["rating"] = self.rating
        return d

    @classmethod
    def from_json(cls, d: Any) -> Turn:
        if not isinstance(d, dict) or not isinstance(d.get("instruction"), str):
            raise ValueError(f"a history turn must be an object with a string 'instruction', got {_short(d)}")
        rating = d.get("rating")
        if rating is not None and rating not in (0, 1):
            raise ValueError(f"a turn's rating must be 0 or 1, got {rating!r}")
        return cls(d["instruction"], ToolCall.from_json(d.get("tool_call")), rating)


@dataclass
class Entry:
    """One benchmark instance: a user's histories, a query, candidates and the gold call.

    ``histories`` maps a setting (p, r, c) to its turns; a release file carries one setting, the
    early combined file all three. ``cluster`` lists the full names of the APIs functionally
    equivalent to the ground truth (ground truth included) when the data says so.
    """

    entry_id: Any
    query: str
    candidates: list[Tool]
    ground_truth: ToolCall
    histories: dict[str, list[Turn]] = field(default_factory=dict)
    history_length: int | None = None
    category: str | None = None
    cluster: list[str] = field(default_factory=list)
    func: str | None = None
    preferred_tools: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def settings(self) -> list[str]:
        """The settings this entry can be run in (its histories, plus the no-history ablation)."""
        return [s for s in SETTINGS if s in self.histories] + ["none"]

    @property
    def key(self) -> str:
        return str(self.entry_id)

    def candidate(self, name: str) -> Tool | None:
        return next((t for t in self.candidates if t.name == name), None)

    def cluster_candidates(self) -> list[Tool]:
        """Candidates functionally equivalent to the ground truth (itself included), in order."""
        names = set(self.cluster) | {self.ground_truth.tool_name}
        return [t for t in self.candidates if t.name in names]

    def history(self, setting: str) -> list[Turn]:
        if setting == "none":
            return []
        if setting not in self.histories:
            raise ValueError(f"entry {self.entry_id} has no history for setting {setting!r}; it has {sorted(self.histories)}")
        return self.histories[setting]


def entry_to_dict(entry: Entry) -> dict:
    """petool's own JSON of an Entry: lossless (every field, unlike the authors' formats in
    ``petool.formats``). What the store saves for an entry and a label, and how the app carries
    the current entry between tabs; ``extra`` is the entry's own dict, not a copy."""
    return {
        "entry_id": entry.entry_id,
        "query": entry.query,
        "candidates": [t.to_json() for t in entry.candidates],
        "ground_truth": entry.ground_truth.to_json(),
        "histories": {s: [t.to_json() for t in turns] for s, turns in entry.histories.items()},
        "history_length": entry.history_length,
        "category": entry.category,
        "cluster": list(entry.cluster),
        "func": entry.func,
        "preferred_tools": list(entry.preferred_tools),
        "extra": entry.extra,
    }


def entry_from_dict(d: dict) -> Entry:
    """Inverse of ``entry_to_dict``; raises ValueError naming the bad part."""
    if not isinstance(d, dict) or not isinstance(d.get("query"), str):
        raise ValueError("a stored entry must be an object with a string 'query'")
    return Entry(
        entry_id=d.get("entry_id"),
        query=d["query"],
        candidates=[Tool.from_json(t) for t in d.get("candidates") or []],
        ground_truth=ToolCall.from_json(d.get("ground_truth") or {"tool_name": "", "parameters": {}}),
        histories={s: [Turn.from_json(t) for t in turns] for s, turns in (d.get("histories") or {}).items()},
        history_length=d.get("history_length"),
        category=d.get("category"),
        cluster=list(d.get("cluster") or []),
        func=d.get("func"),
        preferred_tools=list(d.get("preferred_tools") or []),
        extra=dict(d.get("extra") or {}),
    )


@dataclass
class Generation:
    """What a model returned for one prompt, with the cost of getting it and how it was made.

    Every per-call fact a predictor knows comes back here, never through the predictor's state,
    so that callers sharing one predictor never read each other's results.
    """

    text: str
    latency_s: float = 0.0
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    model: str = ""
    """The name of what answered, with this call's options (e.g. the adapter off); empty: the
    predictor's own name."""
    timed_out: bool = False
    """Generation stopped at the predictor's time limit; the text is what was written by then."""
    tool_scores: dict[str, float] | None = None
    """Where the tool was chosen as a whole name: each allowed name's log-likelihood."""
    tool_bias: dict[str, float] | None = None
    """What was added to each name's score before choosing (the ranking's weighted prior)."""
    details: dict = field(default_factory=dict)
    """Everything else the backend reports: turns dropped to fit, model steps, prefill and decode
    time, whether the prompt was cut, retries of a remote call..."""


@dataclass
class Score:
    """One prediction judged against its entry. ``error`` is ``"ok"`` or a ``stage:reason`` code."""

    entry_id: Any
    setting: str
    tool_ok: bool | None
    """None where the entry has no gold call to judge against (``scoring.score_without_gold``)."""
    params_ok: bool | None
    error: str
    param_error: str
    call: ToolCall | None = None

    def to_json(self) -> dict:
        return {
            "entry_id": self.entry_id,
            "setting": self.setting,
            "tool_ok": self.tool_ok,
            "params_ok": self.params_ok,
            "error": self.error,
            "param_error": self.param_error,
            "call": self.call.to_json() if self.call else None,
        }


@dataclass
class Prediction:
    """One model answer, parsed and scored: a line of a run's predictions.jsonl.

    ``to_json`` gives the line's dict, key order included; ``tool_choice`` (how a tool chosen as
    a whole name was chosen: ``{"scores", "bias"}``) is written only where there is one.
    """

    entry_id: Any
    setting: str
    model: str
    raw: str | None
    call: ToolCall | None
    parse_detail: str | None
    tool_ok: bool | None
    params_ok: bool | None
    error: str
    param_error: str | None
    gold: ToolCall | None
    latency_s: float | None = None
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    category: str | None = None
    history_length: int | None = None
    cluster_size: int | None = None
    tool_choice: dict | None = None

    def to_json(self) -> dict:
        d = {
            "entry_id": self.entry_id,
            "setting": self.setting,
            "model": self.model,
            "raw": self.raw,
            "call": self.call.to_json() if self.call else None,
            "parse_detail": self.parse_detail,
            "tool_ok": self.tool_ok,
            "params_ok": self.params_ok,
            "error": self.error,
            "param_error": self.param_error,
            "gold": self.gold.to_json() if self.gold else None,
            "latency_s": self.latency_s,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "category": self.category,
            "history_length": self.history_length,
            "cluster_size": self.cluster_size,
        }
        if self.tool_choice is not None:
            d["tool_choice"] = self.tool_choice
        return d

    @classmethod
    def from_json(cls, d: Any) -> Prediction:
        if not isinstance(d, dict) or "entry_id" not in d or not isinstance(d.get("setting"), str):
            raise ValueError(f"a prediction must be an object with an entry_id and a string setting, got {_short(d)}")
        return cls(
            d["entry_id"],
            d["setting"],
            d.get("model", ""),
            d.get("raw"),
            ToolCall.from_json(d["call"]) if d.get("call") else None,
            d.get("parse_detail"),
            d.get("tool_ok"),
            d.get("params_ok"),
            d.get("error", ""),
            d.get("param_error"),
            ToolCall.from_json(d["gold"]) if d.get("gold") else None,
            d.get("latency_s"),
            d.get("prompt_tokens"),
            d.get("output_tokens"),
            d.get("category"),
            d.get("history_length"),
            d.get("cluster_size"),
            d.get("tool_choice"),
        )


@dataclass
class SFTExample:
    """A supervised example: system prompt, user query, target call text."""

    system: str
    user: str
    output: str


@dataclass
class PreferenceExample:
    """A DPO pair on one prompt: the call to prefer and the call to reject."""

    system: str
    user: str
    chosen: str
    rejected: str
    source: str = ""
    weight: float = 1.0


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
