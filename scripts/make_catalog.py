"""Generate petool's shipped tool catalog, assets/catalog.json, from the hand-written specs below.

Run: ``python scripts/make_catalog.py [--out assets/catalog.json]``. The output is deterministic
(no clock, no global random state): the same source gives byte-identical JSON.

The specs are written by this project (no RapidAPI/ToolBench entries are copied). Each category
lists its tools (providers) with an *archetype* that fixes their non-functional attributes
(price, quota, latency, rating, freshness, coverage, privacy, docs) up to a small deterministic
jitter, and its functional clusters. A cluster names the tools that offer it, one API name per
tool (path-like on some), the parameters as slots (``place!`` = required, ``days`` = optional)
and instruction templates in which ``{slot}`` marks a parameter value and ``{tool}`` the
provider's name (masked as "..." in benchmark queries). Each tool calls a slot by its own
parameter name (``city`` vs ``q`` vs ``location``), picked from the slot's name list by the
tool's position in the cluster, so equivalent APIs differ the way real ones do.

On top of the specs, ``build`` shapes the catalog after the real PEToolBench data (all draws are
hashes of names, so still deterministic): clusters keep two of their listed tools (~80%), three
(~15%) or up to six (``_size``, ``_keep``); ``MORE_CLUSTERS`` adds the parameter-free endpoints
(health checks, list-all, config, random item) behind ~40% of real ground truths; most
templates read "I want to ..." and some clusters gain a template stating one more optional value
(``_templates``); descriptions are mostly short with a long tail, and some tools carry many
undocumented-in-queries optional parameters (``_describe``, ``_pdesc``, ``_extras``); types lean
to STRING/NUMBER with ENUM rare (``_ptype``); NUMBER values are sometimes numeric strings.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from petool.catalog import render_template  # noqa: E402
from petool.catalog_validation import validate_catalog  # noqa: E402

FORMAT = "petool-catalog/1"

# slot -> (ToolBench type, parameter names used by different providers, description, value pool)
# NUMBER pools are (low, high) integer ranges; DATE pools are (first year, last year).
SLOTS: dict[str, tuple] = {
    # places and geography
    "place": (
        "STRING",
        ["city", "q", "location", "city_name", "place"],
        "City name, e.g. Paris",
        ["Paris", "Lagos", "Osaka", "Toronto", "Lima", "Berlin", "Nairobi", "Melbourne", "Seattle", "Bogota", "Hanoi", "Porto"],
    ),
    "country": (
        "STRING",
        ["country", "country_code", "cc", "region"],
        "ISO 3166 alpha-2 country code",
        ["US", "GB", "DE", "FR", "JP", "BR", "IN", "NG", "CA", "AU", "MX", "KE"],
    ),
    "geo": (
        "GEOPOINT",
        ["latlng", "coordinates", "point", "ll"],
        "Latitude and longitude separated by a comma",
        [
            "48.8566,2.3522",
            "6.5244,3.3792",
            "34.6937,135.5023",
            "43.6532,-79.3832",
            "-12.0464,-77.0428",
            "52.5200,13.4050",
            "-1.2921,36.8219",
        ],
    ),
    "address": (
        "STRING",
        ["address", "query", "addr", "text"],
        "Free-form postal address",
        [
            "10 Downing Street, London",
            "1600 Amphitheatre Pkwy, Mountain View",
            "5 Avenue Anatole France, Paris",
            "221B Baker Street, London",
            "350 Fifth Avenue, New York",
        ],
    ),
    "radius": ("NUMBER", ["radius", "radius_m", "distance", "within"], "Search radius in meters", (200, 5000)),
    "postcode": (
        "STRING",
        ["postcode", "zip", "postal_code", "zipcode"],
        "Postal code",
        ["10001", "94105", "SW1A 1AA", "75008", "10115", "2000"],
    ),
    "origin": (
        "STRING",
        ["from", "origin", "start", "src"],
        "Starting point (city or address)",
        ["Lyon", "Boston", "Kyoto", "Accra", "Denver", "Munich"],
    ),
    "destination": (
        "STRING",
        ["to", "destination", "end", "dst"],
        "End point (city or address)",
        ["Geneva", "Chicago", "Nara", "Kumasi", "Aspen", "Salzburg"],
    ),
    "travel_mode": (
        "ENUM",
        ["mode", "profile", "travel_mode", "transport"],
        "One of: driving, walking, cycling, transit",
        ["driving", "walking", "cycling", "transit"],
    ),
    "ip": (
        "STRING",
        ["ip", "ip_address", "addr", "host"],
        "IPv4 or IPv6 address",
        ["8.8.8.8", "1.1.1.1", "203.0.113.7", "2001:4860:4860::8888", "91.198.174.192"],
    ),
    "timezone": (
        "STRING",
        ["tz", "timezone", "zone", "tzid"],
        "IANA time zone name",
        ["Europe/Paris", "America/New_York", "Asia/Tokyo", "Africa/Lagos", "Australia/Sydney"],
    ),
    "airport": (
        "STRING",
        ["airport", "iata", "airport_code", "code"],
        "IATA airport code",
        ["CDG", "JFK", "HND", "LOS", "SYD", "LHR", "GRU", "NBO"],
    ),
    "airport2": (
        "STRING",
        ["arrival", "to_iata", "destination_airport", "arr"],
        "IATA code of the arrival airport",
        ["LAX", "FRA", "SIN", "DXB", "MEX", "AMS"],
    ),
    "flight_no": (
        "STRING",
        ["flight", "flight_number", "ident", "flightNo"],
        "Flight number",
        ["AF1234", "BA283", "NH7", "LH400", "QF1", "KQ101"],
    ),
    "date": ("DATE (YYYY-MM-DD)", ["date", "day", "on", "start_date"], "Date as YYYY-MM-DD", (2023, 2025)),
    "date_end": ("DATE (YYYY-MM-DD)", ["end_date", "to_date", "until", "checkout"], "End date as YYYY-MM-DD", (2025, 2026)),
    "days": ("NUMBER", ["days", "cnt", "forecast_days", "num_days"], "Number of days", (1, 14)),
    "hours": ("NUMBER", ["hours", "hrs", "horizon", "n_hours"], "Number of hours", (1, 48)),
    "units": ("ENUM", ["units", "unit_system", "unit", "u"], "One of: metric, imperial", ["metric", "imperial"]),
    "severity": (
        "ENUM",
        ["severity", "level", "min_severity"],
        "Minimum alert severity: minor, moderate, severe, extreme",
        ["minor", "moderate", "severe", "extreme"],
    ),
    "adults": ("NUMBER", ["adults", "guests", "pax", "travellers"], "Number of adult guests", (1, 6)),
    "language": ("STRING", ["lang", "language", "locale", "hl"], "Language code", ["en", "fr", "de", "es", "ja", "pt", "sw", "it"]),
    "target_lang": (
        "STRING",
        ["target", "to", "target_lang", "tl"],
        "Target language code",
        ["fr", "de", "es", "ja", "pt", "sw", "ko", "ar"],
    ),
    "currency": (
        "STRING",
        ["currency", "curr", "ccy", "currency_code"],
        "ISO 4217 currency code",
        ["USD", "EUR", "JPY", "GBP", "NGN", "BRL", "INR", "CHF"],
    ),
    "currency2": (
        "STRING",
        ["to", "target_currency", "quote", "symbols"],
        "ISO 4217 code to convert into",
        ["EUR", "USD", "KES", "CAD", "AUD", "MXN"],
    ),
    "amount": ("NUMBER", ["amount", "value", "qty", "sum"], "Amount to convert", (5, 5000)),
    "limit": ("NUMBER", ["limit", "count", "size", "per_page", "max_results"], "Maximum number of results", (3, 50)),
    "page": ("NUMBER", ["page", "offset", "p", "pageIndex"], "Page of results", (1, 10)),
    "sort": (
        "ENUM",
        ["sort", "sort_by", "order_by", "orderBy"],
        "Sort order: relevance, newest, popular",
        ["relevance", "newest", "popular"],
    ),
    "query": (
        "STRING",
        ["q", "query", "keyword", "search", "term"],
        "Search terms",
        ["solar panels", "vegan recipes", "electric bikes", "noise cancelling headphones", "remote work", "coral reefs", "retro games"],
    ),
    "bool_safe": ("BOOLEAN", ["safe_search", "safe", "family_filter", "sfw"], "Filter out explicit results", None),
    "bool_detail": ("BOOLEAN", ["details", "verbose", "full", "include_details"], "Return the full record instead of a summary", None),
    # finance
    "symbol": (
        "STRING",
        ["symbol", "ticker", "s", "stock"],
        "Stock ticker symbol",
        ["AAPL", "MSFT", "TSLA", "NVDA", "SAP", "TM", "SHOP", "BABA"],
    ),
    "symbols": (
        "ARRAY",
        ["symbols", "tickers", "list", "instruments"],
        "List of ticker symbols",
        ["AAPL", "MSFT", "TSLA", "NVDA", "AMZN", "GOOGL", "META"],
    ),
    "interval": (
        "ENUM",
        ["interval", "resolution", "timeframe", "granularity"],
        "Candle interval: 1min, 5min, 1h, 1day",
        ["1min", "5min", "1h", "1day"],
    ),
    "coin": (
        "STRING",
        ["coin", "id", "asset", "slug"],
        "Cryptocurrency identifier",
        ["bitcoin", "ethereum", "solana", "cardano", "dogecoin", "polkadot"],
    ),
    "wallet": (
        "STRING",
        ["address", "wallet", "account", "addr"],
        "Blockchain wallet address",
        [
            "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
            "0x8ba1f109551bD432803012645Ac136ddd64DBA72",
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
        ],
    ),
    "chain": (
        "ENUM",
        ["chain", "network", "blockchain"],
        "Blockchain network: ethereum, polygon, bsc, bitcoin",
        ["ethereum", "polygon", "bsc", "bitcoin"],
    ),
    "iban": (
        "STRING",
        ["iban", "account_number", "number"],
        "International bank account number",
        ["DE89370400440532013000", "GB29NWBK60161331926819", "FR1420041010050500013M02606"],
    ),
    "vat": (
        "STRING",
        ["vat_number", "vat", "vatid", "tax_id"],
        "EU VAT identification number",
        ["DE129273398", "FR40303265045", "IE6388047V", "NL004495445B01"],
    ),
    "company": (
        "STRING",
        ["company", "name", "company_name", "org"],
        "Company name",
        ["Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Industries", "Wayne Enterprises"],
    ),
    "domain": (
        "STRING",
        ["domain", "website", "host", "site"],
        "Domain name",
        ["example.com", "openai.com", "wikipedia.org", "github.com", "bbc.co.uk", "shopify.com"],
    ),
    # people, accounts, messages
    "email": (
        "STRING",
        ["email", "address", "mail", "email_address"],
        "Email address",
        ["jane.doe@example.com", "support@acme.io", "k.tanaka@example.jp", "ops@globex.net", "ada@lovelace.dev"],
    ),
    "phone": (
        "STRING",
        ["phone", "number", "msisdn", "phone_number", "to"],
        "Phone number in E.164 format",
        ["+14155550123", "+447700900123", "+2348012345678", "+81312345678", "+33612345678"],
    ),
    "message": (
        "STRING",
        ["text", "message", "body", "content"],
        "Message text",
        ["Your order has shipped", "Meeting moved to 3pm", "Your code is 482913", "Happy birthday!", "Server CPU above 90%"],
    ),
    "subject": (
        "STRING",
        ["subject", "title", "topic"],
        "Message subject",
        ["Weekly report", "Invoice #4821", "Welcome aboard", "Password reset", "Quarterly update"],
    ),
    "username": (
        "STRING",
        ["username", "user", "handle", "screen_name", "user_id"],
        "Account handle",
        ["natgeo", "nasa", "bbcnews", "spacex", "lonelyplanet", "elonmusk", "taylorswift13"],
    ),
    "hashtag": (
        "STRING",
        ["hashtag", "tag", "keyword", "challenge"],
        "Hashtag without the #",
        ["travel", "foodie", "climate", "worldcup", "ai", "booktok"],
    ),
    "post_id": (
        "STRING",
        ["post_id", "id", "media_id", "tweet_id"],
        "Post identifier",
        ["1712345678901234567", "C3xYz12AbCd", "7301234567890123", "p_88213"],
    ),
    "url": (
        "STRING",
        ["url", "link", "target", "long_url"],
        "A full URL",
        [
            "https://example.com/blog/2024/launch",
            "https://en.wikipedia.org/wiki/Coral_reef",
            "https://github.com/torvalds/linux",
            "https://www.bbc.co.uk/news",
        ],
    ),
    # media and entertainment
    "artist": (
        "STRING",
        ["artist", "artist_name", "q", "name"],
        "Artist name",
        ["Burna Boy", "Radiohead", "Billie Eilish", "Ryuichi Sakamoto", "Rosalia", "Daft Punk"],
    ),
    "song": (
        "STRING",
        ["track", "song", "title", "song_title"],
        "Song title",
        ["Last Last", "Karma Police", "Bad Guy", "Merry Christmas Mr. Lawrence", "Malamente", "One More Time"],
    ),
    "playlist": (
        "STRING",
        ["playlist_id", "id", "playlist", "pid"],
        "Playlist identifier",
        ["37i9dQZF1DX4Wsb4d7NKfP", "PL9tY0BWXOZFu8MzzbNVtr", "pl_7731", "RDCLAK5uy_k"],
    ),
    "movie": (
        "STRING",
        ["title", "movie", "q", "name"],
        "Movie title",
        ["Spirited Away", "Parasite", "Inception", "Black Panther", "Amelie", "Dune"],
    ),
    "movie_id": (
        "STRING",
        ["imdb_id", "id", "tconst", "movie_id"],
        "IMDb identifier",
        ["tt0245429", "tt6751668", "tt1375666", "tt1825683", "tt0211915"],
    ),
    "year": ("NUMBER", ["year", "y", "release_year", "season"], "Year", (1990, 2024)),
    "genre": (
        "ENUM",
        ["genre", "category", "genre_id"],
        "Genre: action, comedy, drama, horror, sci-fi, documentary",
        ["action", "comedy", "drama", "horror", "sci-fi", "documentary"],
    ),
    "book": (
        "STRING",
        ["title", "q", "book", "name"],
        "Book title",
        ["Things Fall Apart", "Dune", "Norwegian Wood", "The Hobbit", "Beloved", "Sapiens"],
    ),
    "isbn": (
        "STRING",
        ["isbn", "isbn13", "id"],
        "ISBN-13",
        ["9780385474542", "9780441172719", "9780375704024", "9780547928227", "9780062316097"],
    ),
    "author": (
        "STRING",
        ["author", "writer", "author_name"],
        "Author name",
        ["Chinua Achebe", "Toni Morrison", "Haruki Murakami", "Ursula K. Le Guin", "Yuval Noah Harari"],
    ),
    "game": (
        "STRING",
        ["game", "title", "appid", "game_name"],
        "Video game title",
        ["Elden Ring", "Hades", "Stardew Valley", "Celeste", "Factorio", "Minecraft"],
    ),
    "platform": ("ENUM", ["platform", "store", "os"], "Platform: pc, playstation, xbox, switch", ["pc", "playstation", "xbox", "switch"]),
    "player_tag": (
        "STRING",
        ["player", "tag", "gamertag", "player_id"],
        "Player tag or id",
        ["#2PP0JCCL", "Ninja", "shroud", "#9QV8UQ2", "faker"],
    ),
    # sports
    "team": (
        "STRING",
        ["team", "team_name", "club", "team_id"],
        "Team name",
        ["Arsenal", "Boca Juniors", "Golden State Warriors", "Kaizer Chiefs", "Bayern Munich", "Yomiuri Giants"],
    ),
    "league": (
        "STRING",
        ["league", "competition", "league_id", "tournament"],
        "League or competition",
        ["Premier League", "NBA", "La Liga", "Serie A", "Bundesliga", "J1 League"],
    ),
    "season": ("NUMBER", ["season", "year", "season_year"], "Season start year", (2015, 2024)),
    "match_id": ("STRING", ["match_id", "event_id", "id", "fixture"], "Match identifier", ["m_88102", "1043417", "ev-2291", "fx9921"]),
    "athlete": (
        "STRING",
        ["player", "athlete", "name", "player_name"],
        "Athlete name",
        ["Lionel Messi", "Stephen Curry", "Serena Williams", "Eliud Kipchoge", "Shohei Ohtani"],
    ),
    # commerce
    "product_id": (
        "STRING",
        ["product_id", "asin", "sku", "item_id", "goods_id"],
        "Product identifier",
        ["B08N5WRWNW", "SKU-44721", "10196865", "p-7734-xl", "B0C1H26C46"],
    ),
    "order_id": (
        "STRING",
        ["order_id", "id", "order", "orderNumber"],
        "Order identifier",
        ["ORD-10042", "118-3324411-221", "A99812", "ord_5521"],
    ),
    "price_max": ("NUMBER", ["max_price", "price_max", "priceTo", "maxPrice"], "Maximum price", (10, 900)),
    "price_min": ("NUMBER", ["min_price", "price_min", "priceFrom", "minPrice"], "Minimum price", (1, 50)),
    "tracking": (
        "STRING",
        ["tracking_number", "tracking", "awb", "parcel_id"],
        "Parcel tracking number",
        ["1Z999AA10123456784", "9400111899223818220941", "LX123456789DE", "JD014600006281234567"],
    ),
    "carrier": ("ENUM", ["carrier", "courier", "carrier_code"], "Carrier: ups, fedex, dhl, usps", ["ups", "fedex", "dhl", "usps"]),
    "weight": ("NUMBER", ["weight", "weight_kg", "kg", "mass"], "Parcel weight in kg", (1, 30)),
    "filters": (
        "OBJECT",
        ["filters", "filter", "where", "criteria"],
        "Extra filters as a JSON object",
        [{"color": "black"}, {"brand": "Sony"}, {"in_stock": True}, {"rating_gte": 4}, {"size": "M"}],
    ),
    # knowledge, text, data
    "text": (
        "STRING",
        ["text", "q", "content", "input", "source"],
        "Input text",
        [
            "The weather is lovely today",
            "Where is the train station?",
            "I loved this product, it works great",
            "Please send the invoice by Friday",
            "This update broke everything",
        ],
    ),
    "word": (
        "STRING",
        ["word", "term", "entry", "headword"],
        "A single word",
        ["serendipity", "ubuntu", "saudade", "hygge", "ephemeral", "resilience"],
    ),
    "topic": (
        "STRING",
        ["topic", "q", "subject", "category"],
        "Topic",
        ["renewable energy", "space exploration", "public health", "machine learning", "urban farming", "cybersecurity"],
    ),
    "news_cat": (
        "ENUM",
        ["category", "section", "topic"],
        "Section: business, technology, sports, science, health",
        ["business", "technology", "sports", "science", "health"],
    ),
    "image_url": (
        "STRING",
        ["image_url", "url", "img", "image"],
        "Public URL of an image",
        [
            "https://example.com/img/cat.jpg",
            "https://example.com/photos/receipt.png",
            "https://example.com/shop/shoe.webp",
            "https://example.com/id/scan.jpg",
        ],
    ),
    "width": ("NUMBER", ["width", "w", "size", "px"], "Width in pixels", (64, 1920)),
    "img_format": ("ENUM", ["format", "output", "fmt", "type"], "Output format: png, jpg, webp, svg", ["png", "jpg", "webp", "svg"]),
    "video_id": (
        "STRING",
        ["video_id", "id", "v", "vid"],
        "Video identifier",
        ["dQw4w9WgXcQ", "9bZkp7q19f0", "7301234567890", "kJQP7kiw5Fk"],
    ),
    "job_title": (
        "STRING",
        ["title", "query", "role", "keywords"],
        "Job title or keywords",
        ["data engineer", "nurse", "product designer", "welder", "backend developer", "teacher"],
    ),
    "salary_min": ("NUMBER", ["salary_min", "min_salary", "salaryFrom"], "Minimum yearly salary", (20000, 150000)),
    "remote": ("BOOLEAN", ["remote", "remote_only", "is_remote", "wfh"], "Only remote jobs", None),
    "bedrooms": ("NUMBER", ["bedrooms", "beds", "rooms", "min_bedrooms"], "Number of bedrooms", (1, 5)),
    "listing_type": ("ENUM", ["purpose", "type", "listing_type", "status"], "Listing type: for-sale, for-rent", ["for-sale", "for-rent"]),
    "property_id": (
        "STRING",
        ["property_id", "id", "listing_id", "zpid"],
        "Property identifier",
        ["2077284", "zp-99121", "L-55821", "882910331"],
    ),
    "food": (
        "STRING",
        ["food", "query", "ingredient", "item"],
        "Food or ingredient",
        ["banana", "brown rice", "chickpeas", "salmon", "oat milk", "avocado"],
    ),
    "cuisine": (
        "ENUM",
        ["cuisine", "cuisine_type", "style"],
        "Cuisine: italian, japanese, mexican, indian, nigerian, french",
        ["italian", "japanese", "mexican", "indian", "nigerian", "french"],
    ),
    "diet": (
        "ENUM",
        ["diet", "dietary", "restriction"],
        "Diet: vegan, vegetarian, keto, gluten-free",
        ["vegan", "vegetarian", "keto", "gluten-free"],
    ),
    "recipe_id": ("STRING", ["recipe_id", "id", "rid"], "Recipe identifier", ["716429", "r-1182", "jollof-rice-22", "52772"]),
    "calories": ("NUMBER", ["max_calories", "calories", "kcal_max"], "Maximum calories per serving", (150, 900)),
    "exercise": (
        "STRING",
        ["exercise", "activity", "name"],
        "Exercise or activity",
        ["running", "swimming", "cycling", "yoga", "rowing", "hiking"],
    ),
    "duration_min": ("NUMBER", ["duration", "minutes", "duration_min", "mins"], "Duration in minutes", (10, 120)),
    "body_weight": ("NUMBER", ["weight", "weight_kg", "body_weight"], "Body weight in kg", (45, 120)),
    "height_cm": ("NUMBER", ["height", "height_cm", "stature"], "Height in cm", (150, 200)),
    "drug": (
        "STRING",
        ["drug", "medication", "name", "rxname"],
        "Medication name",
        ["ibuprofen", "amoxicillin", "metformin", "lisinopril", "cetirizine"],
    ),
    "symptom": ("STRING", ["symptom", "symptoms", "complaint"], "Symptom", ["headache", "fever", "sore throat", "back pain", "fatigue"]),
    "icd": ("STRING", ["code", "icd10", "icd_code"], "ICD-10 code", ["J45.909", "E11.9", "I10", "M54.5", "K21.9"]),
    "course_topic": (
        "STRING",
        ["subject", "topic", "q", "skill"],
        "Course subject",
        ["python", "statistics", "spanish", "calculus", "guitar", "photography"],
    ),
    "level": (
        "ENUM",
        ["level", "difficulty", "grade"],
        "Level: beginner, intermediate, advanced",
        ["beginner", "intermediate", "advanced"],
    ),
    "university": (
        "STRING",
        ["name", "university", "institution"],
        "University name",
        ["University of Lagos", "MIT", "Kyoto University", "ETH Zurich", "University of Toronto"],
    ),
    "math_expr": (
        "STRING",
        ["expr", "expression", "input", "q"],
        "A math expression",
        ["2*(3+4)^2", "integrate x^2 dx", "sqrt(144)+7", "derivative of sin(x)*x", "15% of 240"],
    ),
    "element": ("STRING", ["element", "symbol", "name"], "Chemical element", ["Fe", "oxygen", "Au", "carbon", "Na", "helium"]),
    "planet": (
        "STRING",
        ["body", "planet", "object", "target"],
        "Solar system body",
        ["Mars", "Jupiter", "Venus", "Saturn", "Moon", "Mercury"],
    ),
    "code": (
        "STRING",
        ["code", "source", "source_code", "snippet"],
        "Program source code",
        ["print('hello')", "console.log(1+1)", 'fn main(){println!("hi")}', "SELECT 1;"],
    ),
    "prog_lang": (
        "ENUM",
        ["language", "lang", "language_id", "runtime"],
        "Language: python, javascript, rust, go, sql",
        ["python", "javascript", "rust", "go", "sql"],
    ),
    "repo": (
        "STRING",
        ["repo", "repository", "full_name", "slug"],
        "Repository as owner/name",
        ["torvalds/linux", "python/cpython", "facebook/react", "rust-lang/rust", "huggingface/transformers"],
    ),
    "package": (
        "STRING",
        ["package", "name", "pkg", "module"],
        "Package name",
        ["requests", "lodash", "serde", "numpy", "express", "tokio"],
    ),
    "hash": (
        "STRING",
        ["hash", "sha256", "resource", "file_hash"],
        "File hash (SHA-256)",
        [
            "44d88612fea8a8f36de82e1278abb02f",
            "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ],
    ),
    "password": (
        "STRING",
        ["password", "pwd", "secret"],
        "Password to check",
        ["hunter2", "correct horse battery staple", "P@ssw0rd!", "qwerty123"],
    ),
    "pw_length": ("NUMBER", ["length", "len", "size", "chars"], "Length in characters", (8, 64)),
    "color": ("STRING", ["color", "hex", "colour", "value"], "Color as hex", ["#FF5733", "#2E86C1", "#28B463", "#F1C40F", "#8E44AD"]),
    "qr_data": (
        "STRING",
        ["data", "text", "content", "value"],
        "Text or URL to encode",
        ["https://example.com/menu", "WIFI:S:Home;T:WPA;P:secret;;", "BEGIN:VCARD Jane Doe", "https://petool.dev"],
    ),
    "event_type": (
        "ENUM",
        ["type", "category", "segment", "classification"],
        "Event type: music, sports, theatre, conference, festival",
        ["music", "sports", "theatre", "conference", "festival"],
    ),
    "car_make": ("STRING", ["make", "brand", "manufacturer"], "Car make", ["Toyota", "Tesla", "Volkswagen", "Kia", "Peugeot", "Ford"]),
    "car_model": ("STRING", ["model", "model_name", "trim"], "Car model", ["Corolla", "Model 3", "Golf", "EV6", "208", "F-150"]),
    "vin": (
        "STRING",
        ["vin", "vin_number", "chassis"],
        "Vehicle identification number",
        ["1HGCM82633A004352", "WVWZZZ1JZXW000001", "5YJ3E1EA7KF317000", "JTDKN3DU0A0123456"],
    ),
    "plate": (
        "STRING",
        ["plate", "registration", "reg", "license_plate"],
        "License plate",
        ["AB12CDE", "KDA 123A", "B-MW 1234", "7ABC123"],
    ),
    "route_id": (
        "STRING",
        ["route", "route_id", "line", "line_id"],
        "Transit route or line",
        ["M15", "Victoria", "U2", "Yamanote", "BRT-1"],
    ),
    "stop_id": (
        "STRING",
        ["stop_id", "stop", "station", "station_id"],
        "Stop or station identifier",
        ["940GZZLUVIC", "S-1142", "stop_88", "TYO-01"],
    ),
    "energy_zone": (
        "STRING",
        ["zone", "area", "region", "bidding_zone"],
        "Grid or price zone",
        ["DE-LU", "FR", "GB", "ES", "NO1", "CAISO"],
    ),
    "kwh": ("NUMBER", ["kwh", "consumption", "energy", "usage_kwh"], "Electricity used in kWh", (50, 2000)),
    "fuel": ("ENUM", ["fuel", "fuel_type", "product"], "Fuel: diesel, petrol, lpg, electric", ["diesel", "petrol", "lpg", "electric"]),
    "keyword_ad": (
        "STRING",
        ["keyword", "kw", "term", "phrase"],
        "Advertising keyword",
        ["running shoes", "cloud hosting", "wedding venues", "solar installer", "cat food"],
    ),
    "campaign_id": (
        "STRING",
        ["campaign_id", "id", "campaign", "cid"],
        "Campaign identifier",
        ["cmp_1182", "23851101", "C-7712", "fb_9921"],
    ),
    "budget": ("NUMBER", ["budget", "daily_budget", "spend_cap"], "Daily budget in USD", (10, 2000)),
    "file_url": (
        "STRING",
        ["file_url", "url", "document", "src"],
        "Public URL of a document",
        ["https://example.com/docs/report.pdf", "https://example.com/files/contract.docx", "https://example.com/slides/deck.pptx"],
    ),
    "doc_format": (
        "ENUM",
        ["to", "output_format", "target_format", "format"],
        "Target format: pdf, docx, txt, html",
        ["pdf", "docx", "txt", "html"],
    ),
    "pages_arr": ("ARRAY", ["pages", "page_numbers", "range"], "Page numbers to keep", [1, 2, 3, 4, 5, 7, 9]),
    "tags_arr": ("ARRAY", ["tags", "labels", "keywords"], "Tags to attach", ["urgent", "billing", "beta", "vip", "follow-up", "bug"]),
    "meta_obj": (
        "OBJECT",
        ["metadata", "meta", "custom_fields", "attributes"],
        "Custom fields as a JSON object",
        [{"plan": "pro"}, {"source": "newsletter"}, {"team": "sales"}, {"priority": "high"}],
    ),
    "channel": (
        "STRING",
        ["channel", "channel_id", "room", "conversation"],
        "Chat channel",
        ["#general", "#alerts", "C024BE91L", "#random", "#deploys"],
    ),
    "species": (
        "STRING",
        ["species", "name", "q", "taxon"],
        "Species name",
        ["Panthera leo", "monarch butterfly", "Quercus robur", "bottlenose dolphin", "African elephant"],
    ),
    "quake_mag": ("NUMBER", ["min_magnitude", "minmag", "magnitude"], "Minimum magnitude", (2, 7)),
    "crop": ("STRING", ["crop", "commodity", "product"], "Crop", ["maize", "wheat", "cassava", "coffee", "rice", "cocoa"]),
    "holiday_year": ("NUMBER", ["year", "yr"], "Year", (2023, 2026)),
    "horoscope_sign": ("ENUM", ["sign", "zodiac", "star_sign"], "Zodiac sign", ["aries", "taurus", "gemini", "leo", "virgo", "pisces"]),
    "joke_cat": (
        "ENUM",
        ["category", "type", "topic"],
        "Joke category: programming, pun, dad, misc",
        ["programming", "pun", "dad", "misc"],
    ),
    "bic": ("STRING", ["bic", "swift", "swift_code"], "SWIFT/BIC code of a bank", ["DEUTDEFF", "NWBKGB2L", "BNPAFRPP", "CHASUS33"]),
    "hotel_id": ("STRING", ["hotel_id", "property_id", "id", "hid"], "Hotel identifier", ["h_22810", "1177231", "HTL-PAR-09", "553012"]),
    "bool_nonstop": ("BOOLEAN", ["nonstop", "direct", "non_stop", "direct_only"], "Only non-stop flights", None),
}

# archetype -> (price tier, monthly USD, free quota, latency ms, rating, freshness min, coverage, privacy, docs)
ARCHETYPES = {
    "premium": ("premium", 99.0, 100, 80, 4.7, 1, 0.97, 0.70, 0.90),
    "enterprise": ("premium", 249.0, 0, 120, 4.5, 5, 0.99, 0.88, 0.95),
    "fast": ("paid", 25.0, 1000, 35, 4.3, 5, 0.80, 0.55, 0.70),
    "freemium": ("freemium", 9.0, 2000, 200, 4.1, 15, 0.75, 0.60, 0.70),
    "private": ("paid", 19.0, 1000, 260, 4.2, 30, 0.70, 0.96, 0.75),
    "open": ("free", 0.0, 10000, 320, 4.0, 60, 0.70, 0.90, 0.60),
    "budget": ("free", 0.0, 500, 450, 3.8, 60, 0.60, 0.50, 0.50),
    "hobby": ("free", 0.0, 200, 850, 3.4, 1440, 0.40, 0.40, 0.30),
}


# Tool-specific optional parameters (see _extras): ToolBench APIs carry paging, flags and format
# switches that no instruction mentions. Declared as slots so the validator knows them.
EXTRA_SLOTS: dict[str, tuple] = {
    "x_page": ("NUMBER", ["pageIndex", "page_number", "pg"], "For paging purpose", (1, 10)),
    "x_size": ("NUMBER", ["pageSize", "hitsPerPage", "page_size"], "Items per page (Max is 50)", (10, 50)),
    "x_offset": ("NUMBER", ["offset", "start", "skip"], "Number of items to skip", (0, 100)),
    "x_timeout": ("NUMBER", ["timeout", "timeout_ms", "wait"], "Request timeout in milliseconds", (1000, 30000)),
    "x_min": ("NUMBER", ["minimum", "min_value", "from_value"], "Lower bound filter", (1, 100)),
    "x_max": ("NUMBER", ["maximum", "max_value", "to_value"], "Upper bound filter", (100, 1000)),
    "x_ts": ("NUMBER", ["timestamp", "since", "from_ts"], "Unix timestamp to start from", (1672531200, 1704067199)),
    "x_version_n": ("NUMBER", ["api_version", "schema_version", "rev"], "Response schema version", (1, 3)),
    "x_precision": ("NUMBER", ["precision", "decimals", "digits"], "Number of decimal places", (0, 6)),
    "x_pretty": ("BOOLEAN", ["pretty", "prettyPrint", "indent"], "Pretty-print the JSON response", None),
    "x_meta": ("BOOLEAN", ["include_meta", "withMeta", "show_metadata"], "Include metadata about the request", None),
    "x_fields": ("STRING", ["fields", "select", "only"], "Comma separated list of fields to return", ["id,name", "id,name,price", "all"]),
    "x_callback": ("STRING", ["callback", "jsonp", "cb"], "JSONP callback function name", ["cb", "handleResponse"]),
    "x_format": ("STRING", ["response_format", "output_type", "content_type"], "Response format: json, xml or csv", ["json", "xml", "csv"]),
    "x_region": ("STRING", ["market", "region_code", "geo"], "Market or region code", ["US", "EU", "APAC"]),
    "x_order": ("STRING", ["order", "direction", "sortOrder"], "asc or desc", ["asc", "desc"]),
    "x_client": ("STRING", ["client_id", "request_id", "session"], "Your client or session identifier", ["web-app", "ios-42", "test"]),
    "x_tz": (
        "STRING",
        ["time_zone", "tz_name", "zone_id"],
        "Time zone used for dates in the response",
        ["UTC", "Europe/Paris", "America/New_York"],
    ),
    "x_cur": ("STRING", ["display_currency", "price_currency", "cur"], "Currency used to display prices", ["USD", "EUR", "GBP"]),
    "x_filter": (
        "STRING",
        ["filter_by", "where_clause", "filters_str"],
        "Filter expression, e.g. status:active",
        ["status:active", "type:all", "rating>3"],
    ),
    "x_locale": ("STRING", ["locale_code", "country_locale", "loc"], "Locale of the response", ["en_US", "fr_FR", "de_DE"]),
    "x_status": ("STRING", ["status_filter", "state", "with_status"], "Only items with this status", ["active", "archived", "all"]),
    "x_ref": ("STRING", ["ref", "referrer", "source_id"], "Reference returned by a previous call", ["r_1182", "abc123", "next"]),
    "x_tags": ("STRING", ["tags_filter", "labels_csv", "tag_list"], "Tags separated by commas", ["new,popular", "sale", "featured"]),
    "x_country": ("STRING", ["country_filter", "gl", "country_iso"], "Two-letter country code to filter by", ["US", "GB", "DE"]),
}
SLOTS.update(EXTRA_SLOTS)

# ENUM is rare in real ToolBench data (~1% of parameters): only these slots keep the type;
# the other enum-like slots are STRING whose description lists the choices.
KEEP_ENUM = {"units", "img_format"}

# Imperative verbs that read naturally after "I want to" (see _want).
WANT_VERBS = {
    "find",
    "get",
    "search",
    "list",
    "check",
    "translate",
    "convert",
    "detect",
    "look",
    "track",
    "read",
    "send",
    "create",
    "extract",
    "decode",
    "calculate",
    "estimate",
    "validate",
    "verify",
    "geocode",
    "shorten",
    "generate",
    "make",
    "remove",
    "resize",
    "post",
    "add",
    "save",
    "download",
    "run",
    "execute",
    "scan",
    "summarize",
    "identify",
    "launch",
    "transliterate",
    "romanize",
    "analyze",
    "correct",
    "filter",
    "autocomplete",
    "suggest",
    "recommend",
    "quote",
    "enrich",
    "split",
    "keep",
    "notify",
    "invoice",
    "bill",
    "cut",
    "scale",
    "turn",
    "fetch",
    "route",
    "measure",
    "spell",
    "text",
    "message",
    "mail",
    "email",
    "describe",
    "reverse",
    "retrieve",
    "see",
}

# Clauses that state one common optional value, appended to a copy of a cluster's first template.
SUFFIXES = {
    "page": " and show page {page} of the results",
    "country": " for the country {country}",
    "language": " and give me the answer in language '{language}'",
    "bool_detail": " and include all the details{bool_detail=true}",
}

# Shares of clusters kept at up to 6 tools (among those listing 4+) and at up to 3 tools; the rest keep 2.
CLUSTER_SIZE_SHARES = (0.14, 0.14)

# Share of tools that document every API at length (see _verbose).
VERBOSE_SHARE = 0.07


def T(name, desc, archetype):
    return {"name": name, "description": desc, "archetype": archetype}


def C(cid, desc, tools, api_names, params, templates):
    """A functional cluster: ``tools`` are indexes into the category's tools (or "Category:i")."""
    return {"id": cid, "description": desc, "tools": tools, "api_names": api_names, "params": params.split(), "templates": templates}


