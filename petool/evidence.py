"""Per-candidate evidence: how well each candidate fits the query, and what the history says of its tool.

A 135M model cannot match instructions to functions or count history turns reliably unaided;
these pure functions do the counting so a compact prompt can state the evidence per candidate
and a rule can act on it directly (``baseline:evidence``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from petool.schema import Entry, Parameter, Tool, Turn, provider_of, split_tool_name

_STOP = frozenset(
    "the and for with get all from this that are you want given api data list information using provided "
    "can please would like need some about into their there what which will".split()
)


def words(text: str) -> list[str]:
    """Lower-case content words, camelCase and snake_case split.

    Example:
        >>> words("getUserProfile for my_account")
        ['user', 'profile', 'account']
    """
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in _STOP]


def api_name(tool: Tool) -> str:
    """The API part of a candidate's ``<Category>.<Tool>.<API>`` name (the whole name if it has no parts)."""
    parts = split_tool_name(tool.name)
    return parts[2] if parts else tool.name


def tool_text(tool: Tool) -> str:
    """What a candidate does, in words: API name, description, parameter names and descriptions."""
    params = " ".join(f"{p.name} {p.description}" for p in tool.required_parameters + tool.optional_parameters)
    return f"{api_name(tool)} {tool.description} {params}"


# How much more a query word counts when the API's own name holds it: a name says what the API
# does ("getInventory", "Get subtitle in SRT format"), while a description and parameter
# descriptions mention much else. Chosen on generated entries (0.25-2 tried; gold ranked first
# at 0 / 0.5 / 0.75 / 1: p 68.6 / 69.1 / 69.1 / 69.2, r 88.3 / 89.1 / 89.4 / 89.3, c 87.1 / 87.9 /
# 88.3 / 88.1 on 1,800 entries from seeds 101, 202, 303).
API_NAME_WEIGHT = 0.75


def fit_scores(query: str, candidates: list[Tool], twin_weight: float = 1.0) -> dict[str, float]:
    """Functional fit of each candidate to the query, scaled so the best is 1.0.

    TF-IDF word overlap between the query and the candidate's text, words of the API's name
    counting ``1 + API_NAME_WEIGHT`` times; the IDF is computed over the candidates themselves
    so words every candidate shares count little. With ``twin_weight``, a candidate also gains
    from fitting candidates that resemble it: equivalent APIs come in groups.
    """
    docs = {t.name: set(words(tool_text(t))) for t in candidates}
    df = Counter(w for doc in docs.values() for w in doc)
    n = len(docs) or 1
    q = set(words(query))
    idf = {w: math.log((n + 1) / (df[w] + 0.5)) for w in q}
    raw = {t.name: sum(idf[w] for w in q & docs[t.name]) + API_NAME_WEIGHT * sum(idf[w] for w in q & _word_set(api_name(t)))
           for t in candidates}
    if twin_weight:
        sim = lambda a, b: len(docs[a] & docs[b]) / (len(docs[a] | docs[b]) or 1)
        raw = {a: s + twin_weight * max((sim(a, b) * raw[b] for b in docs if b != a), default=0.0) for a, s in raw.items()}
    best = max(raw.values(), default=0.0) or 1.0
    return {name: round(score / best, 3) for name, score in raw.items()}


_QUOTED = re.compile(r"'([^']{1,80})'|\"([^\"]{1,80})\"")
# not inside "v2", "COVID-19", "1.5x"; a sentence's full stop may follow ("limit it to 10.")
_NUMBER = re.compile(r"(?<![\w.])(?<!\w-)\d+(?:\.\d+)?(?!\w|\.\d)")
_ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                  "eighth": 8, "ninth": 9, "tenth": 10}
# "the second page", "the 6th result"; not "the first 100 tracks" (a count follows)
_ORDINAL = re.compile(r"\b(?:(" + "|".join(_ORDINAL_WORDS) + r")|(\d+)(?:st|nd|rd|th))\b(?!\s+\d)", re.IGNORECASE)


def stated_values(query: str) -> list[str]:
    """Values an instruction states outright, lower-cased: quoted text and standalone numbers.

    Example:
        >>> stated_values("Search 'Laptop' on page 3, sorted by 'price_asc' (v2.1 API)")
        ['laptop', 'price_asc', '3']
    """
    quoted = [a or b for a, b in _QUOTED.findall(query)]
    bare = _QUOTED.sub(" ", query)
    return [v.lower() for v in quoted + _NUMBER.findall(bare)]


def _spaced(text: object) -> str:
    """Hyphens and underscores as spaces, runs of space as one: "city-level_score" -> "city level score"."""
    return " ".join(re.sub(r"[-_]+", " ", str(text)).split())


