//! What engines say of their searches, through the real referee: `--move-info`
//! (each move's time, depth, score and nodes in the records and SGF),
//! `--messages` (every brain message, game by game, as c-gomoku-cli's -msg),
//! and games ended on the engines' own scores (`--resign-after`,
//! `--draw-by-score`), recorded as adjudicated and never as a fault.

mod referee_common;

use referee_common::*;
use serde_json::Value;

fn scored(name: &str, scores: &str) -> String {
    format!("{} {scores}", fixture(name, "scored"))
}

fn run(scratch: &Scratch, args: &[&str]) -> Run {
    let _ = std::fs::remove_file(scratch.path("games.jsonl"));
    let r = referee(scratch, args);
    assert!(r.output.status.success(), "{args:?}: {}", r.stderr);
    r
}

/// Two scripted engines on 15x15 (no game ends on the board in a few
/// moves), no opening, one pair of games, one at a time.
fn scripted(x: &str, o: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--engine",
        &scored("a", x),
        "--engine",
        &scored("b", o),
        "--board",
        "15x15",
        "--k",
        "5",
        "--openings",
        "0",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--seed",
        "4",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn moves(game: &Value) -> usize {
    game["moves"].as_array().unwrap().len()
}

#[test]
fn move_info_records_each_moves_time_and_what_the_engine_said() {
    let scratch = Scratch::new("mi-records");
    let sgf = scratch.path("sgf");
    let args = scripted(
        "10,-20,win_in_3,none",
        "5",
        &[
            "--move-info",
            "--draw-after",
            "6",
            "--sgf-dir",
            sgf.to_str().unwrap(),
        ],
    );
    let r = run(&scratch, &strs(&args));
    assert_eq!(r.games.len(), 2);
    for g in &r.games {
        let info = g["move_info"].as_array().expect("move_info");
        assert_eq!(info.len(), moves(g), "one entry a move: {g}");
        for i in info {
            assert!(i["ms"].as_f64().unwrap() > 0.0, "{i}");
        }
        // X's moves 1, 3, 5 and O's 2, 4, 6; the scored engine says
        // depth N and 100 N nodes for its N-th move.
        let said: Vec<Value> = info
            .iter()
            .map(|i| serde_json::json!([i.get("depth"), i.get("score"), i.get("nodes")]))
            .collect();
        let (first, second) = if g["x"] == "a" {
            (["10", "-20", "\"win in 3\""], ["5", "5", "5"])
        } else {
            (["5", "5", "5"], ["10", "-20", "\"win in 3\""])
        };
        for n in 0..3 {
            for (k, score) in [(2 * n, first[n]), (2 * n + 1, second[n])] {
                let want = format!("[{},{score},{}]", n + 1, 100 * (n + 1));
                assert_eq!(said[k].to_string(), want, "move {k} of {g}");
            }
        }
    }
    // The same as SGF comments on the moves.
    let a_first = std::fs::read_to_string(sgf.join("000000-a-vs-b.sgf")).unwrap();
    assert!(a_first.contains("depth 1 score 10 nodes 100]"), "{a_first}");
    assert!(
        a_first.contains("depth 3 score win in 3 nodes 300]"),
        "{a_first}"
    );
    assert!(
        a_first.contains(" ms, depth 2 score 5 nodes 200]"),
        "{a_first}"
    );
    // Without --move-info the records have none, and nothing else differs.
    let args = scripted("10,-20,win_in_3,none", "5", &["--draw-after", "6"]);
    let plain = run(&scratch, &strs(&args));
    for (g, p) in r.games.iter().zip(&plain.games) {
        assert!(p.get("move_info").is_none(), "{p}");
        assert_eq!(g["moves"], p["moves"]);
    }
}

#[test]
fn an_engine_without_search_info_gets_times_only_and_no_fault() {
    let scratch = Scratch::new("mi-plain");
    let args = [
        "--engine",
        &fixture("plain", "fixture_engine"),
        "--engine",
        &scored("s", "7"),
        "--games",
        "2",
        "--move-info",
        "--seed",
        "1",
    ];
    let r = run(&scratch, &args);
    for g in &r.games {
        assert!(g["reason"] == "win" || g["reason"] == "draw", "{g}");
        let info = g["move_info"].as_array().unwrap();
        let opening = g["opening"].as_array().unwrap().len();
        for (k, i) in info.iter().enumerate() {
            let mover = if (opening + k) % 2 == 0 {
                &g["x"]
            } else {
                &g["o"]
            };
            if mover == "plain" {
                assert_eq!(i.as_object().unwrap().len(), 1, "time only: {i}");
            } else {
                assert_eq!(i["score"], 7, "{i}");
            }
        }
    }
}

#[test]
fn a_side_whose_own_scores_stay_low_resigns_after_count_moves() {
    let scratch = Scratch::new("mi-resign");
    let args = scripted("-600,-700,-800", "0", &["--resign-after", "2", "500"]);
    let r = run(&scratch, &strs(&args));
    for g in &r.games {
        let a_is_x = g["x"] == "a";
        // a resigns after its second move: 3 moves when it moves first, 4
        // when second.
        assert_eq!(moves(g), if a_is_x { 3 } else { 4 }, "{g}");
        assert_eq!(g["reason"], "adjudicated", "{g}");
        assert_eq!(g["fault_by"], Value::Null, "{g}");
        assert_eq!(g["result"], if a_is_x { "o" } else { "x" }, "{g}");
        let side = if a_is_x { "X" } else { "O" };
        assert_eq!(
            g["detail"],
            format!(
                "resign: {side}'s own score was -500 or lower for 2 moves in a row (-600, -700) \
                 (--resign-after)"
            ),
            "{g}"
        );
    }
    assert!(r.stdout.contains("adjudicated: resign 2"), "{}", r.stdout);
    assert!(r.stdout.contains("faults: none"), "{}", r.stdout);

    // A move without a score, or above the line, starts the count again;
    // a proved loss counts as below any line.
    let args = scripted(
        "-600,none,-700,-100,loss_in_4,-900",
        "0",
        &["--resign-after", "2", "500"],
    );
    let r = run(&scratch, &strs(&args));
    for g in &r.games {
        let a_is_x = g["x"] == "a";
        assert_eq!(moves(g), if a_is_x { 11 } else { 12 }, "{g}");
        assert!(
            g["detail"].as_str().unwrap().contains("(loss in 4, -900)"),
            "{g}"
        );
    }
    // Without the flag the same engines play on.
    let args = scripted("-600,-700,-800", "0", &["--draw-after", "8"]);
    let r = run(&scratch, &strs(&args));
    assert!(r.games.iter().all(|g| moves(g) == 8), "{:?}", r.games);
}

#[test]
fn both_sides_near_zero_for_count_moves_is_a_draw_from_ply_on() {
    let scratch = Scratch::new("mi-draw");
    let args = scripted(
        "0,5,-5,3",
        "20,-10,8,0",
        &["--draw-by-score", "6", "2", "10"],
    );
    let r = run(&scratch, &strs(&args));
    for g in &r.games {
        // b's first score, 20, is outside the window: its run of 2 ends at
        // its 3rd move, and ply 6 is reached with the same move.
        assert_eq!(g["result"], "draw", "{g}");
        assert_eq!(g["reason"], "adjudicated", "{g}");
        assert_eq!(moves(g), 6, "{g}");
        let detail = g["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("draw-by-score: both scores stayed within 10"),
            "{g}"
        );
    }
    // Scores outside the window never draw.
    let args = scripted(
        "0",
        "50",
        &["--draw-by-score", "2", "2", "10", "--draw-after", "9"],
    );
    let r = run(&scratch, &strs(&args));
    assert!(r.games.iter().all(|g| moves(g) == 9), "{:?}", r.games);
}

#[test]
fn a_hang_after_the_move_on_search_info_is_charged_to_the_engine() {
    let scratch = Scratch::new("mi-hang");
    let args = [
        "--engine",
        &format!("{} --hang", scored("h", "1")),
        "--engine",
        &scored("s", "1"),
        "--games",
        "2",
        "--move-info",
        "--timeout",
        "300",
        "--seed",
        "2",
    ];
    let r = run(&scratch, &args);
    for g in &r.games {
        assert_eq!(g["reason"], "timeout", "{g}");
        assert_eq!(g["fault_by"], "h", "{g}");
        let detail = g["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("answered genmove, then not search_info"),
            "{g}"
        );
    }
}

#[test]
fn processes_and_in_process_bots_say_the_same_searches() {
    let scratch = Scratch::new("mi-inproc");
    let args = |extra: &[&'static str]| {
        let mut a: Vec<&str> = vec![
            "--bots",
            "minimax,mcts",
            "--board",
            "7x7",
            "--k",
            "4",
            "--games",
            "2",
            "--each",
            "nodes=400",
            "--seed",
            "9",
            "--move-info",
        ];
        a.extend(extra);
        a
    };
    let processes = run(&scratch, &args(&[]));
    let in_process = run(&scratch, &args(&["--in-process"]));
    let said = |r: &Run| -> Vec<Vec<Value>> {
        r.games
            .iter()
            .map(|g| {
                g["move_info"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| serde_json::json!([i["depth"], i["score"], i["nodes"]]))
                    .collect()
            })
            .collect()
    };
    let p = said(&processes);
    // (A move chosen without a search, such as a forced one, says nothing.)
    let searched = p.iter().flatten().filter(|i| i[2].as_u64() > Some(0));
    assert!(searched.count() >= 6, "{p:?}");
    assert_eq!(p, said(&in_process));
}

#[test]
fn messages_keeps_every_brain_message_game_by_game_as_c_gomoku_cli() {
    let scratch = Scratch::new("mi-messages");
    let brain = fixture_brain().display().to_string();
    let file = scratch.path("messages.txt");
    let args = [
        "--engine",
        &format!("a=gomocup:{brain} --seed 1"),
        "--engine",
        &format!("b=gomocup:{brain} --seed 2"),
        "--board",
        "8x8",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--seed",
        "3",
        "--messages",
        file.to_str().unwrap(),
    ];
    let r = run(&scratch, &args);
    // The fixture says `MESSAGE thinking about move N` on its odd move
    // requests and `DEBUG nothing to see` on every third, counting over its
    // process's life: both games' messages, rebuilt from the moves.
    let mut asked = std::collections::HashMap::new();
    let mut want = String::new();
    for g in &r.games {
        let (x, o) = (g["x"].as_str().unwrap(), g["o"].as_str().unwrap());
        want += &format!(
            "------------------------------\nGame ID: {}\nEngines: {x} x {o}\n",
            g["game"].as_u64().unwrap() + 1
        );
        let opening = g["opening"].as_array().unwrap().len();
        for k in 0..moves(g) {
            let ply = opening + k + 1;
            let who = if ply % 2 == 1 { x } else { o };
            let n = asked.entry(who).or_insert(0);
            *n += 1;
            if *n % 2 == 1 {
                want += &format!("{ply}) {who}: thinking about move {n}\n");
            }
            if *n % 3 == 0 {
                want += &format!("{ply}) {who}: DEBUG nothing to see\n");
            }
        }
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), want);
}

