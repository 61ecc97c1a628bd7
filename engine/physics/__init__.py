"""The physics: small pure formulas the decision composes, with constants from the catalog.

``params`` (parameter counts from an architecture), ``memory`` (weights, KV cache, training
state), ``comm`` (collective times on a fabric), ``parallel`` (TP x PP x DP layouts),
``inference`` (fit and tokens/s of a serving layout), ``training`` (step time and scaling
efficiency of a training layout). Nothing here words an answer or decides a verdict.
"""
