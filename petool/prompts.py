"""All prompt text petool sends to a model, and the functions that render it.

The ``paper`` style is the authors' template byte for byte (docs/petoolbench.md §3), quirks kept:
a newline at both ends, a space after "tool call.", and Example #1 missing its closing brace.
"""

from __future__ import annotations

import json

from petool.ranking import fit_scores, history_evidence, rank_tools
from petool.schema import Entry, Tool, Turn, provider_of

TASK_WITH_HISTORY = "Your task is to use a tool that not only meets real-time user instructions but also aligns with user preferences."
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

STYLES = ("paper", "compact", "shortlist")
"""Prompt styles ``render_system_prompt`` knows."""

SHORTLIST_SIZE = 4
"""Candidates the ``shortlist`` style shows: enough that the ranking's first ``SHORTLIST_SIZE``
nearly always hold the preferred call on generated entries (docs/experiments.md, "Figures moved
out of docstrings"), few enough for a small model's context."""


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
        head = f"\n{TASK_WITH_HISTORY}\n{HISTORY_DESCRIPTIONS[setting]}\n{HISTORY_HEADER}{history_json(history)}\n\n"
    else:
        raise ValueError(f"unknown setting {setting!r}; valid: p, r, c, none")
    return f"{head}{CANDIDATES_HEADER}{candidates_json(candidates)}\n\n{OUTPUT_FORMAT}\n"


def render_system_prompt(entry: Entry, setting: str, style: str = "paper", history: list[Turn] | None = None) -> str:
    """The system prompt for ``entry`` in ``setting``; ``history`` overrides the entry's (to trim it)."""
    turns = entry.history(setting) if history is None else history
    if style == "paper":
        return paper_prompt(setting, turns, entry.candidates)
    if style == "compact":
        return compact_prompt(setting, turns, entry.candidates, entry.query)
    if style == "shortlist":
        return shortlist_prompt(setting, turns, entry.candidates, entry.query)
    raise ValueError(f"unknown prompt style {style!r}; valid: {', '.join(STYLES)}")


def prompt_candidates(entry: Entry, setting: str, style: str = "paper", history: list[Turn] | None = None) -> list[Tool]:
    """The candidates the prompt in ``style`` shows, in its order: all of them, except that the
    ``shortlist`` style shows only the best ranked few. Structured decoding allows exactly these."""
    if style != "shortlist":
        return entry.candidates
    turns = entry.history(setting) if history is None else history
    return [t for t, _, _ in rank_tools(entry.query, turns, entry.candidates, setting)[:SHORTLIST_SIZE]]


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


# --- compact style -------------------------------------------------------------------------
# The same task in about a fifth of the tokens, with the evidence spelled out per candidate: a
# 135M model cannot match a query to a function or count a tool's uses in a 20-turn JSON history
# unaided (BRIEF.md, feasibility probe), but it can learn to read "fit 93%, liked 2, disliked 0".
# The numbers come from petool.ranking, so the prompt stays a pure function of its inputs.

COMPACT_TASK = "Pick the one tool call that fulfils the user's instruction and fits the user's preferences."
COMPACT_TASK_WITHOUT_HISTORY = "Pick the one tool call that fulfils the user's instruction."
COMPACT_FIT = "fit = how well a candidate's description matches the instruction (equivalent tools score alike)."
COMPACT_EVIDENCE = {
    "p": "The user's {n} past calls show which tools they prefer: a tool used more often is more preferred.",
    "r": "The user rated each of their {n} past calls: liked = satisfied, disliked = not; prefer tools the user liked, avoid tools they disliked.",
    "c": "The user's {n} past calls are in time order: a tool used later is more preferred than one used earlier; tools used only in the opening calls are the least preferred.",
}
COMPACT_CANDIDATES_HEADER = (
    "Candidates (name; what it does; parameters, * = required, with example values; fit; the user's history with its tool):"
)
COMPACT_OUTPUT = 'Answer with only the call as one line of JSON: {"tool_name": "<name from the list>", "parameters": {"parameter": value}}'
COMPACT_DESCRIPTION_WORDS = 20
COMPACT_DEFAULT_CHARS = 24


def short_description(text: str, max_words: int = COMPACT_DESCRIPTION_WORDS) -> str:
    """The first sentence of a tool description, at most ``max_words`` words, on one line.

    Example:
        >>> short_description("List properties. Filters apply.  Ex: x")
        'List properties.'
    """
    words = " ".join((text or "").split())
    if not words:
        return "(no description)"
    first = words.split(". ", 1)[0]
    first = first if first.endswith(".") or first == words else first + "."
    parts = first.split(" ")
    return " ".join(parts[:max_words]) + (" ..." if len(parts) > max_words else "")


def tool_evidence(tool_name: str, setting: str, history: list[Turn], in_opening_calls: bool = False) -> str:
    """What the history says about the candidate's tool (provider): uses, ratings, positions.

    Example:
        >>> from petool.schema import ToolCall
        >>> h = [Turn("a", ToolCall("<X>.<T>.<f>"), 1), Turn("b", ToolCall("<X>.<T>.<g>"), 0)]
        >>> tool_evidence("<X>.<T>.<f>", "r", h)
        'tool used 2x (this API 1x), liked 1, disliked 1'
    """
    provider = provider_of(tool_name)
    uses = [i for i, t in enumerate(history) if provider_of(t.call.tool_name) == provider]
    if not uses:
        return "tool never used"
    same_api = sum(history[i].call.tool_name == tool_name for i in uses)
    text = f"tool used {len(uses)}x" + (f" (this API {same_api}x)" if same_api else "")
    if setting == "r":
        liked = sum(history[i].rating == 1 for i in uses)
        disliked = sum(history[i].rating == 0 for i in uses)
        text += f", liked {liked}, disliked {disliked}"
    if setting == "c":
        text += f", last at call {uses[-1] + 1} of {len(history)}"
        if in_opening_calls:
            text += ", in the opening calls"
    return text


