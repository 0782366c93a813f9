"""Small gradio glue shared by the tabs."""

from __future__ import annotations

import functools
import logging
from typing import Callable

log = logging.getLogger(__name__)


def guard(fn: Callable) -> Callable:
    """Run a plain handler; its ValueError becomes a gradio error toast (outputs stay as they were)."""
    import gradio as gr

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValueError as exc:
            raise gr.Error(str(exc), print_exception=False) from None

    return run
