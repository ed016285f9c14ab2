//! The transcript: every message of a session, in order, with timestamps and direction.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From the client to the server.
    Sent,
    /// From the server to the client.
    Received,
}

/// What a transcript entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// A JSON-RPC request (either way).
    Request,
    /// A notification (either way).
    Notification,
    /// A response with a result.
    Response,
    /// A response with an error.
    Error,
    /// A JSON-RPC batch (an array of messages).
    Batch,
    /// A line or body that is not a JSON-RPC message.
    Invalid,
    /// A remark of the client's own, such as an HTTP session renewed (not on the wire).
    Note,
}

impl MessageKind {
    /// The lower-case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::Request => "request",
            MessageKind::Notification => "notification",
            MessageKind::Response => "response",
            MessageKind::Error => "error",
            MessageKind::Batch => "batch",
            MessageKind::Invalid => "invalid",
            MessageKind::Note => "note",
        }
    }
}

impl std::fmt::Display for MessageKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One message of the transcript.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// Position in the session, from 0, never reused (also counts dropped entries).
    pub seq: u64,
    /// Time since the session started.
    #[serde(serialize_with = "ser_micros", deserialize_with = "de_micros")]
    pub at: Duration,
    /// Wall-clock time.
    #[serde(
        serialize_with = "ser_system_time",
        deserialize_with = "de_system_time"
    )]
    pub wall: SystemTime,
    /// Sent or received.
    pub direction: Direction,
    /// What the message is.
    pub kind: MessageKind,
    /// The method, for requests and notifications.
    pub method: Option<String>,
    /// The exact text of the line (without its newline).
    pub text: String,
}

fn ser_micros<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_micros() as u64)
}

fn de_micros<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    Ok(Duration::from_micros(serde::Deserialize::deserialize(d)?))
}

fn de_system_time<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
    let ms: u64 = serde::Deserialize::deserialize(d)?;
    Ok(SystemTime::UNIX_EPOCH + Duration::from_millis(ms))
}

fn ser_system_time<S: serde::Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
    let ms = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    s.serialize_u64(ms)
}

/// Bytes of message text per block of the store: large enough that a block is rarely
/// started, small enough that a short session does not hold much it never uses.
const BLOCK: usize = 64 * 1024;

/// The stored form of an entry; its text (and method) live in a block.
#[derive(Debug, Clone, Copy)]
struct Record {
    at: Duration,
    /// Where the text starts, counted over every byte ever stored.
    start: u64,
    text_len: u32,
    /// The method's length (stored right after the text); `u32::MAX` when there is none.
    method_len: u32,
    direction: Direction,
    kind: MessageKind,
}

const NO_METHOD: u32 = u32::MAX;

/// Consecutive message bytes; `base` is the position of its first byte in the stream of
/// every byte ever stored.
#[derive(Debug)]
struct Block {
    base: u64,
    bytes: Vec<u8>,
}

/// A bounded transcript: the newest `limit` entries are kept, older ones are counted.
///
/// A session records two messages per call, so recording is on every call's path: the
/// texts are copied one after another into large blocks and each entry is a small fixed
/// record, rather than two heap strings and a large entry per message spread over memory
/// the call has not touched before. [`Entry`] values are built when they are read.
#[derive(Debug)]
pub struct Transcript {
    records: VecDeque<Record>,
    blocks: VecDeque<Block>,
    /// A block given back by dropped entries, reused before a new one is allocated.
    spare: Option<Vec<u8>>,
    limit: usize,
    /// Most bytes of message text kept; the oldest entries go first.
    max_bytes: usize,
    next_seq: u64,
    /// The wall-clock time at the start: an entry's wall time is this plus its `at`, one
    /// clock read per message, and wall times never run backwards within a session.
    started_wall: SystemTime,
}

impl Transcript {
    /// An empty transcript keeping at most `limit` entries.
    pub fn new(limit: usize) -> Transcript {
        Transcript {
            records: VecDeque::new(),
            blocks: VecDeque::new(),
            spare: None,
            limit: limit.max(1),
            max_bytes: usize::MAX,
            next_seq: 0,
            started_wall: SystemTime::now(),
        }
    }

    /// The same transcript keeping at most `max_bytes` of message text (at least the newest
    /// entry is kept, whatever its size).
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Transcript {
        self.max_bytes = max_bytes;
        self
    }

