"""The Slack face: Bolt listeners turn each request into a typed delivery, one pipeline runs
it through the flows, the cards render the dialogue's replies (docs/slack.md §9).

Rooms: ``app`` (the factory), ``routes`` (what Slack sends, to its flow), ``listeners/``
(record, then ack), ``payloads`` (deliveries), ``pipeline`` (the one dispatch), ``flows/``
(one per surface), ``cards/`` (one per message kind), ``keys`` (conversation keys),
``placement`` (where a sizing's message is), ``api`` (the Web API) and ``errors`` (what its
failures mean), ``access`` (who may do what), ``escape`` (typed text made safe), ``blockkit``
(the whole-message rule).
"""
