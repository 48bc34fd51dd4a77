//! The search against the rules and the exact solver.

use super::*;
use crate::bots::minimax::Caps;
use crate::rules::{Cell, Geometry, Rule};
use crate::solver::{Budget, Solver, Value};
use rand::rngs::SmallRng;
use rand::Rng;
use std::time::Duration;

fn search<'a>(layout: &'a Layout, table: &'a mut Table, board: &Board) -> ThreatSearch<'a> {
    let g = board.geometry();
    let memory = Memory::new(Lines::new(g.k(), g.rule()));
    let far = Instant::now() + Duration::from_secs(3600);
    ThreatSearch::new(layout, table, board.clone(), memory, far)
}

/// A position of random play near the centre, `plies` long, or `None`
/// when the game ended first.
fn random_position(g: Geometry, plies: usize, rng: &mut SmallRng) -> Option<Board> {
    let mut board = Board::new(g);
    let (rows, cols) = (g.rows(), g.cols());
    while board.ply() < plies {
        let empties: Vec<Cell> = board.legal_moves().collect();
        let c = empties[rng.random_range(0..empties.len())];
        let near = |v: u8, n: usize| (v as usize).abs_diff(n / 2) <= 3;
        if near(c.row, rows) && near(c.col, cols) && board.try_play(c).unwrap().is_some() {
            return None;
        }
    }
    Some(board)
}

/// The cells where `p`, to move on `b`, would make two winning cells.
fn double_threats(b: &mut Board) -> Vec<usize> {
    let p = b.to_move();
    let squares: Vec<usize> = b.squares().filter(|&s| b.is_empty_square(s)).collect();
    let mut out = Vec::new();
    for &a in &squares {
        if b.play_unchecked(a).is_some() {
            b.undo();
            continue;
        }
        let n = squares
            .iter()
            .filter(|&&s| s != a && b.wins_through(s, p))
            .count();
        b.undo();
        if n >= 2 {
            out.push(a);
        }
    }
    out
}

/// Facing a win in three plies, the moves generated are exactly those
/// that do not lose to it at once: every other move lets the other make
/// two winning cells (checked on the rules' board), every generated one
/// is a four or leaves no such cell.
#[test]
fn facing_a_win_in_three_only_the_defences_and_fours_are_generated() {
    let mut rng = crate::bots::seeded_rng(11);
    let mut seen = 0;
    for rule in [Rule::Free, Rule::Exact] {
        let g = Geometry::new(9, 9, 5, rule).unwrap();
        let layout = Layout::new(&Board::new(g));
        let mut table = Table::new(10);
        let mut tries = 0;
        while tries < 4000 && seen < 30 * (1 + rule as usize) {
            tries += 1;
            let plies = rng.random_range(7..24);
            let Some(board) = random_position(g, plies, &mut rng) else {
                continue;
            };
            let mut s = search(&layout, &mut table, &board);
            let (me, opp) = (board.to_move(), board.to_move().other());
            if !s.field.fives(me).is_empty()
                || !s.field.fives(opp).is_empty()
                || s.field.wins3(opp).is_empty()
            {
                continue;
            }
            seen += 1;
            let mut moves = Vec::new();
            assert!(s.generate(&mut moves, 1, None));
            let listed: Vec<usize> = moves.iter().map(|m| m.0).collect();
            let mut b = board.clone();
            for sq in b.squares().collect::<Vec<_>>() {
                if !b.is_empty_square(sq) {
                    continue;
                }
                let cell = b.cell_of(sq);
                let four = s.field.threat(sq, me).flags & FOUR != 0;
                b.play_unchecked(sq);
                let threats = double_threats(&mut b);
                b.undo();
                let shown = format!("{g}, {me} to move, {cell}:\n{board}");
                if listed.contains(&sq) {
                    assert!(four || threats.is_empty(), "kept {shown}");
                } else {
                    assert!(!four && !threats.is_empty(), "dropped {shown}");
                }
            }
        }
    }
    assert!(seen >= 60, "only {seen} positions with a threat");
}

