//! A proof search for wins by threats on boards of any size, written on the
//! rules alone (it shares nothing with the bots' threat code, which it is
//! there to check).
//!
//! The attacker plays only threats: a stone after which it has a winning
//! cell (a four) or, unless fours only are allowed, a cell that would give
//! it two (a three, or anything else that threatens a win in three plies).
//! The defender plays **every** empty cell, save where the rules leave no
//! choice: with a winning cell of its own it wins; facing two of the
//! attacker's it loses; facing one it must take it. So a win it proves is a
//! win against any defence, within the plies given.

use crate::rules::{splitmix64, Board, Player};
use std::collections::HashMap;

/// What was proved of a position: a win within `won` plies, none within
/// `failed`.
#[derive(Clone, Copy)]
struct Known {
    won: u32,
    failed: u32,
}

/// The proof search, with its memory of positions.
pub struct Checker {
    keys: Vec<[u64; 2]>,
    hash: u64,
    fours_only: bool,
    memo: HashMap<(u64, bool, bool), Known>,
    /// Nodes searched, and where to give up.
    pub nodes: u64,
    limit: u64,
    gave_up: bool,
    /// Per ply of the board: the attacker move that last refuted a defence.
    killers: Vec<usize>,
    /// The cells where each player would win at once, after each move of
    /// the line being searched (the last is the position's): a stone can
    /// only add such cells on its own lines, and take from the other's only
    /// its own cell.
    wins: Vec<[Vec<usize>; 2]>,
}

impl Checker {
    /// A checker for boards shaped like `board`.
    pub fn new(board: &Board) -> Checker {
        let mut state = 0x0074_6163_7469_6373; // "tactics": any fixed seed will do
        let keys = (0..board.square_count())
            .map(|_| [splitmix64(&mut state), splitmix64(&mut state)])
            .collect();
        Checker {
            keys,
            hash: 0,
            fours_only: false,
            memo: HashMap::new(),
            nodes: 0,
            limit: u64::MAX,
            gave_up: false,
            killers: vec![usize::MAX; board.geometry().area() + 2],
            wins: Vec::new(),
        }
    }

    /// Whether the side to move wins with its winning stone within `plies`
    /// plies (its next stone is the first), by threats (fours only if
    /// `fours_only`) against every defence; `None` when `nodes` more nodes
    /// did not settle it.
    pub fn wins_within(
        &mut self,
        board: &Board,
        plies: u32,
        fours_only: bool,
        nodes: u64,
    ) -> Option<bool> {
        let Some(mut b) = self.begin(board, fours_only, nodes) else {
            return Some(false); // the game is over: no one wins any more
        };
        let won = self.attack(&mut b, plies);
        (!self.gave_up).then_some(won)
    }

    /// Whether the side to move loses within `plies` plies: every move of
    /// it lets the other win by threats within the plies left.
    pub fn loses_within(
        &mut self,
        board: &Board,
        plies: u32,
        fours_only: bool,
        nodes: u64,
    ) -> Option<bool> {
        let Some(mut b) = self.begin(board, fours_only, nodes) else {
            return Some(false); // the game is over: no one wins any more
        };
        let lost = self.defend(&mut b, plies);
        (!self.gave_up).then_some(lost)
    }

    /// Sets up a question about `board`: its copy to search, or `None`
    /// when the game is already over.
    fn begin(&mut self, board: &Board, fours_only: bool, nodes: u64) -> Option<Board> {
        if board.is_over() {
            return None;
        }
        let b = board.clone();
        self.hash = b
            .squares()
            .filter_map(|s| b.stone_on(s).map(|p| self.keys[s][p.index()]))
            .fold(0, |h, k| h ^ k);
        self.start(&b, fours_only, nodes);
        Some(b)
    }

    fn start(&mut self, b: &Board, fours_only: bool, nodes: u64) {
        self.fours_only = fours_only;
        self.limit = self.nodes.saturating_add(nodes);
        self.gave_up = false;
        let scan = |p: Player| -> Vec<usize> {
            b.squares()
                .filter(|&s| b.is_empty_square(s) && b.wins_through(s, p))
                .collect()
        };
        self.wins = vec![[scan(Player::X), scan(Player::O)]];
    }

