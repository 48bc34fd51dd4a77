//! `kinrow serve` without a browser: its HTTP, its WebSocket sessions
//! speaking the protocol, bad and oversized messages, the session limit,
//! engines that die, and engines killed when their tab goes away.

mod referee_common;
mod serve_common;

use kinrow::rules::{Board, Cell, Geometry};
use serve_common::{wait_gone, Served, PATIENCE};
use std::time::Duration;
use tungstenite::protocol::frame::coding::{Data, OpCode};
use tungstenite::protocol::frame::Frame;
use tungstenite::Message;

const PLAY_ENGINE: &str = "tests/fixtures/play_engine.py";

fn engine(name: &str, mode: &str) -> String {
    format!("{name}=python3 {PLAY_ENGINE} {mode}")
}

#[test]
fn the_page_and_its_files_are_served_and_others_refused() {
    let s = Served::start(&[]);
    let get = |path: &str| {
        s.http(&format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            s.host
        ))
    };
    let page = get("/");
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
    assert!(page.contains("Content-Type: text/html; charset=utf-8"));
    assert!(page.contains("Content-Security-Policy: default-src 'self'"));
    assert!(
        page.contains("data-status"),
        "the status hook is on the page"
    );
    for (path, kind, needle) in [
        ("/app.js", "text/javascript", "genmove"),
        ("/protocol.js", "text/javascript", "parseResponse"),
        ("/board.js", "text/javascript", "data-stone"),
        ("/style.css", "text/css", ".board"),
        ("/favicon.svg", "image/svg+xml", "<svg"),
    ] {
        let r = get(path);
        assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{path}: {r}");
        assert!(r.contains(&format!("Content-Type: {kind}")), "{path}: {r}");
        assert!(r.contains(needle), "{path}");
    }
    assert!(get("/nothing-here").starts_with("HTTP/1.1 404 "));
    assert!(get("/../etc/passwd").starts_with("HTTP/1.1 404 "));
    // HEAD: the headers alone.
    let head = s.http(&format!(
        "HEAD / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        s.host
    ));
    assert!(
        head.starts_with("HTTP/1.1 200 OK\r\n") && head.ends_with("\r\n\r\n"),
        "{head}"
    );
    let post = s.http(&format!(
        "POST / HTTP/1.1\r\nHost: {}\r\nContent-Length: 2\r\n\r\nhi",
        s.host
    ));
    assert!(
        post.starts_with("HTTP/1.1 405 ") && post.contains("Allow: GET, HEAD"),
        "{post}"
    );
    // A name that is not this machine's loopback (DNS rebinding).
    let foreign = s.http("GET / HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n");
    assert!(foreign.starts_with("HTTP/1.1 403 "), "{foreign}");
    assert!(s
        .http("GET / HTTP/1.1\r\n\r\n")
        .starts_with("HTTP/1.1 400 "));
    assert!(s
        .http("not http at all\r\n\r\n")
        .starts_with("HTTP/1.1 400 "));
    let huge = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nX-Pad: {}\r\n\r\n",
        s.host,
        "a".repeat(20_000)
    );
    assert!(s.http(&huge).starts_with("HTTP/1.1 431 "));
    // Two requests on one kept-alive connection.
    let two = s.http(&format!(
        "GET /style.css HTTP/1.1\r\nHost: {h}\r\n\r\nGET /board.js HTTP/1.1\r\nHost: {h}\r\nConnection: close\r\n\r\n",
        h = s.host
    ));
    assert_eq!(two.matches("HTTP/1.1 200 OK").count(), 2, "{two}");
}

#[test]
fn bad_flags_get_a_usage_error() {
    for args in [
        &["serve", "--engine", "python3 bot.py"][..],
        &["serve", "--engine", "a=x", "--engine", "a=y"],
        &["serve", "--engine", "a='unclosed"],
        &["serve", "--max-sessions", "0"],
        &["serve", "--bind", "nowhere"],
        &["serve", "--heartbeat", "0"],
        &["serve", "--port", "70000"],
        &["serve", "--host", "box.local:8080"],
    ] {
        assert_cmd::Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
            .args(args)
            .assert()
            .code(2);
    }
}

