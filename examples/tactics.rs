//! The tactical suite's tool (see `kinrow::tactics` and
//! `scripts/tactics.sh`):
//!
//! - `run SUITE --engine NAME=COMMAND… [--movetime MS]`: each engine (any
//!   program that speaks kinrow's protocol) gets every puzzle's position
//!   and one `genmove`; prints what it solved and how long it took.
//! - `verify SUITE`: proves every puzzle's answers again.
//! - `mine GAMES.jsonl… [--max-plies N]`: finds puzzles in a referee's game
//!   records (`--games-out`) and prints them as suite lines.
//! - `defences SUITE`: for each win puzzle, the position after the winner
//!   spends its move in the farthest corner: the other to move against the
//!   threat; printed as a `defence` puzzle when one or two moves hold.

use kinrow::client::{split_words, EngineProcess, StderrTo};
use kinrow::rules::{Board, Cell, Geometry, Rule};
use kinrow::tactics::{answers, parse_suite, verify, wins_slower, Checker, Effort, Puzzle, Theme};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("verify") => verify_all(&args[1..]),
        Some("mine") => mine(&args[1..]),
        Some("defences") => defences(&args[1..]),
        _ => Err("usage: tactics run|verify|mine …  (see examples/tactics.rs)".into()),
    };
    if let Err(e) = result {
        eprintln!("tactics: {e}");
        std::process::exit(2);
    }
}

fn read_suite(path: &str) -> Result<Vec<Puzzle>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    parse_suite(&text).map_err(|e| format!("{path}: {e}"))
}

fn verify_all(args: &[String]) -> Result<(), String> {
    let [path] = args else {
        return Err("usage: tactics verify SUITE".into());
    };
    let suite = read_suite(path)?;
    let mut failed = 0;
    for p in &suite {
        let start = Instant::now();
        match verify(p, Effort::default()) {
            Ok(()) => println!(
                "ok    {:<24} {:>7.2} s",
                p.name,
                start.elapsed().as_secs_f64()
            ),
            Err(e) => {
                failed += 1;
                println!("{}", kinrow::cli::wrap_message(&format!("WRONG {e}")));
            }
        }
    }
    println!(
        "{} of {} puzzles verified",
        suite.len() - failed,
        suite.len()
    );
    if failed > 0 {
        return Err(format!("{failed} puzzles wrong"));
    }
    Ok(())
}

/// One engine's results: per theme, solved and count; the time of every
/// answer.
struct Tally {
    name: String,
    solved: [u32; 3],
    /// Of those, solved by a slower win than the answers'.
    slower: u32,
    count: [u32; 3],
    times: Vec<f64>,
    misses: Vec<String>,
}

