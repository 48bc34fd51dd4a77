//! `kinrow play`: the terminal front end, a protocol client like any GUI.

use clap::Args;

/// Options of `kinrow play`.
#[derive(Args, Debug, Clone, Default)]
pub struct PlayArgs {}

/// Runs the terminal front end.
pub fn run(_args: PlayArgs) -> anyhow::Result<()> {
    anyhow::bail!("kinrow play is not built yet")
}
