//! SGF `FF[4]` records of k-in-a-row games: `GM[4]` (the SGF game number of
//! gomoku and renju), `SZ[N]` or `SZ[COLUMNS:ROWS]`, `B[..]`/`W[..]` moves
//! (black is X, first), `PB`/`PW`, `RE`, and the rule and K in `RU` as
//! kinrow writes them: `RU[k5 free]`, `RU[k5 exact]`, `RU[k5 renju]`, `RU[k5 caro]`.
//!
//! Points are two letters, column then row from the top left, `a`…`z` then
//! `A`…`Z` (boards up to 52). Results: `RE[B+]`/`RE[W+]` a win on the board,
//! `RE[0]` a draw, `RE[B+T]` a win by the other side's timeout and
//! `RE[B+F]` by any other fault (the referee's reason and detail in the
//! root's `C`), no `RE` for a game not finished. A game the referee
//! adjudicated is `RE[B+R]` when the loser's own scores resigned it, else
//! `RE[B+F]` (a proof), the ruling in the root's `C`. A move's time and
//! search, when recorded, are the move's own `C`.
//!
//! [`parse`] checks text against the `FF[4]` grammar (Collection, GameTree,
//! Sequence, Node, Property, PropValue with its escapes; unique properties
//! per node) and returns the tree; [`read`] turns it back into a game.

use super::{Ending, MoveNote, RecordError, RecordedGame};
use crate::rules::{Cell, Geometry, Player, Rule};
use std::fmt::Write as _;

/// One point's letters.
fn letter(n: usize) -> char {
    if n < 26 {
        (b'a' + n as u8) as char
    } else {
        (b'A' + (n - 26) as u8) as char
    }
}

fn index(c: char) -> Option<usize> {
    match c {
        'a'..='z' => Some(c as usize - 'a' as usize),
        'A'..='Z' => Some(c as usize - 'A' as usize + 26),
        _ => None,
    }
}

/// A text value with `]` and `\` escaped.
fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// The `RE` value of an ending (`None`: not finished).
fn result_value(ending: &Ending) -> Option<String> {
    let side = |p: Player| if p == Player::X { 'B' } else { 'W' };
    match ending {
        Ending::Win(p) => Some(format!("{}+", side(*p))),
        Ending::Draw => Some("0".into()),
        // A resignation on the loser's own scores is SGF's `R`; a proof
        // stays `F` (not a win on the board, which `B+` would claim).
        Ending::Forfeit {
            winner,
            reason,
            detail,
        } if reason == "adjudicated" => {
            let resigned = detail.as_deref().is_some_and(|d| d.starts_with("resign:"));
            Some(format!(
                "{}+{}",
                side(*winner),
                if resigned { 'R' } else { 'F' }
            ))
        }
        Ending::Forfeit { winner, reason, .. } => Some(format!(
            "{}+{}",
            side(*winner),
            if reason == "timeout" { 'T' } else { 'F' }
        )),
        Ending::Unfinished => None,
    }
}

/// The game as SGF text.
pub fn write(game: &RecordedGame) -> String {
    let g = game.geometry;
    let mut s = String::from("(;FF[4]GM[4]CA[UTF-8]");
    let _ = write!(s, "AP[kinrow:{}]", env!("CARGO_PKG_VERSION"));
    if g.rows() == g.cols() {
        let _ = write!(s, "SZ[{}]", g.rows());
    } else {
        let _ = write!(s, "SZ[{}:{}]", g.cols(), g.rows());
    }
    let _ = write!(s, "RU[k{} {}]", g.k(), g.rule());
    if let Some(title) = &game.title {
        let _ = write!(s, "GN[{}]", escape(title));
    }
    let _ = write!(s, "PB[{}]PW[{}]", escape(&game.x), escape(&game.o));
    if let Some(re) = result_value(&game.ending) {
        let _ = write!(s, "RE[{re}]");
    }
    let mut notes = Vec::new();
    if game.opening > 0 {
        notes.push(format!(
            "The first {} moves are the opening given to both players.",
            game.opening
        ));
    }
    if let Ending::Forfeit {
        winner,
        reason,
        detail,
    } = &game.ending
    {
        let loser = winner.other();
        let name = if loser == Player::X { &game.x } else { &game.o };
        let mut note = if reason == "adjudicated" {
            format!("Adjudicated: {loser} ({name}) lost")
        } else {
            format!("{loser} ({name}) lost by {reason}")
        };
        if let Some(d) = detail {
            let _ = write!(note, ": {d}");
        }
        notes.push(note + ".");
    }
    if !notes.is_empty() {
        let _ = write!(s, "C[{}]", escape(&notes.join("\n")));
    }
    for (i, cell) in game.moves.iter().enumerate() {
        s.push(if i % 10 == 0 { '\n' } else { ' ' });
        let color = if i % 2 == 0 { 'B' } else { 'W' };
        let _ = write!(
            s,
            ";{color}[{}{}]",
            letter(cell.col as usize),
            letter(cell.row as usize)
        );
        let note = i.checked_sub(game.opening).and_then(|k| game.notes.get(k));
        if let Some(comment) = note.and_then(MoveNote::comment) {
            let _ = write!(s, "C[{}]", escape(&comment));
        }
    }
    s.push_str(")\n");
    s
}

