"""Assemble the tabs into one gr.Blocks app and say how to launch it."""

import datetime
import time
from collections.abc import Callable
from typing import Any

from petool.appconfig import AppConfig, env_table
from petool.dashboards import empty_figure, training_figure
from petool.models import ModelNotFound, resolve_adapter
from petool.predictors import ModelSpec
from petool.runs import training_logs
from petool.ui import builder, compare, dash, entry_edits, errors, export, labels, sample_eval, uploads
from petool.ui.common import PasswordLogins, SessionLogin, refusable, refused, with_user
from petool.ui.common import client_address as address_of
from petool.ui.gate import ClientAddress, PrivateGate
from petool.ui.render import CSS, esc, md_text
from petool.ui.services import Services

KEYS_JS = """
() => {
  const keys = {"1": "verdict-A", "2": "verdict-B", "3": "verdict-tie", "4": "verdict-both-bad", "r": "c-run", "n": "q-next"};
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
    const id = keys[ev.key];
    const el = id && document.getElementById(id);
    if (el && el.offsetParent !== null) { ev.preventDefault(); el.click(); }
  });
  // Gradio 6.31's status tracker announces a finished event to screen readers as its raw
  // translation key, missing from its English table: say it in words instead.
  // (the keys are spelled in parts so that this script's own text never holds one)
  const words = {[["common", "complete"].join(".")]: "Done", [["common", "error"].join(".")]: "Error"};
  const inWords = (live) => {
    if (!words[live.textContent.trim()]) return;
    // Rewrite the text nodes in place, so nothing holds the raw key once this has run.
    const walker = document.createTreeWalker(live, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) if (words[t.data.trim()]) t.data = words[t.data.trim()];
  };
  const say = (node) => {
    const el = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
    if (!el || !el.closest) return;
    const live = el.closest('[role="status"]');
    if (live) inWords(live);
    el.querySelectorAll('[role="status"]').forEach(inWords);  // a tracker inserted with its text
  };
  new MutationObserver((changes) => changes.forEach((c) => say(c.target)))
    .observe(document.documentElement, {subtree: true, childList: true, characterData: true});
  window.petoolStatusInWords = true;
}
"""
"""Keyboard shortcuts for labelling (they click the buttons with these elem_ids when visible),
and the status announcements in words."""

BUSY_NOTE = (
    "One model is shared by every visitor and answers one request at a time; "
    "when it is busy your request waits in the queue (its position shows on the output)."
)


def header(config: AppConfig, services: Services) -> str:
    lines = [
        "# petool — personalized tool learning workbench",
        "Build a user's tool-use history, compare the base model with PEToolLLaMA, label which call the user "
        "would prefer, turn labels into DPO pairs, and inspect where models go wrong.",
    ]
    # Where the files live is for operators (About, admins only): visitors learn whether data lasts.
    notes = [
        config.storage_notice
        if not config.access_control
        else "⚠️ Storage is ephemeral: data is lost when this Space restarts (admins can download it)."
        if config.ephemeral
        else "Labels and entries are stored on this server."
    ]
    if config.demo:
        notes.append("Demo mode: training, server-side imports and the database download are off.")
    if config.oauth:
        notes.append("Sign in with Hugging Face to label, save and export; your Hub name is stored with each label.")
    if config.password_login:
        notes.append(
            "Anyone can look around and run the models; log in (box below) to label, save, export or train. "
            "Your login name is stored with each label."
        )
    elif config.auth:
        notes.append("Your login name is stored with each label.")
    notes.append(BUSY_NOTE)
    return "\n\n".join(lines) + "\n\n" + " · ".join(notes)


PAPER = """### What this is

petool re-implements **PEToolBench** and **PEToolLLaMA** from *PEToolLLM: Towards Personalized Tool
Learning in Large Language Models* (Xu et al., ACL Findings 2025,
[arXiv 2502.18980](https://arxiv.org/abs/2502.18980)). Given a user's history of tool calls, a new
instruction and 10 candidate tools (some doing the same job under different providers), a model must
write one call that does the job **with the tool this user prefers**.

The three history settings:
- **p** (preferred-only): every turn calls one of the user's preferred tools.
- **r** (rating-integrated): preferred turns plus a few on other tools, each rated 1 (liked) or 0 (disliked).
- **c** (chronological): r's turns without ratings, the non-preferred ones first; the hardest setting.
- **none**: no history at all (an ablation).
"""
"""The About tab's text for every visitor: the paper and what p/r/c mean."""


def is_admin(config: AppConfig, user: str | None) -> bool:
    """Operators (PETOOL_ADMINS) see server paths and settings; with no login at all (a local
    run) whoever runs the app is the operator."""
    if not config.access_control:
        return True
    return bool(user) and user in config.admins