    /// Bytes of text from the oldest kept entry to the end.
    fn kept_bytes(&self) -> u64 {
        let end = self
            .blocks
            .back()
            .map_or(0, |b| b.base + b.bytes.len() as u64);
        self.records.front().map_or(0, |r| end - r.start)
    }

    /// Appends an entry; `text` is the line as it went over the wire (UTF-8 where the
    /// caller had a string; read back lossily otherwise).
    pub fn push(
        &mut self,
        at: Duration,
        direction: Direction,
        kind: MessageKind,
        method: Option<&str>,
        text: &[u8],
    ) {
        if self.records.len() == self.limit {
            self.records.pop_front();
            self.release_blocks();
        }
        // Lengths beyond u32 cannot occur: messages are capped far below 4 GiB.
        let text_len = u32::try_from(text.len()).unwrap_or(u32::MAX);
        let text = &text[..text_len as usize];
        let method = method.map(|m| &m.as_bytes()[..m.len().min(u32::MAX as usize - 1)]);
        let need = text.len() + method.map_or(0, <[u8]>::len);
        let block = self.block_with_room(need);
        let start = block.base + block.bytes.len() as u64;
        block.bytes.extend_from_slice(text);
        if let Some(m) = method {
            block.bytes.extend_from_slice(m);
        }
        self.records.push_back(Record {
            at,
            start,
            text_len,
            method_len: method.map_or(NO_METHOD, |m| m.len() as u32),
            direction,
            kind,
        });
        self.next_seq += 1;
        while self.records.len() > 1 && self.kept_bytes() > self.max_bytes as u64 {
            self.records.pop_front();
            self.release_blocks();
        }
    }

    /// The block the next `need` bytes go to: the last one when they fit, else a new one.
    fn block_with_room(&mut self, need: usize) -> &mut Block {
        let fits = self
            .blocks
            .back()
            .is_some_and(|b| b.bytes.capacity() - b.bytes.len() >= need);
        if !fits {
            let base = self
                .blocks
                .back()
                .map_or(0, |b| b.base + b.bytes.len() as u64);
            let bytes = match self.spare.take() {
                Some(mut bytes) if bytes.capacity() >= need => {
                    bytes.clear();
                    bytes
                }
                _ => Vec::with_capacity(need.max(BLOCK)),
            };
            self.blocks.push_back(Block { base, bytes });
        }
        self.blocks.back_mut().expect("a block with room")
    }

    /// Drops the blocks before the oldest kept entry's text; one is kept for reuse.
    fn release_blocks(&mut self) {
        let end = self
            .blocks
            .back()
            .map_or(0, |b| b.base + b.bytes.len() as u64);
        let oldest = self.records.front().map_or(end, |r| r.start);
        while self.blocks.len() > 1 && self.blocks[1].base <= oldest {
            let block = self.blocks.pop_front().expect("two blocks");
            if block.bytes.capacity() == BLOCK {
                self.spare = Some(block.bytes);
            }
        }
    }

    /// The stored bytes of `len` bytes from `start`.
    fn bytes(&self, start: u64, len: usize) -> &[u8] {
        let i = self.blocks.partition_point(|b| b.base <= start) - 1;
        let block = &self.blocks[i];
        let from = (start - block.base) as usize;
        &block.bytes[from..from + len]
    }

    fn entry(&self, index: usize) -> Entry {
        let r = self.records[index];
        let text_len = r.text_len as usize;
        let text = self.bytes(r.start, text_len);
        let method = (r.method_len != NO_METHOD)
            .then(|| self.bytes(r.start + text_len as u64, r.method_len as usize));
        let string = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        Entry {
            seq: self.dropped() + index as u64,
            at: r.at,
            wall: self.started_wall + r.at,
            direction: r.direction,
            kind: r.kind,
            method: method.map(string),
            text: string(text),
        }
    }

    /// The direction, kind and text of the last entry, without copying the text.
    pub fn last_text(&self) -> Option<(Direction, MessageKind, std::borrow::Cow<'_, str>)> {
        let r = self.records.back()?;
        let text = self.bytes(r.start, r.text_len as usize);
        Some((r.direction, r.kind, String::from_utf8_lossy(text)))
    }

    /// The last entry.
    pub fn last(&self) -> Option<Entry> {
        self.records.len().checked_sub(1).map(|i| self.entry(i))
    }

