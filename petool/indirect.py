"""Instructions worded away from the gold API's documentation, as a user who never read it asks.

Generated instructions are filled templates written from the APIs' names and descriptions, so
they share far more words with the gold's documentation than a real request does, and a fit
by word overlap finds the gold's cluster on them more easily than on real entries. ``word_away``
rewrites an instruction so that the words it shares with the gold API's name and description
are replaced by everyday synonyms or paraphrases from a hand-written table (``SYNONYMS``,
written from general English and general knowledge of what APIs do; never from benchmark
entries). What the instruction states stays stated: parameter values and the masked tool name
("...") are never touched, and words of the gold's parameter names are left as they are, so
the call stays derivable from the text.

The builder applies it to a share of the queries (``BuildConfig.p_indirect``) with a random
generator of its own per entry, so every other draw of the build stays as it was.

Example:
    >>> import random
    >>> word_away("I want to get the hourly forecast at 48.8566,2.3522.",
    ...           {"hourly", "forecast", "coordinate"}, ["48.8566,2.3522"], random.Random(0))
    'I want to get the per-hour prediction at 48.8566,2.3522.'
"""

from __future__ import annotations

import random
import re

from petool.catalog import API
from petool.query import words

# Everyday ways to say what API documentation says. Each key is a lower-case word; its
# alternatives are what someone who never read the docs might say instead. Plural and
# third-person forms of a key get the same alternatives, inflected (``_inflected``), unless
# listed themselves.
SYNONYMS: dict[str, tuple[str, ...]] = {
    # asking, looking, doing
    "search": ("look for", "hunt for", "dig up"),
    "find": ("track down", "dig up", "come up with"),
    "check": ("see", "make sure of", "confirm"),
    "browse": ("flip through", "look through", "skim"),
    "create": ("set up", "make", "open"),
    "make": ("put together", "produce"),
    "generate": ("come up with", "produce", "make up"),
    "convert": ("turn", "change", "switch"),
    "send": ("fire off", "dispatch", "get out"),
    "extract": ("pull out", "pick out", "take out"),
    "analyze": ("go over", "look into", "examine"),
    "analysis": ("breakdown", "rundown", "reading"),
    "describe": ("tell me about", "explain"),
    "detect": ("tell", "spot", "work out"),
    "identify": ("work out", "tell", "spot"),
    "validate": ("make sure of", "double-check", "confirm"),
    "verify": ("double-check", "confirm", "make sure of"),
    "calculate": ("work out", "figure out", "compute"),
    "estimate": ("rough figure", "ballpark", "guess"),
    "translate": ("put", "render", "turn"),
    "translated": ("put into another language", "rendered"),
    "transliterate": ("spell out", "rewrite"),
    "summarize": ("boil down", "sum up", "condense"),
    "summary": ("gist", "rundown", "short version"),
    "shorten": ("make shorter", "trim", "compress"),
    "resize": ("scale", "shrink", "make smaller"),
    "remove": ("take off", "get rid of", "strip"),
    "decode": ("make sense of", "read", "unpack"),
    "geocode": ("pin down", "place on a map", "locate"),
    "geolocate": ("pin down", "locate", "place"),
    "reverse": ("backwards", "the other way"),
    "scan": ("go over", "inspect", "sweep"),
    "read": ("go through", "open", "see"),
    "play": ("put on", "listen to"),
    "playing": ("showing", "on"),
    "run": ("kick off", "start", "launch"),
    "split": ("break up", "divide", "cut up"),
    "spell": ("write out", "letter"),
    "suggest": ("recommend", "propose", "offer"),
    "autocomplete": ("finish typing", "complete what I typed", "fill in"),
    "filter": ("narrow down", "sift", "pick out"),
    "filtered": ("narrowed down", "sifted"),
    "sort": ("arrange", "rank", "put in order"),
    "log": ("sign", "record"),
    "sign": ("log", "mark"),
    "enrich": ("flesh out", "fill out", "add detail to"),
    "match": ("game", "fixture", "meeting"),
    "matches": ("games", "meetings"),
    "track": ("follow", "keep tabs on", "trace"),
    "tracked": ("followed", "monitored"),
    "tracking": ("following", "tracing"),
    "book": ("reserve", "hold"),
    "order": ("purchase", "request", "buy"),
    "post": ("publish", "put up", "share"),
    "posting": ("listing", "advert", "ad"),
    "postings": ("listings", "adverts", "ads"),
    "posts": ("updates", "entries", "shares"),
    "open": ("available", "going", "not closed"),
    "saved": ("kept", "stored", "bookmarked"),
    "save": ("keep", "store"),
    "burned": ("used up", "spent", "lost"),
    "covered": ("handled", "included", "served"),
    "supported": ("handled", "possible", "accepted"),
    "available": ("on offer", "to pick from", "out there"),
    "known": ("recorded", "listed", "reported"),
    "related": ("similar", "linked", "connected"),
    "include": ("add", "throw in", "put in"),
    "has": ("holds", "got", "carries"),
    "works": ("writings", "output", "titles"),
    "makes": ("brands", "manufacturers", "marques"),
    "listing": ("advert", "ad", "offer"),
    # when and how much
    "current": ("right now", "present", "at the moment"),
    "now": ("at the moment", "currently", "this minute"),
    "today": ("this day", "right now", "so far this day"),
    "latest": ("newest", "freshest", "most recent"),
    "recent": ("newest", "last few", "fresh"),
    "new": ("fresh", "brand-new", "just out"),
    "upcoming": ("coming", "future", "scheduled"),
    "next": ("coming", "following"),
    "live": ("ongoing", "happening now", "in progress"),
    "daily": ("day-by-day", "per-day", "each day's"),
    "hourly": ("hour-by-hour", "per-hour", "each hour's"),
    "hour": ("60 minutes",),
    "historical": ("past", "earlier", "old"),
    "history": ("past", "record", "backlog"),
    "ahead": ("coming", "in advance", "forward"),
    "every": ("each", "any"),
    "fast": ("quick", "speedy", "rapid"),
    "random": ("any", "surprise", "arbitrary"),
    "top": ("best", "leading", "highest"),
    "biggest": ("largest", "heaviest", "strongest"),
    "popular": ("well-liked", "much-watched", "hit"),
    "trending": ("hot", "buzzing", "talked-about"),
    "trends": ("buzz", "what is hot", "fashions"),
    "movers": ("swings", "shifts", "jumps"),
    "gainers": ("risers", "climbers", "winners"),
    "losers": ("fallers", "droppers", "decliners"),
    "average": ("typical", "mean", "normal"),
    "free": ("no-cost", "gratis", "without paying"),
    "full": ("whole", "complete", "entire"),
    "short": ("brief", "small", "compact"),
    "public": ("open", "shared", "visible"),
    "remote": ("work-from-home", "distance", "off-site"),
    "active": ("ongoing", "in force", "running"),
    "advanced": ("detailed", "deeper", "fine-grained"),
    "near": ("close to", "around", "by"),
    "around": ("close to", "near", "about"),
    "between": ("from one to the other of", "linking"),
    "per": ("a", "for each"),
    "within": ("inside", "in"),
    # things
    "weather": ("sky", "outside conditions", "climate"),
    "forecast": ("outlook", "prediction", "what to expect"),
    "conditions": ("situation", "state", "how things are"),
    "air": ("atmosphere", "breathing"),
    "quality": ("cleanliness", "state", "grade"),
    "pollution": ("smog", "dirt in the air", "haze"),
    "alerts": ("warnings", "heads-ups", "notices"),
    "storm": ("gale", "tempest", "bad weather"),
    "severity": ("seriousness", "gravity", "strength"),
    "stations": ("posts", "outposts", "sites"),
    "map": ("chart", "plan"),
    "layers": ("overlays", "views", "levels"),
    "coordinates": ("position", "lat/long", "spot"),
    "address": ("street location", "postal location", "where"),
    "location": ("place", "spot", "whereabouts"),
    "locations": ("places", "spots", "sites"),
    "place": ("spot", "location", "site"),
    "areas": ("zones", "districts", "parts"),
    "regions": ("areas", "parts of the world", "territories"),
    "zone": ("area", "band", "region"),
    "zones": ("areas", "bands", "regions"),
    "distance": ("how far", "mileage", "gap"),
    "route": ("way", "path", "directions"),
    "directions": ("way", "how to get", "path"),
    "travel": ("journey", "trip", "getting around"),
    "origin": ("starting point", "source", "start"),
    "destination": ("end point", "target place", "where I am going"),
    "radius": ("range", "circle", "reach"),
    "country": ("nation", "land", "state"),
    "countries": ("nations", "lands", "states"),
    "national": ("country-wide", "nationwide", "state"),
    "price": ("cost", "going rate", "value"),
    "prices": ("costs", "going rates", "figures"),
    "rates": ("prices", "figures", "quotes"),
    "currency": ("money", "cash", "tender"),
    "currencies": ("moneys", "kinds of money", "tenders"),
    "exchange": ("swap", "conversion", "trading"),
    "exchanges": ("trading venues", "marketplaces", "platforms"),
    "market": ("going", "trading", "traded"),
    "marketplaces": ("shopping sites", "online shops", "markets"),
    "stock": ("share", "equity", "ticker"),
    "quote": ("price", "figure", "going rate"),
    "quotes": ("prices", "figures", "going rates"),
    "symbol": ("ticker", "code", "abbreviation"),
    "index": ("benchmark", "gauge", "measure"),
    "dividend": ("payout", "distribution"),
    "dividends": ("payouts", "distributions"),
    "yield": ("return", "output", "harvest"),
    "candles": ("bars", "price bars", "price action"),
    "cap": ("size", "worth", "valuation"),
    "volume": ("turnover", "amount traded", "activity"),
    "crypto": ("digital coin", "digital money", "token"),
    "cryptocurrency": ("digital coin", "digital money", "token"),
    "cryptocurrencies": ("digital coins", "digital moneys", "tokens"),
    "coin": ("token", "digital money", "asset"),
    "coins": ("tokens", "digital moneys", "assets"),
    "wallet": ("purse", "holdings", "stash"),
    "balance": ("what is left", "holdings", "funds"),
    "fees": ("charges", "costs", "tolls"),
    "gas": ("network charge", "fuel", "transaction cost"),
    "fear": ("nervousness", "panic", "worry"),
    "greed": ("appetite", "euphoria", "eagerness"),
    "metals": ("gold and silver", "bullion", "ores"),
    "commodities": ("raw materials", "goods", "staples"),
    "bank": ("lender", "branch", "institution"),
    "credit": ("score", "borrowing", "standing"),
    "cards": ("plastic", "bookings", "tickets"),
    "account": ("profile", "login", "registration"),
    "accounts": ("profiles", "logins", "registrations"),
    "budget": ("spend", "money", "allowance"),
    "invoice": ("bill", "charge", "statement"),
    "company": ("firm", "business", "outfit"),
    "agencies": ("bodies", "offices", "firms"),
    "agents": ("brokers", "dealers", "representatives"),
    "service": ("provider", "offering", "facility"),
    "services": ("providers", "offerings", "facilities"),
    "product": ("item", "article", "good"),
    "deals": ("bargains", "offers", "discounts"),
    "store": ("shop", "outlet", "seller"),
    "stores": ("shops", "outlets", "sellers"),
    "retail": ("shop", "consumer", "high-street"),
    "shipping": ("delivery", "postage", "sending"),
    "delivery": ("drop-off", "shipping", "arrival"),
    "parcel": ("package", "box", "shipment"),
    "package": ("bundle", "library", "module"),
    "carrier": ("courier", "provider", "operator"),
    "carriers": ("couriers", "providers", "operators"),
    "couriers": ("carriers", "delivery firms", "shippers"),
    "reviews": ("opinions", "ratings", "what people say"),
    "property": ("house", "home", "place"),
    "properties": ("houses", "homes", "places"),
    "real": ("house", "land"),
    "estate": ("property", "holdings", "land"),
    "housing": ("homes", "houses", "dwellings"),
    "home": ("house", "place", "residence"),
    "bedrooms": ("rooms to sleep in", "rooms"),
    "valuation": ("worth", "value", "appraisal"),
    "value": ("worth", "amount", "figure"),
    "hotel": ("place to stay", "inn", "lodging"),
    "hotels": ("places to stay", "inns", "lodgings"),
    "amenities": ("comforts", "extras", "perks"),
    "facility": ("site", "building", "venue"),
    "attractions": ("sights", "landmarks", "things to see"),
    "things": ("stuff", "items", "sights"),
    "flight": ("plane", "air trip", "hop"),
    "flights": ("planes", "air trips", "hops"),
    "nonstop": ("direct", "without a layover", "straight-through"),
    "airport": ("terminal", "airfield", "air hub"),
    "airlines": ("carriers", "operators", "airways"),
    "aircraft": ("plane", "jet", "airplane"),
    "departures": ("outbound trips", "leaving times", "takeoffs"),
    "board": ("screen", "timetable", "sign"),
    "transit": ("public transport", "buses and trains", "commuting"),
    "stop": ("halt", "platform", "pickup point"),
    "line": ("route", "service", "link"),
    "lines": ("routes", "services", "links"),
    "schedule": ("timetable", "calendar", "plan"),
    "disruptions": ("delays", "interruptions", "outages"),
    "vehicle": ("car", "motor", "automobile"),
    "car": ("automobile", "motor", "vehicle"),
    "plate": ("registration", "number plate", "tag"),
    "vin": ("chassis number", "frame number"),
    "fuel": ("petrol", "diesel", "gas"),
    "electricity": ("power", "current", "energy"),
    "grid": ("network", "power lines", "supply"),
    "intensity": ("strength", "level", "concentration"),
    "carbon": ("co2", "emissions", "greenhouse"),
    "co2": ("carbon", "emissions", "greenhouse"),
    "footprint": ("impact", "emissions", "toll"),
    "kwh": ("power used", "energy used"),
    "food": ("meals", "eating", "grub"),
    "meal": ("dinner", "dish", "lunch"),
    "recipe": ("dish", "way to cook", "how to make"),
    "recipes": ("dishes", "ways to cook", "things to cook"),
    "cuisine": ("cooking", "style of cooking", "kitchen"),
    "cuisines": ("cooking styles", "styles of cooking", "kitchens"),
    "ingredients": ("what goes in", "components", "contents"),
    "nutrition": ("diet", "goodness", "food values"),
    "nutrients": ("vitamins and minerals", "goodness", "food values"),
    "calories": ("energy", "kcal", "intake"),
    "fat": ("grease", "lipids"),
    "diet": ("eating plan", "way of eating", "regime"),
    "gluten": ("wheat protein",),
    "mexican": ("tex-mex", "latin"),
    "health": ("wellbeing", "fitness", "wellness"),
    "exercise": ("workout", "training", "movement"),
    "exercises": ("workouts", "moves", "drills"),
    "muscle": ("body part", "muscle group"),
    "groups": ("sets", "kinds", "bunches"),
    "equipment": ("gear", "kit", "tools"),
    "steps": ("walking", "paces", "strides"),
    "body": ("physique", "frame", "figure"),
    "weight": ("mass", "heaviness", "pounds"),
    "height": ("stature", "tallness", "size"),
    "bmi": ("body mass figure",),
    "strength": ("power", "lifting", "might"),
    "drug": ("medicine", "medication", "pill"),
    "recalls": ("withdrawals", "pullbacks", "safety warnings"),
    "symptom": ("complaint", "sign", "ailment"),
    "interactions": ("clashes", "conflicts", "mixing effects"),
    "icd": ("diagnosis", "medical code"),
    "music": ("tunes", "songs", "sound"),
    "song": ("tune", "track", "number"),
    "tracks": ("tunes", "songs", "numbers"),
    "artist": ("musician", "singer", "performer"),
    "album": ("record", "release", "LP"),
    "playlist": ("mix", "set list", "queue"),
    "lyrics": ("words", "text", "verses"),
    "biography": ("life story", "background", "bio"),
    "genre": ("style", "kind", "type"),
    "genres": ("styles", "kinds", "types"),
    "chart": ("hit list", "ranking", "countdown"),
    "releases": ("drops", "new titles", "launches"),
    "beatbox": ("vocal percussion",),
    "sounds": ("noises", "audio", "clips"),
    "streaming": ("online viewing", "watching online", "on-demand"),
    "movie": ("film", "picture", "flick"),
    "movies": ("films", "pictures", "flicks"),
    "cinemas": ("theaters", "picture houses", "screens"),
    "video": ("clip", "footage", "film"),
    "videos": ("clips", "footage", "films"),
    "subtitles": ("captions", "on-screen text", "subs"),
    "captions": ("subtitles", "on-screen text", "subs"),
    "image": ("picture", "photo", "shot"),
    "picture": ("image", "photo", "shot"),
    "img": ("picture", "photo"),
    "jpg": ("picture", "photo"),
    "background": ("backdrop", "surroundings", "setting"),
    "color": ("colour", "shade", "hue"),
    "palette": ("colour scheme", "set of shades", "swatches"),
    "width": ("breadth", "size across", "wideness"),
    "news": ("stories", "reports", "happenings"),
    "headlines": ("top stories", "front page", "big stories"),
    "article": ("story", "piece", "write-up"),
    "articles": ("stories", "pieces", "write-ups"),
    "stories": ("pieces", "reports", "write-ups"),
    "sources": ("outlets", "publishers", "papers"),
    "source": ("origin", "outlet", "publisher"),
    "topics": ("subjects", "themes", "matters"),
    "subject": ("topic", "theme", "matter"),
    "subjects": ("topics", "themes", "fields"),
    "sports": ("games", "athletics"),
    "league": ("competition", "division", "championship"),
    "leagues": ("competitions", "divisions", "championships"),
    "competitions": ("tournaments", "contests", "cups"),
    "team": ("side", "club", "squad"),
    "player": ("athlete", "sportsperson", "competitor"),
    "athlete": ("player", "sportsperson", "competitor"),
    "standings": ("table", "ranking", "ladder"),
    "table": ("ladder", "ranking", "grid"),
    "scores": ("results", "tallies", "points"),
    "goals": ("scoring", "strikes", "finishes"),
    "fixtures": ("games", "meetings", "match-ups"),
    "season": ("year", "campaign", "term"),
    "game": ("title", "match", "contest"),
    "games": ("titles", "matches", "contests"),
    "gaming": ("video games", "play", "games"),
    "giveaways": ("freebies", "handouts", "free offers"),
    "platform": ("system", "console", "device"),
    "platforms": ("systems", "consoles", "devices"),
    "trivia": ("quiz", "fun facts", "brain teasers"),
    "questions": ("puzzles", "quizzes", "teasers"),
    "joke": ("gag", "one-liner", "something funny"),
    "fact": ("tidbit", "nugget", "bit of knowledge"),
    "facts": ("tidbits", "nuggets", "bits of knowledge"),
    "horoscope": ("star reading", "astrology reading", "stars"),
    "fortune": ("luck", "destiny", "prophecy"),
    "cookie": ("biscuit", "message"),
    "personality": ("character", "temperament", "nature"),
    "traits": ("qualities", "features", "characteristics"),
    "event": ("happening", "occasion", "gathering"),
    "events": ("happenings", "occasions", "gatherings"),
    "holiday": ("day off", "festival", "vacation day"),
    "holidays": ("days off", "festivals", "vacation days"),
    "job": ("work", "position", "vacancy"),
    "jobs": ("positions", "roles", "vacancies"),
    "positions": ("roles", "vacancies", "openings"),
    "position": ("location", "whereabouts", "spot"),
    "salary": ("pay", "wage", "earnings"),
    "university": ("college", "school", "campus"),
    "course": ("class", "program", "module"),
    "courses": ("classes", "programs", "modules"),
    "classes": ("kinds", "types", "groups"),
    "rankings": ("league tables", "standings", "orderings"),
    "ranking": ("league table", "standing", "ordering"),
    "word": ("term", "expression"),
    "level": ("grade", "stage", "tier"),
    "science": ("research", "scholarship", "study"),
    "astronomy": ("stargazing", "space", "sky watching"),
    "planet": ("world", "heavenly body", "globe"),
    "iss": ("space station",),
    "earthquakes": ("quakes", "tremors", "seismic events"),
    "magnitude": ("strength", "size", "force"),
    "species": ("animal", "organism", "creature"),
    "taxonomy": ("classification", "family tree", "lineage"),
    "chemical": ("substance", "compound"),
    "element": ("substance", "atom", "building block"),
    "elements": ("substances", "atoms", "building blocks"),
    "soil": ("ground", "earth", "dirt"),
    "crop": ("harvest", "plant", "produce"),
    "production": ("output", "harvest", "yield"),
    "author": ("writer", "novelist", "creator"),
    "bestseller": ("hit", "top seller", "big seller"),
    "bestsellers": ("hits", "top sellers", "big sellers"),
    "isbn": ("book number",),
    "text": ("words", "writing", "wording"),
    "language": ("tongue", "speech", "idiom"),
    "languages": ("tongues", "idioms", "ways of speaking"),
    "latin": ("roman",),
    "script": ("alphabet", "writing system", "lettering"),
    "characters": ("letters", "symbols", "glyphs"),
    "glossaries": ("word lists", "vocabularies", "term lists"),
    "sentiment": ("mood", "tone", "feeling"),
    "entities": ("names", "people and places", "proper nouns"),
    "ner": ("name spotting",),
    "nlp": ("language software", "text software"),
    "profanity": ("swearing", "bad language", "rude words"),
    "spelling": ("typos", "writing mistakes", "misspellings"),
    "keywords": ("terms", "search terms", "phrases"),
    "keyword": ("term", "search term", "phrase"),
    "models": ("engines", "systems", "variants"),
    "model": ("engine", "system", "variant"),
    "templates": ("layouts", "patterns", "forms"),
    "email": ("mail", "note", "e-mail"),
    "mail": ("post", "note", "e-mail"),
    "message": ("note", "text", "line"),
    "sms": ("text message", "text", "mobile message"),
    "inbox": ("mailbox", "mail address", "letterbox"),
    "disposable": ("throwaway", "temporary", "burner"),
    "virtual": ("online", "cloud", "digital"),
    "phone": ("mobile", "cell", "handset"),
    "number": ("line", "figure", "digits"),
    "numbers": ("lines", "figures", "digits"),
    "contact": ("person", "acquaintance", "entry"),
    "chat": ("conversation", "talk", "thread"),
    "channel": ("room", "stream", "feed"),
    "channels": ("rooms", "streams", "feeds"),
    "social": ("online", "community", "networking"),
    "profile": ("page", "account", "bio"),
    "user": ("person", "member", "handle"),
    "username": ("handle", "screen name", "login"),
    "followers": ("fans", "audience", "following"),
    "mentions": ("shout-outs", "references", "tags"),
    "hashtag": ("tag", "topic label", "keyword"),
    "tags": ("labels", "markers", "keywords"),
    "tag": ("label", "marker", "keyword"),
    "timeline": ("feed", "stream", "wall"),
    "feed": ("stream", "list", "timeline"),
    "campaign": ("drive", "push", "promotion"),
    "performance": ("results", "showing", "returns"),
    "ideas": ("suggestions", "options", "thoughts"),
    "domain": ("web address", "site name", "site"),
    "domains": ("web addresses", "site names", "sites"),
    "url": ("link", "web address", "page"),
    "link": ("url", "web address", "page"),
    "web": ("online", "internet", "site"),
    "scraping": ("pulling content", "harvesting", "copying"),
    "whois": ("registration info", "ownership record"),
    "record": ("entry", "file", "log"),
    "certificate": ("credential", "padlock", "cert"),
    "ssl": ("https", "secure connection"),
    "tls": ("https", "secure connection"),
    "breach": ("leak", "hack", "compromise"),
    "breaches": ("leaks", "hacks", "compromises"),
    "threat": ("danger", "risk", "attack"),
    "intelligence": ("info", "insight", "reporting"),
    "password": ("passphrase", "secret", "login secret"),
    "hash": ("fingerprint", "checksum", "digest"),
    "file": ("document", "attachment", "upload"),
    "document": ("file", "paper", "attachment"),
    "pdf": ("document", "file"),
    "pages": ("sheets", "leaves"),
    "format": ("layout", "kind", "shape"),
    "formats": ("layouts", "kinds", "shapes"),
    "metadata": ("info", "background", "facts"),
    "info": ("details", "facts", "lowdown"),
    "details": ("particulars", "specifics", "lowdown"),
    "version": ("release", "edition", "build"),
    "repository": ("project", "codebase", "source tree"),
    "repositories": ("projects", "codebases", "source trees"),
    "repo": ("project", "codebase"),
    "repos": ("projects", "codebases"),
    "issues": ("bugs", "problems", "tickets"),
    "licenses": ("terms of use", "permissions", "rights"),
    "ruby": ("rails",),
    "sql": ("database query",),
    "configuration": ("setup", "settings", "arrangement"),
    "session": ("visit", "sitting", "connection"),
    "uuid": ("unique id", "random id"),
    "iban": ("bank account number",),
    "swift": ("bank routing code",),
    "bic": ("bank routing code",),
    "vat": ("sales tax", "tax number"),
    "code": ("identifier", "id", "key"),
    "codes": ("identifiers", "ids", "keys"),
    "status": ("state", "progress", "standing"),
    "statuses": ("states", "standings"),
    "statistics": ("numbers", "figures", "stats"),
    "stats": ("numbers", "figures", "tallies"),
    "results": ("hits", "findings", "outcomes"),
    "query": ("question", "search", "request"),
    "categories": ("kinds", "sections", "types"),
    "types": ("kinds", "sorts", "varieties"),
    "type": ("kind", "sort", "variety"),
    "label": ("tag", "name", "marker"),
    "title": ("name", "heading", "caption"),
    "usage": ("use", "consumption", "how much is used"),
    "quota": ("allowance", "cap", "allocation"),
    "coverage": ("reach", "scope", "range"),
    "date": ("day", "calendar day", "time"),
    "month": ("calendar month",),
    "year": ("calendar year", "twelve months"),
    "minutes": ("mins", "moments"),
    "time": ("clock", "hour", "moment"),
    "interval": ("step", "spacing", "granularity"),
    "duration": ("length", "how long", "span"),
    "amount": ("sum", "figure", "quantity"),
    "limit": ("cap", "ceiling", "maximum"),
    "page": ("screen", "sheet"),
    "end": ("finish", "close", "stop"),
    "base": ("starting", "home", "reference"),
    "target": ("goal", "aim", "wanted"),
    "parts": ("components", "pieces", "bits"),
    "edge": ("border", "rim", "boundary"),
    "out": ("off",),
    "where": ("in what place",),
    "when": ("at what time",),
    "whether": ("if",),
}


