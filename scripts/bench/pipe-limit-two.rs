// The floor for a game over pipes: a parent alternates one short request
// line between two children (the two engines of a game), each answering
// one GTP-framed reply, N times in all. scripts/bench/pipe-limit.rs
// measures the same with one child; a referee's ply is this one, and on
// one CPU each hand-off then switches to a third address space.
// Build and run:  rustc -O pipe-limit-two.rs -o target/pipe-limit-two && target/pipe-limit-two [N]
// (the children are the same program started with the argument "echo").
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

fn echo() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut line = String::new();
    let mut r = stdin.lock();
    loop {
        line.clear();
        if r.read_line(&mut line).unwrap() == 0 {
            break;
        }
        out.write_all(b"= 2 2\n\n").unwrap();
        out.flush().unwrap();
    }
}

fn spawn() -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let me = std::env::current_exe().unwrap();
    let mut child = Command::new(me)
        .arg("echo")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let w = child.stdin.take().unwrap();
    let r = BufReader::new(child.stdout.take().unwrap());
    (child, w, r)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(|s| s.as_str()) == Some("echo") {
        return echo();
    }
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let mut engines = [spawn(), spawn()];
    let mut line = String::new();
    let t = Instant::now();
    for i in 0..n {
        let (_, w, r) = &mut engines[i % 2];
        w.write_all(b"genmove\n").unwrap();
        w.flush().unwrap();
        loop {
            line.clear();
            r.read_line(&mut line).unwrap();
            if line == "\n" {
                break;
            }
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "round_trips={} secs={:.3} per_rt_us={:.2} rt_per_s={:.0}",
        n,
        dt,
        dt * 1e6 / n as f64,
        n as f64 / dt
    );
    for (mut child, w, _) in engines {
        drop(w);
        child.wait().unwrap();
    }
}
