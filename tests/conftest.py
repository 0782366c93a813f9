"""Shared pytest fixtures and markers."""

from __future__ import annotations

import pytest

from petool.call_grammar import CallGrammar
from tests.browser_helpers import CHROMIUM, CHROMIUM_ARGS


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs the real bundled model or long jobs (deselect with -m 'not slow')")


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory) -> str:
    """A directory holding a tiny random LLaMA + tokenizer with a chat template (built once)."""
    try:
        from tests.tiny_model import build_tiny_llama
    except ImportError:  # tests/ is not a package and the repo root is not on sys.path
        from tiny_model import build_tiny_llama

    return build_tiny_llama(tmp_path_factory.mktemp("tiny_llama"))


@pytest.fixture(scope="session")
def tiny_decoder(tiny_llama_dir):
    """The tiny LLaMA, its tokenizer and a ``CallGrammar`` for them: what structured decoding runs on."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_llama_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_llama_dir).eval()
    return model, tok, CallGrammar(tok, model.config.vocab_size)


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for one test module (tests mark themselves ``browser`` and skip without it:
    ``tests.browser_helpers.BROWSER_MARKS``); pages on the app come from ``browser_helpers.open_page``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()
