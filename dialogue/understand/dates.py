"""Dates as people say them: a weekday, 'tomorrow', 'next week', the end of the week or
month (or 'this week', 'ce mois-ci': by its end), a date by its month ('31 mars', 'March
15', 'end of January', 'mid-March') or an ISO date, as whole days from today.

Why a module of its own: a deadline is read from the opening (engine-free folded text) and
at the deadline question alike, and the days depend on today, which the service passes in:
the patterns and the arithmetic are pure and kept together.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from dialogue.understand.lexicon import alternation, numbered, terms

__all__ = ["WHEN", "days_until"]

_WEEKDAYS = numbered("weekdays")
#: Months by name (folded), English and French: the lexicon's (a month is read only inside
#: a date, 'May 5').
_MONTHS = numbered("months")
_MONTH = alternation(_MONTHS) + r"\b\.?"
#: A date by its month: '31 mars', '1er avril', 'the 15th of March', 'March 15, 2027', 'end of
#: January', 'fin janvier', 'mid-March'.
_DATE = (rf"(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th|er)?\s+(?:of\s+)?{_MONTH}(?:\s+\d{{4}})?"
         rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:\s+\d{{4}})?"
         rf"|(?:the\s+)?end\s+of\s+{_MONTH}(?:\s+\d{{4}})?|fin\s+(?:de\s+|d')?{_MONTH}(?:\s+\d{{4}})?"
         rf"|(?:mid|mi)[- ]?{_MONTH}(?:\s+\d{{4}})?")
WHEN = (rf"(?:{alternation(_WEEKDAYS)}|{terms('when_words')}|{_DATE}"
        rf"|{terms('end_of_period')}|\d{{4}}-\d{{2}}-\d{{2}})")

def days_until(when: str, today: date | None) -> float | None:
    """Whole days from today to a weekday ('friday', 'vendredi'), 'tomorrow', 'next week',
    the end of the week or month, or an ISO date; None without a today or in the past."""
    if today is None:
        return None
    w = when.strip()
    if w in _WEEKDAYS:
        return float((_WEEKDAYS[w] - today.weekday()) % 7 or 7)
    if w in ("tomorrow", "demain", "tonight", "ce soir"):
        return 1.0
    if w in ("next week", "la semaine prochaine"):
        return 7.0
    if "week" in w or "semaine" in w:  # its Friday; next week's, a week on
        ahead = 7 if "next" in w or "prochaine" in w else 0
        return float(((4 - today.weekday()) % 7 or 7) + ahead)
    if "month" in w or "mois" in w:
        first = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
        return float(max(1, (first - today).days - 1))
    target = _month_date(w, today)
    if target is None:
        try:
            target = date.fromisoformat(w)
        except ValueError:
            return None
    days = (target - today).days
    return float(days) if days > 0 else None


def _month_date(when: str, today: date) -> date | None:
    """A date said by its month ('31 mars', 'March 15', 'end of January', 'mid-March'), in
    the year given, else its next one after today."""
    month = next((n for name, n in _MONTHS.items()
                  if re.search(rf"\b{name}\b", when)), None)
    if month is None:
        return None
    year = re.search(r"\b(\d{4})\b", when)
    day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th|er)?\b", when.replace(year[0], "")
                    if year else when)
    def on(y: int) -> date | None:
        last = (date(y, month, 28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
        if "end" in when or "fin" in when:
            return last
        if when.startswith(("mid", "mi")):
            return date(y, month, 15)
        d = int(day[1]) if day else 0
        return date(y, month, d) if 1 <= d <= last.day else None
    if year:
        return on(int(year[1]))
    this = on(today.year)
    return this if this is not None and this > today else on(today.year + 1)
