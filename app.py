"""petool's web app (a Hugging Face Space entry point): configuration comes from the environment.

Run locally with `python app.py`; see petool/appconfig.py for PETOOL_* variables.
"""

from petool.appconfig import AppConfig
from petool.ui import build_demo
from petool.ui.app import launch_kwargs

config = AppConfig.from_env()
demo = build_demo(config)

if __name__ == "__main__":
    demo.launch(**launch_kwargs(config))