def about(config: AppConfig, services: Services, user: str | None = None) -> str:
    """Markdown of the paper and settings for everyone; the configuration, the model's
    resolution and the store only for admins (server paths are nobody else's business)."""
    if not is_admin(config, user):
        return PAPER + "\n*Operator details (configuration, storage) are shown to the app's admins only.*"
    model = services.model.describe()
    try:
        resolution = ModelSpec.parse(config.model).describe()
    except Exception as exc:  # show the problem, never crash the page
        resolution = f"cannot resolve: {exc}"
    stats = services.store.stats()
    return (
        PAPER
        + "\n"
        + "\n".join(
            [
                "### Configuration (admins only)",
                (
                    f"- database: `{esc(config.db_path)}` ({'ephemeral' if config.ephemeral else 'persistent'}); exports and "
                    "database snapshots are handed only to whoever asked for them"
                ),
                f"- model: `{esc(config.model)}` → {esc(resolution)}",
                f"- adapter: `{esc(config.adapter)}`; loaded: {esc(model.get('loaded'))}"
                + (f" ({esc(model.get('name'))})" if model.get("name") else ""),
                f"- demo mode: {config.demo}; password login: {'whole app (gradio login page)' if config.auth_private else 'in the page' if config.auth else False}; "
                f"Hugging Face sign-in: {config.oauth}; queue size: {config.queue_size}; time limit per model call: {config.max_call_s} s",
                "- store: " + ", ".join(f"{k} {v}" for k, v in stats.items()),
                "",
                "### Environment variables",
                env_table(),
            ]
        )
    )


def adapter_training_figure(config: AppConfig):
    """The configured adapter's loss curves (the shipped one keeps its SFT and DPO logs)."""

    try:
        path = resolve_adapter(config.adapter)
    except ModelNotFound as exc:
        return empty_figure("training", str(exc))
    if path is None:
        return empty_figure("training", "No adapter configured (PETOOL_ADAPTER): the second model is the base.")
    return training_figure(training_logs(path), f"How the adapter was trained ({path.name})")


