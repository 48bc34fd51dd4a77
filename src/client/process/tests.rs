use super::*;
use crate::sys::reaper::{adopt_orphans, group_exists};

fn events(input: &str) -> Vec<String> {
    let mut framer = Framer::default();
    let mut lines: Vec<&[u8]> = input.as_bytes().split(|&b| b == b'\n').collect();
    if input.ends_with('\n') {
        lines.pop();
    }
    let mut got: Vec<Event> = lines
        .into_iter()
        .filter_map(|l| framer.line(&l[..l.len().min(MAX_LINE)]))
        .collect();
    got.extend(framer.finish());
    got.into_iter()
        .map(|e| match e {
            Event::Response(r) => {
                format!("{}{:?}|{}", if r.success { '=' } else { '?' }, r.id, r.text)
            }
            Event::Skipped(l) => format!("skip|{l}"),
            Event::Line(l) => format!("line|{l}"),
        })
        .collect()
}

#[test]
fn frames_responses_ids_and_multiline() {
    assert_eq!(
        events("=\n\n= 2 2\n\n?7 illegal move: x\n\n=3 a\nb\n\n"),
        [
            "=None|",
            "=None|2 2",
            "?Some(7)|illegal move: x",
            "=Some(3)|a\nb"
        ]
    );
}

#[test]
fn skips_junk_and_blank_lines_outside_responses() {
    assert_eq!(
        events("info depth 3\n\n\r\n= 1 1\r\n\r\nbye\n"),
        ["skip|info depth 3", "=None|1 1", "skip|bye"]
    );
}

#[test]
fn a_response_cut_off_by_end_of_output_is_delivered() {
    assert_eq!(events("= 3 3\n"), ["=None|3 3"]);
}

#[test]
fn overlong_lines_are_capped() {
    let long = "x".repeat(MAX_LINE * 3);
    let got = events(&format!("{long}\n= 1 2\n\n"));
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].len(), "skip|".len() + MAX_LINE);
    assert_eq!(got[1], "=None|1 2");
}

fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

/// A shell script started as an engine, and its first reply (within 5 s).
fn first_reply(script: &str) -> (EngineProcess, Response) {
    let mut e = EngineProcess::spawn(&sh(script), StderrTo::Discard).unwrap();
    let r = e
        .read_response(Instant::now() + Duration::from_secs(5))
        .unwrap();
    (e, r)
}

#[test]
fn talks_to_a_process_and_reaps_it() {
    let mut e = EngineProcess::spawn(
        &sh("read a; echo \"= got $a\"; echo; read b; echo >&2 oops; exit 0"),
        StderrTo::Discard,
    )
    .unwrap();
    let r = e.request("hello", Duration::from_secs(5)).unwrap();
    assert_eq!(r.text, "got hello");
    e.send("bye\n").unwrap();
    assert!(matches!(
        e.read_response(Instant::now() + Duration::from_secs(5)),
        Err(ClientError::Closed)
    ));
    assert!(e.wait_until(Instant::now() + Duration::from_secs(5)));
    assert!(e.stderr_tail().contains("oops"));
    assert!(e.kill().is_some_and(|s| s.success()));
}

#[test]
fn a_silent_engine_times_out_and_is_killed_with_its_group() {
    assert!(adopt_orphans());
    let mut e = EngineProcess::spawn(&sh("sleep 30 & sleep 30"), StderrTo::Discard).unwrap();
    let t = Instant::now();
    let r = e.request("genmove", Duration::from_millis(100));
    assert!(matches!(r, Err(ClientError::Timeout)));
    assert!(t.elapsed() < Duration::from_secs(5));
    let pgid = e.pid() as libc::pid_t;
    let status = e.shutdown(Duration::from_millis(50)).unwrap();
    assert!(!status.success());
    // Nothing is left in the group (the background sleep died too).
    thread::sleep(Duration::from_millis(50));
    assert!(!group_exists(pgid));
}

#[test]
fn helpers_in_a_session_of_their_own_die_with_their_engine() {
    assert!(adopt_orphans());
    // The helper leaves the engine's group and session; the engine
    // tells its pid.
    let (mut e, reply) = first_reply("setsid sleep 30 & printf '= %s\\n\\n' $!; sleep 30");
    let helper: libc::pid_t = reply.text.trim().parse().unwrap();
    let stat = || std::fs::read_to_string(format!("/proc/{helper}/stat"));
    // Wait until it has left the group (`setsid` has run): until then
    // the group's kill would take it too.
    let own_group = || {
        stat().is_ok_and(|s| {
            let fields: Vec<&str> = s.rsplit(')').next().unwrap_or("").split(' ').collect();
            fields.get(3) == Some(&helper.to_string().as_str())
        })
    };
    let until = Instant::now() + Duration::from_secs(5);
    while !own_group() && Instant::now() < until {
        thread::sleep(Duration::from_millis(5));
    }
    assert!(
        own_group(),
        "the helper runs in a group of its own: {:?}",
        stat()
    );
    e.kill();
    // Killed and reaped: gone from /proc (not even a zombie).
    let until = Instant::now() + Duration::from_secs(5);
    while stat().is_ok() && Instant::now() < until {
        thread::sleep(Duration::from_millis(10));
    }
    assert!(stat().is_err(), "helper {helper} left: {:?}", stat());
}

