"""petool: a workbench for personalized tool learning (PEToolBench, PEToolLLaMA).

Importing the package is cheap: torch, transformers and gradio load only where used.
"""

__version__ = "0.1.0"
