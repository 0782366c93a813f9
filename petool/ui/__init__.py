"""The web app: one module per tab (layout + wiring) over plain handler functions.

Only this package imports gradio, and only inside functions, so importing a handler module
(tests, the CLI) does not start gradio. The training supervisor lives outside, in ``petool.jobs``.
"""

from petool.ui.app import build_demo

__all__ = ["build_demo"]
