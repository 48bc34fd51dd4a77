//! The referee's games as record files other programs open (SGF, PSQ): a
//! finished game for `--sgf-dir`, and `kinrow convert` over a run's
//! `--games-out` records. The record formats themselves ([`crate::records`])
//! know nothing of tournaments; what a tournament's end means for them is
//! said here, once.

use super::files::MAX_RECORDS_FILE;
use super::game::Reason;
use super::games_out::{GameRecord, PastGames};
use crate::records::{Ending, Format, RecordError, RecordedGame};
use crate::rules::{Cell, Geometry, Outcome, Player, Rule};
use anyhow::Context;
use std::path::Path;

/// How a game the referee ended reads in a record: a win or a draw on the
/// board, a forfeit by the side at fault (with what went wrong), or
/// unfinished when the two don't add up.
pub fn ending(reason: Reason, winner: Option<Player>, detail: Option<&str>) -> Ending {
    match (reason, winner) {
        (Reason::Win, Some(w)) => Ending::Win(w),
        (Reason::Draw, _) => Ending::Draw,
        (Reason::Adjudicated, None) => Ending::Draw,
        // A proved win: written as a win by the ruling, with its proof.
        (Reason::Adjudicated, Some(w)) => Ending::Forfeit {
            winner: w,
            reason: reason.name().to_string(),
            detail: detail.map(str::to_string),
        },
        (reason, Some(w)) if reason.is_fault() => Ending::Forfeit {
            winner: w,
            reason: reason.name().to_string(),
            detail: detail.map(str::to_string),
        },
        _ => Ending::Unfinished,
    }
}

/// A game of the referee's `--games-out` records. Records written before
/// they carried the board take `fallback`.
pub fn recorded_game(
    record: &GameRecord,
    fallback: Option<Geometry>,
) -> Result<RecordedGame, RecordError> {
    let geometry = match &record.board {
        Some(b) => {
            let rule: Rule = b
                .rule
                .parse()
                .map_err(|e| RecordError(format!("game {}: {e}", record.game)))?;
            Geometry::new(b.rows as u32, b.cols as u32, b.k as u32, rule)
                .map_err(|e| RecordError(format!("game {}: {e}", record.game)))?
        }
        None => fallback.ok_or_else(|| {
            RecordError(format!(
                "game {}: the record does not say its board (an older referee): give --board, --k and --rule",
                record.game
            ))
        })?,
    };
    let cell = |&[r, c]: &[u32; 2]| {
        Cell::from_one_based(r, c)
            .ok_or_else(|| RecordError(format!("game {}: no cell {r} {c}", record.game)))
    };
    let mut moves = Vec::with_capacity(record.opening.len() + record.moves.len());
    for m in record.opening.iter().chain(&record.moves) {
        moves.push(cell(m)?);
    }
    let game = RecordedGame {
        geometry,
        x: record.x.clone(),
        o: record.o.clone(),
        moves,
        opening: record.opening.len(),
        ending: ending(
            record.reason,
            record.result.winner(),
            record.detail.as_deref(),
        ),
        title: Some(format!("game {}", record.game)),
        notes: record.move_info.iter().map(|m| m.note()).collect(),
    };
    let board = game
        .replay()
        .map_err(|e| RecordError(format!("game {}: {e}", record.game)))?;
    agrees(&game.ending, board.outcome())
        .map_err(|e| RecordError(format!("game {}: {e}", record.game)))?;
    Ok(game)
}

/// Whether a record's ending is what its moves make: a win on the board by
/// its winner, a full board for a draw, a game still open for a forfeit (a
/// record may say nothing: unfinished).
fn agrees(ending: &Ending, outcome: Option<Outcome>) -> Result<(), String> {
    let side = |p: Player| if p == Player::X { "X" } else { "O" };
    let moves_make = match outcome {
        None => "no result".to_string(),
        Some(Outcome::Draw) => "a draw".to_string(),
        Some(Outcome::Win { winner, .. }) => format!("a win for {}", side(winner)),
    };
    let says = match (ending, outcome) {
        (Ending::Win(w), Some(Outcome::Win { winner, .. })) if *w == winner => return Ok(()),
        (Ending::Draw, Some(Outcome::Draw)) => return Ok(()),
        (Ending::Forfeit { .. } | Ending::Unfinished, None) | (Ending::Unfinished, _) => {
            return Ok(())
        }
        (Ending::Win(w), _) => format!("a win for {}", side(*w)),
        (Ending::Draw, _) => "a draw".to_string(),
        (Ending::Forfeit { winner, reason, .. }, _) => {
            format!("a forfeit ({reason}) won by {}", side(*winner))
        }
    };
    Err(format!(
        "the record says {says}, but its moves make {moves_make}"
    ))
}

/// What `kinrow convert` wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Converted {
    /// Files written, one per record.
    pub written: usize,
    /// Records of a game number (and engines) seen before, written under a
    /// name with `-2`, `-3`, …: (line of the record, file name).
    pub renamed: Vec<(usize, String)>,
}

/// `kinrow convert`: writes every game of a referee's `--games-out` file
/// (JSON lines) into `out_dir`, one file per record named by
/// [`RecordedGame::file_stem`] (a second record of one game gets `-2`, so
/// none overwrites another); records without their board take `fallback`.
/// Every record is checked (its moves legal, its result the one they make)
/// before anything is written: a bad one writes nothing.
pub fn convert_games(
    games_out: &Path,
    format: Format,
    out_dir: &Path,
    fallback: Option<Geometry>,
) -> anyhow::Result<Converted> {
    std::fs::metadata(games_out).with_context(|| format!("cannot read {}", games_out.display()))?;
    let past = PastGames::read(games_out, MAX_RECORDS_FILE)?;
    let mut files = Vec::with_capacity(past.records.len());
    let mut seen = std::collections::HashMap::new();
    let mut converted = Converted::default();
    for (line, record) in &past.records {
        let game = recorded_game(record, fallback)
            .with_context(|| format!("{} line {line}", games_out.display()))?;
        let stem = RecordedGame::file_stem(record.game, &record.x, &record.o);
        let times = seen.entry(stem.clone()).or_insert(0usize);
        *times += 1;
        let name = match *times {
            1 => format!("{stem}.{}", format.extension()),
            n => format!("{stem}-{n}.{}", format.extension()),
        };
        if *times > 1 {
            converted.renamed.push((*line, name.clone()));
        }
        files.push((name, game));
    }
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    for (name, game) in files {
        let path = out_dir.join(name);
        std::fs::write(&path, format.write(&game))
            .with_context(|| format!("cannot write {}", path.display()))?;
        converted.written += 1;
    }
    Ok(converted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_and_winner_reads_as_one_ending() {
        use Player::{O, X};
        assert_eq!(ending(Reason::Win, Some(X), None), Ending::Win(X));
        assert_eq!(ending(Reason::Win, None, None), Ending::Unfinished);
        assert_eq!(ending(Reason::Draw, None, None), Ending::Draw);
        assert_eq!(ending(Reason::Draw, Some(O), None), Ending::Draw);
        for reason in Reason::FAULTS {
            assert_eq!(
                ending(reason, Some(O), Some("no reply")),
                Ending::Forfeit {
                    winner: O,
                    reason: reason.name().to_string(),
                    detail: Some("no reply".into()),
                }
            );
            assert_eq!(ending(reason, None, None), Ending::Unfinished);
        }
    }
}
