"""What an instruction states: the values it names for a tool's parameters.

Quoted text, numbers and ordinals placed by the words beside them, defaults written out, the
languages and countries it names, values written after a parameter's name, an e-mail address,
and an earlier call for the very same instruction. Instructions are written from a call, so
these are values the call sets; a small model tends to drop them or misplace them, so decoding
holds the call to them (``petool.decoding``). Pure functions of the instruction and the schema.
"""

from __future__ import annotations

import re
from functools import lru_cache

from petool.schema import Parameter, Tool, Turn

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


_QUOTED = re.compile(r"'([^']{1,80})'|\"([^\"]{1,80})\"")
# not inside "v2", "COVID-19", "1.5x"; a sentence's full stop may follow ("limit it to 10.")
_NUMBER = re.compile(r"(?<![\w.])(?<!\w-)\d+(?:\.\d+)?(?!\w|\.\d)")
_ORDINAL_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
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
    "english": "en",
    "french": "fr",
    "spanish": "es",
    "german": "de",
    "italian": "it",
    "portuguese": "pt",
    "dutch": "nl",
    "russian": "ru",
    "chinese": "zh",
    "japanese": "ja",
    "korean": "ko",
    "arabic": "ar",
    "hindi": "hi",
    "turkish": "tr",
    "polish": "pl",
    "swedish": "sv",
    "indonesian": "id",
    "vietnamese": "vi",
    "thai": "th",
    "greek": "el",
}

_LANGUAGE_CODE_SET = frozenset(LANGUAGE_CODES.values())

# Short forms pycountry does not list; the upper-case ones must be written so ("show us" is no country).
_COUNTRY_ALIASES = {
    "usa": "US",
    "uk": "GB",
    "britain": "GB",
    "england": "GB",
    "russia": "RU",
    "vietnam": "VN",
    "US": "US",
    "USA": "US",
    "UK": "GB",
}


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
    hits = sorted(
        [(m.start(), countries[m.group(1)]) for m in lower_names.finditer(lower)]
        + [(m.start(), countries[m.group(1)]) for m in upper_names.finditer(query)]
    )
    return tuple(dict.fromkeys(langs)), tuple(dict.fromkeys(code for _, code in hits))


def _with_places(default: str, parameter: Parameter, langs: tuple[str, ...], countries: tuple[str, ...]) -> str | None:
    """``default`` with its language and country codes set to the ones the query names, or None.

    A code is a part of the default between hyphens or underscores ("lang_en", "en-US", "us");
    which kind it is comes from the parameter's name and description. Every code must be named,
    by a single place of its kind ("en-SG" is not named by "in Singapore" alone, and "from
    English to French" names no one language).
    """
    about = f"{parameter.name} {parameter.description}".lower()
    kinds = [
        (kind, codes[0])
        for kind, codes, pattern in (
            ("lang", langs, r"\b(?:lang\w*|locale|lr|hl)\b"),
            ("country", countries, r"\b(?:countr\w*|region\w*|gl|market\w*|locale)\b"),
        )
        if re.search(pattern, about) and len(codes) == 1
    ]
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
    comparison ("rating>3") are left to the model. How often the values it names are the
    ground truth's: docs/experiments.md ("Figures moved out of docstrings").

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
    textual = {p.name for p in params if p.name not in numeric and str(p.type).lower() not in _BOOLEAN_TYPES | _STRUCTURED_TYPES}
    about = {p.name: _stems(f"{p.name} {p.description}") for p in params}
    zero_based = {p.name for p in params if str(p.default).strip() == "0"}
    mentions = []  # (start, end, value or None, ordinal or None, the parameters it may go to)
    for m in _NUMBER.finditer(bare):
        before, after = bare[: m.start()], bare[m.end() :]
        if not (re.match(r"\s*(?:,|and|or|to)?\s*\d|[-:/]\w", after) or re.search(r"\d\s*(?:,|and|or)?\s*$|[<>=]\s*$", before)):
            mentions.append((m.start(), m.end(), m.group(0), None, numeric))
    for m in _ORDINAL.finditer(bare):
        mentions.append((m.start(), m.end(), None, _ORDINAL_WORDS.get((m.group(1) or "").lower()) or int(m.group(2) or 0), numeric))
    for m in _QUOTED.finditer(query):
        mentions.append((m.start(), m.end(), m.group(1) or m.group(2), None, textual))
    contexts = []
    for start, end, value, ordinal, allowed in sorted(mentions, key=lambda x: x[:2]):
        near = (
            re.findall(r"[A-Za-z]+", _CLAUSE_END.split(bare[:start])[-1])[-window:]
            + re.findall(r"[A-Za-z]+", _CLAUSE_END.split(bare[end:])[0])[:window]
        )
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

    How often the values they name are the ground truth's: docs/experiments.md ("Figures
    moved out of docstrings").

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
    about = [
        p
        for p in tool.required_parameters + tool.optional_parameters
        if re.search(r"e-?mail|address|recipient", f"{p.name} {p.description}", re.IGNORECASE)
        and str(p.type).lower() not in _STRUCTURED_TYPES | _BOOLEAN_TYPES | _NUMERIC_TYPES
    ]
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
_SWITCHES = {
    "on": "true",
    "off": "false",
    "true": "true",
    "false": "false",
    "yes": "true",
    "no": "false",
    "enabled": "true",
    "disabled": "false",
}
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
        values = {
            (m.group(1) or m.group(2) or m.group(3)).rstrip(".") for m in re.finditer(pattern, query, re.IGNORECASE if len(name) > 2 else 0)
        }
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
    parameters), and an r or c history holds the ground truth's equivalents' examples, so an
    earlier turn with the query's very words carries the values the user gives for it (as
    typed: ``"start": "1"`` where the schema says NUMBER). A turn counts when its parameters are
    all ``tool``'s; turns that disagree cancel. How often this holds: docs/experiments.md
    ("Figures moved out of docstrings").

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
    calls = [
        t.call.parameters for t in history if _same_words(t.instruction, query) and t.call.parameters and set(t.call.parameters) <= names
    ]
    if not calls or any(c != calls[0] for c in calls):
        return {}
    return dict(calls[0])