def _parameter_text(tool: Tool) -> str:
    def one(p, required: bool) -> str:
        text = p.name + ("*" if required else "")
        if required and p.default not in ("", None):
            value = json.dumps(p.default, ensure_ascii=False)
            text += f" (e.g. {value[:COMPACT_DEFAULT_CHARS]}{'...' if len(value) > COMPACT_DEFAULT_CHARS else ''})"
        return text

    parts = [one(p, True) for p in tool.required_parameters] + [one(p, False) for p in tool.optional_parameters]
    return ", ".join(parts) if parts else "none"


def compact_candidate(
    index: int, tool: Tool, setting: str, history: list[Turn], fit: float | None = None, in_opening_calls: bool = False
) -> str:
    """One candidate block of the compact prompt (name, description, parameters, fit, evidence)."""
    lines = [
        f"{index}. {tool.name}",
        f"   does: {short_description(tool.description)}",
        f"   parameters: {_parameter_text(tool)}",
    ]
    if fit is not None:
        lines.append(f"   fit: {round(100 * fit)}%")
    if setting != "none":
        lines.append(f"   history: {tool_evidence(tool.name, setting, history, in_opening_calls)}")
    return "\n".join(lines)


def compact_head(setting: str, n_turns: int) -> list[str]:
    """The opening lines of the compact and shortlist prompts: the task and how to read the history."""
    if setting == "none":
        return [COMPACT_TASK_WITHOUT_HISTORY]
    if setting in COMPACT_EVIDENCE:
        return [COMPACT_TASK, COMPACT_EVIDENCE[setting].format(n=n_turns)]
    raise ValueError(f"unknown setting {setting!r}; valid: p, r, c, none")


def compact_prompt(setting: str, history: list[Turn], candidates: list[Tool], query: str | None = None) -> str:
    """Render petool's compact system prompt: a pure function of (setting, history, candidates, query).

    Without a query the fit lines are left out.

    Example:
        >>> print(compact_prompt("none", [], [Tool("<A>.<B>.<c>", "Does c.")]))
        Pick the one tool call that fulfils the user's instruction.
        Candidates (name; what it does; parameters, * = required, with example values; fit; the user's history with its tool):
        1. <A>.<B>.<c>
           does: Does c.
           parameters: none
        Answer with only the call as one line of JSON: {"tool_name": "<name from the list>", "parameters": {"parameter": value}}
    """
    head = compact_head(setting, len(history))
    fit = fit_scores(query, candidates) if query is not None else {}
    if query is not None:
        head.append(COMPACT_FIT)
    evidence = history_evidence(history, candidates) if setting == "c" else {}
    blocks = [
        compact_candidate(i, t, setting, history, fit.get(t.name), evidence[t.name].in_leading_block if evidence else False)
        for i, t in enumerate(candidates, 1)
    ]
    return "\n".join(head + [COMPACT_CANDIDATES_HEADER] + blocks + [COMPACT_OUTPUT])


# --- shortlist style -----------------------------------------------------------------------
# The compact style's facts for only the few candidates the evidence ranks highest, best first:
# a retrieve-then-pick split. The ranking (petool.ranking.rank_tools) does the counting; the
# model confirms the choice among a handful and fills the parameters from the instruction, in a
# prompt of ~300 tokens instead of ~800 (compact) or ~3,400 (paper).

SHORTLIST_HEADER = (
    "Candidates, most likely first (ranked by fit, then by the user's history); name; what it does; "
    "parameters, * = required, with example values; fit; the user's history with its tool:"
)


def shortlist_prompt(setting: str, history: list[Turn], candidates: list[Tool], query: str, size: int = SHORTLIST_SIZE) -> str:
    """Render the shortlist system prompt: the ``size`` best ranked candidates in compact form.

    Example:
        >>> tools = [Tool("<A>.<B>.<weather>", "Weather forecast."), Tool("<A>.<C>.<news>", "News.")]
        >>> print(shortlist_prompt("none", [], tools, "weather in Rome", size=1))
        Pick the one tool call that fulfils the user's instruction.
        fit = how well a candidate's description matches the instruction (equivalent tools score alike).
        Candidates, most likely first (ranked by fit, then by the user's history); name; what it does; parameters, * = required, with example values; fit; the user's history with its tool:
        1. <A>.<B>.<weather>
           does: Weather forecast.
           parameters: none
           fit: 100%
        Answer with only the call as one line of JSON: {"tool_name": "<name from the list>", "parameters": {"parameter": value}}
    """
    head = compact_head(setting, len(history))
    if size < 1:
        raise ValueError(f"a shortlist needs at least one candidate, got size {size}")
    ranked = rank_tools(query, history, candidates, setting)[:size]
    blocks = [
        compact_candidate(i, t, setting, history, fit, ev.in_leading_block and setting == "c") for i, (t, fit, ev) in enumerate(ranked, 1)
    ]
    return "\n".join(head + [COMPACT_FIT, SHORTLIST_HEADER] + blocks + [COMPACT_OUTPUT])