/// Every win VCF and VCT claim on boards the solver takes is a win by
/// the solver, in no fewer plies than the solver's quickest.
#[test]
fn threat_searches_claim_only_wins_the_solver_proves() {
    let mut rng = crate::bots::seeded_rng(12);
    let mut solver = Solver::new(16);
    let mut claims = [0; 2];
    for (rows, cols, k, rule) in [
        (8, 8, 5, Rule::Free),
        (8, 8, 5, Rule::Exact),
        (7, 9, 4, Rule::Free),
        (6, 10, 4, Rule::Exact),
    ] {
        let g = Geometry::new(rows, cols, k, rule).unwrap();
        let layout = Layout::new(&Board::new(g));
        let mut table = Table::new(12);
        for _ in 0..60 {
            let plies = rng.random_range(10..26);
            let Some(board) = random_position(g, plies, &mut rng) else {
                continue;
            };
            let mut s = search(&layout, &mut table, &board);
            if !s.field.fives(board.to_move()).is_empty() {
                continue;
            }
            let vcf = s.vcf_within(20_000);
            let vct = if vcf.is_none() {
                s.vct_root(20_000, Instant::now() + Duration::from_secs(60), u64::MAX)
            } else {
                None
            };
            let Some((first, plies)) = vcf.or(vct) else {
                continue;
            };
            claims[vct.is_some() as usize] += 1;
            // The solver must never disprove a claim (one it cannot
            // settle within its moment is only checked that far).
            let shown = format!("{g}, {} to move:\n{board}", board.to_move());
            let mut solve = |b: &Board| {
                let budget = Budget::until(Instant::now() + Duration::from_millis(300));
                solver.solve(b, budget).unwrap()
            };
            let report = solve(&board);
            assert_eq!(report.bounds.hi, 1, "claimed a win disproved: {shown}");
            let Some(Value::Win(n)) = report.value else {
                continue;
            };
            assert!(plies >= n, "{plies} plies, the solver's {n}: {shown}");
            // The first move keeps the win.
            let mut after = board.clone();
            if after.play_unchecked(first).is_none() {
                let r = solve(&after);
                let shown = format!("{shown}\nafter {}: {r:?}", board.cell_of(first));
                assert_eq!(r.bounds.lo, -1, "{shown}");
            }
        }
    }
    assert!(
        claims[0] >= 20 && claims[1] >= 5,
        "claims (vcf, vct): {claims:?}"
    );
}

/// A win or loss the whole search claims (the main search's proofs
/// included, not only VCF and VCT) is never disproved by the solver:
/// a node is lost only when every move loses, the beam's cut ones too.
#[test]
fn the_search_claims_only_results_the_solver_proves() {
    let mut rng = crate::bots::seeded_rng(21);
    let mut solver = Solver::new(16);
    let mut claims = [0; 2];
    for (rows, cols, k) in [(8, 8, 5), (7, 9, 4), (8, 8, 4)] {
        let g = Geometry::new(rows, cols, k, Rule::Free).unwrap();
        let layout = Layout::new(&Board::new(g));
        for _ in 0..150 {
            let Some(board) = random_position(g, rng.random_range(4..16), &mut rng) else {
                continue;
            };
            let mut table = Table::new(12);
            let mut s = search(&layout, &mut table, &board);
            let caps = Caps {
                depth: Some(rng.random_range(2..7)),
                nodes: Some(30_000),
            };
            let (sq, report) = s.choose(&mut rng, caps, Instant::now());
            let Some(score) = report.score.filter(|&v| is_proven(v)) else {
                continue;
            };
            let shown = format!("{g}, {} to move:\n{board}", board.to_move());
            let budget = || Budget::until(Instant::now() + Duration::from_millis(300));
            if score > 0 {
                claims[0] += 1;
                let mut after = board.clone();
                if after.play_unchecked(sq).is_none() {
                    let r = solver.solve(&after, budget()).unwrap();
                    let cell = board.cell_of(sq);
                    assert_eq!(r.bounds.lo, -1, "claimed a win by {cell}: {shown}");
                }
            } else {
                claims[1] += 1;
                let r = solver.solve(&board, budget()).unwrap();
                assert_eq!(r.bounds.lo, -1, "claimed a loss: {shown}");
            }
        }
    }
    assert!(
        claims[0] >= 40 && claims[1] >= 10,
        "claims (win, loss): {claims:?}"
    );
}

/// A 15x15 position of a game against Carbon, O to move, where the
/// beam once proved a win for O's 3 4 (all of X's first 12 answers
/// lost), and X, after 3 4, proves a win of its own. A claimed win
/// must leave the other no proved win.
#[test]
fn a_move_proved_winning_leaves_the_other_no_proved_win() {
    const STONES: &str = "8 8 6 7 5 5 7 6 5 7 7 7 6 8 7 9 7 8 5 8 8 5 8 7 6 5 7 5 7 4 6 9 8 9 4 7 9 8 10 8 7 10 10 7 9 7 10 6 10 9 4 6 4 9 9 6 8 6 12 6 9 10 9 9 6 11 5 12 10 11 11 12 11 7 12 7 10 5 13 4 11 6";
    let g = Geometry::new(15, 15, 5, Rule::Free).unwrap();
    let layout = Layout::new(&Board::new(g));
    let mut board = Board::new(g);
    let n: Vec<u32> = STONES.split(' ').map(|t| t.parse().unwrap()).collect();
    for rc in n.chunks(2) {
        let cell = Cell::from_one_based(rc[0], rc[1]).unwrap();
        assert_eq!(board.try_play(cell), Ok(None));
    }
    let caps = Caps {
        depth: None,
        nodes: Some(20_000),
    };
    let mut rng = crate::bots::seeded_rng(1);
    let mut claim = |board: &Board| {
        let mut table = Table::new(16);
        let mut s = search(&layout, &mut table, board);
        let (sq, report) = s.choose(&mut rng, caps, Instant::now());
        (sq, report.score.is_some_and(|v| is_proven(v) && v > 0))
    };
    let (sq, won) = claim(&board);
    let mut after = board.clone();
    after.play_unchecked(sq);
    let (reply, refuted) = claim(&after);
    assert!(
        !(won && refuted),
        "{} claims a win by {}, {} one by {}:\n{board}",
        board.to_move(),
        board.cell_of(sq),
        after.to_move(),
        after.cell_of(reply)
    );
}

