"""What the instruction states: stated values and slots, named defaults, places, values after
names, e-mail addresses, and an earlier call for the same instruction."""

import pytest

from petool.query import (
    echoed_values,
    named_email,
    named_places,
    named_values,
    stated_slots,
    stated_values,
    values_after_names,
    words,
)
from petool.schema import Parameter, Tool, ToolCall, Turn


def test_words_split_case_and_drop_stop_words():
    assert words("getUserProfile for the my_account ID 420") == ["user", "profile", "account", "420"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("Search 'Laptop' on page 3, sorted by 'price_asc'.", ["laptop", "price_asc", "3"]),
        ("Reviews for product ID 12345 with 20 items per page", ["12345", "20"]),
        ("Use the v2 API at 1.5x speed on COVID-19 data", []),  # numbers inside words are not values
        ('Translate "Hello 42" into French', ["hello 42"]),  # a number inside quotes counts once
        ("Get 2.5 kg and -3 degrees", ["2.5", "3"]),
        ("No values here.", []),
    ],
)
def test_stated_values(query, expected):
    assert stated_values(query) == expected


_SHOP = Tool(
    "<Shop>.<Store>.<reviews>",
    optional_parameters=[
        Parameter("sort", default="recent"),
        Parameter("purpose", default="for-rent"),
        Parameter("currency", default="USD"),
        Parameter("lang", default="en"),
        Parameter("country", default="US"),
        Parameter("size", "NUMBER", default="10"),
        Parameter("native", "BOOLEAN", default="false"),
    ],
)


@pytest.mark.parametrize(
    "query, expected",
    [
        ("Reviews sorted by recent, prices in USD", {"sort": "recent", "currency": "USD"}),
        ("Homes for rent, most RECENT first", {"sort": "recent", "purpose": "for-rent"}),  # hyphen, case
        ("Reviews in English from the US", {"lang": "en", "country": "US"}),  # a language by its code
        ("Show us 10 reviews, verbose set to false", {}),  # short defaults keep their case; numbers and booleans may be another parameter's
        ("Reviews in usdollars, recently added, Englishman", {}),  # whole words only
        ("No defaults named.", {}),
    ],
)
def test_named_values(query, expected):
    named = named_values(query, _SHOP)
    assert named == expected and list(named) == [p.name for p in _SHOP.optional_parameters if p.name in expected]


_PLACES = Tool(
    "<S>.<Search>.<images>",
    optional_parameters=[
        Parameter("gl", description="a two-letter country code", default="US"),
        Parameter("lr", description="restricts results to a language", default="lang_en"),
        Parameter("locale", default="en-SG"),
        Parameter("q", default="news"),
    ],
)


@pytest.mark.parametrize(
    "query, expected",
    [
        ("Images from Brazil written in Portuguese", {"gl": "BR", "lr": "lang_pt", "locale": "pt-BR"}),  # in the default's case
        ("Images from Canada", {"gl": "CA"}),  # en-SG: its language is not named, so neither is it
        ("Images from Singapore in English", {"gl": "SG", "lr": "lang_en", "locale": "en-SG"}),  # both codes named
        ("Images from the UK and France", {}),  # two countries name none
        ("Translate from English to French", {}),  # two languages name none
        ("Headlines of bbc.co.uk, zone America/New_York", {}),  # not in a URL or a path
        ("Show us the news", {"q": "news"}),  # "us" is no country; a named default stays
    ],
)
def test_named_values_take_the_places_the_query_names(query, expected):
    assert named_values(query, _PLACES) == expected


_DEFAULTED = Tool(
    "<S>.<Realty>.<search>",
    required_parameters=[
        Parameter("locationExternalIDs", "STRING", "The location external IDs", default="5002,6020"),
        Parameter("uri", "STRING", "Artist or song URI", default="spotify:artist:2w9zwq3A"),
    ],
    optional_parameters=[
        Parameter("q", "STRING", "Search query", default="New York "),
        Parameter("lr", "STRING", "Restricts the search to documents written in a particular language", default="lang_en"),
        Parameter("to", "STRING", "the target format", default="pdf"),
        Parameter("select", "STRING", "the fields to return", default="id,name"),
    ],
)


