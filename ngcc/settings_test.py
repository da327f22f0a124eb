"""Settings for the test suite: the production settings with an ephemeral secret key.

`ngcc.settings` refuses to start without `SECRET_KEY` when `DEBUG` is off; tests never serve
anything, so they get a random key per run (inherited by the worker processes they start).
The page cache is off, so that tests count the queries of rendering; the page-cache tests turn
it on with the `page_cache` fixture.
"""

import os
import secrets

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))

from ngcc.settings import *  # noqa: E402,F403

NGCC_PAGE_CACHE = False