def build_demo(config: AppConfig | None = None, services: Services | None = None, predictor_factory: Callable[[], Any] | None = None):
    """The whole app. Nothing heavy happens here: the model loads on the first comparison.

    Args:
        config: defaults to ``AppConfig.from_env()``.
        services: a prepared Services (tests); built from ``config`` otherwise.
        predictor_factory: builds the shared predictor instead of petool.models (tests, fakes).
    """
    import gradio as gr

    config = config or AppConfig.from_env()
    if config.oauth:
        import importlib.util

        missing = [m for m in ("authlib", "itsdangerous") if importlib.util.find_spec(m) is None]
        if missing:  # fail closed: without them a public Space would let anyone label under any name
            raise RuntimeError(
                f"Hugging Face sign-in needs gradio[oauth] ({', '.join(missing)} missing): "
                "add authlib and itsdangerous to requirements.txt, or set PETOOL_OAUTH=0"
            )
    services = services or Services(config, predictor_factory=predictor_factory)
    upload_guard = uploads.UploadGuard(config)
    export.sweep_exports()  # private export folders left by an earlier run of the app
    # delete_cache: uploads and the copies of exports handed to visitors are deleted after an hour.
    with gr.Blocks(title="petool", delete_cache=(uploads.CACHE_SWEEP_S, uploads.CACHE_MAX_AGE_S)) as demo:
        sessions = SessionJanitor(demo)
        gr.Markdown(header(config, services), elem_id="header")
        # This page session's in-app login (a SessionLogin or None), held by the server.
        session = gr.State(None)
        gr.Markdown(
            "**Start here:** load an example entry and run both models on it, then vote which call this user "
            "would prefer (type your name first to vote).",
            elem_id="start-help",
        )
        with gr.Row():
            start_btn = gr.Button("Start here: load an example and run it", variant="primary", elem_id="start-here", size="sm", scale=0)
            start_msg = gr.Markdown("", elem_id="start-msg")
        with gr.Row():
            if config.access_control:
                # The login name is the annotator; the box only shows it (the server ignores it).
                annotator = gr.Textbox(
                    label="annotator (your login name)",
                    placeholder="not signed in: you can look, not label",
                    interactive=False,
                    scale=2,
                    elem_id="annotator",
                )
            else:
                annotator = gr.Textbox(
                    label="annotator (required to label: your name, stored with every label, remembered in this browser)",
                    placeholder="required: type your name",
                    scale=2,
                    elem_id="annotator",
                )
            if config.oauth:
                gr.LoginButton(scale=1)
            gr.Markdown("Tabs: **Build** a history → **Compare & label** → **Pairs & training** → **Dashboards** / **Errors**.")
        if config.password_login:
            login_events = login_box(config, session, annotator)
            uploads.watch_logins(upload_guard, session, login_events)
        entry_state = gr.State(None)
        # Tabs wrap onto a second line on a narrow screen instead of hiding behind a "…" menu.
        with gr.Tabs(elem_id="tabs", overflow_behavior="wrap", selected="build") as tabs:
            with gr.Tab("Build", id="build", elem_id="tab-build"):
                b = builder.build(services, entry_state, annotator, session)
            with gr.Tab("Compare & label", id="compare", elem_id="tab-compare"):
                c = compare.build(services, entry_state, annotator, session)
            with gr.Tab("Pairs & training", id="pairs", elem_id="tab-pairs") as pairs_tab:
                p = export.build(services, session)
                ev = sample_eval.build(services, session)
                my = labels.build(services, annotator, session, p["policy"])
            with gr.Tab("Dashboards", id="dashboards", elem_id="tab-dashboards") as dash_tab:
                d = dash.build(services, session)
            with gr.Tab("Errors", id="errors", elem_id="tab-errors") as errors_tab:
                e = errors.build(services)
            with gr.Tab("About", id="about", elem_id="tab-about") as about_tab:
                about_md = gr.Markdown(about(config, services, None) if config.access_control else PAPER, elem_id="about")
                training_plot = gr.Plot(label="the adapter's training", elem_id="about-training")
        # Plots in hidden tabs render too small: draw them when their tab is opened.
        dash_tab.select(d["refresh"], d["inputs"], d["outputs"], api_visibility="private")
        # runs stored since the page loaded (a sample evaluation) become filter choices
        dash_tab.select(d["refresh_filters"], None, d["filters"], api_visibility="private", queue=False)
        pairs_tab.select(p["refresh"], None, p["outputs"], api_visibility="private")
        pairs_tab.select(ev["refresh"], ev["outputs"], ev["outputs"], api_visibility="private", queue=False)
        pairs_tab.select(with_user(my["refresh"], 3), [*my["inputs"], session], my["outputs"], api_visibility="private")
        errors_tab.select(e["refresh"], None, e["outputs"], api_visibility="private")
        about_tab.select(
            with_user(lambda user: (about(config, services, user), adapter_training_figure(config)), 0),
            [session],
            [about_md, training_plot],
            api_visibility="private",
        )

        # The typed annotator name lives in this browser's localStorage (a name, not a secret).
        remembered = gr.BrowserState("", storage_key="petool_annotator")

        def who(user, stored):
            sessions.forget_idle()
            if config.access_control:
                return user or gr.update()
            return stored or gr.update()

        demo.load(with_user(who, 1), [remembered, session], annotator, api_visibility="private")
        if not config.access_control:
            annotator.change(lambda name: (name or "").strip()[:100], annotator, remembered, api_visibility="private", queue=False)

        def example():
            pool = services.pool(services.sources()[0]) if services.sources() else []
            if not pool:
                raise ValueError("No example entries are available here: build one in the Build tab.")
            d, _ = entry_edits.load_entry(services, services.sources()[0], pool[0].key)
            return d, gr.Tabs(selected="compare"), "r" if "r" in pool[0].settings else "p", ""

        c["run_after"](
            start_btn.click(refusable(example, 4, 3), None, [entry_state, tabs, c["setting"], start_msg], api_visibility="private")
        )
        c["wire_cancel"]()

        def forget_session(request: gr.Request):
            sessions.forget(request.session_hash)

        demo.unload(forget_session)
        entry_state.change(lambda dd, s: b["refresh"](dd, s), [entry_state, b["setting"]], b["views"], api_visibility="private")
    # api_open=False (gradio's default only on a Space): queued events, the model calls among
    # them, cannot be posted straight to /gradio_api/run/* around the queue and its size limit.
    demo.queue(max_size=config.queue_size, default_concurrency_limit=4, api_open=False)
    demo.petool_services = services
    demo.petool_uploads = upload_guard  # read by uploads.UploadGate, the upload route's guard
    demo.petool_session = session
    demo.petool_sessions = sessions
    return demo


SESSION_IDLE_S = 4 * 3600.0
"""A session with no event for this long is forgotten (its login too): API clients and tabs
whose closing the server never heard of would otherwise stay until gradio's session cap."""


