//! Processes a server leaves behind. A server is started in a process group of its own and
//! the group is ended at shutdown; a descendant that left the group (`setsid`, a daemon's
//! double fork) escapes that. So mcpr makes itself the child subreaper of its process
//! (`PR_SET_CHILD_SUBREAPER`): an orphaned descendant is re-parented to mcpr instead of
//! init, and every server is started with `MCPR_SESSION=<n>` in its environment, which its
//! descendants inherit. When a session ends, the children of mcpr that carry its mark and
//! are not servers themselves are ended with their groups and reaped.
//!
//! A session's own search can miss one: `/proc/<pid>/task/<tid>/children` lists the children
//! of one thread, and an orphan is moved to another thread of mcpr when the thread it was
//! re-parented to ends (a test's thread, a worker of the runtime) — between the reads of a
//! search it may be in neither list. So every ended session's mark is remembered, and once
//! the sessions of a suite are closed, [`sweep_strays`] ends any child of mcpr that still
//! carries one of them and forgets the marks (a long `mcpr watch` keeps no growing list);
//! then [`end_unclaimed`] ends any other child of mcpr that is not a live server: an orphan
//! whose environment was emptied, so that it carries no mark.
//!
//! Everything here reads only the process tree below mcpr (`/proc/<pid>/task/*/children`)
//! and the environment of those processes, never all of `/proc`.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
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

/// The session mark process `pid` carries, if any.
fn mark_of(pid: i32) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{SESSION_MARK}=");
    environ
        .split(|b| *b == 0)
        .find_map(|v| v.strip_prefix(prefix.as_bytes()))
        .map(|m| String::from_utf8_lossy(m).into_owned())
}

/// The children of mcpr other than `server` whose mark `wanted` accepts (orphans
/// re-parented to mcpr), each with its descendants. `server` 0 excepts no child: no process
/// has pid 0.
fn strays_where(server: i32, wanted: impl Fn(&str) -> bool) -> Vec<i32> {
    let mut out = Vec::new();
    for pid in children(std::process::id()) {
        if pid != server && mark_of(pid).is_some_and(|m| wanted(&m)) {
            out.extend(tree(pid));
        }
    }
    out
}

/// The children of mcpr marked with `mark` other than `server` (orphans re-parented to
/// mcpr), each with its descendants.
pub fn strays(mark: &str, server: i32) -> Vec<i32> {
    strays_where(server, |m| m == mark)
}

/// The marks of the sessions that have ended since the last [`sweep_strays`].
fn ended() -> &'static Mutex<HashSet<String>> {
    static ENDED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    ENDED.get_or_init(Mutex::default)
}

/// Remembers that the session marked `mark` has ended: any process still carrying its mark
/// is a stray.
pub fn mark_ended(mark: &str) {
    if let Ok(mut e) = ended().lock() {
        e.insert(mark.to_string());
    }
}

/// How long a stray found by [`sweep_strays`] has between SIGTERM and SIGKILL: its session's
/// own shutdown gave it the run's grace already.
const SWEEP_GRACE: Duration = Duration::from_millis(500);

/// Ends every child of mcpr that carries the mark of a session ended since the last sweep
/// (see the module notes), as [`end_strays`] ends a session's own, and forgets those marks.
/// Returns whether there were any.
pub async fn sweep_strays() -> bool {
    let marks = match ended().lock() {
        Ok(mut e) if !e.is_empty() => std::mem::take(&mut *e),
        _ => return false,
    };
    // Every session with one of these marks has ended, its server too: none is excepted.
    let found = strays_where(0, |m| marks.contains(m));
    end_all(found, SWEEP_GRACE).await
}

/// Ends every child of mcpr outside mcpr's process group that is not a live server, with
/// its descendants: once the sessions of a suite are closed, nothing else mcpr started is
/// alive there (a `Token from` command or a data plugin has been waited for), so such a child
/// is an orphan a server left — one that carries no session mark too, because it was started
/// with an empty environment (a SIGTERM handler that starts `env -i setsid …`). Returns
/// whether there were any.
pub async fn end_unclaimed() -> bool {
    let found = {
        // Held while the children are read and signalled: a server being started holds it
        // from before its spawn until it is registered.
        let Ok(registry) = super::process::registry().lock() else {
            return false;
        };
        // A child in mcpr's own process group was started by mcpr itself, not left by a
        // server (servers and what they start live in groups of their own).
        let own_group = nix::unistd::getpgrp();
        let found: Vec<i32> = children(std::process::id())
            .into_iter()
            .filter(|p| {
                !registry.contains(p)
                    && alive(*p)
                    && nix::unistd::getpgid(Some(Pid::from_raw(*p))).is_ok_and(|g| g != own_group)
            })
            .flat_map(tree)
            .collect();
        signal_all(&found, Signal::SIGTERM);
        found
    };
    end_all(found, SWEEP_GRACE).await
}

/// Ends the orphans of session `mark`: SIGTERM to each (and its group when it leads one),
/// `grace`, SIGKILL, then reaps the ones that are mcpr's children. Returns whether there
/// were any.
pub async fn end_strays(mark: &str, server: i32, grace: Duration) -> bool {
    end_all(strays(mark, server), grace).await
}

/// SIGTERM to each of `found` (and its group when it leads one), `grace`, SIGKILL, then
/// reaps the ones that are mcpr's children. Returns whether there were any.
async fn end_all(found: Vec<i32>, grace: Duration) -> bool {
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

    /// A descendant that left its group and outlived its parent is re-parented to this
    /// process; once its session's mark is remembered as ended, the sweep ends it, and it
    /// leaves a child marked by a session still open alone.
    #[tokio::test]
    async fn the_sweep_ends_the_strays_of_ended_sessions_only() {
        let (ended_mark, open_mark) = (next_mark(), next_mark());
        let stray = |mark: &str| {
            let mut sh = std::process::Command::new("sh")
                .args(["-c", "setsid sleep 30 >/dev/null 2>&1 </dev/null & echo $!"])
                .env(SESSION_MARK, mark)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("sh starts");
            let mut out = String::new();
            std::io::Read::read_to_string(sh.stdout.as_mut().unwrap(), &mut out).unwrap();
            sh.wait().unwrap();
            out.trim().parse::<i32>().expect("the stray's pid")
        };
        let (gone, kept) = (stray(&ended_mark), stray(&open_mark));
        let deadline = Instant::now() + Duration::from_secs(5);
        let mine = |p| children(std::process::id()).contains(&p);
        while !(mine(gone) && mine(kept)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(mine(gone) && mine(kept), "both strays are re-parented here");
        mark_ended(&ended_mark);
        // The ended marks are the process's: a test that closes a session at the same time
        // may sweep this one first. Either way the stray ends and the mark is forgotten.
        sweep_strays().await;
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(gone) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(gone), "the ended session's stray is gone");
        assert!(
            !ended().lock().unwrap().contains(&ended_mark),
            "the sweep forgets the marks it swept"
        );
        assert!(alive(kept), "an open session's process is left alone");
        let _ = kill(Pid::from_raw(kept), Signal::SIGKILL);
        let _ = waitpid(Pid::from_raw(kept), None);
    }

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
