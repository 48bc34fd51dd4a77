//! A side played by an engine: the protocol as a GUI speaks it (`newgame`,
//! `move`, `genmove`, `undo`), over any [`Link`] to an engine. Both front
//! ends, `kinrow play` and `kinrow serve`, seat their engines here.
//!
//! The front end never trusts the engine's idea of the game: every move it
//! sends back is checked by the caller with its own rules core.

use super::printable::{printable, quoted};
use super::{ClientError, EngineLink, Response};
use crate::protocol::{Command, MoveReply};
use crate::rules::{Board, Cell, Geometry};
use std::fmt;
use std::time::{Duration, Instant};

/// How long an answer may take, and which option sets that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// The longest wait.
    pub wait: Duration,
    /// The option that sets it, named when it runs out: `--timeout`.
    pub option: &'static str,
}

/// A request/response channel to one engine.
pub trait Link {
    /// Sends one request and waits at most `deadline.wait` for its
    /// response. An error says in plain words what went wrong with the
    /// engine (it exited, it was too slow, past which deadline); after an
    /// error the link is not used again.
    fn request(&mut self, request: &Command, deadline: Deadline) -> Result<Response, String>;

    /// A response the engine wrote that no request asked for (it answered
    /// its last request twice), if one is there now.
    fn unasked(&mut self) -> Option<Response> {
        None
    }

    /// Asks the engine to end and gives it a moment to do so.
    fn quit(&mut self) {}
}

impl Link for EngineLink {
    fn request(&mut self, request: &Command, deadline: Deadline) -> Result<Response, String> {
        EngineLink::request(self, request.clone(), deadline.wait).map_err(|e| {
            let command = request.name();
            let what = match e {
                ClientError::Timeout => format!(
                    "did not answer `{command}` within {} ({})",
                    seconds(deadline.wait),
                    deadline.option
                ),
                ClientError::Closed | ClientError::Write(_) => {
                    "stopped: its output closed (it exited or crashed)".to_string()
                }
                other => other.to_string(),
            };
            match last_words(&self.stderr_tail()) {
                Some(said) => format!("{what}; its last message was: {said}"),
                None => what,
            }
        })
    }

    fn unasked(&mut self) -> Option<Response> {
        self.unasked_reply()
    }

    fn quit(&mut self) {
        self.request_quit();
        self.wait_until(Instant::now() + QUIT_GRACE);
    }
}

/// How long an engine may take to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(300);

/// `30 s`, `1.5 s`.
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// The last non-empty line an engine wrote to stderr, shortened.
fn last_words(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(clip_message)
}

/// What went wrong with an engine, in plain words that complete "the engine
/// …": `stopped: its output closed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineFault(pub String);

impl fmt::Display for EngineFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One engine in a game: a link and the deadline for each answer.
pub struct EngineSeat {
    link: Box<dyn Link>,
    deadline: Deadline,
}

impl EngineSeat {
    /// An engine seat over a link that is up, whose answers may each take
    /// `timeout` (`--timeout`).
    pub fn new(link: Box<dyn Link>, timeout: Duration) -> EngineSeat {
        EngineSeat {
            link,
            deadline: Deadline {
                wait: timeout,
                option: "--timeout",
            },
        }
    }

    /// One request; a reply the engine wrote before it (to nothing) is a
    /// fault here, so that no answer is ever taken for the next one's.
    fn request(&mut self, request: &Command) -> Result<Response, EngineFault> {
        if let Some(extra) = self.link.unasked() {
            let mark = if extra.success { '=' } else { '?' };
            return Err(EngineFault(format!(
                "answered twice: a second reply '{mark} {}' came with no request",
                clip_message(&extra.text)
            )));
        }
        self.link
            .request(request, self.deadline)
            .map_err(EngineFault)
    }

    /// The first exchange with a freshly started engine, within `startup`
    /// (`--startup-timeout`) rather than the move deadline: starting a
    /// program is not thinking about a move. Its own name, if it answers
    /// `name` (not every engine does).
    pub fn first_contact(&mut self, startup: Duration) -> Result<Option<String>, EngineFault> {
        let deadline = Deadline {
            wait: startup,
            option: "--startup-timeout",
        };
        let reply = self
            .link
            .request(&Command::Name, deadline)
            .map_err(EngineFault)?;
        let name = reply.text.trim();
        Ok((reply.success && !name.is_empty()).then(|| quoted(name)))
    }

    /// Asks the engine to end (it is killed when the seat is dropped).
    pub fn quit(&mut self) {
        self.link.quit();
    }

    /// Sends a request that must succeed with an empty result.
    fn expect_ok(&mut self, request: Command) -> Result<(), EngineFault> {
        let reply = self.request(&request)?;
        if reply.success {
            Ok(())
        } else {
            Err(EngineFault(format!(
                "refused `{request}`: {}",
                clip_message(&reply.text)
            )))
        }
    }

    /// Sets an engine option (`set NAME VALUE`).
    pub fn set_option(&mut self, name: &str, value: impl fmt::Display) -> Result<(), EngineFault> {
        self.expect_ok(Command::set(name, value))
    }

    /// Starts a game on an empty board of this shape.
    pub fn new_game(&mut self, geometry: Geometry) -> Result<(), EngineFault> {
        self.expect_ok(Command::new_game(geometry))
    }

    /// Tells the engine about a move of the other side.
    pub fn tell(&mut self, cell: Cell) -> Result<(), EngineFault> {
        self.expect_ok(Command::play(cell))
    }

