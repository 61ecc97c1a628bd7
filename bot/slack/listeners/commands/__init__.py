"""Slash commands: ``/gpu-sizing``, and ``/gpu-sizing-dev`` of the development app
(``deploy/slack/manifest.socket.yaml``), which can live beside the production one in a
workspace; both run the same callback."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners.commands.gpu_sizing import COMMAND, COMMANDS, on_gpu_sizing

__all__ = ["COMMAND", "COMMANDS", "register"]


def register(app: App) -> None:
    for command in COMMANDS:
        app.command(command)(on_gpu_sizing)
