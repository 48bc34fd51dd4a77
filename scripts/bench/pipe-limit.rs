// The floor for a line protocol over pipes on this machine: a parent writes
// one short request line to a child, the child answers one GTP-framed reply,
// N times; then the cost of spawning and reaping a process.
// Build and run:  rustc -O scripts/bench/pipe-limit.rs -o target/pipe-limit && target/pipe-limit [N]
// (the child is the same program started with the argument "echo").
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(|s| s.as_str()) == Some("echo") {
        let stdin = std::io::stdin();
        let mut out = std::io::stdout().lock();
        let mut line = String::new();
        let mut r = stdin.lock();
        loop {
            line.clear();
            if r.read_line(&mut line).unwrap() == 0 { break; }
            out.write_all(b"= 2 2\n\n").unwrap();
            out.flush().unwrap();
        }
        return;
    }
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let me = std::env::current_exe().unwrap();
    let mut child = Command::new(me).arg("echo").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut w = child.stdin.take().unwrap();
    let mut r = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let t = Instant::now();
    for _ in 0..n {
        w.write_all(b"genmove\n").unwrap();
        w.flush().unwrap();
        loop { line.clear(); r.read_line(&mut line).unwrap(); if line == "\n" { break; } }
    }
    let dt = t.elapsed().as_secs_f64();
    println!("round_trips={} secs={:.3} per_rt_us={:.2} rt_per_s={:.0}", n, dt, dt * 1e6 / n as f64, n as f64 / dt);
    drop(w);
    child.wait().unwrap();
    // spawn cost
    let t = Instant::now();
    let m = 200;
    for _ in 0..m {
        let mut c = Command::new(std::env::current_exe().unwrap()).arg("echo").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        drop(c.stdin.take());
        c.wait().unwrap();
    }
    println!("spawn_wait_us={:.1}", t.elapsed().as_secs_f64() * 1e6 / m as f64);
}
