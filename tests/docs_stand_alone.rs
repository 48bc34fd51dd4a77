//! What a user reads stands on the repository alone: README.md, docs/ and
//! the scripts they run name no file outside it (`../shared`, this
//! machine's paths), and every relative link in the documents leads to a
//! file of the repository.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, docs/*.md, scripts/ (and scripts/bench/), examples/.
fn user_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    for dir in ["docs", "scripts", "scripts/bench", "examples"] {
        for entry in fs::read_dir(root().join(dir)).expect(dir) {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    files
}

#[test]
fn no_user_file_names_a_file_outside_the_repository() {
    let mut outside = Vec::new();
    for path in user_files() {
        let Ok(text) = fs::read_to_string(&path) else {
            continue; // images
        };
        for (n, line) in text.lines().enumerate() {
            if ["../shared", "/work/", "shared/DESIGN", "GOGUI.md"]
                .iter()
                .any(|bad| line.contains(bad))
            {
                outside.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    assert!(outside.is_empty(), "{}", outside.join("\n"));
}

#[test]
fn every_relative_link_in_the_documents_leads_to_a_file() {
    let mut broken = Vec::new();
    for path in user_files() {
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let dir = path.parent().unwrap();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')').unwrap_or(rest.len())];
            let file = target.split('#').next().unwrap();
            if file.is_empty() || file.contains("://") || file.starts_with("mailto:") {
                continue;
            }
            if !Path::new(dir).join(file).exists() {
                broken.push(format!("{}: {target}", path.display()));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