# Instructions name languages, APIs take ISO 639-1 codes ("in English" sets lang = "en").
LANGUAGE_CODES = {
    "english": "en", "french": "fr", "spanish": "es", "german": "de", "italian": "it",
    "portuguese": "pt", "dutch": "nl", "russian": "ru", "chinese": "zh", "japanese": "ja",
    "korean": "ko", "arabic": "ar", "hindi": "hi", "turkish": "tr", "polish": "pl",
    "swedish": "sv", "indonesian": "id", "vietnamese": "vi", "thai": "th", "greek": "el",
}

_LANGUAGE_CODE_SET = frozenset(LANGUAGE_CODES.values())

# Short forms pycountry does not list; the upper-case ones must be written so ("show us" is no country).
_COUNTRY_ALIASES = {"usa": "US", "uk": "GB", "britain": "GB", "england": "GB",
                    "russia": "RU", "vietnam": "VN", "US": "US", "USA": "US", "UK": "GB"}


@lru_cache(maxsize=1)
def _country_names() -> dict[str, str]:
    """Country names (ISO 3166 name and common name, pycountry; lower case) and the short forms
    above, to alpha-2 codes."""
    import pycountry

    names = {}
    for country in pycountry.countries:
        for name in (country.name, getattr(country, "common_name", None)):
            if name and "," not in name:  # "Korea, Republic of" is never written so
                names[name.lower()] = country.alpha_2
    return {**names, **_COUNTRY_ALIASES}


@lru_cache(maxsize=1)
def _place_patterns() -> tuple[re.Pattern, re.Pattern, re.Pattern, frozenset[str]]:
    """One pattern per kind of name (longest first, so "papua new guinea" is not "guinea"),
    and the set of country codes."""
    def alternatives(names):
        return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))

    countries = _country_names()
    # not inside a URL or a path ("bbc.co.uk", "America/New_York")
    edge_in, edge_out = r"(?<![\w./])", r"(?![\w/]|\.\w)"
    lower = re.compile(f"{edge_in}({alternatives(n for n in countries if not n.isupper())}){edge_out}")
    upper = re.compile(f"{edge_in}({alternatives(n for n in countries if n.isupper())}){edge_out}")
    langs = re.compile(rf"\b({alternatives(LANGUAGE_CODES)})\b")
    return lower, upper, langs, frozenset(countries.values())


