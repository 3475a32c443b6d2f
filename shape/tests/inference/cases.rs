//! Data-driven inference cases.

use super::harness::check;

#[test]
fn einsum_permute_all() {
    check(
        "arg hey : 2|3->4
         r = einsum[\"b|i->o => o|b->i\"](hey) : ...|...->...",
        "hey: 2|3->4
         r: 4|2->3",
    );
}

#[test]
fn einsum_permute_sum() {
    check(
        "arg hey2 : 2,3|4,5->6,7
         r = einsum[\"ab|cd->ef => c|a->d\"](hey2) : ...|...->...",
        "hey2: 2,3|4,5->6,7
         r: 4|2->5",
    );
}

#[test]
fn einsum_binary() {
    check(
        "arg a : 2|3->4
         arg b : 2|4->5
         r = einsum[\"a|i->h; b|h->o => ab|i->o\"](a, b) : ...|...->...",
        "a: 2|3->4
         b: 2|4->5
         r: 2,2|3->5",
    );
}

#[test]
fn hey_from_usage() {
    check(
        "arg hey : ...|...->...
         arg x : 20
         arg y : 20
         m = matmul(hey, x) : ...|...->...
         s = add(m, y) : ...|...->...",
        "hey: 20->20
         x: 20
         y: 20
         m: 20
         s: 20",
    );
}

#[test]
fn rosette_readme() {
    check(
        "arg a : 4->3
         arg c1 : 5->3
         arg c3 : 7->3
         arg i1 : ...|...->...
         arg i2 : ...|...->...
         arg i3 : ...|...->...
         t1 = fma(a, i1, c1) : ...|...->...
         t2 = add(t1, i2) : ...|...->...
         t3 = fma(t2, i3, c3) : ...|...->...",
        "a: 4->3
         c1: 5->3
         c3: 7->3
         i1: 5->4
         i2: 5->3
         i3: 7->5
         t1: 5->3
         t2: 5->3
         t3: 7->3",
    );
}

#[test]
fn pointwise_broadcasts() {
    check(
        "arg a : 2,3|4->5
         arg b : 5
         r = add(a, b) : ...|...->...",
        "a: 2,3|4->5
         b: 5
         r: 2,3|4->5",
    );
    check(
        "arg a : 1,3
         arg b : 4,1
         r = mul(a, b) : _,_",
        "a: 1,3
         b: 4,1
         r: 4,3",
    );
}

#[test]
fn errors() {
    check(
        "arg a : 3\narg b : 4\nr = add(a, b) : ...",
        "error: size mismatch",
    );
    check(
        "arg a : rgb=3\narg b : hsv=3\nr = add(a, b) : ...",
        "error: label mismatch",
    );
    check("arg a : 2,3\nr = neg(a) : 3", "error: too few axes");
    check(
        "arg a : 2,3\nr = einsum[\"i => i\"](a) : ...",
        "error: einsum spec mismatch",
    );
    check(
        "arg a : ..r..\nr = add(a, a) : ..r..,2\ns = add(r, a) : ..r..",
        "error: rank cycle",
    );
}

#[test]
fn named_variables_are_shared() {
    check(
        "arg x : b|784
         arg w : 784->h
         arg bias : h
         y = fma(w, x, bias) : b|h
         arg v : 10
         z = add(y, v) : ...|...->...",
        "x: 1|784
         w: 784->10
         bias: 10
         y: 1|10
         v: 10
         z: 1|10",
    );
}

#[test]
fn batch_slice_and_terminals() {
    check(
        "arg x : 8,4|3->2
         s = batch_slice[2](x) : ...|...->...",
        "x: 8,4|3->2
         s: 4|3->2",
    );
    check(
        "arg x : 2|3\ns = batch_slice[5](x) : ...|...->...",
        "error: size mismatch",
    );
    check(
        "c = constant[elems=6]() : ...|...->...
         r = range[\"20\"]() : ...|...->...
         arg x : 2,3
         y = reshape(x) : _",
        "c: 6
         r: 20
         x: 2,3
         y: 6",
    );
}

#[test]
fn transpose() {
    check(
        "arg x : b|3->4
         t = transpose(x) : ...|...->...",
        "x: 1|3->4
         t: 1|4->3",
    );
}

/// Regression: an ambiguous `beg ++ a >= [s]` (axes before the row
/// variable) must wait for `a`, not replace itself forever; and `t1`'s batch
/// row is forced to have two axes (it takes a broadcast of `k,l`).
#[test]
fn ambiguous_alignment_terminates() {
    check(
        "arg a0 : ...|...->...
         arg a1 : 
         t0 = einsum[\"i|i,j->i,...; ...-> => k,l,...|\"](a0, a1) : ...|...->...
         t1 = add(a0, t0) : ...|...->...",
        "a0: 1|1,1->1
         a1:
         t0: 1,1|
         t1: 1,1|1,1->1",
    );
}

/// Regression (order independence): an unlabelled axis that turns out equal
/// to a labelled one takes its label, whichever was bound first.
#[test]
fn labels_flow_through_equal_axes() {
    check(
        "arg a0 : 2,1|
         arg a2 : 2,1|rgb=1,..r..->
         t0 = add(a0, a2) : ...|...->...
         t1 = einsum[\"_,0|i->..r..; j,i|...->..s.. => i|...,j->...,i,k\"](t0, a0) : ...|...->...",
        "a0: 2,1|
         a2: 2,1|rgb=1->
         t0: 2,1|rgb=1->
         t1: rgb=1|2->rgb=1,1",
    );
}

/// Convolutions and strides (reference, "Affine indexing and convolutions"):
/// the output from the input, the input from the output (backwards), and
/// the kernel from both.
#[test]
fn conv2d_shapes() {
    // Valid, stride 1: 8 - 3 + 1 = 6.
    check(
        "arg x : 2|8,8,3
         arg k : 3,3,3->4
         r = einsum[\"b|oh<+kh,ow<+kw,ci; kh,kw,ci->co => b|oh,ow,co\"](x, k) : ...|...->...",
        "x: 2|8,8,3
         k: 3,3,3->4
         r: 2|6,6,4",
    );
    // Padded, stride 2: 8 / 2.
    check(
        "arg x : 2|8,8,3
         arg k : 3,3,3->4
         r = einsum[\"b|2*oh=+kh,2*ow=+kw,ci; kh,kw,ci->co => b|oh,ow,co\"](x, k) : ...|...->...",
        "x: 2|8,8,3
         k: 3,3,3->4
         r: 2|4,4,4",
    );
    // Explicit padding (ONNX's Conv, our `@lo,hi`): (224 + 2 + 2 - 11) / 4
    // + 1 = 55 (54.25 rounded down), stride 4: forwards only.
    check(
        "arg x : 1,3,224,224
         arg k : 64,3,11,11
         r = einsum[\"n,c,4*h@2,2+kh,4*w@2,2+kw; m,c,kh,kw => n,m,h,w\"](x, k) : ...",
        "x: 1,3,224,224
         k: 64,3,11,11
         r: 1,64,55,55",
    );
    // Stride 1 is exact: backwards, 7 - 1 + 3 - 1 - 0 = 8; and the kernel
    // from both sides, 8 + 1 + 1 - 7 + 1 = 4.
    check(
        "arg x : ...
         arg k : 3
         arg y : 8
         arg w : ...
         r = einsum[\"h@1,0+kh; kh => h\"](x, k) : 7
         s = einsum[\"h@1,1+kh; kh => h\"](y, w) : 7",
        "x: 8
         k: 3
         y: 8
         w: 4
         r: 7
         s: 7",
    );
    // Valid, stride 2, dilation 2: (11 - 5) / 2 + 1 = 4.
    check(
        "arg x : 11,11
         arg k : 3,3
         r = einsum[\"2*oh<+2*kh,2*ow<+2*kw; kh,kw => oh,ow\"](x, k) : ...|...->...",
        "x: 11,11
         k: 3,3
         r: 4,4",
    );
    // Max-pool, window 3, stride 2: (9 - 3) / 2 + 1 = 4.
    check(
        "arg x : 2|9,9,3
         arg w : 3,3
         r = einsum[\"b|2*oh<+wh,2*ow<+ww,c; wh,ww => b|oh,ow,c\"](x, w) : ...|...->...",
        "x: 2|9,9,3
         w: 3,3
         r: 2|4,4,3",
    );
    // Backwards: the input from the output and the kernel: 2 * (5 - 1) + 3.
    check(
        "arg x : ...|...->...
         arg k : 3
         r = einsum[\"2*o<+k; k => o\"](x, k) : 5",
        "x: 11
         k: 3
         r: 5",
    );
    // The kernel from the input and the output: 10 - 2 * (4 - 1) = 4.
    check(
        "arg x : 10
         arg k : ...|...->...
         r = einsum[\"2*o<+k; k => o\"](x, k) : 4",
        "x: 10
         k: 4
         r: 4",
    );
}

#[test]
fn incompatible_strides() {
    check(
        "arg x : 7
         r = einsum[\"2*o => o\"](x) : ...",
        "error: incompatible stride",
    );
    check(
        "arg x : 8
         arg k : 3
         r = einsum[\"2*o<+k; k => o\"](x, k) : ...",
        "error: incompatible stride",
    );
    check(
        "arg x : 2
         arg k : 3
         r = einsum[\"o<+k; k => o\"](x, k) : ...",
        "error: incompatible stride",
    );
    check(
        "arg x : 8
         r = einsum[\"2*o => o\"](x) : 5",
        "error: incompatible stride",
    );
}

/// Concatenation (reference, "Concatenation"; OCANNL's `concat`, `stack`
/// and slicing Block specs): the concatenated axis is the sum of its parts,
/// forwards and backwards; discardable parts ("Invalid variables in Block
/// specs") close to 0.
#[test]
fn concatenation() {
    // Two and three operands, forwards.
    check(
        "arg x : 2|3
         arg y : 2|4
         r = concat[\"b|a; b|c => b|a^c\"](x, y) : ...|...->...",
        "x: 2|3
         y: 2|4
         r: 2|7",
    );
    check(
        "arg x : 2
         arg y : 3
         arg z : 4
         r = concat[\"a; b; c => a^b^c\"](x, y, z) : ...|...->...",
        "x: 2
         y: 3
         z: 4
         r: 9",
    );
    // Backwards: an unknown operand from the result and the other operand.
    check(
        "arg x : 2
         arg y : ...|...->...
         r = concat[\"a; b => a^b\"](x, y) : 5",
        "x: 2
         y: 3
         r: 5",
    );
    // Along an input axis, with row variables for the rest.
    check(
        "arg x : 4|3->5
         arg y : 4|2->5
         r = concat[\"...|a->...; ...|b->... => ...|a^b->...\"](x, y) : ...|...->...",
        "x: 4|3->5
         y: 4|2->5
         r: 4|5->5",
    );
    // Stacking (OCANNL's `stack`: size-1 parts concatenated on a new axis).
    check(
        "arg x : 3,4
         arg y : 3,4
         arg z : 3,4
         r = concat[\"...; ...; ... => s^t^u, ...\"](x, y, z) : ...|...->...",
        "x: 3,4
         y: 3,4
         z: 3,4
         r: 3,3,4",
    );
}

/// Slicing with Block specs: the discardable part closes to 0 when nothing
/// else fixes it ("Invalid variables in Block specs"), or takes what the
/// declared result leaves.
#[test]
fn slicing_and_discardable_parts() {
    // `a^b => a` with an open result: `b` is discardable, guessed 0.
    check(
        "arg x : 2|5
         r = concat[\"b|a^c => b|a\"](x) : ...|...->...",
        "x: 2|5
         r: 2|5",
    );
    // With a declared result, the discarded part is what is left.
    check(
        "arg x : 5
         r = concat[\"a^b => a\"](x) : 3",
        "x: 5
         r: 3",
    );
    check(
        "arg x : 5
         r = concat[\"a^b => b\"](x) : 2",
        "x: 5
         r: 2",
    );
    // The middle of three parts: with nothing else known, both discardable
    // parts close to 0 and the slice is the whole axis (which then does not
    // broadcast against 4)...
    check(
        "arg x : 10
         arg y : 4
         s = concat[\"a^b^c => b\"](x) : ...
         r = add(s, y) : ...",
        "error: size mismatch",
    );
    // ... and with a declared slice the offset is ambiguous (`a + c = 6`),
    // which closing does not resolve by guessing.
    check(
        "arg x : 10
         s = concat[\"a^b^c => b\"](x) : 4",
        "error: mismatched concatenation",
    );
    // Embedding into a larger axis (padding on the right).
    check(
        "arg x : 3
         r = concat[\"a => a^b\"](x) : 7",
        "x: 3
         r: 7",
    );
    // Chained concatenations with unknown parts: the parts are guessed, the
    // concatenated axes are their sums.
    check(
        "arg x : ...|...->...
         arg y : ...|...->...
         arg z : ...|...->...
         s = concat[\"a; b => a^b\"](x, y) : ...|...->...
         r = concat[\"c; d => c^d\"](s, z) : ...|...->...",
        "x: 1
         y: 1
         z: 1
         s: 2
         r: 3",
    );
}

#[test]
fn mismatched_concatenation() {
    check(
        "arg x : 2
         arg y : 3
         r = concat[\"a; b => a^b\"](x, y) : 6",
        "error: mismatched concatenation",
    );
    // A part larger than the whole.
    check(
        "arg x : 7
         arg y : ...
         r = concat[\"a; b => a^b\"](x, y) : 5",
        "error: mismatched concatenation",
    );
    // A part that is not discardable cannot be 0.
    check(
        "arg x : 5
         arg y : ...
         r = concat[\"a; b => a^b\"](x, y) : 5",
        "error: mismatched concatenation",
    );
    // `a^a`: two parts of one size.
    check(
        "arg x : 5
         r = concat[\"a^a => a\"](x) : ...",
        "error: mismatched concatenation",
    );
}

/// Reshape through `Total_elems` with a `Strided_var` numerator (reference,
/// "Preventing Premature Guessing with Total_elems Constraints"): one
/// element count shared by operand and result, never guessed.
#[test]
fn reshape_total_elems() {
    // Forwards: the open result takes the count as one output axis.
    check(
        "arg x : 2,3
         r = reshape(x) : ...|...->...",
        "x: 2,3
         r: 6",
    );
    // Backwards: an open operand from the result.
    check(
        "arg x : ...|...->...
         r = reshape(x) : 3|2->4",
        "x: 24
         r: 3|2->4",
    );
    // A missing factor.
    check(
        "arg x : 4|6
         r = reshape(x) : 3,n",
        "x: 4|6
         r: 3,8",
    );
    // The count flows through a chain of reshapes.
    check(
        "arg x : ...|...->...
         t = reshape(x) : ...|...->...
         r = reshape(t) : 2,5",
        "x: 10
         t: 10
         r: 2,5",
    );
    // A constant's data fixes the count (`Num_elems`), or its axes (`Exact`).
    check("c = constant[elems=12]() : 3,n", "c: 3,4");
    check("c = constant[exact=2x3]() : ...|...->...", "c: 2,3");
    check("c = constant[exact=2x3]() : b|...->...", "c: 2|3");
}

#[test]
fn element_count_errors() {
    // 7 elements cannot fill rows of 2 * n.
    check(
        "arg x : 7
         r = reshape(x) : 2,n",
        "error: element count mismatch",
    );
    check(
        "arg x : 2,3
         r = reshape(x) : 4",
        "error: element count mismatch",
    );
    check(
        "c = constant[elems=10]() : 3,n",
        "error: element count mismatch",
    );
    check("c = constant[exact=2x3]() : 6", "error: rank mismatch");
}

/// Closing guesses no dim of a reshape whose guess the shared count shows
/// to be impossible (reference, "Preventing Premature Guessing with
/// Total_elems Constraints"): the result's terminal `d` waited for the
/// operand's axes that a broadcast and a fixed index leave open (1 at
/// stage 7) and is derived from their count. Guessing `d = 1` at stage 5
/// made the count 2, which the operand's 4 known elements do not divide
/// (an ONNX Unsqueeze and Reshape that onnxruntime runs).
#[test]
fn reshape_derives_what_a_guess_would_contradict() {
    let cases = [
        (
            "arg x : 4,1
             a = relu(x) : ...
             e = einsum[\"a,b => 0,a,b\"](a) : ...
             r = reshape(e) : d,2",
            "x: 4,1
             a: 4,1
             e: 1,4,1
             r: 2,2",
        ),
        // Every side open, none possible at its lower bounds: the count is
        // the least that both can have (12).
        (
            "arg x : a,4
             r = reshape(x) : c,6",
            "x: 3,4
             r: 2,6",
        ),
        // One side possible (6 elements for `a,b`): it is guessed, and the
        // other's last unknown takes what its first leaves.
        (
            "arg x : a,b
             r = reshape(x) : c,6",
            "x: 1,6
             r: 1,6",
        ),
        (
            "arg x : 6
             r = reshape(x) : a,b",
            "x: 6
             r: 1,6",
        ),
    ];
    for (src, expected) in cases {
        check(src, expected);
        for seed in 1..=4 {
            let mut built = super::harness::build(src);
            built.problem.shuffle(seed);
            let solved =
                super::harness::solve_and_render(&mut built, ocannl_shape::solver::Closing::Full)
                    .expect("solvable in any order");
            let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(flat(&solved), flat(expected), "shuffle {seed}:\n{src}");
        }
    }
}

/// A broadcast that grows the result's row variable (`r = ..r'..,3`)
/// leaves a least-upper-bound record `..r'.. >= ..w..` for the operand's
/// terminal row variable, which closing reads: `..w..` takes the bound
/// `..r'..` gets from `s` (5,2), and is not closed empty.
#[test]
fn least_upper_bound_after_growth() {
    check(
        "arg w : ..w..,3
         arg y : 5,2,3
         r = neg(w) : ...
         s = add(r, y) : ...",
        "w: 5,2,3
         y: 5,2,3
         r: 5,2,3
         s: 5,2,3",
    );
}