#[test]
fn open_hands_the_url_to_the_desktops_opener() {
    // A stand-in for xdg-open that writes down what it was given.
    let dir = std::env::temp_dir().join(format!("kinrow-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let said = dir.join("url");
    let opener = dir.join("xdg-open");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\necho \"$1\" > '{}'\n", said.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let s = Served::start_with_env(&["--open"], &[("PATH", &path)]);
    let until = std::time::Instant::now() + PATIENCE;
    while !said.exists() {
        assert!(std::time::Instant::now() < until, "the opener was not run");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(std::fs::read_to_string(&said).unwrap().trim(), s.url());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The WebSocket handshake with `host` and `origin` (`None`: no Origin).
fn upgrade_request(host: &str, origin: Option<&str>) -> String {
    format!(
        "GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{}\r\n",
        origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"))
    )
}

#[test]
fn beyond_loopback_it_answers_its_addresses_and_the_names_given_only() {
    if !serve_common::in_own_network(
        "beyond_loopback_it_answers_its_addresses_and_the_names_given_only",
    ) {
        return;
    }
    let s = Served::start(&[
        "--bind",
        "0.0.0.0",
        "--host",
        "kinrow.example",
        "--engine",
        "pybot=python3 bots/random.py",
    ]);
    s.wait_for_log(
        "anyone who can reach this address can play here and start the built-in bots \
         and the engines named with --engine (pybot), up to 8 games at once",
    );
    s.wait_for_log(
        "It answers to this machine's addresses and kinrow.example; other names are refused",
    );
    let port = s.host.rsplit(':').next().unwrap().to_string();
    let get = |host: &str| {
        s.http(&format!(
            "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        ))
    };
    // A name someone else's DNS points here: the page and the WebSocket
    // (with the Origin a rebinding page sends) are refused; no engine
    // starts.
    let evil = format!("rebind.evil.example:{port}");
    let page = get(&evil);
    assert!(page.starts_with("HTTP/1.1 403 "), "{page}");
    let ws = s.http(&upgrade_request(&evil, Some(&format!("http://{evil}"))));
    assert!(ws.starts_with("HTTP/1.1 403 "), "{ws}");
    assert!(ws.contains("--host"), "the refusal says how: {ws}");
    assert_eq!(s.engines(), Vec::<u32>::new());
    for no in [
        format!("kinrow.example.evil:{port}"),
        format!("127.0.0.1:{}", port.parse::<u16>().unwrap() ^ 1),
    ] {
        assert!(get(&no).starts_with("HTTP/1.1 403 "), "{no}");
    }
    // The machine's addresses, and the name given, by any port.
    for ok in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("10.9.8.7:{port}"),
        format!("kinrow.example:{port}"),
        "KINROW.example".to_string(),
    ] {
        assert!(get(&ok).starts_with("HTTP/1.1 200 OK"), "{ok}");
    }
    let named = format!("kinrow.example:{port}");
    let ws = s.http(&upgrade_request(&named, Some(&format!("http://{named}"))));
    assert!(ws.starts_with("HTTP/1.1 101 "), "{ws}");
}

#[test]
fn a_websocket_from_another_site_is_refused() {
    let s = Served::start(&[]);
    let key = "dGhlIHNhbXBsZSBub25jZQ==";
    let upgrade = |origin: &str| {
        s.http(&format!(
            "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n{origin}\r\n",
            s.host
        ))
    };
    let foreign = upgrade("Origin: http://evil.example\r\n");
    assert!(foreign.starts_with("HTTP/1.1 403 "), "{foreign}");
    let own = upgrade(&format!(
        "Origin: http://{}\r\nConnection: close\r\n",
        s.host
    ));
    assert!(own.starts_with("HTTP/1.1 101 "), "{own}");
    assert!(own.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
    let plain = s.http(&format!("GET /ws HTTP/1.1\r\nHost: {}\r\n\r\n", s.host));
    assert!(plain.starts_with("HTTP/1.1 426 "), "{plain}");
    // The page's own origin, through a real client.
    let mut c = s.connect_with(|r| {
        r.headers_mut()
            .insert("Origin", format!("http://{}", s.host).parse().unwrap());
    });
    assert_eq!(c.ask("status"), "= ongoing X");
}

#[test]
fn a_session_answers_the_protocol_and_checks_the_engines_moves() {
    let s = Served::start(&["--engine", &engine("firstfree", "good")]);
    let mut c = s.connect();
    assert_eq!(
        c.ask("players"),
        "= human\nbot random\nbot blocking\nbot minimax\nbot mcts\nengine firstfree"
    );
    assert_eq!(c.ask("newgame 3 3 3"), "=");
    assert_eq!(c.ask("seat O bot minimax 200"), "=");
    assert_eq!(c.ask("1 move 2 2"), "=1");
    let reply = c.ask("2 genmove");
    let cell: Cell = reply.strip_prefix("=2 ").expect(&reply).parse().unwrap();
    assert_ne!(cell, Cell::new(1, 1));
    assert_eq!(c.ask("status"), "= ongoing X");
    assert!(c.ask("show").contains("X to move"));
    // A person's turn: no engine to ask.
    assert!(c
        .ask("genmove")
        .starts_with("? no engine: X is played by a person"));
    // The same errors as the engine's.
    assert_eq!(c.ask("move 2 2"), "? illegal move: 2 2 is occupied by X");
    assert_eq!(c.ask("3 fly"), "?3 unknown command: 'fly'");
    assert!(c.ask("set bot random").starts_with("? invalid option"));
    assert!(c.ask("newgame 40 40 5").starts_with("? unacceptable size"));
    assert!(c.ask("list_commands").contains("\nseat\nplayers\n"));
    assert!(c.ask("list_commands").contains("\nlegal\nforbidden\n"));
    assert_eq!(c.ask("known_command seat"), "= true");
    assert_eq!(c.ask("known_command solve"), "= false");
    // Pipelined: one message, answers in order, comments and blank lines
    // answered by nothing.
    c.send("10 undo\n\n# a comment\n11 undo\n12 status");
    assert_eq!(c.next(), "=10\n\n");
    assert_eq!(c.next(), "=11\n\n");
    assert_eq!(c.next(), "=12 ongoing X\n\n");
    // An engine named on the command line, by its name; the moves so far
    // reach it before it is asked.
    assert_eq!(c.ask("seat O engine firstfree 100"), "=");
    assert_eq!(c.ask("move 1 1"), "=");
    assert_eq!(c.ask("genmove"), "= 1 2");
    assert_eq!(c.ask("undo"), "=");
    assert_eq!(c.ask("undo"), "=");
    assert_eq!(c.ask("move 3 3"), "=");
    // It can't undo, so it is given the game again: first free is now 1 1.
    assert_eq!(c.ask("genmove"), "= 1 1");
    assert_eq!(c.ask("seat O human"), "=");
    // Renju through the session: the forbidden cells listed, one refused.
    assert_eq!(c.ask("newgame 15 15 5 renju"), "=");
    for m in ["8 8", "1 1", "8 9", "1 3", "9 7", "15 15", "10 7", "15 13"] {
        assert_eq!(c.ask(&format!("move {m}")), "=");
    }
    assert_eq!(c.ask("forbidden"), "= 8 7 double-three");
    assert_eq!(
        c.ask("move 8 7"),
        "? illegal move: 8 7 is forbidden to X (double-three)"
    );
    assert_eq!(c.ask("status"), "= ongoing X");
    assert_eq!(c.ask("quit"), "=");
    assert_eq!(c.closed().0, 1000);
}

#[test]
fn a_gomocup_brain_named_on_the_command_line_plays_in_a_session() {
    let engine = format!(
        "brain=gomocup:{} --seed 3",
        referee_common::fixture_brain().display()
    );
    let s = Served::start(&["--engine", &engine]);
    let mut c = s.connect();
    assert_eq!(c.ask("newgame 15 15 5"), "=");
    assert_eq!(c.ask("seat O engine brain"), "=");
    let mut board = Board::new(Geometry::new(15, 15, 5, kinrow::rules::Rule::Free).unwrap());
    for cell in ["8 8", "8 9", "8 10"] {
        if c.ask(&format!("move {cell}")) != "=" {
            continue;
        }
        board.try_play(cell.parse().unwrap()).unwrap();
        let reply = c.ask("genmove");
        let answer: Cell = reply.strip_prefix("= ").expect(&reply).parse().unwrap();
        board.try_play(answer).expect("the brain's move is legal");
    }
    assert!(c.ask("undo").starts_with('='));
    assert!(c.ask("genmove").starts_with("= "), "after an undo too");
}

#[test]
fn two_bots_play_a_whole_game_through_the_session() {
    let s = Served::start(&[]);
    let mut c = s.connect();
    assert_eq!(c.ask("seat X bot minimax"), "=");
    assert_eq!(c.ask("seat O bot minimax"), "=");
    let mut board = Board::new(Geometry::TIC_TAC_TOE);
    while !board.is_over() {
        let reply = c.ask("genmove");
        let cell: Cell = reply.strip_prefix("= ").expect(&reply).parse().unwrap();
        board.try_play(cell).expect("a legal move");
    }
    // Perfect play on 3x3 is a draw.
    assert_eq!(c.ask("status"), "= draw");
    assert!(c.ask("genmove").starts_with("? game over"));
    assert_eq!(s.engines().len(), 2);
}

#[test]
fn bad_and_oversized_messages_get_an_error_and_change_nothing() {
    let s = Served::start(&[]);
    let mut c = s.connect();
    assert_eq!(c.ask("move 2 2"), "=");
    c.ws.send(Message::binary(b"move 1 1".to_vec())).unwrap();
    assert!(c
        .next()
        .starts_with("? syntax error: binary messages are not taken"));
    let long = format!("move 1 1 {}", "#".repeat(9000));
    assert!(c
        .ask(&long)
        .starts_with("? syntax error: message too long (9009 bytes; at most 8192)"));
    assert_eq!(
        c.ask(&"x".repeat(8000)),
        format!("? unknown command: '{}...'", "x".repeat(24))
    );
    assert_eq!(c.ask("status"), "= ongoing O");
    let legal = c.ask("legal");
    assert_eq!(
        legal.split(' ').count(),
        1 + 16,
        "8 cells, 2 numbers each: {legal}"
    );
    // Text that is not UTF-8 breaks WebSocket itself: closed with 1007.
    let frame = Frame::message(vec![0xff, 0xfe, b'x'], OpCode::Data(Data::Text), true);
    c.ws.send(Message::Frame(frame)).unwrap();
    assert_eq!(c.closed().0, 1007);
    // Over the hard limit: closed with 1009, with the reason.
    let mut c = s.connect();
    assert_eq!(c.ask("status"), "= ongoing X", "a new tab, a new game");
    c.send(&"y".repeat(100_000));
    let (code, reason) = c.closed();
    assert_eq!(code, 1009);
    assert!(reason.contains("message too big"), "{reason}");
}

#[test]
fn sessions_are_bounded_and_the_next_is_told_why() {
    let s = Served::start(&["--max-sessions", "2"]);
    let mut a = s.connect();
    let mut b = s.connect();
    assert_eq!(a.ask("status"), "= ongoing X");
    assert_eq!(b.ask("status"), "= ongoing X");
    let mut third = s.connect();
    let refusal = third.next();
    assert!(
        refusal
            .starts_with("? busy: this server already runs 2 games, its limit (--max-sessions 2)"),
        "{refusal}"
    );
    assert_eq!(third.closed().0, 1013);
    // A tab closes; its place is free again.
    a.ws.close(None).unwrap();
    let _ = a.closed();
    // (Sessions are numbered as their handshakes finish: not always a's 1.)
    s.wait_for_log("closed (the page closed the connection)");
    let mut again = s.connect();
    assert_eq!(again.ask("status"), "= ongoing X");
}

#[test]
fn an_engine_that_fails_is_reported_and_the_game_goes_on() {
    // Long enough for Python to start on a loaded machine; the silent
    // engine costs this much.
    let s = Served::start(&[
        "--timeout",
        "2",
        "--engine",
        &engine("dies", "dies"),
        "--engine",
        &engine("illegal", "illegal"),
        "--engine",
        &engine("garbage", "garbage"),
        "--engine",
        &engine("silent", "silent"),
        "--engine",
        "missing=/nonexistent/engine",
    ]);
    let mut c = s.connect();
    // Dies at its second genmove: reported in plain words, the board
    // untouched; the next genmove starts it again with the game so far.
    assert_eq!(c.ask("seat O engine dies"), "=");
    assert_eq!(c.ask("move 2 2"), "=");
    assert_eq!(c.ask("genmove"), "= 1 1");
    assert_eq!(c.ask("move 3 3"), "=");
    let died = c.ask("genmove");
    assert!(
        died.starts_with("? engine error: the engine playing O (dies) stopped: its output closed")
            && died.contains("out of ideas"),
        "{died}"
    );
    assert_eq!(c.ask("status"), "= ongoing O");
    assert_eq!(c.ask("genmove"), "= 1 2");
    assert_eq!(c.ask("status"), "= ongoing X");

    // An illegal move is refused by the session's rules.
    assert_eq!(c.ask("seat O engine illegal"), "=");
    assert_eq!(c.ask("move 3 1"), "=");
    assert_eq!(
        c.ask("genmove"),
        "? engine error: the engine playing O (illegal) played 1 1, which is illegal: \
         1 1 is occupied by O"
    );
    assert_eq!(c.ask("status"), "= ongoing O");

    assert_eq!(c.ask("seat O engine garbage"), "=");
    assert!(c
        .ask("genmove")
        .contains("(garbage) answered 'resign' to genmove, which is not a move"));

    assert_eq!(c.ask("seat O engine silent"), "=");
    let silent = c.ask("genmove");
    assert!(
        silent.contains("(silent) did not answer `genmove` within"),
        "{silent}"
    );

    let missing = c.ask("seat O engine missing");
    assert!(
        missing.starts_with("? engine error: the engine playing O (missing) could not be started"),
        "{missing}"
    );
    // Back to a bot that works: the game goes on to its end.
    assert_eq!(c.ask("seat O bot minimax"), "=");
    let reply = c.ask("genmove");
    assert!(reply.starts_with("= "), "{reply}");
}

#[test]
fn nothing_the_page_sends_starts_a_program_the_server_did_not_name() {
    let s = Served::start(&["--engine", &engine("named", "good")]);
    let mut c = s.connect();
    for (line, prefix) in [
        (
            "seat X engine /bin/sh",
            "? invalid option: no engine named '/bin/sh'",
        ),
        (
            "seat X engine python3",
            "? invalid option: no engine named 'python3'",
        ),
        ("seat X engine named -c 1", "? syntax error"),
        (
            "seat X engine sh -c",
            "? invalid option: no engine named 'sh'",
        ),
        (
            "seat X bot /bin/sh",
            "? invalid option: unknown bot '/bin/sh'",
        ),
        ("seat X bot minimax; touch /tmp/x", "? syntax error"),
        ("seat X bot minimax 0", "? invalid option: movetime '0'"),
        ("seat X bot minimax 99999999", "? invalid option: movetime"),
        ("seat Z human", "? syntax error"),
    ] {
        let reply = c.ask(line);
        assert!(reply.starts_with(prefix), "{line}: {reply}");
    }
    assert_eq!(
        c.ask("genmove"),
        "? no engine: X is played by a person; send their move with `move R C`"
    );
    assert_eq!(s.engines(), Vec::<u32>::new(), "no process was started");
    assert_eq!(c.ask("seat X engine named"), "=");
    assert_eq!(s.engines().len(), 1);
}

#[test]
fn a_closed_tab_has_its_engines_killed_even_mid_search() {
    let s = Served::start(&["--engine", &engine("silent", "silent")]);
    let mut c = s.connect();
    assert_eq!(c.ask("seat X bot minimax"), "=");
    assert_eq!(c.ask("seat O engine silent"), "=");
    assert!(c.ask("genmove").starts_with("= "));
    let engines = s.wait_for_engines(2);
    // O's engine never answers: the session waits for it (up to 30 s)...
    c.send("genmove");
    std::thread::sleep(Duration::from_millis(200));
    // ...and the tab goes (no close frame, the connection just ends): both
    // engines die at once, not when the wait would have ended.
    let t = std::time::Instant::now();
    drop(c);
    wait_gone(&engines, Duration::from_secs(5));
    assert!(t.elapsed() < Duration::from_secs(5));
    s.wait_for_log("session 1 closed (the page closed the connection)");
}

#[test]
fn an_interrupt_cuts_a_search_short_and_the_game_goes_on() {
    let s = Served::start(&[
        "--engine",
        &engine("silent", "silent"),
        "--engine",
        &engine("good", "good"),
    ]);
    let mut c = s.connect();
    assert_eq!(c.ask("seat X engine silent"), "=");
    let engines = s.wait_for_engines(1);
    c.send("7 genmove");
    std::thread::sleep(Duration::from_millis(300));
    let t = std::time::Instant::now();
    c.send("# interrupt");
    let reply = c.next();
    assert_eq!(
        reply,
        "?7 interrupted: the engine playing X (silent) was stopped before it answered\n\n"
    );
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    wait_gone(&engines, PATIENCE);
    assert_eq!(c.ask("status"), "= ongoing X");
    // With no search to cut, it is a comment: no answer, no effect.
    c.send("# interrupt");
    assert_eq!(c.ask("seat X engine good"), "=");
    assert_eq!(c.ask("genmove"), "= 1 1");
}

#[test]
fn a_tab_that_stops_answering_pings_is_gone() {
    let s = Served::start(&["--heartbeat", "0.6"]);
    let mut c = s.connect();
    assert_eq!(c.ask("seat O bot minimax"), "=");
    let engines = s.wait_for_engines(1);
    // The client reads nothing more, so the server's pings go unanswered.
    let t = std::time::Instant::now();
    wait_gone(&engines, PATIENCE);
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
    s.wait_for_log("session 1 closed (no heartbeat for 0.6 s)");
    drop(c);
}

#[test]
fn a_stop_signal_closes_every_tab_and_ends_their_engines_then_the_server() {
    let s = Served::start(&["--engine", &engine("silent", "silent")]);
    let mut idle = s.connect();
    let mut waiting = s.connect();
    assert_eq!(waiting.ask("seat X engine silent"), "=");
    let engines = s.wait_for_engines(1);
    // The engine never answers: a wait the stop must cut short.
    waiting.send("genmove");
    std::thread::sleep(Duration::from_millis(200));
    let t = std::time::Instant::now();
    // SAFETY: a signal to the server we started.
    unsafe { libc::kill(s.pid() as libc::pid_t, libc::SIGTERM) };
    for c in [&mut idle, &mut waiting] {
        assert_eq!(c.closed(), (1001, "the server is stopping".to_string()));
    }
    wait_gone(&engines, Duration::from_secs(5));
    // Then the server itself ends, well before a stopping server gives up
    // waiting for its sessions.
    let until = t + Duration::from_secs(5);
    while serve_common::is_alive(s.pid()) {
        assert!(std::time::Instant::now() < until, "{}", s.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

/// The server's memory with one session and with the most it allows, each
/// with a minimax engine that has played a move (printed; run by
/// scripts/web-figures.sh).
#[test]
#[ignore = "a measurement; run scripts/web-figures.sh"]
fn server_memory() {
    fn status(pid: u32) -> (u64, u64) {
        let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let field = |name: &str| {
            text.lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        (field("VmRSS:"), field("Threads:"))
    }
    let max = 8;
    let s = Served::start(&["--max-sessions", &max.to_string()]);
    let server = s.pid();
    let show = |label: &str| {
        let (rss, threads) = status(server);
        let engines: u64 = s.engines().iter().map(|&p| status(p).0).sum();
        println!(
            "{label}: server RSS {:.1} MiB, {threads} threads; its engines {:.1} MiB in all",
            rss as f64 / 1024.0,
            engines as f64 / 1024.0
        );
    };
    show("no session");
    let mut clients = Vec::new();
    for n in 1..=max {
        let mut c = s.connect();
        assert_eq!(c.ask("newgame 15 15 5"), "=");
        assert_eq!(c.ask("seat O bot minimax 100"), "=");
        assert_eq!(c.ask("move 8 8"), "=");
        assert!(c.ask("genmove").starts_with("= "));
        clients.push(c);
        if n == 1 || n == max {
            std::thread::sleep(Duration::from_millis(200));
            show(&format!("{n} session{}", if n == 1 { "" } else { "s" }));
        }
    }
}

/// A masked client text frame, as a browser writes one.
fn masked_text_frame(text: &str) -> Vec<u8> {
    assert!(text.len() < 126);
    let mask = [0x37, 0xfa, 0x21, 0x3d];
    let mut frame = vec![0x81, 0x80 | text.len() as u8];
    frame.extend_from_slice(&mask);
    frame.extend(text.bytes().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    frame
}

#[test]
fn a_frame_in_the_same_packet_as_the_upgrade_is_answered_at_once() {
    use std::io::{Read, Write};
    let s = Served::start(&[]);
    let mut bytes = format!(
        "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        s.host
    )
    .into_bytes();
    bytes.extend(masked_text_frame("status"));
    let mut stream = std::net::TcpStream::connect(&s.host).unwrap();
    stream.set_nodelay(true).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let sent = std::time::Instant::now();
    stream.write_all(&bytes).unwrap();
    // The 101's head, then one unmasked text frame with the answer.
    let want = b"= ongoing X\n\n";
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    let frame = loop {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&answer));
        answer.extend_from_slice(&buf[..n]);
        if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            let frame = &answer[end + 4..];
            if frame.len() >= 2 + want.len() {
                break frame.to_vec();
            }
        }
    };
    let took = sent.elapsed();
    assert!(answer.starts_with(b"HTTP/1.1 101 "));
    assert_eq!(frame[..2], [0x81, want.len() as u8], "{frame:?}");
    assert_eq!(&frame[2..2 + want.len()], want);
    // The first ping goes out after 10 s: an answer held until then is the
    // hole; at once means well under that.
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
}

#[test]
fn a_request_head_that_trickles_is_cut_at_its_deadline() {
    use std::io::{Read, Write};
    let s = Served::start(&["--request-timeout", "1"]);
    let mut stream = std::net::TcpStream::connect(&s.host).unwrap();
    let opened = std::time::Instant::now();
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    write!(stream, "GET / HTTP/1.1\r\nHost: {}\r\nX-Slow: ", s.host).unwrap();
    // A byte every 200 ms: no single read waits long, the head never ends.
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while opened.elapsed() < Duration::from_secs(8) {
        let _ = stream.write_all(b"a");
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => break,
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let took = opened.elapsed();
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 408 "),
        "{answer:?} after {took:?}"
    );
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "closed after {took:?}"
    );
    // A prompt request is answered as ever.
    let page = s.http(&format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        s.host
    ));
    assert!(page.starts_with("HTTP/1.1 200 OK"), "{page}");
}

/// A TCP connection to `to` from the local address `from` (another
/// loopback address: the whole of 127/8 is this machine's).
fn connect_from(from: std::net::Ipv4Addr, to: std::net::SocketAddrV4) -> std::net::TcpStream {
    use std::os::fd::FromRawFd;
    let sockaddr = |a: std::net::SocketAddrV4| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: a.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*a.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: a fresh socket, bound and connected with addresses that live
    // through the calls; its descriptor is handed to the TcpStream alone.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let stream = std::net::TcpStream::from_raw_fd(fd);
        let local = sockaddr(std::net::SocketAddrV4::new(from, 0));
        let bound = libc::bind(fd, (&local as *const libc::sockaddr_in).cast(), len);
        assert_eq!(bound, 0, "bind {from}: {}", std::io::Error::last_os_error());
        let remote = sockaddr(to);
        let connected = libc::connect(fd, (&remote as *const libc::sockaddr_in).cast(), len);
        assert_eq!(connected, 0, "connect: {}", std::io::Error::last_os_error());
        stream
    }
}

#[test]
fn one_client_address_cannot_take_every_connection() {
    use std::io::{Read, Write};
    // One session: 65 connections at once, 17 of them from one address.
    let s = Served::start(&["--max-sessions", "1"]);
    let server: std::net::SocketAddrV4 = s.host.parse().unwrap();
    let me = std::net::Ipv4Addr::LOCALHOST;
    let get = |mut stream: std::net::TcpStream| {
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        // A refused connection may be answered and closed before the
        // request is written (a broken pipe): the answer is what counts.
        let _ = write!(
            stream,
            "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            s.host
        );
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    // Connections that say nothing (yet), as a slowloris holds them.
    let held: Vec<_> = (0..17).map(|_| connect_from(me, server)).collect();
    let refused = get(connect_from(me, server));
    assert!(
        refused.starts_with("HTTP/1.1 503 ")
            && refused.contains("too many connections from your address (at most 17 at once)"),
        "{refused}"
    );
    // Another client is served meanwhile.
    let other = get(connect_from(std::net::Ipv4Addr::new(127, 0, 0, 2), server));
    assert!(other.starts_with("HTTP/1.1 200 OK"), "{other}");
    // Slots come back as connections close.
    drop(held);
    let until = std::time::Instant::now() + PATIENCE;
    loop {
        let again = get(connect_from(me, server));
        if again.starts_with("HTTP/1.1 200 OK") {
            break;
        }
        assert!(std::time::Instant::now() < until, "{again}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
