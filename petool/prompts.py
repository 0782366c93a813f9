"""All prompt text petool sends to a model, and the functions that render it.

The ``paper`` style is the authors' template byte for byte (PETOOLBENCH.md §3), quirks kept:
a newline at both ends, a space after "tool call.", and Example #1 missing its closing brace.
"""

from __future__ import annotations

import json

from petool.schema import Entry, Tool, Turn

TASK_WITH_HISTORY = (
    "Your task is to use a tool that not only meets real-time user instructions "
    "but also aligns with user preferences."
)
TASK_WITHOUT_HISTORY = "Your task is to use a tool that meets real-time user instructions."

_PREFIX = (
    "These preferences can be inferred from the user's interaction history provided below, "
    "including past user instructions and corresponding tool calls"
)
HISTORY_DESCRIPTIONS = {
    "p": _PREFIX + ".",
    "r": _PREFIX + ", with user's binary ratings reflecting the user's satisfaction with the tool calls.",
    "c": _PREFIX + ", which are in chronological order where user is more preferred with latter tool calls than earlier ones.",
}

# The stored instruction field of each setting in the authors' files.
INSTRUCTION_FIELDS = {
    "p": "instruction_preferred",
    "r": "instruction_ratings",
    "c": "instruction_chronological",
    "none": "instruction_wo_history",
}

HISTORY_HEADER = "Interaction history is:\n"
CANDIDATES_HEADER = "Available tools you can call with input parameters are listed here:\n"

OUTPUT_FORMAT = (
    "Generate your tool call in the following format:\n"
    '{"tool_name": the tool\'s name, "parameters": input parameters in JSON string format on a single line}\n'
    "Example output #1:\n"
    '{"tool_name": "<Search>.<Arxiv Search>.<Get Arxiv Article Information>", "parameters": {"query": "machine learning", "sort_by": "date", "limit": 3}\n'
    "Example output #2:\n"
    '{"tool_name": "<Travel>.<flight | flight aggregator>.<flight>", "parameters": {}}\n'
    "\n"
    "Remember:\n"
    "Generate only the tool call in JSON format without any additional outputs.\n"
    "You will now receive a user instruction; please generate the tool call. \n"
    "Begin!\n"
)

STYLES = ("paper",)
"""Prompt styles ``render_system_prompt`` knows."""


def history_json(turns: list[Turn]) -> str:
    """The history as the authors embed it: one JSON line, non-ASCII kept."""
    return json.dumps([t.to_json() for t in turns], ensure_ascii=False)


def candidates_json(candidates: list[Tool]) -> str:
    """The candidate list as the authors embed it: one JSON line, non-ASCII kept."""
    return json.dumps([t.to_json() for t in candidates], ensure_ascii=False)


def paper_prompt(setting: str, history: list[Turn], candidates: list[Tool]) -> str:
    """Render the authors' system prompt for one setting (p, r, c or none).

    Example:
        >>> paper_prompt("none", [], []).splitlines()[1]
        'Your task is to use a tool that meets real-time user instructions.'
    """
    if setting == "none":
        head = f"\n{TASK_WITHOUT_HISTORY}\n"
    elif setting in HISTORY_DESCRIPTIONS:
        head = (
            f"\n{TASK_WITH_HISTORY}\n{HISTORY_DESCRIPTIONS[setting]}\n"
            f"{HISTORY_HEADER}{history_json(history)}\n\n"
        )
    else:
        raise ValueError(f"unknown setting {setting!r}; valid: p, r, c, none")
    return f"{head}{CANDIDATES_HEADER}{candidates_json(candidates)}\n\n{OUTPUT_FORMAT}\n"


def render_system_prompt(entry: Entry, setting: str, style: str = "paper", history: list[Turn] | None = None) -> str:
    """The system prompt for ``entry`` in ``setting``; ``history`` overrides the entry's (to trim it)."""
    turns = entry.history(setting) if history is None else history
    if style == "paper":
        return paper_prompt(setting, turns, entry.candidates)
    raise ValueError(f"unknown prompt style {style!r}; valid: {', '.join(STYLES)}")


def build_messages(entry: Entry, setting: str, style: str = "paper", history: list[Turn] | None = None) -> list[dict]:
    """Chat messages as the authors test: system = the prompt, user = the query."""
    return [
        {"role": "system", "content": render_system_prompt(entry, setting, style, history)},
        {"role": "user", "content": entry.query},
    ]


def split_paper_prompt(prompt: str) -> tuple[str, list, list]:
    """Recover (setting, history JSON, candidates JSON) from a prompt in the paper style.

    Raises ValueError naming the part that is missing; used to read release files, whose
    entries store only the rendered prompt.
    """
    setting = next((s for s, d in HISTORY_DESCRIPTIONS.items() if f"\n{d}\n" in prompt), None)
    if setting is None and TASK_WITHOUT_HISTORY not in prompt:
        raise ValueError("the prompt has neither a known history description nor the no-history task line")
    history: list = []
    if setting is not None:
        if HISTORY_HEADER not in prompt:
            raise ValueError(f"the prompt lacks {HISTORY_HEADER.strip()!r}")
        after = prompt.split(HISTORY_HEADER, 1)[1]
        history_text = after.split("\n\n" + CANDIDATES_HEADER, 1)[0]
        history = _loads(history_text, "interaction history")
    if CANDIDATES_HEADER not in prompt:
        raise ValueError(f"the prompt lacks {CANDIDATES_HEADER.strip()!r}")
    cand_text = prompt.split(CANDIDATES_HEADER, 1)[1].split("\n\nGenerate your tool call", 1)[0]
    candidates = _loads(cand_text, "candidate tools")
    return (setting or "none"), history, candidates


def _loads(text: str, what: str) -> list:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the {what} block is not valid JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(value, list):
        raise ValueError(f"the {what} block must be a JSON list, got {type(value).__name__}")
    return value
