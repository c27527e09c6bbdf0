"""What sqltriage keeps in the user cache folder: an inventory with sizes and last use, and pruning.

`$XDG_CACHE_HOME/sqltriage/` (default `~/.cache/sqltriage/`) holds one folder per kind of cached thing
(`features/`, `neighbours/`, and whatever later kinds add). Every top-level file or folder of a kind is
one entry, with the lock file and the unfinished temporaries that go with it; nothing here needs to
know a kind's own layout. Removing an entry only costs rebuilding it. An entry being built holds its
lock, and one being read holds a shared lock on itself (`in_use`); pruning never removes either.
"""

from sqltriage.core.cache.inventory import Entry, inventory, user_cache_dir
from sqltriage.core.cache.prune import PruneResult, prune
from sqltriage.core.cache.sizes import format_size, parse_size
from sqltriage.core.cache.use import InUse, in_use

__all__ = [
    "Entry",
    "InUse",
    "PruneResult",
    "format_size",
    "in_use",
    "inventory",
    "parse_size",
    "prune",
    "user_cache_dir",
]
