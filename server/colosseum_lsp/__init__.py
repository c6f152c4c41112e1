"""The Colosseum language server: a thin pygls adapter over the ``colosseum`` engine.

``server.Handlers`` registers each LSP method once and hands it to the features that implement
it. A request feature gets a ``context.FeatureContext`` (the document's project and snapshot, the
typed editor ``options``, spawn, progress, publish and its own state); features that act on their
own (commands, save and index hooks, code actions) declare themselves with the marks of
``features.registry``. Protocol objects are built from engine values in ``convert`` only."""
