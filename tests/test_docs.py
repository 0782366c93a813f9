"""The documentation: relative links resolve, and the env-var table in docs/app.md is the code's."""

import re
from pathlib import Path

import pytest

from petool.appconfig import ENV_VARS, AppConfig, env_table
from petool.formats import ENV_MAX_UNZIPPED
from petool.models import ENV_CACHE

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Markdown links and images: [text](target) and ![alt](target), the target up to a space or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# Set by Hugging Face on a Space, not by the person running the app: the table names them in its text.
SET_BY_THE_SPACE = {"SPACE_ID", "OAUTH_CLIENT_ID", "SPACE_AUTHOR_NAME"}


def relative_links(text: str) -> list[str]:
    """The link targets in ``text`` that name a file of the repository (no scheme, no bare anchor)."""
    targets = [m.group(1) for m in LINK.finditer(text)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_the_link_finder_sees_links_and_images_but_not_web_addresses():
    text = 'See [cli](docs/cli.md#eval), ![shot](docs/img/app.png "the app"), [web](https://x.org) and [top](#layout).'
    assert relative_links(text) == ["docs/cli.md#eval", "docs/img/app.png"]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_to_an_existing_file(doc):
    missing = []
    for target in relative_links(doc.read_text(encoding="utf-8")):
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            missing.append(target)
    assert not missing, f"{doc.relative_to(ROOT)} links to missing files: {missing}"


def test_the_docs_folder_holds_the_pages_the_readme_promises():
    names = {p.name for p in DOCS}
    for page in (
        "cli.md",
        "formats.md",
        "app.md",
        "training.md",
        "decoding.md",
        "performance.md",
        "experiments.md",
        "contributing.md",
        "petoolbench.md",
        "measuring.md",
    ):
        assert page in names


def test_docs_app_md_carries_the_codes_env_var_table():
    text = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    assert env_table() in text, "docs/app.md's environment-variable table differs from petool.appconfig.ENV_VARS: paste env_table()"


def test_the_env_var_table_names_every_variable_the_app_reads():
    class Recording(dict):
        """An empty environment that remembers which names were asked for."""

        def __init__(self):
            super().__init__()
            self.asked: set[str] = set()

        def get(self, key, default=None):
            self.asked.add(key)
            return super().get(key, default)

        def __getitem__(self, key):
            self.asked.add(key)
            return super().__getitem__(key)

        def __contains__(self, key):
            self.asked.add(key)
            return super().__contains__(key)

    env = Recording()
    AppConfig.from_env(env)
    listed = {name for name, _, _ in ENV_VARS}
    read_elsewhere = {ENV_CACHE, ENV_MAX_UNZIPPED}  # read by petool.models and petool.formats, not by from_env
    assert env.asked - SET_BY_THE_SPACE == listed - read_elsewhere
    assert read_elsewhere <= listed
    assert len(listed) == len(ENV_VARS), "a variable is listed twice"


def test_the_readme_layout_names_every_module():
    """The README's layout tree lists every module of petool/ and petool/ui/, and nothing gone."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    tree = text[text.index("## Layout") :]
    listed = set(re.findall(r"^\s+(\w+\.py)\s", tree, flags=re.M))
    present = {p.name for folder in ("petool", "petool/ui") for p in (ROOT / folder).glob("*.py")}
    assert present - listed == set(), "modules missing from README's layout"
    assert listed - present == set(), "README's layout names modules that are gone"