class SessionJanitor:
    """Drops a page session's whole server-side state when it ends (gradio keeps its State
    values an hour after a tab closes, and its per-session copy of the page's configuration
    until the session cap) or after ``idle_s`` without an event."""

    def __init__(self, demo, idle_s: float = SESSION_IDLE_S, clock: Callable[[], float] = time.monotonic):
        self.demo, self.idle_s, self._clock = demo, idle_s, clock
        self._next_sweep = 0.0

    def forget(self, session_hash: str | None) -> None:
        """For the unload event: this tab is gone, so is its state."""
        holder = getattr(self.demo, "state_holder", None)
        if holder is not None and session_hash:
            with holder.lock:
                holder.session_data.pop(session_hash, None)
                holder.time_last_used.pop(session_hash, None)

    def forget_idle(self) -> int:
        """Forget sessions idle longer than ``idle_s`` (at most one sweep a minute); how many."""
        holder = getattr(self.demo, "state_holder", None)
        now = self._clock()
        if holder is None or now < self._next_sweep:
            return 0
        self._next_sweep = now + 60.0
        cutoff = datetime.datetime.now() - datetime.timedelta(seconds=self.idle_s)
        with holder.lock:
            stale = [h for h, used in holder.time_last_used.items() if used < cutoff]
            for session_hash in stale:
                holder.session_data.pop(session_hash, None)
                holder.time_last_used.pop(session_hash, None)
        return len(stale)


def login_box(config: AppConfig, session, annotator) -> list:
    """The in-app "Log in" box (PETOOL_AUTH): a right password puts a SessionLogin in ``session``.
    Returns its login and logout events, for listeners that follow the session's login.

    Its events skip the queue (``queue=False``), so logging in works while the model is busy.
    """
    import gradio as gr

    logins = PasswordLogins(config.auth)
    with gr.Row(elem_id="login", equal_height=True):
        name = gr.Textbox(label="user name", scale=2, max_lines=1, elem_id="login-name")
        password = gr.Textbox(label="password", type="password", scale=2, max_lines=1, elem_id="login-password")
        login_btn = gr.Button("Log in", scale=0, min_width=110, variant="primary", elem_id="login-btn")
        logout_btn = gr.Button("Log out", scale=0, min_width=110, visible=False, elem_id="logout-btn")
        message = gr.Markdown(
            "Not logged in: you can look around and run the models, but not label, save, export or train.", elem_id="login-msg"
        )

    def on_login(typed_name, typed_password, request: gr.Request):
        try:
            user = logins.check(typed_name, typed_password, address_of(request))
        except ValueError as exc:  # a refused login is an answer beside the box, never an HTTP error
            return refused(7, 2, exc)
        return (SessionLogin(user), user, f"Logged in as **{md_text(user)}**: your labels carry this name.", *shown(logged_in=True))

    def on_logout():
        return None, "", "Logged out.", *shown(logged_in=False)

    def shown(logged_in: bool):
        # The password box is emptied either way: it never travels back to the browser.
        return (
            gr.update(visible=not logged_in),
            gr.update(value="", visible=not logged_in),
            gr.update(visible=not logged_in),
            gr.update(visible=logged_in),
        )

    outputs = [session, annotator, message, name, password, login_btn, logout_btn]
    # "undocumented", not "public": the browser records the inputs of public events in its run
    # history (localStorage), and these inputs are a password (launch_kwargs turns that history
    # off as well). API clients may still call /login.
    attempt = gr.on(
        [login_btn.click, password.submit],
        on_login,
        [name, password],
        outputs,
        api_name="login",
        queue=False,
        show_progress="hidden",
        api_visibility="undocumented",
    )
    logout = logout_btn.click(on_logout, None, outputs, api_name="logout", queue=False, api_visibility="undocumented")
    return [attempt, logout]


def launch_kwargs(config: AppConfig) -> dict:
    """Arguments for ``demo.launch``: where to listen, login, theme/css/js (Gradio 6 puts them here)."""
    import gradio as gr
    from starlette.middleware import Middleware

    # Outermost first: the client's address for the login limits, then (private mode) the gate
    # that shows anonymous visitors nothing, then the guard on uploads.
    middleware = [Middleware(ClientAddress)]
    if config.auth_private:
        middleware.append(Middleware(PrivateGate))
    middleware.append(Middleware(uploads.UploadGate))
    return {
        "server_name": config.server_name,
        "server_port": config.server_port,
        # Gradio's login page guards the whole app only on request (PETOOL_AUTH_PRIVATE=1), with
        # the same limits on wrong passwords as the in-app box (login_box), which logs
        # annotators in by default while visitors read.
        "auth": PasswordLogins(config.auth).gradio_auth if config.auth_private else None,
        "app_kwargs": {"middleware": middleware},
        # Gradio would keep every public event's inputs (a login's password among them) in the
        # browser's localStorage and replay them from /gradio_api/runs; False also deletes what
        # an earlier version left there.
        "run_history": False,
        "state_session_capacity": config.max_sessions,
        "ssr_mode": False,
        "show_error": True,
        "theme": gr.themes.Soft(),
        "css": CSS,
        "js": KEYS_JS,
        # No allowed_paths: nothing of the store is served by path. Exports reach only their
        # requester, as the event's output (gradio's cache, under a random name).
        "max_file_size": f"{config.max_upload_mb}mb",
    }
