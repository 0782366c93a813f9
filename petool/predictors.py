"""What a model spec names, and the one place that builds its predictor.

A model spec (``petool eval --model``, ``$PETOOL_MODEL``) is one of:

- ``baseline:<rule>`` (or a bare rule name): a rule of petool.baselines, no language model;
- ``openai:<name>``: a model behind an OpenAI-compatible endpoint (petool.remote);
- anything else: a local causal LM, a folder, a ``.gguf`` file, a Hub id or ``default``
  (petool.models, whose ``resolve_model`` says where it comes from).

Every predictor answers ``generate(entry, setting, *, rank_prior=None, use_adapter=None)`` with
a ``Generation`` that carries all that call's facts, says what it is with ``describe()``, and
whether it can switch an adapter with ``has_adapter``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from petool import models
from petool.baselines import BASELINES, RuleBaseline
from petool.remote import OpenAIPredictor
from petool.schema import Entry, Generation, Setting

ModelKind = Literal["baseline", "openai", "local"]

REMOTE_OPTIONS = frozenset({"base_url", "api_key", "timeout", "max_retries", "backoff_s", "temperature", "max_tokens", "nfkc", "sleep"})
"""Options only an ``openai:`` model takes (petool.remote.OpenAIPredictor's arguments)."""


class Predictor(Protocol):
    """Anything that answers an entry in a setting: rule baselines, local models, API models."""

    @property
    def name(self) -> str: ...

    @property
    def has_adapter(self) -> bool:
        """Whether ``generate(use_adapter=...)`` can switch an adapter on and off."""
        ...

    def describe(self) -> dict:
        """What this predictor is, for run configs and the app's About tab."""
        ...

    def generate(self, entry: Entry, setting: Setting, *, rank_prior: float | None = None, use_adapter: bool | None = None) -> Generation:
        """Answer ``entry`` in ``setting``.

        Args:
            rank_prior: the ranking prior's weight for this call where the predictor chooses the
                tool as a whole name (local models, shortlist style); others ignore it.
            use_adapter: this call with the adapter on or off (None: as loaded); True where
                ``has_adapter`` is False raises ValueError.
        """
        ...


@dataclass(frozen=True)
class ModelSpec:
    """A model spec parsed once: its ``kind`` and the ``target`` inside it (rule, remote model
    name, or local model), ``text`` as given."""

    kind: ModelKind
    target: str
    text: str

    @classmethod
    def parse(cls, text: str) -> ModelSpec:
        """Tell what ``text`` names (see the module docstring); nothing is loaded or checked here.

        Example:
            >>> ModelSpec.parse("baseline:rules").kind, ModelSpec.parse("evidence").target
            ('baseline', 'evidence')
            >>> ModelSpec.parse("openai:gpt-4o-mini").target, ModelSpec.parse("default").kind
            ('gpt-4o-mini', 'local')
        """
        if text.startswith("baseline:") or text in BASELINES:
            return cls("baseline", text.removeprefix("baseline:"), text)
        if text.startswith("openai:"):
            return cls("openai", text.removeprefix("openai:"), text)
        return cls("local", text, text)

    @property
    def is_local(self) -> bool:
        """A language model that runs here (the only kind with adapters, modes and decoding options)."""
        return self.kind == "local"

    def describe(self) -> str:
        """One line for users: what the spec names (for a local model, where it would load from).

        Raises:
            petool.models.ModelNotFound: a local model that cannot be found.
        """
        if self.kind == "baseline":
            return self.text
        if self.kind == "openai":
            return f"{self.target} behind an OpenAI-compatible endpoint"
        return models.resolve_model(self.target).describe()


def build_predictor(
    spec: str | ModelSpec,
    adapter: str | None = None,
    mode: str = "petool",
    style: str | None = None,
    seed: int = 0,
    max_time_s: float | None = None,
    **options: Any,
) -> Predictor:
    """Build the predictor a model spec names.

    Args:
        spec: a model spec (see the module docstring) or a parsed ``ModelSpec``.
        adapter: a LoRA adapter folder or ``default`` (local language models only).
        mode, style: generation mode and prompt style (style: every language model; mode: local).
        seed: a rule baseline's seed (its random picks).
        max_time_s: wall-clock limit per call: a local model stops generating there; for an
            ``openai:`` model it is the request timeout, unless ``timeout`` is given.
        options: a local model's options (``petool.models.load_predictor``) or an ``openai:``
            model's (``REMOTE_OPTIONS``).
    Raises:
        ValueError: an adapter for a rule baseline, an unknown rule, mode or style.
        TypeError: remote options for a local model.
        petool.models.ModelNotFound: with what to install or set.
    """
    spec = spec if isinstance(spec, ModelSpec) else ModelSpec.parse(spec)
    if spec.kind == "baseline":
        if adapter:
            raise ValueError("--adapter applies to language models, not to rule baselines")
        return RuleBaseline(spec.target, seed=seed)
    if spec.kind == "openai":
        if max_time_s is not None:
            options.setdefault("timeout", max_time_s)
        options.pop("max_new_tokens", None)  # the endpoint's budget is max_tokens
        return OpenAIPredictor(spec.target, style=style or "paper", **options)
    remote = sorted(REMOTE_OPTIONS & options.keys())
    if remote:
        raise TypeError(f"options {remote} apply to openai:NAME models only")
    # looked up on the module each time, so a test can stand in for the loader
    return models.load_predictor(model=spec.target, adapter=adapter, mode=mode, style=style, max_time_s=max_time_s, **options)