CATEGORIES = [
    (
        "Weather",
        [
            T("SkyCast Pro", "Global forecasts from blended numerical weather models.", "premium"),
            T("OpenMeteoHub", "Community-run weather data built on open national feeds.", "open"),
            T("🌦️ Meteo Lite", "A hobby weather API with simple JSON answers.", "hobby"),
            T("WeatherNow | Global Weather API", "Current weather and forecasts for any city worldwide.", "freemium"),
            T("StormTrack", "Low-latency severe weather and nowcasting.", "fast"),
            T("ClimaPrivate", "Weather data with no request logging.", "private"),
        ],
        [
            C(
                "weather.current",
                "Current weather conditions for a city",
                [0, 1, 2, 3, 5],
                ["current", "/v1/current/{city}", "Current Weather Data", "getCurrentConditions", "weather/now"],
                "place! units",
                [
                    "What's the weather like in {place} right now?",
                    "Get the current weather in {place} in {units} units.",
                    "Show me current conditions for {place} using {tool}.",
                ],
            ),
            C(
                "weather.daily",
                "Daily weather forecast for a city",
                [0, 1, 3, 4],
                ["/v1/forecast/{city}", "Daily Forecast", "forecast/daily", "getDailyForecast"],
                "place! days units",
                [
                    "Get the daily forecast for {place} for the next {days} days.",
                    "I need a {days}-day forecast for {place} in {units} units.",
                    "What will the weather be in {place} this week?",
                ],
            ),
            C(
                "weather.hourly",
                "Hourly forecast at a coordinate",
                [0, 2, 4, 5],
                ["Hourly Forecast", "hourly", "/forecast/hourly", "Hour by hour"],
                "geo! hours",
                [
                    "Give me the hourly forecast at {geo} for the next {hours} hours.",
                    "Hourly weather for the point {geo}.",
                    "What is the hour-by-hour outlook at coordinates {geo}?",
                ],
            ),
            C(
                "weather.alerts",
                "Active severe weather alerts for a city",
                [0, 3, 4],
                ["alerts/active", "Weather Alerts", "/alerts/{location}"],
                "place! severity",
                [
                    "Are there any weather alerts for {place}?",
                    "List active {severity} or worse weather warnings in {place}.",
                    "Check {tool} for storm warnings around {place}.",
                ],
            ),
            C(
                "weather.history",
                "Historical weather for a city on a given day",
                [1, 2, 5],
                ["History", "/v2/history", "past-weather"],
                "place! date!",
                [
                    "What was the weather in {place} on {date}?",
                    "Get historical weather for {place} on {date}.",
                    "I want to know how hot it was in {place} on {date}.",
                ],
            ),
            C(
                "weather.air_quality",
                "Air quality index and pollutants for a city",
                [0, 1, 4, 5],
                ["air-quality", "/v1/aqi/{city}", "Air Quality", "pollution/current"],
                "place!",
                [
                    "How clean is the air in {place}?",
                    "Get the air quality index for {place}.",
                    "Check pollution levels in {place} on {tool}.",
                ],
            ),
            C(
                "weather.layers",
                "List the map layers the service can render",
                [0, 1, 4],
                ["Map layers", "/tiles/layers", "listLayers"],
                "",
                [
                    "List all available weather map layers.",
                    "Which map layers does {tool} support?",
                    "Get the list of radar and map layers.",
                ],
            ),
        ],
    ),
    (
        "Finance",
        [
            T("QuoteStream", "Real-time quotes for global equities.", "fast"),
            T("Alpha Ledger", "Fundamentals and prices for listed companies.", "freemium"),
            T("MarketPulse Enterprise", "Institutional-grade market data.", "enterprise"),
            T("StockTicker_v2", "Free delayed stock prices.", "budget"),
            T("FinQuiet", "Market data over a privacy-preserving proxy.", "private"),
        ],
        [
            C(
                "finance.quote",
                "Latest price quote for a stock",
                [0, 1, 2, 3, 4],
                ["quote", "/v1/quote/{symbol}", "Get Quote", "Stock Price", "realtime-price"],
                "symbol!",
                [
                    "What is the current price of {symbol}?",
                    "Get the latest quote for {symbol}.",
                    "Show me {symbol}'s stock price on {tool}.",
                ],
            ),
            C(
                "finance.candles",
                "Historical price candles for a stock",
                [0, 1, 2],
                ["time_series", "/v2/candles", "Historical Prices"],
                "symbol! interval date",
                [
                    "Get {interval} candles for {symbol}.",
                    "Show the price history of {symbol} since {date}.",
                    "I need {symbol} OHLC data at {interval} resolution.",
                ],
            ),
            C(
                "finance.batch_quotes",
                "Quotes for several stocks at once",
                [0, 2, 4],
                ["batch", "Multiple Quotes", "/quotes"],
                "symbols!",
                ["Get quotes for {symbols} in one call.", "What are the prices of {symbols}?", "Fetch the latest prices for {symbols}."],
            ),
            C(
                "finance.company_profile",
                "Company profile and key statistics",
                [1, 2, 3],
                ["profile", "Company Overview", "stock/profile2"],
                "symbol!",
                [
                    "Tell me about the company behind {symbol}.",
                    "Get the company profile for {symbol}.",
                    "What sector is {symbol} in and how big is it?",
                ],
            ),
            C(
                "finance.news",
                "Latest news about a listed company",
                [0, 1, 2, 4],
                ["news", "/v2/news/{symbol}", "Company News", "stock/news"],
                "symbol! limit",
                [
                    "Any news about {symbol}?",
                    "Get the {limit} latest headlines on {symbol}.",
                    "What's being reported about {symbol} today?",
                ],
            ),
            C(
                "finance.market_status",
                "Whether the major exchanges are open now",
                [0, 1, 3, 4],
                ["market-status", "Market Hours", "/v1/markets/status", "isMarketOpen"],
                "",
                ["Is the stock market open right now?", "Check the current market status.", "Are the exchanges trading at the moment?"],
            ),
        ],
    ),
    (
        "Cryptocurrency",
        [
            T("CoinDepth", "Aggregated crypto prices from 400 exchanges.", "premium"),
            T("ChainPeek", "Open blockchain explorer API.", "open"),
            T("Crypto Tracker 🚀", "Simple crypto price feeds.", "hobby"),
            T("BlockQuant", "Fast tick data for digital assets.", "fast"),
            T("CoinVault Private", "Crypto data without IP logging.", "private"),
        ],
        [
            C(
                "crypto.price",
                "Current price of a cryptocurrency",
                [0, 2, 3, 4],
                ["simple/price", "Coin Price", "/v1/assets/{id}/price", "getPrice"],
                "coin! currency",
                ["What's the price of {coin} right now?", "Get the price of {coin} in {currency}.", "How much is {coin} worth today?"],
            ),
            C(
                "crypto.wallet_balance",
                "Balance of a blockchain wallet",
                [1, 3, 4],
                ["account/balance", "Wallet Balance", "/address/{address}"],
                "wallet! chain",
                [
                    "What is the balance of wallet {wallet}?",
                    "Check the {chain} balance for {wallet}.",
                    "How many tokens does {wallet} hold?",
                ],
            ),
            C(
                "crypto.history",
                "Price history of a coin on a date",
                [0, 1, 2],
                ["coins/{id}/history", "Historical Price", "price-on-date"],
                "coin! date!",
                ["What was {coin} trading at on {date}?", "Get the price of {coin} on {date}.", "Historical {coin} price for {date}."],
            ),
            C(
                "crypto.top_coins",
                "Top cryptocurrencies by market cap",
                [0, 2, 3, 4],
                ["coins/markets", "Top Coins", "/v1/ranking", "listings/latest"],
                "limit currency",
                [
                    "List the top {limit} cryptocurrencies by market cap.",
                    "Show me the biggest coins right now.",
                    "Get the crypto ranking in {currency}.",
                ],
            ),
            C(
                "crypto.gas",
                "Current gas fees on a network",
                [1, 3],
                ["gas-oracle", "Gas Price"],
                "chain",
                [
                    "What are gas fees right now?",
                    "Get the current gas price on {chain}.",
                    "How expensive is a transaction on {chain} at the moment?",
                ],
            ),
        ],
    ),
    (
        "Currency",
        [
            T("FXRates", "Mid-market foreign exchange rates.", "freemium"),
            T("ExchangeOracle", "Bank-grade FX rates updated every second.", "enterprise"),
            T("free-currency-api", "Daily rates from central banks.", "open"),
            T("CurrencyFast", "Low-latency currency conversion.", "fast"),
        ],
        [
            C(
                "fx.convert",
                "Convert an amount between currencies",
                [0, 1, 2, 3],
                ["convert", "/v1/convert", "Currency Conversion", "exchange"],
                "amount! currency! currency2!",
                [
                    "Convert {amount} {currency} to {currency2}.",
                    "How much is {amount} {currency} in {currency2}?",
                    "I need {amount} {currency} expressed in {currency2}.",
                ],
            ),
            C(
                "fx.latest",
                "Latest exchange rates for a base currency",
                [0, 1, 2],
                ["latest", "Latest Rates", "/rates/{base}"],
                "currency!",
                [
                    "Get today's exchange rates with {currency} as base.",
                    "Show me the latest rates against {currency}.",
                    "What are the current {currency} exchange rates?",
                ],
            ),
            C(
                "fx.historical",
                "Exchange rates on a past date",
                [0, 2, 3],
                ["historical", "/v1/historical/{date}", "Rates On Date"],
                "date! currency",
                ["What were the exchange rates on {date}?", "Get {currency} rates for {date}.", "Historical FX rates from {date}."],
            ),
            C(
                "fx.symbols",
                "List supported currencies",
                [0, 1, 2, 3],
                ["symbols", "Supported Currencies", "/currencies", "listCurrencies"],
                "",
                ["Which currencies are supported?", "List all available currency codes.", "Get the list of currencies {tool} knows."],
            ),
        ],
    ),
    (
        "Sports",
        [
            T("ScoreBoard Live", "Live scores for 30 sports.", "fast"),
            T("SportsDataPro", "Official league data feeds.", "enterprise"),
            T("Footy Stats", "Football statistics by fans, for fans.", "hobby"),
            T("AllSports Hub", "Fixtures, tables and players across leagues.", "freemium"),
            T("ProLeague Feed", "Structured data for professional leagues.", "premium"),
        ],
        [
            C(
                "sports.standings",
                "League table for a season",
                [0, 1, 2, 3, 4],
                ["standings", "League Table", "/v3/standings/{league}", "Get Standings", "tables"],
                "league! season",
                ["Show the {league} table.", "Get the {league} standings for the {season} season.", "Who is top of the {league}?"],
            ),
            C(
                "sports.live_scores",
                "Live match scores",
                [0, 3, 4],
                ["livescores", "Live Matches", "/matches/live"],
                "league",
                ["Show me live scores.", "What games are being played right now in the {league}?", "Get current live results."],
            ),
            C(
                "sports.team_fixtures",
                "Upcoming fixtures of a team",
                [1, 2, 3],
                ["fixtures", "Team Schedule", "/teams/{team}/fixtures"],
                "team! limit",
                ["When does {team} play next?", "List the next {limit} fixtures for {team}.", "Get {team}'s upcoming schedule."],
            ),
            C(
                "sports.player_stats",
                "Season statistics of a player",
                [1, 3, 4],
                ["players/statistics", "Player Stats", "/player/{name}/season"],
                "athlete! season",
                ["Get {athlete}'s statistics.", "How did {athlete} perform in the {season} season?", "Show season stats for {athlete}."],
            ),
            C(
                "sports.match_events",
                "Events of one match (goals, cards, substitutions)",
                [0, 1, 4],
                ["Match Events", "/events/{match_id}", "timeline"],
                "match_id!",
                [
                    "Get the timeline of match {match_id}.",
                    "What happened in match {match_id}?",
                    "List goals and cards for match {match_id}.",
                ],
            ),
            C(
                "sports.list_sports",
                "List the sports covered",
                [0, 2, 3],
                ["sports", "GetAllSports", "/v1/sports"],
                "",
                ["Which sports are available?", "List all sports covered by {tool}.", "I want to retrieve data for all sports."],
            ),
        ],
    ),
    (
        "Music",
        [
            T("Tunewave", "Streaming catalog with 90M tracks.", "premium"),
            T("LyricLab", "Lyrics and song metadata.", "freemium"),
            T("OpenMusicDB", "A community music encyclopedia.", "open"),
            T("SoundSearch | Music Finder", "Fast search across music catalogs.", "fast"),
            T("Beatbox Free", "A free music API for hobby apps.", "hobby"),
        ],
        [
            C(
                "music.search_track",
                "Search songs by title",
                [0, 2, 3, 4],
                ["search", "Search Tracks", "/v1/tracks/search", "findSong"],
                "song! limit",
                ["Find the song {song}.", "Search for tracks called {song}, top {limit} results.", "Look up {song} on {tool}."],
            ),
            C(
                "music.artist_top",
                "Top tracks of an artist",
                [0, 2, 3],
                ["artist/top-tracks", "Artist Top Tracks", "/artists/{artist}/top"],
                "artist! country",
                ["What are {artist}'s most popular songs?", "Get top tracks by {artist} in {country}.", "List {artist}'s hits."],
            ),
            C(
                "music.lyrics",
                "Lyrics of a song",
                [1, 2, 4],
                ["lyrics", "Get Lyrics", "/lyrics/{artist}/{title}"],
                "song! artist",
                ["Get the lyrics of {song}.", "Show me the lyrics to {song} by {artist}.", "I want to read the words of {song}."],
            ),
            C(
                "music.playlist",
                "Tracks of a playlist",
                [0, 3, 4],
                ["Get playlist", "/playlists/{id}", "playlist/tracks"],
                "playlist! limit",
                [
                    "Show the tracks in playlist {playlist}.",
                    "Get the first {limit} songs of playlist {playlist}.",
                    "I want to get the details of playlist {playlist}.",
                ],
            ),
            C(
                "music.genres",
                "List available genres",
                [0, 1, 2, 3],
                ["genres", "Genre List", "/browse/genres", "available-genre-seeds"],
                "",
                ["List all music genres.", "What genres can I browse?", "Get the available genre seeds from {tool}."],
            ),
        ],
    ),
    (
        "Movies",
        [
            T("CineIndex", "Movie metadata for 1M titles.", "freemium"),
            T("FilmFacts Pro", "Verified film data for studios.", "enterprise"),
            T("MovieDB Lite", "Basic movie information.", "budget"),
            T("ReelTime", "Showtimes and streaming availability, fast.", "fast"),
            T("Streaming Availability_v3", "Where to watch, in 60 countries.", "premium"),
        ],
        [
            C(
                "movies.search",
                "Search movies by title",
                [0, 1, 2, 3],
                ["search/movie", "Search Movies", "/titles/search", "find"],
                "movie! year",
                ["Find the movie {movie}.", "Search for {movie} released in {year}.", "Look up the film {movie}."],
            ),
            C(
                "movies.details",
                "Details of a movie by id",
                [0, 1, 2],
                ["movie/{id}", "Title Details", "get-overview-details"],
                "movie_id!",
                ["Get details for movie {movie_id}.", "Show me the plot and cast of {movie_id}.", "What is {movie_id} about?"],
            ),
            C(
                "movies.where_to_watch",
                "Streaming services offering a title in a country",
                [3, 4, 0],
                ["Where To Watch", "/v3/availability", "watch/providers"],
                "movie! country!",
                [
                    "Where can I stream {movie} in {country}?",
                    "Which services have {movie} in {country}?",
                    "Is {movie} available to stream in {country}?",
                ],
            ),
            C(
                "movies.by_genre",
                "Popular movies of a genre",
                [0, 2, 4],
                ["discover", "Movies By Genre", "/genre/{genre}/titles"],
                "genre! year page",
                ["Recommend popular {genre} movies.", "List {genre} films from {year}.", "Show page {page} of {genre} movies."],
            ),
            C(
                "movies.upcoming",
                "Upcoming releases",
                [1, 2, 3, 4],
                ["upcoming", "Coming Soon", "/titles/x/upcoming", "new-releases"],
                "country",
                ["What movies are coming out soon?", "List upcoming releases in {country}.", "Show me new films hitting cinemas."],
            ),
        ],
    ),
    (
        "News_Media",
        [
            T("Headline Hub", "News from 50,000 sources.", "freemium"),
            T("PressWire Enterprise", "Licensed full-text news.", "enterprise"),
            T("NewsCatcher Free", "Free headlines API.", "budget"),
            T("QuietNews", "Headlines without trackers.", "private"),
            T("Breaking Fast", "Breaking news in under a second.", "fast"),
        ],
        [
            C(
                "news.top",
                "Top headlines by section",
                [0, 1, 2, 3, 4],
                ["top-headlines", "Top Stories", "/v2/headlines", "latest", "breaking"],
                "news_cat country",
                ["What are today's top headlines?", "Show the top {news_cat} stories in {country}.", "Get the latest {news_cat} news."],
            ),
            C(
                "news.search",
                "Search news articles",
                [0, 1, 2, 3],
                ["everything", "Search Articles", "/search", "news/search"],
                "query! language date",
                ["Find news about {query}.", "Search articles on {query} in {language}.", "Any news about {query} since {date}?"],
            ),
            C(
                "news.sources",
                "List news sources",
                [0, 2, 4],
                ["sources", "List Sources", "/v1/sources"],
                "",
                ["Which news sources are available?", "List all publishers {tool} covers.", "Get the list of news sources."],
            ),
            C(
                "news.trending",
                "Trending topics in the news",
                [1, 3, 4],
                ["trending", "Trending Topics", "/topics/trending"],
                "country",
                [
                    "What topics are trending in the news?",
                    "Show trending news topics in {country}.",
                    "What is everyone talking about today?",
                ],
            ),
            C(
                "news.summarize",
                "Summarize a news article by URL",
                [1, 3],
                ["Summarize Article", "/extract/summary"],
                "url!",
                ["Summarize the article at {url}.", "Give me the gist of {url}.", "What does {url} say in short?"],
            ),
        ],
    ),
    (
        "Travel",
        [
            T("StayFinder", "Hotels and apartments in 190 countries.", "freemium"),
            T("Booking Scraper | Hotels", "Hotel prices scraped daily.", "budget"),
            T("RoomRadar Pro", "Live hotel inventory for agencies.", "premium"),
            T("TripQuiet", "Travel search that never sells your data.", "private"),
            T("Hostel Finder ", "Budget hostels worldwide.", "hobby"),
        ],
        [
            C(
                "travel.hotel_search",
                "Search hotels in a city for dates",
                [0, 1, 2, 3, 4],
                ["hotels/search", "Search Hotels", "/v1/stays/{city}", "properties/list", "findHostels"],
                "place! date! date_end! adults",
                [
                    "Find hotels in {place} from {date} to {date_end}.",
                    "I need a room in {place} for {adults} adults, {date} to {date_end}.",
                    "Search stays in {place} checking in {date} and out {date_end}.",
                ],
            ),
            C(
                "travel.hotel_details",
                "Details and amenities of a hotel",
                [0, 2, 3],
                ["hotels/details", "Hotel Details", "/property/{id}"],
                "hotel_id! language",
                [
                    "Show me details of hotel {hotel_id}.",
                    "What amenities does hotel {hotel_id} have?",
                    "Get information in {language} about hotel {hotel_id}.",
                ],
            ),
            C(
                "travel.hotel_reviews",
                "Guest reviews of a hotel",
                [0, 1, 2],
                ["reviews/list", "Hotel Reviews", "/reviews"],
                "hotel_id! page",
                [
                    "What do guests say about hotel {hotel_id}?",
                    "Get page {page} of reviews for hotel {hotel_id}.",
                    "Read reviews of hotel {hotel_id}.",
                ],
            ),
            C(
                "travel.destinations",
                "Autocomplete destination names",
                [0, 1, 3, 4],
                ["locations/auto-complete", "Destination Lookup", "/suggest", "locations/search"],
                "place!",
                [
                    "Suggest destinations matching {place}.",
                    "I want to search for a location with the term '{place}'.",
                    "Autocomplete the destination {place}.",
                ],
            ),
        ],
    ),
    (
        "Flights",
        [
            T("SkyRoutes", "Fares from 600 airlines.", "premium"),
            T("FlightAware-ish", "Flight status and tracking.", "freemium"),
            T("Flight Radar_v2", "Live positions of aircraft.", "fast"),
            T("CheapFares", "Budget airline fares.", "budget"),
            T("AeroData Enterprise", "Airline schedules for the industry.", "enterprise"),
        ],
        [
            C(
                "flights.search",
                "Search flights between airports",
                [0, 3, 4],
                ["flights/search", "Search Flights", "/v2/offers"],
                "airport! airport2! date! adults bool_nonstop",
                [
                    "Find flights from {airport} to {airport2} on {date}.",
                    "Search non-stop flights{bool_nonstop=true} {airport} to {airport2} on {date} for {adults} passengers.",
                    "I want to fly from {airport} to {airport2} on {date}.",
                ],
            ),
            C(
                "flights.status",
                "Live status of a flight",
                [1, 2, 4],
                ["flight/status", "Flight Status", "/flights/{ident}"],
                "flight_no! date",
                ["Is flight {flight_no} on time?", "Get the status of {flight_no} on {date}.", "Where is flight {flight_no} now?"],
            ),
            C(
                "flights.airport_info",
                "Information about an airport",
                [0, 1, 2, 4],
                ["airports/{iata}", "Airport Info", "airport", "getAirport"],
                "airport!",
                ["Tell me about airport {airport}.", "Get details of the {airport} airport.", "What terminals does {airport} have?"],
            ),
            C(
                "flights.departures",
                "Departures board of an airport",
                [1, 2, 4],
                ["departures", "Departures Board", "/schedules/departures"],
                "airport! hours",
                [
                    "Show departures from {airport}.",
                    "List flights leaving {airport} in the next {hours} hours.",
                    "What's on the {airport} departures board?",
                ],
            ),
            C(
                "flights.airlines",
                "List airlines",
                [0, 1, 3, 4],
                ["airlines", "All Airlines", "/v1/airlines", "carriers"],
                "country",
                ["List all airlines.", "Which airlines are based in {country}?", "Get the airline directory from {tool}."],
            ),
        ],
    ),
    (
        "Food",
        [
            T("RecipeBox", "Two million recipes with nutrition.", "freemium"),
            T("Tasty Kitchen 🍲", "Community recipes.", "hobby"),
            T("ChefAPI Pro", "Curated recipes for food apps.", "premium"),
            T("NutriFacts", "Nutrition data from national databases.", "open"),
            T("MealPrep Private", "Meal planning without tracking.", "private"),
        ],
        [
            C(
                "food.recipe_search",
                "Search recipes",
                [0, 1, 2, 4],
                ["recipes/complexSearch", "Search Recipes", "/v1/recipes", "recipes/list"],
                "query! cuisine diet calories",
                [
                    "Find recipes for {query}.",
                    "Search {cuisine} {query} recipes that are {diet}.",
                    "Give me {diet} {query} recipes under {calories} calories.",
                ],
            ),
            C(
                "food.recipe_details",
                "Ingredients and steps of a recipe",
                [0, 1, 2],
                ["recipes/{id}/information", "Recipe Details", "lookup.php"],
                "recipe_id!",
                ["Show me recipe {recipe_id}.", "What do I need for recipe {recipe_id}?", "Get the steps of recipe {recipe_id}."],
            ),
            C(
                "food.nutrition",
                "Nutrition facts of a food",
                [0, 2, 3, 4],
                ["food/nutrition", "Nutrition Facts", "/foods/search", "nutrients"],
                "food!",
                ["How many calories are in {food}?", "Get nutrition facts for {food}.", "What nutrients does {food} have?"],
            ),
            C(
                "food.random",
                "A random recipe",
                [0, 1, 2],
                ["recipes/random", "Random Meal", "random.php"],
                "diet",
                ["Suggest a random recipe.", "Give me a random {diet} recipe.", "Surprise me with something to cook."],
            ),
            C(
                "food.categories",
                "List recipe categories",
                [1, 2, 4, 3],
                ["categories.php", "Categories", "/v1/categories", "food-groups"],
                "",
                ["List all recipe categories.", "What meal categories are there?", "Get the recipe categories from {tool}."],
            ),
        ],
    ),
    (
        "eCommerce",
        [
            T("ShopScraper", "Product data from major marketplaces.", "budget"),
            T("Axesso - Marketplace Data Service", "Structured marketplace data.", "premium"),
            T("PriceSpy", "Price history and comparisons.", "freemium"),
            T("Unofficial StoreAPI", "Reverse-engineered store endpoints.", "hobby"),
            T("RetailEdge", "Fast catalog search for retailers.", "fast"),
            T("CartSafe", "Shopping data with privacy guarantees.", "private"),
        ],
        [
            C(
                "ecom.search",
                "Search products",
                [0, 1, 2, 3, 4, 5],
                ["search", "Product Search", "products/v2/list", "/v1/search", "searchProducts", "find-items"],
                "query! price_max sort page",
                ["Search for {query}.", "Find {query} under {price_max} dollars.", "Show {query} sorted by {sort}, page {page}."],
            ),
            C(
                "ecom.product",
                "Details of a product",
                [0, 1, 3, 4],
                ["product", "Product Details", "products/detail", "/items/{id}"],
                "product_id! country",
                ["Get details of product {product_id}.", "Show me product {product_id} for {country}.", "What is product {product_id}?"],
            ),
            C(
                "ecom.reviews",
                "Reviews of a product",
                [1, 2, 3, 5],
                ["reviews", "Product Reviews", "reviews/v2/list", "/products/{id}/reviews"],
                "product_id! page sort",
                [
                    "Read reviews of product {product_id}.",
                    "Get page {page} of reviews for {product_id}.",
                    "Show {sort} reviews for product {product_id}.",
                ],
            ),
            C(
                "ecom.price_history",
                "Price history of a product",
                [2, 0],
                ["price-history", "Price History"],
                "product_id! days",
                [
                    "How has the price of {product_id} changed?",
                    "Price history of {product_id} over {days} days.",
                    "Was {product_id} cheaper recently?",
                ],
            ),
            C(
                "ecom.filter",
                "Filtered product listing",
                [1, 4, 5],
                ["products/filter", "Filtered List", "/catalog/query"],
                "query! filters!",
                ["List {query} matching {filters}.", "Find {query} with filter {filters}.", "Show {query}, filtered by {filters}."],
            ),
            C(
                "ecom.categories",
                "List store categories",
                [0, 2, 3, 4],
                ["categories/list", "Categories", "/v1/categories", "navigation"],
                "country",
                ["List all product categories.", "Get the store categories for {country}.", "What departments does the store have?"],
            ),
        ],
    ),
    (
        "Location",
        [
            T("GeoCoder Plus", "Address geocoding worldwide.", "freemium"),
            T("OpenPlaces", "Geodata from open map projects.", "open"),
            T("MapMatrix", "Routing and distance matrices.", "fast"),
            T("LocatePrivate", "Geocoding with no logs.", "private"),
            T("Egypt-Style Gazetteer", "A small national places API.", "hobby"),
            T("Geo Enterprise Suite", "Location intelligence for enterprises.", "enterprise"),
        ],
        [
            C(
                "geo.geocode",
                "Turn an address into coordinates",
                [0, 1, 3, 5],
                ["geocode", "/v1/search", "Forward Geocoding", "geocoding/json"],
                "address! country",
                ["Get coordinates for {address}.", "Geocode {address}.", "Where exactly is {address} in {country}?"],
            ),
            C(
                "geo.reverse",
                "Turn coordinates into an address",
                [0, 1, 3, 4],
                ["reverse", "Reverse Geocode", "/v1/reverse", "whereami"],
                "geo! language",
                ["What address is at {geo}?", "Reverse geocode {geo} in {language}.", "Which city is {geo} in?"],
            ),
            C(
                "geo.route",
                "Route between two places",
                [2, 5, 1],
                ["directions", "/route/{profile}", "Get Route"],
                "origin! destination! travel_mode",
                [
                    "How do I get from {origin} to {destination}?",
                    "Route {origin} to {destination} by {travel_mode}.",
                    "Directions from {origin} to {destination}.",
                ],
            ),
            C(
                "geo.distance",
                "Distance between two places",
                [2, 4, 5],
                ["distance-matrix", "Measure Distance", "/distance"],
                "origin! destination! units",
                [
                    "How far is {origin} from {destination}?",
                    "Calculate the distance between {origin} and {destination} in {units} units.",
                    "Distance {origin} to {destination}.",
                ],
            ),
            C(
                "geo.nearby",
                "Places of interest near a point",
                [0, 1, 4, 5],
                ["places/nearby", "Nearby Places", "/poi", "Facilities Lookup"],
                "geo! query! radius",
                ["Find {query} near {geo}.", "List {query} within {radius} m of {geo}.", "Any {query} around {geo}?"],
            ),
            C(
                "geo.timezone",
                "Time zone of a coordinate",
                [1, 2, 3],
                ["timezone", "Time Zone", "/tz/{latlng}"],
                "geo!",
                ["What time zone is {geo} in?", "Get the time zone at {geo}.", "Which tz covers {geo}?"],
            ),
        ],
    ),
    (
        "Translation",
        [
            T("LinguaLink", "Neural translation for 130 languages.", "premium"),
            T("Translate Plus", "Affordable translation API.", "freemium"),
            T("OpenTranslate", "Open-source translation models.", "open"),
            T("SecureLingo", "On-premise-grade privacy for translation.", "private"),
            T("QuickTranslate", "Fast short-text translation.", "fast"),
        ],
        [
            C(
                "tr.translate",
                "Translate text",
                [0, 1, 2, 3, 4],
                ["translate", "/v2/translate", "Translate Text", "translation", "tr"],
                "text! target_lang! language",
                [
                    "Translate '{text}' into {target_lang}.",
                    "How do you say '{text}' in {target_lang}?",
                    "Translate '{text}' from {language} to {target_lang}.",
                ],
            ),
            C(
                "tr.detect",
                "Detect the language of a text",
                [0, 1, 3, 4],
                ["detect", "Detect Language", "/v2/detect", "language/identify"],
                "text!",
                ["What language is '{text}'?", "Detect the language of '{text}'.", "Identify which language '{text}' is written in."],
            ),
            C(
                "tr.languages",
                "List supported languages",
                [0, 1, 2, 3, 4],
                ["languages", "Supported Languages", "/v2/languages", "getLanguages", "langs"],
                "",
                ["Which languages are supported?", "List all languages {tool} can translate.", "Get the list of available languages."],
            ),
            C(
                "tr.transliterate",
                "Transliterate text into Latin script",
                [1, 2],
                ["transliterate", "Transliteration"],
                "text! language",
                ["Transliterate '{text}' into Latin letters.", "Romanize '{text}' from {language}.", "Write '{text}' in Latin script."],
            ),
        ],
    ),
    (
        "Text_Analysis",
        [
            T("SentiScore", "Sentiment and emotion analysis.", "freemium"),
            T("NLP Cloud Enterprise", "Managed NLP models.", "enterprise"),
            T("TextBlobby", "Simple text analytics.", "hobby"),
            T("PrivateNLP", "Text analysis that keeps no data.", "private"),
            T("Fast Tokenize", "Tokenization and keywords at high speed.", "fast"),
        ],
        [
            C(
                "ta.sentiment",
                "Sentiment of a text",
                [0, 1, 2, 3],
                ["sentiment", "Analyze Sentiment", "/v1/sentiment", "polarity"],
                "text! language",
                [
                    "What is the sentiment of '{text}'?",
                    "Analyze the sentiment of '{text}' in {language}.",
                    "Is '{text}' positive or negative?",
                ],
            ),
            C(
                "ta.keywords",
                "Extract keywords from a text",
                [1, 2, 4],
                ["keywords", "Extract Keywords", "/extract/keywords"],
                "text! limit",
                ["Extract keywords from '{text}'.", "Get the top {limit} keywords of '{text}'.", "What are the key terms in '{text}'?"],
            ),
            C(
                "ta.entities",
                "Named entities in a text",
                [0, 1, 3],
                ["entities", "Named Entities", "/ner"],
                "text!",
                ["Find the named entities in '{text}'.", "Which people and places are in '{text}'?", "Run NER on '{text}'."],
            ),
            C(
                "ta.profanity",
                "Check a text for profanity",
                [0, 2, 4],
                ["profanity", "Profanity Filter", "/check"],
                "text!",
                ["Does '{text}' contain profanity?", "Check '{text}' for bad words.", "Filter profanity from '{text}'."],
            ),
            C(
                "ta.spell",
                "Spell check a text",
                [1, 2, 3, 4],
                ["spellcheck", "Spell Check", "/v1/spelling", "correct"],
                "text! language",
                ["Spell check '{text}'.", "Correct the spelling of '{text}' in {language}.", "Any typos in '{text}'?"],
            ),
        ],
    ),
    (
        "Email",
        [
            T("MailPost", "Transactional email delivery.", "freemium"),
            T("Inbox Guard", "Email verification.", "fast"),
            T("SendQuiet", "End-to-end encrypted email API.", "private"),
            T("BulkMailer Enterprise", "High-volume email for enterprises.", "enterprise"),
            T("Temp Mail_v2", "Disposable inboxes.", "hobby"),
        ],
        [
            C(
                "email.send",
                "Send an email",
                [0, 2, 3],
                ["send", "/v3/mail/send", "Send Email"],
                "email! subject! message! tags_arr",
                [
                    "Send an email to {email} with subject '{subject}' saying '{message}'.",
                    "Email {email}: '{subject}' - '{message}'.",
                    "Mail '{message}' to {email} titled '{subject}', tagged {tags_arr}.",
                ],
            ),
            C(
                "email.verify",
                "Check whether an email address is deliverable",
                [1, 0, 3, 4],
                ["verify", "Email Verification", "/v1/validate", "check-email"],
                "email!",
                ["Is {email} a valid email address?", "Verify {email}.", "Check whether mail to {email} would bounce."],
            ),
            C(
                "email.domains",
                "List domains for disposable inboxes",
                [4, 1],
                ["domains", "Get Domains"],
                "",
                ["List available email domains.", "Which domains can I use for a temporary inbox?", "Get domains from {tool}."],
            ),
            C(
                "email.stats",
                "Delivery statistics for a period",
                [0, 2, 3],
                ["stats", "Delivery Stats", "/v3/stats"],
                "date! date_end",
                [
                    "Show email delivery stats since {date}.",
                    "Get delivery statistics from {date} to {date_end}.",
                    "How many emails bounced since {date}?",
                ],
            ),
        ],
    ),
    (
        "SMS",
        [
            T("TextBridge", "SMS delivery to 200 countries.", "freemium"),
            T("SignalSafe SMS", "Privacy-first messaging.", "private"),
            T("Blaze SMS", "Fastest SMS routes.", "fast"),
            T("Carrier Grade Messaging", "Direct carrier connections.", "enterprise"),
            T("FreeSMS Gateway ", "Free SMS for testing.", "hobby"),
        ],
        [
            C(
                "sms.send",
                "Send an SMS",
                [0, 1, 2, 3, 4],
                ["send", "/v1/messages", "Send SMS", "sms/send", "sendMessage"],
                "phone! message!",
                ["Text {phone}: '{message}'.", "Send an SMS to {phone} saying '{message}'.", "Message {phone} with '{message}'."],
            ),
            C(
                "sms.lookup",
                "Carrier and line type of a phone number",
                [0, 2, 3],
                ["lookup", "Number Lookup", "/v2/phone/{number}"],
                "phone! country",
                ["Which carrier does {phone} use?", "Look up the phone number {phone}.", "Is {phone} a mobile number in {country}?"],
            ),
            C(
                "sms.status",
                "Delivery status of a message",
                [0, 1, 3],
                ["messages/{id}", "Message Status", "status"],
                "post_id!",
                ["Was message {post_id} delivered?", "Check the status of message {post_id}.", "Delivery report for {post_id}."],
            ),
            C(
                "sms.countries",
                "List supported countries and prices",
                [0, 2, 4],
                ["pricing", "Countries", "/v1/coverage"],
                "",
                ["Which countries can I send SMS to?", "List SMS prices by country.", "Get coverage from {tool}."],
            ),
        ],
    ),
    (
        "Social",
        [
            T("SocialScope", "Public social media data.", "freemium"),
            T("Instagram Looter_v2", "Scraped public profiles.", "hobby"),
            T("TikTok Downloader - No Watermark", "Video downloads and stats.", "budget"),
            T("Brandwatch-like Enterprise", "Social listening for brands.", "enterprise"),
            T("PrivySocial", "Social data via privacy-preserving proxies.", "private"),
            T("Fast Social Stats", "Low-latency follower stats.", "fast"),
        ],
        [
            C(
                "social.profile",
                "Public profile of an account",
                [0, 1, 2, 4, 5],
                ["user/info", "Get Profile", "/v1/users/{username}", "profile", "user-details"],
                "username!",
                ["Get the profile of @{username}.", "How many followers does {username} have?", "Show me {username}'s account info."],
            ),
            C(
                "social.posts",
                "Recent posts of an account",
                [0, 1, 3, 4],
                ["user/posts", "User Posts", "/users/{id}/feed", "timeline"],
                "username! limit",
                ["Show the latest posts by {username}.", "Get {limit} recent posts from {username}.", "What has {username} posted lately?"],
            ),
            C(
                "social.hashtag",
                "Posts for a hashtag",
                [0, 1, 2, 3],
                ["hashtag/feed", "Hashtag Posts", "/challenge/{name}", "tags/search"],
                "hashtag! limit",
                ["Show posts tagged #{hashtag}.", "Get {limit} posts for #{hashtag}.", "What's trending under #{hashtag}?"],
            ),
            C(
                "social.post",
                "Details of one post",
                [1, 2, 5],
                ["media/info", "Post Info", "/post/{id}"],
                "post_id!",
                ["Get details for post {post_id}.", "How many likes does post {post_id} have?", "Show post {post_id}."],
            ),
            C(
                "social.mentions",
                "Mentions of a brand or term",
                [3, 4, 0],
                ["mentions", "Brand Mentions", "/listening/search"],
                "query! date",
                ["Find mentions of {query}.", "Who talked about {query} since {date}?", "Track social mentions of {query}."],
            ),
        ],
    ),
    (
        "Jobs",
        [
            T("JobPortal", "Job listings from thousands of boards.", "freemium"),
            T("Remote Jobs API", "Remote-only jobs.", "hobby"),
            T("TalentGraph", "Labour market data for HR.", "enterprise"),
            T("JSearch Fast", "Fast job search.", "fast"),
        ],
        [
            C(
                "jobs.search",
                "Search jobs",
                [0, 1, 2, 3],
                ["search", "Search Jobs", "/v1/jobs", "jobs/list"],
                "job_title! place remote salary_min",
                [
                    "Find {job_title} jobs in {place}.",
                    "Search remote {job_title} positions{remote=true}.",
                    "List {job_title} jobs paying at least {salary_min}.",
                ],
            ),
            C(
                "jobs.salary",
                "Salary estimate for a role",
                [0, 2, 3],
                ["estimated-salary", "Salary Estimate", "/salaries"],
                "job_title! place",
                ["How much does a {job_title} earn?", "What's the salary of a {job_title} in {place}?", "Estimate pay for {job_title}."],
            ),
            C(
                "jobs.details",
                "Details of a job posting",
                [0, 1, 3],
                ["job-details", "Job Details", "/jobs/{id}"],
                "post_id!",
                ["Show job posting {post_id}.", "Get the details of job {post_id}.", "What does job {post_id} require?"],
            ),
            C(
                "jobs.companies",
                "Open positions at a company",
                [0, 2],
                ["company/jobs", "Company Openings"],
                "company! limit",
                ["Is {company} hiring?", "List {limit} open positions at {company}.", "What jobs does {company} have?"],
            ),
        ],
    ),
    (
        "Real_Estate",
        [
            T("HomeSearch", "Listings from 900 agencies.", "freemium"),
            T("Bayut-style Listings", "Property portal data for the Gulf.", "budget"),
            T("Idealista_v2", "Southern European property listings.", "hobby"),
            T("PropData Pro", "Valuations for lenders.", "enterprise"),
            T("Realty Fast", "Quick property search.", "fast"),
        ],
        [
            C(
                "re.search",
                "Search properties",
                [0, 1, 2, 4],
                ["properties/list", "Search Properties", "/v2/listings", "search"],
                "place! listing_type bedrooms price_max",
                [
                    "Find properties in {place}.",
                    "List homes {listing_type} in {place} with {bedrooms} bedrooms.",
                    "Search {listing_type} properties in {place} under {price_max} thousand.",
                ],
            ),
            C(
                "re.details",
                "Details of a property",
                [0, 1, 3, 4],
                ["properties/detail", "Property Details", "/property/{zpid}", "listing"],
                "property_id!",
                ["Show property {property_id}.", "Get details of listing {property_id}.", "Tell me about property {property_id}."],
            ),
            C(
                "re.valuation",
                "Estimated value of a home",
                [0, 3],
                ["zestimate", "Valuation"],
                "address!",
                ["What is {address} worth?", "Estimate the value of {address}.", "Home valuation for {address}."],
            ),
            C(
                "re.agencies",
                "Find real estate agencies",
                [1, 2, 4],
                ["agencies/list", "Agencies", "/agents"],
                "place! page",
                ["Find real estate agents in {place}.", "List agencies in {place}, page {page}.", "Who sells homes in {place}?"],
            ),
            C(
                "re.autocomplete",
                "Autocomplete locations for property search",
                [0, 1, 2, 4],
                ["auto-complete", "Location Suggest", "locations/search", "/suggest"],
                "query!",
                ["Suggest locations matching '{query}'.", "Autocomplete '{query}' for a property search.", "Which areas match '{query}'?"],
            ),
        ],
    ),
    (
        "Health_and_Fitness",
        [
            T("FitMetrics", "Fitness calculators.", "freemium"),
            T("Gym Buddy", "Exercise database.", "hobby"),
            T("HealthGraph Private", "Health APIs with strict privacy.", "private"),
            T("CalorieBurn", "Calories and activity data.", "budget"),
            T("Wellness Enterprise", "Clinical-grade fitness data.", "enterprise"),
        ],
        [
            C(
                "fit.bmi",
                "Body mass index",
                [0, 2, 3, 4],
                ["bmi", "Calculate BMI", "/v1/bmi", "body-mass-index"],
                "body_weight! height_cm!",
                [
                    "What is my BMI at {body_weight} kg and {height_cm} cm?",
                    "Calculate BMI for {body_weight} kg, {height_cm} cm.",
                    "BMI for someone {height_cm} cm tall weighing {body_weight} kg.",
                ],
            ),
            C(
                "fit.calories_burned",
                "Calories burned by an activity",
                [0, 3, 4],
                ["caloriesburned", "Calories Burned", "/activity/calories"],
                "exercise! duration_min! body_weight",
                [
                    "How many calories do I burn {exercise} for {duration_min} minutes?",
                    "Calories burned by {duration_min} min of {exercise} at {body_weight} kg.",
                    "Energy used by {exercise} for {duration_min} minutes.",
                ],
            ),
            C(
                "fit.exercises",
                "Exercises for a muscle or type",
                [0, 1, 4],
                ["exercises", "Exercise List", "/exercises/target/{muscle}"],
                "query level",
                ["Suggest {level} exercises.", "List exercises for {query}.", "Give me a workout for {query}."],
            ),
            C(
                "fit.bodyfat",
                "Body fat estimate",
                [0, 2, 4],
                ["bodyfat", "Body Fat", "/v1/body-fat"],
                "body_weight! height_cm!",
                [
                    "Estimate body fat for {body_weight} kg and {height_cm} cm.",
                    "What's my body fat percentage at {body_weight} kg and {height_cm} cm?",
                    "Body fat estimate at {height_cm} cm, {body_weight} kg.",
                ],
            ),
            C(
                "fit.muscles",
                "List muscle groups",
                [1, 3, 4],
                ["targetList", "Muscle Groups", "/muscles"],
                "",
                ["List all muscle groups.", "Which muscles can I target?", "Get the target list from {tool}."],
            ),
        ],
    ),
    (
        "Medical",
        [
            T("MedInfo", "Drug and disease reference.", "freemium"),
            T("RxSafe", "Medication data with no tracking.", "private"),
            T("ClinicalCodes Pro", "Coding and terminology services.", "enterprise"),
            T("OpenFDA-ish", "Open drug labels.", "open"),
        ],
        [
            C(
                "med.drug_info",
                "Information about a medication",
                [0, 1, 3],
                ["drug", "Drug Info", "/label/{drug}"],
                "drug!",
                ["What is {drug} used for?", "Get information about {drug}.", "Show the label of {drug}."],
            ),
            C(
                "med.interactions",
                "Interactions between two drugs",
                [0, 1, 2],
                ["interactions", "Drug Interactions", "/interaction/list"],
                "drug! query!",
                ["Can I take {drug} with {query}?", "Check interactions between {drug} and {query}.", "Do {drug} and {query} interact?"],
            ),
            C(
                "med.icd_lookup",
                "Describe an ICD-10 code",
                [0, 2, 3],
                ["icd10/{code}", "ICD Lookup", "codes"],
                "icd!",
                ["What does ICD-10 code {icd} mean?", "Describe {icd}.", "Look up diagnosis code {icd}."],
            ),
            C(
                "med.symptoms",
                "Possible conditions for a symptom",
                [0, 1, 2],
                ["symptom-checker", "Symptoms", "/diagnosis"],
                "symptom! adults",
                ["What could cause {symptom}?", "List conditions with {symptom}.", "Symptom check for {symptom}."],
            ),
        ],
    ),
    (
        "Education",
        [
            T("CourseCompass", "Online course search.", "freemium"),
            T("OpenSyllabus", "Open educational resources.", "open"),
            T("UniRank", "University rankings and data.", "premium"),
            T("Tutor Bot", "Homework help.", "hobby"),
        ],
        [
            C(
                "edu.courses",
                "Search online courses",
                [0, 1, 3],
                ["courses/search", "Find Courses", "/v1/courses"],
                "course_topic! level language",
                [
                    "Find courses on {course_topic}.",
                    "Search {level} {course_topic} courses.",
                    "Courses about {course_topic} in {language}.",
                ],
            ),
            C(
                "edu.university",
                "Information about a university",
                [0, 2, 1],
                ["universities", "University Info", "/search"],
                "university! country",
                ["Tell me about {university}.", "Get details of {university} in {country}.", "What is {university} known for?"],
            ),
            C(
                "edu.rankings",
                "University rankings",
                [2, 1],
                ["rankings", "World Rankings"],
                "country year",
                ["Show university rankings.", "Top universities in {country}.", "University rankings for {year}."],
            ),
            C(
                "edu.subjects",
                "List subjects",
                [0, 1, 3],
                ["subjects", "Subject List", "/categories"],
                "",
                ["List all subjects.", "Which subjects are offered?", "Get subjects from {tool}."],
            ),
        ],
    ),
    (
        "Science",
        [
            T("PeriodicTable API", "Chemical element data.", "open"),
            T("AstroData", "Ephemerides and planetary data.", "premium"),
            T("Science Facts 🔬", "Fun science facts.", "hobby"),
            T("QuakeWatch", "Earthquake feeds.", "fast"),
            T("BioIndex", "Species and taxonomy.", "freemium"),
        ],
        [
            C(
                "sci.element",
                "Properties of a chemical element",
                [0, 2, 4],
                ["element/{symbol}", "Element Info", "elements"],
                "element!",
                ["What are the properties of {element}?", "Get data about the element {element}.", "Atomic mass of {element}?"],
            ),
            C(
                "sci.planet",
                "Data about a solar system body",
                [1, 2, 0],
                ["bodies/{id}", "Planet Info", "planets"],
                "planet!",
                ["Tell me about {planet}.", "How far is {planet} from the Sun?", "Get physical data for {planet}."],
            ),
            C(
                "sci.earthquakes",
                "Recent earthquakes",
                [3, 1, 2],
                ["query", "Recent Earthquakes", "/feed/all_day"],
                "quake_mag geo radius",
                ["Show recent earthquakes.", "List earthquakes above magnitude {quake_mag}.", "Any quakes within {radius} m of {geo}?"],
            ),
            C(
                "sci.species",
                "Taxonomy of a species",
                [4, 0, 2],
                ["species/search", "Species Lookup", "/taxon"],
                "species!",
                ["What is the taxonomy of {species}?", "Look up the species {species}.", "Tell me about {species}."],
            ),
            C(
                "sci.apod",
                "Astronomy picture of the day",
                [1, 2, 4, 3],
                ["apod", "Picture Of The Day", "/v1/apod", "daily-image"],
                "date",
                ["Show today's astronomy picture.", "Get the astronomy picture for {date}.", "What was the space picture on {date}?"],
            ),
        ],
    ),
    (
        "Gaming",
        [
            T("GameVault", "Game metadata for 500k titles.", "freemium"),
            T("Steam-ish Store Data", "Store prices and reviews.", "budget"),
            T("PlayerStats Pro", "Player statistics across titles.", "premium"),
            T("CheapShark-like", "Game deals.", "open"),
            T("RetroGames DB", "Classic games archive.", "hobby"),
        ],
        [
            C(
                "game.search",
                "Search games",
                [0, 1, 3, 4],
                ["games", "Search Games", "/v1/search", "lookup"],
                "game! platform",
                ["Find the game {game}.", "Search {game} on {platform}.", "Look up {game}."],
            ),
            C(
                "game.deals",
                "Current deals for a game",
                [1, 3, 0],
                ["deals", "Game Deals", "/prices/{appid}"],
                "game! price_max",
                ["Are there deals on {game}?", "Find {game} for under {price_max} dollars.", "Cheapest price for {game}?"],
            ),
            C(
                "game.player",
                "Statistics of a player",
                [2, 0, 1],
                ["players/{tag}", "Player Stats", "profile/stats"],
                "player_tag! platform",
                ["Get stats for player {player_tag}.", "How good is {player_tag} on {platform}?", "Show the profile of {player_tag}."],
            ),
            C(
                "game.free",
                "Free-to-play games",
                [0, 3, 4],
                ["free", "Free Games", "/games?price=0"],
                "platform sort",
                ["List free games.", "Free-to-play games on {platform}.", "Show free games sorted by {sort}."],
            ),
            C(
                "game.platforms",
                "List gaming platforms",
                [0, 1, 4, 2],
                ["platforms", "Platform List", "/platforms", "v2/platforms"],
                "",
                ["List all gaming platforms.", "Which platforms are tracked?", "Get platforms from {tool}."],
            ),
        ],
    ),
    (
        "Entertainment",
        [
            T("Joke Factory", "Jokes by category.", "hobby"),
            T("Horoscope Daily", "Daily horoscopes.", "budget"),
            T("TriviaTime", "Trivia questions.", "freemium"),
            T("Meowfacts", "Cat facts.", "open"),
            T("Fun Facts Premium", "Curated facts and jokes.", "premium"),
        ],
        [
            C(
                "ent.joke",
                "A random joke",
                [0, 2, 4, 1],
                ["random", "Random Joke", "/joke/{category}", "jokes/random"],
                "joke_cat",
                ["Tell me a joke.", "Give me a {joke_cat} joke.", "I need a random joke."],
            ),
            C(
                "ent.horoscope",
                "Today's horoscope",
                [1, 4, 0],
                ["horoscope", "Daily Horoscope", "/sign/{sign}"],
                "horoscope_sign! date",
                [
                    "What's the horoscope for {horoscope_sign}?",
                    "Horoscope for {horoscope_sign} on {date}.",
                    "Read me today's {horoscope_sign} horoscope.",
                ],
            ),
            C(
                "ent.trivia",
                "Trivia questions",
                [2, 4, 3],
                ["questions", "Trivia Questions", "/api.php"],
                "limit level",
                ["Give me {limit} trivia questions.", "I want {level} trivia.", "Quiz me with some trivia."],
            ),
            C(
                "ent.fact",
                "A random fact",
                [3, 4, 2, 0],
                ["facts", "Random Fact", "/fact", "fun"],
                "",
                ["Tell me a fun fact.", "Give me a random fact.", "I want a fact from {tool}."],
            ),
            C(
                "ent.health",
                "Service health check",
                [3, 0, 2],
                ["healthcheck", "Health", "/status"],
                "",
                ["I want to check the health status of {tool} API.", "Is the service up?", "Run a health check."],
            ),
        ],
    ),
    (
        "Video_Images",
        [
            T("PixelForge", "Image processing in the cloud.", "premium"),
            T("Background Remover ✂️", "Remove image backgrounds.", "budget"),
            T("ImageKit Fast", "Image CDN with instant transforms.", "fast"),
            T("VidMeta", "Video metadata.", "freemium"),
            T("PrivatePixels", "Image tools that delete uploads immediately.", "private"),
        ],
        [
            C(
                "img.remove_bg",
                "Remove the background of an image",
                [0, 1, 4],
                ["remove-background", "Remove BG", "/v1/cutout"],
                "image_url! img_format",
                [
                    "Remove the background from {image_url}.",
                    "Cut out the subject of {image_url} as {img_format}.",
                    "Make {image_url} transparent.",
                ],
            ),
            C(
                "img.resize",
                "Resize an image",
                [0, 2, 4],
                ["resize", "/transform/w_{width}", "Resize Image"],
                "image_url! width! img_format",
                [
                    "Resize {image_url} to {width} px wide.",
                    "Scale {image_url} to width {width} as {img_format}.",
                    "Make {image_url} {width} pixels wide.",
                ],
            ),
            C(
                "img.ocr",
                "Extract text from an image",
                [0, 2, 4, 1],
                ["ocr", "Image To Text", "/v2/read", "extract-text"],
                "image_url! language",
                ["Read the text in {image_url}.", "OCR {image_url} in {language}.", "What does the image {image_url} say?"],
            ),
            C(
                "vid.info",
                "Metadata of a video",
                [3, 0, 2],
                ["videos", "Video Details", "/video/{id}"],
                "video_id!",
                ["Get information about video {video_id}.", "How long is video {video_id}?", "Show video {video_id}'s details."],
            ),
            C(
                "vid.subtitles",
                "Subtitles of a video",
                [3, 4],
                ["captions", "Subtitles"],
                "video_id! language",
                ["Get subtitles for {video_id}.", "Download {language} captions for {video_id}.", "Transcript of video {video_id}."],
            ),
        ],
    ),
    (
        "Tools",
        [
            T("QuickQR ", "QR code generator.", "hobby"),
            T("ShortLink", "URL shortener with analytics.", "freemium"),
            T("DevUtils Pro", "Developer utilities.", "premium"),
            T("Password Lab", "Password tools that never store input.", "private"),
            T("Color Tools", "Color conversion and palettes.", "open"),
            T("Judge-ish Code Runner", "Run code in sandboxes.", "fast"),
        ],
        [
            C(
                "tools.qr",
                "Generate a QR code",
                [0, 2, 1, 4],
                ["qrcode", "Generate QR", "/v1/create-qr-code", "qr/png"],
                "qr_data! width img_format",
                ["Make a QR code for {qr_data}.", "Generate a {width}px QR code for {qr_data}.", "QR code of {qr_data} as {img_format}."],
            ),
            C(
                "tools.shorten",
                "Shorten a URL",
                [1, 2, 0],
                ["shorten", "Shorten URL", "/links"],
                "url!",
                ["Shorten {url}.", "Make a short link for {url}.", "I need a tiny URL for {url}."],
            ),
            C(
                "tools.password",
                "Generate a password",
                [3, 2, 0],
                ["generate", "Generate Password", "/password"],
                "pw_length",
                ["Generate a strong password.", "Create a {pw_length}-character password.", "Give me a random password."],
            ),
            C(
                "tools.password_strength",
                "Check password strength",
                [3, 2],
                ["strength", "Password Strength"],
                "password!",
                ["How strong is the password '{password}'?", "Check the strength of '{password}'.", "Is '{password}' a safe password?"],
            ),
            C(
                "tools.color",
                "Convert a color",
                [4, 2],
                ["convert", "Color Info"],
                "color! img_format",
                ["Convert {color} to RGB.", "What color is {color}?", "Get details of color {color}."],
            ),
            C(
                "tools.run_code",
                "Run a snippet of code",
                [5, 2],
                ["submissions", "Run Code"],
                "code! prog_lang!",
                ["Run this {prog_lang} code: {code}", "Execute {code} as {prog_lang}.", "What does {code} print in {prog_lang}?"],
            ),
            C(
                "tools.statuses",
                "List code runner statuses",
                [5, 2, 0],
                ["Get Statuses", "statuses", "/status-list"],
                "",
                ["Get all available statuses.", "List execution statuses.", "Which statuses can a submission have on {tool}?"],
            ),
        ],
    ),
    (
        "Data",
        [
            T("VATcheck", "EU VAT validation.", "freemium"),
            T("IBAN Tools", "Bank account validation.", "open"),
            T("DataAxle-ish", "Company data.", "enterprise"),
            T("IP Geo Fast", "IP geolocation.", "fast"),
            T("IPQuiet", "IP intelligence with no logging.", "private"),
            T("WHOIS Lite", "Domain registration data.", "budget"),
        ],
        [
            C(
                "data.vat",
                "Validate an EU VAT number",
                [0, 2, 1],
                ["validate", "VAT Validation", "/vat/{number}"],
                "vat!",
                ["Is VAT number {vat} valid?", "Validate VAT {vat}.", "Check the company behind {vat}."],
            ),
            C(
                "data.iban",
                "Validate an IBAN",
                [1, 0, 2],
                ["iban/validate", "Validate IBAN", "/v1/iban"],
                "iban!",
                ["Is {iban} a valid IBAN?", "Validate the IBAN {iban}.", "Which bank does {iban} belong to?"],
            ),
            C(
                "data.ip",
                "Geolocate an IP address",
                [3, 4, 5, 2],
                ["ip/{ip}", "IP Lookup", "/json", "geoip"],
                "ip! bool_detail",
                ["Where is IP {ip}?", "Geolocate {ip}.", "Get full details{bool_detail=true} for {ip}."],
            ),
            C(
                "data.whois",
                "WHOIS record of a domain",
                [5, 3, 2],
                ["whois", "Domain WHOIS", "/v1/{domain}"],
                "domain!",
                ["Who owns {domain}?", "Get the WHOIS record of {domain}.", "When was {domain} registered?"],
            ),
            C(
                "data.company",
                "Company firmographics",
                [2, 0, 5],
                ["companies/enrich", "Company Lookup", "/company"],
                "domain! bool_detail",
                ["Get company data for {domain}.", "How many employees does {domain} have?", "Enrich the company at {domain}."],
            ),
            C(
                "data.my_ip",
                "The caller's own IP address",
                [3, 4, 5],
                ["myip", "What Is My IP", "/"],
                "",
                ["What is my IP address?", "Get my public IP.", "Which IP do I call {tool} from?"],
            ),
        ],
    ),
    (
        "Cybersecurity",
        [
            T("ThreatScan", "Malware and URL reputation.", "premium"),
            T("BreachCheck", "Leaked credential checks.", "private"),
            T("SSL Inspector", "TLS certificate checks.", "open"),
            T("Phish Fast", "Phishing detection in milliseconds.", "fast"),
        ],
        [
            C(
                "sec.url_scan",
                "Reputation of a URL",
                [0, 3, 2],
                ["url/report", "Scan URL", "/v1/check"],
                "url!",
                ["Is {url} safe?", "Scan {url} for malware.", "Check {url} for phishing."],
            ),
            C(
                "sec.file_hash",
                "Reputation of a file hash",
                [0, 3],
                ["file/report", "Hash Lookup"],
                "hash!",
                ["Is the file {hash} malicious?", "Look up hash {hash}.", "Scan results for {hash}."],
            ),
            C(
                "sec.breach",
                "Breaches an email appears in",
                [1, 0, 3],
                ["breachedaccount", "Check Breach", "/email/{email}"],
                "email! bool_detail",
                ["Has {email} been in a data breach?", "Check {email} for leaks.", "Which breaches include {email}?"],
            ),
            C(
                "sec.ssl",
                "TLS certificate of a domain",
                [2, 0, 1],
                ["analyze", "SSL Check", "/tls/{host}"],
                "domain!",
                ["Check the SSL certificate of {domain}.", "When does {domain}'s certificate expire?", "Is {domain}'s TLS set up right?"],
            ),
        ],
    ),
    (
        "Commerce",
        [
            T("ShipTrack", "Parcel tracking for 1,200 carriers.", "freemium"),
            T("ParcelPal", "Shipping rates and labels.", "budget"),
            T("LogiCore Enterprise", "Logistics data platform.", "enterprise"),
            T("TrackFast", "Instant tracking updates.", "fast"),
        ],
        [
            C(
                "ship.track",
                "Track a parcel",
                [0, 1, 2, 3],
                ["trackings/{tracking_number}", "Track Parcel", "/v1/track", "status"],
                "tracking! carrier",
                ["Where is my parcel {tracking}?", "Track {tracking} with {carrier}.", "Status of package {tracking}."],
            ),
            C(
                "ship.rates",
                "Shipping rates for a parcel",
                [1, 2, 3],
                ["rates", "Shipping Rates", "/quote"],
                "origin! destination! weight!",
                [
                    "How much to ship {weight} kg from {origin} to {destination}?",
                    "Get shipping rates {origin} to {destination} for {weight} kg.",
                    "Quote a {weight} kg parcel to {destination} from {origin}.",
                ],
            ),
            C(
                "ship.carriers",
                "List supported carriers",
                [0, 1, 3],
                ["couriers", "Carriers", "/carriers"],
                "",
                ["List supported carriers.", "Which couriers can {tool} track?", "Get all carriers."],
            ),
            C(
                "ship.order",
                "Status of a store order",
                [2, 0],
                ["orders/{id}", "Order Status"],
                "order_id!",
                ["What's the status of order {order_id}?", "Track order {order_id}.", "Has order {order_id} shipped?"],
            ),
        ],
    ),
    (
        "Transportation",
        [
            T("TransitNow", "Real-time public transport.", "fast"),
            T("CarSpecs", "Vehicle specifications.", "freemium"),
            T("VIN Decoder Free", "Free VIN decoding.", "hobby"),
            T("Mobility Data Pro", "Transit and vehicle data for cities.", "enterprise"),
            T("PlateCheck", "License plate lookups, privacy-aware.", "private"),
        ],
        [
            C(
                "trans.departures",
                "Next departures at a stop",
                [0, 3],
                ["departures", "Stop Departures"],
                "stop_id! limit",
                ["When is the next bus at stop {stop_id}?", "Next {limit} departures from {stop_id}.", "Departures at station {stop_id}."],
            ),
            C(
                "trans.route_status",
                "Service status of a transit line",
                [0, 3, 1],
                ["line/{id}/status", "Line Status", "/disruptions"],
                "route_id!",
                ["Is the {route_id} line running normally?", "Any disruptions on {route_id}?", "Status of line {route_id}."],
            ),
            C(
                "trans.vin",
                "Decode a VIN",
                [2, 1, 3, 4],
                ["decodevin", "VIN Decode", "/vin/{vin}", "vehicle"],
                "vin!",
                ["Decode VIN {vin}.", "What car has VIN {vin}?", "Get vehicle details for {vin}."],
            ),
            C(
                "trans.car_specs",
                "Specifications of a car model",
                [1, 3, 2],
                ["cars", "Car Specs", "/v1/models"],
                "car_make! car_model! year",
                [
                    "Specs of the {car_make} {car_model}.",
                    "Get data on the {year} {car_make} {car_model}.",
                    "How fast is the {car_make} {car_model}?",
                ],
            ),
            C(
                "trans.plate",
                "Vehicle by license plate",
                [4, 3],
                ["plate", "Plate Lookup"],
                "plate! country",
                ["Which car has plate {plate}?", "Look up plate {plate} in {country}.", "Vehicle info for {plate}."],
            ),
        ],
    ),
    (
        "Energy",
        [
            T("GridPrice", "Day-ahead electricity prices.", "freemium"),
            T("CarbonIntensity", "Grid carbon intensity.", "open"),
            T("FuelWatch", "Fuel station prices.", "budget"),
            T("Energy Markets Pro", "Energy trading data.", "premium"),
        ],
        [
            C(
                "energy.prices",
                "Electricity prices in a zone",
                [0, 3, 1],
                ["prices", "Day Ahead Prices", "/v1/{zone}/prices"],
                "energy_zone! date",
                [
                    "What are electricity prices in {energy_zone}?",
                    "Day-ahead prices for {energy_zone} on {date}.",
                    "How much does power cost in {energy_zone} today?",
                ],
            ),
            C(
                "energy.carbon",
                "Carbon intensity of the grid",
                [1, 0, 3],
                ["intensity", "Carbon Intensity", "/carbon/{zone}"],
                "energy_zone!",
                ["How green is the grid in {energy_zone} now?", "Carbon intensity of {energy_zone}.", "CO2 per kWh in {energy_zone}?"],
            ),
            C(
                "energy.fuel",
                "Fuel prices near a point",
                [2, 3],
                ["stations", "Fuel Prices"],
                "geo! fuel radius",
                ["Cheapest {fuel} near {geo}?", "Fuel prices within {radius} m of {geo}.", "Petrol stations around {geo}."],
            ),
            C(
                "energy.footprint",
                "CO2 footprint of electricity use",
                [1, 0, 2],
                ["footprint", "Electricity Footprint", "/estimate"],
                "kwh! energy_zone",
                ["CO2 footprint of {kwh} kWh?", "Emissions of using {kwh} kWh in {energy_zone}.", "How much carbon is {kwh} kWh?"],
            ),
        ],
    ),
    (
        "Advertising",
        [
            T("AdInsights", "Keyword research.", "freemium"),
            T("AdManager Enterprise", "Campaign management.", "enterprise"),
            T("MultipleTeamsCallingTest", "A sandbox ads API.", "hobby"),
            T("KeywordFast", "Instant keyword volumes.", "fast"),
        ],
        [
            C(
                "ads.keyword_volume",
                "Search volume of a keyword",
                [0, 3, 1],
                ["keywords/volume", "Keyword Volume", "/v1/search-volume"],
                "keyword_ad! country",
                [
                    "How often is '{keyword_ad}' searched?",
                    "Search volume of '{keyword_ad}' in {country}.",
                    "Monthly searches for '{keyword_ad}'.",
                ],
            ),
            C(
                "ads.campaign",
                "Performance of a campaign",
                [1, 2, 0],
                ["campaigns/{id}/insights", "Campaign Stats", "getCampaign"],
                "campaign_id! date",
                [
                    "How is campaign {campaign_id} doing?",
                    "Stats of campaign {campaign_id} since {date}.",
                    "Show performance for {campaign_id}.",
                ],
            ),
            C(
                "ads.create",
                "Create a campaign",
                [1, 2],
                ["campaigns", "createCampaign"],
                "subject! budget! meta_obj",
                [
                    "Create a campaign named '{subject}' with a {budget} dollar daily budget.",
                    "Launch '{subject}' at {budget} per day.",
                    "New campaign '{subject}', budget {budget}, metadata {meta_obj}.",
                ],
            ),
            C(
                "ads.logout",
                "Log out of the ads session",
                [2, 1, 3],
                ["logoutUser", "Logout", "/session/end"],
                "",
                ["Log me out.", "End my session.", "Sign out of {tool}."],
            ),
        ],
    ),
    (
        "Business",
        [
            T("InvoiceHub", "Invoices and billing.", "freemium"),
            T("CRM Cloud", "Customer records.", "enterprise"),
            T("DocConvert", "Document conversion.", "budget"),
            T("PDF Tools Private", "PDF tools that delete files after use.", "private"),
            T("TeamChat Bot", "Chat notifications.", "fast"),
        ],
        [
            C(
                "biz.convert_doc",
                "Convert a document",
                [2, 3, 0],
                ["convert", "Convert Document", "/v1/convert/{format}"],
                "file_url! doc_format!",
                ["Convert {file_url} to {doc_format}.", "Turn {file_url} into a {doc_format} file.", "I need {file_url} as {doc_format}."],
            ),
            C(
                "biz.pdf_split",
                "Extract pages from a PDF",
                [3, 2],
                ["split", "Extract Pages"],
                "file_url! pages_arr!",
                [
                    "Extract pages {pages_arr} from {file_url}.",
                    "Keep only pages {pages_arr} of {file_url}.",
                    "Split {file_url}, pages {pages_arr}.",
                ],
            ),
            C(
                "biz.contact",
                "Create a CRM contact",
                [1, 0, 4],
                ["contacts", "Create Contact", "/crm/v3/objects/contacts"],
                "email! company meta_obj tags_arr",
                ["Add {email} as a contact.", "Create a contact {email} at {company}.", "Save {email} with tags {tags_arr}."],
            ),
            C(
                "biz.notify",
                "Post a message to a chat channel",
                [4, 1],
                ["chat.postMessage", "Send Notification"],
                "channel! message!",
                ["Post '{message}' to {channel}.", "Notify {channel}: {message}.", "Send '{message}' in {channel}."],
            ),
            C(
                "biz.invoice",
                "Create an invoice",
                [0, 1],
                ["invoices", "Create Invoice"],
                "email! amount! currency",
                ["Invoice {email} for {amount}.", "Create an invoice of {amount} {currency} for {email}.", "Bill {email} {amount}."],
            ),
        ],
    ),
    (
        "Events",
        [
            T("EventFinder", "Concerts and shows.", "freemium"),
            T("TicketScout", "Ticket prices.", "budget"),
            T("Holiday Calendar API", "Public holidays.", "open"),
            T("Conference Hub Pro", "Professional events.", "premium"),
        ],
        [
            C(
                "events.search",
                "Search events in a city",
                [0, 1, 3],
                ["events/search", "Find Events", "/discovery/v2/events"],
                "place! event_type date",
                ["What's on in {place}?", "Find {event_type} events in {place}.", "Events in {place} on {date}."],
            ),
            C(
                "events.holidays",
                "Public holidays of a country",
                [2, 0, 3],
                ["PublicHolidays/{year}/{cc}", "Holidays", "/holidays"],
                "country! holiday_year",
                [
                    "List public holidays in {country}.",
                    "Holidays in {country} in {holiday_year}.",
                    "When are the bank holidays in {country}?",
                ],
            ),
            C(
                "events.tickets",
                "Ticket prices for an event",
                [1, 0],
                ["listings", "Ticket Prices"],
                "match_id! price_max",
                [
                    "How much are tickets for event {match_id}?",
                    "Tickets for {match_id} under {price_max}.",
                    "Cheapest seats at {match_id}?",
                ],
            ),
            C(
                "events.countries",
                "Supported countries",
                [2, 0, 1],
                ["AvailableCountries", "Countries", "/v1/countries"],
                "",
                ["Which countries are supported?", "List available countries.", "Get the countries {tool} covers."],
            ),
        ],
    ),
    (
        "Books",
        [
            T("BookShelf", "Book metadata.", "freemium"),
            T("OpenLibrary-ish", "Open book catalog.", "open"),
            T("Bookworm 📚", "Book quotes and reviews.", "hobby"),
            T("Publisher Data Pro", "Publishing industry data.", "enterprise"),
        ],
        [
            C(
                "books.search",
                "Search books",
                [0, 1, 2, 3],
                ["volumes", "Search Books", "/search.json", "find"],
                "book! author",
                ["Find the book {book}.", "Search {book} by {author}.", "Look up {book}."],
            ),
            C(
                "books.isbn",
                "Book by ISBN",
                [0, 1, 3],
                ["isbn/{isbn}", "Book By ISBN", "/books"],
                "isbn!",
                ["Which book has ISBN {isbn}?", "Look up ISBN {isbn}.", "Get details for {isbn}."],
            ),
            C(
                "books.author",
                "Works of an author",
                [0, 1, 2],
                ["authors/works", "Author Works", "/author/{name}"],
                "author! limit",
                ["What did {author} write?", "List {limit} books by {author}.", "Show {author}'s works."],
            ),
            C(
                "books.quote",
                "A random book quote",
                [2, 0],
                ["quote", "Random Quote"],
                "author",
                ["Give me a book quote.", "Quote from {author}.", "A random literary quote, please."],
            ),
        ],
    ),
    (
        "Software_Dev",
        [
            T("RepoStats", "Repository statistics.", "freemium"),
            T("Github API Scraper ", "Scraped repository data.", "hobby"),
            T("PackageIndex", "Package registry metadata.", "open"),
            T("CodeIntel Enterprise", "Code intelligence.", "enterprise"),
        ],
        [
            C(
                "dev.repo",
                "Repository information",
                [0, 1, 3],
                ["repos/{owner}/{repo}", "Repo Info", "getRepository"],
                "repo!",
                ["Tell me about the repo {repo}.", "Stars and forks of {repo}?", "Get repository {repo}."],
            ),
            C(
                "dev.package",
                "Package metadata",
                [2, 3, 0],
                ["pypi/{package}/json", "Package Info", "/v1/packages"],
                "package! prog_lang",
                ["Latest version of {package}?", "Get metadata for the {prog_lang} package {package}.", "Who maintains {package}?"],
            ),
            C(
                "dev.trending",
                "Trending repositories",
                [0, 1, 3, 2],
                ["trending", "Trending Repos", "/explore", "popular"],
                "prog_lang",
                ["What repos are trending?", "Trending {prog_lang} repositories.", "Show popular repositories this week."],
            ),
            C(
                "dev.issues",
                "Open issues of a repository",
                [0, 1, 3],
                ["repos/{repo}/issues", "List Issues", "/issues"],
                "repo! limit tags_arr",
                ["List open issues in {repo}.", "Get {limit} issues from {repo}.", "Issues in {repo} labelled {tags_arr}."],
            ),
        ],
    ),
    (
        "Agriculture",
        [
            T("FarmPrices", "Commodity prices.", "freemium"),
            T("SoilSense", "Soil and crop data.", "premium"),
            T("AgriOpen", "Open agricultural statistics.", "open"),
        ],
        [
            C(
                "agri.price",
                "Market price of a crop",
                [0, 2, 1],
                ["prices/{commodity}", "Crop Price", "/v1/market"],
                "crop! country",
                ["What is {crop} selling for?", "Price of {crop} in {country}.", "Market price for {crop}."],
            ),
            C(
                "agri.soil",
                "Soil properties at a point",
                [1, 2],
                ["soil", "Soil Data"],
                "geo!",
                ["Soil data at {geo}.", "What's the soil like at {geo}?", "Get soil properties for {geo}."],
            ),
            C(
                "agri.yield",
                "Crop yield statistics",
                [2, 1, 0],
                ["yields", "Yield Stats", "/production"],
                "crop! country! year",
                [
                    "Yield of {crop} in {country}.",
                    "How much {crop} did {country} produce in {year}?",
                    "Crop production for {crop} in {country}.",
                ],
            ),
        ],
    ),
]


