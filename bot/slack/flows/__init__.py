"""What the bot does for each kind of delivery: one module per surface, called by the pipeline.

``commands`` (``/gpu-sizing``), ``mentions``, ``messages`` (thread replies and DMs),
``actions`` (answers, navigation, Compare, Start buttons), ``math`` and ``quote`` (the card's
two side effects), ``home`` (the App Home view and its New sizing). Shared steps: ``start``
(a sizing begins and its question is posted), ``answer`` (one turn of the dialogue),
``show`` (the question message brought up to date), ``face`` (the services and how a person
is told something), ``turn`` (the metric and log line of each delivery).
"""
