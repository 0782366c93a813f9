"""Candidate ranking: functional fit, history counts, likeness, and the no-oracle evidence rule."""

import math

import pytest

from petool.baselines import RuleBaseline
from petool.ranking import (
    OPENING_CALLS_MAX,
    ToolEvidence,
    cohesion,
    fit_scores,
    history_evidence,
    likeness,
    preference_score,
    rank_candidates,
    rank_keys,
    rank_log_prior,
    rank_tools,
    turned_away,
)
from petool.schema import Parameter, Tool, ToolCall, Turn
from tests.fixtures.entries import FLIGHT, NEWS, WEATHER_A, WEATHER_B, weather_entry


def test_fit_prefers_tools_that_share_rare_words_with_the_query():
    tools = [
        Tool("<A>.<X>.<forecast>", "Daily weather forecast for a city", [Parameter("city")]),
        Tool("<A>.<Y>.<weather>", "Weather forecast by place", [Parameter("place")]),
        Tool("<B>.<Z>.<news>", "Top news headlines", [Parameter("country")]),
    ]
    fit = fit_scores("weather forecast for the city of Rome", tools)
    assert fit["<A>.<X>.<forecast>"] == 1.0
    assert fit["<A>.<Y>.<weather>"] > 0.5 > fit["<B>.<Z>.<news>"]
    assert fit_scores("", tools) == {t.name: 0.0 for t in tools}


@pytest.mark.parametrize(
    "query, tools, best",
    [
        # each shares one query word: "inventory" in A's name, "status" in B's description
        (
            "the inventory status",
            [
                Tool("<Shop>.<Pets>.<getInventory>", "Returns a map of codes to quantities"),
                Tool("<Shop>.<Store>.<listItems>", "Items with their status"),
            ],
            "<Shop>.<Pets>.<getInventory>",
        ),
        # both share every query word, but only the first names "SRT"
        (
            "Get the subtitle in SRT format",
            [
                Tool("<Data>.<Subs>.<Get subtitle in SRT format>", "Returns the subtitle of a video"),
                Tool("<Data>.<Subs>.<Get subtitle in JSON format>", "Returns the subtitle as an SRT-like JSON object"),
            ],
            "<Data>.<Subs>.<Get subtitle in SRT format>",
        ),
    ],
)
def test_a_word_in_the_api_name_counts_more_than_one_in_its_description(query, tools, best):
    fit = fit_scores(query, tools)
    assert fit[best] == 1.0 and all(v < 1.0 for name, v in fit.items() if name != best)


def test_history_evidence_counts_uses_ratings_positions_and_the_leading_block():
    entry = weather_entry()
    r = history_evidence(entry.history("r"), entry.candidates)
    assert r[WEATHER_B] == ToolEvidence(uses=1, liked=0, disliked=1, first=2, last=2, in_leading_block=False)
    assert (r[WEATHER_A].uses, r[WEATHER_A].liked) == (1, 1)  # another API of SkyCast Pro, rated 1
    elsewhere = Turn("Convert 5 EUR", ToolCall("<Finance>.<FX>.<convert>", {"amount": 5}))
    c = history_evidence([entry.history("c")[0], elsewhere, *entry.history("p")], entry.candidates)
    assert c[WEATHER_B].in_leading_block and c[WEATHER_B].first == 1
    assert not c[WEATHER_A].in_leading_block and c[WEATHER_A].last == 4  # after a turn off the candidates
    assert history_evidence([], entry.candidates)[NEWS] == ToolEvidence()


def test_the_opening_calls_stop_after_the_most_the_benchmark_puts_first():
    entry = weather_entry()
    bad = Turn("Weather for Oslo", ToolCall(WEATHER_B, {"q": "Oslo"}))
    late = Turn("Forecast for Lyon", ToolCall(WEATHER_A, {"city": "Lyon"}))
    c = history_evidence([bad] * OPENING_CALLS_MAX + [late], entry.candidates)
    assert c[WEATHER_B].in_leading_block and not c[WEATHER_A].in_leading_block


@pytest.mark.parametrize(
    "setting, ev, away",
    [
        ("r", ToolEvidence(uses=2, liked=1, disliked=1), True),
        ("r", ToolEvidence(uses=2, liked=2), False),
        ("c", ToolEvidence(uses=1, in_leading_block=True), True),
        ("p", ToolEvidence(uses=1, in_leading_block=True), False),  # p has no negative evidence
        ("r", ToolEvidence(uses=1, in_leading_block=True), False),
    ],
)
def test_turned_away_table(setting, ev, away):
    assert turned_away(ev, setting) is away


