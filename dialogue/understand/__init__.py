"""Reading what people type, in English or French, without a language model.

Each module holds one kind of understanding: ``text`` (folding accents and case, the one
shape every reader works on), ``numbers`` (quantities, on top of :mod:`engine.units`),
``models`` (a model named exactly, or proposed for confirmation), ``custom`` (a model given
by its parameter counts), ``config`` (by its config.json), ``names`` (workloads, GPUs,
links), ``unknown`` (a GPU the catalog lacks, named where a GPU goes), ``load`` (the
customer's terms: per-user speed, requests per second, a headcount and its share at once, a
batch job, owned hardware), ``dates`` (a deadline as a date), ``dataset`` (a training set in
examples and epochs), ``fields`` (answers typed as a form, 'users: 64'), ``negation``
(meaning: yes and no, what a negation covers, questions, corrections), ``commands``
(navigation, valid at every question), ``language`` (which language a message is in, or asks
for) and ``opening`` (several answers in one sentence). A parser of one quantity or word
returns its value or raises :class:`dialogue.errors.ParseError`, whose ``refusal`` says what
was expected (a catalog message a face renders); what is no failure is returned, never
raised: a proposal to confirm (a bare "fine-tune", a model's name only near one), a Hub id
to fetch. ``models.model`` and ``opening.extract`` return only values
(``dialogue/readings.py``), as the readers of ``dialogue/readers.py`` do.
"""

from functools import cache


@cache
def warm() -> None:
    """Build, once per process, what the first reading of a message would: the catalog's
    model, GPU and link indexes, the readers' compiled patterns and the lexicon's (~50 ms), so
    that no person's first message pays for it. Called by the service; cheap after the first
    time."""
    from dialogue.understand import gpus, names, opening, tidy

    tidy.tidy("*Model:* `org/x` <@U1> <https://a.b|c> :d: fifty deux cents 100users infrence")
    opening.extract("llama 70b inference 64 users, sorry 128, 8k context 30 tok/s per user "
                    "on our 4x L40S over InfiniBand NDR, 200 employees, 20 requests per second")
    opening.extract("lora on 20k examples of 1k tokens, 2 epochs, this week, on 8x B300")
    gpus.gpu("h100")  # and above, an unknown GPU: the nearest names' look-up
    names.interconnect("100 GbE")