@pytest.mark.parametrize(
    "query, expected",
    [
        ("Search for 'New York' images with language restriction", {"q": "New York"}),  # quoted default, whatever its context
        ("Homes in locations with external IDs 5002 and 6020", {"locationExternalIDs": "5002,6020"}),  # every item of a list
        ("Homes in location 5002", {}),  # not every item
        ("The radio playlist of spotify:artist:2w9zwq3A", {"uri": "spotify:artist:2w9zwq3A"}),  # a required default
        ("Turn https://example.com/report.pdf into html", {}),  # a file name does not name "pdf"
        ("Return the fields id,name,price", {}),  # a longer list does not name "id,name"
        ("Convert it to pdf, with fields id,name.", {"to": "pdf", "select": "id,name"}),  # a sentence's comma and full stop
    ],
)
def test_named_values_name_defaults_written_out_whole(query, expected):
    named = named_values(query, _DEFAULTED)
    assert named == expected and list(named) == [
        p.name for p in _DEFAULTED.required_parameters + _DEFAULTED.optional_parameters if p.name in expected
    ]


_NAMED_BY_NAME = Tool(
    "<S>.<Trends>.<list>",
    required_parameters=[Parameter("stop_id", "STRING", "the stop")],
    optional_parameters=[
        Parameter("country_iso", "STRING", "ISO country code"),
        Parameter("hitsPerPage", "NUMBER", "results per page"),
        Parameter("details", "BOOLEAN", "include details"),
        Parameter("p", "NUMBER", "page"),
        Parameter("writer", "STRING", "the author"),
        Parameter("fields", "STRING", "fields to return"),
        Parameter("tags", "ARRAY", "tags"),
        Parameter("network", "STRING", "the chain"),
    ],
)


@pytest.mark.parametrize(
    "query, expected",
    [
        ("Departures from stop id TYO-01, country iso GB.", {"country_iso": "GB"}),  # "from" is no cue
        ("Trends with hits per page set to 23 and details on", {"hitsPerPage": "23", "details": "true"}),  # camelCase, a switch
        ("Gas fees right now, network bsc?", {"network": "bsc"}),  # a comma is a cue
        ("Orders with p 2, using fields id,name", {"p": "2", "fields": "id,name"}),  # a one-letter name; a list without spaces
        ("Orders with P 2", {}),  # a name of one or two letters keeps its case
        ("Books with writer Chinua Achebe", {}),  # a value of several words is left to the model
        ("Books with writer 'Chinua Achebe'", {"writer": "Chinua Achebe"}),  # unless quoted
        ("Trends with hits per page ten, details maybe", {}),  # a number only for a numeric name, a switch for a boolean
        ("Tags with tags beta, with network of the chain", {}),  # arrays left to the model; "of" is no value
        ("Trends with network bsc and with network eth", {}),  # two values name none
    ],
)
def test_values_after_names(query, expected):
    assert values_after_names(query, _NAMED_BY_NAME) == expected


def test_values_after_names_joined_by_by():
    tool = Tool("<S>.<Bus>.<departures>", optional_parameters=[Parameter("order"), Parameter("sort")])
    assert values_after_names("Next departures, ordered by desc", tool) == {"order": "desc"}
    assert values_after_names("Next departures and sort by time", tool) == {"sort": "time"}
    assert values_after_names("Next departures ordered by desc", tool) == {}  # no cue before the name


@pytest.mark.parametrize(
    "query, params, expected",
    [
        ("Mail support@acme.io: 'Hi'", [Parameter("address"), Parameter("topic")], {"address": "support@acme.io"}),
        (
            "Add jane.doe@example.com as a contact",
            [Parameter("contact", description="the e-mail of the contact")],
            {"contact": "jane.doe@example.com"},
        ),
        ("Mail a@x.io and b@y.io", [Parameter("address")], {}),  # two addresses name none
        ("Mail a@x.io", [Parameter("email"), Parameter("cc", description="another email")], {}),  # nor two parameters
        ("Mail a@x.io", [Parameter("email_count", "NUMBER")], {}),  # only a text parameter
        ("Call the office", [Parameter("address")], {}),
    ],
)
def test_named_email(query, params, expected):
    assert named_email(query, Tool("<S>.<Mail>.<send>", required_parameters=params)) == expected


def test_named_values_add_values_after_names_after_defaults():
    tool = Tool(
        "<S>.<Shop>.<list>",
        optional_parameters=[Parameter("sort", default="recent"), Parameter("order"), Parameter("currency", default="USD")],
    )
    # schema order; a value another finder already named is not named twice
    assert named_values("Sorted by recent, with order desc, using currency recent", tool) == {"sort": "recent", "order": "desc"}


