//! Parsers for the quantities people type into flags, config files and admin
//! commands: sizes (`16MiB`), durations (`30s`), and settings that a word
//! such as `off` turns off; and [`format_size`], the one way sizes are shown.
//!
//! They live in the core, free of clap, so that the server's flags and the
//! client's commands agree on what `16MiB` means.

use std::time::Duration;

use super::ttl::Ttl;

/// Why a size or duration was refused; the message quotes the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    /// No number at the start.
    #[error("{0:?} is not a size like 16MiB")]
    NotASize(String),
    /// A number followed by something that is not a size unit.
    #[error("{0:?} has an unknown unit; use B, KiB, MiB, GiB, KB, MB or GB")]
    UnknownSizeUnit(String),
    /// More bytes than a `u64` holds.
    #[error("{0:?} is too large")]
    SizeTooLarge(String),
    /// Not a positive duration.
    #[error(
        "{0:?} is not a duration: a number of seconds, or a number and one of the units s, m, h, d, w (lower case: 30s, 5m)"
    )]
    NotADuration(String),
}

/// Parses `1234`, `512KiB`, `16MiB`, `1GiB` (also `KB`/`MB`/`GB` as powers of 1000).
pub fn parse_size(input: &str) -> Result<u64, UnitError> {
    let input = input.trim();
    let split = input
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(input.len());
    let (digits, unit) = input.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| UnitError::NotASize(input.to_owned()))?;
    let factor = size_unit(unit).ok_or_else(|| UnitError::UnknownSizeUnit(input.to_owned()))?;
    number
        .checked_mul(factor)
        .ok_or_else(|| UnitError::SizeTooLarge(input.to_owned()))
}

/// The bytes in one `unit` (case-insensitive; no unit means bytes).
fn size_unit(unit: &str) -> Option<u64> {
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return None,
    };
    Some(factor)
}

/// A size for people: `123 bytes`, `1.5 KiB`, `16 MiB`, `16.2 MiB`.
///
/// Binary units like the flags'; one decimal unless the value is whole, so
/// that a size just over a limit never reads the same as the limit (`16.0
/// MiB` against `16 MiB`). The web GUI's `formatBytes` follows the same rule.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64;
    let mut unit = UNITS[0];
    for u in UNITS {
        value /= 1024.0;
        unit = u;
        if value < 1024.0 {
            break;
        }
    }
    if value.fract() == 0.0 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

/// Parses a positive duration in the grammar of lifetimes ([`Ttl::parse`]:
/// `30s`, `5m`, `3600`), but without `never`.
pub fn parse_duration(input: &str) -> Result<Duration, UnitError> {
    match Ttl::parse(input) {
        Ok(Ttl::After(d)) => Ok(d),
        _ => Err(UnitError::NotADuration(input.to_owned())),
    }
}

/// `0` (no time at all), else a duration as [`parse_duration`] reads it.
pub fn parse_duration_or_zero(input: &str) -> Result<Duration, UnitError> {
    if input.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    parse_duration(input)
}

/// `None` when `input` is `word` (any case, surrounding spaces ignored),
/// otherwise what `parse` makes of it: how `off` and `none` switch a setting off.
pub fn unless<T, E>(
    input: &str,
    word: &str,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<Option<T>, E> {
    if input.trim().eq_ignore_ascii_case(word) {
        return Ok(None);
    }
    parse(input).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes parse with binary and decimal units and refuse nonsense.
    #[test]
    fn sizes() {
        assert_eq!(parse_size("1234"), Ok(1234));
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("1 GiB"), Ok(1 << 30));
        assert_eq!(parse_size("2KB"), Ok(2000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5 parsecs").is_err());
        assert!(parse_size("99999999999TiB").is_err());
    }

    /// Whole values have no decimal; anything else one, even when it rounds.
    #[test]
    fn formatted_sizes() {
        assert_eq!(format_size(0), "0 bytes");
        assert_eq!(format_size(1023), "1023 bytes");
        assert_eq!(format_size(1024), "1 KiB");
        assert_eq!(format_size(1536), "1.5 KiB");
        assert_eq!(format_size(16 << 20), "16 MiB");
        assert_eq!(format_size((16 << 20) + 1), "16.0 MiB");
        assert_eq!(format_size(17_000_000), "16.2 MiB");
        assert_eq!(format_size(17 << 20), "17 MiB");
        assert_eq!(format_size(3 << 30), "3 GiB");
    }

    /// Durations are positive and finite; `never` is a TTL, not a duration.
    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(
            parse_duration("never"),
            Err(UnitError::NotADuration("never".into()))
        );
        assert!(parse_duration("0s").is_err());
    }

    /// The switch-off word is recognised in any case; anything else is parsed.
    #[test]
    fn switched_off() {
        assert_eq!(unless(" OFF ", "off", parse_size), Ok(None));
        assert_eq!(unless("1KiB", "off", parse_size), Ok(Some(1024)));
        assert!(unless("none", "off", parse_size).is_err());
    }
}

/// Property tests of the size and duration parsers, which read flags, the
/// config file and the `ttl` option of creates; `bench/fuzz` runs them long.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any text is a size, a duration, or refused, without a panic; a
        /// size written in bytes is its number.
        #[test]
        fn fuzz_sizes_and_durations(input in prop_oneof![
            "\\PC{0,30}",
            "\\s?[0-9]{0,22}(\\.[0-9]{0,3})?\\s?[a-zA-Z]{0,4}\\s?",
        ]) {
            if let Ok(n) = parse_size(&input)
                && input.trim().bytes().all(|b| b.is_ascii_digit())
            {
                prop_assert_eq!(Some(n), input.trim().parse::<u64>().ok());
            }
            if let Ok(d) = parse_duration(&input) {
                prop_assert!(!d.is_zero());
            }
        }
    }
}
