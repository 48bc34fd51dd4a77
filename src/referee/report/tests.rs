use super::*;
use std::time::Duration;

#[test]
fn rates_mean_something_fast_or_slow() {
    assert_eq!(rate_text(5350, 1.0), "5350 games/s");
    assert_eq!(rate_text(25, 10.0), "2.5 games/s");
    assert_eq!(rate_text(3, 60.0), "3.0 games/min");
    assert_eq!(rate_text(2, 600.0), "5.0 min/game");
    assert_eq!(rate_text(0, 10.0), "no games finished");
}

#[test]
fn rounding_never_shows_a_negative_zero() {
    assert!(round(-0.001, 2).is_sign_positive());
    assert!(round(-0.0, 1).is_sign_positive());
    assert_eq!(round(-1.234, 2), -1.23);
}

fn end(winner: Option<Player>, reason: Reason, fault_by: Option<Player>) -> GameEnd {
    GameEnd {
        winner,
        reason,
        fault_by,
        detail: None,
        moves: vec![],
        move_data: Vec::new(),
        time: [Duration::ZERO; 2],
        peak_memory: [None; 2],
        replace: [false; 2],
    }
}

#[test]
fn tally_counts_colours_pairs_and_faults() {
    let mut t = PairingTally::new(0, 1);
    // Pair 0: a wins as X, then draws as O.
    assert!(!t.add(0, Player::X, &end(Some(Player::X), Reason::Win, None)));
    assert!(t.add(0, Player::O, &end(None, Reason::Draw, None)));
    // Pair 1: b (X) times out, then a (X) crashes.
    t.add(
        1,
        Player::O,
        &end(Some(Player::O), Reason::Timeout, Some(Player::X)),
    );
    t.add(
        1,
        Player::X,
        &end(Some(Player::O), Reason::Crash, Some(Player::X)),
    );
    assert_eq!((t.wdl.wins, t.wdl.draws, t.wdl.losses), (2, 1, 1));
    assert_eq!((t.a_as_x.wins, t.a_as_x.losses), (1, 1));
    assert_eq!((t.a_as_o.wins, t.a_as_o.draws), (1, 1));
    assert_eq!(t.penta.0, [0, 0, 1, 1, 0]);
    assert_eq!(t.faults[0].get(&Reason::Crash), Some(&1));
    assert_eq!(t.faults[1].get(&Reason::Timeout), Some(&1));
    let all = t.fault_counts();
    assert_eq!((all["crash"], all["timeout"]), (1, 1));
}
