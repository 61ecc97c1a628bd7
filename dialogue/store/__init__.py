"""Where conversations live between turns, and the durable queue of turns to apply.

Redis in production (one server, Sentinel or Cluster: ``connect.py``), a dict for the console.
See :mod:`dialogue.store.base` for the guarantees (compare-and-set, exactly-once deliveries,
claims) every store gives, and :mod:`dialogue.store.queue` for the queue's.
"""

from dialogue.store.base import Store, Stored, Write
from dialogue.store.memory import MemoryStore
from dialogue.store.memqueue import MemoryTurnQueue
from dialogue.store.queue import Entry, QueueFull, RedisTurnQueue, Submitted, TurnQueue
from dialogue.store.redis import RedisStore

__all__ = [
    "Entry",
    "MemoryStore",
    "MemoryTurnQueue",
    "QueueFull",
    "RedisStore",
    "RedisTurnQueue",
    "Store",
    "Stored",
    "Submitted",
    "TurnQueue",
    "Write",
]