#[test]
fn overlong_lines_from_a_process_are_capped_and_skipped() {
    let (mut e, r) = first_reply(
        "head -c 200000 /dev/zero | tr '\\0' x; echo; printf 'junk\\n= 1 2\\n\\n'; sleep 5",
    );
    assert_eq!(r.text, "1 2");
    let (kept, total) = e.take_skipped();
    assert_eq!(total, 2);
    assert_eq!(kept[0].len(), MAX_LINE);
    assert_eq!(kept[1], "junk");
}

#[test]
fn endless_output_without_a_reply_still_times_out() {
    // Junk lines, then one line that never ends: data is always there
    // to read, and the deadline must still end the wait.
    // A 1 MB pipe kept full: a reader that only looks at the clock when
    // the pipe runs dry would never look.
    let flood = |chunk: &str| {
        format!(
            "import fcntl, os\ntry: fcntl.fcntl(1, 1031, 1 << 20)\nexcept OSError: pass\n\
             b = {chunk:?}.encode() * 65536\nwhile True: os.write(1, b)\n"
        )
    };
    for script in [flood("j\n"), flood("x")] {
        let argv = ["python3".to_string(), "-c".into(), script.clone()];
        let mut e = EngineProcess::spawn(&argv, StderrTo::Discard).unwrap();
        let t = Instant::now();
        let r = e.read_response(t + Duration::from_millis(200));
        assert!(matches!(r, Err(ClientError::Timeout)), "{script}: {r:?}");
        let took = t.elapsed();
        assert!(took < Duration::from_secs(1), "{script}: {took:?}");
    }
}

#[test]
fn an_engine_that_exits_is_closed_even_if_a_helper_holds_its_output() {
    // The background sleep keeps stdout open after the shell exits.
    for (script, reply) in [
        ("sleep 30 & exit 0", None),
        (
            "sleep 30 & printf '= 1 1\\n\\n= 2 2\\n'; exit 0",
            Some("2 2"),
        ),
    ] {
        let mut e = EngineProcess::spawn(&sh(script), StderrTo::Discard).unwrap();
        let t = Instant::now();
        let deadline = t + Duration::from_secs(20);
        if let Some(last) = reply {
            // What it wrote before exiting is still delivered.
            assert_eq!(e.read_response(deadline).unwrap().text, "1 1");
            assert_eq!(e.read_response(deadline).unwrap().text, last);
        }
        let r = e.read_response(deadline);
        assert!(matches!(r, Err(ClientError::Closed)), "{script}: {r:?}");
        assert!(t.elapsed() < Duration::from_secs(5), "{script}");
    }
}

#[test]
fn cancelling_cuts_a_wait_short() {
    let mut e = EngineProcess::spawn(&sh("sleep 30"), StderrTo::Discard).unwrap();
    let flag = Arc::new(AtomicBool::new(true));
    e.set_cancel(flag);
    let r = e.read_response(Instant::now() + Duration::from_secs(30));
    assert!(matches!(r, Err(ClientError::Cancelled)));
}

#[test]
fn raw_lines_end_at_lf_cr_lf_or_cr() {
    let mut e = EngineProcess::spawn(
        &sh("printf 'OK\\r\\n\\r\\nMESSAGE hi\\r7,8\\nlast'"),
        StderrTo::Discard,
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let got: Vec<String> = (0..4).map(|_| e.read_line(deadline).unwrap()).collect();
    assert_eq!(got, ["OK", "MESSAGE hi", "7,8", "last"]);
    assert!(matches!(e.read_line(deadline), Err(ClientError::Closed)));
}

#[test]
fn a_missing_program_is_a_spawn_error() {
    let r = EngineProcess::spawn(&["/nonexistent/engine".into()], StderrTo::Discard);
    assert!(matches!(r, Err(ClientError::Spawn(_))));
    assert!(matches!(
        EngineProcess::spawn(&[], StderrTo::Discard),
        Err(ClientError::Spawn(_))
    ));
}
