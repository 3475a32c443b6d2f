//! Byte-level mutations of a program's text, for the parser's robustness:
//! deleted, duplicated, swapped and inserted ranges, truncation.

use crate::rng::Rng;

/// Characters that matter to MLIR's syntax.
const STRUCTURAL: &[u8] = b"{}()<>[]\"%@^:=,;!#\\\n -|.0123456789x";

/// A random range of `text` (at most `max` bytes).
fn range(text: &[u8], max: usize, rng: &mut Rng) -> (usize, usize) {
    let start = rng.index(text.len() + 1);
    let len = rng.index(max.min(text.len() - start) + 1);
    (start, start + len)
}

/// One to four random edits of `text`.
pub fn mutate(mut text: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let original = text.clone();
    for _ in 0..rng.range(1, 4) {
        match rng.below(7) {
            0 => {
                let (s, e) = range(&text, 24, rng);
                text.drain(s..e);
            }
            1 => {
                let (s, e) = range(&text, 64, rng);
                let piece = text[s..e].to_vec();
                let at = rng.index(text.len() + 1);
                text.splice(at..at, piece);
            }
            2 => {
                let (s1, e1) = range(&text, 16, rng);
                let (s2, e2) = range(&text, 16, rng);
                if e1 <= s2 {
                    let b = text[s2..e2].to_vec();
                    let a = text[s1..e1].to_vec();
                    text.splice(s2..e2, a);
                    text.splice(s1..e1, b);
                }
            }
            3 => {
                let at = rng.index(text.len() + 1);
                let n = rng.range(1, 8) as usize;
                let bytes: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
                text.splice(at..at, bytes);
            }
            4 => {
                let at = rng.index(text.len() + 1);
                text.truncate(at);
            }
            _ => {
                if !text.is_empty() {
                    let at = rng.index(text.len());
                    text[at] = *rng.pick(STRUCTURAL);
                }
            }
        }
    }
    if text == original {
        text.push(b'}');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutation_changes_the_text_deterministically() {
        let base = b"func.func @f() {\n  return\n}\n".to_vec();
        for seed in 0..200 {
            let a = mutate(base.clone(), &mut Rng::new(seed));
            let b = mutate(base.clone(), &mut Rng::new(seed));
            assert_eq!(a, b);
            assert_ne!(a, base);
        }
    }
}
