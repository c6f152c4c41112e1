"""The structural findings of a build, with stable codes (``colosseum/<name>``).

``view`` is what the checks read of a build (``BuildView``, made by the index); ``family`` the
shape of one family of findings and the store they are kept in; one module per family
(``inputs``, ``structure``, ``separate_documents``, ``references``, ``cycles``, ``obligations``,
``claims``); ``registry`` lists the families; ``state`` keeps their findings from one build to the
next; ``findings`` computes them all from nothing.
"""