/// A node: its properties in order, each with its values (unescaped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub properties: Vec<(String, Vec<String>)>,
}

impl Node {
    /// The first value of a property.
    pub fn get(&self, id: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(p, _)| p == id)
            .and_then(|(_, v)| v.first())
            .map(String::as_str)
    }
}

/// A game tree: a sequence of nodes and the variations after it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameTree {
    pub nodes: Vec<Node>,
    pub variations: Vec<GameTree>,
}

/// Dropped without recursion: a tree as deep as [`MAX_DEPTH`] dropped level
/// by level overflowed a 256 KiB stack in a release build.
impl Drop for GameTree {
    fn drop(&mut self) {
        let mut below = std::mem::take(&mut self.variations);
        while let Some(mut tree) = below.pop() {
            below.append(&mut tree.variations);
        }
    }
}

/// Text that breaks the grammar, with where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError {
    /// Byte offset of the problem.
    pub at: usize,
    pub what: String,
}

impl std::fmt::Display for SgfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SGF byte {}: {}", self.at, self.what)
    }
}
impl std::error::Error for SgfError {}

/// The deepest nesting of game trees read: more than one variation a move
/// on the largest board (32x32), far more than any editor writes. (Deeper
/// trees are refused: reading and dropping need no recursion, but whoever
/// walks a tree may recurse.)
pub const MAX_DEPTH: usize = 2048;

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn error<T>(&self, what: impl Into<String>) -> Result<T, SgfError> {
        Err(SgfError {
            at: self.at,
            what: what.into(),
        })
    }

    fn skip_space(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.get(self.at).copied()
    }

    fn expect(&mut self, byte: u8) -> Result<(), SgfError> {
        match self.peek() {
            Some(b) if b == byte => {
                self.at += 1;
                Ok(())
            }
            Some(b) => self.error(format!(
                "expected '{}', found '{}'",
                byte as char, b as char
            )),
            None => self.error(format!("expected '{}', found the end", byte as char)),
        }
    }

    /// GameTree = "(" Sequence { GameTree } ")", read with a stack of its
    /// own rather than by recursion: a file of many nested trees must get an
    /// error, not overflow the stack.
    fn game_tree(&mut self) -> Result<GameTree, SgfError> {
        // The trees opened and not yet closed, innermost last.
        let mut open: Vec<GameTree> = Vec::new();
        loop {
            self.expect(b'(')?;
            if open.len() == MAX_DEPTH {
                return self.error(format!("game trees nested deeper than {MAX_DEPTH}"));
            }
            let mut tree = GameTree::default();
            if self.peek() != Some(b';') {
                return self.error("a game tree starts with a node (';')");
            }
            while self.peek() == Some(b';') {
                tree.nodes.push(self.node()?);
            }
            open.push(tree);
            // Close trees until the next one opens (a variation) or the
            // outermost is closed.
            loop {
                if self.peek() == Some(b'(') {
                    break;
                }
                self.expect(b')')?;
                let done = open.pop().expect("a tree is open");
                match open.last_mut() {
                    Some(parent) => parent.variations.push(done),
                    None => return Ok(done),
                }
            }
        }
    }

    /// Node = ";" { Property }; Property = PropIdent PropValue { PropValue }
    fn node(&mut self) -> Result<Node, SgfError> {
        self.expect(b';')?;
        let mut node = Node::default();
        // The property names seen, so a repeat is found in linear time.
        let mut seen = std::collections::HashSet::new();
        while matches!(self.peek(), Some(b'A'..=b'Z')) {
            let start = self.at;
            while matches!(self.text.get(self.at), Some(b'A'..=b'Z')) {
                self.at += 1;
            }
            let id = String::from_utf8_lossy(&self.text[start..self.at]).into_owned();
            if !seen.insert(id.clone()) {
                self.at = start;
                return self.error(format!("property {id} twice in one node"));
            }
            if self.peek() != Some(b'[') {
                return self.error(format!("property {id} without a value"));
            }
            let mut values = Vec::new();
            while self.peek() == Some(b'[') {
                values.push(self.value()?);
            }
            node.properties.push((id, values));
        }
        match self.peek() {
            None | Some(b';' | b'(' | b')') => Ok(node),
            Some(b) => self.error(format!(
                "'{}' where a property or node should be",
                b as char
            )),
        }
    }

    /// PropValue = "[" CValueType "]", with `\` escaping the next character
    /// and `\` + newline a soft line break (removed).
    fn value(&mut self) -> Result<String, SgfError> {
        self.expect(b'[')?;
        let mut bytes = Vec::new();
        loop {
            match self.text.get(self.at) {
                None => return self.error("a value without its ']'"),
                Some(b']') => {
                    self.at += 1;
                    break;
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.text.get(self.at) {
                        None => return self.error("a value ends in '\\'"),
                        Some(b'\n') => {}
                        Some(&b) => bytes.push(b),
                    }
                    self.at += 1;
                }
                Some(&b) => {
                    bytes.push(b);
                    self.at += 1;
                }
            }
        }
        String::from_utf8(bytes).or_else(|_| self.error("a value that is not UTF-8"))
    }
}

