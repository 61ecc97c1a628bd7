"""Reading what people type, in English or French, without a language model.

Each module holds one kind of understanding: ``text`` (folding accents and case, the one
shape every reader works on), ``numbers`` (quantities, on top of :mod:`engine.units`),
``names`` (models, GPUs, links, workloads: resolved by the engine's catalog), ``negation``
(yes, no, and the words that turn one into the other), ``commands`` (navigation, valid at
every question), ``language`` (which language a message is in, or asks for) and ``opening``
(several answers in one sentence). Every reader returns a plain value or raises
:class:`dialogue.errors.ParseError`, whose ``message`` is a catalog message a face renders.
"""
