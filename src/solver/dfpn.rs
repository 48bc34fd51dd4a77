//! Depth-first proof-number search (df-pn, Nagai 2002) for one yes/no
//! question: does the attacker win?
//!
//! Alpha-beta decides a question by trying moves in order and proving each
//! one it tries; when its first try at a node is wrong, the whole subtree of
//! that try is proved before the next is looked at. Df-pn instead keeps,
//! for every open node, a proof number and a disproof number (how many
//! leaves at least must still be settled to prove it, or to disprove it) and
//! always works on the child that looks cheapest to settle, switching as
//! soon as a sibling looks cheaper. It finds the small proofs: the quick
//! refutation among the defender's replies, the winning move among the
//! attacker's.
//!
//! Numbers are kept per node from the side to move's point of view (the
//! phi/delta form): `phi` for proving that the mover gets what it wants
//! (the attacker a win, the defender to stop it), `delta` for proving it
//! does not. Settled nodes go into the solver's table as bounds with their
//! relevance zones, exactly as `negamax` leaves them, and the same zones
//! settle siblings without a search: a move outside the zone of a failed
//! move fails too.

use super::search::{Child, Facts, Search, ALL};
use super::table::PN_INF;

/// What a call found: the node's numbers (0 and infinity when settled) and,
/// when settled, its zone.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub phi: u32,
    pub delta: u32,
    pub zone: u64,
}

impl Found {
    fn open(phi: u32, delta: u32) -> Found {
        Found {
            phi,
            delta,
            zone: ALL,
        }
    }

    /// The mover gets what it wants.
    fn success(zone: u64) -> Found {
        Found {
            phi: 0,
            delta: PN_INF,
            zone,
        }
    }

    /// The mover does not.
    fn failure(zone: u64) -> Found {
        Found {
            phi: PN_INF,
            delta: 0,
            zone,
        }
    }

    fn settled(&self) -> bool {
        self.phi == 0 || self.delta == 0
    }
}

/// A second-best child's number a little inflated (the "1 + epsilon" trick,
/// Pawlewicz and Lew 2007), so that the search stays longer in a subtree
/// rather than thrashing between two siblings of close cost.
fn widen(n: u32) -> u32 {
    n.saturating_add(n / 4).saturating_add(1).min(PN_INF)
}

/// A key for the proof numbers of a position under one question.
fn pn_key(key: u64, att: usize) -> u64 {
    if att == 0 {
        key
    } else {
        key ^ 0x9e37_79b9_7f4a_7c15
    }
}

