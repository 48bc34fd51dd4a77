//! The command names a GTP-framed dialect answers `list_commands` and
//! `known_command` with, kept in one place per dialect (the parser's and
//! the writer's names are checked against it by tests), with GTP's
//! administrative commands listed once for every dialect that has them.

/// GTP's administrative commands, in GTP's order: every GTP-framed dialect
/// (kinrow's, GTP itself, `kinrow serve`'s) answers them.
pub const GTP_ADMIN: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
];

/// A dialect's command names in `list_commands` order, as consecutive parts
/// (so that [`GTP_ADMIN`] is written once).
#[derive(Clone, Copy, Debug)]
pub struct CommandNames(&'static [&'static [&'static str]]);

impl CommandNames {
    /// The names of `parts`, in order.
    pub const fn new(parts: &'static [&'static [&'static str]]) -> CommandNames {
        CommandNames(parts)
    }

    /// Every name, in order.
    pub fn iter(self) -> impl Iterator<Item = &'static str> {
        self.0.iter().flat_map(|part| part.iter().copied())
    }

    /// Whether `name` is one of them.
    pub fn contains(self, name: &str) -> bool {
        self.iter().any(|n| n == name)
    }

    /// The answer to `known_command NAME`: `true` or `false`.
    pub fn known(self, name: &str) -> String {
        self.contains(name).to_string()
    }

    /// The answer to `list_commands`: one name a line.
    pub fn list(self) -> String {
        self.iter().collect::<Vec<_>>().join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_as_one_list() {
        const NAMES: CommandNames = CommandNames::new(&[&["a", "b"], GTP_ADMIN, &["z"]]);
        assert_eq!(NAMES.iter().count(), 9);
        assert!(NAMES.contains("quit") && NAMES.contains("z") && !NAMES.contains("c"));
        assert_eq!(NAMES.known("b"), "true");
        assert_eq!(NAMES.known("B"), "false");
        assert!(NAMES.list().starts_with("a\nb\nprotocol_version\n"));
        assert!(NAMES.list().ends_with("quit\nz"));
    }
}