def test_the_rejected_tools_equivalent_ranks_first_even_without_history():
    gold = Tool("<Ent>.<Fortune Cookie>.<healthcheck>", "The health check endpoint returns a status of 200 if the api is up")
    rejected = Tool("<Ent>.<Meowfacts>.<healthcheck>", "The health check endpoint returns a status of 200 if the api is up")
    other = Tool("<Data>.<Gis Engine>.<Health Check>", "Provide a way to test connectivity to the service")
    liked = Tool("<Sports>.<WNBA>.<standings>", "Team standings and health of the league")
    history = [
        Turn("Check the health of Meowfacts", ToolCall(rejected.name), 0),
        Turn("WNBA standings", ToolCall(liked.name), 1),
        Turn("WNBA standings again", ToolCall(liked.name), 1),
    ]
    ranked = [
        t.name for t, _, _ in rank_tools("I want to check the health status of ... API.", history, [liked, other, rejected, gold], "r")
    ]
    assert ranked[0] == gold.name and ranked[-1] == rejected.name
    chronological = [Turn(t.instruction, t.call) for t in history]
    assert [
        t.name
        for t, _, _ in rank_tools("I want to check the health status of ... API.", chronological, [liked, other, rejected, gold], "c")
    ][0] == gold.name
    assert likeness(gold, rejected) > likeness(gold, other)


def _params(*names: str) -> list[Parameter]:
    return [Parameter(n, "STRING") for n in names]


INVENTORY_COPIES = [
    Tool(f"<Advertising>.<{tool}>.<getInventory>", "Returns a map of status codes to quantities")
    for tool in ("petstore blitz", "PetstoreRateLimit", "PrivatePublicAPI", "ThisisaPublicAPI_v2", "PublicAPITestingInbox")
]
ALL_PRODUCTS = Tool(
    "<eCommerce>.<EcartAPI>.<Getallproducts>",
    "Request used to obtain all the products in a store catalog.",
    [],
    _params("searchType", "status[active]", "sinceId"),
)
OTHER_STOCK = [
    Tool(
        "<Gaming>.<FortniteCosmetics>.<searchInventory>",
        "Search for available inventory in the system",
        [],
        _params("skip", "limit", "searchString"),
    ),
    Tool("<eCommerce>.<Appibase>.<getStockItems>", "Get all stock items", _params("stock_location_id")),
]


def test_cohesion_is_likeness_to_another_tools_candidate():
    copy = INVENTORY_COPIES[0]
    assert cohesion(copy, INVENTORY_COPIES + [ALL_PRODUCTS]) == 1.0  # a copy under another tool
    # the same tool's other API is no functional equivalent: the benchmark's clusters span tools
    sibling = Tool("<Advertising>.<petstore blitz>.<getInventory2>", "Returns a map of status codes to quantities")
    assert cohesion(copy, [copy, sibling, ALL_PRODUCTS]) == likeness(copy, ALL_PRODUCTS) < 0.2
    assert cohesion(copy, [copy]) == 0.0  # alone on the list


def test_without_history_a_group_of_alike_candidates_outranks_a_lone_better_fitting_one():
    # real p entry 26026: nothing in the history names a candidate; "Getallproducts" fits the
    # words best, but the cluster is the group of "getInventory" copies
    query = "I want to get the inventory status for all the products."
    candidates = [ALL_PRODUCTS, *INVENTORY_COPIES, *OTHER_STOCK]
    fit = fit_scores(query, candidates)
    assert fit[ALL_PRODUCTS.name] > fit[INVENTORY_COPIES[0].name] >= 0.5
    assert [t for t, _, _ in rank_tools(query, [], candidates, "p")][:6] == [*INVENTORY_COPIES, ALL_PRODUCTS]
    # what the user did still comes first: preference outranks likeness
    history = [Turn("List the store's products", ToolCall(ALL_PRODUCTS.name))]
    assert rank_tools(query, history, candidates, "p")[0][0] == ALL_PRODUCTS


