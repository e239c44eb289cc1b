//! Task traces: which task ran on which lane, and when.
//!
//! A [`Trace`] is shared by every thread of a run and records complete events (a name, a lane
//! and a time interval) measured from one origin instant, so events from different threads line
//! up on one timeline. [`Trace::to_chrome_json`] writes the Chrome trace-event format, which
//! `chrome://tracing` and Perfetto display as one row per lane.

use std::{
    fmt::Write as _,
    mem,
    sync::{Mutex, PoisonError},
    time::{Duration, Instant},
};

/// One finished task: `name` ran on `lane` from `start` for `duration` (both relative to the
/// trace's origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// What ran (a kernel, a chunk, a process).
    pub name: String,
    /// Where it ran: a worker, core or process id; one timeline row per lane.
    pub lane: u64,
    /// When it started, relative to [`Trace::origin`].
    pub start: Duration,
    /// How long it ran.
    pub duration: Duration,
}

/// A thread-safe recorder of [`TraceEvent`]s.
#[derive(Debug)]
pub struct Trace {
    /// The origin and the events measured from it, together: [`restart`](Self::restart) swaps
    /// both at once.
    state: Mutex<Recorded>,
}

#[derive(Debug)]
struct Recorded {
    origin: Instant,
    events: Vec<TraceEvent>,
}

impl Default for Trace {
    fn default() -> Self {
        Self::new()
    }
}

impl Trace {
    /// An empty trace whose origin is now.
    pub fn new() -> Self {
        Self { state: Mutex::new(Recorded { origin: Instant::now(), events: Vec::new() }) }
    }

    /// The instant all event times are measured from.
    pub fn origin(&self) -> Instant {
        self.recorded().origin
    }

    /// The events recorded so far, as a trace of their own (same origin), leaving this one empty
    /// with its origin now: a runtime kept between runs gives each run its own timeline.
    pub fn restart(&self) -> Trace {
        let mut state = self.recorded();
        let fresh = Recorded { origin: Instant::now(), events: Vec::new() };
        Trace { state: Mutex::new(mem::replace(&mut *state, fresh)) }
    }

    fn recorded(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records that `name` ran on `lane` from `start` to `end`. Instants before the origin count
    /// as the origin, and an `end` before `start` as a zero duration.
    pub fn record(&self, name: impl Into<String>, lane: u64, start: Instant, end: Instant) {
        let name = name.into();
        let mut state = self.recorded();
        let start_offset = start.saturating_duration_since(state.origin);
        state.events.push(TraceEvent { name, lane, start: start_offset, duration: end.saturating_duration_since(start) });
    }

    /// Starts timing `name` on `lane`; the event is recorded when the returned guard is dropped,
    /// including during unwinding, so a failing task still shows up.
    pub fn span(&self, name: impl Into<String>, lane: u64) -> Span<'_> {
        Span { trace: self, name: name.into(), lane, start: Instant::now() }
    }

    /// A copy of the events recorded so far, in recording order.
    pub fn events(&self) -> Vec<TraceEvent> {
        self.recorded().events.clone()
    }

    /// The events as Chrome trace-event JSON: `{"traceEvents":[{"name":..,"ph":"X","ts":..,
    /// "dur":..,"pid":0,"tid":lane},..]}`, with times in microseconds (nanosecond precision).
    pub fn to_chrome_json(&self) -> String {
        let events = self.events();
        let mut out = String::with_capacity(32 + events.len() * 96);
        out.push_str("{\"traceEvents\":[");
        for (n, event) in events.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            out.push_str("{\"name\":");
            write_json_string(&mut out, &event.name);
            out.push_str(",\"ph\":\"X\",\"ts\":");
            write_micros(&mut out, event.start);
            out.push_str(",\"dur\":");
            write_micros(&mut out, event.duration);
            // Writing to a String cannot fail.
            let _ = write!(out, ",\"pid\":0,\"tid\":{}}}", event.lane);
        }
        out.push_str("]}");
        out
    }
}

/// Times a task; records it into its [`Trace`] when dropped. Created by [`Trace::span`].
#[must_use = "the span records its event when dropped; binding it to `_` records it at once"]
#[derive(Debug)]
pub struct Span<'a> {
    trace: &'a Trace,
    name: String,
    lane: u64,
    start: Instant,
}

