"""The inner loop of the method: diverse candidates, adversarial refutation attached to each,
aggregation by an overlapping random-sampling tree (``../shared/method.md``, "Inner loop")."""