def F(cid, desc, tools, api_names, templates, params=""):
    """A cluster whose APIs usually take no parameters (health checks, list-all, config, random item)."""
    return C(cid, desc, tools, api_names, params, templates)


# Parameter-free and list-all endpoints are ~40% of real PEToolBench ground truths (status checks,
# "get all X", supported languages/currencies, configuration, random item): these clusters add them,
# with a few that take one value so that no category is left with too few APIs.
MORE_CLUSTERS = {
    "Weather": [
        C(
            "weather.uv",
            "UV index for a city",
            [1, 5],
            ["uv", "UV Index"],
            "place!",
            ["How strong is the sun in {place} today?", "Get the UV index for {place}.", "I need the current UV level in {place}."],
        ),
        F(
            "weather.stations",
            "List all weather stations the service reads from",
            [1, 3],
            ["stations", "Get All Stations"],
            [
                "I want to get the list of all weather stations.",
                "List every weather station {tool} uses.",
                "Which weather stations are available?",
            ],
        ),
        F(
            "weather.health",
            "Health status of the weather data service",
            [2, 4, 0],
            ["healthcheck", "Service Status", "/v1/ping"],
            [
                "I want to check the health status of the weather API.",
                "Is the weather service of {tool} up and running?",
                "Check the uptime and status of the weather API.",
            ],
        ),
    ],
    "Finance": [
        C(
            "finance.dividends",
            "Dividend history of a stock",
            [4, 1],
            ["dividends", "Dividend History"],
            "symbol! limit",
            [
                "Show the dividend history of {symbol}.",
                "List the last {limit} dividends paid by {symbol}.",
                "When did {symbol} last pay a dividend?",
            ],
        ),
        F(
            "finance.exchanges",
            "List supported stock exchanges",
            [1, 2, 3],
            ["exchanges", "List Exchanges", "/v1/exchanges"],
            [
                "I want to get the list of all supported stock exchanges.",
                "Which stock exchanges does {tool} cover?",
                "List every exchange with its trading hours.",
            ],
        ),
        F(
            "finance.movers",
            "Today's biggest market movers",
            [3, 0],
            ["market/get-movers", "Top Gainers And Losers"],
            [
                "I want to see today's top gainers and losers on the stock market.",
                "Show the {limit} biggest stock movers today.",
                "Which stocks moved the most today?",
            ],
            "limit",
        ),
    ],
    "Cryptocurrency": [
        F(
            "crypto.exchanges",
            "List cryptocurrency exchanges",
            [0, 1, 2],
            ["exchanges/list", "All Exchanges", "/v1/exchanges"],
            [
                "I want to get the list of all crypto exchanges.",
                "List the top {limit} crypto exchanges by volume.",
                "Which cryptocurrency exchanges does {tool} track?",
            ],
            "limit",
        ),
        F(
            "crypto.fear_greed",
            "Crypto fear and greed index",
            [3, 4],
            ["fng", "Fear And Greed Index"],
            [
                "I want to know the current crypto fear and greed index.",
                "What is the crypto market sentiment index today?",
                "Get the fear and greed index for crypto.",
            ],
        ),
    ],
    "Currency": [
        F(
            "fx.status",
            "Quota and status of the FX API account",
            [0, 3],
            ["status", "Account Quota"],
            [
                "I want to check how many requests I have left on the currency API.",
                "Show my currency API quota.",
                "Get the account status from {tool}.",
            ],
        ),
        F(
            "fx.crypto_list",
            "List supported crypto and metal codes",
            [1, 2],
            ["metals", "Supported Metals And Crypto"],
            [
                "I want to get the list of supported precious metals and crypto codes.",
                "Which metals and cryptocurrencies can I convert?",
                "List non-fiat codes supported by {tool}.",
            ],
        ),
    ],
    "Sports": [
        F(
            "sports.leagues",
            "List all leagues and competitions",
            [1, 3, 4],
            ["leagues", "Get All Leagues", "/v3/leagues"],
            [
                "I want to get the list of all leagues and competitions.",
                "Which leagues does {tool} cover?",
                "List every football and basketball league available.",
            ],
        ),
        F(
            "sports.today",
            "All matches scheduled for today",
            [0, 2],
            ["fixtures/today", "Today's Matches"],
            ["I want to get all the matches being played today.", "What games are on today?", "List today's fixtures across all sports."],
        ),
    ],
    "Music": [
        C(
            "music.artist_info",
            "Biography of an artist",
            [2, 1],
            ["artist.getinfo", "Artist Bio"],
            "artist! language",
            ["Tell me about the artist {artist}.", "Get the biography of {artist} in {language}.", "Who is {artist}?"],
        ),
        F(
            "music.charts",
            "The current global top chart",
            [0, 3, 4],
            ["charts/top", "Global Top 50", "/v1/charts"],
            [
                "I want to get the current top songs chart for {country}.",
                "What are the most streamed songs in {country} this week?",
                "Show the {country} top chart from {tool}.",
            ],
            "country!",
        ),
        F(
            "music.new_releases",
            "New album releases",
            [0, 2],
            ["browse/new-releases", "New Releases"],
            ["I want to get the list of new album releases.", "What albums came out this week?", "Show new music releases."],
        ),
    ],
    "Movies": [
        F(
            "movies.genres_list",
            "List movie genres",
            [0, 1, 2],
            ["genre/movie/list", "Genres", "/v1/genres"],
            ["I want to get the list of all movie genres.", "Which film genres can I filter by?", "List the genres {tool} uses."],
        ),
        F(
            "movies.now_playing",
            "Movies now in cinemas",
            [3, 0],
            ["movie/now_playing", "Now Playing"],
            [
                "I want to know which movies are playing in cinemas in {country} now.",
                "What's showing in theaters in {country} right now?",
                "List films currently in cinemas in {country}.",
            ],
            "country!",
        ),
        F(
            "movies.services",
            "List supported streaming services",
            [4, 3],
            ["services", "Streaming Services"],
            [
                "I want to get the list of all supported streaming services.",
                "Which streaming platforms does {tool} know?",
                "List streaming services and their ids.",
            ],
        ),
    ],
    "News_Media": [
        F(
            "news.categories",
            "List news categories",
            [0, 2],
            ["categories", "News Categories"],
            ["I want to get the list of news categories.", "Which news sections can I browse?", "List all categories from {tool}."],
        ),
        F(
            "news.latest_all",
            "Latest headlines across all sources",
            [4, 3, 1],
            ["latest-news", "All Latest", "/v1/latest"],
            [
                "I want to get the latest news from all sources in language '{language}'.",
                "Show me the newest headlines in {language}.",
                "What just happened in the news? Answer in {language}.",
            ],
            "language!",
        ),
    ],
    "Travel": [
        C(
            "travel.attractions",
            "Tourist attractions in a city",
            [4, 3],
            ["attractions", "Things To Do"],
            "place! limit",
            ["What should I visit in {place}?", "List the top {limit} attractions in {place}.", "Find things to do in {place}."],
        ),
        F(
            "travel.currencies",
            "Currencies supported for hotel prices",
            [0, 2],
            ["meta/currencies", "Currencies"],
            [
                "I want to get the list of currencies I can see hotel prices in.",
                "Which currencies does {tool} support for prices?",
                "List supported price currencies.",
            ],
        ),
        F(
            "travel.facilities",
            "List hotel facility types",
            [1, 3],
            ["static/facilities", "Facility Types"],
            ["I want to get all hotel facility types.", "List the amenities hotels can have.", "Which facility filters exist on {tool}?"],
        ),
    ],
    "Flights": [
        F(
            "flights.aircraft_types",
            "List aircraft types",
            [2, 4],
            ["aircraft", "Aircraft Types"],
            [
                "I want to get the list of all aircraft types.",
                "Which aircraft models does {tool} know?",
                "List aircraft types with their codes.",
            ],
        ),
        F(
            "flights.live_count",
            "Number of aircraft in the air now",
            [2, 1],
            ["stats/live", "Flights In The Air"],
            [
                "I want to know how many planes are flying right now.",
                "How many flights are airborne at the moment?",
                "Get live flight counts.",
            ],
        ),
    ],
    "Food": [
        F(
            "food.ingredients",
            "List all ingredients",
            [1, 3],
            ["list.php?i=list", "All Ingredients"],
            ["I want to get the list of all ingredients.", "Which ingredients can I search by?", "List every ingredient in {tool}."],
        ),
        F(
            "food.areas",
            "List cuisines by area",
            [0, 2],
            ["cuisines", "List Areas"],
            ["I want to get the list of all cuisines.", "Which regional cuisines are available?", "List cuisine areas from {tool}."],
        ),
    ],
    "eCommerce": [
        F(
            "ecom.deals",
            "Today's deals",
            [0, 2, 4],
            ["deals", "Today's Deals", "/v1/deals"],
            [
                "I want to get today's deals in {country}.",
                "Show the current discounts for {country}.",
                "What's on sale today in {country} on {tool}?",
            ],
            "country!",
        ),
        F(
            "ecom.regions",
            "Supported marketplaces and regions",
            [1, 3],
            ["countries/list", "Marketplaces"],
            [
                "I want to get the list of supported marketplaces and regions.",
                "Which country stores does {tool} support?",
                "List all marketplace domains.",
            ],
        ),
        F(
            "ecom.currencies",
            "Supported currencies for prices",
            [3, 5],
            ["currency/list", "Currencies"],
            [
                "I want to get the list of currencies the store supports.",
                "Which currencies can prices be shown in?",
                "List currencies from {tool}.",
            ],
        ),
    ],
    "Location": [
        F(
            "geo.countries",
            "List all countries with their codes",
            [1, 4, 0],
            ["countries", "Get Countries", "/v1/countries"],
            [
                "I want to get the list of all countries with their ISO codes.",
                "List every country {tool} knows.",
                "Get all countries and capitals.",
            ],
        ),
        F(
            "geo.timezones",
            "List all time zones",
            [2, 3],
            ["timezones", "All Time Zones"],
            ["I want to get the list of all time zones.", "Which time zones are supported?", "List IANA time zones from {tool}."],
        ),
    ],
    "Translation": [
        F(
            "tr.glossaries",
            "List saved glossaries",
            [0, 3],
            ["glossaries", "List Glossaries"],
            ["I want to get the list of my translation glossaries.", "Which glossaries have I saved?", "Show all glossaries on {tool}."],
        ),
        F(
            "tr.usage",
            "Characters translated this month",
            [1, 4],
            ["usage", "Get Usage"],
            [
                "I want to check how many characters I've translated this month.",
                "Show my translation usage.",
                "How much of my quota is left on {tool}?",
            ],
        ),
    ],
    "Text_Analysis": [
        F(
            "ta.models",
            "List available NLP models",
            [1, 3],
            ["models", "List Models"],
            ["I want to get the list of available text analysis models.", "Which NLP models can I use?", "List the models {tool} offers."],
        ),
        F(
            "ta.version",
            "Version of the text analysis service",
            [0, 2, 4],
            ["version", "Get version", "/v1/version"],
            [
                "I want to know the current version of the text analysis API service.",
                "Get the actual version of the service.",
                "Which version is {tool} running?",
            ],
        ),
    ],
    "Email": [
        F(
            "email.templates",
            "List email templates",
            [0, 3],
            ["templates", "List Templates"],
            ["I want to get the list of my email templates.", "Which email templates do I have?", "Show templates stored on {tool}."],
        ),
        F(
            "email.new_inbox",
            "Create a random disposable inbox",
            [4, 1],
            ["genRandomMailbox", "New Inbox"],
            [
                "I want to create a new random temporary email address.",
                "Give me a disposable inbox.",
                "Generate a throwaway email address.",
            ],
        ),
    ],
    "SMS": [
        F(
            "sms.balance",
            "Remaining account credit",
            [0, 2, 3],
            ["balance", "Get Balance", "/v1/account/balance"],
            ["I want to check my SMS account balance.", "How much credit is left on my SMS account?", "Get my balance on {tool}."],
        ),
        F(
            "sms.numbers",
            "List my virtual numbers",
            [1, 4],
            ["numbers", "My Numbers"],
            ["I want to get the list of my virtual phone numbers.", "Which sender numbers do I own?", "List my numbers on {tool}."],
        ),
    ],
    "Social": [
        C(
            "social.followers",
            "Followers of an account",
            [5, 4],
            ["user/followers", "Get Followers"],
            "username! limit",
            ["Who follows {username}?", "Get {limit} followers of {username}.", "List the followers of @{username}."],
        ),
        F(
            "social.trending",
            "Trending topics right now",
            [0, 3, 5],
            ["trends", "Trending Topics", "/v1/trending"],
            [
                "I want to get the currently trending topics in {country}.",
                "What is trending on social media in {country} now?",
                "Show the trends for {country} from {tool}.",
            ],
            "country!",
        ),
        F(
            "social.music_trending",
            "Trending sounds for short videos",
            [2, 1],
            ["music/trending", "Trending Sounds"],
            [
                "I want to get the list of trending sounds for short videos.",
                "Which songs are viral on short videos?",
                "Show trending audio.",
            ],
        ),
    ],
    "Jobs": [
        F(
            "jobs.categories",
            "List job categories",
            [0, 3],
            ["categories", "Job Categories"],
            ["I want to get the list of all job categories.", "Which job categories exist?", "List job sectors on {tool}."],
        ),
        F(
            "jobs.latest",
            "Latest remote job postings",
            [1, 2],
            ["remote-jobs", "Latest Jobs"],
            [
                "I want to get the latest remote {job_title} job postings.",
                "Show the newest {job_title} jobs.",
                "What {job_title} jobs were posted today?",
            ],
            "job_title!",
        ),
    ],
    "Real_Estate": [
        F(
            "re.property_types",
            "List property types",
            [1, 2, 4],
            ["property-types", "Property Types", "/v1/types"],
            [
                "I want to get the list of all property types.",
                "Which kinds of properties can I search?",
                "List property categories from {tool}.",
            ],
        ),
        F(
            "re.market_trends",
            "National housing market summary",
            [3, 0],
            ["market/summary", "Market Trends"],
            [
                "I want to get the housing market summary for {country}.",
                "How is the housing market doing in {country}?",
                "Show housing market trends in {country}.",
            ],
            "country!",
        ),
    ],
    "Health_and_Fitness": [
        F(
            "fit.equipment",
            "List exercise equipment",
            [1, 4],
            ["equipmentList", "Equipment"],
            ["I want to get the list of exercise equipment.", "Which gym equipment is in the database?", "List equipment from {tool}."],
        ),
        F(
            "fit.body_parts",
            "List body parts",
            [1, 0, 3],
            ["bodyPartList", "Body Parts", "/v1/body-parts"],
            [
                "I want to get the list of body parts I can train.",
                "Which body parts can I filter exercises by?",
                "List body parts from {tool}.",
            ],
        ),
    ],
    "Medical": [
        F(
            "med.drug_classes",
            "List drug classes",
            [0, 3],
            ["classes", "Drug Classes"],
            ["I want to get the list of all drug classes.", "Which medication classes exist?", "List drug classes from {tool}."],
        ),
        F(
            "med.recalls",
            "Latest drug recalls",
            [3, 1],
            ["enforcement", "Recent Recalls"],
            ["I want to get the latest drug recalls.", "Have any medicines been recalled recently?", "Show recent recalls."],
        ),
    ],
    "Education": [
        F(
            "edu.countries",
            "Countries with university data",
            [2, 1],
            ["countries", "Covered Countries"],
            [
                "I want to get the list of countries that have university data.",
                "Which countries does {tool} cover?",
                "List countries with ranked universities.",
            ],
        ),
        F(
            "edu.word_of_day",
            "Word of the day",
            [3, 0],
            ["wotd", "Word Of The Day"],
            ["I want to get today's word of the day.", "What is the word of the day?", "Teach me a new word."],
        ),
    ],
    "Science": [
        F(
            "sci.elements_all",
            "List all chemical elements",
            [0, 2],
            ["elements/all", "All Elements"],
            ["I want to get the list of all chemical elements.", "List the whole periodic table.", "Get every element from {tool}."],
        ),
        F(
            "sci.random_fact",
            "A random science fact",
            [2, 4],
            ["random", "Random Science Fact"],
            ["I want to get a random science fact.", "Tell me something cool about science.", "Give me a science fact."],
        ),
        F(
            "sci.iss",
            "Current position of the ISS",
            [1, 3],
            ["iss-now", "ISS Position"],
            [
                "I want to know where the International Space Station is right now.",
                "Where is the ISS now?",
                "Get the current ISS position.",
            ],
        ),
    ],
    "Gaming": [
        F(
            "game.giveaways",
            "Current game giveaways",
            [3, 0],
            ["giveaways", "Live Giveaways"],
            ["I want to get all live game giveaways.", "Which games are free to claim on {platform} right now?", "List current giveaways."],
            "platform",
        ),
        F(
            "game.stores",
            "List game stores",
            [3, 1],
            ["stores", "Store List"],
            ["I want to get the list of game stores.", "Which stores are tracked for deals?", "List stores from {tool}."],
        ),
    ],
    "Entertainment": [
        C(
            "ent.sign_traits",
            "Personality traits of a zodiac sign",
            [1, 0],
            ["sign/traits", "Zodiac Traits"],
            "horoscope_sign!",
            [
                "What are {horoscope_sign} people like?",
                "Describe the traits of a {horoscope_sign}.",
                "Get personality traits for {horoscope_sign}.",
            ],
        ),
        F(
            "ent.fortune",
            "A random fortune cookie message",
            [0, 3],
            ["defaultRoot", "Fortune"],
            ["I want to get a random fortune.", "Crack a fortune cookie for me.", "Give me a fortune from {tool}."],
        ),
        F(
            "ent.joke_categories",
            "List joke categories",
            [0, 4],
            ["categories", "Joke Categories"],
            ["I want to get the list of joke categories.", "Which kinds of jokes are there?", "List joke categories from {tool}."],
        ),
    ],
    "Video_Images": [
        F(
            "img.version",
            "Version of the image service",
            [1, 0, 2],
            ["Get version", "version", "/v1/info"],
            [
                "I want to know the current version of the image processing service.",
                "Get the actual version of the service.",
                "Which version is {tool} running?",
            ],
        ),
        F(
            "vid.trending",
            "Trending videos",
            [3, 2],
            ["trending", "Trending Videos"],
            [
                "I want to get the list of trending videos.",
                "What videos are trending in {country} now?",
                "Show trending videos from {tool}.",
            ],
            "country",
        ),
    ],
    "Tools": [
        C(
            "tools.palette",
            "Color palette from a base color",
            [4, 2],
            ["palette", "Generate Palette"],
            "color! limit",
            ["Make a color palette from {color}.", "Generate {limit} matching colors for {color}.", "Which colors go well with {color}?"],
        ),
        F(
            "tools.config",
            "Configuration of the code runner",
            [5, 2],
            ["Get Configuration", "config_info"],
            [
                "I want to get the configuration information of the code execution service.",
                "Get Judge0 configuration details.",
                "Show the configuration of {tool}.",
            ],
        ),
        F(
            "tools.languages",
            "Languages the code runner supports",
            [5, 2, 1],
            ["Get Languages", "languages", "/v1/languages"],
            ["I want to get all active programming languages.", "Get all active languages.", "Which languages can {tool} run?"],
        ),
        F(
            "tools.uuid",
            "Generate a random UUID",
            [2, 3],
            ["uuid", "Generate UUID"],
            ["I want to generate a random UUID.", "Give me a new UUID.", "Create a v4 UUID."],
        ),
    ],
    "Data": [
        C(
            "data.bic",
            "Bank details for a SWIFT/BIC code",
            [1, 2],
            ["bic/{code}", "SWIFT Lookup"],
            "bic!",
            ["Which bank has the SWIFT code {bic}?", "Look up BIC {bic}.", "Get bank details for {bic}."],
        ),
        F(
            "data.vat_rates",
            "VAT rates of all EU countries",
            [0, 2],
            ["rates", "All VAT Rates"],
            ["I want to get the VAT rates of all EU countries.", "List standard VAT rates in Europe.", "Get every EU VAT rate."],
        ),
        F(
            "data.tlds",
            "List top-level domains",
            [5, 3],
            ["tlds", "TLD List"],
            ["I want to get the list of all top-level domains.", "Which TLDs are supported?", "List domain extensions from {tool}."],
        ),
    ],
    "Cybersecurity": [
        F(
            "sec.breaches_all",
            "List all known data breaches",
            [1, 0],
            ["breaches", "All Breaches"],
            [
                "I want to get the list of all known data breaches.",
                "Which breaches are in the database?",
                "List every breach {tool} knows.",
            ],
        ),
        F(
            "sec.threat_feed",
            "Latest threat intelligence feed",
            [0, 3],
            ["feeds/latest", "Threat Feed"],
            [
                "I want to get the latest threat intelligence feed.",
                "Show the latest {limit} threats from the feed.",
                "What are the newest malware threats?",
            ],
            "limit",
        ),
    ],
    "Commerce": [
        F(
            "ship.health",
            "Status of the shipping API",
            [1, 3],
            ["health", "API Status"],
            ["I want to check the health status of the shipping API.", "Is the parcel tracking service up?", "Check the status of {tool}."],
        ),
        F(
            "ship.countries",
            "Countries the shipping service covers",
            [2, 0],
            ["countries", "Covered Countries"],
            [
                "I want to get the list of countries I can ship to.",
                "Which destination countries are supported?",
                "List countries from {tool}.",
            ],
        ),
    ],
    "Transportation": [
        F(
            "trans.makes",
            "List all car makes",
            [1, 2],
            ["makes", "All Makes"],
            ["I want to get the list of all car makes.", "Which car brands are in the database?", "List every make from {tool}."],
        ),
        F(
            "trans.lines",
            "List all transit lines",
            [0, 3],
            ["lines", "All Lines"],
            ["I want to get the list of all transit lines.", "Which bus and metro lines are there?", "List lines from {tool}."],
        ),
    ],
    "Energy": [
        F(
            "energy.zones",
            "List supported grid zones",
            [0, 1, 3],
            ["zones", "Zones", "/v1/zones"],
            ["I want to get the list of all supported grid zones.", "Which electricity zones are covered?", "List zones from {tool}."],
        ),
        F(
            "energy.fuel_avg",
            "National average fuel prices",
            [2, 3],
            ["averages", "Average Fuel Prices"],
            [
                "I want to get the national average fuel prices in {country}.",
                "What does fuel cost on average in {country} today?",
                "Show average pump prices for {country}.",
            ],
            "country!",
        ),
    ],
    "Advertising": [
        C(
            "ads.related",
            "Related keyword ideas",
            [0, 3],
            ["keywords/related", "Keyword Ideas"],
            "keyword_ad! country limit",
            [
                "Suggest keywords related to '{keyword_ad}'.",
                "Give me {limit} keyword ideas like '{keyword_ad}' for {country}.",
                "Find related keywords for '{keyword_ad}'.",
            ],
        ),
        F(
            "ads.accounts",
            "List ad accounts",
            [1, 2],
            ["adaccounts", "getAccounts"],
            ["I want to get the list of my ad accounts.", "Which ad accounts do I manage?", "List accounts on {tool}."],
        ),
        F(
            "ads.me",
            "Current user of the ads API",
            [2, 1],
            ["getCurrentUser", "Me"],
            ["I want to get the details of the currently logged in user.", "Who am I logged in as?", "Show my profile on {tool}."],
        ),
    ],
    "Business": [
        F(
            "biz.formats",
            "Supported document conversion formats",
            [2, 3],
            ["formats", "Supported Formats"],
            [
                "I want to get the list of supported document formats.",
                "Which file formats can I convert between?",
                "List formats from {tool}.",
            ],
        ),
        F(
            "biz.channels",
            "List chat channels",
            [4, 1],
            ["conversations.list", "Channels"],
            ["I want to get the list of all chat channels.", "Which channels exist in the workspace?", "List channels on {tool}."],
        ),
    ],
    "Events": [
        F(
            "events.today_holidays",
            "Countries with a public holiday today",
            [2, 0],
            ["IsTodayPublicHoliday", "Holidays Today"],
            ["I want to know which countries have a public holiday today.", "Is today a holiday anywhere?", "List today's holidays."],
        ),
        F(
            "events.categories",
            "List event categories",
            [0, 1, 3],
            ["classifications", "Event Categories", "/v1/categories"],
            ["I want to get the list of event categories.", "Which kinds of events can I search?", "List categories from {tool}."],
        ),
    ],
    "Books": [
        F(
            "books.bestsellers",
            "Current bestseller list",
            [0, 3],
            ["lists/overview", "Bestsellers"],
            ["I want to get the current bestseller list.", "Which books are bestsellers this week?", "Show bestsellers from {tool}."],
        ),
        F(
            "books.subjects",
            "List book subjects",
            [1, 2],
            ["subjects", "Subjects"],
            ["I want to get the list of book subjects.", "Which genres of books can I browse?", "List subjects from {tool}."],
        ),
    ],
    "Software_Dev": [
        F(
            "dev.licenses",
            "List open-source licenses",
            [0, 2],
            ["licenses", "License List"],
            ["I want to get the list of open-source licenses.", "Which software licenses are known?", "List licenses from {tool}."],
        ),
        F(
            "dev.ruby_scraping",
            "Repositories for web scraping in Ruby",
            [1, 3],
            ["Get list of GitHub repo for Ruby web scrapping", "ruby-scrapers"],
            [
                "I want to get a list of Github repositories for Ruby web scraping.",
                "Get the list of Github repositories related to Ruby web scraping.",
                "Show Ruby scraping repos.",
            ],
        ),
    ],
    "Agriculture": [
        F(
            "agri.commodities",
            "List tracked commodities",
            [0, 2],
            ["commodities", "Commodity List"],
            [
                "I want to get the list of tracked agricultural commodities.",
                "Which crops have market prices?",
                "List commodities from {tool}.",
            ],
        ),
        F(
            "agri.soil_types",
            "List soil classes",
            [1, 2],
            ["soil-types", "Soil Classes"],
            ["I want to get the list of soil classes.", "Which soil types are defined?", "List soil classes from {tool}."],
        ),
    ],
}


