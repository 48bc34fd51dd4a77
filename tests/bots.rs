//! The simple bots checked on every reachable tic-tac-toe position.

mod common;

use kinrow::bots::{BotKind, Limits};
use kinrow::rules::{Board, Cell, Geometry, Player, Rule};
use std::collections::HashSet;
use std::time::Duration;

fn wins(board: &Board, cell: Cell, who: Player) -> bool {
    board.wins_through(board.square(cell), who)
}

fn limits() -> Limits {
    Limits::starting_now(Duration::from_millis(1000))
}

#[test]
fn blocking_wins_when_it_can_and_otherwise_blocks() {
    for geo in [
        Geometry::TIC_TAC_TOE,
        Geometry::new(3, 4, 3, Rule::Free).unwrap(),
    ] {
        let positions = common::ongoing_positions(geo);
        assert!(positions.len() > 4000);
        for seed in 0..3 {
            let mut bot = BotKind::Blocking.build(seed);
            for pos in &positions {
                let me = pos.to_move();
                let legal: Vec<Cell> = pos.legal_moves().collect();
                let choice = bot.choose(pos, limits());
                assert!(legal.contains(&choice), "{pos}\nillegal {choice}");
                let can_win = legal.iter().any(|&c| wins(pos, c, me));
                let must_block = legal.iter().any(|&c| wins(pos, c, me.other()));
                if can_win {
                    assert!(
                        wins(pos, choice, me),
                        "missed a win:\n{pos}\nplayed {choice}"
                    );
                } else if must_block {
                    assert!(
                        wins(pos, choice, me.other()),
                        "missed a block:\n{pos}\nplayed {choice}"
                    );
                }
            }
        }
    }
}

#[test]
fn blocking_takes_the_centre_then_a_corner() {
    let mut bot = BotKind::Blocking.build(1);
    let mut b = Board::new(Geometry::TIC_TAC_TOE);
    assert_eq!(bot.choose(&b, limits()), Cell::new(1, 1));
    b.try_play(Cell::new(1, 1)).unwrap();
    let reply = bot.choose(&b, limits());
    assert!(reply.row != 1 && reply.col != 1, "a corner, got {reply}");
}

#[test]
fn random_is_legal_and_covers_every_cell() {
    let mut bot = BotKind::Random.build(9);
    let mut b = Board::new(Geometry::new(4, 4, 4, Rule::Free).unwrap());
    b.try_play(Cell::new(0, 0)).unwrap();
    let mut seen = HashSet::new();
    for _ in 0..2000 {
        let c = bot.choose(&b, limits());
        assert!(b.stone_at(c).is_none() && b.contains(c));
        seen.insert(c);
    }
    assert_eq!(seen.len(), 15, "every empty cell comes up");
}

#[test]
fn every_bot_finishes_games_on_odd_shapes() {
    for (r, c, k) in [(1, 1, 1), (1, 5, 5), (5, 1, 3), (2, 7, 4), (6, 6, 5)] {
        for rule in [Rule::Free, Rule::Exact] {
            let geo = Geometry::new(r, c, k, rule).unwrap();
            for kind in BotKind::ALL {
                let mut bot = kind.build(3);
                let mut b = Board::new(geo);
                while !b.is_over() {
                    let m = bot.choose(&b, Limits::starting_now(Duration::from_millis(50)));
                    b.try_play(m)
                        .unwrap_or_else(|e| panic!("{kind} on {geo}: {e}"));
                }
            }
        }
    }
}
