//! What a game is set up with: the board and who plays each side, whether it
//! came from flags or from the menu.

use crate::client::SeatSpec;
use crate::rules::{Geometry, Player, Rule};
use std::fmt;

/// A complete game setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Board size, K and rule.
    pub geometry: Geometry,
    /// Who plays X (X moves first).
    pub x: SeatSpec,
    /// Who plays O.
    pub o: SeatSpec,
}

impl Setup {
    /// The seat of one side.
    pub fn seat(&self, side: Player) -> &SeatSpec {
        match side {
            Player::X => &self.x,
            Player::O => &self.o,
        }
    }
}

/// A named board of the menu.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// What the menu shows.
    pub name: &'static str,
    /// The shape it stands for.
    pub geometry: Geometry,
}

/// The boards the menu offers, smallest first.
pub fn presets() -> Vec<Preset> {
    let shape =
        |rows, cols, k| Geometry::new(rows, cols, k, Rule::Free).unwrap_or(Geometry::TIC_TAC_TOE);
    let ruled = |rule| Geometry::new(15, 15, 5, rule).unwrap_or(Geometry::TIC_TAC_TOE);
    vec![
        Preset {
            name: "tic-tac-toe, 3x3, 3 in a row",
            geometry: Geometry::TIC_TAC_TOE,
        },
        Preset {
            name: "4x4, 4 in a row",
            geometry: shape(4, 4, 4),
        },
        Preset {
            name: "5x5, 4 in a row",
            geometry: shape(5, 5, 4),
        },
        Preset {
            name: "gomoku, 15x15, 5 in a row",
            geometry: shape(15, 15, 5),
        },
        Preset {
            name: "gomoku, 16x16, 5 in a row",
            geometry: shape(16, 16, 5),
        },
        Preset {
            name: "renju, 15x15: X has forbidden cells",
            geometry: ruled(Rule::Renju),
        },
        Preset {
            name: "caro, 15x15: a five blocked at both ends does not win",
            geometry: ruled(Rule::Caro),
        },
    ]
}

/// A human-friendly description of a shape: `3x3, 3 in a row`, with the rule
/// when it is `exact`.
pub struct Describe(pub Geometry);

impl fmt::Display for Describe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.0;
        write!(f, "{}x{}, {} in a row", g.rows(), g.cols(), g.k())?;
        f.write_str(match g.rule() {
            Rule::Free => "",
            Rule::Exact => " (exactly: longer lines do not win)",
            Rule::Renju => " (renju: cells forbidden to X marked #)",
            Rule::Caro => " (caro: a five blocked at both ends does not win)",
            Rule::CaroExact => " (caro, exactly: blocked fives, overlines don't win)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_the_classics() {
        let shapes: Vec<String> = presets().iter().map(|p| p.geometry.to_string()).collect();
        assert_eq!(
            shapes,
            [
                "3x3 k3 free",
                "4x4 k4 free",
                "5x5 k4 free",
                "15x15 k5 free",
                "16x16 k5 free",
                "15x15 k5 renju",
                "15x15 k5 caro"
            ]
        );
    }
}
