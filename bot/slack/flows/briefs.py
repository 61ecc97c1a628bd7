"""A brief into Slack: rendered as PDF and Markdown, uploaded as one message of two files.

Why one helper for the quote and the export flows: both upload the same pair the same way
(``SlackApi.upload``: slack_sdk's ``files_upload_v2``, ``bot/slack/api.py``), and a failure
to draw the PDF must not cost the person the brief: the Markdown, which cannot fail to
render, is uploaded alone, and the failure is logged by its kind only (no text, no
traceback: a brief quotes what customers typed).
"""

from __future__ import annotations

import logging

from bot.brief import Brief, render_markdown
from bot.slack.api import Upload
from bot.slack.cards.words import Words
from bot.slack.flows.face import Face
from engine.wording import msg

log = logging.getLogger(__name__)


def files_of(brief: Brief) -> list[Upload]:
    """The PDF (when it can be drawn) and the Markdown of ``brief``."""
    w = Words(brief.lang)
    files: list[Upload] = []
    try:
        from bot.brief.pdf import render_pdf  # fpdf2 is loaded on the first brief

        pdf = render_pdf(brief)
    except Exception as exc:  # a missing font, a drawing defect: keep the Markdown
        log.error("brief pdf failed", extra={"json_fields": {"error": type(exc).__name__}})
    else:
        files.append(Upload(f"{brief.file_stem}.pdf",
                            w.plain(msg("slack.quoting.file_title", title=brief.title,
                                        format="PDF")), pdf))
    files.append(Upload(f"{brief.file_stem}.md",
                        w.plain(msg("slack.quoting.file_title", title=brief.title,
                                    format="Markdown")),
                        render_markdown(brief).encode("utf-8")))
    return files


def send(face: Face, channel: str, brief: Brief, comment: str, *,
         thread_ts: str | None = None) -> None:
    """Upload ``brief`` to ``channel`` (in the thread of ``thread_ts``) with ``comment``
    (mrkdwn, already escaped); a refusal raises ``SlackRefused`` (counted and logged by the
    API)."""
    face.api.upload(channel, files_of(brief), thread_ts=thread_ts, comment=comment)
