//! `set timeleft MS`, kinrow's protocol addition for a game clock (the
//! referee's `--match-time` tells engines what is left before every move).

use assert_cmd::Command;

#[test]
fn set_timeleft_is_taken_and_checked() {
    let out = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .args(["--board", "15x15", "--bot", "minimax", "--seed", "1"])
        .write_stdin(
            "set timeleft 300\ngenmove\nset timeleft 0\ngenmove\nset timeleft -5\n\
             set timeleft soon\nnewgame\ngenmove\nquit\n",
        )
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let replies: Vec<&str> = text.split_terminator("\n\n").collect();
    assert_eq!(replies[0], "=");
    assert!(replies[1].starts_with("= "), "{text}");
    assert_eq!(replies[2], "=");
    // An empty clock still answers (at once).
    assert!(replies[3].starts_with("= "), "{text}");
    for bad in [replies[4], replies[5]] {
        assert!(
            bad.starts_with("? invalid option: timeleft: ")
                && bad.contains("is not a number of milliseconds"),
            "{bad}"
        );
    }
    assert_eq!(replies[6], "=");
    assert!(replies[7].starts_with("= "), "{text}");
    assert_eq!(replies[8], "=");
}
