//! Command-line pieces shared by `kinrow`, `kinrow play` and `referee`.

use crate::rules::{BoardSize, Geometry, Rule, SizeError};
use clap::Args;

/// The game-shape flags: `--board ROWSxCOLS --k K --rule free|exact`.
#[derive(Args, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShapeArgs {
    /// Board size, ROWSxCOLS (1 to 32 each). Default: 3x3.
    #[arg(long, value_name = "ROWSxCOLS")]
    pub board: Option<BoardSize>,
    /// Stones in a row that win. Default: min(5, rows, cols).
    #[arg(long)]
    pub k: Option<u32>,
    /// free: K or more in a row wins; exact: exactly K (overlines don't win).
    /// Default: free.
    #[arg(long)]
    pub rule: Option<Rule>,
}

impl ShapeArgs {
    /// Whether any of the flags was given.
    pub fn any_given(&self) -> bool {
        self.board.is_some() || self.k.is_some() || self.rule.is_some()
    }

    /// The checked shape, with defaults for what was left out.
    pub fn geometry(&self) -> Result<Geometry, SizeError> {
        let BoardSize { rows, cols } = self.board.unwrap_or(BoardSize { rows: 3, cols: 3 });
        let k = self.k.unwrap_or_else(|| Geometry::default_k(rows, cols));
        Geometry::new(rows, cols, k, self.rule.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_checks() {
        assert_eq!(ShapeArgs::default().geometry(), Ok(Geometry::TIC_TAC_TOE));
        let big = ShapeArgs {
            board: Some(BoardSize { rows: 15, cols: 15 }),
            ..ShapeArgs::default()
        };
        assert_eq!(big.geometry().map(|g| g.k()), Ok(5));
        let bad = ShapeArgs {
            k: Some(4),
            ..ShapeArgs::default()
        };
        assert!(bad.geometry().is_err());
        assert!(bad.any_given() && !ShapeArgs::default().any_given());
    }
}
