"""The faces of the GPU sizing bot: Slack (Bolt, HTTP or Socket Mode) and the console.

Only this package knows Slack; it renders the dialogue's plain replies (``bot/slack/cards.py``) and
glues Slack payloads to dialogue turns (``bot/slack/turns.py``). ``python -m bot`` picks the face
from the tokens present (``bot/__main__.py``).
"""
