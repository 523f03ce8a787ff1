"""``python -m safebandits.cli``: the ``safebandits`` command."""

import sys

from safebandits.cli import main

sys.exit(main())
