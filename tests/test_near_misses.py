"""NearMisses (the "did you mean" finder) files most one-deletion variants under a single label
as a plain str, and still finds what a direct comparison finds through adds and removes."""

import random

from colosseum.checks.references import NearMisses, similar_labels


def test_lookup_equals_direct_comparison_through_adds_and_removes():
    rng = random.Random(3)
    alphabet = "abAB:"
    pool = sorted({"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5))) for _ in range(300)})
    near, current = NearMisses(), set()
    for step in range(600):
        label = rng.choice(pool)
        if label in current and rng.random() < 0.5:
            near.remove(label)
            current.discard(label)
        else:
            near.add(label)
            current.add(label)
        if step % 20 == 0:
            for name in pool[:60]:
                assert near.lookup(name) == similar_labels(name, current), (name, sorted(current))
    near.update_to(set())
    assert near.index == {} and near.labels == set()


def test_a_variant_of_one_label_is_no_set():
    """A set per variant was a sixth of the index's memory: one label's variants are str buckets."""
    labels = [f"lem:item-{i}" for i in range(200)]
    near = NearMisses(labels)
    sets = sum(1 for bucket in near.index.values() if isinstance(bucket, set))
    assert sets < len(near.index) / 10
    assert near.lookup("lem:item-1O") == similar_labels("lem:item-1O", labels) != []


def test_a_cold_build_with_few_undefined_references_builds_no_deletion_index(tmp_path):
    """The deletion index was built whenever references x labels was large, though only the
    references to no label are looked up: now it waits for many of those."""
    from colosseum.checks.references import References
    from colosseum.index import ProjectIndex

    body = "".join(f"\\begin{{lemma}}\\label{{lem:item-{i}}} By \\ref{{lem:item-{max(i - 1, 0)}}}.\\end{{lemma}}\n"
                   for i in range(700))
    (tmp_path / "main.tex").write_text("\\documentclass{article}\n\\newtheorem{lemma}{Lemma}\n\\begin{document}\n"
                                       + body + "See \\ref{lem:item-1O}.\n\\end{document}\n", encoding="utf-8")
    index = ProjectIndex.open(tmp_path)
    undefined = [d for d in index.diagnostics() if d.code.endswith("undefined-reference")]
    assert len(undefined) == 1 and "did you mean `lem:item-1`" in undefined[0].message, undefined
    # this index's own reference checks only: other tests' indexes may still be alive in the process
    families = [f for f in index._diagnostic_state.families if isinstance(f, References) and f.undefined]
    assert families and all(not family.near for family in families)
