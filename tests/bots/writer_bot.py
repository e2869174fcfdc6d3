"""A bot that keeps a cache beside its own file (as a PHP framework keeps ``var/cache``) before
it says hello, then plays the first legal card. In a sandbox its folder is shown read-only: the
write fails, and the check's hint must say it was a write, and where a bot may write."""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "cache.json"), "w") as cache:
    json.dump({"warm": True}, cache)

sys.path.insert(0, HERE)
from first_legal_bot import main  # noqa: E402

main()