#[test]
fn bad_score_rules_are_refused_before_any_game() {
    let scratch = Scratch::new("mi-bad");
    for (extra, words) in [
        (
            &["--resign-after", "3"][..],
            "--resign-after <COUNT> <SCORE>",
        ),
        (&["--resign-after", "0", "500"][..], "0 is not in 1..="),
        (
            &["--resign-after", "2", "-5"][..],
            "unexpected argument '-5'",
        ),
        (
            &["--draw-by-score", "10", "2"][..],
            "--draw-by-score <PLY> <COUNT> <SCORE>",
        ),
        (
            &["--draw-by-score", "10", "0", "5"][..],
            "--draw-by-score: COUNT",
        ),
    ] {
        let mut args = vec!["--bots", "random,blocking"];
        args.extend(extra);
        let r = referee(&scratch, &args);
        assert_eq!(r.output.status.code(), Some(2), "{extra:?}: {}", r.stderr);
        assert!(r.stderr.contains(words), "{extra:?}: {}", r.stderr);
        assert!(r.games.is_empty(), "{extra:?}");
    }
}

#[test]
fn move_info_and_score_rulings_resume_shard_and_merge_like_any_run() {
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "--bots",
            "minimax,mcts",
            "--board",
            "9x9",
            "--k",
            "5",
            "--each",
            "nodes=300",
            "--seed",
            "6",
            "--in-process",
            "--move-info",
            "--resign-after",
            "2",
            "1500",
            "--draw-by-score",
            "30",
            "3",
            "40",
        ]
        .map(String::from)
        .to_vec();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let whole_dir = Scratch::new("mi-whole");
    let whole = run(&whole_dir, &strs(&args(&["--games", "8"])));
    assert!(
        whole.games.iter().any(|g| g["reason"] == "adjudicated"),
        "{:?}",
        whole.games
    );
    // Half the games, then resumed to eight: the same records.
    let half_dir = Scratch::new("mi-half");
    run(&half_dir, &strs(&args(&["--games", "4"])));
    let r = referee(&half_dir, &strs(&args(&["--games", "8", "--resume"])));
    assert!(r.output.status.success(), "{}", r.stderr);
    assert_eq!(games_without_time(&r), games_without_time(&whole));
    // Other score rules make another run: refused.
    let mut other = args(&["--games", "8", "--resume"]);
    let at = other.iter().position(|a| a == "1500").unwrap();
    other[at] = "1600".into();
    let refusal = referee(&half_dir, &strs(&other));
    assert_eq!(refusal.output.status.code(), Some(1), "{}", refusal.stderr);
    assert!(
        refusal.stderr.contains("games ended by"),
        "{}",
        refusal.stderr
    );
    // Two shards merged: the one run, move info and all.
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for i in 1..=2 {
        let dir = Scratch::new(&format!("mi-shard-{i}"));
        run(
            &dir,
            &strs(&args(&["--games", "8", "--shard", &format!("{i}/2")])),
        );
        files.push(dir.path("games.jsonl"));
        dirs.push(dir);
    }
    let out = Scratch::new("mi-merged");
    let output = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .arg("merge")
        .args(&files)
        .arg("--games-out")
        .arg(out.path("games.jsonl"))
        .output()
        .unwrap();
    let merged = records(&out, output);
    assert!(merged.output.status.success(), "{}", merged.stderr);
    assert_eq!(games_without_time(&merged), games_without_time(&whole));
}
