//! `referee --serve`: the read-only page of a running tournament, tested
//! over plain HTTP and its event stream (the page itself in a browser is in
//! tests/web_browser.rs).

mod referee_common;
mod serve_common;

use kinrow::rules::{Board, Cell, Geometry, Rule};
use referee_common::{
    games_without_time, next_event, record_args, record_moves, slow_watched_run, start_watched,
    summary_without_time, Scratch,
};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

fn cells(moves: &Value) -> Vec<Cell> {
    moves
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let n = |i: usize| m[i].as_u64().unwrap() as u32;
            Cell::from_one_based(n(0), n(1)).unwrap()
        })
        .collect()
}

#[test]
fn the_page_follows_the_run_move_by_move_to_its_end() {
    let scratch = Scratch::new("watch");
    let args = slow_watched_run();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let w = start_watched(&scratch, &args);

    // The page and its files; nothing else, and only for its own address.
    let page = w.get("/");
    assert!(page.starts_with("HTTP/1.1 200 "), "{page}");
    assert!(page.contains("/watch.js"), "{page}");
    for file in ["/watch.js", "/watch.css", "/board.js", "/style.css"] {
        assert!(w.get(file).starts_with("HTTP/1.1 200 "), "{file}");
    }
    assert!(w.get("/app.js").starts_with("HTTP/1.1 404 "));
    let foreign = w.http("GET / HTTP/1.1\r\nHost: evil.example:80\r\n\r\n");
    assert!(foreign.starts_with("HTTP/1.1 403 "), "{foreign}");
    let post = w.http(&format!(
        "POST /state HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\n\r\n",
        w.host
    ));
    assert!(post.starts_with("HTTP/1.1 405 "), "{post}");
    let garbage = w.http("hello\r\n\r\n");
    assert!(garbage.starts_with("HTTP/1.1 400 "), "{garbage}");

    // Every event until the end: the boards are real games, growing move
    // by move, and the count of games never goes back.
    let mut stream = w.events();
    let geometry = Geometry::new(7, 7, 5, Rule::Free).unwrap();
    let mut seen: HashMap<u64, Vec<Cell>> = HashMap::new();
    let mut last_done = 0;
    let mut moves_seen = 0;
    let mut events = 0;
    let last = loop {
        let Some(e) = next_event(&mut stream) else {
            panic!("the stream ended before the run did");
        };
        events += 1;
        let done = e["done"].as_u64().unwrap();
        assert!(done >= last_done, "done went back: {e}");
        last_done = done;
        if e["state"] != "starting" {
            assert_eq!(e["total"], 6, "{e}");
        }
        for g in e["playing"].as_array().unwrap() {
            let mut all = cells(&g["opening"]);
            all.extend(cells(&g["moves"]));
            let mut board = Board::new(geometry);
            for (i, &c) in all.iter().enumerate() {
                assert!(
                    board.try_play(c).is_ok() && (i + 1 == all.len() || !board.is_over()),
                    "an illegal board on the page: {g}"
                );
            }
            let game = g["game"].as_u64().unwrap();
            let before = seen.entry(game).or_default();
            assert!(all.starts_with(before), "game {game} changed its past: {g}");
            moves_seen = moves_seen.max(all.len());
            *before = all;
        }
        if e["state"] == "finished" {
            break e;
        }
        assert!(e["state"] == "running" || e["state"] == "starting", "{e}");
    };
    assert!(
        next_event(&mut stream).is_none(),
        "the stream ends with the run"
    );
    assert!(events > 5, "updates as moves are played, not only per game");
    assert!(moves_seen > 5, "boards with moves were shown");

    let (status, run, stderr) = w.finish(&scratch);
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("referee: watch the run at http://127.0.0.1:"));
    // The last event holds the run's own summary and report.
    assert_eq!(last["done"], 6);
    assert_eq!(last["playing"], serde_json::json!([]));
    assert_eq!(&last["summary"], run.summary.as_ref().unwrap());
    assert_eq!(last["report"].as_str().unwrap(), run.stdout);
    // What the page showed of each game is how the game went.
    for record in &run.games {
        let game = record["game"].as_u64().unwrap();
        if let Some(shown) = seen.get(&game) {
            assert!(
                record_moves(record).starts_with(shown),
                "game {game}: the page showed {shown:?}, the record is {record}"
            );
        }
    }
    let recent = last["recent"].as_array().unwrap();
    assert_eq!(recent.len(), 6);
    for r in recent {
        let record = &run.games[r["game"].as_u64().unwrap() as usize];
        assert_eq!(r["result"], record["result"]);
        assert_eq!(r["x"], record["x"]);
        assert_eq!(r["plies"], record["moves"].as_array().unwrap().len());
    }
}

