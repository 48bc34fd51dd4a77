//! The distance to a win: a depth-bounded AND/OR search (`within`) whose
//! bound grows two plies at a time (`distance`), with what failed kept in
//! the table by zone.

use super::{Search, ZoneTally, ALL};
use crate::solver::table::Known;

impl Search<'_> {
    /// Whether player `att` can win with their winning stone placed within
    /// `d` plies from now, against any defence.
    pub fn within(&mut self, att: usize, d: u32) -> bool {
        self.zone = ALL;
        if self.tick() {
            return false;
        }
        let me = self.pos.to_move;
        let def = 1 - att;
        let f = self.facts();
        let att_moves = me == att;
        let need = f.need[att].min(64);
        let zones = self.zones;
        let z = |zone: u64| if zones { zone } else { ALL };
        // Stones `att` would need on top of the zone's empty cells of each
        // of their windows for the bound on `need` to fail: the attacker
        // places a stone every other ply.
        let room = |d: u32| {
            if att_moves {
                d.div_ceil(2) + 1
            } else {
                d / 2 + 1
            }
        };
        if att_moves {
            if f.win[att] != 0 {
                let w = f.win[att] & f.win[att].wrapping_neg();
                self.zone = if d >= 1 { z(self.hit(def, 1, w)) } else { ALL };
                return d >= 1;
            }
            if f.win[def].count_ones() >= 2 {
                self.zone = z(self.hit(att, 2, f.win[def]));
                return false;
            }
            if 2 * need - 1 > d {
                self.zone = z(self.hit(att, room(d), 0));
                return false;
            }
        } else {
            if f.win[def] != 0 {
                let w = f.win[def] & f.win[def].wrapping_neg();
                self.zone = z(self.hit(att, 1, w));
                return false;
            }
            if 2 * need > d {
                self.zone = z(self.hit(att, room(d), 0));
                return false;
            }
            if f.win[att].count_ones() >= 2 {
                self.zone = z(self.hit(def, 2, f.win[att]));
                return true;
            }
        }
        let empty = self.pos.empty(self.shape);
        let (key, sym) = self.pos.canonical(self.shape.symmetries);
        let side = usize::from(!att_moves);
        let known = self.table.probe(key).unwrap_or(Known::NOTHING);
        let (fail, win) = known.dist[side];
        let back = |s: &Self, zone: u64| z(s.map_zone(zone, sym, true) & empty);
        let pruned = if att_moves && known.hi <= 0 {
            Some((false, known.zone[0]))
        } else if !att_moves && known.lo >= 0 {
            Some((false, known.zone[1]))
        } else if d <= u32::from(fail) {
            Some((false, known.dist_zone(side)[0]))
        } else if d >= u32::from(win) {
            Some((true, known.dist_zone(side)[1]))
        } else {
            None
        };
        if let Some((result, zone)) = pruned {
            self.zone = back(self, zone);
            return result;
        }
        let tt_move = known.best.map(|b| self.shape.preimage(sym, b as usize));
        let ply =
            self.pos.stones[0].count_ones() as usize + self.pos.stones[1].count_ones() as usize;
        let ply = ply.min(self.lists.len() - 1);
        let mut moves = std::mem::take(&mut self.lists[ply]);
        self.generate(&mut moves, &f, tt_move);
        // As in `negamax`: the mover's failed moves settle others unsearched.
        let mut result = !att_moves;
        let mut tally = ZoneTally::NEW;
        for &(c, _) in moves.iter() {
            if tally.settled(c) {
                continue;
            }
            self.pos.play(self.shape, c);
            let r = self.within(att, d - 1);
            let child_zone = self.zone;
            self.pos.undo(self.shape, c);
            if self.stopped {
                break;
            }
            if r == att_moves {
                result = r;
                tally.cut_by(c, child_zone);
                break;
            }
            if zones {
                tally.refute(child_zone, empty);
            }
        }
        self.lists[ply] = moves;
        if self.stopped {
            self.zone = ALL;
            return false;
        }
        let threats = f.win[1 - me];
        let zone = if !zones {
            ALL
        } else if result == att_moves {
            tally.cut
        } else {
            self.failed_zone(me, threats, tally.refuted)
        };
        self.zone = zone;
        let zone = self.map_zone(zone & empty, sym, false);
        let mut k = self.table.probe(key).unwrap_or(Known::NOTHING);
        let mut dz = k.dist_zone(side);
        let (fail, win) = &mut k.dist[side];
        let d8 = d.min(254) as u8;
        if result {
            if d8 < *win || (d8 == *win && zone.count_ones() < dz[1].count_ones()) {
                *win = d8;
                dz[1] = zone;
            }
            // A win within d is a win: the same zone backs it.
            if att_moves {
                if k.lo < 1 || zone.count_ones() < k.zone[1].count_ones() {
                    k.zone[1] = zone;
                }
                k.lo = 1;
                k.hi = 1;
            } else {
                if k.hi > -1 || zone.count_ones() < k.zone[0].count_ones() {
                    k.zone[0] = zone;
                }
                k.lo = -1;
                k.hi = -1;
            }
        } else if d8 > *fail || (d8 == *fail && zone.count_ones() < dz[0].count_ones()) {
            *fail = d8;
            dz[0] = zone;
        }
        k.set_dist_zone(side, dz);
        self.table.store(key, k, 0);
        result
    }

    /// With the side to move winning (`winner_moves`) or losing, the number
    /// of plies until the winner's winning stone under best play (the winner
    /// hurries, the loser holds out); `None` when stopped.
    pub fn distance(&mut self, winner_moves: bool) -> Option<u32> {
        let att = if winner_moves {
            self.pos.to_move
        } else {
            1 - self.pos.to_move
        };
        let left = self.pos.empty(self.shape).count_ones();
        let mut d = if winner_moves { 1 } else { 2 };
        while d <= left {
            if self.within(att, d) {
                return Some(d);
            }
            if self.stopped {
                return None;
            }
            d += 2;
        }
        None
    }
}
