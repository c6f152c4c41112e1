"""The catalog's computation evidence on the paper's claims, for the reports of review and research
(colosseum.catalog.evidence words it): read once per report, and never a reason for a report to fail."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def claims_computation(index) -> dict:
    """label -> the computations the catalog holds on it (EvidenceItem), for the claims that have
    any; empty when there is no catalog or it cannot be read."""
    from colosseum.app.knowledge import CatalogOutsideProject, catalog_directory
    from colosseum.catalog.evidence import evidence_by_claim
    from colosseum.catalog.store import load_catalog

    try:
        directory = catalog_directory(index.root_dir)
        if not directory.is_dir():
            return {}
        found = evidence_by_claim(load_catalog(directory), index.claims)
    except (CatalogOutsideProject, OSError) as exc:
        log.warning("the catalog's computations are left out of the report: %s", exc)
        return {}
    return {label: evidence.computation for label, evidence in sorted(found.items()) if evidence.computation}
