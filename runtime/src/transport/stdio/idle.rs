//! Whether a server that was asked to exit is still doing something. mcpr's default shutdown
//! grace ([`super::ShutdownGrace::Auto`]) waits for a server to exit on its own after its
//! stdin closes, but not for one that merely sits there: a server whose clean-up runs (a
//! Python interpreter tearing down, a coverage file being written) keeps its threads
//! running, runnable or in disk wait, while one held only by a pending timer sleeps.
//!
//! Measured after stdin EOF (2026-12-04): the Python SDK servers mcp-server-time and
//! mcp-server-git take 90-240 ms and are busy the whole time (a thread running or runnable
//! at every sample, CPU time growing); the Node servers exit in 9-17 ms; server-everything
//! sits asleep for ~350 ms, its roots timer the only thing left, and then exits.
//!
//! A sample ([`Activity`]) covers the server and every process below it (a wrapper such as
//! `npx` or `uv run` waits asleep for the child that does the work): each thread's state,
//! CPU time and context switches, from `/proc/<pid>/task/<tid>/{stat,status}`. The server
//! counts as idle once no thread was running, runnable or in disk wait at any sample and
//! neither the CPU time nor the switches changed for [`QUIET`]. Where `/proc` cannot be
//! read, nothing is ever idle and the whole grace is waited.

use std::time::Duration;

use super::descendants;

/// How long a server must sit idle before its grace ends early.
pub const QUIET: Duration = Duration::from_millis(20);

/// How often the server's threads are looked at while waiting.
pub const SAMPLE: Duration = Duration::from_millis(5);

/// What a server's processes have done so far, as far as it tells busy from asleep.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Activity {
    /// A thread was running, runnable or in disk wait when it was looked at.
    pub busy: bool,
    /// User and system CPU time of all threads, in clock ticks.
    pub ticks: u64,
    /// Voluntary and involuntary context switches of all threads.
    pub switches: u64,
    /// Threads seen (one ending is activity too).
    pub threads: u64,
}

impl Activity {
    /// A sample of process `pid` and its descendants; `None` when not even `pid` could be
    /// read (it is gone, or there is no `/proc`).
    pub fn sample(pid: i32) -> Option<Activity> {
        let mut total = Activity::default();
        for p in descendants::tree(pid) {
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
                continue;
            };
            for task in tasks.flatten() {
                let dir = task.path();
                let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else {
                    continue;
                };
                let Some((state, ticks)) = parse_stat(&stat) else {
                    continue;
                };
                total.threads += 1;
                total.busy |= matches!(state, 'R' | 'D');
                total.ticks += ticks;
                if let Ok(status) = std::fs::read_to_string(dir.join("status")) {
                    total.switches += parse_switches(&status);
                }
            }
        }
        (total.threads > 0).then_some(total)
    }

    /// Whether `self`, sampled after `before`, shows the server did nothing in between.
    pub fn quiet_since(&self, before: &Activity) -> bool {
        !self.busy && !before.busy && self.same_counts(before)
    }

    fn same_counts(&self, other: &Activity) -> bool {
        self.ticks == other.ticks
            && self.switches == other.switches
            && self.threads == other.threads
    }
}

/// The state letter and user + system ticks of a `stat` line (fields 3, 14 and 15; the
/// command name in parentheses may hold spaces and parentheses).
fn parse_stat(stat: &str) -> Option<(char, u64)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((state, utime + stime))
}

/// `voluntary_ctxt_switches` + `nonvoluntary_ctxt_switches` of a `status` file.
fn parse_switches(status: &str) -> u64 {
    status
        .lines()
        .filter_map(|l| {
            let (key, value) = l.split_once(':')?;
            key.ends_with("ctxt_switches")
                .then(|| value.trim().parse::<u64>().ok())
                .flatten()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_state_and_cpu_ticks_whatever_the_command_name() {
        let line = "4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 5 0 0 20 0 1 0";
        assert_eq!(parse_stat(line), Some(('S', 12)));
        assert_eq!(parse_stat("4242 (cut"), None);
        assert_eq!(parse_stat("4242 (short) R 1 2"), None);
    }

    #[test]
    fn the_switches_of_a_status_file_are_both_kinds_added() {
        let status = "Name:\tnode\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t40\n\
                      nonvoluntary_ctxt_switches:\t2\n";
        assert_eq!(parse_switches(status), 42);
        assert_eq!(parse_switches("Name:\tx\n"), 0);
    }

    #[test]
    fn a_sleeping_process_is_quiet_and_a_spinning_one_is_not() {
        let mut sleeper = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep");
        let mut spinner = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("sh");
        // Let both settle: the sleeper into its sleep, the spinner into its loop.
        std::thread::sleep(Duration::from_millis(100));
        let quiet = |pid: u32| {
            let before = Activity::sample(pid as i32).expect("a sample");
            std::thread::sleep(QUIET);
            let after = Activity::sample(pid as i32).expect("a sample");
            after.quiet_since(&before)
        };
        let sleeper_quiet = quiet(sleeper.id());
        let spinner_quiet = quiet(spinner.id());
        for child in [&mut sleeper, &mut spinner] {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(sleeper_quiet, "a process asleep in sleep(1) counts as idle");
        assert!(!spinner_quiet, "a process in a busy loop counts as busy");
        assert_eq!(Activity::sample(-1), None, "no process, no sample");
    }
}