def test_named_places_in_order_of_mention():
    assert named_places("From Singapore or the USA, in Thai") == (("th",), ("SG", "US"))
    assert named_places("nothing here, show us") == ((), ())
    assert named_places("Shipping to Papua New Guinea") == ((), ("PG",))  # the longest name, not also Guinea


_PAGED = Tool(
    "<S>.<Shop>.<reviews>",
    required_parameters=[Parameter("id", "NUMBER", "The product id")],
    optional_parameters=[
        Parameter("size", "NUMBER", "The number of items per response for paging purpose", default="10"),
        Parameter("number", "NUMBER", "The page index for paging purpose", default="1"),
        Parameter("start", "STRING", "index of the first result", default="0"),
        Parameter("locations", "STRING", "external IDs separated by comma"),
        Parameter("rating", "NUMBER", "minimum rating"),
        Parameter("q", "STRING", "the search query"),
        Parameter("verbose", "BOOLEAN", "verbose query output"),
    ],
)


@pytest.mark.parametrize(
    "query, expected",
    [
        (
            "Reviews of product ID 12345 with 20 items per response on page 2",  # each number by its neighbours
            {"id": "12345", "size": "20", "number": "2"},
        ),
        ("Results from index 10, page 3", {"start": "10", "number": "3"}),  # a string-typed slot with a numeric default
        ("Locations with external IDs 5002 and 6020", {}),  # a list is left to the model
        ("Reviews from 2023-01-17, rating>3", {}),  # a date, a comparison
        ("Reviews rated 4 or 5 stars", {}),  # a list again; "stars" is no parameter's word
        ("Show 'page 2' of product 7", {"id": "7"}),  # quoted text is a value, not a clue
        ("Give me 15 of them", {}),  # no neighbour shared with any parameter
        ("Reviews on the second page, from the 6th result", {"number": "2", "start": "5"}),  # start counts from 0
        ("The first 100 items per response", {"size": "100"}),  # "first" counts nothing here
        ("Limit the items per response to 10.", {"size": "10"}),  # a full stop may end a number
        ("Reviews with the query 'red shoes', 15 items per response", {"size": "15", "q": "red shoes"}),  # quoted text
        ("Query 'a' then 'b'", {"q": "a"}),  # one value per parameter
    ],
)
def test_stated_slots_go_to_the_parameter_their_words_name(query, expected):
    assert stated_slots(query, _PAGED) == expected


_SEARCH = Tool(
    "<S>.<Neo Search>.<Image Search>",
    required_parameters=[Parameter("q", "STRING")],
    optional_parameters=[Parameter("start", "NUMBER"), Parameter("gl", "STRING")],
)
_QUERY = "Images of 'Word Cup' in Brazil, from the second result"


def _turn(instruction, params, rating=0, tool="<S>.<Google Search>.<Image Search>"):
    return Turn(instruction, ToolCall(tool, params), rating)


@pytest.mark.parametrize(
    "history, expected",
    [
        # the same words (case and spacing aside): the earlier call's values, types kept
        ([_turn(_QUERY, {"q": "Word Cup", "start": "1", "gl": "br"})], {"q": "Word Cup", "start": "1", "gl": "br"}),
        ([_turn("images of  'word cup' in brazil, from the SECOND result", {"q": "Word Cup", "start": 1})], {"q": "Word Cup", "start": 1}),
        ([_turn(_QUERY + " please", {"q": "Word Cup"})], {}),  # other words: not this instruction
        ([_turn(_QUERY, {"q": "Word Cup", "num": 15})], {}),  # a parameter this tool lacks
        ([_turn(_QUERY, {})], {}),  # nothing to echo
        ([_turn(_QUERY, {"q": "Word Cup"}), _turn(_QUERY, {"q": "World Cup"}, 1)], {}),  # turns that disagree
        ([_turn(_QUERY, {"q": "Word Cup"}), _turn(_QUERY, {"q": "Word Cup"}, 1)], {"q": "Word Cup"}),  # or agree
        ([], {}),
    ],
)
def test_echoed_values_are_the_earlier_call_for_the_same_instruction(history, expected):
    echoed = echoed_values(_QUERY, history, _SEARCH)
    assert echoed == expected and all(type(echoed[k]) is type(v) for k, v in expected.items())
