//! A paste's lifetime ([`Ttl`]) and the one grammar it is written in, which
//! the server's flags and config file, the `ttl` option of creates and the
//! `snip` client all parse with [`Ttl::parse`] (`docs/reference.md`, "Lifetimes").
//!
//! The grammar is small and case-exact: `never`, a whole number of seconds,
//! or a whole number and one unit of `s`, `m`, `h`, `d`, `w`. `10M` is
//! refused rather than guessed at: a parser that took `M` as months and `m`
//! as minutes would make a typo cost a factor of 4,000.

use std::time::Duration;

use super::paste::UnixTime;

/// A requested lifetime: a duration, or never expiring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ttl {
    /// Expire this long after creation.
    After(Duration),
    /// Keep until deleted.
    Never,
}

/// The units a lifetime may be written in, largest first, with their seconds.
const UNITS: [(char, u64); 5] = [
    ('w', 604_800),
    ('d', 86_400),
    ('h', 3_600),
    ('m', 60),
    ('s', 1),
];

/// What a lifetime looks like, for error messages.
const GRAMMAR: &str = "never, a number of seconds, or a number and one of the units \
                       s, m, h, d, w (lower case: 30s, 10m, 1h, 1d, 1w)";

/// Why a TTL string was refused; the message quotes the input and says what
/// is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TtlError {
    /// Not `never`, and no number at the start.
    #[error("ttl {0:?} is not a lifetime; write {GRAMMAR}")]
    Malformed(String),
    /// A number followed by something that is not one of the units
    /// (`10M`, `1y`, `2 days`, `1.5h`).
    #[error(
        "ttl {input:?} has an unknown unit {unit:?}; the units are s, m, h, d and w, in lower case"
    )]
    UnknownUnit {
        /// The whole input.
        input: String,
        /// What followed the number.
        unit: String,
    },
    /// A lifetime of nothing.
    #[error("ttl {0:?} is zero; a paste must live at least a second (or never expire: never)")]
    Zero(String),
    /// More seconds than a clock can count.
    #[error("ttl {0:?} is too long; for a paste that does not expire write never")]
    TooLong(String),
}

impl Ttl {
    /// Parses `never`, `3600`, or a number and a unit: `30s`, `10m`, `1h`,
    /// `1d`, `1w`. Nothing else: no spaces, no other units or spellings, no
    /// upper case.
    pub fn parse(input: &str) -> Result<Self, TtlError> {
        if input == "never" {
            return Ok(Self::Never);
        }
        let split = input
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(input.len());
        let (digits, unit) = input.split_at(split);
        if digits.is_empty() {
            return Err(TtlError::Malformed(input.to_owned()));
        }
        let factor = match UNITS
            .iter()
            .find(|(name, _)| unit.len() == 1 && unit.starts_with(*name))
        {
            _ if unit.is_empty() => 1,
            Some((_, secs)) => *secs,
            None => {
                return Err(TtlError::UnknownUnit {
                    input: input.to_owned(),
                    unit: unit.to_owned(),
                });
            }
        };
        let number: u64 = digits
            .parse()
            .map_err(|_| TtlError::TooLong(input.to_owned()))?;
        let secs = number
            .checked_mul(factor)
            .ok_or_else(|| TtlError::TooLong(input.to_owned()))?;
        if secs == 0 {
            return Err(TtlError::Zero(input.to_owned()));
        }
        Ok(Self::After(Duration::from_secs(secs)))
    }

    /// The expiry time for a paste created during the second `now` (a
    /// [`super::paste::now()`] value, so rounded down).
    ///
    /// Rounded up to the next whole second, so that a paste lives at least its
    /// TTL (at most one second more): a paste is expired once `now() >=
    /// expires_at`, so `now + ttl` would give one created late in a second less
    /// than its TTL, and a `ttl=1` paste could be gone before its creator read it.
    pub fn expires_at(self, now: UnixTime) -> Option<UnixTime> {
        match self {
            Self::After(d) => Some(now.saturating_add(d.as_secs()).saturating_add(1)),
            Self::Never => None,
        }
    }
}

