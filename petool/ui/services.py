"""What every tab shares: the config, the store, the entry pools, and the one model.

No gradio here. The model is built lazily on first use, once per process, and shared by every
visitor; a lock makes "switch the adapter on/off, then generate" one indivisible step.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from petool import catalog
from petool.appconfig import AppConfig
from petool.bench import BuildConfig, build_entries
from petool.evaluate import BENCHMARK_VERSION
from petool.formats import load_entries
from petool.models import DEFAULT_RANK_PRIOR_WEIGHT, ModelNotFound
from petool.predictors import ModelSpec, Predictor, build_predictor
from petool.schema import Entry, Generation, Prediction, Tool
from petool.scoring import SCORER_VERSION
from petool.store import Store

log = logging.getLogger(__name__)

BASE = "base"
TUNED = "PEToolLLaMA"
BASELINE_CHOICES = ["baseline:rules", "baseline:nohistory", "baseline:random"]
GENERATED = "generated"
DEV = "dev (real test entries)"
SAVED = "saved"
MAX_RANK_PRIOR = 10.0
"""Largest ranking-prior weight the app accepts (from 4 up the ranking alone decides anyway)."""


def job_choice(job_id: int) -> str:
    """The Compare choice of the adapter a DPO job trained."""
    return f"DPO job #{job_id}"


@dataclass
class SideResult:
    """One model's answer in a comparison, before it is parsed and scored
    (``evaluate.record_for`` turns it into the side's ``Prediction``)."""

    model: str
    """The name of what answered, with this call's options (``Generation.model``)."""
    generation: Generation | None
    """None when the model failed (``error`` says why)."""
    error: str = ""
    note: str = ""
    """Said next to the output, e.g. that the call stopped at the time limit (PETOOL_MAX_CALL_S)."""


class ModelService:
    """The shared base model with its adapter toggled per call, plus rule baselines.

    Args:
        factory: builds the predictor (default: ``petool.predictors.build_predictor`` from the
            config); tests pass a scripted fake (a ``petool.predictors.Predictor``).
    """

    def __init__(
        self, config: AppConfig, factory: Callable[[], Any] | None = None, extra_adapters: Callable[[], dict[str, Path]] | None = None
    ):
        self.config = config
        self._factory = factory
        self._extra_adapters = extra_adapters or dict
        """Choice name -> adapter folder of the adapters trained in the app (finished DPO jobs)."""
        self._predictor = None
        self._load_error: str | None = None
        self._lock = threading.Lock()
        self._baselines: dict[str, Predictor] = {}

    @property
    def loaded(self) -> bool:
        return self._predictor is not None

    def busy(self) -> bool:
        return self._lock.locked()

    def predictor(self):
        """The shared predictor, loaded on first call (raises RuntimeError with the reason)."""
        if self._predictor is None:
            with self._lock:
                if self._predictor is None:
                    self._predictor = self._build()
        return self._predictor

    def _build(self) -> Predictor:
        if self._factory is not None:
            return self._factory()
        spec = ModelSpec.parse(self.config.model)
        if spec.kind == "baseline":
            return build_predictor(spec)
        options = {"max_new_tokens": self.config.max_new_tokens, "max_time_s": self.config.max_call_s}
        try:
            return build_predictor(spec, adapter=self.config.adapter, **options)
        except ModelNotFound as exc:
            if self.config.adapter is None:
                raise RuntimeError(str(exc)) from None
            # The base alone is still worth comparing (against a baseline); say why the adapter is missing.
            self._load_error = str(exc)
            log.warning("loading without adapter: %s", exc)
            try:
                return build_predictor(spec, adapter=None, **options)
            except ModelNotFound as exc2:
                raise RuntimeError(str(exc2)) from None

    def has_adapter(self) -> bool:
        return self.predictor().has_adapter

    def model_choices(self) -> list[str]:
        """What the Compare tab offers: the base, the adapter, the adapters of finished DPO jobs
        (newest first, read from the store on each call), rule baselines."""
        return [BASE, TUNED, *self._extra_adapters(), *BASELINE_CHOICES]

    def describe(self) -> dict:
        if self._predictor is None:
            return {"loaded": False, "model": self.config.model, "adapter": self.config.adapter}
        info = self._predictor.describe()
        if self._load_error:
            info["adapter_problem"] = self._load_error
        return {"loaded": True, **info}

    def generate(self, choice: str, entry: Entry, setting: str, rank_prior: float | None = None) -> SideResult:
        """Answer with ``choice`` (BASE, TUNED or ``baseline:<rule>``); failures become ``error``.

        ``rank_prior``: the weight of the ranking's prior in the tool choice for this call (local
        models; None: the predictor's default)."""
        try:
            if choice.startswith("baseline:"):
                predictor = self._baseline(choice.removeprefix("baseline:"))
                gen = predictor.generate(entry, setting)
                return SideResult(gen.model or predictor.name, gen)
            predictor = self.predictor()
            gen = self.generation(choice, entry, setting, rank_prior)
            side = SideResult(gen.model or predictor.name, gen)
            if gen.timed_out:
                side.note = (
                    f"stopped at the time limit ({self.config.max_call_s} s per model call, PETOOL_MAX_CALL_S): "
                    "the output is what the model wrote by then"
                )
            return side
        except Exception as exc:  # a failing model must not take the page down; show why
            log.exception("generation failed")
            return SideResult(choice, None, error=f"{type(exc).__name__}: {exc}")

    def generation(self, choice: str, entry: Entry, setting: str, rank_prior: float | None = None) -> Generation:
        """The shared model's answer as ``choice`` (BASE, TUNED or a finished job's ``DPO job #N``):
        switching to its adapter and generating are one step under the lock.

        Raises:
            ValueError: an unknown choice or a ranking-prior weight out of range.
            RuntimeError: the model cannot load, or there is no adapter for a tuned choice.
        """
        predictor, extra = self._language_model(choice)
        weight = DEFAULT_RANK_PRIOR_WEIGHT if rank_prior is None else float(rank_prior)
        if not 0 <= weight <= MAX_RANK_PRIOR:
            raise ValueError(f"the ranking prior's weight must be between 0 and {MAX_RANK_PRIOR}, got {weight}")
        with self._lock:  # one generation at a time on the shared model
            self._switch(predictor, choice, extra)
            return predictor.generate(entry, setting, rank_prior=weight, use_adapter=(choice != BASE) if predictor.has_adapter else None)

    def side_predictor(self, choice: str) -> ChoicePredictor:
        """``choice`` of the shared model as a Predictor of its own (for ``petool.evaluate``)."""
        predictor, extra = self._language_model(choice)
        with self._lock:
            self._switch(predictor, choice, extra)
            name = predictor.name
        return ChoicePredictor(self, choice, name)

    def _language_model(self, choice: str) -> tuple[Predictor, Path | None]:
        """The shared predictor and, for a job's choice, its adapter folder (None otherwise)."""
        extra = self._extra_adapters().get(choice) if choice not in (BASE, TUNED) else None
        if choice not in (BASE, TUNED) and extra is None:
            raise ValueError(f"unknown model choice {choice!r}; valid: {', '.join(self.model_choices())}")
        predictor = self.predictor()
        if choice != BASE and not predictor.has_adapter:
            raise RuntimeError(self._load_error or f"no adapter is loaded, so there is no {choice} side")
        return predictor, extra

    @staticmethod
    def _switch(predictor: Predictor, choice: str, extra: Path | None) -> None:
        """Put the adapter ``choice`` names in use (the caller holds the lock)."""
        if extra is not None:
            predictor.use_extra_adapter(choice, extra)  # a DPO job's adapter, beside the main one
        elif predictor.has_adapter:
            predictor.use_adapter(choice != BASE)  # the main adapter (or none), if a job's was in use

    def _baseline(self, rule: str) -> Predictor:
        if rule not in self._baselines:
            self._baselines[rule] = build_predictor(ModelSpec("baseline", rule, f"baseline:{rule}"))
        return self._baselines[rule]


class ChoicePredictor:
    """One choice of the shared model (base, shipped adapter, a job's adapter) as a Predictor:
    each call switches to its adapter under the model's lock, so comparisons can run between
    the calls of an evaluation."""

    has_adapter = False

    def __init__(self, service: ModelService, choice: str, name: str):
        self.service, self.choice, self._name = service, choice, name

    @property
    def name(self) -> str:
        return self._name

    def describe(self) -> dict:
        return {"name": self.name, "choice": self.choice}

    def generate(self, entry: Entry, setting: str, *, rank_prior: float | None = None, use_adapter: bool | None = None) -> Generation:
        if use_adapter is not None:
            raise ValueError(f"{self.choice} is one side of the shared model; choose another side instead of use_adapter")
        return self.service.generation(self.choice, entry, setting, rank_prior)


class Services:
    """Config + store + entry pools + model, built once by ``build_demo``."""

    def __init__(
        self,
        config: AppConfig,
        store: Store | None = None,
        predictor_factory: Callable[[], Any] | None = None,
        generated: list[Entry] | None = None,
    ):
        self.config = config
        self.store = store or Store(config.db_path)
        self.model = ModelService(config, predictor_factory, extra_adapters=self.job_adapters)
        self._generated = generated
        self._dev: list[Entry] | None = None
        self._dev_problem = ""
        self._lock = threading.Lock()

    # -- entry pools

    def generated(self) -> list[Entry]:
        """Generated benchmark entries (petool.bench), built once; empty without a catalog."""
        with self._lock:
            if self._generated is None:
                self._generated = _build_generated()
        return self._generated

    def dev(self) -> list[Entry]:
        """The real dev entries when ../shared is present, marked as test data (never trained on)."""
        with self._lock:
            if self._dev is None:
                self._dev = []
                path = self.config.data_path
                if path and Path(path).exists():
                    try:
                        self._dev = load_entries(path).entries
                    except ValueError as exc:
                        self._dev_problem = str(exc)
                    for e in self._dev:
                        e.extra["split"] = "test"
        return self._dev

    def sources(self) -> list[str]:
        out = [GENERATED] if self.generated() else []
        if self.dev():
            out.append(DEV)
        out.append(SAVED)
        out += [s for s in self.store.sources() if s.startswith("run:")]
        return out

    def pool(self, source: str) -> list[Entry]:
        """Entries of a source (saved and run sources are read from the store)."""
        if source == GENERATED:
            return self.generated()
        if source == DEV:
            return self.dev()
        rows = self.store.list_entries(source)
        return [e for e in (self.store.get_entry(r["id"]) for r in rows) if e is not None]

    def find(self, source: str, key: str) -> Entry | None:
        if source in (GENERATED, DEV):
            return next((e for e in self.pool(source) if e.key == str(key)), None)
        return self.store.get_entry(key=str(key), source=source)

    # -- adapters trained in the app

    def job_adapters(self) -> dict[str, Path]:
        """``DPO job #N`` -> its adapter folder, for each finished job whose adapter is on disk
        (newest first): Compare offers them as sides as soon as the job ends."""
        out = {}
        for job in self.store.jobs():
            folder = Path(job.get("output_dir") or "") / "dpo"
            if job["status"] == "done" and job.get("output_dir") and (folder / "adapter_config.json").is_file():
                out[job_choice(job["id"])] = folder
        return out

    # -- the app's own answers as runs

    def record_sides(self, sides: list[Prediction]) -> None:
        """Store each scored comparison side (gold known, the model answered) as a prediction
        of its model's app run (``Store.record_app_prediction``), for the dashboards."""
        for side in sides:
            if side.tool_ok is None or side.error == "model:error":
                continue
            self.store.record_app_prediction(side, scorer_version=SCORER_VERSION, benchmark_version=BENCHMARK_VERSION)

    # -- the tool catalog

    def catalog(self) -> dict[str, Tool]:
        """Every known API by full name: the shipped catalog when present, plus all pool candidates."""
        tools: dict[str, Tool] = {}
        for t in _catalog_tools():
            tools.setdefault(t.name, t)
        for e in self.generated() + self.dev():
            for t in e.candidates:
                tools.setdefault(t.name, t)
        return dict(sorted(tools.items()))

    def clusters(self) -> dict[str, list[str]]:
        """API name -> its functional cluster (names), from the catalog and the entries."""
        out: dict[str, list[str]] = dict(_catalog_clusters())
        for e in self.generated() + self.dev():
            names = list(dict.fromkeys([*e.cluster, e.ground_truth.tool_name]))
            for n in names:
                if len(names) > len(out.get(n, [])):
                    out[n] = names
        return out


_CATALOG = None
_CATALOG_LOCK = threading.Lock()


def load_catalog():
    """The shipped tool catalog (petool.catalog), loaded once per process; None if unavailable."""
    global _CATALOG
    with _CATALOG_LOCK:
        if _CATALOG is None:
            try:
                _CATALOG = catalog.load_catalog()
            except Exception:  # the app still works on dev/saved entries without a catalog
                log.exception("loading the catalog failed")
                _CATALOG = False
    return _CATALOG or None


def _build_generated(n: int = 60, seed: int = 0) -> list[Entry]:
    """A small generated benchmark from the training clusters (labels on it may become pairs)."""
    cat = load_catalog()
    if cat is None:
        return []
    try:
        train, _ = build_entries(cat, BuildConfig(seed=seed, n_train=n, n_test=0, n_users=20))
    except Exception:  # a broken generator must not stop the app; the builder still works
        log.exception("building generated entries failed")
        return []
    for e in train:
        e.extra["split"] = "train"
    return train


def _catalog_tools() -> list[Tool]:
    cat = load_catalog()
    return [a.to_candidate() for a in cat.apis] if cat else []


def _catalog_clusters() -> dict[str, list[str]]:
    cat = load_catalog()
    if not cat:
        return {}
    out = {}
    for members in cat.members.values():
        names = [a.full_name for a in members]
        for n in names:
            out[n] = names
    return out
