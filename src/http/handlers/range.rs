//! `Range` headers of raw reads: which one piece of a body a header asks
//! for, in time linear in its length.

use std::num::NonZeroUsize;

use http_range_header::SyntacticallyCorrectRange;

/// What a `Range` header selects of a body.
#[derive(Debug, PartialEq, Eq)]
pub enum RangeOutcome {
    /// The whole body (no range, or none that is one piece).
    Whole,
    /// Nothing: every range starts past the end (`416`).
    Unsatisfiable,
    /// The bytes between these inclusive bounds (`206`).
    Part(u64, u64),
}

/// The most ranges one `Range` header may list before it is answered with
/// the whole body. Clients that fetch pieces ask for a handful; a long list
/// only makes the server sort and merge on an attacker's behalf.
const MAX_RANGES: NonZeroUsize = NonZeroUsize::new(64).expect("64 is not zero");

/// Interprets a `Range` header in time linear in its length. Overlapping and
/// adjacent ranges are merged; what merges into one range is served as `206`.
/// A malformed header, one with more than `MAX_RANGES` ranges, or one
/// naming several separate pieces gets the whole body, as RFC 9110 allows;
/// one whose ranges all start past the end is unsatisfiable.
pub fn single_range(header: &str, size: u64) -> RangeOutcome {
    let Ok(parsed) = http_range_header::parse_range_header_with_max_ranges(header, MAX_RANGES)
    else {
        return RangeOutcome::Whole;
    };
    let pieces = parsed
        .into_ranges()
        .into_iter()
        .filter_map(|range| piece(range, size))
        .collect();
    match merge(pieces).as_slice() {
        [] => RangeOutcome::Unsatisfiable,
        [(start, end)] => RangeOutcome::Part(*start, *end),
        _ => RangeOutcome::Whole,
    }
}

/// The inclusive bounds of the bytes one range of a header selects in a
/// body of `size` bytes; `None` if it selects none (it starts past the
/// end), which is unsatisfiable alone. The parser has refused a range that
/// ends before it starts.
fn piece(range: SyntacticallyCorrectRange, size: u64) -> Option<(u64, u64)> {
    let (start, last) = match range {
        SyntacticallyCorrectRange::Indexed(start, last) => (start, last),
        SyntacticallyCorrectRange::FromStart(start) => (start, u64::MAX),
        // A suffix longer than the body selects all of it (RFC 9110 14.1.1).
        SyntacticallyCorrectRange::FromLast(0) => return None,
        SyntacticallyCorrectRange::FromLast(len) => (size.saturating_sub(len), u64::MAX),
    };
    (start < size).then(|| (start, last.min(size - 1)))
}

/// Sorts inclusive ranges and merges those that overlap or touch.
fn merge(mut pieces: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    pieces.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(pieces.len());
    for (start, end) in pieces {
        match merged.last_mut() {
            Some(last) if start <= last.1.saturating_add(1) => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::RangeOutcome::{Part, Unsatisfiable, Whole};
    use super::*;

    /// What each shape of `Range` header gets from a 10-byte body.
    #[test]
    fn range_headers() {
        let listed = |n: usize| format!("bytes={}", vec!["0-0"; n].join(","));
        for (header, outcome) in [
            ("bytes=2-5", Part(2, 5)),
            ("bytes=2-", Part(2, 9)),
            ("bytes=-3", Part(7, 9)),
            ("bytes=-30", Part(0, 9)),
            ("bytes=5-99", Part(5, 9)),
            ("BYTES=2-5", Part(2, 5)),
            ("bytes=0-1, 2-3", Part(0, 3)),
            ("bytes=0-1,,2-3", Part(0, 3)),
            ("bytes=0-1,5-6", Whole),
            ("bytes=5-2", Whole),
            ("bytes=5-2,0-1", Whole),
            ("bytes=x", Whole),
            ("bytes=+1-2", Whole),
            ("items=0-1", Whole),
            ("", Whole),
            ("bytes=10-", Unsatisfiable),
            ("bytes=-0", Unsatisfiable),
            ("bytes=10-20,30-", Unsatisfiable),
            ("bytes=10-20,1-1", Part(1, 1)),
        ] {
            assert_eq!(single_range(header, 10), outcome, "{header:?}");
        }
        assert_eq!(single_range(&listed(64), 10), Part(0, 0));
        assert_eq!(single_range(&listed(65), 10), Whole);
        assert_eq!(single_range("bytes=0-", 0), Unsatisfiable);
    }
}

/// Property tests of `Range` headers, which any reader sends; `bench/fuzz`
/// runs them long.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any header against any size gives the whole body, nothing, or
        /// one range inside the body.
        #[test]
        fn fuzz_range_headers(
            header in prop_oneof![
                "\\PC{0,60}",
                "bytes=(([0-9]{0,21})?-([0-9]{0,21})?,? ?){0,70}",
            ],
            size in prop_oneof![0..100u64, any::<u64>()],
        ) {
            if let RangeOutcome::Part(start, end) = single_range(&header, size) {
                prop_assert!(start <= end && end < size, "{start}-{end} of {size}");
            }
        }
    }
}