impl Drop for Span<'_> {
    fn drop(&mut self) {
        self.trace.record(mem::take(&mut self.name), self.lane, self.start, Instant::now());
    }
}

/// Writes `d` in microseconds with three decimals, exactly (no float rounding).
fn write_micros(out: &mut String, d: Duration) {
    let nanos = d.as_nanos();
    let _ = write!(out, "{}.{:03}", nanos / 1000, nanos % 1000);
}

/// Writes `s` as a JSON string literal (RFC 8259 escaping).
fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::ThreadPool;
    use std::{sync::Arc, thread};

    /// A minimal strict JSON parser, enough to check that the output is well-formed and to read
    /// back what was written.
    #[derive(Debug, PartialEq)]
    enum Json {
        Null,
        Bool(bool),
        Num(f64),
        Str(String),
        Arr(Vec<Json>),
        Obj(Vec<(String, Json)>),
    }

    impl Json {
        fn get(&self, key: &str) -> Option<&Json> {
            match self {
                Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
                _ => None,
            }
        }
        fn num(&self) -> f64 {
            match self {
                Json::Num(n) => *n,
                other => panic!("expected a number, got {other:?}"),
            }
        }
        fn str(&self) -> &str {
            match self {
                Json::Str(s) => s,
                other => panic!("expected a string, got {other:?}"),
            }
        }
    }

    struct Parser<'a> {
        text: &'a [u8],
        pos: usize,
    }

    fn parse_json(text: &str) -> Result<Json, String> {
        let mut parser = Parser { text: text.as_bytes(), pos: 0 };
        let value = parser.value()?;
        parser.skip_ws();
        if parser.pos != parser.text.len() {
            return Err(format!("trailing characters at {}", parser.pos));
        }
        Ok(value)
    }

    impl Parser<'_> {
        fn peek(&self) -> Option<u8> {
            self.text.get(self.pos).copied()
        }
        fn bump(&mut self) -> Result<u8, String> {
            let byte = self.peek().ok_or("unexpected end of input")?;
            self.pos += 1;
            Ok(byte)
        }
        fn expect(&mut self, byte: u8) -> Result<(), String> {
            let got = self.bump()?;
            if got == byte {
                Ok(())
            } else {
                Err(format!("expected {:?} at {}, got {:?}", byte as char, self.pos - 1, got as char))
            }
        }
        fn skip_ws(&mut self) {
            while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                self.pos += 1;
            }
        }
        fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
            for &b in word.as_bytes() {
                self.expect(b)?;
            }
            Ok(value)
        }
        fn value(&mut self) -> Result<Json, String> {
            self.skip_ws();
            match self.peek().ok_or("unexpected end of input")? {
                b'{' => self.object(),
                b'[' => self.array(),
                b'"' => self.string().map(Json::Str),
                b't' => self.literal("true", Json::Bool(true)),
                b'f' => self.literal("false", Json::Bool(false)),
                b'n' => self.literal("null", Json::Null),
                b'-' | b'0'..=b'9' => self.number(),
                other => Err(format!("unexpected {:?} at {}", other as char, self.pos)),
            }
        }
        fn object(&mut self) -> Result<Json, String> {
            self.expect(b'{')?;
            let mut fields = Vec::new();
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                return Ok(Json::Obj(fields));
            }
            loop {
                self.skip_ws();
                let key = self.string()?;
                self.skip_ws();
                self.expect(b':')?;
                fields.push((key, self.value()?));
                self.skip_ws();
                match self.bump()? {
                    b',' => continue,
                    b'}' => return Ok(Json::Obj(fields)),
                    other => return Err(format!("expected ',' or '}}', got {:?}", other as char)),
                }
            }
        }
        fn array(&mut self) -> Result<Json, String> {
            self.expect(b'[')?;
            let mut items = Vec::new();
            self.skip_ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(Json::Arr(items));
            }
            loop {
                items.push(self.value()?);
                self.skip_ws();
                match self.bump()? {
                    b',' => continue,
                    b']' => return Ok(Json::Arr(items)),
                    other => return Err(format!("expected ',' or ']', got {:?}", other as char)),
                }
            }
        }
        fn string(&mut self) -> Result<String, String> {
            self.expect(b'"')?;
            let mut bytes = Vec::new();
            loop {
                match self.bump()? {
                    b'"' => break,
                    b'\\' => match self.bump()? {
                        b'"' => bytes.push(b'"'),
                        b'\\' => bytes.push(b'\\'),
                        b'/' => bytes.push(b'/'),
                        b'b' => bytes.push(8),
                        b'f' => bytes.push(12),
                        b'n' => bytes.push(b'\n'),
                        b'r' => bytes.push(b'\r'),
                        b't' => bytes.push(b'\t'),
                        b'u' => {
                            let hex = self.text.get(self.pos..self.pos + 4).ok_or("short \\u escape")?;
                            let code = u32::from_str_radix(std::str::from_utf8(hex).unwrap(), 16)
                                .map_err(|e| format!("bad \\u escape: {e}"))?;
                            self.pos += 4;
                            let ch = char::from_u32(code).ok_or("surrogate \\u escape")?;
                            bytes.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                        other => return Err(format!("bad escape \\{}", other as char)),
                    },
                    c if c < 0x20 => return Err(format!("raw control character {c:#x} in string")),
                    c => bytes.push(c),
                }
            }
            String::from_utf8(bytes).map_err(|e| e.to_string())
        }
        fn number(&mut self) -> Result<Json, String> {
            let start = self.pos;
            if self.peek() == Some(b'-') {
                self.pos += 1;
            }
            let digits = |p: &mut Self| {
                let from = p.pos;
                while matches!(p.peek(), Some(b'0'..=b'9')) {
                    p.pos += 1;
                }
                p.pos > from
            };
            if !digits(self) {
                return Err(format!("digits expected at {}", self.pos));
            }
            if self.peek() == Some(b'.') {
                self.pos += 1;
                if !digits(self) {
                    return Err(format!("fraction digits expected at {}", self.pos));
                }
            }
            if matches!(self.peek(), Some(b'e' | b'E')) {
                self.pos += 1;
                if matches!(self.peek(), Some(b'+' | b'-')) {
                    self.pos += 1;
                }
                if !digits(self) {
                    return Err(format!("exponent digits expected at {}", self.pos));
                }
            }
            let text = std::str::from_utf8(&self.text[start..self.pos]).unwrap();
            text.parse().map(Json::Num).map_err(|e| format!("bad number {text}: {e}"))
        }
    }

    fn trace_events(json: &Json) -> &[Json] {
        match json.get("traceEvents") {
            Some(Json::Arr(events)) => events,
            other => panic!("traceEvents is not an array: {other:?}"),
        }
    }

    #[test]
    fn the_test_parser_rejects_malformed_json() {
        for bad in
            ["{", "{\"a\":1,}", "[1 2]", "\"unterminated", "{\"a\" 1}", "\"raw\nnewline\"", "01x", "{}}"]
        {
            assert!(parse_json(bad).is_err(), "accepted {bad:?}");
        }
        assert_eq!(
            parse_json(" [1.5, \"a\\\"b\", true, null] ").unwrap(),
            Json::Arr(vec![Json::Num(1.5), Json::Str("a\"b".into()), Json::Bool(true), Json::Null])
        );
    }

    #[test]
    fn empty_trace_is_valid_json() {
        let trace = Trace::new();
        assert_eq!(trace.to_chrome_json(), "{\"traceEvents\":[]}");
        assert!(trace_events(&parse_json(&trace.to_chrome_json()).unwrap()).is_empty());
    }

    #[test]
    fn recorded_times_are_relative_to_the_origin() {
        let trace = Trace::new();
        let origin = trace.origin();
        trace.record("a", 3, origin + Duration::from_micros(1500), origin + Duration::from_micros(4000));
        trace.record("before origin", 0, origin - Duration::from_millis(1), origin);
        trace.record("backwards", 0, origin + Duration::from_micros(10), origin);
        assert_eq!(
            trace.events(),
            vec![
                TraceEvent {
                    name: "a".into(),
                    lane: 3,
                    start: Duration::from_micros(1500),
                    duration: Duration::from_micros(2500),
                },
                TraceEvent {
                    name: "before origin".into(),
                    lane: 0,
                    start: Duration::ZERO,
                    duration: Duration::from_millis(1)
                },
                TraceEvent {
                    name: "backwards".into(),
                    lane: 0,
                    start: Duration::from_micros(10),
                    duration: Duration::ZERO
                },
            ]
        );
        let json = trace.to_chrome_json();
        assert!(json.starts_with(
            "{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1500.000,\"dur\":2500.000,\"pid\":0,\"tid\":3},"
        ));
    }

    #[test]
    fn nanoseconds_survive_the_microsecond_format() {
        let trace = Trace::new();
        let origin = trace.origin();
        trace.record(
            "ns",
            1,
            origin + Duration::from_nanos(1_234_567),
            origin + Duration::from_nanos(1_234_574),
        );
        let json = parse_json(&trace.to_chrome_json()).unwrap();
        let event = &trace_events(&json)[0];
        assert_eq!(event.get("ts").unwrap().num(), 1234.567);
        assert_eq!(event.get("dur").unwrap().num(), 0.007);
    }

    #[test]
    fn names_are_escaped() {
        let names = [
            "quote \" inside",
            "back\\slash",
            "line\nbreak\ttab\r",
            "bell\u{7} nul\u{0} esc\u{1b}",
            "ünï€ode ✓",
            "\u{8}\u{c}",
        ];
        let trace = Trace::new();
        for (lane, name) in names.iter().enumerate() {
            trace.record(*name, lane as u64, trace.origin(), Instant::now());
        }
        let text = trace.to_chrome_json();
        assert!(text.contains(r#""quote \" inside""#));
        assert!(text.contains(r#""bell\u0007 nul\u0000 esc\u001b""#));
        let json = parse_json(&text).unwrap();
        let events = trace_events(&json);
        assert_eq!(events.len(), names.len());
        for (lane, (event, name)) in events.iter().zip(names).enumerate() {
            assert_eq!(event.get("name").unwrap().str(), name);
            assert_eq!(event.get("ph").unwrap().str(), "X");
            assert_eq!(event.get("pid").unwrap().num(), 0.0);
            assert_eq!(event.get("tid").unwrap().num(), lane as f64);
        }
    }

    #[test]
    fn span_records_on_drop_even_when_unwinding() {
        let trace = Trace::new();
        {
            let _span = trace.span("work", 7);
            thread::sleep(Duration::from_millis(2));
            assert!(trace.events().is_empty(), "recorded before the span ended");
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _span = trace.span("failing", 8);
            panic!("task failed");
        }));
        assert!(result.is_err());
        let events = trace.events();
        assert_eq!(events.len(), 2);
        assert_eq!((events[0].name.as_str(), events[0].lane), ("work", 7));
        assert!(events[0].duration >= Duration::from_millis(2));
        assert_eq!((events[1].name.as_str(), events[1].lane), ("failing", 8));
        assert!(events[1].start >= events[0].start + events[0].duration);
    }

    #[test]
    fn recording_from_many_threads_keeps_every_event() {
        let trace = Arc::new(Trace::new());
        let handles: Vec<_> = (0..8u64)
            .map(|lane| {
                let trace = Arc::clone(&trace);
                thread::spawn(move || {
                    for k in 0..100 {
                        let _span = trace.span(format!("t{lane}-{k}"), lane);
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        let mut per_lane = [0usize; 8];
        for event in trace.events() {
            per_lane[event.lane as usize] += 1;
            assert!(event.name.starts_with(&format!("t{}-", event.lane)));
        }
        assert_eq!(per_lane, [100; 8]);
        assert_eq!(trace_events(&parse_json(&trace.to_chrome_json()).unwrap()).len(), 800);
    }

    #[test]
    fn pool_chunks_appear_as_chrome_events() {
        let trace = Trace::new();
        let pool = ThreadPool::new(3);
        pool.parallel_for_traced(
            -30,
            30,
            2,
            &|_| thread::sleep(Duration::from_micros(50)),
            Some(&trace),
            "loop \"body\"",
        );
        let json = parse_json(&trace.to_chrome_json()).unwrap();
        let events = trace_events(&json);
        assert_eq!(events.len(), 3, "one event per chunk");
        for event in events {
            assert_eq!(event.get("name").unwrap().str(), "loop \"body\"");
            assert!(event.get("ts").unwrap().num() >= 0.0);
            // Each chunk runs 10 iterations of >= 50 µs.
            assert!(event.get("dur").unwrap().num() >= 500.0);
            let tid = event.get("tid").unwrap().num();
            assert!((0.0..=3.0).contains(&tid), "tid {tid}");
        }
    }
}
