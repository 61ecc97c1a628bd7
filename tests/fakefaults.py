"""What the fake Slack (``tests/fakeslack.py``) can do wrong, on demand: the faults of issue 13.

Why a room of its own: the fake's core answers the Web API; which call fails how, and for how
long, is one piece of state the tests and ``bench/faults.py`` set, and the fake consults once
per call (:meth:`Faults.before`, before processing; :meth:`Faults.after`, once processed). The
faults, per method for a number of calls:

* before processing (nothing is done): ``rate_limit`` (429 + ``Retry-After``), ``http_error``
  (a 5xx HTML page from the load balancer), ``fail`` (``ok: false`` with an error, after
  ``after`` calls that succeed), ``hang`` (held, then an error: the client times out first),
  ``delay`` (held, then processed normally);
* after processing (Slack did it): ``reset_connection`` (the connection is reset instead of
  answered) and ``late`` (answered ``seconds`` later, past the client's timeout).

And for a window, over :attr:`mode_methods` (``chat.postMessage``, ``chat.update``): ``mode``
``"slow"`` (held :attr:`slow_s` before processing), ``"reset"`` or ``"late"``
(:attr:`late_s`), for every call while it is set.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass
class Before:
    """What happens to one call before it is processed."""

    status: int = 200  # 429: rate limited; a 5xx: the load balancer's error page
    retry_after: int = 0
    error: str | None = None  # ok: false with this error
    hang_s: float = 0.0
    delay_s: float = 0.0


class Faults:
    """The faults set on one fake, consulted for every call."""

    def __init__(self) -> None:
        self._faults_lock = threading.Lock()
        self._limits: dict[str, list[int]] = {}  # method -> [times left, retry_after]
        self._failures: dict[str, list[object]] = {}  # method -> [times left, error, after]
        self._http_errors: dict[str, list[int]] = {}  # method -> [times left, status]
        self._hangs: dict[str, list[float]] = {}  # method -> [times left, seconds]
        self._delays: dict[str, list[float]] = {}  # method -> [times left, seconds]
        self._resets: dict[str, list[int]] = {}  # method -> [times left]
        self._lates: dict[str, list[float]] = {}  # method -> [times left, seconds]
        self.mode: str | None = None  # "reset" | "late" | "slow" for mode_methods, while set
        self.mode_methods: tuple[str, ...] = ("chat.postMessage", "chat.update")
        self.late_s = 11.0
        self.slow_s = 1.5

    # -- setting them -----------------------------------------------------------------------

    def rate_limit(self, method: str, times: int = 1, retry_after: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with 429 and ``Retry-After``."""
        with self._faults_lock:
            self._limits[method] = [times, retry_after]

    def fail(self, method: str, error: str, times: int = 1, after: int = 0) -> None:
        """Answer ``times`` calls of ``method`` with ``{"ok": false, "error": error}``, after
        letting the next ``after`` calls succeed."""
        with self._faults_lock:
            self._failures[method] = [times, error, after]

    def http_error(self, method: str, status: int = 500, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with HTTP ``status`` and an HTML body
        (what a load balancer in front of Slack answers on an outage)."""
        with self._faults_lock:
            self._http_errors[method] = [times, status]

    def hang(self, method: str, seconds: float, times: int = 1) -> None:
        """Hold the next ``times`` calls of ``method`` for ``seconds`` before answering (to
        exercise the client's timeout; the call is recorded with status 0 when it arrives)."""
        with self._faults_lock:
            self._hangs[method] = [times, seconds]

    def delay(self, method: str, seconds: float, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` normally, but only after ``seconds``
        (a slow Slack: to let another turn arrive while a post is on its way)."""
        with self._faults_lock:
            self._delays[method] = [times, seconds]

    def reset_connection(self, method: str, times: int = 1) -> None:
        """Process the next ``times`` calls of ``method``, then reset the connection instead
        of answering (Slack did it; the client gets ECONNRESET)."""
        with self._faults_lock:
            self._resets[method] = [times]

    def late(self, method: str, seconds: float = 11.0, times: int = 1) -> None:
        """Process the next ``times`` calls of ``method``, then answer ``seconds`` later."""
        with self._faults_lock:
            self._lates[method] = [times, seconds]

    def clear_faults(self) -> None:
        """No fault any more (the calls recorded are kept)."""
        with self._faults_lock:
            for faults in (self._limits, self._failures, self._http_errors, self._hangs,
                           self._delays, self._resets, self._lates):
                faults.clear()
            self.mode = None

    # -- consulting them --------------------------------------------------------------------

    def window(self, method: str) -> str | None:
        return self.mode if method in self.mode_methods else None

    def before(self, method: str) -> Before:
        """The fault (if any) of this call of ``method`` before it is processed."""
        out = Before()
        with self._faults_lock:
            limit = self._limits.get(method)
            if limit and limit[0] > 0:
                limit[0] -= 1
                return Before(status=429, retry_after=limit[1])
            http_error = self._http_errors.get(method)
            if http_error and http_error[0] > 0:
                http_error[0] -= 1
                return Before(status=http_error[1])
            hang = self._hangs.get(method)
            if hang and hang[0] > 0:
                hang[0] -= 1
                out.hang_s = hang[1]
            delay = self._delays.get(method)
            if delay and delay[0] > 0:
                delay[0] -= 1
                out.delay_s = delay[1]
            failure = self._failures.get(method)
            if failure and int(str(failure[2])) > 0:
                failure[2] = int(str(failure[2])) - 1
            elif failure and int(str(failure[0])) > 0:
                failure[0] = int(str(failure[0])) - 1
                out.error = str(failure[1])
        return out

    def after(self, method: str) -> str | float | None:
        """What happens to a processed call's answer: "reset", a delay (late), or nothing."""
        window = self.window(method)
        if window == "reset":
            return "reset"
        if window == "late":
            return float(self.late_s)
        with self._faults_lock:
            reset = self._resets.get(method)
            if reset and reset[0] > 0:
                reset[0] -= 1
                return "reset"
            late = self._lates.get(method)
            if late and late[0] > 0:
                late[0] -= 1
                return float(late[1])
        return None