impl Search<'_> {
    /// Whether `att` wins from the current position, by df-pn: `Some(true)`
    /// or `Some(false)` when settled, `None` when stopped. The result is in
    /// the table; a winning (or holding) root move in `root_best`.
    pub fn prove(&mut self, att: usize) -> Option<bool> {
        let (key, _) = self.pos.canonical(self.shape.symmetries);
        let fresh = self.table.probe_pn(pn_key(key, att)).is_none();
        let found = self.mid(att, PN_INF - 1, PN_INF - 1, 0, fresh);
        if self.stopped || !found.settled() {
            return None;
        }
        let mover_succeeds = found.phi == 0;
        Some(mover_succeeds == (self.pos.to_move == att))
    }

    /// What the rules, the static bounds, the table or a pairing strategy
    /// settle at once, as a result for the mover.
    ///
    /// At the root (`ply` 0) only the rules settle it, with a move: the
    /// rest is left to its children, so that a settled root has a best move.
    fn settle(&mut self, att: usize, f: &Facts, fresh: bool, ply: usize) -> Option<Found> {
        let me = self.pos.to_move;
        let zones = self.zones;
        let z = |zone: u64| if zones { zone } else { ALL };
        if f.win[me] != 0 {
            let w = f.win[me] & f.win[me].wrapping_neg();
            if ply == 0 {
                self.root_best = Some(w.trailing_zeros() as usize);
            }
            return Some(Found::success(z(self.hit(1 - me, 1, w))));
        }
        let threats = f.win[1 - me];
        if threats.count_ones() >= 2 {
            if ply == 0 {
                self.root_best = Some(threats.trailing_zeros() as usize);
            }
            return Some(Found::failure(z(self.hit(me, 2, threats))));
        }
        if ply == 0 {
            return None;
        }
        let left = self.pos.empty(self.shape).count_ones();
        if !self.can_win(f, att, left) {
            let zone = z(f.live[att]);
            return Some(if att == me {
                Found::failure(zone)
            } else {
                Found::success(zone)
            });
        }
        let (key, sym) = self.pos.canonical(self.shape.symmetries);
        if let Some(k) = self.table.probe(key) {
            let back = |s: &Self, zone: u64| z(s.map_zone(zone, sym, true));
            if att == me {
                if k.lo >= 1 {
                    return Some(Found::success(back(self, k.zone[1])));
                }
                if k.hi <= 0 {
                    return Some(Found::failure(back(self, k.zone[0])));
                }
            } else {
                if k.hi <= -1 {
                    return Some(Found::failure(back(self, k.zone[0])));
                }
                if k.lo >= 0 {
                    return Some(Found::success(back(self, k.zone[1])));
                }
            }
        }
        // A pairing strategy is looked for on the first visit only, against
        // the mover (as in `negamax`; found a ply later otherwise).
        if att == me && threats == 0 && fresh {
            if let Some(pairs) = self.pairing(att) {
                let zone = z(pairs);
                let found = if att == me {
                    Found::failure(zone)
                } else {
                    Found::success(zone)
                };
                self.record(att, &found, None, 0);
                return Some(found);
            }
        }
        None
    }

    /// Puts a settled result into the table, as bounds for the mover.
    fn record(&mut self, att: usize, found: &Found, best: Option<usize>, work: u32) {
        let me = self.pos.to_move;
        let (key, sym) = self.pos.canonical(self.shape.symmetries);
        let z = found.zone & self.pos.empty(self.shape);
        let succeeds = found.phi == 0;
        let (lo, hi, zones) = match (att == me, succeeds) {
            (true, true) => (1, 1, [ALL, z]),
            (true, false) => (-1, 0, [z, ALL]),
            (false, true) => (0, 1, [ALL, z]),
            (false, false) => (-1, -1, [z, ALL]),
        };
        let best = best.map(|c| self.shape.image(sym, c) as u8);
        self.store(key, sym, lo, hi, best, work, zones);
    }

    /// One df-pn call: works below the current position until it is settled
    /// or its numbers reach the thresholds.
    /// `fresh`: the node has no proof numbers in the table (a first visit).
    fn mid(&mut self, att: usize, th_phi: u32, th_delta: u32, ply: usize, fresh: bool) -> Found {
        if self.tick() {
            return Found::open(1, 1);
        }
        let me = self.pos.to_move;
        let f = self.facts();
        if let Some(found) = self.settle(att, &f, fresh, ply) {
            return found;
        }
        let nodes_in = self.nodes;
        let threats = f.win[1 - me];
        let empty = self.pos.empty(self.shape);

        // The children, best-looking first.
        let mut order = std::mem::take(&mut self.lists[ply]);
        let first = self.table_move();
        self.generate(&mut order, &f, first);
        let mut children = std::mem::take(&mut self.children[ply]);
        children.clear();
        // The children's keys first, touching their buckets so that the
        // memory loads overlap, then their numbers.
        let mut keys = std::mem::take(&mut self.keys[ply]);
        keys.clear();
        let mut touched = 0u64;
        for &(cell, _) in order.iter() {
            self.pos.play(self.shape, cell);
            let key = pn_key(self.pos.canonical(self.shape.symmetries).0, att);
            self.pos.undo(self.shape, cell);
            touched ^= self.table.touch_pn(key);
            keys.push(key);
        }
        std::hint::black_box(touched);
        for (&(cell, _), &key) in order.iter().zip(keys.iter()) {
            let known = self.table.probe_pn(key);
            let (phi, delta) = known.unwrap_or((1, 1));
            children.push(Child {
                cell,
                fresh: known.is_none(),
                phi,
                delta,
                zone: ALL,
            });
        }
        self.keys[ply] = keys;
        self.lists[ply] = order;

        // Moves that failed: the union of their zones, and the moves outside
        // one of them (failing too, without a search).
        let mut failed_zone = 0u64;
        let mut outside = 0u64;
        let result = loop {
            let mut phi = PN_INF;
            let mut delta = 0u32;
            let mut best = None;
            let mut second = PN_INF;
            let mut success = None;
            let mut open = 0;
            for (i, c) in children.iter().enumerate() {
                if c.delta == 0 {
                    success = Some(i);
                    break;
                }
                if c.phi == 0 || outside >> c.cell & 1 == 1 {
                    continue;
                }
                open += 1;
                delta = delta.saturating_add(c.phi).min(PN_INF);
                if c.delta < phi {
                    second = phi;
                    phi = c.delta;
                    best = Some(i);
                } else if c.delta < second {
                    second = c.delta;
                }
            }
            if let Some(i) = success {
                let c = children[i];
                let found = Found::success(if self.zones {
                    c.zone | 1 << c.cell
                } else {
                    ALL
                });
                if ply == 0 {
                    self.root_best = Some(c.cell);
                }
                let work = 64 - (self.nodes - nodes_in).leading_zeros();
                self.record(att, &found, Some(c.cell), work);
                break found;
            }
            if open == 0 {
                // Under a forced block, the other moves lose at once: stones
                // outside the zone must not give the mover a win instead.
                let zone = if !self.zones {
                    ALL
                } else if threats != 0 {
                    self.hit(me, 2, failed_zone | threats)
                } else {
                    failed_zone
                };
                let found = Found::failure(zone);
                let work = 64 - (self.nodes - nodes_in).leading_zeros();
                self.record(att, &found, None, work);
                break found;
            }
            if phi >= th_phi || delta >= th_delta {
                let work = 64 - (self.nodes - nodes_in).leading_zeros();
                let (key, _) = self.pos.canonical(self.shape.symmetries);
                self.table.store_pn(pn_key(key, att), phi, delta, work);
                break Found::open(phi, delta);
            }
            let i = best.expect("an open child");
            let c = children[i];
            let child_th_phi = th_delta - (delta - c.phi);
            let child_th_delta = th_phi.min(widen(second));
            self.pos.play(self.shape, c.cell);
            let got = self.mid(att, child_th_phi, child_th_delta, ply + 1, c.fresh);
            self.pos.undo(self.shape, c.cell);
            if self.stopped {
                break Found::open(phi, delta);
            }
            let child = &mut children[i];
            child.fresh = false;
            child.phi = got.phi;
            child.delta = got.delta;
            child.zone = got.zone;
            if got.phi == 0 && self.zones {
                // The child's mover gets what it wants: this move failed.
                failed_zone |= got.zone;
                outside |= empty & !got.zone;
            }
        };
        self.children[ply] = children;
        result
    }

    /// The table's best move for the current position, if any.
    fn table_move(&self) -> Option<usize> {
        let (key, sym) = self.pos.canonical(self.shape.symmetries);
        self.table
            .probe(key)
            .and_then(|k| k.best)
            .map(|b| self.shape.preimage(sym, b as usize))
    }
}
