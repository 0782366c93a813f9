"""Shared pytest fixtures and markers."""

from __future__ import annotations

import pytest

from petool.call_grammar import CallGrammar


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
