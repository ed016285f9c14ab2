//! Processes a server leaves behind. A server is started in a process group of its own and
//! the group is ended at shutdown; a descendant that left the group (`setsid`, a daemon's
//! double fork) escapes that. So mcpr makes itself the child subreaper of its process
//! (`PR_SET_CHILD_SUBREAPER`): an orphaned descendant is re-parented to mcpr instead of
//! init, and every server is started with `MCPR_SESSION=<n>` in its environment, which its
//! descendants inherit. When a session ends, the children of mcpr that carry its mark and
//! are not servers themselves are ended with their groups and reaped.
//!
//! Everything here reads only the process tree below mcpr (`/proc/<pid>/task/*/children`)
//! and the environment of those processes, never all of `/proc`.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// The environment variable that marks a server and its descendants with their session.
pub const SESSION_MARK: &str = "MCPR_SESSION";

/// A fresh session mark for a server about to start; makes mcpr the child subreaper first
/// (once per process).
pub fn next_mark() -> String {
    static SUBREAPER: OnceLock<()> = OnceLock::new();
    SUBREAPER.get_or_init(|| {
        // Without it (an old kernel) orphans go to init and only the group is ended.
        let _ = nix::sys::prctl::set_child_subreaper(true);
    });
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The children of process `pid` (all its threads').
pub fn children(pid: u32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    out
}

/// Process `pid` and all its descendants, walking the tree down from it.
pub fn tree(pid: i32) -> Vec<i32> {
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() && out.len() < 10_000 {
        let next = children(out[i] as u32);
        out.extend(next);
        i += 1;
    }
    out
}

/// Whether `pid` is alive and not a zombie.
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Whether process `pid` carries session mark `mark`.
fn carries(pid: i32, mark: &str) -> bool {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let wanted = format!("{SESSION_MARK}={mark}");
    environ.split(|b| *b == 0).any(|v| v == wanted.as_bytes())
}

/// The children of mcpr marked with `mark` other than `server` (orphans re-parented to
/// mcpr), each with its descendants.
pub fn strays(mark: &str, server: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for pid in children(std::process::id()) {
        if pid != server && carries(pid, mark) {
            out.extend(tree(pid));
        }
    }
    out
}

/// Ends the orphans of session `mark`: SIGTERM to each (and its group when it leads one),
/// `grace`, SIGKILL, then reaps the ones that are mcpr's children. Returns whether there
/// were any.
pub async fn end_strays(mark: &str, server: i32, grace: Duration) -> bool {
    let found = strays(mark, server);
    if found.is_empty() {
        return false;
    }
    signal_all(&found, Signal::SIGTERM);
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline && found.iter().any(|p| alive(*p)) {
        reap(&found);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if found.iter().any(|p| alive(*p)) {
        signal_all(&found, Signal::SIGKILL);
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline && found.iter().any(|p| alive(*p)) {
            reap(&found);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    reap(&found);
    true
}

fn signal_all(pids: &[i32], signal: Signal) {
    for &pid in pids {
        let p = Pid::from_raw(pid);
        if nix::unistd::getpgid(Some(p)).is_ok_and(|g| g == p) {
            let _ = killpg(p, signal);
        }
        let _ = kill(p, signal);
    }
}

/// Collects the exit status of those of `pids` that are mcpr's children and have ended
/// (a re-parented orphan is nobody else's to reap).
fn reap(pids: &[i32]) {
    let mine = children(std::process::id());
    for pid in pids.iter().filter(|p| mine.contains(p)) {
        let _ = waitpid(Pid::from_raw(*pid), Some(WaitPidFlag::WNOHANG));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_below_a_process_is_found_without_scanning_proc() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 5 & sleep 5 & wait"])
            .spawn()
            .expect("sh starts");
        let pid = child.id() as i32;
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut found = tree(pid);
        while found.len() < 3 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            found = tree(pid);
        }
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(children(std::process::id()).contains(&pid));
        assert!(found.iter().all(|p| alive(*p)));
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        for p in &found[1..] {
            let _ = kill(Pid::from_raw(*p), Signal::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(!alive(pid));
    }
}
