//! The page in a real browser: headless Chromium driven through WebDriver
//! against `kinrow serve` on a free port. Clicks and keys as a person would
//! make them; the board is read back through the page's hooks (`data-row`,
//! `data-col`, `data-stone`, `data-status`).
//!
//! Skipped, loudly, only where Chromium or chromedriver is not installed.
//! Two ignored tests write the screenshots in docs/img/ and print the
//! click-to-stone latency: `scripts/web-figures.sh`.

mod referee_common;
mod serve_common;
mod skip;
mod webdriver;

use kinrow::bots::{BotKind, Limits};
use kinrow::rules::{Board, Cell, Geometry, Player};
use serde_json::json;
use serve_common::{is_alive, wait_gone, Served, PATIENCE};
use std::time::Duration;
use webdriver::{Browser, ARROW_RIGHT, ENTER};

const DIES: &str = "dies=python3 tests/fixtures/play_engine.py dies";

fn cell_css(r: usize, c: usize) -> String {
    format!(".cell[data-row=\"{r}\"][data-col=\"{c}\"]")
}

fn click_cell(b: &Browser, cell: Cell) {
    b.click_css(&cell_css(cell.row as usize + 1, cell.col as usize + 1));
}

/// Plays X's move on `board` by a click, and waits for the page to show it
/// and for O's answer (or the end).
fn play_x(b: &Browser, board: &mut Board, cell: Cell) -> String {
    click_cell(b, cell);
    board.try_play(cell).unwrap();
    let css = format!(
        "{} [data-stone=\"X\"]",
        cell_css(cell.row as usize + 1, cell.col as usize + 1)
    );
    b.wait("X's stone", || (count(b, &css) == 1).then_some(()));
    let status = wait_for_x_or_end(b);
    take_o_moves(b, board);
    status
}

