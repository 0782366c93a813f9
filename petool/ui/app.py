"""Assemble the tabs into one gr.Blocks app and say how to launch it."""


from typing import Any, Callable

from petool.appconfig import AppConfig
from petool.ui.render import CSS, esc
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
}
"""
"""Keyboard shortcuts for labelling: they click the buttons with these elem_ids when visible."""

BUSY_NOTE = ("One model is shared by every visitor and answers one request at a time; "
             "when it is busy your request waits in the queue (its position shows on the output).")


def header(config: AppConfig, services: Services) -> str:
    lines = ["# 🧰 petool — personalized tool learning workbench",
             "Build a user's tool-use history, compare the base model with PEToolLLaMA, label which call the user "
             "would prefer, turn labels into DPO pairs, and inspect where models go wrong."]
    notes = [config.storage_notice]
    if config.demo:
        notes.append("Demo mode: training, server-side imports and the database download are off.")
    if config.oauth:
        notes.append("Sign in with Hugging Face to label, save and export; your Hub name is stored with each label.")
    elif config.auth:
        notes.append("Your login name is stored with each label.")
    notes.append(BUSY_NOTE)
    return "\n\n".join(lines) + "\n\n" + " · ".join(notes)


def about(config: AppConfig, services: Services) -> str:
    """Markdown of the configuration, the model's resolution and the store."""
    from petool.appconfig import __doc__ as env_doc

    model = services.model.describe()
    try:
        from petool.models import resolve_model

        resolution = resolve_model(config.model).describe() if not config.model.startswith("baseline:") else config.model
    except Exception as exc:  # show the problem, never crash the page
        resolution = f"cannot resolve: {exc}"
    stats = services.store.stats()
    return "\n".join([
        "### Configuration",
        f"- database: `{esc(config.db_path)}` ({'ephemeral' if config.ephemeral else 'persistent'}); exports: `{esc(config.export_dir)}`",
        f"- model: `{esc(config.model)}` → {esc(resolution)}",
        f"- adapter: `{esc(config.adapter)}`; loaded: {esc(model.get('loaded'))}" + (f" ({esc(model.get('name'))})" if model.get("name") else ""),
        f"- demo mode: {config.demo}; password login: {bool(config.auth)}; Hugging Face sign-in: {config.oauth}; queue size: {config.queue_size}",
        "- store: " + ", ".join(f"{k} {v}" for k, v in stats.items()),
        "",
        "### Environment variables",
        (env_doc or "").split("\n\n", 1)[-1],
    ])


def build_demo(config: AppConfig | None = None, services: Services | None = None,
               predictor_factory: Callable[[], Any] | None = None):
    """The whole app. Nothing heavy happens here: the model loads on the first comparison.

    Args:
        config: defaults to ``AppConfig.from_env()``.
        services: a prepared Services (tests); built from ``config`` otherwise.
        predictor_factory: builds the shared predictor instead of petool.models (tests, fakes).
    """
    import gradio as gr

    from petool.ui import builder, compare, dash, errors, export
    from petool.ui.common import with_user

    config = config or AppConfig.from_env()
    if config.oauth:
        import importlib.util

        missing = [m for m in ("authlib", "itsdangerous") if importlib.util.find_spec(m) is None]
        if missing:  # fail closed: without them a public Space would let anyone label under any name
            raise RuntimeError(f"Hugging Face sign-in needs gradio[oauth] ({', '.join(missing)} missing): "
                               "add authlib and itsdangerous to requirements.txt, or set PETOOL_OAUTH=0")
    services = services or Services(config, predictor_factory=predictor_factory)
    with gr.Blocks(title="petool") as demo:
        gr.Markdown(header(config, services), elem_id="header")
        with gr.Row():
            if config.access_control:
                # The login name is the annotator; the box only shows it (the server ignores it).
                annotator = gr.Textbox(label="annotator (your login name)", placeholder="not signed in: you can look, not label",
                                       interactive=False, scale=2, elem_id="annotator")
            else:
                annotator = gr.Textbox(label="annotator (your name, stored with every label)", scale=2, elem_id="annotator")
            if config.oauth:
                gr.LoginButton(scale=1)
            gr.Markdown("Tabs: **Build** a history → **Compare & label** → **Pairs & training** → **Dashboards** / **Errors**.")
        entry_state = gr.State(None)
        with gr.Tabs(elem_id="tabs") as tabs:
            with gr.Tab("Build", id="build", elem_id="tab-build"):
                b = builder.build(services, entry_state, annotator)
            with gr.Tab("Compare & label", id="compare", elem_id="tab-compare"):
                compare.build(services, entry_state, annotator)
            with gr.Tab("Pairs & training", id="pairs", elem_id="tab-pairs") as pairs_tab:
                p = export.build(services)
            with gr.Tab("Dashboards", id="dashboards", elem_id="tab-dashboards") as dash_tab:
                d = dash.build(services)
            with gr.Tab("Errors", id="errors", elem_id="tab-errors") as errors_tab:
                e = errors.build(services)
            with gr.Tab("About", id="about", elem_id="tab-about") as about_tab:
                about_md = gr.Markdown(about(config, services))
        # Plots in hidden tabs render too small: draw them when their tab is opened.
        dash_tab.select(d["refresh"], d["inputs"], d["outputs"], api_visibility="private")
        pairs_tab.select(p["refresh"], None, p["outputs"], api_visibility="private")
        errors_tab.select(e["refresh"], None, e["outputs"], api_visibility="private")
        about_tab.select(lambda: about(config, services), None, about_md, api_visibility="private")

        def who(user):
            return user or gr.update()

        demo.load(with_user(who, 0), None, annotator, api_visibility="private")
        entry_state.change(lambda dd, s: b["refresh"](dd, s), [entry_state, b["setting"]], b["views"], api_visibility="private")
    demo.queue(max_size=config.queue_size, default_concurrency_limit=4)
    demo.petool_services = services
    return demo


def launch_kwargs(config: AppConfig) -> dict:
    """Arguments for ``demo.launch``: where to listen, login, theme/css/js (Gradio 6 puts them here)."""
    import gradio as gr

    return {
        "server_name": config.server_name,
        "server_port": config.server_port,
        "auth": config.auth or None,
        "ssr_mode": False,
        "show_error": True,
        "theme": gr.themes.Soft(),
        "css": CSS,
        "js": KEYS_JS,
        "allowed_paths": [config.export_dir],
        "max_file_size": f"{config.max_upload_mb}mb",
    }
