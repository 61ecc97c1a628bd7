"""``python -m engine``: the engine's command line (engine/cli.py holds it)."""

import sys

from engine.cli import main

sys.exit(main())
