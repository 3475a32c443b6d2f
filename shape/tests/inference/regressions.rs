//! Regression cases found by the property tests of [`super::props`], each
//! shrunk to a minimal program.

use super::harness::check;

/// A `Total_elems` constraint whose unknown dimension occurs twice: `n * n
/// = 9` has the one solution `n = 3` (dividing 9 by the known sizes and
/// taking the quotient for `n` gives `9,9`, with 81 elements).
#[test]
fn total_elems_with_a_repeated_variable() {
    check("t = constant[elems=9]() : n,n", "t: 3,3");
    check("t = constant[elems=45]() : n|5,n", "t: 3|5,3");
}

/// As above for `reshape`: `n * n = 6` has no solution.
#[test]
fn reshape_to_a_repeated_variable() {
    check(
        "arg x : 2,3
         t = reshape(x) : n,n",
        "error: element count mismatch",
    );
}

/// A fixed index before a row variable (`3,...`) makes an ambiguous
/// `cur >= subr` alignment, which must not make the solver diverge in any
/// constraint order.
#[test]
fn fixed_index_before_a_row_variable() {
    check(
        "arg a : _
         t = neg(a) : ...
         e = einsum[\"3,... => \"](t) : ",
        "a: 1
         t: 4
         e:",
    );
}