    fn play(&mut self, b: &mut Board, sq: usize) -> bool {
        let p = b.to_move();
        self.hash ^= self.keys[sq][p.index()];
        let over = b.play_unchecked(sq).is_some();
        let last = self.wins.last().expect("started");
        let mut next = last.clone();
        for list in next.iter_mut() {
            list.retain(|&c| c != sq);
        }
        if !over {
            // Under the exact rule the mover's stone can spoil its own
            // cells (an overline): they are asked again.
            next[p.index()].retain(|&c| b.wins_through(c, p));
            for c in along_lines(b, sq) {
                if b.wins_through(c, p) && !next[p.index()].contains(&c) {
                    next[p.index()].push(c);
                }
            }
        }
        self.wins.push(next);
        over
    }

    fn undo(&mut self, b: &mut Board, sq: usize) {
        b.undo();
        self.wins.pop();
        self.hash ^= self.keys[sq][b.to_move().index()];
    }

    /// How many cells (up to 2) would win at once for `p`, and the first.
    fn winning_cells(&self, p: Player) -> (usize, usize) {
        let list = &self.wins.last().expect("started")[p.index()];
        (list.len().min(2), list.first().copied().unwrap_or(0))
    }

    fn count(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.limit {
            self.gave_up = true;
        }
        self.gave_up
    }

    /// The attacker to move: wins within `plies`?
    fn attack(&mut self, b: &mut Board, plies: u32) -> bool {
        if self.count() {
            return false;
        }
        let a = b.to_move();
        if plies >= 1 && self.winning_cells(a).0 > 0 {
            return true;
        }
        if plies < 3 {
            return false;
        }
        let (theirs, block) = self.winning_cells(a.other());
        if theirs >= 2 {
            return false;
        }
        let key = (self.hash, true, self.fours_only);
        if let Some(k) = self.memo.get(&key) {
            if k.won <= plies {
                return true;
            }
            if k.failed >= plies {
                return false;
            }
        }
        let ply = b.ply();
        // The move that refuted the last defence here often refutes this
        // one too: tried before the threats are listed (any move the
        // attacker wins with is a proof, threat or not).
        let killer = self.killers[ply];
        let mut won = false;
        if theirs == 0 && killer != usize::MAX && b.is_empty_square(killer) {
            won = self.attack_with(b, killer, plies);
        }
        if !won && !self.gave_up {
            let mut moves = if theirs == 1 && !self.fours_only {
                // Forced to block: the threats already made may carry on.
                vec![(block, 0)]
            } else {
                threat_moves(b, a, self.fours_only)
            };
            if theirs == 1 {
                // By fours alone, only a block that is itself a four.
                moves.retain(|m| m.0 == block);
            }
            moves.sort_by_key(|m| std::cmp::Reverse(m.1));
            for (m, _) in moves {
                if m == killer && theirs == 0 {
                    continue;
                }
                if self.attack_with(b, m, plies) {
                    won = true;
                    self.killers[ply] = m;
                    break;
                }
                if self.gave_up {
                    break;
                }
            }
        }
        self.remember(key, plies, won)
    }

    /// The attacker plays `m`: does it win within `plies` (`m` the first)?
    fn attack_with(&mut self, b: &mut Board, m: usize, plies: u32) -> bool {
        let r = self.play(b, m) || self.defend(b, plies - 1);
        self.undo(b, m);
        r
    }

    /// The defender to move: does every move lose within `plies`?
    fn defend(&mut self, b: &mut Board, plies: u32) -> bool {
        if self.count() {
            return false;
        }
        let d = b.to_move();
        let a = d.other();
        if plies < 2 || self.winning_cells(d).0 > 0 {
            return false;
        }
        let (wins, block) = self.winning_cells(a);
        if wins >= 2 {
            return true;
        }
        if wins == 1 {
            let r = !self.play(b, block) && self.attack(b, plies - 1);
            self.undo(b, block);
            return r;
        }
        if plies < 4 {
            return false;
        }
        let key = (self.hash, false, self.fours_only);
        if let Some(k) = self.memo.get(&key) {
            if k.won <= plies {
                return true;
            }
            if k.failed >= plies {
                return false;
            }
        }
        // Every empty cell: its own fours and the cells on the lines of
        // the attacker's last stone first (the likeliest to hold, and a
        // hold ends the search).
        let mut moves: Vec<usize> = threat_moves(b, d, true).into_iter().map(|m| m.0).collect();
        if let Some(last) = b.last_move() {
            moves.extend(along_lines(b, b.square(last)));
        }
        let mut seen = vec![false; b.square_count()];
        moves.retain(|&m| !std::mem::replace(&mut seen[m], true));
        let rest: Vec<usize> = b
            .squares()
            .filter(|&s| b.is_empty_square(s) && !seen[s])
            .collect();
        moves.extend(rest);
        let mut lost = true;
        for m in moves {
            let r = !self.play(b, m) && self.attack(b, plies - 1);
            self.undo(b, m);
            if !r || self.gave_up {
                lost = false;
                break;
            }
        }
        self.remember(key, plies, lost)
    }

