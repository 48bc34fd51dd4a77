//! The lines a GTP controller sends, parsed in one place into a typed
//! [`GtpCommand`]: GTP version 2's core commands and GoGui's
//! `gogui-rules_*` extension.

use super::vertex::{BadVertex, GtpMove};
use crate::protocol::{without_arguments, CommandNames, ErrorKind, ProtocolError, GTP_ADMIN};
use crate::rules::{clip, parse_coordinate, Player};
use std::time::Duration;

/// A GTP request.
#[derive(Clone, Debug, PartialEq)]
pub enum GtpCommand {
    ProtocolVersion,
    Name,
    Version,
    KnownCommand(String),
    ListCommands,
    Quit,
    BoardSize(u32),
    ClearBoard,
    Komi,
    Play(Player, GtpMove),
    GenMove(Player),
    /// `time_left COLOR SECONDS STONES`: what is left on the clock, for
    /// `STONES` moves (a byo-yomi period) or, with 0, the rest of the game.
    TimeLeft {
        color: Player,
        left: Duration,
        stones: u32,
    },
    Undo,
    /// The result of a finished game, as GTP scores it (`B+`, `W+`, `0`).
    FinalScore,
    ShowBoard,
    RulesGameId,
    RulesBoard,
    RulesBoardSize,
    RulesLegalMoves,
    RulesSideToMove,
    RulesFinalResult,
}

impl GtpCommand {
    /// Every command, in the order `list_commands` gives them.
    pub const NAMES: CommandNames = CommandNames::new(&[
        GTP_ADMIN,
        &[
            "boardsize",
            "clear_board",
            "komi",
            "play",
            "genmove",
            "undo",
            "time_left",
            "final_score",
            "showboard",
            "gogui-rules_game_id",
            "gogui-rules_board",
            "gogui-rules_board_size",
            "gogui-rules_legal_moves",
            "gogui-rules_side_to_move",
            "gogui-rules_final_result",
        ],
    ]);

    /// Parses a command name and its arguments.
    pub fn parse(name: &str, args: &[&str]) -> Result<GtpCommand, ProtocolError> {
        let syntax = |m: String| ProtocolError::new(ErrorKind::Syntax, m);
        let arity = |n: usize, usage: &str| {
            if args.len() == n {
                Ok(())
            } else {
                Err(syntax(format!("usage: {usage}")))
            }
        };
        let color = |s: &str| match s.to_ascii_lowercase().as_str() {
            "b" | "black" => Ok(Player::X),
            "w" | "white" => Ok(Player::O),
            _ => Err(syntax(format!("'{}' is not a color (b, w)", clip(s)))),
        };
        let cmd = match name {
            "known_command" => {
                arity(1, "known_command NAME")?;
                GtpCommand::KnownCommand(args[0].to_string())
            }
            "boardsize" => {
                arity(1, "boardsize N")?;
                let n = parse_coordinate(args[0])
                    .map_err(|_| syntax(format!("'{}' is not a board size", clip(args[0]))))?;
                GtpCommand::BoardSize(n)
            }
            "komi" => {
                arity(1, "komi FLOAT")?;
                args[0]
                    .parse::<f64>()
                    .map_err(|_| syntax(format!("'{}' is not a number", clip(args[0]))))?;
                GtpCommand::Komi
            }
            "play" => {
                arity(2, "play COLOR VERTEX")?;
                let m = args[1]
                    .parse()
                    .map_err(|e: BadVertex| syntax(e.to_string()))?;
                GtpCommand::Play(color(args[0])?, m)
            }
            "genmove" => {
                arity(1, "genmove COLOR")?;
                GtpCommand::GenMove(color(args[0])?)
            }
            "time_left" => {
                arity(3, "time_left COLOR SECONDS STONES")?;
                // A clock overdrawn (GoGui may count below zero) has none.
                let seconds = args[1].parse::<i64>().map_err(|_| {
                    syntax(format!("'{}' is not a number of seconds", clip(args[1])))
                })?;
                let stones = args[2].parse::<u32>().map_err(|_| {
                    syntax(format!("'{}' is not a number of stones", clip(args[2])))
                })?;
                GtpCommand::TimeLeft {
                    color: color(args[0])?,
                    left: Duration::from_secs(seconds.max(0) as u64),
                    stones,
                }
            }
            _ => without_arguments(
                name,
                args,
                match name {
                    "protocol_version" => Some(GtpCommand::ProtocolVersion),
                    "name" => Some(GtpCommand::Name),
                    "version" => Some(GtpCommand::Version),
                    "list_commands" => Some(GtpCommand::ListCommands),
                    "quit" => Some(GtpCommand::Quit),
                    "clear_board" => Some(GtpCommand::ClearBoard),
                    "undo" => Some(GtpCommand::Undo),
                    "final_score" => Some(GtpCommand::FinalScore),
                    "showboard" => Some(GtpCommand::ShowBoard),
                    "gogui-rules_game_id" => Some(GtpCommand::RulesGameId),
                    "gogui-rules_board" => Some(GtpCommand::RulesBoard),
                    "gogui-rules_board_size" => Some(GtpCommand::RulesBoardSize),
                    "gogui-rules_legal_moves" => Some(GtpCommand::RulesLegalMoves),
                    "gogui-rules_side_to_move" => Some(GtpCommand::RulesSideToMove),
                    "gogui-rules_final_result" => Some(GtpCommand::RulesFinalResult),
                    _ => None,
                },
            )?,
        };
        Ok(cmd)
    }
}
