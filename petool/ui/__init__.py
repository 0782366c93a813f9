"""The web app: one module per tab (layout + wiring) over plain handler functions.

Only this package imports gradio, and only inside functions, so importing a handler module
(tests, the CLI) does not start gradio. The training supervisor lives outside, in ``petool.jobs``.
"""


def build_demo(*args, **kwargs):
    """Build the gr.Blocks app; see petool.ui.app.build_demo."""
    from petool.ui.app import build_demo as build

    return build(*args, **kwargs)
