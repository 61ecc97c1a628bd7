"""The faces of the GPU sizing bot: Slack (Bolt, HTTP or Socket Mode) and the console.

Only this package knows Slack (``bot/slack/``): listeners turn Slack's requests into typed
deliveries, the flows run them through the dialogue, the cards render its plain replies.
``python -m bot`` picks the face from the tokens present (``bot/__main__.py``).
"""
