"""``python -m petool`` runs the CLI."""

import sys

from petool.cli import main

sys.exit(main())