/// Written in the grammar [`Ttl::parse`] reads, in the largest unit that
/// divides it: `1d`, `90m`, `45s`, `never`.
impl std::fmt::Display for Ttl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::After(d) => {
                let secs = d.as_secs();
                let (unit, size) = UNITS
                    .iter()
                    .find(|(_, size)| secs.is_multiple_of(*size))
                    .copied()
                    .unwrap_or(('s', 1));
                write!(f, "{}{unit}", secs / size)
            }
            Self::Never => f.write_str("never"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(secs: u64) -> Result<Ttl, TtlError> {
        Ok(Ttl::After(Duration::from_secs(secs)))
    }

    /// Every documented spelling parses to its seconds.
    #[test]
    fn the_grammar() {
        assert_eq!(Ttl::parse("never"), Ok(Ttl::Never));
        for (text, secs) in [
            ("90", 90),
            ("30s", 30),
            ("10m", 600),
            ("1h", 3600),
            ("1d", 86_400),
            ("1w", 604_800),
            ("365d", 31_536_000),
        ] {
            assert_eq!(Ttl::parse(text), after(secs), "{text}");
        }
    }

    /// Upper case, other units, long forms and spaces are refused, naming
    /// the units that are accepted; zero and garbage too.
    #[test]
    fn everything_else_is_refused() {
        for unknown in [
            "10M", "1y", "1month", "1H", "5ms", "1min", "2 days", "1h ", "1.5h",
        ] {
            let refused = Ttl::parse(unknown).unwrap_err();
            assert!(matches!(refused, TtlError::UnknownUnit { .. }), "{unknown}");
            assert!(
                refused.to_string().contains("s, m, h, d and w"),
                "{refused}"
            );
        }
        for bad in ["", "Never", "NEVER", "soon", "-5", " 1h", "1h30m"] {
            assert!(Ttl::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Ttl::parse("0"), Err(TtlError::Zero("0".into())));
        assert_eq!(Ttl::parse("0s"), Err(TtlError::Zero("0s".into())));
        let long = "99999999999999999999999";
        assert_eq!(Ttl::parse(long), Err(TtlError::TooLong(long.into())));
        let long = "18446744073709551615w";
        assert_eq!(Ttl::parse(long), Err(TtlError::TooLong(long.into())));
        let message = Ttl::parse("soon").unwrap_err().to_string();
        assert!(message.contains("30s, 10m, 1h, 1d, 1w"), "{message}");
    }

    /// A lifetime is shown in its largest whole unit, which parses back to it.
    #[test]
    fn shown_as_written() {
        for (secs, shown) in [
            (1, "1s"),
            (90, "90s"),
            (600, "10m"),
            (5400, "90m"),
            (86_400, "1d"),
            (259_200, "3d"),
            (1_209_600, "2w"),
        ] {
            let ttl = Ttl::After(Duration::from_secs(secs));
            assert_eq!(ttl.to_string(), shown);
            assert_eq!(Ttl::parse(shown), Ok(ttl));
        }
        assert_eq!(Ttl::Never.to_string(), "never");
    }

    /// Any lifetime is longer than every duration-limited one when it is `never`.
    #[test]
    fn never_is_the_longest() {
        assert!(Ttl::Never > Ttl::After(Duration::from_secs(u64::MAX)));
    }
}

/// Property tests of the lifetime parser, which reads flags, config files
/// and the `ttl` option of creates; `bench/fuzz` runs them long.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any text is a lifetime or refused without a panic; a lifetime
        /// parsed is positive and reads back from how it is shown.
        #[test]
        fn fuzz_ttls(input in prop_oneof![
            "\\PC{0,12}",
            "[0-9]{0,22}[a-zA-Z ]{0,3}",
        ]) {
            if let Ok(ttl) = Ttl::parse(&input) {
                prop_assert_ne!(ttl, Ttl::After(Duration::ZERO));
                prop_assert_eq!(Ttl::parse(&ttl.to_string()), Ok(ttl));
            }
        }
    }
}
