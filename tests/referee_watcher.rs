//! A [`Watcher`] hears the run start, every game of it start, every move,
//! every end, and the run's end, with standings that add up to the report.

use kinrow::bots::BotKind;
use kinrow::client::Dialect;
use kinrow::referee::report::RunInfo;
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
    /// The report as the run's start and end told it.
    start_report: Option<String>,
    end_report: Option<String>,
}

#[derive(Default)]
struct Recorder(Mutex<Seen>);

fn report(info: &RunInfo, standings: &Standings<'_>) -> String {
    kinrow::referee::report::text(
        info,
        standings.engines,
        standings.tallies,
        standings.sprt.as_ref(),
    )
}

impl Watcher for Recorder {
    fn run_started(&self, info: &RunInfo, standings: &Standings<'_>) {
        let mut seen = self.0.lock().unwrap();
        assert!(seen.started.is_empty(), "the run starts before its games");
        seen.start_report = Some(report(info, standings));
    }
    fn run_ended(&self, info: &RunInfo, standings: &Standings<'_>) {
        self.0.lock().unwrap().end_report = Some(report(info, standings));
    }
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
        write_gap: Duration::ZERO,
        sgf_dir: None,
        timeout: Duration::from_secs(10),
        startup_timeout: Duration::from_secs(10),
        grace: Duration::from_millis(300),
        seed: 8,
        sprt: None,
        json: None,
        games_out: None,
        samples: None,
        resume: None,
        log_dir: None,
        progress: false,
        progress_every: Duration::from_secs(30),
        in_process: true,
        shard: None,
        tournament: Default::default(),
        rounds: 1,
        settings: Vec::new(),
        time_margin: Duration::ZERO,
        adjudication: Default::default(),
        move_info: false,
        messages: None,
    };
    let recorder = Recorder::default();
    let outcome =
        kinrow::referee::run(&config, Arc::new(AtomicBool::new(false)), Some(&recorder)).unwrap();
    assert_eq!(outcome.games, 40);
    let seen = recorder.0.into_inner().unwrap();
    // The end's standings are the report's; the start's had no games.
    assert_eq!(seen.end_report.as_deref(), Some(outcome.report.as_str()));
    assert!(seen.start_report.unwrap().contains("0 of 40 games"));
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
