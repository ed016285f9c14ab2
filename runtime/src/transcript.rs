//! The transcript: every message of a session, in order, with timestamps and direction.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From the client to the server.
    Sent,
    /// From the server to the client.
    Received,
}

/// One message of the transcript.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Entry {
    /// Position in the session, from 0, never reused (also counts dropped entries).
    pub seq: u64,
    /// Time since the session started.
    #[serde(serialize_with = "ser_micros")]
    pub at: Duration,
    /// Wall-clock time.
    #[serde(serialize_with = "ser_system_time")]
    pub wall: SystemTime,
    /// Sent or received.
    pub direction: Direction,
    /// `request`, `notification`, `response`, `error`, `batch` or `invalid`.
    pub kind: &'static str,
    /// The method, for requests and notifications.
    pub method: Option<String>,
    /// The exact text of the line (without its newline).
    pub text: String,
}

fn ser_micros<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_micros() as u64)
}

fn ser_system_time<S: serde::Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
    let ms = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    s.serialize_u64(ms)
}

/// A bounded transcript: the newest `limit` entries are kept, older ones are counted.
#[derive(Debug)]
pub struct Transcript {
    entries: VecDeque<Entry>,
    limit: usize,
    next_seq: u64,
    /// The wall-clock time at the start: an entry's wall time is this plus its `at`, one
    /// clock read per message, and wall times never run backwards within a session.
    started_wall: SystemTime,
}

impl Transcript {
    /// An empty transcript keeping at most `limit` entries.
    pub fn new(limit: usize) -> Transcript {
        Transcript {
            entries: VecDeque::new(),
            limit: limit.max(1),
            next_seq: 0,
            started_wall: SystemTime::now(),
        }
    }

    /// Appends an entry and returns a copy of its summary.
    pub fn push(
        &mut self,
        at: Duration,
        direction: Direction,
        kind: &'static str,
        method: Option<String>,
        text: String,
    ) -> &Entry {
        if self.entries.len() == self.limit {
            self.entries.pop_front();
        }
        let entry = Entry {
            seq: self.next_seq,
            at,
            wall: self.started_wall + at,
            direction,
            kind,
            method,
            text,
        };
        self.next_seq += 1;
        self.entries.push_back(entry);
        self.entries.back().expect("just pushed")
    }

    /// The last entry.
    pub fn last(&self) -> Option<&Entry> {
        self.entries.back()
    }

    /// The kept entries, oldest first.
    pub fn entries(&self) -> Vec<Entry> {
        self.entries.iter().cloned().collect()
    }

    /// How many entries were dropped to respect the limit.
    pub fn dropped(&self) -> u64 {
        self.next_seq - self.entries.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_newest() {
        let mut t = Transcript::new(2);
        for i in 0..5 {
            t.push(
                Duration::ZERO,
                Direction::Sent,
                "request",
                None,
                i.to_string(),
            );
        }
        let e = t.entries();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].text, "3");
        assert_eq!(e[1].seq, 4);
        assert_eq!(t.dropped(), 3);
    }
}
