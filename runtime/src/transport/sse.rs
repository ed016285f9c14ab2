//! The WHATWG event-stream parser of the HTTP transport: complete events out of chunks,
//! with a size limit on lines and events.

/// An SSE line or event passed the size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseTooLarge;

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type (`message` when the stream names none).
    pub event: String,
    /// The data lines, joined by newlines.
    pub data: String,
}

/// A WHATWG event-stream parser that yields complete events, with a size limit.
#[derive(Debug)]
pub struct SseParser {
    /// The last event id seen (`id:`), for `Last-Event-ID`.
    pub last_event_id: Option<String>,
    /// The last reconnection delay announced (`retry:`), in milliseconds.
    pub retry_ms: Option<u64>,
    line: Vec<u8>,
    event: String,
    data: String,
    has_data: bool,
    limit: usize,
    last_cr: bool,
    /// Lossy reading only: the rest of an event over the limit is being skipped.
    skipping: bool,
}

impl SseParser {
    /// A parser whose lines and events may not exceed `limit` bytes.
    pub fn new(limit: usize) -> SseParser {
        SseParser {
            last_event_id: None,
            retry_ms: None,
            line: Vec::new(),
            event: String::new(),
            data: String::new(),
            has_data: false,
            limit,
            last_cr: false,
            skipping: false,
        }
    }

    /// Feeds bytes like [`SseParser::feed`], but an event over the limit is dropped (the
    /// rest of it skipped up to its blank line) and reading goes on: returns the events
    /// completed and how many were dropped. Memory stays within the limit whatever the
    /// stream holds.
    pub fn feed_lossy(&mut self, bytes: &[u8]) -> (Vec<SseEvent>, usize) {
        let mut out = Vec::new();
        let mut dropped = 0;
        for &b in bytes {
            if b == b'\n' && self.last_cr {
                self.last_cr = false;
                continue;
            }
            self.last_cr = b == b'\r';
            let end_of_line = b == b'\n' || b == b'\r';
            if self.skipping {
                // The dropped event ends at its first empty line.
                if end_of_line {
                    if self.line.is_empty() {
                        self.skipping = false;
                    }
                    self.line.clear();
                } else if self.line.is_empty() {
                    self.line.push(b);
                }
                continue;
            }
            if end_of_line {
                let line = std::mem::take(&mut self.line);
                self.line_done(&line, &mut out);
            } else {
                self.line.push(b);
            }
            if self.line.len() > self.limit || self.data.len() > self.limit {
                dropped += 1;
                // Mid-line: the line's rest is skipped first; after a line, the next
                // empty line ends the event.
                let mid_line = !self.line.is_empty();
                self.line.clear();
                if mid_line {
                    self.line.push(b'x');
                }
                self.data.clear();
                self.event.clear();
                self.has_data = false;
                self.skipping = true;
            }
        }
        (out, dropped)
    }

    /// Feeds bytes; returns the data of every event completed. `Err` when the limit is
    /// passed.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseTooLarge> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == b'\n' && self.last_cr {
                self.last_cr = false;
                continue;
            }
            self.last_cr = b == b'\r';
            if b == b'\n' || b == b'\r' {
                let line = std::mem::take(&mut self.line);
                self.line_done(&line, &mut out);
            } else {
                self.line.push(b);
                if self.line.len() > self.limit {
                    return Err(SseTooLarge);
                }
            }
        }
        if self.data.len() > self.limit {
            return Err(SseTooLarge);
        }
        Ok(out)
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.has_data {
                let mut data = std::mem::take(&mut self.data);
                if data.ends_with('\n') {
                    data.pop();
                }
                let event = std::mem::take(&mut self.event);
                out.push(SseEvent {
                    event: if event.is_empty() {
                        "message".into()
                    } else {
                        event
                    },
                    data,
                });
            }
            self.event.clear();
            self.has_data = false;
            return;
        }
        if line[0] == b':' {
            return;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.find(':') {
            Some(i) => (
                &text[..i],
                text[i + 1..].strip_prefix(' ').unwrap_or(&text[i + 1..]),
            ),
            None => (&text[..], ""),
        };
        match field {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "event" => self.event = value.to_string(),
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_string()),
            "retry" => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_across_chunks_and_line_endings() {
        let mut p = SseParser::new(1000);
        let mut got = p
            .feed(b": keep-alive\n\nid: 1\nevent: message\ndata: {\"a\":")
            .unwrap();
        assert!(got.is_empty());
        got.extend(p.feed(b"1}\r\n\r\ndata: x\ndata: y\n\nid: 2\n\n").unwrap());
        let data: Vec<&str> = got.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, vec!["{\"a\":1}", "x\ny"]);
        assert_eq!(got[0].event, "message");
        let ep = p
            .feed(b"event: endpoint\ndata: /message?sessionId=1\n\n")
            .unwrap();
        assert_eq!(
            ep,
            vec![SseEvent {
                event: "endpoint".into(),
                data: "/message?sessionId=1".into()
            }]
        );
        let mut p2 = SseParser::new(100);
        p2.feed(b"id: event-7\nretry: 500\ndata: \n\n").unwrap();
        assert_eq!(
            (p2.last_event_id.as_deref(), p2.retry_ms),
            (Some("event-7"), Some(500))
        );
        let mut small = SseParser::new(4);
        assert!(small.feed(b"data: 123456\n").is_err());
    }

    #[test]
    fn lossy_reading_drops_an_event_over_the_limit_and_goes_on() {
        let mut p = SseParser::new(16);
        // A line over the limit, split across chunks, then an event of many small lines.
        let (got, dropped) = p.feed_lossy(b"data: ok1\n\ndata: 0123456789");
        assert_eq!((got.len(), dropped), (1, 0));
        let (got, dropped) = p.feed_lossy(b"abcdef\ndata: more\n\ndata: ok2\r\n\r\n");
        assert_eq!(dropped, 1);
        assert_eq!(
            got.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["ok2"]
        );
        let (got, dropped) =
            p.feed_lossy(b"data: 12345\ndata: 12345\ndata: 12345\n\ndata: ok3\n\n");
        assert_eq!(dropped, 1);
        assert_eq!(
            got.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["ok3"]
        );
    }
}