    /// The kept entries, oldest first.
    pub fn entries(&self) -> Vec<Entry> {
        (0..self.records.len()).map(|i| self.entry(i)).collect()
    }

    /// How many entries were dropped to respect the limit.
    pub fn dropped(&self) -> u64 {
        self.next_seq - self.records.len() as u64
    }

    /// Forgets every entry, keeping the limits (the next test of a shared session starts a
    /// transcript of its own). One block stays for reuse.
    pub fn clear(&mut self) {
        self.records.clear();
        if let Some(last) = self.blocks.pop_back() {
            self.spare = Some(last.bytes);
        }
        self.blocks.clear();
        self.next_seq = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_bound_drops_the_oldest_entries() {
        let mut t = Transcript::new(1000).with_max_bytes(250_000);
        let big = vec![b'x'; 100_000];
        for _ in 0..5 {
            t.push(
                Duration::ZERO,
                Direction::Received,
                MessageKind::Notification,
                None,
                &big,
            );
        }
        assert_eq!(t.entries().len(), 2, "two of 100 kB fit in 250 kB");
        assert_eq!(t.dropped(), 3);
        // One entry larger than the bound is still kept: it is the newest.
        let huge = vec![b'y'; 400_000];
        t.push(
            Duration::ZERO,
            Direction::Received,
            MessageKind::Response,
            None,
            &huge,
        );
        assert_eq!(t.entries().len(), 1);
        assert_eq!(t.entries()[0].text.len(), 400_000);
    }

    #[test]
    fn keeps_newest() {
        let mut t = Transcript::new(2);
        for i in 0..5 {
            t.push(
                Duration::ZERO,
                Direction::Sent,
                MessageKind::Request,
                None,
                i.to_string().as_bytes(),
            );
        }
        let e = t.entries();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].text, "3");
        assert_eq!(e[1].seq, 4);
        assert_eq!(t.dropped(), 3);
    }

    #[test]
    fn entries_read_back_across_blocks() {
        let mut t = Transcript::new(1_000);
        let big = "x".repeat(BLOCK + 10);
        let texts: Vec<String> = (0..300)
            .map(|i| match i {
                7 => big.clone(),
                _ => format!("{{\"id\":{i},\"text\":\"{}\"}}", "é".repeat(i % 50)),
            })
            .collect();
        for (i, text) in texts.iter().enumerate() {
            let method = (i % 3 == 0).then(|| format!("m/{i}"));
            let direction = if i % 2 == 0 {
                Direction::Sent
            } else {
                Direction::Received
            };
            t.push(
                Duration::from_micros(i as u64),
                direction,
                MessageKind::Request,
                method.as_deref(),
                text.as_bytes(),
            );
        }
        let e = t.entries();
        assert_eq!(e.len(), 300);
        for (i, entry) in e.iter().enumerate() {
            assert_eq!(entry.seq, i as u64);
            assert_eq!(&entry.text, &texts[i]);
            assert_eq!(entry.method, (i % 3 == 0).then(|| format!("m/{i}")));
            assert_eq!(entry.at, Duration::from_micros(i as u64));
            assert_eq!(entry.direction == Direction::Sent, i % 2 == 0);
        }
        assert_eq!(t.last().unwrap().text, texts[299]);
    }

    #[test]
    fn a_bounded_transcript_reuses_its_blocks() {
        let mut t = Transcript::new(10);
        let text = "y".repeat(1000);
        for i in 0..10_000 {
            t.push(
                Duration::ZERO,
                Direction::Received,
                MessageKind::Response,
                None,
                text.as_bytes(),
            );
            assert!(
                t.blocks.len() <= 2,
                "after {i} entries: {} blocks",
                t.blocks.len()
            );
        }
        assert_eq!(t.dropped(), 9_990);
        let e = t.entries();
        assert_eq!(e.len(), 10);
        assert!(e.iter().all(|e| e.text == text));
        assert_eq!(e[9].seq, 9_999);
        let mut one = Transcript::new(1);
        for _ in 0..1_000 {
            one.push(
                Duration::ZERO,
                Direction::Sent,
                MessageKind::Request,
                Some("ping"),
                text.as_bytes(),
            );
        }
        assert!(one.blocks.len() <= 2);
        assert_eq!(one.last().unwrap().method.as_deref(), Some("ping"));
    }
}
