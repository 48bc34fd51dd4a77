//! The learned evaluation: what a position is worth from the shapes of its
//! empty cells, by tables fitted to game results (`weights.rs`, written by
//! `examples/tune-eval.rs`; see `docs/minimax.md`).
//!
//! Every empty cell has, per player, the four shapes a stone there would
//! make (one a line, see `shape`). Their multiset — which shapes, in any
//! order of the lines — is the cell's *class*, one of [`CLASSES`]. A
//! position is worth, for the side to move,
//!
//! ```text
//!   sum over empty cells of  TO_MOVE[class of the side to move there]
//!                          + WAITING[class of the other there]
//!   + RANKS[the side to move's most forcing cell][the other's]
//! ```
//!
//! (the ranks of `field::Threat`: 0 nothing forcing up to 6 a five). It is
//! linear in counts of classes, so the tuner fits it by logistic regression
//! on the very features the search adds up (`Features`), and the field keeps
//! the sums move by move: a cell's class changes only when one of its line
//! shapes does.
//!
//! The order of quiet moves is learned too: a move looks as good as
//! `POLICY_OWN[the mover's class there] + POLICY_OTHER[the other's]`,
//! fitted (a softmax over the candidate cells) to the moves strong players
//! chose.

use super::shape::Shape;
use super::weights;

/// Line shapes (see `shape::Shape`).
const SHAPES: usize = 9;

/// Cell classes: multisets of four shapes out of nine, C(12, 4).
pub const CLASSES: usize = 495;

/// Ranks of a cell's threat (`field::Threat::rank`), 0 to 6.
pub const RANKS: usize = 7;

/// Feature indices: the side to move's classes, the other's classes, then
/// the pair of most forcing ranks.
pub const FEATURES: usize = 2 * CLASSES + RANKS * RANKS;

/// A cell's four shapes as a base-9 number, line 0 the lowest digit (the
/// field keeps it move by move by adding `(new - old) * 9^line`).
pub type Code = u16;

/// `9^line`, the weight of a line's shape in a [`Code`].
pub const LINE_WEIGHT: [u16; 4] = [1, 9, 81, 729];

/// Every code: 9^4.
const CODES: usize = 6561;

/// The class of each code: its digits sorted, ranked among the sorted
/// 4-tuples in lexicographic order.
static CLASS_OF: [u16; CODES] = class_table();