    /// Keeps a finished question's answer for the position `key` (the
    /// attacker wins within `plies`, or not) and returns it; a search that
    /// gave up proved nothing and keeps nothing.
    fn remember(&mut self, key: (u64, bool, bool), plies: u32, won: bool) -> bool {
        if self.gave_up {
            return false;
        }
        let k = self.memo.entry(key).or_insert(Known {
            won: u32::MAX,
            failed: 0,
        });
        if won {
            k.won = k.won.min(plies);
        } else {
            k.failed = k.failed.max(plies);
        }
        won
    }
}

/// The empty cells within K-1 steps of `square` along its four lines.
fn along_lines(b: &Board, square: usize) -> Vec<usize> {
    (0..4).flat_map(|d| along_line(b, square, d)).collect()
}

/// The empty cells within K-1 steps of `square` along line `d`, up to the
/// board's edge.
fn along_line(b: &Board, square: usize, d: usize) -> Vec<usize> {
    let k = b.geometry().k();
    let step = b.directions()[d];
    let mut out = Vec::new();
    for forward in [true, false] {
        let mut s = square;
        for _ in 1..k {
            let next = if forward {
                s + step
            } else {
                match s.checked_sub(step) {
                    Some(n) => n,
                    None => break,
                }
            };
            if next >= b.square_count() || is_off(b, next) {
                break;
            }
            s = next;
            if b.is_empty_square(s) {
                out.push(s);
            }
        }
    }
    out
}

/// Whether a square of the padded board lies off the board.
fn is_off(b: &Board, s: usize) -> bool {
    !b.is_empty_square(s) && b.stone_on(s).is_none()
}

/// The threats `p` (to move, with no winning cell) can make, ranked: 3 a
/// move after which it has two winning cells, 2 one (a four), 1 none but
/// a cell that would give it two (a three; not with `fours_only`).
pub(super) fn threat_moves(b: &mut Board, p: Player, fours_only: bool) -> Vec<(usize, u32)> {
    debug_assert_eq!(b.to_move(), p);
    let mut seen = vec![false; b.square_count()];
    let mut out = Vec::new();
    let stones: Vec<usize> = b.squares().filter(|&s| b.stone_on(s) == Some(p)).collect();
    for s in stones {
        for m in along_lines(b, s) {
            if std::mem::replace(&mut seen[m], true) {
                continue;
            }
            if b.play_unchecked(m).is_some() {
                b.undo();
                out.push((m, 4));
                continue;
            }
            // New winning cells can only lie on the lines through `m`.
            let wins = along_lines(b, m)
                .into_iter()
                .filter(|&c| b.wins_through(c, p))
                .count();
            let rank = match wins {
                0 if fours_only => 0,
                0 => u32::from(makes_three(b, p, m)),
                1 => 2,
                _ => 3,
            };
            b.undo();
            if rank > 0 {
                out.push((m, rank));
            }
        }
    }
    out
}

/// Whether `p`'s stone just played on `m` makes a three: one more stone
/// of `p` on a line through `m` would give it two winning cells on that
/// line (an open four, or two fours in one line).
fn makes_three(b: &Board, p: Player, m: usize) -> bool {
    (0..4).any(|d| {
        let cells = along_line(b, m, d);
        cells.iter().any(|&e| {
            cells
                .iter()
                .filter(|&&c| c != e && wins_with(b, p, c, e, d))
                .nth(1)
                .is_some()
        })
    })
}

/// Whether `p` wins along line `d` with stones on both `c` and `e` (both
/// empty), the win through `c`.
fn wins_with(b: &Board, p: Player, c: usize, e: usize, d: usize) -> bool {
    let g = b.geometry();
    let exact = g.rule() == crate::rules::Rule::Exact;
    let own = |s: usize| s == e || s == c || b.stone_on(s) == Some(p);
    let step = b.directions()[d];
    let mut run = 1;
    for forward in [true, false] {
        let mut s = c;
        loop {
            let next = if forward {
                s + step
            } else {
                match s.checked_sub(step) {
                    Some(n) => n,
                    None => break,
                }
            };
            if next >= b.square_count() || !own(next) {
                break;
            }
            run += 1;
            s = next;
        }
    }
    run == g.k() || (!exact && run > g.k())
}
