//! How long a cached response is used without asking the server again.
//!
//! Revalidating with an ETag saves the bytes but not the round trip: `add`, then `install`, then
//! `status` would each ask the registry the same questions. A response fetched (or revalidated)
//! less than a short max-age ago is used as it is: five minutes by default,
//! `DOTPACK_CACHE_MAX_AGE=SECONDS` to change it (`0` always asks), less when the server's
//! `Cache-Control` says less (`max-age=N`, `no-cache`, `no-store`). `--refresh` asks again
//! whatever the age, as `uv --refresh` does.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The environment variable that sets the max-age, in seconds.
pub const MAX_AGE_ENV: &str = "DOTPACK_CACHE_MAX_AGE";
/// The max-age when nothing sets one.
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(300);
/// The longest max-age the variable may ask for: a day.
const LONGEST: u64 = 86_400;

/// The max-age `DOTPACK_CACHE_MAX_AGE` asks for (`None`: unset), or why it is not a number of
/// seconds.
pub fn max_age_from_env(value: Option<&str>) -> Result<Option<Duration>, String> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    value
        .parse::<u64>()
        .ok()
        .filter(|s| *s <= LONGEST)
        .map(|s| Some(Duration::from_secs(s)))
        .ok_or_else(|| {
            format!("{MAX_AGE_ENV}=`{value}` is not a number of seconds up to {LONGEST}")
        })
}

/// The seconds a server's `Cache-Control` lets a response be used without asking again: `0` for
/// `no-cache` or `no-store`, `N` for `max-age=N`, `None` when it says neither.
pub fn server_max_age(cache_control: Option<&str>) -> Option<u64> {
    let mut max_age = None;
    for directive in cache_control?.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-cache" || lower == "no-store" {
            return Some(0);
        }
        if let Some(n) = lower.strip_prefix("max-age=") {
            max_age = n.trim_matches('"').parse::<u64>().ok().or(Some(0));
        }
    }
    max_age
}

/// Seconds since the Unix epoch, now (0 on a clock before it).
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Whether a response fetched at `fetched` (seconds since the epoch; 0: unknown) may be used
/// at `now` without asking: younger than `ours` and than what the server allowed. A clock that
/// went backwards makes nothing fresh.
pub fn is_fresh(fetched: u64, server: Option<u64>, ours: Duration, now: u64) -> bool {
    if fetched == 0 || now < fetched {
        return false;
    }
    let limit = server.map_or(ours.as_secs(), |s| s.min(ours.as_secs()));
    now - fetched < limit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_is_fresh_within_the_shorter_max_age() {
        let five = Duration::from_secs(300);
        assert!(is_fresh(1000, None, five, 1299));
        assert!(!is_fresh(1000, None, five, 1300));
        assert!(is_fresh(1000, Some(60), five, 1059));
        assert!(!is_fresh(1000, Some(60), five, 1060));
        assert!(!is_fresh(1000, Some(0), five, 1000));
        assert!(!is_fresh(1000, None, Duration::ZERO, 1000));
        // Unknown fetch time, or a clock that went backwards.
        assert!(!is_fresh(0, None, five, 10));
        assert!(!is_fresh(1000, None, five, 999));
    }

    #[test]
    fn cache_control_says_how_long_or_not_at_all() {
        assert_eq!(server_max_age(None), None);
        assert_eq!(server_max_age(Some("public, max-age=600")), Some(600));
        assert_eq!(server_max_age(Some("max-age=\"30\"")), Some(30));
        assert_eq!(server_max_age(Some("max-age=soon")), Some(0));
        assert_eq!(server_max_age(Some("no-cache")), Some(0));
        assert_eq!(server_max_age(Some("max-age=600, No-Store")), Some(0));
        assert_eq!(server_max_age(Some("public")), None);
    }

    #[test]
    fn the_variable_is_seconds_up_to_a_day() {
        assert_eq!(max_age_from_env(None), Ok(None));
        assert_eq!(max_age_from_env(Some(" ")), Ok(None));
        assert_eq!(max_age_from_env(Some("0")), Ok(Some(Duration::ZERO)));
        assert_eq!(
            max_age_from_env(Some("60")),
            Ok(Some(Duration::from_secs(60)))
        );
        assert!(max_age_from_env(Some("-1")).is_err());
        assert!(max_age_from_env(Some("1h")).is_err());
        assert!(max_age_from_env(Some("86401")).is_err());
    }
}
