"""A scripted predictor for app tests: base and adapter answer differently, instantly.

With the adapter on it answers the entry's gold call (a perfect PEToolLLaMA); with it off it
picks the first candidate of the gold's cluster that is not the gold (a preference mistake),
or, for entries without a gold, the first candidate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from petool.appconfig import AppConfig
from petool.models import DEFAULT_RANK_PRIOR_WEIGHT
from petool.schema import Entry, Generation, ToolCall


class FakePredictor:
    def __init__(self):
        self.adapter = "fake-adapter"
        self.adapter_enabled = True
        self.style = "paper"
        self.calls: list[tuple[str, str, bool]] = []
        self.rank_prior_weight = DEFAULT_RANK_PRIOR_WEIGHT
        self.weights: list[float] = []
        self.extra_adapter: str | None = None
        self.extra_paths: dict[str, str] = {}

    has_adapter = True

    @property
    def name(self) -> str:
        return self._name(self.adapter_enabled)

    def _name(self, adapter_on: bool) -> str:
        if adapter_on and self.extra_adapter:
            return f"fake-base+{self.extra_adapter}"
        return "fake-base+fake-adapter" if adapter_on else "fake-base"

    def use_adapter(self, enabled: bool) -> None:
        self.adapter_enabled, self.extra_adapter = bool(enabled), None

    def use_extra_adapter(self, name: str, path) -> None:
        """As petool.models: an extra adapter (a DPO job's) answers like the main one here."""
        self.extra_paths[name] = str(path)
        self.extra_adapter, self.adapter_enabled = name, True

    def describe(self) -> dict:
        return {"name": self.name, "model": "scripted fake", "adapter": self.adapter}

    def generate(self, entry: Entry, setting: str, *, rank_prior: float | None = None, use_adapter: bool | None = None) -> Generation:
        adapter_on = self.adapter_enabled if use_adapter is None else use_adapter
        self.calls.append((entry.key, setting, adapter_on))
        weight = self.rank_prior_weight if rank_prior is None else rank_prior
        self.weights.append(weight)
        gold = entry.ground_truth
        if adapter_on and gold.tool_name:
            call = gold
        else:
            others = [t for t in entry.cluster_candidates() if t.name != gold.tool_name] or entry.candidates
            tool = others[0]
            call = ToolCall(tool.name, {p.name: p.default for p in tool.required_parameters})
        # as petool.models records a whole-name tool choice: the chosen name scores best
        names = list(dict.fromkeys([call.tool_name, *(t.name for t in entry.candidates[:3])]))
        return Generation(
            call.to_text(),
            0.01,
            100,
            20,
            # as petool.models names a call: a ranking-prior weight other than the default is part of it
            model=self._name(adapter_on) + ("" if weight == DEFAULT_RANK_PRIOR_WEIGHT else f"[rank-prior {weight:g}]"),
            tool_scores={n: -0.5 if n == call.tool_name else -4.0 for n in names},
            tool_bias={n: -0.1 * i for i, n in enumerate(names)},
        )


def launch_for_test(demo, config, **overrides) -> str:
    """Start ``demo`` as the app would (``launch_kwargs``) on a free port without blocking; return its URL."""
    from petool.ui.app import launch_kwargs

    kwargs = launch_kwargs(config)
    kwargs.update(server_port=None, prevent_thread_lock=True, quiet=True, **overrides)
    _, url, _ = demo.launch(**kwargs)
    return url


def app_config(folder: str | Path, db_name: str = "petool.db", **fields) -> AppConfig:
    """The app's settings for a test: a fresh store ``db_name`` in ``folder``, no data file."""
    return AppConfig(db_path=str(Path(folder) / db_name), data_path=None, **fields)


@contextmanager
def running_app(
    config: AppConfig,
    predictor_factory: Callable[[], object] = FakePredictor,
    *,
    services=None,
    prepare: Callable[[object], None] | None = None,
    **launch_overrides,
) -> Iterator[tuple[object, str]]:
    """The app built from ``config`` (or over ``services``) and served on a free port: yields
    ``(demo, url)`` and closes the server afterwards. ``prepare(demo)`` runs between building
    and launching (runs to import, labels to store)."""
    from petool.ui import build_demo

    demo = build_demo(config, services=services, predictor_factory=predictor_factory)
    try:
        if prepare is not None:
            prepare(demo)
        yield demo, launch_for_test(demo, config, **launch_overrides)
    finally:
        demo.close()


def api_client(url: str, **options):
    """A gradio_client session on the app (a new session each call), files left on the server."""
    from gradio_client import Client

    return Client(url, verbose=False, download_files=False, **options)


def label_data(demo, api_name: str, annotator: str, comment: str = "", session_value=None) -> list:
    """The ``data`` list a browser sends for a verdict event (one value per input, State slots
    included), with ``session_value`` in the session-login State's slot: what a forger would try."""
    fn = next(f for f in demo.fns.values() if f.api_name == api_name)
    values = {"annotator": annotator, "c-tags": [], "c-comment": comment, "c-gold": ""}
    data = [values.get(getattr(block, "elem_id", None)) for block in fn.inputs]
    data[fn.inputs.index(demo.petool_session)] = session_value
    return data