const fn class_table() -> [u16; CODES] {
    // Rank the sorted tuples a <= b <= c <= d in order.
    let mut rank_of_sorted = [u16::MAX; CODES];
    let mut next = 0u16;
    let mut a = 0;
    while a < SHAPES {
        let mut b = a;
        while b < SHAPES {
            let mut c = b;
            while c < SHAPES {
                let mut d = c;
                while d < SHAPES {
                    rank_of_sorted[a + 9 * b + 81 * c + 729 * d] = next;
                    next += 1;
                    d += 1;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    let mut out = [0u16; CODES];
    let mut code = 0;
    while code < CODES {
        let mut digits = [code % 9, code / 9 % 9, code / 81 % 9, code / 729];
        // Sort four digits (insertion sort: const fn).
        let mut i = 1;
        while i < 4 {
            let mut j = i;
            while j > 0 && digits[j - 1] > digits[j] {
                let t = digits[j - 1];
                digits[j - 1] = digits[j];
                digits[j] = t;
                j -= 1;
            }
            i += 1;
        }
        out[code] = rank_of_sorted[digits[0] + 9 * digits[1] + 81 * digits[2] + 729 * digits[3]];
        code += 1;
    }
    out
}

/// The code of four line shapes.
pub fn code_of(shapes: [Shape; 4]) -> Code {
    shapes
        .iter()
        .zip(LINE_WEIGHT)
        .map(|(&s, w)| s as u16 * w)
        .sum()
}

/// The class of a code.
#[inline]
pub fn class_of(code: Code) -> usize {
    CLASS_OF[code as usize] as usize
}

/// What a cell of a code is worth: to the side to move when the cell's
/// shapes are its own, and when they are the other's.
#[inline]
pub fn cell_worth(code: Code) -> [i32; 2] {
    let class = class_of(code);
    [
        weights::TO_MOVE[class] as i32,
        weights::WAITING[class] as i32,
    ]
}

/// How good a quiet move looks on a cell of the mover's code `own` and the
/// other's code `other`.
#[inline]
pub fn move_prior(own: Code, other: Code) -> i32 {
    weights::POLICY_OWN[class_of(own)] as i32 + weights::POLICY_OTHER[class_of(other)] as i32
}

/// The worth of the pair of most forcing ranks.
#[inline]
pub fn rank_worth(to_move: usize, waiting: usize) -> i32 {
    weights::RANKS[to_move][waiting] as i32
}

/// The features of a position, as counts by feature index (those not
/// listed are zero); the evaluation is their dot product with the weights.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub counts: Vec<(u16, u16)>,
}

/// The weights in feature order (see [`FEATURES`]), for the tuner.
pub fn weight_vector() -> Vec<f64> {
    let mut w = Vec::with_capacity(FEATURES);
    w.extend(weights::TO_MOVE.iter().map(|&v| v as f64));
    w.extend(weights::WAITING.iter().map(|&v| v as f64));
    for row in &weights::RANKS {
        w.extend(row.iter().map(|&v| v as f64));
    }
    w
}

/// The move order's weights: the mover's classes, then the other's.
pub fn policy_vector() -> Vec<f64> {
    let own = weights::POLICY_OWN.iter();
    own.chain(&weights::POLICY_OTHER)
        .map(|&v| v as f64)
        .collect()
}

/// The shapes of a class, for the tuner's listing (its four shapes,
/// weakest first).
pub fn class_shapes(class: usize) -> [Shape; 4] {
    let code = CLASS_OF
        .iter()
        .position(|&c| c as usize == class)
        .expect("every class has a code");
    let digit = |i: u32| Shape::from_index(code / 9usize.pow(i) % 9);
    let mut s = [digit(0), digit(1), digit(2), digit(3)];
    s.sort();
    s
}

/// Writes the evaluation's weights in feature order and the move order's
/// (see [`policy_vector`]) as the Rust source of `weights.rs`.
pub fn weights_source(w: &[f64], policy: &[f64], provenance: &str) -> String {
    assert_eq!(w.len(), FEATURES);
    assert_eq!(policy.len(), 2 * CLASSES);
    let round = |v: f64| v.round().clamp(i16::MIN as f64, i16::MAX as f64) as i16;
    let mut out = String::new();
    out.push_str("//! The learned evaluation's weights (see `learned`): written by\n");
    out.push_str("//! `examples/tune-eval.rs`, not by hand.\n");
    for paragraph in provenance.lines() {
        out.push_str("//!\n");
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if !line.is_empty() && line.len() + word.len() > 75 {
                out.push_str(&format!("//! {line}\n"));
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push_str(&format!("//! {line}\n"));
    }
    out.push('\n');
    let table = |out: &mut String, name: &str, doc: &str, values: &[f64]| {
        out.push_str(&format!("/// {doc}\n#[rustfmt::skip]\n"));
        out.push_str(&format!("pub const {name}: [i16; {}] = [\n", values.len()));
        for chunk in values.chunks(16) {
            let row: Vec<String> = chunk.iter().map(|&v| round(v).to_string()).collect();
            out.push_str(&format!("    {},\n", row.join(", ")));
        }
        out.push_str("];\n");
    };
    table(
        &mut out,
        "TO_MOVE",
        "By class: an empty cell's worth to the side to move, from its own shapes there.",
        &w[..CLASSES],
    );
    out.push('\n');
    table(
        &mut out,
        "WAITING",
        "By class: an empty cell's worth to the side to move, from the other's shapes there.",
        &w[CLASSES..2 * CLASSES],
    );
    out.push_str("\n/// By the most forcing rank of the side to move, then of the other.\n");
    out.push_str("#[rustfmt::skip]\n");
    out.push_str(&format!("pub const RANKS: [[i16; {RANKS}]; {RANKS}] = [\n"));
    for row in w[2 * CLASSES..].chunks(RANKS) {
        let row: Vec<String> = row.iter().map(|&v| round(v).to_string()).collect();
        out.push_str(&format!("    [{}],\n", row.join(", ")));
    }
    out.push_str("];\n\n");
    table(
        &mut out,
        "POLICY_OWN",
        "By class: how good a quiet move looks, from the mover's shapes there.",
        &policy[..CLASSES],
    );
    out.push('\n');
    table(
        &mut out,
        "POLICY_OTHER",
        "By class: how good a quiet move looks, from the other's shapes there.",
        &policy[CLASSES..],
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_the_multisets_of_four_shapes() {
        let mut seen = [false; CLASSES];
        for code in 0..CODES as u16 {
            seen[class_of(code)] = true;
        }
        assert!(seen.iter().all(|&s| s), "every class is reached");
        // The order of the lines does not matter; the shapes do.
        let shapes = [Shape::Two, Shape::OpenThree, Shape::None, Shape::Four];
        let turned = [Shape::Four, Shape::None, Shape::Two, Shape::OpenThree];
        assert_eq!(class_of(code_of(shapes)), class_of(code_of(turned)));
        let other = [Shape::Two, Shape::OpenThree, Shape::One, Shape::Four];
        assert_ne!(class_of(code_of(shapes)), class_of(code_of(other)));
        let mut sorted = shapes;
        sorted.sort();
        assert_eq!(class_shapes(class_of(code_of(shapes))), sorted);
    }

    #[test]
    fn the_weights_source_reads_back() {
        let text = weights_source(&weight_vector(), &policy_vector(), "test");
        assert!(text.contains("pub const TO_MOVE: [i16; 495]"));
        assert!(text.contains("pub const RANKS: [[i16; 7]; 7]"));
        assert!(text.contains("pub const POLICY_OTHER: [i16; 495]"));
        // The file as it is reads the same as written from its own tables
        // (the tuner's output is the source, not a copy of it).
        let file = include_str!("weights.rs");
        let tables = |t: &str| t[t.find("/// By class").unwrap()..].to_string();
        assert_eq!(tables(&text), tables(file));
    }
}
