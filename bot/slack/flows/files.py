"""A file or snippet shared in a sizing: its text is the person's answer, as if they had pasted it.

Why: a model outside the catalog is described by its Hugging Face ``config.json``, and people
share that file (or a snippet of it) more often than they paste it. The message
event carries only what Slack says of each file (``bot/slack/payloads.py`` ``SharedFile``: the
queue entry stays small); the turn downloads the file here, when it is applied
(:meth:`bot.slack.api.SlackApi.download`), and the dialogue reads its text as the answer
(``Dialogue.attach``), exactly as a pasted config.json.

What a message with files answers (:func:`pick`, then :func:`said`):

* the **first text-like file** (Slack's filetype ``json``, ``text``, ``javascript``,
  ``snippet``, or a ``text/*`` or ``application/json`` mimetype): its content, whatever the
  message's text says ("here is the config" is not an answer: the file is);
* with no text-like file, the message's **text**, as a typed message; with no text either, the
  person is told privately that only a text file can be read;
* a file Slack Connect describes only by its id (``file_access: check_file_info``) is described
  by ``files.info`` first.

A file that cannot be read (over ``MAX_CONFIG_CHARS``, not text, refused by Slack) is said
privately, in the sizing's language, and changes nothing: the sizing stays at its question.
Slack failing for a passing reason raises ``SlackPassing`` from the download: the queue retries
the turn, as for any other Slack call. Neither the file's URL nor its content is logged.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Literal

from bot.slack.errors import SlackRefused
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.turn import Turn
from bot.slack.payloads import MentionDelivery, MessageDelivery, SharedFile
from dialogue.understand.config import MAX_CONFIG_CHARS
from engine.wording import msg

TEXT_FILETYPES = frozenset({"json", "text", "javascript", "snippet"})
TEXT_MIMETYPES = frozenset({"application/json"})
#: The most bytes read of a file: the dialogue's limit on a config.json, in characters, is
#: also a limit in bytes (a config.json is ASCII; more bytes than characters only lowers it).
LIMIT = MAX_CONFIG_CHARS
Unread = Literal["too_large", "not_text", "unreadable"]
Spoken = MessageDelivery | MentionDelivery  # what a person wrote, with the files they shared


@dataclass(frozen=True)
class Said:
    """What a message answers: its typed text, or the content of the file it shared."""

    text: str
    file: str | None = None  # the file's name when ``text`` is a shared file's content


def text_like(f: SharedFile) -> bool:
    """Whether Slack says the file is text (a config.json, a snippet), by its type only."""
    mime = f.mimetype.split(";")[0].strip().lower()
    return (f.filetype.lower() in TEXT_FILETYPES or mime.startswith("text/")
            or mime in TEXT_MIMETYPES)


def pick(face: Face, d: Spoken) -> SharedFile | None:
    """The file the message answers with: its first text-like file, or None. A file the event
    did not describe is described by ``files.info``; one that stays undescribed is picked (it
    cannot be read, and the person is told so rather than have their text read instead)."""
    for f in d.files:
        if not f.described:
            with contextlib.suppress(SlackRefused):  # undescribed: said unreadable below
                f = face.api.file_info(f.id) or f
        if not f.described or text_like(f):
            return f
    return None


def said(face: Face, t: Turn, d: Spoken, chosen: SharedFile | None,
         aud: Audience) -> Said | None:
    """What ``d`` answers: ``chosen``'s content (:func:`pick`), else its typed text; None when
    there is nothing to apply (a file that could not be read: ``aud`` is told why)."""
    if chosen is None:
        if d.text:
            return Said(d.text)
        if d.files:  # only files, none of them text
            unread(face, t, aud, "not_text", d.files[0])
        return None
    url = chosen.url_private_download or chosen.url_private
    if chosen.size is not None and chosen.size > LIMIT:
        unread(face, t, aud, "too_large", chosen)
        return None
    got = face.api.download(url, limit=LIMIT) if url else "refused"
    if not isinstance(got, bytes):
        unread(face, t, aud, "too_large" if got == "too_large" else "unreadable", chosen)
        return None
    if b"\x00" in got:  # said to be text, but binary
        unread(face, t, aud, "not_text", chosen)
        return None
    text = got.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return Said(text, file=chosen.name or chosen.id)


def unread(face: Face, t: Turn, aud: Audience, why: Unread, f: SharedFile) -> None:
    """Tell ``aud`` why the file ``f`` was not read (nothing changed)."""
    t.outcome = "file_unread"
    t.extra["file"] = why
    name = (f.name or f.id)[:80]
    note = (msg("slack.file.too_large", name=name, n=LIMIT) if why == "too_large"
            else msg("slack.file.not_text", name=name) if why == "not_text"
            else msg("slack.file.unreadable", name=name))
    face.tell(aud, note)