@pytest.mark.parametrize(
    "query, rejected, copy, unrelated",
    [
        # the same API name, other parameters and no description
        (
            "Keyword suggestions to autocomplete the search query 'elon musk'.",
            Tool("<Data>.<Brewery DB>.<Autocomplete>", "", _params("brewery_name")),
            Tool("<Data>.<Chirp Pack>.<autocomplete>", "", _params("query", "count", "lang_code", "cursor_token")),
            Tool("<Data>.<Web Search 2>.<Suggest>", "Keyword suggestions as the user types", _params("keyword")),
        ),
        # the same description, another name and other parameters
        (
            "Item details for the product detail page of 2000383198.",
            Tool("<Shop>.<Asos>.<products/v3/detail>", "Get detail information of product by id", _params("brewery_name")),
            Tool(
                "<Shop>.<Threads21>.<products/v2/detail>",
                "Get detail information of product by id",
                _params("product_id", "country_code", "currency_code", "size_system"),
            ),
            Tool("<Shop>.<Otto Data>.<Item Details>", "Query item details", _params("item_id")),
        ),
    ],
)
def test_a_copy_of_the_rejected_api_ranks_first_though_another_fits_the_query_better(query, rejected, copy, unrelated):
    candidates = [unrelated, copy, rejected]
    fit = fit_scores(query, candidates)
    assert fit[unrelated.name] > fit[copy.name]  # what the query says alone points elsewhere
    assert likeness(copy, rejected) >= 0.5 > likeness(unrelated, rejected)
    history = [Turn("Use the rejected API", ToolCall(rejected.name), 0)]
    assert [t.name for t, _, _ in rank_tools(query, history, candidates, "r")] == [copy.name, unrelated.name, rejected.name]


@pytest.mark.parametrize(
    "setting, ev, score",
    [
        ("r", ToolEvidence(uses=3, liked=2, disliked=1), 0.0),
        ("c", ToolEvidence(uses=2, in_leading_block=True), -1.0),
        ("c", ToolEvidence(uses=2), 1.0),
        ("p", ToolEvidence(uses=4), 4.0),
    ],
)
def test_preference_score_table(setting, ev, score):
    assert preference_score(ev, setting) == score


@pytest.mark.parametrize("setting", ["p", "r", "c"])
def test_evidence_rule_finds_the_preferred_tool_without_the_cluster_oracle(setting):
    entry = weather_entry()
    entry.cluster = []  # no oracle
    ranked = rank_candidates(entry, setting)
    assert ranked[0][0].name == WEATHER_A
    assert RuleBaseline("evidence").choose(entry, setting).name == WEATHER_A
    assert {t.name for t, _, _ in ranked} == {WEATHER_A, WEATHER_B, NEWS, FLIGHT}


def test_copies_of_one_api_tie_in_the_ranking_and_share_its_prior():
    """One API copied under two tools the history says nothing of: their ranking keys are equal,
    and the prior gives both the mean of their ranks' shares, so the model's likelihood decides."""
    web, spotify = (
        Tool(f"<Music>.<{name}>.<Search>", "Search", [Parameter("q", "STRING", "Search query")]) for name in ("Spotify Web", "Spotify")
    )
    rejected = Tool("<Music>.<Spotify_v3>.<Search>", "Search", [Parameter("q", "STRING", "Search query")])
    other = Tool("<Music>.<Shazam>.<search>", "Search for songs by a term", [Parameter("term")])
    history = [Turn("Search Spotify for 'x'", ToolCall(rejected.name, {"q": "x"}), 0)]
    candidates = [web, spotify, other, rejected]
    keys = rank_keys("Search for rock albums", history, candidates, "r")
    assert keys[web.name] == keys[spotify.name] != keys[other.name]
    ranked = [t.name for t, _, _ in rank_tools("Search for rock albums", history, candidates, "r")]
    assert ranked[:2] == [web.name, spotify.name] and ranked[-1] == rejected.name  # the entry's order breaks the tie
    tied = [k > 0 and keys[n] == keys[ranked[k - 1]] for k, n in enumerate(ranked)]
    assert tied == [False, True, False, False]
    shared, plain = rank_log_prior("r", 4, tied), rank_log_prior("r", 4)
    assert shared[0] == shared[1] and plain[0] > shared[0] > plain[1]
    assert shared[2:] == plain[2:]  # untied ranks keep their prior
    assert sum(math.exp(x) for x in shared) == pytest.approx(1.0)
    assert (
        rank_log_prior("r", 4, [False] * 4) == plain
        and rank_log_prior("r", 4, [False, True, True, True]) == [pytest.approx(math.log(0.25))] * 4
    )


def test_the_ranking_benchmark_counts_first_places_and_shortlisted_ground_truths(monkeypatch):
    import dataclasses

    import benchmarks.ranking as ranking

    entry = weather_entry()
    # the same entry asking for OpenMeteo: second in p (fits, unused), last in r (rated 0)
    other = dataclasses.replace(entry, ground_truth=ToolCall(WEATHER_B, {"q": "Rome"}))
    monkeypatch.setattr(ranking, "SHORTLIST_SIZE", 2)
    assert ranking.gold_rank_shares([entry, other], "pr") == {"p": (50.0, 100.0), "r": (50.0, 50.0)}