def _jitter(name: str, key: str) -> float:
    """A stable factor in [-1, 1) derived from a tool name and an attribute key."""
    h = hashlib.sha256(f"{name}|{key}".encode()).digest()
    return int.from_bytes(h[:4], "big") / 2**31 - 1.0


def attributes(name: str, archetype: str) -> dict:
    tier, price, quota, latency, rating, fresh, cov, priv, docs = ARCHETYPES[archetype]
    return {
        "price_tier": tier,
        "monthly_price_usd": round(price * (1 + 0.2 * _jitter(name, "price")), 2),
        "free_quota": int(round(quota * (1 + 0.3 * _jitter(name, "quota")), -1)),
        "latency_ms": int(latency * (1 + 0.25 * _jitter(name, "latency"))),
        "rating": round(min(5.0, max(1.0, rating + 0.2 * _jitter(name, "rating"))), 1),
        "freshness_min": max(1, int(fresh * (1 + 0.3 * _jitter(name, "fresh")))),
        "coverage": round(min(1.0, max(0.0, cov + 0.05 * _jitter(name, "coverage"))), 2),
        "privacy": round(min(1.0, max(0.0, priv + 0.05 * _jitter(name, "privacy"))), 2),
        "docs_quality": round(min(1.0, max(0.0, docs + 0.05 * _jitter(name, "docs"))), 2),
    }


