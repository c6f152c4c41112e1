-- Root module of the formalized part of the example project.
-- Each formalized lemma of the paper names its declaration with `\lean{...}`.
import ExampleProject.Basic