def doc_words(api: API) -> set[str]:
    """The words of ``api``'s name and description that an instruction should not echo: the
    fit's words (``petool.query.words``), less those of its parameter names, which state what
    the call takes and stay."""
    params = {w for p in api.params for w in words(p.name)}
    return set(words(f"{api.name} {api.description}")) - params


def stated_values(params: dict) -> list[str]:
    """The parameter values as an instruction states them (``True`` / ``False`` flags are
    implied by wording, not stated)."""
    out = []
    for v in params.values():
        if isinstance(v, bool):
            continue
        if isinstance(v, list):
            out += [str(x) for x in v]
            out.append(", ".join(str(x) for x in v))
        elif isinstance(v, dict):
            out += [str(x) for x in v.values()]
        else:
            out.append(str(v))
    return [s for s in out if s.strip()]


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_ARTICLE = re.compile(r"\b([Aa])(n?)(\s+)$")


def word_away(text: str, avoid: set[str], keep: list[str], rng: random.Random) -> str:
    """``text`` with each word in ``avoid`` (lower-case) replaced by one of its ``SYNONYMS``
    that is not in ``avoid`` itself; words without one stay. ``keep`` lists the literal spans
    never touched (parameter values, the mask). Deterministic given ``rng``'s state.
    """
    spans = _kept_spans(text, keep)
    out, last = [], 0
    for m in _WORD.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in spans):
            continue
        if text[m.start() - 1 : m.start()] == "-" or text[m.end() : m.end() + 1] == "-":
            continue  # part of a compound ("day-ahead"): replaced alone it reads wrong
        word = m.group()
        lower = word.lower()
        if lower not in avoid:
            continue
        choices = [c for c in alternatives(lower) if not set(words(c)) & avoid]
        if not choices:
            continue
        new = rng.choice(choices)
        if word[0].isupper() and not word.isupper():
            new = new[0].upper() + new[1:]
        before = text[last : m.start()]
        article = _ARTICLE.search(before)
        if article:  # "an image" -> "a picture", "a hotel" -> "an inn"
            an = "n" if new[0].lower() in "aeiou" else ""
            before = before[: article.start()] + article.group(1) + an + article.group(3)
        out += [before, new]
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def reword_for(api: API, text: str, params: dict, rng: random.Random, mask: str = "...") -> str:
    """``word_away`` for an instruction asking ``api`` with ``params``: the words of the API's
    name and description go, the values and the mask stay."""
    return word_away(text, doc_words(api), [*stated_values(params), mask], rng)