def _u(*parts) -> float:
    """A stable draw in [0, 1) from strings: every choice below is deterministic per name."""
    return (_jitter("|".join(parts[:-1]), parts[-1]) + 1.0) / 2.0


def _pname(slot: str, pos: int, archetype: str) -> str:
    names = SLOTS[slot][1]
    return names[pos % len(names)]


def _ptype(slot: str, tool: dict) -> str:
    """The declared type, shifted toward ToolBench's mix (STRING 59%, NUMBER 27%, BOOLEAN 7%,
    string 5%, ENUM 1%): most enum-like and date parameters are plain STRING there."""
    kind = SLOTS[slot][0]
    if kind == "ENUM" and slot not in KEEP_ENUM:
        kind = "STRING"
    elif kind.startswith("DATE") and _u(tool["name"], slot, "date") < 0.6:
        kind = "STRING"
    # Legacy-style hobby APIs spell STRING in lower case, as some ToolBench tools do.
    return "string" if kind == "STRING" and tool["archetype"] == "hobby" else kind


def _sample(slot: str, rng: random.Random):
    kind, _, _, pool = SLOTS[slot]
    if kind == "NUMBER":
        return rng.randint(*pool)
    if kind.startswith("DATE"):
        return f"{rng.randint(*pool)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if kind == "BOOLEAN":
        return rng.random() < 0.5
    if kind == "ARRAY":
        return rng.sample(pool, 2)
    return rng.choice(pool)