/// Parses a collection (one or more game trees), checking the `FF[4]`
/// grammar; anything after the last tree but white space is an error.
pub fn parse(text: &str) -> Result<Vec<GameTree>, SgfError> {
    let mut p = Parser {
        text: text.as_bytes(),
        at: 0,
    };
    let mut trees = vec![p.game_tree()?];
    while p.peek() == Some(b'(') {
        trees.push(p.game_tree()?);
    }
    if p.peek().is_some() {
        return p.error("text after the last game tree");
    }
    Ok(trees)
}

/// The first game of an SGF collection (its main line), checked: `GM[4]`,
/// a size, legal moves in turn.
pub fn read(text: &str) -> Result<RecordedGame, RecordError> {
    let trees = parse(text).map_err(|e| RecordError(e.to_string()))?;
    let tree = &trees[0];
    let root = &tree.nodes[0];
    let bad = |m: String| RecordError(m);
    if root.get("GM") != Some("4") {
        return Err(bad(format!(
            "GM[{}]: not a gomoku record (GM[4])",
            root.get("GM").unwrap_or("")
        )));
    }
    let size = root.get("SZ").unwrap_or("15");
    let (cols, rows) = match size.split_once(':') {
        Some((c, r)) => (c.parse::<u32>(), r.parse::<u32>()),
        None => (size.parse(), size.parse()),
    };
    let (Ok(cols), Ok(rows)) = (cols, rows) else {
        return Err(bad(format!("SZ[{size}] is not a size")));
    };
    let (mut k, mut rule) = (5, Rule::Free);
    for word in root.get("RU").unwrap_or("").split_whitespace() {
        if let Some(n) = word.strip_prefix('k').and_then(|n| n.parse().ok()) {
            k = n;
        } else if let Ok(r) = word.parse() {
            rule = r;
        }
    }
    let geometry = Geometry::new(rows, cols, k, rule).map_err(|e| bad(e.to_string()))?;
    let mut moves = Vec::new();
    let mut line = Some(tree);
    while let Some(t) = line {
        for node in &t.nodes {
            let color = if moves.len() % 2 == 0 { "B" } else { "W" };
            let other = if color == "B" { "W" } else { "B" };
            if node.get(other).is_some() {
                return Err(bad(format!(
                    "move {}: {other} is not to move",
                    moves.len() + 1
                )));
            }
            let Some(point) = node.get(color) else {
                continue;
            };
            let mut letters = point.chars();
            let (Some(c), Some(r), None) = (
                letters.next().and_then(index),
                letters.next().and_then(index),
                letters.next(),
            ) else {
                return Err(bad(format!("{color}[{point}] is not a point")));
            };
            moves.push(Cell::new(r as u8, c as u8));
        }
        line = t.variations.first();
    }
    let ending = match root.get("RE") {
        None => Ending::Unfinished,
        Some("0" | "Draw") => Ending::Draw,
        Some(re) => {
            let winner = match re.chars().next() {
                Some('B') => Player::X,
                Some('W') => Player::O,
                _ => return Err(bad(format!("RE[{re}] is not a result"))),
            };
            match &re[1..] {
                "+" => Ending::Win(winner),
                "+T" => Ending::Forfeit {
                    winner,
                    reason: "timeout".into(),
                    detail: None,
                },
                _ => Ending::Forfeit {
                    winner,
                    reason: "forfeit".into(),
                    detail: None,
                },
            }
        }
    };
    let game = RecordedGame {
        geometry,
        x: root.get("PB").unwrap_or("").to_string(),
        o: root.get("PW").unwrap_or("").to_string(),
        moves,
        opening: 0,
        ending,
        title: root.get("GN").map(str::to_string),
        notes: Vec::new(),
    };
    game.replay()?;
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(rows: u32, cols: u32, moves: &[(u8, u8)], ending: Ending) -> RecordedGame {
        RecordedGame {
            geometry: Geometry::new(rows, cols, 5, Rule::Exact).unwrap(),
            x: "mini]max\\".into(),
            o: "random".into(),
            moves: moves.iter().map(|&(r, c)| Cell::new(r, c)).collect(),
            opening: 1,
            ending,
            title: Some("game 3".into()),
            notes: Vec::new(),
        }
    }

    #[test]
    fn writes_and_reads_back() {
        let g = game(
            10,
            30,
            &[(0, 0), (9, 29), (0, 27)],
            Ending::Forfeit {
                winner: Player::O,
                reason: "timeout".into(),
                detail: Some("no reply [in time]".into()),
            },
        );
        let text = write(&g);
        assert!(
            text.starts_with("(;FF[4]GM[4]CA[UTF-8]AP[kinrow:"),
            "{text}"
        );
        assert!(
            text.contains("SZ[30:10]RU[k5 exact]GN[game 3]PB[mini\\]max\\\\]PW[random]RE[W+T]"),
            "{text}"
        );
        assert!(text.contains(";B[aa] ;W[Dj] ;B[Ba])"), "{text}");
        let back = read(&text).unwrap();
        assert_eq!(back.moves, g.moves);
        assert_eq!((back.x.as_str(), back.o.as_str()), ("mini]max\\", "random"));
        assert_eq!(back.geometry, g.geometry);
        assert!(matches!(
            back.ending,
            Ending::Forfeit {
                winner: Player::O,
                ..
            }
        ));
        let root = &parse(&text).unwrap()[0].nodes[0];
        assert!(root
            .get("C")
            .unwrap()
            .contains("X (mini]max\\) lost by timeout: no reply [in time]."));
    }

    #[test]
    fn the_grammar_is_checked() {
        assert_eq!(
            parse("(;GM[4](;B[aa])(;B[bb]))").unwrap()[0]
                .variations
                .len(),
            2
        );
        assert_eq!(parse(" (;A[1][2]C[a\\\nb]) (;) ").unwrap().len(), 2);
        for bad in [
            "",
            "(",
            "()",
            "(;",
            "(;B[aa]",
            "(;B)",
            "(;b[aa])",
            "(;B[aa]B[bb])",
            "(;C[x\\",
            "x(;)",
            "(;)x",
            "(;B[aa];W[bb]",
            "(;B[aa])(",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let e = parse("(;GM[4]GM[4])").unwrap_err();
        assert_eq!(e.to_string(), "SGF byte 7: property GM twice in one node");
    }

    #[test]
    fn hostile_files_get_errors_in_linear_time() {
        // Nested trees: refused past the bound, never a stack overflow.
        let deep = "(;".repeat(100_000);
        let e = parse(&deep).unwrap_err();
        assert_eq!(e.what, format!("game trees nested deeper than {MAX_DEPTH}"));
        let deep_closed = format!("{}{}", "(;".repeat(100_000), ")".repeat(100_000));
        assert!(parse(&deep_closed).is_err());
        // As deep as the bound allows is read, and dropped, on a small stack.
        let ok = format!("{}{}", "(;".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let mut tree = &parse(&ok).unwrap()[0];
                let mut depth = 1;
                while let Some(t) = tree.variations.first() {
                    tree = t;
                    depth += 1;
                }
                assert_eq!(depth, MAX_DEPTH);
            })
            .unwrap()
            .join()
            .unwrap();
        // 200,000 properties in one node (a minute and more when each was
        // compared with all before it): read, and a repeat still found.
        let name = |mut i: usize| {
            let mut s = String::new();
            loop {
                s.push((b'A' + (i % 26) as u8) as char);
                i /= 26;
                if i == 0 {
                    break s;
                }
            }
        };
        let mut text = String::from("(;");
        for i in 0..200_000 {
            text.push_str(&name(i));
            text.push_str("[x]");
        }
        assert_eq!(
            parse(&format!("{text})")).unwrap()[0].nodes[0]
                .properties
                .len(),
            200_000
        );
        let e = parse(&format!("{text}B[y])")).unwrap_err();
        assert_eq!(e.what, "property B twice in one node");
    }

    #[test]
    fn bad_games_are_refused() {
        assert!(read("(;GM[1]SZ[19])").is_err());
        assert!(read("(;GM[4]SZ[3];B[aa];B[bb])").is_err());
        assert!(read("(;GM[4]SZ[3];B[aa];W[aa])").is_err());
        assert!(read("(;GM[4]SZ[3];B[zz])").is_err());
        let g = read("(;GM[4]SZ[3]RU[k3 free]RE[B+];B[aa];W[ba];B[ab];W[bb];B[ac])").unwrap();
        assert_eq!(g.ending, Ending::Win(Player::X));
        assert!(g.replay().unwrap().is_over());
    }
}
