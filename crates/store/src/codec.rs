//! Compact binary encoding of events (WAL payloads) and the little varint reader shared by the
//! file decoders. See docs/format/wal.md.
//!
//! Event: `time zigzag-varint | index_time zigzag-varint | linecount varint | raw str | host str |
//! source str | sourcetype str | nfields varint | (name str | value str)*`, where `str` is a
//! varint byte length followed by UTF-8 bytes. A batch is `count varint | event*`.

use lode_event::{Event, MetaStr};

/// Appends `v` as LEB128.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends a signed value zigzag-encoded as LEB128.
#[inline]
pub fn put_ivarint(out: &mut Vec<u8>, v: i64) {
    put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Appends a length-prefixed string.
#[inline]
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends one event.
pub fn put_event(out: &mut Vec<u8>, e: &Event) {
    put_ivarint(out, e.time);
    put_ivarint(out, e.index_time);
    put_varint(out, e.linecount as u64);
    put_str(out, &e.raw);
    put_str(out, &e.host);
    put_str(out, &e.source);
    put_str(out, &e.sourcetype);
    put_varint(out, e.fields.len() as u64);
    for (k, v) in &e.fields {
        put_str(out, k);
        put_str(out, v);
    }
}

/// Appends a batch of events.
pub fn put_batch(out: &mut Vec<u8>, events: &[Event]) {
    put_varint(out, events.len() as u64);
    for e in events {
        put_event(out, e);
    }
}

/// A bounds-checked reader over a byte slice; every failure is a `&'static str` reason that
/// the caller wraps into [`crate::StoreError::Corrupt`] with its path.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// Why decoding failed.
pub type DecodeError = &'static str;

/// The signed value of a zigzag-encoded one (0, -1, 1, -2… from 0, 1, 2, 3…).
#[inline]
pub fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

impl<'a> Reader<'a> {
    /// Reads from the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Whether every byte was consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// Current offset in bytes.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Reads a LEB128 value.
    #[inline(always)]
    pub fn varint(&mut self) -> Result<u64, DecodeError> {
        // Most values of a column or a postings list take one or two bytes: read those inline
        // and leave the loop to the rest.
        match self.buf.get(self.pos..self.pos + 2) {
            Some(&[a, _]) if a < 0x80 => {
                self.pos += 1;
                Ok(a as u64)
            }
            Some(&[a, b]) if b < 0x80 => {
                self.pos += 2;
                Ok((a & 0x7f) as u64 | (b as u64) << 7)
            }
            _ => self.varint_loop(),
        }
    }

    /// Reads `n` LEB128 values, giving each to `f` (which may refuse it) in order. Eight bytes
    /// below 0x80 are eight one-byte values, read with one load and one test: most columns of a
    /// block (dictionary ids, line counts, slice steps, field lengths) are mostly such runs.
    #[inline(always)]
    pub fn varints(
        &mut self,
        n: usize,
        mut f: impl FnMut(u64) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        let mut left = n;
        while left > 0 {
            if left >= 8 {
                if let Some(w) = self.buf.get(self.pos..self.pos + 8) {
                    let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
                    if x & 0x8080_8080_8080_8080 == 0 {
                        for k in 0..8 {
                            f(x >> (8 * k) & 0x7f)?;
                        }
                        self.pos += 8;
                        left -= 8;
                        continue;
                    }
                }
            }
            f(self.varint()?)?;
            left -= 1;
        }
        Ok(())
    }

    /// [`Reader::varint`] a byte at a time, for long values and the end of the buffer.
    #[inline(never)]
    fn varint_loop(&mut self) -> Result<u64, DecodeError> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = *self.buf.get(self.pos).ok_or("truncated varint")?;
            self.pos += 1;
            if shift >= 64 {
                return Err("varint too long");
            }
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
        }
    }

    /// Skips `k` LEB128 values without decoding them: a value ends at each byte below 0x80,
    /// so eight bytes at a time are counted with one mask and popcount.
    pub fn skip_varints(&mut self, mut k: usize) -> Result<(), DecodeError> {
        let buf = &self.buf[self.pos.min(self.buf.len())..];
        let mut i = 0;
        while i + 8 <= buf.len() {
            let w = u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
            let ends = (!w & 0x8080_8080_8080_8080).count_ones() as usize;
            // Stop before a word that ends the k-th value: its bytes after that end belong to
            // the next value. Continuation bytes at the end of an accepted word belong to a
            // value this call skips anyway.
            if ends >= k {
                break;
            }
            k -= ends;
            i += 8;
        }
        while k > 0 {
            let b = *buf.get(i).ok_or("truncated varint")?;
            if b < 0x80 {
                k -= 1;
            }
            i += 1;
        }
        self.pos += i;
        Ok(())
    }

    /// Reads a zigzag LEB128 value.
    #[inline]
    pub fn ivarint(&mut self) -> Result<i64, DecodeError> {
        Ok(unzigzag(self.varint()?))
    }

    /// Reads `n` raw bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.pos.checked_add(n).ok_or("length overflow")?;
        let s = self.buf.get(self.pos..end).ok_or("truncated bytes")?;
        self.pos = end;
        Ok(s)
    }

    /// Reads a little-endian u32.
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.bytes(4)?.try_into().expect("4")))
    }

    /// Reads a little-endian u64.
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.bytes(8)?.try_into().expect("8")))
    }

    /// Reads a length-prefixed UTF-8 string.
    #[inline]
    pub fn str(&mut self) -> Result<&'a str, DecodeError> {
        let n = self.varint()?;
        let n = usize::try_from(n).map_err(|_| "length overflow")?;
        std::str::from_utf8(self.bytes(n)?).map_err(|_| "invalid UTF-8")
    }

    /// Reads one event into `e`, reusing its buffers (no allocation once they are warm).
    pub fn event_into(&mut self, e: &mut Event) -> Result<(), DecodeError> {
        e.time = self.ivarint()?;
        e.index_time = self.ivarint()?;
        e.linecount = u32::try_from(self.varint()?).map_err(|_| "linecount overflow")?;
        set(&mut e.raw, self.str()?);
        set_meta(&mut e.host, self.str()?);
        set_meta(&mut e.source, self.str()?);
        set_meta(&mut e.sourcetype, self.str()?);
        let n = self.varint()?;
        if n > (self.buf.len() - self.pos) as u64 {
            return Err("field count beyond record");
        }
        let n = n as usize;
        e.fields.truncate(n);
        for i in 0..n {
            let k = self.str()?;
            let v = self.str()?;
            if let Some(slot) = e.fields.get_mut(i) {
                set(&mut slot.0, k);
                set(&mut slot.1, v);
            } else {
                e.fields.push((k.to_string(), v.to_string()));
            }
        }
        Ok(())
    }
}

