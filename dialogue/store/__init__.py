"""Where conversations live between turns: Redis in production, a dict for the console.

See :mod:`dialogue.store.base` for the guarantees (compare-and-set, exactly-once deliveries,
claims) every implementation gives.
"""

from dialogue.store.base import Store, Stored, Write
from dialogue.store.memory import MemoryStore
from dialogue.store.redis import RedisStore

__all__ = ["MemoryStore", "RedisStore", "Store", "Stored", "Write"]
