//! What memory the machine can give, allocations that say when it can't
//! (a table or an arena the user sizes must be refused with a clear
//! message, or shrunk, never abort the process), and how much another
//! process has taken (an engine's peak, which the referee holds to a limit).

use std::alloc::{alloc_zeroed, Layout};

/// Bytes this process can still be given: the kernel's `MemAvailable`,
/// lowered by the cgroup's limit (a container's `memory.max`) where there is
/// one; `None` where neither can be read (then nothing is refused up front,
/// and allocations still fail softly).
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let available = meminfo.as_deref().and_then(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|kb| kb.trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    let cgroup = cgroup_room();
    match (available, cgroup) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    }
}

/// What the cgroup v2 limit leaves (`memory.max` less `memory.current`).
fn cgroup_room() -> Option<u64> {
    let read = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok();
    let max = read("memory.max")?.trim().parse::<u64>().ok()?; // "max": no limit
    let current = read("memory.current")?.trim().parse::<u64>().unwrap_or(0);
    Some(max.saturating_sub(current))
}

/// Processes read at most by [`peak_resident_bytes`]: an engine that
/// forks without end costs the referee bounded work per move.
const MAX_PROCESSES: usize = 64;

/// The peak resident size of process `pid` and its descendants: the sum of
/// each one's high-water mark (`VmHWM`), so at least the peak of the whole
/// at any one time. `None` where `/proc` can't tell (not Linux, or `pid`
/// gone). A descendant that has already exited is not counted.
pub fn peak_resident_bytes(pid: u32) -> Option<u64> {
    let mut total = own_peak_bytes(pid)?;
    let mut todo = children(pid);
    let mut read = 1;
    while let Some(p) = todo.pop() {
        if read == MAX_PROCESSES {
            break;
        }
        read += 1;
        total += own_peak_bytes(p).unwrap_or(0);
        todo.extend(children(p));
    }
    Some(total)
}

/// `VmHWM` of one process, in bytes.
fn own_peak_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

/// The children of every thread of process `pid` (what can be read).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|w| w.parse::<u32>().ok()),
            );
        }
    }
    out
}

/// `MiB` as words of text for messages: `23.4 GiB`, `512 MiB`.
pub fn shown(bytes: u64) -> String {
    let mib = bytes as f64 / f64::from(1 << 20);
    if mib >= 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else {
        format!("{mib:.0} MiB")
    }
}

/// Checks that `mib` MiB can be had now: `Err` with the reason when the
/// machine has less available (what can be read of it).
pub fn check_mib(mib: u64) -> Result<(), String> {
    match available_bytes() {
        Some(room) if mib.saturating_mul(1 << 20) > room => Err(format!(
            "{mib} MiB is more memory than this machine has available ({})",
            shown(room)
        )),
        _ => Ok(()),
    }
}

/// `len` zeroed words, or `None` when the allocator can't give them. Like
/// `vec![0u64; len]` (the pages are zeroed lazily by the kernel, so a big
/// table costs only what is touched) but without aborting on failure.
pub fn zeroed_words(len: usize) -> Option<Vec<u64>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = Layout::array::<u64>(len).ok()?;
    // SAFETY: the layout has a non-zero size; a non-null pointer from
    // alloc_zeroed with the layout of `len` u64s is a valid, initialised
    // (zero is a u64) allocation that Vec may own with capacity `len`
    // (the global allocator, the same layout when it is freed).
    unsafe {
        let ptr = alloc_zeroed(layout) as *mut u64;
        if ptr.is_null() {
            None
        } else {
            Some(Vec::from_raw_parts(ptr, len, len))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_says_what_it_has() {
        let room = available_bytes().expect("Linux has /proc/meminfo");
        assert!(room > 1 << 20, "{room}");
        assert!(check_mib(1).is_ok());
        let e = check_mib(u64::MAX >> 20).unwrap_err();
        assert!(
            e.contains("more memory than this machine has available"),
            "{e}"
        );
    }

    /// A child's peak is counted in its parent's, and a page touched is
    /// resident: a shell whose child holds 64 MiB peaks above that.
    #[test]
    fn a_process_tree_peaks_at_what_its_members_touched() {
        let me = peak_resident_bytes(std::process::id()).expect("Linux has /proc");
        assert!(me > 1 << 20, "{me}");
        let script = "import sys; b = bytearray(64 << 20); b[::4096] = b'x' * 16384; sys.stdout.write('x'); \
                      sys.stdout.flush(); sys.stdin.read()";
        let mut child = std::process::Command::new("sh")
            .args(["-c", &format!("python3 -c \"{script}\"; true")])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh and python3 are installed");
        let mut byte = [0u8; 1];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut byte).unwrap();
        let shell = own_peak_bytes(child.id()).unwrap();
        let tree = peak_resident_bytes(child.id()).unwrap();
        drop(child.stdin.take());
        child.wait().unwrap();
        assert!(shell < 64 << 20, "{shell}");
        assert!(tree >= shell + (64 << 20), "{tree} {shell}");
        assert_eq!(peak_resident_bytes(u32::MAX), None);
    }

    #[test]
    fn zeroed_words_are_zero_or_refused() {
        let v = zeroed_words(1 << 20).unwrap();
        assert_eq!((v.len(), v.iter().any(|&w| w != 0)), (1 << 20, false));
        assert!(zeroed_words(0).unwrap().is_empty());
        // More than any address space: refused, not an abort.
        assert!(zeroed_words(usize::MAX / 8).is_none());
        assert!(zeroed_words(1 << 61).is_none());
    }
}