def alternatives(word: str) -> tuple[str, ...]:
    """The table's alternatives for ``word``, or for its singular (then inflected to match)."""
    if word in SYNONYMS:
        return SYNONYMS[word]
    for suffix, ending in (("ies", "y"), ("es", ""), ("s", "")):
        key = word[: len(word) - len(suffix)] + ending
        if word.endswith(suffix) and key in SYNONYMS:
            return tuple(p for p in map(_plural, SYNONYMS[key]) if p)
    return ()


_HEAD_BEFORE = {"to", "of", "for", "in", "on", "with", "by", "up", "out", "down", "off"}


def _plural(phrase: str) -> str | None:
    """The plural (or third person) of a phrase: of its one word, or of its first word where a
    particle or preposition follows ("place to stay" -> "places to stay", "look for" -> "looks
    for"); None where the head is unclear ("make sure of").

    Example:
        >>> _plural("inn"), _plural("place to stay"), _plural("city"), _plural("make sure of")
        ('inns', 'places to stay', 'cities', None)
    """
    parts = phrase.split(" ")
    if len(parts) > 1 and parts[1] not in _HEAD_BEFORE:
        return None
    w = parts[0]
    if w.endswith("y") and len(w) > 1 and w[-2] not in "aeiou":
        w = w[:-1] + "ies"
    elif w.endswith(("s", "x", "ch", "sh")):
        w += "es"
    else:
        w += "s"
    return " ".join([w, *parts[1:]])


def _kept_spans(text: str, keep: list[str]) -> list[tuple[int, int]]:
    spans = []
    for k in keep:
        if not k:
            continue
        start = text.find(k)
        while start >= 0:
            spans.append((start, start + len(k)))
            start = text.find(k, start + 1)
    return spans