    /// Asks the engine for its move (which it plays on its own board). The
    /// cell is only read here; whether it is legal is the caller's to check.
    pub fn genmove(&mut self) -> Result<Cell, EngineFault> {
        let reply = self.request(&Command::GenMove)?;
        if !reply.success {
            return Err(EngineFault(format!(
                "refused to move: {}",
                clip_message(&reply.text)
            )));
        }
        match MoveReply::read(&reply.text) {
            MoveReply::Cell(cell) => Ok(cell),
            _ => Err(EngineFault(format!(
                "answered '{}' to genmove, which is not a move",
                quoted(reply.text.trim())
            ))),
        }
    }

    /// Takes back `plies` moves so the engine's game is `board` again. Uses
    /// `undo`; an engine that does not know it (only the core commands are
    /// required) is brought back by replaying the game from `newgame`.
    pub fn take_back(&mut self, plies: usize, board: &Board) -> Result<(), EngineFault> {
        for _ in 0..plies {
            if !self.request(&Command::Undo)?.success {
                return self.replay(board);
            }
        }
        Ok(())
    }

    /// Sets the engine's game to `board`: a new game and its moves.
    pub fn replay(&mut self, board: &Board) -> Result<(), EngineFault> {
        self.new_game(board.geometry())?;
        for cell in board.moves() {
            self.tell(cell)?;
        }
        Ok(())
    }
}

/// An engine's failure text, shortened to one readable line that can't
/// play tricks on the terminal.
fn clip_message(msg: &str) -> String {
    let first = msg.lines().next().unwrap_or("").trim();
    if first.chars().count() > 120 {
        let head: String = first.chars().take(120).collect();
        format!("{}...", printable(&head))
    } else {
        printable(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;
    use std::collections::VecDeque;

    /// A scripted engine: the responses in order; records the requests.
    struct Script {
        replies: VecDeque<Result<Response, String>>,
        sent: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
    }

    impl Link for Script {
        fn request(&mut self, request: &Command, _d: Deadline) -> Result<Response, String> {
            self.sent.borrow_mut().push(request.to_string());
            self.replies
                .pop_front()
                .unwrap_or_else(|| Err("stopped: its output closed".into()))
        }
    }

    fn seat(
        replies: Vec<Result<Response, String>>,
    ) -> (EngineSeat, std::rc::Rc<std::cell::RefCell<Vec<String>>>) {
        let sent = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let link = Script {
            replies: replies.into(),
            sent: sent.clone(),
        };
        (
            EngineSeat::new(Box::new(link), Duration::from_secs(1)),
            sent,
        )
    }

    fn reply(success: bool, text: &str) -> Result<Response, String> {
        Ok(Response {
            success,
            id: None,
            text: text.into(),
        })
    }
    fn ok(s: &str) -> Result<Response, String> {
        reply(true, s)
    }
    fn fail(s: &str) -> Result<Response, String> {
        reply(false, s)
    }

    #[test]
    fn speaks_the_core_commands() {
        let (mut e, sent) = seat(vec![ok(""), ok(""), ok("1 1")]);
        let g = Geometry::new(16, 16, 5, Rule::Exact).unwrap();
        e.new_game(g).unwrap();
        e.tell(Cell::new(7, 8)).unwrap();
        assert_eq!(e.genmove().unwrap(), Cell::new(0, 0));
        assert_eq!(
            *sent.borrow(),
            ["newgame 16 16 5 exact", "move 8 9", "genmove"]
        );
    }

    #[test]
    fn faults_in_plain_words() {
        let (mut e, _) = seat(vec![
            ok("resign"),
            fail("game over"),
            fail("unacceptable size: no"),
        ]);
        assert!(e.genmove().unwrap_err().0.contains("'resign'"));
        assert!(e
            .genmove()
            .unwrap_err()
            .0
            .contains("refused to move: game over"));
        let err = e.new_game(Geometry::TIC_TAC_TOE).unwrap_err().0;
        assert_eq!(err, "refused `newgame 3 3 3 free`: unacceptable size: no");
        assert_eq!(e.genmove().unwrap_err().0, "stopped: its output closed");
    }

    /// A link whose engine wrote `extra` after its last answer.
    struct Twice {
        extra: Option<Response>,
    }

    impl Link for Twice {
        fn request(&mut self, _: &Command, _d: Deadline) -> Result<Response, String> {
            Ok(Response {
                success: true,
                id: None,
                text: "3 3".into(),
            })
        }
        fn unasked(&mut self) -> Option<Response> {
            self.extra.take()
        }
    }

    #[test]
    fn a_second_answer_is_a_fault_before_the_next_request() {
        let extra = Response {
            success: true,
            id: None,
            text: "1 2".into(),
        };
        let link = Twice { extra: Some(extra) };
        let mut e = EngineSeat::new(Box::new(link), Duration::from_secs(1));
        assert_eq!(
            e.genmove().unwrap_err().0,
            "answered twice: a second reply '= 1 2' came with no request"
        );
        assert_eq!(e.genmove().unwrap(), Cell::new(2, 2));
    }

    #[test]
    fn undo_falls_back_to_replay() {
        let mut b = Board::new(Geometry::TIC_TAC_TOE);
        b.try_play(Cell::new(1, 1)).unwrap();
        let (mut e, sent) = seat(vec![ok(""), fail("unknown command"), ok(""), ok("")]);
        e.take_back(2, &b).unwrap();
        assert_eq!(
            *sent.borrow(),
            ["undo", "undo", "newgame 3 3 3 free", "move 2 2"]
        );
    }
}