fn set(dst: &mut String, src: &str) {
    dst.clear();
    dst.push_str(src);
}

/// Sets a default field; a value equal to the previous event's (most of them) is kept shared.
fn set_meta(dst: &mut MetaStr, src: &str) {
    if dst.as_str() != src {
        *dst = src.into();
    }
}

/// Decodes a batch, calling `f` for each event (decoded into one reused `Event`).
pub fn for_each_in_batch(
    payload: &[u8],
    scratch: &mut Event,
    mut f: impl FnMut(&Event) -> Result<(), DecodeError>,
) -> Result<(), DecodeError> {
    let mut r = Reader::new(payload);
    let n = r.varint()?;
    for _ in 0..n {
        r.event_into(scratch)?;
        f(scratch)?;
    }
    if !r.is_empty() {
        return Err("trailing bytes after batch");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The one- and two-byte fast paths of `varint` read what the byte loop reads, on any
        /// bytes (long, non-canonical, truncated), and consume as many.
        #[test]
        fn varint_is_the_byte_loop(bytes in proptest::collection::vec(
            proptest::prop_oneof![0u8..0x80, 0x80u8..=0xff, proptest::num::u8::ANY],
            0..24,
        )) {
            let (mut fast, mut slow) = (Reader::new(&bytes), Reader::new(&bytes));
            loop {
                let (a, b) = (fast.varint(), slow.varint_loop());
                proptest::prop_assert_eq!(a, b);
                proptest::prop_assert_eq!(fast.pos(), slow.pos());
                if a.is_err() || fast.is_empty() {
                    break;
                }
            }
        }

        /// `varints` reads what `varint` reads one by one, stops at the same error, and leaves
        /// the reader where they do; a refused value stops it there.
        #[test]
        fn varints_are_varint_in_turn(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![4 => 0u8..0x80, 1 => 0x80u8..=0xff],
                0..64,
            ),
            n in 0usize..40,
            refuse in 0u64..0x90,
        ) {
            let mut one = Reader::new(&bytes);
            let mut want = Vec::new();
            let mut want_err = None;
            for _ in 0..n {
                match one.varint() {
                    Ok(v) if v == refuse => {
                        want_err = Some("refused");
                        break;
                    }
                    Ok(v) => want.push(v),
                    Err(e) => {
                        want_err = Some(e);
                        break;
                    }
                }
            }
            let mut all = Reader::new(&bytes);
            let mut got = Vec::new();
            let r = all.varints(n, |v| {
                if v == refuse {
                    return Err("refused");
                }
                got.push(v);
                Ok(())
            });
            proptest::prop_assert_eq!(&got, &want);
            proptest::prop_assert_eq!(r.err(), want_err);
            if want_err.is_none() {
                proptest::prop_assert_eq!(all.pos(), one.pos());
            }
        }

        /// Skipping `k` values lands where decoding `k` values does, whatever the widths.
        #[test]
        fn skip_varints_lands_where_decoding_does(
            values in proptest::collection::vec(
                proptest::prop_oneof![0u64..128, 0u64..20_000, proptest::num::u64::ANY],
                0..80,
            ),
            k in 0usize..80,
        ) {
            let mut buf = Vec::new();
            for &v in &values {
                put_varint(&mut buf, v);
            }
            let mut r = Reader::new(&buf);
            if k <= values.len() {
                r.skip_varints(k).unwrap();
                let mut d = Reader::new(&buf);
                for _ in 0..k {
                    d.varint().unwrap();
                }
                proptest::prop_assert_eq!(r.pos(), d.pos());
                if k < values.len() {
                    proptest::prop_assert_eq!(r.varint().unwrap(), values[k]);
                }
            } else {
                proptest::prop_assert!(r.skip_varints(k).is_err());
            }
        }
    }

    #[test]
    fn default_fields_decode_into_a_reused_event() {
        // Short (inline) and long (shared) values, repeated and changing from event to event:
        // the scratch event keeps a value only while the next event's is the same.
        let long = |c: char| c.to_string().repeat(40);
        let values = [
            ("a".to_string(), long('s')),
            ("a".to_string(), long('s')),
            (long('h'), long('s')),
            (long('h'), "s".to_string()),
            (long('g'), String::new()),
            (String::new(), long('s')),
        ];
        let events: Vec<Event> = values
            .iter()
            .map(|(host, source)| Event {
                raw: format!("{host} {source}"),
                host: host.into(),
                source: source.into(),
                sourcetype: source.into(),
                ..Event::default()
            })
            .collect();
        assert_eq!(round_trip(&events).0, events);
    }

    /// `events` written as a batch, the events read back into one scratch event, and the batch.
    fn round_trip(events: &[Event]) -> (Vec<Event>, Vec<u8>) {
        let mut buf = Vec::new();
        put_batch(&mut buf, events);
        let mut got = Vec::new();
        let mut scratch = Event::default();
        for_each_in_batch(&buf, &mut scratch, |x| {
            got.push(x.clone());
            Ok(())
        })
        .unwrap();
        (got, buf)
    }

    #[test]
    fn event_round_trip() {
        let e = Event {
            time: -5,
            index_time: 1_700_000_000,
            raw: "héllo\nworld".into(),
            host: "h".into(),
            source: "/var/log/x".into(),
            sourcetype: "st".into(),
            index: MetaStr::default(),
            linecount: 2,
            fields: vec![("a".into(), "1".into()), ("b".into(), "".into())],
        };
        let (got, buf) = round_trip(&[e.clone(), e.clone()]);
        assert_eq!(got, vec![e.clone(), e]);
        // Every truncation is an error, never a panic.
        let mut scratch = Event::default();
        for cut in 0..buf.len() {
            assert!(for_each_in_batch(&buf[..cut], &mut scratch, |_| Ok(())).is_err());
        }
    }
}
