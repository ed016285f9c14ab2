//! Alarms for blocking waits: an event descriptor that becomes readable when its deadline
//! passes, rung by one process-wide thread.
//!
//! A wait that blocks in `epoll_wait(2)` on a server's pipes needs to wake at its deadline.
//! A timeout given to the wait would do, but the kernel then arms and cancels a timer on
//! every wait, which costs more than the rest of a fast round trip's client work. Here a wait
//! only stores its deadline in an atomic and has the alarm's descriptor in its set; the
//! watch thread sleeps until the earliest stored deadline and rings what has passed. A wait
//! whose deadline is later than the one the thread already sleeps towards (the usual case:
//! calls in a row with the same timeout) does not touch the thread at all.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use nix::sys::eventfd::{EfdFlags, EventFd};

/// No deadline (in `Alarm::deadline`) / the thread sleeps with none (in `Watch::sleeps_until`).
const NONE: u64 = 0;
const NEVER: u64 = u64::MAX;

/// A deadline and the descriptor that becomes readable when it passes.
#[derive(Debug)]
pub struct Alarm {
    fd: EventFd,
    /// Nanoseconds since [`epoch`] plus one; [`NONE`] when not set.
    deadline: AtomicU64,
}

struct Watch {
    alarms: Mutex<Vec<Weak<Alarm>>>,
    wake: Condvar,
    /// The deadline the thread sleeps towards ([`NEVER`] for none); `NONE` while it scans,
    /// so that an alarm set meanwhile always wakes it.
    sleeps_until: AtomicU64,
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn ticks(at: Instant) -> u64 {
    (at.saturating_duration_since(epoch()).as_nanos() as u64).saturating_add(1)
}

/// The watch thread, started on first use; `None` when it cannot be started.
fn watch() -> Option<&'static Watch> {
    static WATCH: OnceLock<Option<&'static Watch>> = OnceLock::new();
    *WATCH.get_or_init(|| {
        let watch: &'static Watch = Box::leak(Box::new(Watch {
            alarms: Mutex::new(Vec::new()),
            wake: Condvar::new(),
            sleeps_until: AtomicU64::new(NONE),
        }));
        std::thread::Builder::new()
            .name("mcpr-deadlines".into())
            .spawn(move || watch.run())
            .ok()
            .map(|_| watch)
    })
}

impl Watch {
    fn run(&self) {
        let Ok(mut alarms) = self.alarms.lock() else {
            return;
        };
        loop {
            self.sleeps_until.store(NONE, SeqCst);
            let now = ticks(Instant::now());
            let mut next = NEVER;
            alarms.retain(|weak| {
                let Some(alarm) = weak.upgrade() else {
                    return false;
                };
                let due = alarm.deadline.load(SeqCst);
                if due != NONE {
                    // Rung only if the deadline is still the one that passed: the owner may
                    // have set a new one meanwhile.
                    if due <= now {
                        if alarm
                            .deadline
                            .compare_exchange(due, NONE, SeqCst, SeqCst)
                            .is_ok()
                        {
                            let _ = alarm.fd.write(1);
                        }
                    } else {
                        next = next.min(due);
                    }
                }
                true
            });
            self.sleeps_until.store(next, SeqCst);
            alarms = if next == NEVER {
                match self.wake.wait(alarms) {
                    Ok(g) => g,
                    Err(_) => return,
                }
            } else {
                let left = Duration::from_nanos(next - now);
                match self.wake.wait_timeout(alarms, left) {
                    Ok((g, _)) => g,
                    Err(_) => return,
                }
            };
        }
    }
}

impl Alarm {
    /// A new alarm, not set; `None` when the system cannot provide one (then wait another way).
    pub fn new() -> Option<Arc<Alarm>> {
        let watch = watch()?;
        let fd = EventFd::from_flags(EfdFlags::EFD_NONBLOCK | EfdFlags::EFD_CLOEXEC).ok()?;
        let alarm = Arc::new(Alarm {
            fd,
            deadline: AtomicU64::new(NONE),
        });
        watch.alarms.lock().ok()?.push(Arc::downgrade(&alarm));
        Some(alarm)
    }

    /// Rings at `at` (replacing any deadline set before).
    pub fn set(&self, at: Instant) {
        let due = ticks(at);
        self.deadline.store(due, SeqCst);
        let Some(watch) = watch() else { return };
        let sleeps_until = watch.sleeps_until.load(SeqCst);
        if sleeps_until == NONE || due < sleeps_until {
            // Taking the lock waits until the thread sleeps, so the wake-up is not lost.
            let _guard = watch.alarms.lock();
            watch.wake.notify_one();
        }
    }

    /// Stops the alarm (a ring already delivered stays readable until [`Alarm::clear`]).
    pub fn unset(&self) {
        self.deadline.store(NONE, SeqCst);
    }

    /// Consumes a delivered ring.
    pub fn clear(&self) {
        let _ = self.fd.read();
    }

    /// The descriptor to poll: readable once the alarm has rung.
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.fd.as_fd()
    }
}

impl Drop for Alarm {
    fn drop(&mut self) {
        self.deadline.store(NONE, SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

    fn rings_within(alarm: &Alarm, limit: u16) -> bool {
        let mut fds = [PollFd::new(alarm.fd(), PollFlags::POLLIN)];
        poll(&mut fds, PollTimeout::from(limit)).unwrap_or(0) == 1
    }

    #[test]
    fn an_alarm_rings_at_its_deadline_not_before() {
        let alarm = Alarm::new().expect("alarm");
        let start = Instant::now();
        alarm.set(start + Duration::from_millis(150));
        assert!(!rings_within(&alarm, 50), "rang early");
        assert!(rings_within(&alarm, 2000), "did not ring");
        assert!(start.elapsed() >= Duration::from_millis(150));
        alarm.clear();
        assert!(!rings_within(&alarm, 0), "a cleared ring stays readable");
    }

    /// A later deadline set after an earlier one moves it; an earlier one set while the
    /// thread sleeps towards a later one wakes the thread.
    #[test]
    fn deadlines_move_both_ways() {
        let alarm = Alarm::new().expect("alarm");
        alarm.set(Instant::now() + Duration::from_millis(100));
        alarm.set(Instant::now() + Duration::from_secs(60));
        assert!(!rings_within(&alarm, 300), "rang at a replaced deadline");
        let other = Alarm::new().expect("alarm");
        let start = Instant::now();
        other.set(start + Duration::from_millis(50));
        assert!(rings_within(&other, 2000), "an earlier deadline was missed");
        assert!(start.elapsed() < Duration::from_secs(2));
        alarm.unset();
    }

    #[test]
    fn an_unset_alarm_stays_silent() {
        let alarm = Alarm::new().expect("alarm");
        alarm.set(Instant::now() + Duration::from_millis(50));
        alarm.unset();
        assert!(!rings_within(&alarm, 300));
    }
}