fn theme_index(t: Theme) -> usize {
    match t {
        Theme::Fours => 0,
        Theme::Threes => 1,
        Theme::Defence => 2,
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let mut suite_path = None;
    let mut engines = Vec::new();
    let mut movetime = 1000u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--engine" => {
                let spec = it.next().ok_or("--engine NAME=COMMAND")?;
                let (name, command) = spec.split_once('=').ok_or("--engine NAME=COMMAND")?;
                let argv = split_words(command).map_err(|e| format!("{spec}: {e}"))?;
                engines.push((name.to_string(), argv));
            }
            "--movetime" => {
                movetime = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--movetime MS")?;
            }
            path => suite_path = Some(path.to_string()),
        }
    }
    let suite = read_suite(&suite_path.ok_or("no suite given")?)?;
    if engines.is_empty() {
        return Err("no --engine given".into());
    }
    let mut tallies = Vec::new();
    for (name, argv) in &engines {
        let mut engine =
            EngineProcess::spawn(argv, StderrTo::Discard).map_err(|e| format!("{name}: {e}"))?;
        let mut tally = Tally {
            name: name.clone(),
            solved: [0; 3],
            slower: 0,
            count: [0; 3],
            times: Vec::new(),
            misses: Vec::new(),
        };
        let limit = Duration::from_millis(movetime) + Duration::from_secs(10);
        for p in &suite {
            let g = p.geometry;
            let mut setup = format!(
                "set movetime {movetime}\nset seed 1\nnewgame {} {} {} {}\n",
                g.rows(),
                g.cols(),
                g.k(),
                g.rule()
            );
            for c in &p.moves {
                setup.push_str(&format!("move {c}\n"));
            }
            let replies = 3 + p.moves.len();
            engine.send(&setup).map_err(|e| format!("{name}: {e}"))?;
            for _ in 0..replies {
                let r = engine
                    .read_response(Instant::now() + limit)
                    .map_err(|e| format!("{name}: {e}"))?;
                if !r.success {
                    return Err(format!("{name}: {}: ? {}", p.name, r.text));
                }
            }
            let start = Instant::now();
            engine
                .send("genmove\n")
                .map_err(|e| format!("{name}: {e}"))?;
            let r = engine
                .read_response(Instant::now() + limit)
                .map_err(|e| format!("{name}: {e}"))?;
            let seconds = start.elapsed().as_secs_f64();
            let cell: Option<Cell> = r.text.parse().ok();
            let t = theme_index(p.theme);
            tally.count[t] += 1;
            tally.times.push(seconds);
            if r.success && cell.is_some_and(|c| p.solved_by(c)) {
                tally.solved[t] += 1;
            } else if r.success && cell.is_some_and(|c| wins_slower(p, c, Effort::default())) {
                tally.solved[t] += 1;
                tally.slower += 1;
            } else {
                tally.misses.push(format!("{} ({})", p.name, r.text));
            }
        }
        engine.shutdown(Duration::from_millis(500));
        tallies.push(tally);
    }
    println!(
        "{} puzzles, movetime {movetime} ms: solved (fours, threes, defence), time per puzzle",
        suite.len()
    );
    println!(
        "{:<12} {:>9} {:>7} {:>7} {:>7} {:>9} {:>9} {:>9}",
        "engine", "solved", "fours", "threes", "defence", "mean s", "median s", "total s"
    );
    for t in &tallies {
        let solved: u32 = t.solved.iter().sum();
        let total: u32 = t.count.iter().sum();
        let mut times = t.times.clone();
        times.sort_by(f64::total_cmp);
        let sum: f64 = times.iter().sum();
        let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
        let part = |i: usize| format!("{}/{}", t.solved[i], t.count[i]);
        println!(
            "{:<12} {:>9} {:>7} {:>7} {:>7} {:>9.3} {:>9.3} {:>9.1}",
            t.name,
            format!("{solved}/{total}"),
            part(0),
            part(1),
            part(2),
            sum / times.len().max(1) as f64,
            median,
            sum
        );
    }
    for t in &tallies {
        if t.slower > 0 {
            println!("{}: {} solved by a slower win", t.name, t.slower);
        }
    }
    for t in &tallies {
        if !t.misses.is_empty() {
            let text = format!("{} missed: {}", t.name, t.misses.join(", "));
            println!("{}", kinrow::cli::wrap_message(&text));
        }
    }
    Ok(())
}

/// The positions of a referee's game records (JSON lines): each game's
/// shape and its moves, openings included.
fn games(path: &str) -> Result<Vec<(Geometry, Vec<Cell>)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{path}: {e}"))?;
        let b = &v["board"];
        let num = |x: &serde_json::Value| x.as_u64().unwrap_or(0) as u32;
        let rule = if b["rule"] == "exact" {
            Rule::Exact
        } else {
            Rule::Free
        };
        let g = Geometry::new(num(&b["rows"]), num(&b["cols"]), num(&b["k"]), rule)
            .map_err(|e| format!("{path}: {e}"))?;
        let mut moves = Vec::new();
        for key in ["opening", "moves"] {
            for m in v[key].as_array().into_iter().flatten() {
                if let Some(c) = Cell::from_one_based(num(&m[0]), num(&m[1])) {
                    moves.push(c);
                }
            }
        }
        out.push((g, moves));
    }
    Ok(out)
}