/// The stones on the page: (row, col, side), 1-based.
fn stones(b: &Browser) -> Vec<(usize, usize, String)> {
    let v = b.script(
        "return [...document.querySelectorAll('.cell [data-stone]')].map(s => \
         [Number(s.parentElement.dataset.row), Number(s.parentElement.dataset.col), s.dataset.stone]);",
        json!([]),
    );
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t[0].as_u64().unwrap() as usize,
                t[1].as_u64().unwrap() as usize,
                t[2].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn count(b: &Browser, css: &str) -> usize {
    b.find_all(css).len()
}

/// Loads the page and waits for its first game (you as X against minimax).
fn load(b: &Browser, s: &Served) {
    b.goto(&s.url());
    b.wait("the first game", || {
        (game_number(b) > 0 && b.attr("#status", "data-busy").as_deref() == Some("false"))
            .then_some(())
    });
    b.wait_status("ongoing X");
    b.wait("the player menus", || {
        (count(b, "#seat-O option") > 1).then_some(())
    });
}

/// Picks an option of a menu, as a click on it.
fn choose(b: &Browser, select: &str, value: &str) {
    b.click_css(&format!("{select} option[value=\"{value}\"]"));
    assert_eq!(
        b.script(
            "return document.querySelector(arguments[0]).value;",
            json!([select])
        ),
        json!(value)
    );
}

fn set_number(b: &Browser, input: &str, value: u32) {
    let el = b.find(input);
    b.script(
        "arguments[0].value = ''; arguments[0].focus();",
        json!([{ "element-6066-11e4-a52e-4f735466cecf": el }]),
    );
    b.send_keys(&el, &value.to_string());
}

/// Which game the page is on (`data-game` counts them).
fn game_number(b: &Browser) -> u64 {
    b.attr("#status", "data-game")
        .and_then(|g| g.parse().ok())
        .unwrap_or(0)
}

/// Starts a new game and waits until the page has it (`data-busy` false).
fn new_game(b: &Browser) {
    let before = game_number(b);
    b.click_css("#new-game");
    b.wait("the new game", || {
        (game_number(b) > before && b.attr("#status", "data-busy").as_deref() == Some("false"))
            .then_some(())
    });
}

/// Waits until it is X's turn again or the game is over, and no engine thinks.
fn wait_for_x_or_end(b: &Browser) -> String {
    b.wait("X's turn or the end", || {
        let status = b.attr("#status", "data-status")?;
        let busy = b.attr("#status", "data-busy")?;
        (busy == "false" && (status == "ongoing X" || !status.starts_with("ongoing")))
            .then_some(status)
    })
}

/// Replays onto `board` the O stones on the page it doesn't have yet.
fn take_o_moves(b: &Browser, board: &mut Board) {
    for (r, c, side) in stones(b) {
        let cell = Cell::new(r as u8 - 1, c as u8 - 1);
        if board.stone_at(cell).is_none() {
            assert_eq!(side, "O", "only O's stones are new");
            board.try_play(cell).expect("the page shows a legal move");
        }
    }
}

#[test]
fn the_page_in_a_real_browser() {
    let Some(b) = Browser::start(1280, 900) else {
        return;
    };
    let s = Served::start(&["--engine", DIES]);
    load(&b, &s);
    assert!(displayed(&b, ".keys"), "the keyboard hint, with a mouse");
    tic_tac_toe_against_minimax_to_a_draw(&b, &s);
    two_people_to_a_win_with_undo_and_keys(&b, &s);
    gomoku_on_16x16(&b, &s);
    an_engine_that_dies_mid_game(&b, &s);
    two_tabs_and_a_closed_one(&b, &s);
}

/// Renju, two people: while X (Black) is to move the cells forbidden to it
/// are marked, as Yixin Board marks them; a click on one is refused with
/// the kind in plain words and the board is unchanged; with O to move no
/// cell is marked.
#[test]
fn renju_marks_and_refuses_the_cells_forbidden_to_black() {
    let Some(b) = Browser::start(1280, 900) else {
        return;
    };
    let s = Served::start(&[]);
    load(&b, &s);
    choose(&b, "#seat-O", "human");
    choose(&b, "#preset", "15x15renju");
    new_game(&b);
    let moves = [
        (8, 8),
        (1, 1),
        (8, 9),
        (1, 3),
        (9, 7),
        (1, 5),
        (10, 7),
        (15, 15),
    ];
    for (i, &(r, c)) in moves.iter().enumerate() {
        b.click_css(&cell_css(r, c));
        b.wait_status(if i % 2 == 0 { "ongoing O" } else { "ongoing X" });
    }
    // 8 7 would make two open threes (row 8 and column 7).
    let marked = b.wait("the forbidden mark", || {
        let cells = b.find_all(".cell.forbidden");
        (!cells.is_empty()).then_some(cells.len())
    });
    assert_eq!(marked, 1);
    assert_eq!(
        b.attr(&cell_css(8, 7), "data-forbidden").as_deref(),
        Some("double-three")
    );
    assert!(b
        .attr(&cell_css(8, 7), "aria-label")
        .unwrap()
        .contains("forbidden to X (double-three)"));
    b.click_css(&cell_css(8, 7));
    b.wait("the refusal", || {
        (!b.text("#alert-text").is_empty()).then_some(())
    });
    assert!(displayed(&b, "#alert"));
    assert_eq!(
        b.text("#alert-text"),
        "That move is not allowed: 8 7 is forbidden to X under renju: \
         it would make two open threes at once (a double-three)."
    );
    assert_eq!(count(&b, "[data-stone]"), 8, "the board is unchanged");
    assert_eq!(
        b.attr("#status", "data-status").as_deref(),
        Some("ongoing X")
    );
    // X plays elsewhere: O to move, nothing is marked.
    b.click_css(&cell_css(2, 2));
    b.wait_status("ongoing O");
    b.wait("no marks", || {
        (count(&b, ".cell.forbidden") == 0).then_some(())
    });
    // O plays: the mark is back for X.
    b.click_css(&cell_css(14, 14));
    b.wait_status("ongoing X");
    b.wait("the mark again", || {
        (count(&b, ".cell.forbidden[data-forbidden=\"double-three\"]") == 1).then_some(())
    });
}

fn tic_tac_toe_against_minimax_to_a_draw(b: &Browser, s: &Served) {
    load(b, s);
    assert_eq!(count(b, ".cell"), 9);
    let mut board = Board::new(Geometry::TIC_TAC_TOE);
    let mut me = BotKind::Minimax.build(7);
    let mut status = String::new();
    while !board.is_over() {
        let cell = me.choose(&board, Limits::starting_now(Duration::from_millis(50)));
        status = play_x(b, &mut board, cell);
    }
    assert_eq!(status, "draw");
    assert_eq!(board.ply(), 9);
    assert!(b.text("#status").contains("draw"), "{}", b.text("#status"));
    assert_eq!(count(b, "#moves li"), 9);
    assert!(b.text("#score").contains("1 draw"), "{}", b.text("#score"));
}

fn two_people_to_a_win_with_undo_and_keys(b: &Browser, s: &Served) {
    load(b, s);
    choose(b, "#seat-O", "human");
    new_game(b);
    let win = "win X 1 1 1 2 1 3";
    for (i, (r, c)) in [(1, 1), (2, 1), (1, 2), (2, 2), (1, 3)]
        .into_iter()
        .enumerate()
    {
        b.click_css(&cell_css(r, c));
        if i < 4 {
            b.wait_status(if i % 2 == 0 { "ongoing O" } else { "ongoing X" });
        }
    }
    b.wait_status(win);
    let line: Vec<String> = b
        .script(
            "return [...document.querySelectorAll('.cell[data-win]')].map(c => c.dataset.row + ' ' + c.dataset.col);",
            json!([]),
        )
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(line, ["1 1", "1 2", "1 3"]);
    assert!(
        b.text("#status").contains("X wins"),
        "{}",
        b.text("#status")
    );
    assert!(b.text("#score").contains("1 win"), "{}", b.text("#score"));
    // O can't play on: the game is over.
    b.click_css(&cell_css(3, 3));
    assert_eq!(count(b, "[data-stone]"), 5);

    // Undo takes back the winning move (two people: one move).
    b.click_css("#undo");
    b.wait_status("ongoing X");
    assert_eq!(count(b, "[data-stone]"), 4);
    assert_eq!(count(b, "[data-win]"), 0);
    assert!(
        b.text("#score").contains("No games yet"),
        "{}",
        b.text("#score")
    );

    // The keyboard: from 1 2, right then Enter plays 1 3.
    let from = b.find(&cell_css(1, 2));
    b.send_keys(&from, &format!("{ARROW_RIGHT}{ENTER}"));
    b.wait_status(win);
    // U takes it back again, N starts a new game.
    let any = b.find(&cell_css(2, 3));
    b.send_keys(&any, "u");
    b.wait_status("ongoing X");
    b.send_keys(&any, "n");
    b.wait("a new game", || {
        (count(b, "[data-stone]") == 0).then_some(())
    });
}

fn gomoku_on_16x16(b: &Browser, s: &Served) {
    load(b, s);
    choose(b, "#preset", "16x16k5");
    set_number(b, "#time-O", 100);
    new_game(b);
    assert_eq!(count(b, ".cell"), 256);
    assert_eq!(count(b, ".head.col"), 16);
    assert_eq!(count(b, ".board.stones"), 1, "big boards draw stones");
    // Note every "thinking…" the status shows.
    b.script(
        "window.seenThinking = []; const s = document.querySelector('#status'); \
         new MutationObserver(() => { if (s.dataset.thinking === 'true') \
         window.seenThinking.push(s.textContent); }).observe(s, {attributes: true, childList: true});",
        json!([]),
    );
    let mut board = Board::new(Geometry::new(16, 16, 5, kinrow::rules::Rule::Free).unwrap());
    for (r, c) in [(8, 8), (8, 9), (9, 8), (10, 10)] {
        let cell = Cell::new(r - 1, c - 1);
        if board.stone_at(cell).is_some() {
            continue;
        }
        play_x(b, &mut board, cell);
        assert_eq!(board.to_move(), Player::X);
    }
    assert_eq!(count(b, "[data-stone]"), board.ply());
    assert_eq!(count(b, ".cell.last"), 1);
    let seen = b.script("return window.seenThinking;", json!([]));
    assert!(
        seen.as_array()
            .unwrap()
            .iter()
            .any(|t| t.as_str().unwrap().contains("O (minimax) is thinking")),
        "{seen}"
    );
    // A long search cut short by New game: the new game is there at once.
    set_number(b, "#time-O", 30_000);
    new_game(b);
    click_cell(b, Cell::new(7, 7));
    b.wait("O thinking", || {
        (b.attr("#status", "data-thinking").as_deref() == Some("true")).then_some(())
    });
    let t = std::time::Instant::now();
    new_game(b);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert_eq!(count(b, "[data-stone]"), 0);
}

fn an_engine_that_dies_mid_game(b: &Browser, s: &Served) {
    load(b, s);
    choose(b, "#seat-O", "engine:dies");
    new_game(b);
    let mut board = Board::new(Geometry::TIC_TAC_TOE);
    play_x(b, &mut board, Cell::new(1, 1));
    assert_eq!(count(b, "[data-stone=\"O\"]"), 1);
    let free = board.legal_moves().next().unwrap();
    click_cell(b, free);
    // Its second genmove: it exits. The page says so in plain words.
    let alert = b.wait("the engine's failure on the page", || {
        (b.attr("#alert", "hidden").is_none()).then(|| b.text("#alert-text"))
    });
    assert!(
        alert.contains("The engine playing O (dies) stopped") && alert.contains("out of ideas"),
        "{alert}"
    );
    assert_eq!(count(b, "[data-stone=\"O\"]"), 1, "the board is as it was");
    b.wait_status("ongoing O");
    // Try again: a new process, given the game so far, answers.
    b.click_css("#alert-retry");
    b.wait_status("ongoing X");
    assert_eq!(count(b, "[data-stone=\"O\"]"), 2);
    assert!(b.attr("#alert", "hidden").is_some());
}

fn two_tabs_and_a_closed_one(b: &Browser, s: &Served) {
    load(b, s);
    let first_tab = b.window();
    b.click_css(&cell_css(1, 1));
    wait_for_x_or_end(b);
    let first_engine = s.wait_for_engines(1);

    let second_tab = b.new_tab();
    load(b, s);
    b.click_css(&cell_css(3, 3));
    wait_for_x_or_end(b);
    let both = s.wait_for_engines(2);
    let second_engine: Vec<u32> = both
        .iter()
        .copied()
        .filter(|p| !first_engine.contains(p))
        .collect();
    assert_eq!(second_engine.len(), 1, "each tab has its own engine");
    let has = |b: &Browser, r, c| {
        stones(b)
            .iter()
            .any(|s| (s.0, s.1, s.2.as_str()) == (r, c, "X"))
    };
    // Each tab shows its own board. Waited for, not read once: the new tab
    // has read no stones at all just after its move (3 runs in 8 here).
    b.wait("the second tab's own board", || {
        (has(b, 3, 3) && !has(b, 1, 1)).then_some(())
    });
    b.switch_to(&first_tab);
    b.wait("the first tab's own board", || {
        (has(b, 1, 1) && !has(b, 3, 3)).then_some(())
    });

    // Closing the second tab kills its engine, and only its engine.
    b.switch_to(&second_tab);
    b.close_tab();
    b.switch_to(&first_tab);
    wait_gone(&second_engine, PATIENCE);
    assert!(is_alive(first_engine[0]));
    // The first tab plays on.
    let free = (1..=3)
        .flat_map(|r| (1..=3).map(move |c| (r, c)))
        .find(|&(r, c)| !stones(b).iter().any(|s| (s.0, s.1) == (r, c)))
        .unwrap();
    let before = count(b, "[data-stone]");
    b.click_css(&cell_css(free.0, free.1));
    b.wait("the first tab's reply", || {
        let n = count(b, "[data-stone]");
        (n >= before + 2
            || b.attr("#status", "data-status")
                .is_some_and(|s| !s.starts_with("ongoing")))
        .then_some(())
    });
}

/// The elements of `css` that can't be brought into the viewport and hit
/// there (scrolled into view, the element at their centre is not them):
/// what a person can't see or tap.
fn unreachable(b: &Browser, css: &str) -> Vec<String> {
    let v = b.script(
        "const out = []; \
         for (const e of document.querySelectorAll(arguments[0])) { \
           e.scrollIntoView({block: 'center', inline: 'center'}); \
           const r = e.getBoundingClientRect(); \
           const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); \
           const inside = r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight; \
           if (!inside || !hit || !(hit === e || e.contains(hit))) \
             out.push(`${e.className} ${e.dataset.row ?? ''},${e.dataset.col ?? ''} '${e.textContent}' at ${Math.round(r.left)},${Math.round(r.top)}`); \
         } \
         return out;",
        json!([css]),
    );
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect()
}

/// Whether the element of `css` is shown at all (not `display: none`).
fn displayed(b: &Browser, css: &str) -> bool {
    b.script(
        "return getComputedStyle(document.querySelector(arguments[0])).display !== 'none';",
        json!([css]),
    ) == json!(true)
}

/// A 390-pixel touch screen: boards wider than it scroll, every cell and
/// every row and column number can be reached and tapped, whose turn it is
/// stays in view when the move list is scrolled to, and the keyboard hint
/// is not shown.
#[test]
fn the_page_on_a_phone() {
    let Some(b) = Browser::start_phone(390, 844) else {
        return;
    };
    let s = Served::start(&[]);
    load(&b, &s);
    assert!(
        !displayed(&b, ".keys"),
        "no keyboard hint on a touch screen"
    );
    for (rows, cols) in [(15, 15), (32, 32)] {
        if rows == 15 {
            choose(&b, "#preset", "15x15k5");
        } else {
            choose(&b, "#preset", "custom");
            set_number(&b, "#rows", rows);
            set_number(&b, "#cols", cols);
            set_number(&b, "#k", 5);
        }
        set_number(&b, "#time-O", 50);
        new_game(&b);
        assert_eq!(count(&b, ".cell"), (rows * cols) as usize);
        let wide = b.script(
            "const w = document.querySelector('#board-wrap'); return w.scrollWidth > w.clientWidth;",
            json!([]),
        );
        assert_eq!(wide, json!(true), "{rows}x{cols} is wider than the phone");
        let missed = unreachable(&b, ".cell, .head");
        assert!(
            missed.is_empty(),
            "{rows}x{cols}: {} cells or numbers out of reach, e.g. {:?}",
            missed.len(),
            &missed[..missed.len().min(5)]
        );
        // A tap on the far corner, where a cut-off board begins (the page
        // back at its top, as a person would scroll it).
        b.script("window.scrollTo(0, 0);", json!([]));
        b.click_css(&cell_css(1, 1));
        b.wait("X on 1 1", || {
            (count(&b, &format!("{} [data-stone=\"X\"]", cell_css(1, 1))) == 1).then_some(())
        });
        wait_for_x_or_end(&b);
        // Down to the move list: the status is still in view.
        b.script(
            "document.querySelector('#moves').scrollIntoView({block: 'end'});",
            json!([]),
        );
        let scrolled = b.script("return window.scrollY;", json!([]));
        assert!(scrolled.as_f64().unwrap() > 0.0, "the page scrolled");
        let status = b.script(
            "const e = document.querySelector('#status'); const r = e.getBoundingClientRect(); \
             const hit = document.elementFromPoint(r.left + 5, r.top + r.height / 2); \
             return [r.top, r.bottom, innerHeight, !!hit && (hit === e || e.contains(hit))];",
            json!([]),
        );
        let top = status[0].as_f64().unwrap();
        let bottom = status[1].as_f64().unwrap();
        assert!(
            top >= 0.0 && bottom <= status[2].as_f64().unwrap() && status[3] == json!(true),
            "the status is out of view when the moves are: {status} (scrolled {scrolled})"
        );
        b.script("window.scrollTo(0, 0);", json!([]));
    }
}

/// `referee --serve`: the page follows a run live, boards and all, to its
/// final tallies.
#[test]
fn the_watch_page_of_a_running_tournament() {
    let Some(b) = Browser::start(1280, 900) else {
        return;
    };
    let scratch = referee_common::Scratch::new("watch-browser");
    // A seed above 2^53, which JavaScript would round as a JSON number.
    let seed = "9007199254740993";
    let mut args = referee_common::slow_watched_run();
    let at = args.iter().position(|a| a == "--seed").unwrap();
    args[at + 1] = seed.into();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let w = referee_common::start_watched(&scratch, &args);
    b.goto(&w.url);
    b.wait("the run's head", || {
        let head = b.text("#head");
        (!head.is_empty()).then_some(())
    });
    let head = b.text("#head");
    assert!(head.contains(&format!(" · seed {seed} · ")), "{head:?}");
    // Boards of games in progress, with their stones.
    b.wait("a board with stones", || {
        (count(&b, ".game[data-game] .cell [data-stone]") > 0).then_some(())
    });
    assert_eq!(count(&b, ".game[data-game] .cell"), 49 * count(&b, ".game"));
    assert!(count(&b, ".game") <= 2, "two games at once at most");
    b.wait("the run's end", || {
        (b.attr("#status", "data-run-state").as_deref() == Some("finished")).then_some(())
    });
    let (status, run, _) = w.finish(&scratch);
    assert!(status.success());
    assert_eq!(b.attr("#progress-text", "data-done").as_deref(), Some("6"));
    assert_eq!(count(&b, ".game"), 0, "no game in progress at the end");
    let summary = run.summary.unwrap();
    let p = &summary["pairings"][0];
    let row = b.text("#pairings [data-pairing=\"a vs b\"]");
    let expected = format!(
        "a vs b\t6\t{}\t{}\t{}",
        p["a_wins"], p["draws"], p["b_wins"]
    );
    assert!(row.starts_with(&expected), "{row:?} vs {expected:?}");
    assert_eq!(count(&b, "#recent li"), 6);
    assert_eq!(b.text("#connection"), "the run has ended");
}

/// Writes the screenshots in docs/img/ (run by scripts/web-figures.sh).
#[test]
#[ignore = "writes docs/img/*.png; run scripts/web-figures.sh"]
fn screenshots() {
    let Some(b) = Browser::start(1200, 760) else {
        panic!("screenshots need chromium and chromedriver");
    };
    let s = Served::start(&[]);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img");
    std::fs::create_dir_all(&dir).unwrap();
    let save = |name: &str| {
        // Let the last frame settle (hover styles, the thinking spinner).
        std::thread::sleep(Duration::from_millis(300));
        std::fs::write(dir.join(name), b.screenshot()).unwrap();
    };

    // Tic-tac-toe between two people, won on the diagonal.
    load(&b, &s);
    choose(&b, "#seat-O", "human");
    new_game(&b);
    for (r, c) in [(2, 2), (1, 2), (1, 1), (3, 3), (1, 3), (3, 2), (3, 1)] {
        b.click_css(&cell_css(r, c));
    }
    b.wait_status("win X 1 3 2 2 3 1");
    save("web-tictactoe.png");

    // Two bots on 16x16, paused after a while.
    b.resize(1440, 900);
    load(&b, &s);
    choose(&b, "#preset", "16x16k5");
    choose(&b, "#seat-X", "bot:minimax");
    set_number(&b, "#time-X", 20);
    set_number(&b, "#time-O", 20);
    b.script(
        "const p = document.querySelector('#pace'); p.value = 0; p.dispatchEvent(new Event('input'));",
        json!([]),
    );
    b.click_css("#new-game");
    // To its end: a win, with its line, or a full board.
    b.wait("the bots' game to end", || {
        let status = b.attr("#status", "data-status")?;
        (!status.is_empty() && !status.starts_with("ongoing")).then_some(())
    });
    save("web-gomoku.png");

    // A phone: 15x15 against minimax.
    b.resize(390, 844);
    load(&b, &s);
    choose(&b, "#preset", "15x15k5");
    set_number(&b, "#time-O", 100);
    new_game(&b);
    let mut board = Board::new(Geometry::new(15, 15, 5, kinrow::rules::Rule::Free).unwrap());
    for (r, c) in [(8, 8), (7, 9), (9, 7), (6, 8)] {
        let cell = Cell::new(r - 1, c - 1);
        if board.stone_at(cell).is_some() {
            continue;
        }
        play_x(&b, &mut board, cell);
    }
    save("web-phone.png");
}

/// The referee's watch page mid-run, in docs/img/ (run by
/// scripts/web-figures.sh).
#[test]
#[ignore = "writes docs/img/referee-watch.png; run scripts/web-figures.sh"]
fn watch_screenshot() {
    let Some(b) = Browser::start(1440, 1000) else {
        panic!("screenshots need chromium and chromedriver");
    };
    // Three bots on 15x15, three games at once.
    let scratch = referee_common::Scratch::new("watch-shot");
    let w = referee_common::start_watched(
        &scratch,
        &[
            "--bots",
            "minimax,mcts,blocking",
            "--board",
            "15x15",
            "--movetime",
            "100",
            "--games",
            "4",
            "--concurrency",
            "3",
            "--seed",
            "2",
        ],
    );
    b.goto(&w.url);
    b.wait("games in progress after some results", || {
        let done: u64 = b.attr("#progress-text", "data-done")?.parse().ok()?;
        (done >= 3 && count(&b, ".game") >= 2 && count(&b, ".game [data-stone]") > 20).then_some(())
    });
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/img/referee-watch.png");
    std::fs::write(path, b.screenshot()).unwrap();
    drop(w);
}

/// Time from a click on the page to the bot's stone in the page (printed;
/// run by scripts/web-figures.sh).
#[test]
#[ignore = "a benchmark; run scripts/web-figures.sh"]
fn click_to_stone_latency() {
    let Some(b) = Browser::start(1280, 900) else {
        panic!("the latency figures need chromium and chromedriver");
    };
    let s = Served::start(&[]);
    // Clicks in the page (a dispatched click event), timed to the moment the
    // bot's stone is in the document and to the next frame after it.
    let measure = "const [r, c, done] = arguments; \
        const before = document.querySelectorAll('[data-stone=\"O\"]').length; \
        const cell = document.querySelector(`.cell[data-row=\"${r}\"][data-col=\"${c}\"]`); \
        const t0 = performance.now(); \
        const obs = new MutationObserver(() => { \
          if (document.querySelectorAll('[data-stone=\"O\"]').length > before) { \
            obs.disconnect(); const inDom = performance.now() - t0; \
            requestAnimationFrame(() => done([inDom, performance.now() - t0])); } }); \
        obs.observe(document.querySelector('#board-wrap'), {subtree: true, childList: true}); \
        cell.dispatchEvent(new MouseEvent('click', {bubbles: true}));";
    for (label, preset, movetime, samples) in [
        ("3x3, minimax", "3x3k3", 100, 30),
        ("15x15, minimax at 100 ms", "15x15k5", 100, 20),
    ] {
        load(&b, &s);
        choose(&b, "#preset", preset);
        set_number(&b, "#time-O", movetime);
        new_game(&b);
        let geometry = match preset {
            "3x3k3" => Geometry::TIC_TAC_TOE,
            _ => Geometry::new(15, 15, 5, kinrow::rules::Rule::Free).unwrap(),
        };
        let mut board = Board::new(geometry);
        let mut me = BotKind::Random.build(3);
        let (mut dom, mut frame) = (Vec::new(), Vec::new());
        while dom.len() < samples {
            if board.is_over() || board.ply() + 2 > geometry.area() {
                new_game(&b);
                board = Board::new(geometry);
            }
            let cell = me.choose(&board, Limits::starting_now(Duration::from_millis(1)));
            board.try_play(cell).unwrap();
            let t = b.script_async(measure, json!([cell.row + 1, cell.col + 1]));
            dom.push(t[0].as_f64().unwrap());
            frame.push(t[1].as_f64().unwrap());
            wait_for_x_or_end(&b);
            take_o_moves(&b, &mut board);
        }
        let stats = |v: &mut Vec<f64>| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            (v[v.len() / 2], v[v.len() * 9 / 10], v[v.len() - 1])
        };
        let (d50, d90, dmax) = stats(&mut dom);
        let (f50, f90, fmax) = stats(&mut frame);
        println!(
            "{label}: click to stone in the page: median {d50:.1} ms, p90 {d90:.1} ms, max {dmax:.1} ms; \
             to the next frame: median {f50:.1} ms, p90 {f90:.1} ms, max {fmax:.1} ms ({samples} clicks)"
        );
    }
}
