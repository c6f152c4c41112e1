/-!
# Degree arithmetic

Formalization of `lem:degree-arith` of the example paper (`sections/local-structure.tex`):
for all integers `k ≥ 1` and `Δ ≥ 1` we have `k (Δ - 1) + 1 ≤ k Δ`.

Plain Lean 4 core, natural numbers only. On `Nat`, `D - 1` is truncated subtraction; it is
the true difference here because `1 ≤ D`.
-/

namespace ExampleProject

/-- `lem:degree-arith`: if `1 ≤ k` and `1 ≤ D` then `k * (D - 1) + 1 ≤ k * D`.
(In the paper `D` is the maximum degree `Δ` and `k` the uniformity.) -/
theorem edge_degree_bound (k D : Nat) (hk : 1 ≤ k) (hD : 1 ≤ D) :
    k * (D - 1) + 1 ≤ k * D := by
  -- Write `D = d + 1`.
  obtain ⟨d, rfl⟩ : ∃ d, D = d + 1 := ⟨D - 1, (Nat.sub_add_cancel hD).symm⟩
  -- Goal: `k * (d + 1 - 1) + 1 ≤ k * (d + 1)`, i.e. `k * d + 1 ≤ k * d + k`.
  rw [Nat.add_sub_cancel, Nat.mul_add, Nat.mul_one]
  exact Nat.add_le_add_left hk (k * d)

/-- The bound is sharp for `k = 1`: then both sides equal `D`. -/
theorem edge_degree_bound_one (D : Nat) (hD : 1 ≤ D) : 1 * (D - 1) + 1 = 1 * D := by
  rw [Nat.one_mul, Nat.one_mul, Nat.sub_add_cancel hD]

end ExampleProject
