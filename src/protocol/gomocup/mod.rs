//! The Gomocup (piskvork) brain protocol's vocabulary, both ways:
//!
//! - [`Command`], [`BoardLine`]: what managers send, parsed (kinrow as a
//!   brain, [`crate::engine::gomocup`], reads them);
//! - [`Reply`]: what brains send, parsed (the referee's and `kinrow play`'s
//!   side, [`crate::client`]).
//!
//! Coordinates are `X,Y`: 0-based, the column first ([`Point`]).

mod command;
mod reply;

pub use command::{BadPoint, BoardLine, Command, CommandError, Field, Point};
pub use reply::{about_field, Reply};

use crate::rules::Rule;

/// The Gomocup's memory limit, in MiB: what managers tell a brain
/// (`INFO max_memory 367001600`, as Piskvork and c-gomoku-cli do) unless
/// set otherwise.
pub const MEMORY_LIMIT_MIB: u64 = 350;

/// The `INFO rule` value a manager sends for `rule`: 0 free, 1 exactly
/// five, 4 renju, 8 caro, 9 caro with exactly five (the protocol's bits: 1
/// exact, 4 renju, 8 caro; 2, a continuous game, is never sent).
pub fn rule_code(rule: Rule) -> u32 {
    match rule {
        Rule::Free => 0,
        Rule::Exact => 1,
        Rule::Renju => 4,
        Rule::Caro => 8,
        Rule::CaroExact => 9,
    }
}

/// The rule a brain plays for `INFO rule BITS`: bit 1 exactly five, bit 4
/// renju, bit 8 caro; bit 2 reads as renju too, as Yixin Board sends it and
/// Rapfi reads it (the protocol's "continuous game" means nothing in one
/// game). Renju already wins with exactly five, so 5 and 6 are renju; caro
/// and renju together is refused with the reason.
pub fn rule_of_code(bits: u32) -> Result<Rule, String> {
    let renju = bits & (2 | 4) != 0;
    let caro = bits & 8 != 0;
    let exact = bits & 1 != 0;
    match (renju, caro, exact) {
        (true, true, _) => Err(format!(
            "INFO rule {bits}: renju (2 or 4) and caro (8) at once is no rule"
        )),
        (true, false, _) => Ok(Rule::Renju),
        (false, true, false) => Ok(Rule::Caro),
        (false, true, true) => Ok(Rule::CaroExact),
        (false, false, false) => Ok(Rule::Free),
        (false, false, true) => Ok(Rule::Exact),
    }
}

/// Whether a program's file name marks it as a Gomocup brain: managers load
/// brains named `pbrain-*` (and kinrow speaks the protocol when started so).
pub fn is_brain_name(program: &str) -> bool {
    std::path::Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.to_ascii_lowercase().starts_with("pbrain-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_codes_go_both_ways() {
        for rule in Rule::ALL {
            assert_eq!(rule_of_code(rule_code(rule)), Ok(rule));
        }
        assert_eq!(rule_of_code(2), Ok(Rule::Renju));
        assert_eq!(rule_of_code(5), Ok(Rule::Renju));
        assert!(rule_of_code(12).is_err());
        let codes: Vec<u32> = Rule::ALL.map(rule_code).to_vec();
        assert_eq!(codes, [0, 1, 4, 8, 9]);
    }
}