@lru_cache(maxsize=256)
def named_places(query: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The languages and countries a query names, as ISO codes in order of first mention.

    Example:
        >>> named_places("Images from Brazil written in Portuguese, as in the US")
        (('pt',), ('BR', 'US'))
    """
    lower_names, upper_names, language_names, _ = _place_patterns()
    lower, countries = query.lower(), _country_names()
    langs = [LANGUAGE_CODES[m.group(1)] for m in language_names.finditer(lower)]
    hits = sorted([(m.start(), countries[m.group(1)]) for m in lower_names.finditer(lower)]
                  + [(m.start(), countries[m.group(1)]) for m in upper_names.finditer(query)])
    return tuple(dict.fromkeys(langs)), tuple(dict.fromkeys(code for _, code in hits))


def _with_places(default: str, parameter: Parameter, langs: tuple[str, ...], countries: tuple[str, ...]) -> str | None:
    """``default`` with its language and country codes set to the ones the query names, or None.

    A code is a part of the default between hyphens or underscores ("lang_en", "en-US", "us");
    which kind it is comes from the parameter's name and description. Every code must be named,
    by a single place of its kind ("en-SG" is not named by "in Singapore" alone, and "from
    English to French" names no one language).
    """
    about = f"{parameter.name} {parameter.description}".lower()
    kinds = [(kind, codes[0]) for kind, codes, pattern in (("lang", langs, r"\b(?:lang\w*|locale|lr|hl)\b"),
                                                           ("country", countries, r"\b(?:countr\w*|region\w*|gl|market\w*|locale)\b"))
             if re.search(pattern, about) and len(codes) == 1]
    parts = re.split(r"([-_])", default)
    replaced = 0
    for i, part in enumerate(parts):
        if len(part) != 2 or not part.isalpha():
            continue
        for kind, code in kinds:
            is_code = part.lower() in _LANGUAGE_CODE_SET if kind == "lang" else part.upper() in _place_patterns()[3]
            if is_code:
                parts[i] = code.upper() if part.isupper() else code.lower()
                replaced += 1
                break
        else:
            return None  # a code the query does not name, or no code at all
    return "".join(parts) if replaced else None


_NUMERIC_TYPES = frozenset({"number", "integer", "int", "float", "double", "long"})
_BOOLEAN_TYPES = frozenset({"boolean", "bool"})
_STRUCTURED_TYPES = frozenset({"object", "array", "list", "dict"})  # left to the model
_CLAUSE_END = re.compile(r",|;|\band\b|\d")


def _stems(text: str) -> set[str]:
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words(text)}


def stated_slots(query: str, tool: Tool, window: int = 3) -> dict[str, str]:
    """The tool's parameters the instruction states a value for, found by the words beside it.

    A stated value is a standalone number or ordinal (for a numeric parameter: its declared
    type or a numeric default) or quoted text (for any other but a boolean, object or array).
    Quoted text that is a parameter's own default goes to that parameter ("search for 'New
    York' images with language restriction": ``q``, default "New York"). Any other value goes
    to the parameter whose name and description share the most words with the (at most
    ``window``) words on either side of it within its clause ("with 20 items per response" -> ``size``,
    "The number of items per response"; "the topic 'compute'" -> ``topic``), if one parameter
    shares strictly more than any other still free; values are placed until none more is, so
    a value tied at first may go once a rival is taken. An ordinal counts from one, or from
    zero where the parameter's default is 0 ("the second page" -> ``page`` = 2, "from the 6th
    result" -> ``start`` = 5). Numbers in a list ("5002 and 6020"), a date, a range or a
    comparison ("rating>3") are left to the model. On the 450 real dev entries' gold tools this
    names 302 values the ground truth holds, none it holds otherwise and none it lacks; on
    1,800 generated entries (seeds 101, 202, 303) 532, 2 and 3.

    Example:
        >>> from petool.schema import Parameter
        >>> t = Tool("<A>.<B>.<c>", optional_parameters=[
        ...     Parameter("size", "NUMBER", "The number of items per response"),
        ...     Parameter("number", "NUMBER", "The page index"), Parameter("q", "STRING", "query")])
        >>> stated_slots("Reviews, 20 items per response, on page 2, query 7", t)
        {'size': '20', 'number': '2'}
    """
    bare = _QUOTED.sub(lambda m: " " * len(m.group(0)), query)
    params = tool.required_parameters + tool.optional_parameters
    numeric = {p.name for p in params if str(p.type).lower() in _NUMERIC_TYPES or _NUMBER.fullmatch(str(p.default or ""))}
    textual = {p.name for p in params if p.name not in numeric
               and str(p.type).lower() not in _BOOLEAN_TYPES | _STRUCTURED_TYPES}
    about = {p.name: _stems(f"{p.name} {p.description}") for p in params}
    zero_based = {p.name for p in params if str(p.default).strip() == "0"}
    mentions = []  # (start, end, value or None, ordinal or None, the parameters it may go to)
    for m in _NUMBER.finditer(bare):
        before, after = bare[: m.start()], bare[m.end():]
        if not (re.match(r"\s*(?:,|and|or|to)?\s*\d|[-:/]\w", after) or re.search(r"\d\s*(?:,|and|or)?\s*$|[<>=]\s*$", before)):
            mentions.append((m.start(), m.end(), m.group(0), None, numeric))
    for m in _ORDINAL.finditer(bare):
        mentions.append((m.start(), m.end(), None, _ORDINAL_WORDS.get((m.group(1) or "").lower()) or int(m.group(2) or 0), numeric))
    for m in _QUOTED.finditer(query):
        mentions.append((m.start(), m.end(), m.group(1) or m.group(2), None, textual))
    contexts = []
    for start, end, value, ordinal, allowed in sorted(mentions, key=lambda x: x[:2]):
        near = re.findall(r"[A-Za-z]+", _CLAUSE_END.split(bare[:start])[-1])[-window:] + \
            re.findall(r"[A-Za-z]+", _CLAUSE_END.split(bare[end:])[0])[:window]
        contexts.append((_stems(" ".join(near)), value, ordinal, allowed))
    found: dict[str, str] = {}
    # quoted text that is a parameter's own default is that parameter's value, whatever its
    # context says ("search for 'New York' images with language restriction": q, default "New York ")
    # (a number or ordinal cannot match: a text parameter's default is never a number)
    defaults = {str(p.default).strip().lower(): p.name for p in params if p.name in textual and str(p.default).strip()}
    for i in reversed(range(len(contexts))):
        value = contexts[i][1]
        name = defaults.get((value or "").strip().lower())
        if name and name not in found:
            found[name] = value
            del contexts[i]
    placed = True
    while placed:
        placed = False
        for i, (context, value, ordinal, allowed) in enumerate(contexts):
            ranked = sorted(((len(context & about[n]), n) for n in allowed if n not in found), reverse=True)
            if ranked and ranked[0][0] >= 1 and (len(ranked) == 1 or ranked[0][0] > ranked[1][0]):
                name = ranked[0][1]
                # an ordinal counts from one; a parameter whose default is 0 counts from zero
                found[name] = value if value is not None else str(ordinal - (name in zero_based))
                del contexts[i]
                placed = True
                break
    return {p.name: found[p.name] for p in params if p.name in found}


def named_values(query: str, tool: Tool) -> dict[str, str]:
    """The tool's parameters whose value the instruction names, in the schema's order.

    Instructions are written from a call, so a value they name is a value the call sets,
    though a small model tends to leave it out or put it under another key. Four kinds:

    - a value stated for a parameter (``stated_slots``: "20 items per response", "the topic 'compute'");
    - a parameter's default ("sorted by recent", "in USD", "in English" for ``en``, "the
      artist with ID 2w9zwq3AktTeYYMuhMjju8"), written out whole and not as a part of a path,
      a file name or a longer list ("report.pdf" does not name "pdf"). Hyphens and
      underscores count as spaces ("city-level-score" is named by "city-level score"); a
      default of three characters or fewer must be written in its own case ("US", not the
      "us" of "show us"); a comma-separated default is named when every item is ("IDs 5002
      and 6020" names "5002,6020"); numeric and boolean defaults are left to
      ``stated_slots`` and the model ("15 results from index 10" against ``num`` = 10);
    - an optional parameter's default made of language or country codes takes the ones the
      instruction names: "written in Portuguese" sets ``lr`` (default ``lang_en``) to
      ``lang_pt``, "in Canada" sets ``country`` (default ``us``) to ``ca``;
    - a value written right after the parameter's name (``values_after_names``: "with hits
      per page set to 23", ", network bsc"), and an e-mail address for the one parameter
      about one (``named_email``), unless another finder named the value already.

    On the 450 real dev entries' gold tools these name 503 values the ground truth holds, 15
    it holds otherwise (a list that holds the default, "BR" for "br") and none it lacks; on
    1,800 generated entries (seeds 101, 202, 303) 1,606, 5 and 10 (797, 5 and 10 before
    these last two; a boolean named "true" counts as held by ``true``).

    Example:
        >>> from petool.schema import Parameter
        >>> t = Tool("<A>.<B>.<c>", optional_parameters=[Parameter("sort", default="recent"),
        ...          Parameter("lang", default="en"), Parameter("page", default="10"),
        ...          Parameter("country", default="US")])
        >>> named_values("Show us page 10 of the reviews sorted by recent, in English", t)
        {'sort': 'recent', 'lang': 'en', 'page': '10'}
        >>> named_values("Reviews from Canada, in French", t)
        {'lang': 'fr', 'country': 'CA'}
    """
    spaced = _spaced(query)
    langs, countries = named_places(query)
    text = f"{spaced} {' '.join(langs)}"
    slots = stated_slots(query, tool)
    named = {}
    for p in tool.required_parameters + tool.optional_parameters:
        if p.name in slots:
            named[p.name] = slots[p.name]
            continue
        default = _spaced(p.default)
        if len(default) < 2 or _NUMBER.fullmatch(default) or default.lower() in ("true", "false"):
            continue
        flags = 0 if len(default) <= 3 else re.IGNORECASE  # short defaults keep their case
        if _written_out(default, text, flags) or _names_every_item(str(p.default), query):
            named[p.name] = str(p.default)
        elif p in tool.optional_parameters and (value := _with_places(str(p.default), p, langs, countries)) is not None:
            named[p.name] = value
    for found in (values_after_names(query, tool), named_email(query, tool)):
        taken = {v.lower() for v in named.values()}
        named |= {k: v for k, v in found.items() if k not in named and v.lower() not in taken}
    # schema order (required, then optional), the grammar's
    return {p.name: named[p.name] for p in tool.required_parameters + tool.optional_parameters if p.name in named}


_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def named_email(query: str, tool: Tool) -> dict[str, str]:
    """The one e-mail address an instruction writes, for the tool's one text parameter about
    an e-mail, address or recipient (a small model copies "support@acme.io" as "acme.io").

    Example:
        >>> from petool.schema import Parameter
        >>> named_email("Mail support@acme.io: 'Hi'", Tool("<A>.<B>.<c>", required_parameters=[Parameter("to", description="recipient")]))
        {'to': 'support@acme.io'}
    """
    mails = set(_EMAIL.findall(query))
    about = [p for p in tool.required_parameters + tool.optional_parameters
             if re.search(r"e-?mail|address|recipient", f"{p.name} {p.description}", re.IGNORECASE)
             and str(p.type).lower() not in _STRUCTURED_TYPES | _BOOLEAN_TYPES | _NUMERIC_TYPES]
    return {about[0].name: mails.pop()} if len(mails) == 1 and len(about) == 1 else {}


def spoken_name(name: str) -> str:
    """A parameter's name as an instruction would write it: "hitsPerPage" -> "hits per page",
    "country_iso" -> "country iso"."""
    return _spaced(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)).lower()


# A parameter named in a clause of its own: after "with", "using", "and", "in", "for" or a
# comma, maybe joined by "set to", "is", "=", ":" or "(ed) by" ("with hits per page set to 23",
# ", network bsc", "in country BR", "using tz name America/New_York", "and ordered by desc")...
_NAME_CUE = r"(?:\b(?:with|using|and|in|for)|,)\s+"
_NAME_LINK = r"(?:\s+set\s+to|\s+is|\s*[=:]|(?:ed)?\s+by)?\s+"
# ...and its value one word (or a list without spaces, or quoted text) that ends the clause,
# so a value of several words is left to the model ("writer Chinua Achebe" names no "Chinua")
_ONE_VALUE = r"""(?:'([^']{1,80})'|"([^"]{1,80})"|([^\s,;?!'"]+(?:,[^\s,;?!'"]+)*))"""
_VALUE_END = r"(?=\s*(?:[,;?!]|\.(?!\w)|$|\s(?:and|with|using|in|for|on|from|to)\b))"
_SWITCHES = {"on": "true", "off": "false", "true": "true", "false": "false", "yes": "true", "no": "false",
             "enabled": "true", "disabled": "false"}
_NOT_A_VALUE = frozenset("to of the a an and or for in on at by with from set is as".split())


def values_after_names(query: str, tool: Tool) -> dict[str, str]:
    """Values the instruction writes right after a parameter's own name, in a clause of its own.

    "with hits per page set to 23" sets ``hitsPerPage``, ", network bsc" ``network``, "with
    details on" the boolean ``details`` to "true". A name of one or two letters ("p", "hl")
    must be written in its own case. The value is one word, a list without spaces
    ("id,name") or quoted text, and it must end the clause; a number only fits a numeric
    parameter and a switch word (on, off, yes, no...) only a boolean or text one. Objects and
    arrays are left to the model, as is a name the instruction gives two values.

    Example:
        >>> from petool.schema import Parameter
        >>> t = Tool("<A>.<B>.<c>", optional_parameters=[Parameter("country_iso"),
        ...          Parameter("hitsPerPage", "NUMBER"), Parameter("details", "BOOLEAN"), Parameter("writer")])
        >>> values_after_names("Trends with hits per page set to 23, country iso GB and details on", t)
        {'country_iso': 'GB', 'hitsPerPage': '23', 'details': 'true'}
        >>> values_after_names("Books with writer Chinua Achebe, hits per page ten", t)
        {}
    """
    found = {}
    for p in tool.required_parameters + tool.optional_parameters:
        kind, name = str(p.type).lower(), spoken_name(p.name)
        if not name or kind in _STRUCTURED_TYPES:
            continue
        pattern = _NAME_CUE + r"(?<![\w-])" + r"\s+".join(map(re.escape, name.split())) + _NAME_LINK + _ONE_VALUE + _VALUE_END
        values = {(m.group(1) or m.group(2) or m.group(3)).rstrip(".")
                  for m in re.finditer(pattern, query, re.IGNORECASE if len(name) > 2 else 0)}
        if len(values) != 1:
            continue
        value = values.pop()
        word = value.lower()
        if kind in _BOOLEAN_TYPES:
            fits = word in _SWITCHES
            value = _SWITCHES.get(word, value)
        elif kind in _NUMERIC_TYPES:
            fits = bool(_NUMBER.fullmatch(value))
        else:  # a switch word only where the type says text; never a linking word
            fits = word not in _NOT_A_VALUE and (word not in _SWITCHES or kind in ("string", "str", "enum"))
        if fits:
            found[p.name] = value
    return found


def _written_out(value: str, text: str, flags: int = 0) -> bool:
    """Whether ``text`` holds ``value`` whole, not as a part of a word, a path, a file name or a
    longer list ("report.pdf" does not write "pdf", nor "id,name,price" "id,name")."""
    return re.search(rf"(?<![\w./])(?<!\w,){re.escape(value)}(?![\w/]|[.,]\w)", text, flags) is not None


def _names_every_item(default: str, query: str) -> bool:
    """Whether ``default`` is a comma-separated list whose every item the query writes out
    ("external IDs 5002 and 6020" names "5002,6020")."""
    items = [item.strip() for item in default.split(",")]
    return len(items) > 1 and all(len(item) > 1 for item in items) and all(_written_out(item, query) for item in items)


def _same_words(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def echoed_values(query: str, history: list[Turn], tool: Tool) -> dict[str, object]:
    """The parameters of the user's earlier call for this very instruction, if ``tool`` takes them.

    PEToolBench copies one API under several tools with its example (instruction and
    parameters), and an r or c history holds the ground truth's equivalents' examples: in 121 of
    the 450 real dev entries a turn's instruction is the query word for word, and its parameters
    are the ground truth's in all 121 (53 with parameters to give; values as typed: ``"start":
    "1"`` where the schema says NUMBER); on 1,800 generated entries it gives 182 values in 128 r
    and c entry-settings, all the ground truth's. A turn counts when its parameters are all
    ``tool``'s; turns that disagree cancel.

    Example:
        >>> from petool.schema import Parameter, ToolCall
        >>> t = Tool("<A>.<B>.<search>", required_parameters=[Parameter("q")], optional_parameters=[Parameter("start")])
        >>> h = [Turn("Search  'rock' from the 2nd", ToolCall("<A>.<C>.<search>", {"q": "rock", "start": "1"}), 0)]
        >>> echoed_values("search 'rock' from the 2nd", h, t)
        {'q': 'rock', 'start': '1'}
        >>> echoed_values("search 'jazz'", h, t)
        {}
    """
    names = {p.name for p in tool.required_parameters + tool.optional_parameters}
    calls = [t.call.parameters for t in history
             if _same_words(t.instruction, query) and t.call.parameters and set(t.call.parameters) <= names]
    if not calls or any(c != calls[0] for c in calls):
        return {}
    return dict(calls[0])


# The chronological setting puts the 2-5 turns on non-preferred tools first (docs/petoolbench.md §2),
# so an opening run longer than this already reaches the preferred turns.
OPENING_CALLS_MAX = 5

# How much a candidate's likeness to the tools the user turned away from adds to its fit: those
# tools are the ground truth's functional equivalents, so likeness to them finds the cluster.
# Chosen on generated entries whose clusters copy one API under several tools, as PEToolBench's
# do (48 of the 52 clusters in the real dev entries give every member the same API name, 44 the
# same description): `benchmarks/ranking.py --copied 0.9` (1,800 entries, seeds 101/202/303),
# ground truth ranked first r / c at 1, 1.5, 1.75, 2: 95.4 / 94.2, 96.2 / 95.0, 96.3 / 95.0,
# 96.1 / 94.8. The best weight grows with the share of copies: with half the clusters copied 1
# ranks best (92.3 / 91.2 against 91.5 / 90.2), and with none (90.3 / 89.1 against 89.7 / 88.5).
REJECTED_LIKENESS_WEIGHT = 1.75

# Where the history turns no candidate away (p), the ground truth's cluster still shows as a
# group of alike candidates from different tools, while most distractors stand alone: a
# candidate's likeness to another tool's candidate adds this much to its fit. Real p entries
# whose ground truth's tool is not in the history (229 of 450) are where that matters: there
# the best-fitting candidate is often a distractor ("Getallproducts" over six copies of
# "getInventory"). `benchmarks/ranking.py --vary cohesion --weights 0,0.25,0.5,1,2 --settings prc`
# (seeds 101/202/303, 1,800 generated entries, copied 0.9), p ground truth first / in the
# shortlist's 4: 70.4 / 94.1, 72.2 / 97.8, 72.6 / 97.9, 72.8 / 98.1, 72.8 / 97.9; r and c
# unchanged (their histories turn candidates away). Read after the choice, the real p entries:
# first 69.8 at every weight, in the shortlist 96.9 -> 98.4 (215 -> 222 of those 229). With
# the shipped adapter the fused tool choice is unchanged (generated p 80.4 / 81.2 without /
# with copies; real p 70.4 on all 450, 4 more right parameter sets, 8 fewer picks outside the
# gold's cluster): the gain is in what the prompt shows and in the evidence rule's order.
COHESION_WEIGHT = 0.5


def cohesion(tool: Tool, candidates: list[Tool]) -> float:
    """How alike ``tool`` is to the most alike candidate of another tool (provider), 0-1."""
    own = provider_of(tool.name)
    return max((likeness(tool, other) for other in candidates if provider_of(other.name) != own), default=0.0)


# A parameter named as a web address ("url", "link", "subtitleUrl", "image_url") takes nothing
# else; an ID or a name will not do. Parameters that take "URL or ID" are named otherwise.
_ADDRESS_PARAMETER = re.compile(r"(?:^|_)(?:url|link)$|[a-z0-9](?:Url|URL|Link)$", re.IGNORECASE)
_WEB_ADDRESS = re.compile(r"https?://|\bwww\.|\b[\w-]+\.(?:com|org|net|io|de|co|uk|fr|dev|app|ai|gov|edu|me|tv|ly|xml|html?|pdf|png|jpe?g|gif|webp|docx?|pptx?|mp[34])\b",
                          re.IGNORECASE)


def lacks_address(query: str, tool: Tool) -> bool:
    """Whether the tool requires a web address the query does not give: such a call cannot be
    made as asked (Otto's "Product Details" takes a product page's URL, not the product's id).

    Example:
        >>> from petool.schema import Parameter
        >>> otto = Tool("<e>.<Otto>.<Product Details>", required_parameters=[Parameter("url")])
        >>> lacks_address("details of the product with id 2000383198", otto), lacks_address("details of https://www.otto.de/p/x", otto)
        (True, False)
    """
    return (any(_ADDRESS_PARAMETER.search(p.name) and not str(p.type).upper().startswith(("ARRAY", "OBJECT"))
                for p in tool.required_parameters)
            and not _WEB_ADDRESS.search(query))


# Whether the ranking holds ``lacks_address`` against a candidate (the benchmark turns it off).
DEMOTE_UNADDRESSED = True


@dataclass
class ToolEvidence:
    """What the history says of one candidate's tool (provider)."""

    uses: int = 0
    liked: int = 0
    disliked: int = 0
    first: int | None = None
    last: int | None = None
    in_leading_block: bool = False


def history_evidence(history: list[Turn], candidates: list[Tool]) -> dict[str, ToolEvidence]:
    """Evidence per candidate name from a history (positions are 1-based).

    ``in_leading_block`` marks the tools of the opening run of turns (at most
    ``OPENING_CALLS_MAX``) that call alike candidates' tools: in the chronological setting
    those come first because the user liked them least.
    """
    by_provider: dict[str, ToolEvidence] = {}
    for i, turn in enumerate(history, 1):
        ev = by_provider.setdefault(provider_of(turn.call.tool_name), ToolEvidence())
        ev.uses += 1
        ev.liked += turn.rating == 1
        ev.disliked += turn.rating == 0
        ev.first = ev.first or i
        ev.last = i
    offered: dict[str, list[Tool]] = {}
    for t in candidates:
        offered.setdefault(provider_of(t.name), []).append(t)
    leading: list[str] = []
    for turn in history[:OPENING_CALLS_MAX]:
        provider = provider_of(turn.call.tool_name)
        if provider not in offered:
            break
        # The opening turns are on one functional cluster's tools, so a new tool joins the run
        # only if it is alike one already in it; an unrelated candidate's tool ends the run.
        if leading and provider not in leading and not any(
            likeness(a, b) > 0 for known in leading for a in offered[known] for b in offered[provider]
        ):
            break
        if provider not in leading:
            leading.append(provider)
    out = {}
    for t in candidates:
        ev = by_provider.get(provider_of(t.name), ToolEvidence())
        out[t.name] = ToolEvidence(ev.uses, ev.liked, ev.disliked, ev.first, ev.last, provider_of(t.name) in leading)
    return out


def preference_score(ev: ToolEvidence, setting: str) -> float:
    """How much the history says the user prefers this tool, in the setting's own terms."""
    if setting == "r":
        return ev.liked - 2 * ev.disliked
    if setting == "c":
        return -1.0 if ev.in_leading_block else float(ev.uses > 0)
    return float(ev.uses)


def turned_away(ev: ToolEvidence, setting: str) -> bool:
    """Whether the history marks the tool as one the user turned away from: disliked (r) or
    among the opening calls (c). The benchmark puts those turns on the ground truth's
    functional equivalents, so they also say which candidates form its cluster."""
    return (setting == "r" and ev.disliked > 0) or (setting == "c" and ev.in_leading_block)


@lru_cache(maxsize=4096)
def _word_set(text: str) -> frozenset[str]:
    # likeness runs for every candidate pair each time a prompt is ranked: split each text once
    return frozenset(words(text))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / (len(a | b) or 1)


def _name_words(tool: Tool) -> frozenset[str]:
    # "/v1" holds no content word; then the name itself, bare, is its one word
    name = api_name(tool)
    return _word_set(name) or frozenset({re.sub(r"\W+", "", name.lower())}) - {""}


# Equivalent APIs in ToolBench are often one API copied under several tools: the same name
# ("getPetById", "/random", "user-followers") or the same description with other parameters.
# Over the whole text such copies can share few words, so the name's and the description's own
# overlaps count too, at these weights. Chosen on 1,800 generated entries (seeds 101/202/303;
# name 0-1 x description 0-1 tried): the ground truth ranked first r 89.4 -> 90.3, c 88.3 -> 89.1.
NAME_LIKENESS_WEIGHT = 0.5
DESCRIPTION_LIKENESS_WEIGHT = 0.75


def likeness(a: Tool, b: Tool) -> float:
    """How alike two candidates are, 0-1: the Jaccard overlap of their words (name, description,
    parameters), or of their API names' or descriptions' words alone, weighted, if more."""
    return max(_jaccard(_word_set(tool_text(a)), _word_set(tool_text(b))),
               NAME_LIKENESS_WEIGHT * _jaccard(_name_words(a), _name_words(b)),
               DESCRIPTION_LIKENESS_WEIGHT * _jaccard(_word_set(a.description), _word_set(b.description)))


def rank_keys(query: str, history: list[Turn], candidates: list[Tool], setting: str,
              fit_threshold: float = 0.5) -> dict[str, tuple]:
    """Each candidate's sort key in ``rank_tools`` (higher first), by name; equal keys are a tie
    that only the candidates' order in the entry breaks."""
    return _ranking_facts(query, history, candidates, setting, fit_threshold)[0]


def _ranking_facts(query: str, history: list[Turn], candidates: list[Tool], setting: str,
                   fit_threshold: float) -> tuple[dict[str, tuple], dict[str, float], dict[str, ToolEvidence]]:
    fit = fit_scores(query, candidates)
    evidence = history_evidence(history if setting != "none" else [], candidates)
    rejected = [t for t in candidates if turned_away(evidence[t.name], setting)]

    unaddressed = {t.name for t in candidates if DEMOTE_UNADDRESSED and lacks_address(query, t)}
    best_addressed = max((f for name, f in fit.items() if name not in unaddressed), default=0.0)
    if unaddressed and best_addressed:
        # the best candidate that can be called as asked sets the scale the threshold reads
        fit = {name: round(min(1.0, f / best_addressed), 3) for name, f in fit.items()}

    def key(t: Tool) -> tuple:
        pref = preference_score(evidence[t.name], setting)
        addressed = t.name not in unaddressed  # calls that need a web address the query lacks go last
        if rejected:
            if t in rejected:
                return (addressed, False, fit[t.name], pref)
            alike = max(likeness(t, other) for other in rejected)
            return (addressed, True, fit[t.name] + REJECTED_LIKENESS_WEIGHT * alike, pref)
        fits = fit[t.name] >= fit_threshold
        return (addressed, fits, pref if fits else 0.0, fit[t.name] + COHESION_WEIGHT * cohesion(t, candidates))

    return {t.name: key(t) for t in candidates}, fit, evidence


def tied_ranks(keys: dict[str, tuple], names: list[str]) -> list[bool]:
    """For candidates in rank order, whether each has the same ranking key as the one before it.

    Example:
        >>> tied_ranks({"a": (1,), "b": (1,), "c": (0,)}, ["a", "b", "c"])
        [False, True, False]
    """
    return [k > 0 and keys[name] == keys[names[k - 1]] for k, name in enumerate(names)]


def rank_tools(query: str, history: list[Turn], candidates: list[Tool], setting: str,
               fit_threshold: float = 0.5) -> list[tuple[Tool, float, ToolEvidence]]:
    """Candidates ordered best first.

    When the history turns the user away from some candidates' tools (r, c), the others are
    ordered by fit plus likeness to those (the rejected tools' equivalents are the likely
    answer) and the rejected come last. Otherwise well-fitting candidates (fit at least
    ``fit_threshold``) come first, ordered by preference, then the rest; equal preference goes
    by fit plus likeness to another tool's candidate (``cohesion``: the cluster's members are
    alike, most distractors stand alone). Candidates that need a web address the query does
    not give (``lacks_address``) come after all others, and the best of the rest sets the fit's
    scale (1.0).
    A pure function of the prompt's inputs, so a prompt can show the candidates in this order
    (the ``shortlist`` style) and a rule can take the first (``baseline:evidence``).
    """
    keys, fit, evidence = _ranking_facts(query, history, candidates, setting, fit_threshold)
    ordered = sorted(candidates, key=lambda t: keys[t.name], reverse=True)
    return [(t, fit[t.name], evidence[t.name]) for t in ordered]


# Where the ground truth lands in the ranking, by setting: its share at ranks 1..4 among the
# generated entries whose shortlist holds it (600 generated test entries per setting, seed 101;
# `python benchmarks/tool_choice.py --ranks-only` prints them). A prior for the tool choice.
GOLD_RANK_SHARE = {
    "p": (0.741, 0.196, 0.038, 0.025),
    "r": (0.901, 0.062, 0.023, 0.013),
    "c": (0.897, 0.064, 0.025, 0.013),
}


def rank_log_prior(setting: str, n: int, tied: list[bool] | None = None) -> list[float]:
    """Log prior of the ground truth being at each of the first ``n`` ranks (``GOLD_RANK_SHARE``,
    renormalized over ``n``; flat where the setting has no history to rank by).

    ``tied[k]`` says the candidate at rank k has the same ranking key as the one before it
    (``rank_keys``): tied candidates share their ranks' prior equally, since only the entry's
    candidate order put one first ("Spotify" and "Spotify Web", one API copied under both).
    On the unseen generated entries' recorded name scores (``benchmarks/tool_choice.py``, w = 2.5)
    sharing moves p from 78.3 to 80.4 (138 entries) and from 77.0 to 78.2 (408, copied clusters)
    and leaves r and c as they are; on the real dev entries' (shipped adapter, all 450) p 70.0
    -> 69.3, r 93.1 -> 94.0, c 91.6 -> 92.2.

    Example:
        >>> [round(x, 2) for x in rank_log_prior("r", 2)]
        [-0.07, -2.74]
        >>> [round(x, 2) for x in rank_log_prior("r", 3, [False, True, False])]
        [-0.72, -0.72, -3.76]
    """
    shares = GOLD_RANK_SHARE.get(setting)
    if not shares or n <= 0:
        return [0.0] * max(n, 0)
    # ranks past the table's end get the last rank's share
    shares = [shares[min(k, len(shares) - 1)] for k in range(n)]
    runs: list[list[float]] = []  # ranks that tie, each run sharing its mean
    for k, share in enumerate(shares):
        if k and tied and k < len(tied) and tied[k]:
            runs[-1].append(share)
        else:
            runs.append([share])
    shares = [sum(run) / len(run) for run in runs for _ in run]
    total = sum(shares)
    return [math.log(x / total) for x in shares]


def rank_candidates(entry: Entry, setting: str, fit_threshold: float = 0.5) -> list[tuple[Tool, float, ToolEvidence]]:
    """``rank_tools`` over an entry's query, history in ``setting`` and candidates."""
    history = entry.history(setting) if setting != "none" else []
    return rank_tools(entry.query, history, entry.candidates, setting, fit_threshold)
