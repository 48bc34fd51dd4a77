//! The lines a brain sends a manager, for the referee and `kinrow play`
//! driving Gomocup engines: parsed in one place into a [`Reply`].

use super::command::Point;

/// One line from a brain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `X,Y`: a move (the answer to `BEGIN`, `TURN`, `BOARD`, `PLAY`).
    Move(Point),
    /// `OK` (the answer to `START`, `RECTSTART`, `RESTART`, `TAKEBACK`).
    Ok,
    /// `ERROR message`: a known command the brain cannot carry out.
    Error(String),
    /// `UNKNOWN message`: a command the brain does not know.
    Unknown(String),
    /// `MESSAGE text`: for the user's log.
    Message(String),
    /// `DEBUG text`: for the brain's author.
    Debug(String),
    /// `SUGGEST X,Y`: a move the manager may impose with `PLAY`.
    Suggest(Point),
    /// Anything else: the answer to `ABOUT`, or junk.
    Other(String),
}

impl Reply {
    /// Parses one line (any line end already cut off). Keywords are read in
    /// any case, as the protocol asks of managers.
    pub fn parse(line: &str) -> Reply {
        let line = line.trim();
        let (word, rest) = match line.split_once([' ', '\t']) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let word = word.to_ascii_uppercase();
        match word.as_str() {
            "OK" if rest.is_empty() => Reply::Ok,
            "ERROR" => Reply::Error(rest.to_string()),
            "UNKNOWN" => Reply::Unknown(rest.to_string()),
            "MESSAGE" => Reply::Message(rest.to_string()),
            "DEBUG" => Reply::Debug(rest.to_string()),
            "SUGGEST" => match rest.parse() {
                Ok(p) => Reply::Suggest(p),
                Err(_) => Reply::Other(line.to_string()),
            },
            _ => match line.parse() {
                Ok(p) => Reply::Move(p),
                Err(_) => Reply::Other(line.to_string()),
            },
        }
    }
}

/// The value of `key="…"` in an `ABOUT` answer (`name="SomeBrain",
/// version="1.0"`), if present and not empty.
pub fn about_field(about: &str, key: &str) -> Option<String> {
    let mut rest = about;
    while let Some(i) = rest.find(key) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + key.len()..].trim_start();
        rest = &rest[i + key.len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let Some(value) = after.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start().strip_prefix('"')?;
        let value = &value[..value.find('"')?];
        let value = value.trim();
        return (!value.is_empty()).then(|| value.to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_line() {
        assert_eq!(Reply::parse("7,8\r"), Reply::Move(Point { x: 7, y: 8 }));
        assert_eq!(Reply::parse(" 10 , 3 "), Reply::Move(Point { x: 10, y: 3 }));
        assert_eq!(Reply::parse("ok"), Reply::Ok);
        assert_eq!(
            Reply::parse("ERROR too big"),
            Reply::Error("too big".into())
        );
        assert_eq!(Reply::parse("UNKNOWN"), Reply::Unknown(String::new()));
        assert_eq!(
            Reply::parse("MESSAGE depth 4 score 12"),
            Reply::Message("depth 4 score 12".into())
        );
        assert_eq!(Reply::parse("debug x"), Reply::Debug("x".into()));
        assert_eq!(
            Reply::parse("SUGGEST 1,2"),
            Reply::Suggest(Point { x: 1, y: 2 })
        );
        for junk in ["7,8,9", "hello", "OK then", "-1,2", "7 8", ""] {
            assert!(matches!(Reply::parse(junk), Reply::Other(_)), "{junk}");
        }
    }

    #[test]
    fn about_fields() {
        let about = r#"name="SomeBrain", version="1.0", author="Nymand", country="USA""#;
        assert_eq!(about_field(about, "name").as_deref(), Some("SomeBrain"));
        assert_eq!(about_field(about, "country").as_deref(), Some("USA"));
        assert_eq!(about_field(about, "www"), None);
        assert_eq!(
            about_field("nickname=\"x\", name = \"y\"", "name").as_deref(),
            Some("y")
        );
        assert_eq!(about_field("an old brain, just text", "name"), None);
        assert_eq!(about_field("name=\"\"", "name"), None);
        assert_eq!(about_field("name=\"unclosed", "name"), None);
    }
}
