"""Session set-up: generated driving candidate sets are cached in a temporary folder, not ~/.cache."""

import os
import tempfile

os.environ.setdefault("SAFEBANDITS_CACHE", tempfile.mkdtemp(prefix="safebandits-cache-"))