PARAM_NOTES = {
    "NUMBER": ["Must be a positive integer.", "Default is used when empty.", "Maximum is 100.", "Integer value; decimals are truncated."],
    "STRING": [
        "Separated by comma for multiple values.",
        "Case-insensitive.",
        "The value of the id field returned by the search endpoint.",
        "Leave empty to use the account default.",
        "URL-encode special characters.",
    ],
    "BOOLEAN": ["true or false.", "Defaults to false.", "Set to true to enable."],
}


def _pdesc(slot: str, key: str, verbose: bool = False) -> str:
    """A parameter description as varied as ToolBench's: ~a quarter empty, some with
    examples ("Ex: a, b"), some with an extra note; verbose tools write several sentences."""
    kind, _, desc, pool = SLOTS[slot]
    u = _u(key, slot, "pdesc")
    if verbose and u > 0.3:
        notes = PARAM_NOTES.get(kind.split(" ")[0], PARAM_NOTES["STRING"])
        ex = f" Ex: {', '.join(str(v) for v in pool[:3])}." if isinstance(pool, list) and pool and not isinstance(pool[0], dict) else ""
        return f"{desc}. {notes[int(u * 1000) % len(notes)]} {notes[(int(u * 1000) + 1) % len(notes)]}{ex}"
    if u < 0.24 and kind != "ENUM":
        return ""
    if u < 0.6:
        return desc
    if u < 0.84 and isinstance(pool, list) and pool and not isinstance(pool[0], dict):
        ex = ", ".join(str(v) for v in pool[:2]) if u < 0.72 else str(pool[-1])
        return f"{desc}. Ex: {ex}" if u < 0.72 else f"{desc} (e.g. {ex})"
    notes = PARAM_NOTES.get(kind.split(" ")[0], PARAM_NOTES["STRING"])
    return f"{desc}. {notes[int(u * 1000) % len(notes)]}"