fn mine(args: &[String]) -> Result<(), String> {
    let mut max_plies = 13;
    let mut paths = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--max-plies" => {
                max_plies = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--max-plies N")?
            }
            p => paths.push(p.to_string()),
        }
    }
    let effort = Effort {
        checker_nodes: 300_000,
        solver_time: Duration::from_secs(5),
    };
    for path in &paths {
        let stem = std::path::Path::new(path)
            .file_stem()
            .map_or("g".into(), |s| s.to_string_lossy().to_string());
        for (gi, (g, moves)) in games(path)?.into_iter().enumerate() {
            let mut board = Board::new(g);
            let mut attack_at: Vec<Option<(Theme, u32)>> = vec![None; moves.len() + 1];
            let mut boards = Vec::new();
            for (i, &m) in moves.iter().enumerate() {
                boards.push(board.clone());
                if i >= 5 {
                    attack_at[i] = shortest_attack(&board, max_plies, effort);
                }
                if board.try_play(m).map_err(|e| e.to_string())?.is_some() {
                    break;
                }
            }
            for (i, b) in boards.iter().enumerate() {
                let name = format!("{stem}-{gi}-{i}");
                if let Some((theme, plies)) = attack_at[i] {
                    // A win that is not an immediate five or open four.
                    if plies >= 5 {
                        if let Ok(found) = answers(b, theme, plies, effort) {
                            if found.len() <= 3 {
                                print_puzzle(&name, b, found, theme, plies);
                            }
                        }
                    }
                }
                // The move before a win for the other side: a defence?
                if let Some(Some((_, plies))) = attack_at.get(i + 1) {
                    if i >= 5 && *plies >= 5 && attack_at[i].is_none() {
                        let n = plies + 1;
                        if let Ok(found) = answers(b, Theme::Defence, n, effort) {
                            let legal = b.legal_moves().count();
                            // Defences that hold well beyond the bound, not
                            // moves that only put a loss off.
                            let holds = |c: &Cell| {
                                let mut after = b.clone();
                                after.try_play(*c).is_ok()
                                    && Checker::new(&after).wins_within(
                                        &after,
                                        n + 5,
                                        false,
                                        effort.checker_nodes,
                                    ) == Some(false)
                            };
                            if !found.is_empty()
                                && found.len() <= 2
                                && found.len() < legal
                                && found.iter().all(holds)
                            {
                                print_puzzle(&format!("{name}d"), b, found, Theme::Defence, n);
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// The shortest win by threats for the side to move, if any within
/// `max_plies`: by fours alone first.
fn shortest_attack(board: &Board, max_plies: u32, effort: Effort) -> Option<(Theme, u32)> {
    let mut checker = Checker::new(board);
    for plies in (1..=max_plies).step_by(2) {
        if checker.wins_within(board, plies, true, effort.checker_nodes) == Some(true) {
            return Some((Theme::Fours, plies));
        }
    }
    for plies in (1..=max_plies).step_by(2) {
        match checker.wins_within(board, plies, false, effort.checker_nodes) {
            Some(true) => return Some((Theme::Threes, plies)),
            None => return None,
            Some(false) => {}
        }
    }
    None
}

fn print_puzzle(name: &str, b: &Board, answers: Vec<Cell>, theme: Theme, plies: u32) {
    let p = Puzzle {
        name: name.to_string(),
        geometry: b.geometry(),
        moves: b.moves().collect(),
        answers,
        theme,
        plies,
    };
    println!("{p}");
}

fn defences(args: &[String]) -> Result<(), String> {
    let [path] = args else {
        return Err("usage: tactics defences SUITE".into());
    };
    let effort = Effort {
        checker_nodes: 1_000_000,
        solver_time: Duration::from_secs(5),
    };
    for p in read_suite(path)? {
        if p.theme == Theme::Defence {
            continue;
        }
        let mut b = p.board();
        // The cell farthest from every stone: the winner's wasted move.
        let stones: Vec<Cell> = b.moves().collect();
        let far = b
            .legal_moves()
            .max_by_key(|c| {
                stones
                    .iter()
                    .map(|s| s.row.abs_diff(c.row).max(s.col.abs_diff(c.col)))
                    .min()
                    .unwrap_or(0)
            })
            .ok_or("a full board")?;
        let k = b.geometry().k() as u8;
        if stones
            .iter()
            .any(|s| s.row.abs_diff(far.row).max(s.col.abs_diff(far.col)) < k)
        {
            continue;
        }
        if b.try_play(far).map_err(|e| e.to_string())?.is_some() {
            continue;
        }
        let n = p.plies + 1;
        let Ok(found) = answers(&b, Theme::Defence, n, effort) else {
            continue;
        };
        let holds = |c: &Cell| {
            let mut after = b.clone();
            after.try_play(*c).is_ok()
                && Checker::new(&after).wins_within(&after, n + 5, false, effort.checker_nodes)
                    == Some(false)
        };
        if !found.is_empty() && found.len() <= 2 && found.iter().all(holds) {
            print_puzzle(
                &format!("{}-defended", p.name),
                &b,
                found,
                Theme::Defence,
                n,
            );
        }
    }
    Ok(())
}
