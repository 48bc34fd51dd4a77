//! Positions for the evaluation's tuner (`examples/tune-eval.rs`): a game
//! replayed move by move on the threat searcher's own field, and the
//! features the evaluation adds up in every position where the search would
//! call it.

use super::field::Field;
use super::learned;
use super::shape::Lines;
use crate::bots::minimax::layout::Layout;
use crate::rules::{Board, Cell, IllegalMove};

/// A game as the threat searcher sees it, for sampling its evaluation.
pub struct EvalSampler {
    layout: Layout,
    field: Field,
}

impl EvalSampler {
    /// Features in a position: [`EvalSampler::features`]' indices run below
    /// this.
    pub const FEATURES: usize = learned::FEATURES;

    /// A sampler from the position `board`.
    pub fn new(board: &Board) -> EvalSampler {
        let g = board.geometry();
        let layout = Layout::new(board);
        let lines = Lines::new(g.k(), g.rule());
        let field = Field::new(board.clone(), &layout, lines);
        EvalSampler { layout, field }
    }

    /// Plays the side to move on `cell`.
    pub fn play(&mut self, cell: Cell) -> Result<(), IllegalMove> {
        let sq = self.field.board.check(cell)?;
        self.field.play(&self.layout, sq);
        Ok(())
    }

    /// The position as it stands.
    pub fn board(&self) -> &Board {
        &self.field.board
    }

    /// The evaluation's features (feature index, count), when the search
    /// would evaluate this position: the game goes on, neither side has a
    /// five to make and the side to move has no win in three plies (an open
    /// four or a double four to make); `None` otherwise.
    pub fn features(&self) -> Option<Vec<(u16, u16)>> {
        let f = &self.field;
        let me = f.to_move();
        let quiet = !f.board.is_over()
            && f.fives(me).is_empty()
            && f.fives(me.other()).is_empty()
            && f.wins3(me).is_empty();
        quiet.then(|| f.features().counts)
    }

    /// The candidate moves of a quiet position (see [`EvalSampler::features`])
    /// for the move order: every empty cell near a stone, with the move
    /// order's two features there (its feature indices: the side to move's
    /// class, then the other's, offset by the number of classes).
    pub fn candidates(&self) -> Option<Vec<(Cell, [u16; 2])>> {
        self.features()?;
        let f = &self.field;
        let me = f.to_move();
        let classes = learned::CLASSES as u16;
        let out = self
            .layout
            .squares
            .iter()
            .filter(|&&sq| f.board.is_empty_square(sq) && f.is_near_stone(sq))
            .map(|&sq| {
                let [own, other] = f.classes(sq, me);
                (f.board.cell_of(sq), [own as u16, classes + other as u16])
            })
            .collect();
        Some(out)
    }

    /// The evaluation of the position for the side to move (what the
    /// features add up to with the current weights).
    pub fn evaluate(&self) -> i32 {
        self.field.evaluate()
    }

    /// The current weights, by feature index.
    pub fn weights() -> Vec<f64> {
        learned::weight_vector()
    }

    /// The current move order's weights, by its feature index (see
    /// [`EvalSampler::candidates`]).
    pub fn policy_weights() -> Vec<f64> {
        learned::policy_vector()
    }

    /// The move order's features: [`EvalSampler::candidates`]' indices run
    /// below this.
    pub const POLICY_FEATURES: usize = 2 * learned::CLASSES;

    /// What a feature counts, for listings: `to move: Two Two OpenThree
    /// Four`, `waiting: ...`, `ranks 4 1`.
    pub fn feature_name(i: usize) -> String {
        use learned::{CLASSES, RANKS};
        let shapes = |class| {
            let s: Vec<String> = learned::class_shapes(class)
                .iter()
                .map(|s| format!("{s:?}"))
                .collect();
            s.join(" ")
        };
        if i < CLASSES {
            format!("to move: {}", shapes(i))
        } else if i < 2 * CLASSES {
            format!("waiting: {}", shapes(i - CLASSES))
        } else {
            let r = i - 2 * CLASSES;
            format!("ranks {} {}", r / RANKS, r % RANKS)
        }
    }

    /// The Rust source of `weights.rs` for the evaluation's weights and
    /// the move order's, by feature index, with `provenance` (how they were
    /// fitted) in its documentation.
    pub fn weights_source(weights: &[f64], policy: &[f64], provenance: &str) -> String {
        learned::weights_source(weights, policy, provenance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Geometry, Rule};

    #[test]
    fn samples_quiet_positions_and_their_evaluation() {
        let g = Geometry::new(15, 15, 5, Rule::Free).unwrap();
        let mut s = EvalSampler::new(&Board::new(g));
        let w = EvalSampler::weights();
        // X builds an open three on row 8 while O plays elsewhere: O must
        // answer it, and X has a win in three plies after O's next stone.
        for (i, (r, c)) in [(7, 6), (0, 0), (7, 7), (0, 14), (7, 8)]
            .into_iter()
            .enumerate()
        {
            let f = s.features().expect("quiet before the three is made");
            let dot: f64 = f.iter().map(|&(i, n)| w[i as usize] * n as f64).sum();
            assert_eq!(dot as i32, s.evaluate(), "ply {i}");
            s.play(Cell::new(r, c)).unwrap();
        }
        // O to move faces the open three: still evaluated; its candidates
        // include the three's ends.
        assert!(s.features().is_some());
        let candidates = s.candidates().expect("quiet");
        assert!(candidates.iter().any(|c| c.0 == Cell::new(7, 9)));
        let half = EvalSampler::POLICY_FEATURES / 2;
        assert!(candidates
            .iter()
            .all(|c| (c.1[0] as usize) < half && (c.1[1] as usize) >= half));
        s.play(Cell::new(14, 14)).unwrap();
        // X to move has an open four to make: decided, not evaluated.
        assert!(s.features().is_none());
        assert!(s.play(Cell::new(14, 14)).is_err(), "occupied");
        assert!(s.candidates().is_none());
        assert!(EvalSampler::feature_name(0).starts_with("to move: None"));
        assert_eq!(
            EvalSampler::feature_name(EvalSampler::FEATURES - 1),
            "ranks 6 6"
        );
    }
}