def _want(template: str) -> str:
    """Rephrase an imperative template the way most real queries read ("I want to ...")."""
    first, _, rest = template.partition(" ")
    low = first.lower()
    for verb, me, new in (("show", "me ", "see"), ("give", "me ", "get"), ("tell", "me ", "know")):
        if low == verb and rest.startswith(me):
            return f"I want to {new} {rest[len(me) :]}"
    return f"I want to {low} {rest}" if low in WANT_VERBS and rest else template


def _templates(cluster: dict) -> tuple[list[str], list[str]]:
    """(params, templates) of a cluster after realism tweaks: "I want to" phrasing on most
    templates, and on about half the clusters with required values one more template that also
    states a common optional value (page, result count, language, details), as real queries do."""
    cid, params = cluster["id"], list(cluster["params"])
    out = [_want(t) if _u(cid, t, "want") < 0.72 else t for t in cluster["templates"]]
    slots = {p.rstrip("!") for p in params}
    if any(p.endswith("!") for p in params) and _u(cid, "suffix") < 0.6:
        free = [s for s in SUFFIXES if s not in slots]
        start = int(_u(cid, "suffix_slot") * len(free))
        picked = (free + free)[start : start + (2 if _u(cid, "suffix2") < 0.2 else 1)]
        base = out[0].rstrip()
        end = base[-1] if base[-1] in ".?!" else "."
        body = base[:-1] if base[-1] in ".?!" else base
        for slot in picked:
            params.append(slot)
            body += SUFFIXES[slot]
            out.append(body + end)
    return params, out


