//! Arbitrary user input and event text never panic: every entry point returns `None`/`Err` instead.

use lode_time::extract::{ExtractConfig, Extractor};
use lode_time::strptime::{strftime, TimeFormat};
use lode_time::{relative, Zone};
use proptest::prelude::*;

fn zones() -> impl Strategy<Value = Zone> {
    prop::sample::select(vec![
        Zone::Utc,
        Zone::Fixed(-43_200),
        Zone::Named(chrono_tz::America::New_York),
        Zone::Named(chrono_tz::Australia::Lord_Howe),
    ])
}

proptest! {
    #[test]
    fn formats_and_texts(fmt in "(%[-:?0-9]{0,3}[A-Za-z%:]|[ -~]|\\PC){0,12}", text in "\\PC{0,60}",
                         t in prop_oneof![any::<i64>(), Just(i64::MAX), Just(i64::MIN)], zone in zones()) {
        if let Ok(f) = TimeFormat::new(&fmt) {
            let _ = f.parse_prefix(&text, zone, t);
        }
        let _ = strftime(t, &fmt, zone);
        let _ = Zone::parse(&text);
    }

    #[test]
    fn modifiers(text in "([-+@]?[0-9]{0,12}[a-z]{0,8}|[0-9/:.]{0,20}|\\PC{0,4}){0,4}",
                 now in prop_oneof![any::<i64>(), Just(i64::MAX), Just(i64::MIN)], zone in zones()) {
        let _ = relative::resolve(&text, now, zone);
    }

    #[test]
    fn events(event in "([0-9]{1,14}|[ :./,\\-T+Z\\[\\]]|Mar|Sun|PM|UTC|\\PC){0,40}",
              now in prop_oneof![any::<i64>(), Just(i64::MAX), Just(i64::MIN), Just(0i64)], zone in zones(), lookahead in 0usize..200) {
        let cfg = ExtractConfig { tz: zone, max_lookahead: lookahead, max_days_ago: u32::MAX, max_days_hence: u32::MAX, ..ExtractConfig::default() };
        let mut ex = Extractor::new(cfg).unwrap();
        if let Some(f) = ex.extract(&event, now) {
            prop_assert!(event.is_char_boundary(f.start) && event.is_char_boundary(f.end) && f.start < f.end);
        }
    }
}
