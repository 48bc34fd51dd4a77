//! Splitting an engine command line into words as a POSIX shell would — quotes
//! and backslashes, nothing else (no variables, globs or pipes): the words
//! are then run directly, never through a shell. And the short name such a
//! command goes by until its engine says its own ([`display_name`]).

use std::fmt;

/// A command that can't be split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitError {
    /// A `'` or `"` without its closing partner.
    UnclosedQuote(char),
    /// A backslash at the very end.
    TrailingBackslash,
    /// Nothing but white space.
    Empty,
}

impl fmt::Display for SplitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SplitError::UnclosedQuote(q) => write!(f, "unclosed {q} quote"),
            SplitError::TrailingBackslash => f.write_str("a backslash at the end"),
            SplitError::Empty => f.write_str("empty command"),
        }
    }
}

impl std::error::Error for SplitError {}

/// Splits `command` into words: white space separates words; `'…'` keeps
/// everything literally; `"…"` keeps everything but lets `\` escape `"`, `\`,
/// `$` and `` ` ``; outside quotes `\` takes the next character literally.
pub fn split_words(command: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SplitError::UnclosedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => word.push(e),
                            Some('\n') => {}
                            Some(other) => {
                                word.push('\\');
                                word.push(other);
                            }
                            None => return Err(SplitError::UnclosedQuote('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(SplitError::UnclosedQuote('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => word.push(c),
                    None => return Err(SplitError::TrailingBackslash),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(SplitError::Empty);
    }
    Ok(words)
}

/// Writes words back as one command line that [`split_words`] turns into
/// the same words (for messages and records).
pub fn join_words(words: &[String]) -> String {
    let quote = |w: &String| {
        let plain = !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
        if plain {
            w.clone()
        } else {
            format!("'{}'", w.replace('\'', r"'\''"))
        }
    };
    words.iter().map(quote).collect::<Vec<_>>().join(" ")
}

/// Programs that run the engine named by the next word, so that word names
/// the engine: `python3 bots/random.py` is `random.py`.
const INTERPRETERS: [&str; 9] = [
    "python", "python3", "node", "ruby", "perl", "java", "wine", "sh", "bash",
];

/// A short name for an engine command: the file name of its program, or of
/// the script an interpreter runs; `engine` for no words at all. The one
/// rule of the referee, `kinrow play` and the Gomocup link.
pub fn display_name(argv: &[String]) -> String {
    let base = |word: &str| {
        std::path::Path::new(word)
            .file_name()
            .map_or_else(|| word.to_string(), |n| n.to_string_lossy().into_owned())
    };
    match argv {
        [first, second, ..] if INTERPRETERS.contains(&base(first).as_str()) => base(second),
        [first, ..] => base(first),
        [] => "engine".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_skip_interpreters() {
        let name = |s: &str| display_name(&split_words(s).unwrap());
        assert_eq!(name("python3 bots/random.py --seed 1"), "random.py");
        assert_eq!(name("/usr/bin/perl ./my-bot.pl"), "my-bot.pl");
        assert_eq!(name("wine 'C:/brains/pbrain-x.exe'"), "pbrain-x.exe");
        assert_eq!(name("java Brain"), "Brain");
        assert_eq!(name("ruby"), "ruby");
        assert_eq!(name("./target/release/kinrow --bot random"), "kinrow");
        assert_eq!(name("pbrain-rapfi"), "pbrain-rapfi");
        assert_eq!(display_name(&[]), "engine");
    }

    fn split(s: &str) -> Vec<String> {
        split_words(s).unwrap()
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            split("  kinrow   --bot  random "),
            ["kinrow", "--bot", "random"]
        );
        assert_eq!(
            split("python3 'my bot.py' -x"),
            ["python3", "my bot.py", "-x"]
        );
        assert_eq!(
            split(r#"a "b \"c\" \$d \n" e"#),
            ["a", r#"b "c" $d \n"#, "e"]
        );
        assert_eq!(split(r"a\ b c\\d"), ["a b", r"c\d"]);
        assert_eq!(split("x''y \"\""), ["xy", ""]);
        assert_eq!(split("a'b'\"c\"d"), ["abcd"]);
        // No shell features: these are plain words.
        assert_eq!(
            split("echo $HOME | cat; *"),
            ["echo", "$HOME", "|", "cat;", "*"]
        );
    }

    #[test]
    fn rejects_broken_commands() {
        assert_eq!(split_words("a 'b"), Err(SplitError::UnclosedQuote('\'')));
        assert_eq!(split_words("a \"b"), Err(SplitError::UnclosedQuote('"')));
        assert_eq!(split_words("a\\"), Err(SplitError::TrailingBackslash));
        assert_eq!(split_words("  \t "), Err(SplitError::Empty));
    }

    #[test]
    fn join_round_trips() {
        for words in [
            vec!["kinrow", "--bot", "random"],
            vec!["python3", "my bot.py", "it's", "", "$x", "a\"b"],
        ] {
            let words: Vec<String> = words.into_iter().map(String::from).collect();
            assert_eq!(split(&join_words(&words)), words);
        }
        assert_eq!(join_words(&["a".into(), "b c".into()]), "a 'b c'");
    }
}