def _describe(cluster: dict, pos: int, tool: dict, api_name: str, params: list[dict]) -> str:
    """An API description: mostly short, a fifth with a second sentence, a tenth long and
    messy (notes on freshness, quota, pagination and every parameter), as on RapidAPI."""
    desc = cluster["description"]
    attrs = attributes(tool["name"], tool["archetype"])
    variants = [
        desc + ".",
        f"{desc}. Returns JSON.",
        f"{desc} ({tool['name'].strip()}).",
        f"Use this endpoint to get: {desc[0].lower() + desc[1:]}.",
        f"{desc}; results are paginated where relevant.",
        f"{desc}. Requires an API key.",
    ]
    short = variants[pos % len(variants)]
    u = _u(tool["name"], api_name, "desc")
    if _verbose(tool):
        u = 0.9 + 0.1 * u
    elif u < 0.75:
        return short
    notes = [
        f"Data is refreshed every {attrs['freshness_min']} minutes.",
        f"The free plan includes {attrs['free_quota']} requests per month.",
        "Returns a JSON object; errors come back with an HTTP 4xx status and a 'message' field.",
        "Results are sorted by relevance unless another order is requested.",
        f"Typical response time is around {attrs['latency_ms']} ms.",
        "This endpoint is cached for 10 minutes, so repeated calls may return the same data.",
        "Some fields may be null when the upstream source has no data.",
        "At most 50 items are returned per page; use the paging parameters to get more.",
        "The response includes an id, a name and a last-updated timestamp for every item.",
        "Please respect the rate limit of 5 requests per second on shared plans.",
        "Deprecated fields are kept for backwards compatibility and will be removed in the next major version.",
    ]
    start = int(u * 997) % len(notes)
    if u < 0.9:
        return f"{short} {notes[start]}"
    n = (4 if _verbose(tool) else 2) + int(_u(tool["name"], api_name, "desc_n") * 4)
    picked = [notes[(start + 3 * k) % len(notes)] for k in range(n)]
    about = "; ".join(f"{p['name']}: {SLOTS[p['slot']][2][0].lower() + SLOTS[p['slot']][2][1:]}" for p in params[:6])
    text = f"{short} {' '.join(picked)}"
    return f"{text} Parameters - {about}." if about else text


def _verbose(tool: dict) -> bool:
    """About one tool in eight documents every API at length (long descriptions, many optional
    parameters): the long tail of real ToolBench candidates comes from such tools."""
    return _u(tool["name"], "verbose") < VERBOSE_SHARE


def _extras(tool: dict, api_name: str, taken: set) -> list[str]:
    """Tool-specific optional parameters (real ToolBench APIs: 60% have no optional parameter,
    a tail has 5-15): paging, flags, formats, on verbose tools' APIs and a few others.
    Templates never use them."""
    u = _u(tool["name"], api_name, "extras")
    if _verbose(tool):
        n = 5 + int(u * 10)
    elif u < 0.07:
        n = 2 + int(_u(tool["name"], api_name, "extras_n") * 4)
    else:
        return []
    rng = random.Random(f"{tool['name']}|{api_name}|extras")
    pool = [s for s in sorted(EXTRA_SLOTS) if not ({_pname(s, 0, ""), _pname(s, 1, "")} & taken)]
    return rng.sample(pool, min(n, len(pool)))


def _size(cluster: dict) -> int:
    """How many of the listed tools a cluster keeps: real clusters are 81% pairs, 16% triples,
    a few of 4-6, so most spec clusters are cut to two or three of their tools."""
    n, u = len(cluster["tools"]), _u(cluster["id"], "size")
    if n >= 4 and u < CLUSTER_SIZE_SHARES[0]:
        return min(n, 6)
    if u < CLUSTER_SIZE_SHARES[0] + CLUSTER_SIZE_SHARES[1]:
        return min(n, 3)
    return 2


def _keep(cluster: dict, cat: str, counts: dict) -> list[tuple[int, object]]:
    """(position in the spec, tool ref) of the tools a cluster keeps: the ``_size`` listed tools
    with the fewest APIs so far (ties: spec order), so cutting clusters leaves no tool bare."""
    refs = list(enumerate(cluster["tools"]))
    key = lambda r: r[1] if isinstance(r[1], str) else f"{cat}:{r[1]}"  # noqa: E731
    chosen = sorted(refs, key=lambda r: (counts.get(key(r), 0), r[0]))[: _size(cluster)]
    for r in chosen:
        counts[key(r)] = counts.get(key(r), 0) + 1
    return sorted(chosen)


def _numeric_strings(tool: dict) -> tuple[bool, bool]:
    """(defaults as strings, example values as strings) for this tool's NUMBER parameters:
    ToolBench writes most defaults as strings and passes ~7% of numbers as strings."""
    return _u(tool["name"], "numdefault") < 0.5, _u(tool["name"], "numvalue") < 0.22


def _fmt_number(value, as_string: bool):
    return str(value) if as_string and isinstance(value, int) and not isinstance(value, bool) else value


def build() -> dict:
    tools_out, clusters_out = [], {}
    by_cat = {cat: tools for cat, tools, _ in CATEGORIES}
    apis_of: dict[tuple[str, int], list] = {}
    kept: dict[str, int] = {}
    for cat, _tools, clusters in CATEGORIES:
        for cluster in clusters + MORE_CLUSTERS.get(cat, []):
            cid = cluster["id"]
            if cid in clusters_out:
                raise SystemExit(f"duplicate cluster id {cid}")
            clusters_out[cid] = cluster["description"]
            if len(cluster["api_names"]) < len(cluster["tools"]):
                raise SystemExit(f"cluster {cid}: fewer API names than tools")
            cparams, templates = _templates(cluster)
            for pos, ref in _keep(cluster, cat, kept):
                tcat, idx = (ref.split(":")[0], int(ref.split(":")[1])) if isinstance(ref, str) else (cat, ref)
                tool = by_cat[tcat][idx]
                arch = tool["archetype"]
                api_name = cluster["api_names"][pos]
                str_default, str_value = _numeric_strings(tool)
                # Tools share the slot's name list but start at different offsets, so parameter
                # names differ between equivalent APIs while staying realistic.
                req, opt, slot_map = [], [], {}
                for token in cparams:
                    slot = token.rstrip("!")
                    kind, _, _, pool = SLOTS[slot]
                    name = _pname(slot, pos + idx, arch)
                    if name in slot_map.values():
                        name = name + "_2"
                    slot_map[slot] = name
                    example = _sample(slot, random.Random(f"{cid}|{pos}|{slot}"))
                    param = {
                        "name": name,
                        "type": _ptype(slot, tool),
                        "description": _pdesc(slot, f"{tool['name']}|{api_name}", _verbose(tool)),
                        "default": _fmt_number(example, str_default) if token.endswith("!") else "",
                        "slot": slot,
                    }
                    if kind == "ENUM":
                        param["enum"] = list(pool)
                    (req if token.endswith("!") else opt).append(param)
                for k, slot in enumerate(_extras(tool, api_name, set(slot_map.values()))):
                    name = _pname(slot, pos + idx + k, arch)
                    if name in slot_map.values():
                        continue
                    slot_map[slot] = name
                    default = _sample(slot, random.Random(f"{cid}|{pos}|{slot}")) if _u(tool["name"], api_name, slot, "xdef") < 0.5 else ""
                    opt.append(
                        {
                            "name": name,
                            "type": _ptype(slot, tool),
                            "description": _pdesc(slot, f"{tool['name']}|{api_name}", _verbose(tool)),
                            "default": _fmt_number(default, True) if default != "" and SLOTS[slot][0] == "NUMBER" else default,
                            "slot": slot,
                        }
                    )
                ex_rng = random.Random(f"{cid}|{pos}|example")
                template = templates[pos % len(templates)]
                if not any(t.endswith("!") for t in cparams):
                    # Parameter-free requests are common in real data: such APIs' examples state no values.
                    template = min(templates, key=lambda t: (t.count("{") - t.count("{tool}"), templates.index(t)))
                values = {s: _sample(s, ex_rng) for s in slot_map}
                scenario, used = render_template(template, values, tool["name"].strip())
                params = {slot_map[s]: _fmt_number(v, str_value and SLOTS[s][0] == "NUMBER") for s, v in used.items()}
                api = {
                    "name": api_name,
                    "description": _describe(cluster, pos, tool, api_name, req + opt),
                    "cluster": cid,
                    "required_parameters": req,
                    "optional_parameters": opt,
                    "examples": [{"Scenario": scenario, "Parameters": params}],
                    "templates": templates,
                }
                apis_of.setdefault((tcat, idx), []).append(api)
    for cat, tools, _ in CATEGORIES:
        for idx, tool in enumerate(tools):
            apis = apis_of.get((cat, idx), [])
            if len(apis) < 2:
                raise SystemExit(f"tool {tool['name']!r} in {cat} offers {len(apis)} API(s); every tool needs 2+")
            tools_out.append(
                {
                    "category": cat,
                    "name": tool["name"],
                    "description": tool["description"],
                    "attributes": attributes(tool["name"], tool["archetype"]),
                    "apis": apis,
                }
            )
    slots = {
        s: {
            "type": v[0],
            "description": v[2],
            "values": list(v[3]) if isinstance(v[3], list) else None,
            "range": list(v[3]) if isinstance(v[3], tuple) else None,
        }
        for s, v in sorted(SLOTS.items())
    }
    return {"format": FORMAT, "slots": slots, "clusters": clusters_out, "tools": tools_out}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "assets" / "catalog.json"))
    args = ap.parse_args(argv)
    catalog = build()
    problems = validate_catalog(catalog)
    if problems:
        raise SystemExit("the generated catalog is invalid:\n" + "\n".join(problems))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(catalog, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    n_apis = sum(len(t["apis"]) for t in catalog["tools"])
    cats = {t["category"] for t in catalog["tools"]}
    print(f"wrote {args.out}: {len(cats)} categories, {len(catalog['tools'])} tools, {len(catalog['clusters'])} clusters, {n_apis} APIs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