#[test]
fn what_the_vct_proved_is_kept_for_the_next_move() {
    let mut rng = crate::bots::seeded_rng(5);
    let g = Geometry::new(9, 9, 5, Rule::Free).unwrap();
    let layout = Layout::new(&Board::new(g));
    let mut table = Table::new(12);
    let far = Instant::now() + Duration::from_secs(60);
    let mut kept = 0;
    for _ in 0..300 {
        let Some(board) = random_position(g, rng.random_range(10..24), &mut rng) else {
            continue;
        };
        let mut s = search(&layout, &mut table, &board);
        if !s.field.fives(board.to_move()).is_empty() || s.vcf_within(20_000).is_some() {
            continue;
        }
        let before = s.nodes;
        let Some(win) = s.vct_root(20_000, far, u64::MAX) else {
            continue;
        };
        let first = s.nodes - before;
        if first < 5 * NODE_VCF_NODES {
            continue;
        }
        // The next search of the position, with what this one kept,
        // finds the same win at once (one VCF attempt and the cache).
        let memory = s.into_memory(usize::MAX);
        let mut again = ThreatSearch::new(&layout, &mut table, board.clone(), memory, far);
        assert_eq!(again.vct_root(20_000, far, u64::MAX), Some(win), "{board}");
        assert!(
            again.nodes <= NODE_VCF_NODES + 2,
            "{} of {first}",
            again.nodes
        );
        kept += 1;
    }
    assert!(kept >= 5, "only {kept} positions with a VCT worth keeping");
}

/// The main search reads a threat sequence at a depth of about one ply per
/// threat of the attacker: the defences against a three use no depth, and
/// a carried-on attack's threes are neither pruned nor reduced. Two
/// positions of games against Rapfi (classical) where it proved a win in 13
/// and 15 plies after the bot's move: the search alone (no VCF or VCT at
/// the root) proves each by depth 6; before, it took depth 9.
#[test]
fn the_main_search_reads_threat_sequences_one_ply_a_threat() {
    let g = Geometry::new(15, 15, 5, Rule::Free).unwrap();
    let layout = Layout::new(&Board::new(g));
    for stones in [
        "8 8 10 8 8 12 8 10 6 4 10 10 7 8",
        "8 8 6 12 9 9 9 7 8 9 7 8",
    ] {
        let mut board = Board::new(g);
        let n: Vec<u32> = stones.split(' ').map(|t| t.parse().unwrap()).collect();
        for rc in n.chunks(2) {
            let cell = Cell::from_one_based(rc[0], rc[1]).unwrap();
            assert_eq!(board.try_play(cell), Ok(None));
        }
        let mut table = Table::new(16);
        let mut s = search(&layout, &mut table, &board);
        s.phase(s.hard, 2_000_000);
        let mut scored = Vec::new();
        s.generate(&mut scored, 0, None);
        scored.sort_by_key(|&(_, s)| Reverse(s));
        let moves: Vec<usize> = scored.iter().map(|m| m.0).collect();
        let proved_at = (1..=6).find(|&depth| {
            let (best, complete) = s.search_root(&moves, depth, -INFINITY, INFINITY);
            assert!(complete, "depth {depth} ran out of nodes:\n{board}");
            best.is_some_and(|(_, v)| is_proven(v) && v > 0)
        });
        assert!(proved_at.is_some(), "no win proved by depth 6:\n{board}");
    }
}

/// A search gives the next move its VCT cache while the cache takes no
/// more than the bytes it may keep, and an empty one past them.
#[test]
fn the_vct_cache_is_kept_within_its_bytes() {
    let board = Board::new(Geometry::new(15, 15, 5, Rule::Free).unwrap());
    let layout = Layout::new(&board);
    let mut table = Table::new(10);
    let mut s = search(&layout, &mut table, &board);
    let known = VctKnown {
        won: 0,
        failed: 1,
        win: (0, 0),
    };
    s.vct_cache.extend((0..10_000u64).map(|key| (key, known)));
    let bytes = vct_cache_bytes(s.vct_cache.capacity());
    // At least the entries and their control bytes, at most the map's
    // emptiest fill (7/16, just after it grew).
    let entry = std::mem::size_of::<(u64, VctKnown)>() + 1;
    assert!(
        (10_000 * entry..=10_000 * entry * 16 / 7 + 8 * entry).contains(&bytes),
        "{bytes}"
    );
    let memory = s.into_memory(bytes);
    assert_eq!(memory.vct_cache.len(), 10_000);
    let far = Instant::now() + Duration::from_secs(3600);
    let s = ThreatSearch::new(&layout, &mut table, board.clone(), memory, far);
    assert!(s.into_memory(bytes - 1).vct_cache.is_empty());
}
