//! A [`Watcher`] hears every game of a run start, every move and every end,
//! with standings that add up to the report.

use kinrow::bots::BotKind;
use kinrow::client::Dialect;
use kinrow::referee::watch::{GameOver, GameStart, MovePlayed, Standings, Watcher};
use kinrow::referee::{Config, EngineSpec, OpeningSource};
use kinrow::rules::{Board, Cell, Geometry};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
struct Seen {
    started: Vec<usize>,
    /// Each game's moves as the watcher heard them.
    moves: HashMap<usize, Vec<Cell>>,
    /// Each finished game's moves as the end gives them, and the count of
    /// games done the standings gave.
    finished: Vec<(usize, Vec<Cell>, u64)>,
    openings: HashMap<usize, Vec<Cell>>,
}

#[derive(Default)]
struct Recorder(Mutex<Seen>);

impl Watcher for Recorder {
    fn game_started(&self, game: &GameStart<'_>) {
        let mut seen = self.0.lock().unwrap();
        seen.started.push(game.game);
        seen.openings.insert(game.game, game.opening.to_vec());
    }
    fn move_played(&self, event: &MovePlayed) {
        let mut seen = self.0.lock().unwrap();
        let moves = seen.moves.entry(event.game).or_default();
        assert_eq!(moves.len() + 1, event.ply);
        moves.push(event.cell);
    }
    fn game_finished(&self, game: &GameOver<'_>, standings: &Standings<'_>) {
        let played: u64 = standings.tallies.iter().map(|t| t.wdl.games()).sum();
        assert_eq!(played, standings.done);
        let mut seen = self.0.lock().unwrap();
        seen.finished
            .push((game.game, game.end.moves.clone(), standings.done));
    }
}

fn bot(kind: BotKind) -> EngineSpec {
    EngineSpec {
        name: Some(kind.name().into()),
        argv: vec!["kinrow".into(), "--bot".into(), kind.name().into()],
        dialect: Dialect::Kinrow,
        bot: Some(kind),
    }
}

#[test]
fn a_watcher_hears_every_start_move_and_end() {
    let config = Config {
        engines: vec![bot(BotKind::Random), bot(BotKind::Blocking)],
        games: 40,
        openings: OpeningSource::Random { plies: 1 },
        geometry: Geometry::TIC_TAC_TOE,
        concurrency: 2,
        movetime_ms: None,
        match_time_ms: None,
        write_gap: Duration::ZERO,
        sgf_dir: None,
        timeout: Duration::from_secs(10),
        startup_timeout: Duration::from_secs(10),
        grace: Duration::from_millis(300),
        seed: 8,
        sprt: None,
        json: None,
        games_out: None,
        resume: None,
        log_dir: None,
        progress: false,
        progress_every: Duration::from_secs(30),
        in_process: true,
        shard: None,
    };
    let recorder = Recorder::default();
    let outcome =
        kinrow::referee::run_watched(&config, Arc::new(AtomicBool::new(false)), Some(&recorder))
            .unwrap();
    assert_eq!(outcome.games, 40);
    let seen = recorder.0.into_inner().unwrap();
    let mut started = seen.started.clone();
    started.sort();
    assert_eq!(started, (0..40).collect::<Vec<_>>());
    assert_eq!(seen.finished.len(), 40);
    for (i, (game, moves, done)) in seen.finished.iter().enumerate() {
        // Counted one at a time, each after its moves were heard.
        assert_eq!(*done, i as u64 + 1);
        assert_eq!(&seen.moves[game], moves, "game {game}");
        // And the moves make a finished game from its opening.
        let mut board = Board::new(Geometry::TIC_TAC_TOE);
        for &cell in seen.openings[game].iter().chain(moves) {
            board.try_play(cell).unwrap();
        }
        assert!(board.is_over(), "game {game}");
    }
}
