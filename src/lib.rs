//! kinrow: a toolkit for k-in-a-row games (m,n,k-games), from tic-tac-toe to
//! gomoku.
//!
//! The modules by floor, each built only on the floors before it:
//!
//! 1. [`rules`]: the pure rules core (boards up to 32x32; free, exact).
//!    Beside it, for every floor: [`sys`], the operating system in one
//!    place (signals, the reaper, `poll`, memory, the terminal), and
//!    [`cli`], the flags and values the binaries share.
//! 2. On the rules: [`bots`], the move choosers inside the engine;
//!    [`solver`], which proves the value of positions on boards of up to
//!    64 cells; [`tactics`], tactical positions with proven answers (the
//!    threat searcher's yardstick); [`records`], SGF and Piskvork `.psq`
//!    game records; [`protocol`], the wire vocabularies (kinrow's
//!    GTP-framed line protocol, the Gomocup brain protocol, GTP) that the
//!    engine and its clients both speak.
//! 3. [`engine`]: one engine core behind kinrow's protocol, the Gomocup
//!    brain protocol and GTP with GoGui's rules commands.
//! 4. [`client`]: engine processes driven over their pipes, with
//!    deadlines, in their own dialect; the seats and launches of the
//!    front ends.
//! 5. [`referee`]: tournaments between engine processes, with statistics.
//! 6. The front ends, side by side: [`play`] (`kinrow play`, the
//!    terminal), [`serve`] (`kinrow serve`, the page to play in a browser,
//!    and the referee's watch page), [`solve_cli`] (`kinrow solve`).

// 1
pub mod cli;
pub mod rules;
pub mod sys;
// 2
pub mod bots;
pub mod protocol;
pub mod records;
pub mod solver;
pub mod tactics;
// 3
pub mod engine;
// 4
pub mod client;
// 5
pub mod referee;
// 6
pub mod play;
pub mod serve;
pub mod solve_cli;