#[test]
fn watchers_that_never_read_or_leave_at_once_change_nothing() {
    let run_args = [
        "--bots",
        "random,blocking",
        "--games",
        "2000",
        "--concurrency",
        "2",
        "--seed",
        "9",
    ];
    let plain_scratch = Scratch::new("watch-plain");
    let plain = referee_common::referee(&plain_scratch, &run_args);
    assert!(plain.output.status.success());

    let scratch = Scratch::new("watch-stalled");
    let w = start_watched(&scratch, &run_args);
    // Three watchers that ask for the stream and never read it, and some
    // that go away at once.
    let stalled: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = TcpStream::connect(&w.host).unwrap();
            write!(s, "GET /events HTTP/1.1\r\nHost: {}\r\n\r\n", w.host).unwrap();
            s
        })
        .collect();
    for _ in 0..5 {
        let mut s = TcpStream::connect(&w.host).unwrap();
        write!(s, "GET /events HTTP/1.1\r\nHost: {}\r\n\r\n", w.host).unwrap();
        drop(s);
    }
    let (status, run, stderr) = w.finish(&scratch);
    drop(stalled);
    assert!(status.success(), "{stderr}");
    // The same games, the same report.
    assert_eq!(games_without_time(&run), games_without_time(&plain));
    assert_eq!(summary_without_time(&run), summary_without_time(&plain));
    assert_eq!(run.games.len(), 2000);
}

#[test]
fn a_port_in_use_stops_the_run_before_any_game() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let scratch = Scratch::new("watch-port");
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(["--bots", "random,random", "--games", "2", "--serve", &port])
        .args(record_args(&scratch))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("--serve: cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
    let records = std::fs::read_to_string(scratch.path("games.jsonl")).unwrap_or_default();
    assert_eq!(records, "", "no game was played");
}

#[test]
fn bad_serve_flags_get_a_usage_error() {
    for args in [
        &["--serve-bind", "127.0.0.1"][..],
        &["--serve", "70000"],
        &["--serve", "port"],
        &["--serve", "0", "--serve-bind", "localhost"],
        &["--serve-host", "box.example"],
        &["--serve", "0", "--serve-host", "box.example:8080"],
        &["--serve", "0", "--serve-host", "a b"],
    ] {
        let out = assert_cmd::Command::cargo_bin("referee")
            .unwrap()
            .args(["--bots", "random,random"])
            .args(args)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains("--serve"), "{args:?}: {stderr}");
    }
}

/// A seed above 2^53, which a JSON number can't carry into JavaScript
/// (9007199254740993 reads as …992 there).
pub const BIG_SEED: &str = "9007199254740993";

/// The slow run of [`slow_watched_run`] with [`BIG_SEED`].
fn slow_run_with_big_seed() -> Vec<String> {
    let mut args = slow_watched_run();
    let at = args.iter().position(|a| a == "--seed").unwrap();
    args[at + 1] = BIG_SEED.into();
    args
}

#[test]
fn a_64_bit_seed_is_sent_as_a_string_too() {
    let scratch = Scratch::new("watch-seed");
    let args = slow_run_with_big_seed();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let w = start_watched(&scratch, &args);
    let until = std::time::Instant::now() + Duration::from_secs(30);
    let body = loop {
        let state = w.get("/state");
        let body = state.split_once("\r\n\r\n").unwrap().1.to_string();
        if !body.contains("\"seed\":null") {
            break body;
        }
        assert!(std::time::Instant::now() < until, "no seed: {body}");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Exactly, as a string; the summary's number stays as --json has it.
    assert!(body.contains(&format!("\"seed\":\"{BIG_SEED}\"")), "{body}");
    let state: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(state["summary"]["seed"].as_u64(), BIG_SEED.parse().ok());
    let (status, _, stderr) = w.finish(&scratch);
    assert!(status.success(), "{stderr}");
}

#[test]
fn beyond_loopback_the_page_answers_this_machines_addresses_only() {
    if !serve_common::in_own_network(
        "beyond_loopback_the_page_answers_this_machines_addresses_only",
    ) {
        return;
    }
    let scratch = Scratch::new("watch-bind");
    let mut args = slow_watched_run();
    args.extend(["--serve-bind", "0.0.0.0", "--serve-host", "Box.Example"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let w = start_watched(&scratch, &args);
    let port = w.host.rsplit(':').next().unwrap().to_string();
    let ask = |path: &str, host: &str| {
        w.http(&format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        ))
    };
    // A rebinding page's name gets neither the state (engine commands
    // included) nor the stream.
    let evil = format!("rebind.evil.example:{port}");
    for path in ["/state", "/events", "/"] {
        let refused = ask(path, &evil);
        assert!(refused.starts_with("HTTP/1.1 403 "), "{path}: {refused}");
        assert!(!refused.contains("command"), "{refused}");
    }
    // Its addresses answer, and the name given with --serve-host, with any
    // port (a reverse proxy may add its own).
    for ok in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("box.example:{port}"),
        "BOX.example".to_string(),
    ] {
        let state = ask("/state", &ok);
        assert!(state.starts_with("HTTP/1.1 200 "), "{ok}: {state}");
        assert!(state.contains("\"state\":"), "{state}");
    }
    let (status, _, stderr) = w.finish(&scratch);
    assert!(status.success(), "{stderr}");
}
