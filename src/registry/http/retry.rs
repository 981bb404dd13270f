//! When a registry request is tried again, and how long dotpack waits for a server.
//!
//! A 5xx answer, a 429 or a connection the server reset is usually passing (a deploy, an overloaded
//! CDN node), so it is tried again after a short wait that doubles each time: 250 ms, 500 ms,
//! 1 s by default, or as long as the server's `Retry-After` asks when that is longer (up to
//! 10 s; asked for more, dotpack stops at once). Another 4xx is the server's considered answer
//! and a timeout already cost the whole wait, so neither is tried again. See ADR 0017.

use std::io::ErrorKind;
use std::time::Duration;

use super::Network;

/// Seconds to wait for a connection and for the first byte of an answer.
pub const TIMEOUT_ENV: &str = "DOTPACK_HTTP_TIMEOUT";
/// How many times a failed request is tried again.
pub const RETRIES_ENV: &str = "DOTPACK_HTTP_RETRIES";
/// The first wait between attempts, in milliseconds (doubled for each next one).
pub const RETRY_DELAY_ENV: &str = "DOTPACK_HTTP_RETRY_DELAY_MS";

pub(super) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
pub(super) const DEFAULT_RETRIES: u32 = 3;
pub(super) const DEFAULT_RETRY_DELAY: Duration = Duration::from_millis(250);
/// No single wait is longer than this, whatever the settings.
const MAX_WAIT: Duration = Duration::from_secs(10);

/// The retry settings of one request.
#[derive(Clone, Copy, Debug)]
pub(super) struct Policy {
    retries: u32,
    delay: Duration,
}

impl From<&Network> for Policy {
    fn from(network: &Network) -> Self {
        Policy {
            retries: network.retries,
            delay: network.retry_delay,
        }
    }
}

impl Policy {
    /// The wait before attempt `n` when the server asked for `asked` (`Retry-After`): the longer
    /// of the two, or `None` when the server asks for longer than dotpack ever waits (trying
    /// sooner would only be refused again) or no attempt is left.
    pub(super) fn wait_asked(&self, n: u32, asked: Option<Duration>) -> Option<Duration> {
        let ours = self.wait_before(n)?;
        match asked {
            Some(asked) if asked > MAX_WAIT => None,
            Some(asked) => Some(asked.max(ours)),
            None => Some(ours),
        }
    }

    /// The wait before attempt `n` (1 = the first retry), or `None` when no attempt is left.
    pub(super) fn wait_before(&self, n: u32) -> Option<Duration> {
        if n == 0 || n > self.retries {
            return None;
        }
        let factor = 1u32.checked_shl(n - 1).unwrap_or(u32::MAX);
        Some(self.delay.saturating_mul(factor).min(MAX_WAIT))
    }
}

/// 5xx answers and 429 (too many requests) are worth another try.
pub(super) fn is_retryable_status(status: u16) -> bool {
    status == TOO_MANY_REQUESTS || (500..=599).contains(&status)
}

/// "Too many requests": the server asks to be asked more slowly.
pub(super) const TOO_MANY_REQUESTS: u16 = 429;

/// The wait a `Retry-After` header asks for, when it gives seconds (an HTTP date is not read).
pub(super) fn retry_after(value: Option<&str>) -> Option<Duration> {
    value?.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// A connection reset, aborted or closed before the answer is worth another try; a refused
/// connection, a bad address, a TLS failure or a timeout is not.
pub(super) fn is_retryable_error(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::Io(io) => matches!(
            io.kind(),
            ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::BrokenPipe
                | ErrorKind::UnexpectedEof
        ),
        _ => false,
    }
}

/// The network settings from environment values (`None`: unset), each checked: a bad value is
/// an error naming the variable.
pub fn from_env(
    base: Network,
    timeout: Option<&str>,
    retries: Option<&str>,
    delay_ms: Option<&str>,
) -> Result<Network, String> {
    let mut network = base;
    if let Some(value) = timeout.map(str::trim).filter(|v| !v.is_empty()) {
        let secs: f64 = value
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s > 0.0)
            .ok_or_else(|| {
                format!("{TIMEOUT_ENV}=`{value}` is not a positive number of seconds")
            })?;
        network.timeout = Duration::from_secs_f64(secs.min(3600.0));
    }
    if let Some(value) = retries.map(str::trim).filter(|v| !v.is_empty()) {
        network.retries = value
            .parse::<u32>()
            .ok()
            .filter(|n| *n <= 10)
            .ok_or_else(|| format!("{RETRIES_ENV}=`{value}` is not a number from 0 to 10"))?;
    }
    if let Some(value) = delay_ms.map(str::trim).filter(|v| !v.is_empty()) {
        let ms = value
            .parse::<u64>()
            .ok()
            .filter(|n| *n <= 60_000)
            .ok_or_else(|| {
                format!("{RETRY_DELAY_ENV}=`{value}` is not a number of milliseconds up to 60000")
            })?;
        network.retry_delay = Duration::from_millis(ms);
    }
    Ok(network)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_and_stop_after_the_last_retry() {
        let policy = Policy {
            retries: 3,
            delay: Duration::from_millis(100),
        };
        let waits: Vec<_> = (1..=4).map(|n| policy.wait_before(n)).collect();
        assert_eq!(
            waits,
            [
                Some(Duration::from_millis(100)),
                Some(Duration::from_millis(200)),
                Some(Duration::from_millis(400)),
                None
            ]
        );
        let huge = Policy {
            retries: 10,
            delay: Duration::from_secs(60),
        };
        assert_eq!(huge.wait_before(10), Some(MAX_WAIT));
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_longest_wait() {
        let policy = Policy {
            retries: 2,
            delay: Duration::from_millis(100),
        };
        assert_eq!(retry_after(Some(" 3 ")), Some(Duration::from_secs(3)));
        assert_eq!(retry_after(Some("Wed, 21 Oct 2026 07:28:00 GMT")), None);
        assert_eq!(retry_after(None), None);
        assert_eq!(
            policy.wait_asked(1, Some(Duration::from_secs(2))),
            Some(Duration::from_secs(2))
        );
        // Never shorter than dotpack's own wait, never past the last attempt.
        assert_eq!(
            policy.wait_asked(1, Some(Duration::ZERO)),
            Some(Duration::from_millis(100))
        );
        assert_eq!(policy.wait_asked(3, Some(Duration::from_secs(1))), None);
        // Asked to wait longer than dotpack ever does: give up now.
        assert_eq!(policy.wait_asked(1, Some(Duration::from_secs(3600))), None);
        assert_eq!(policy.wait_asked(1, None), Some(Duration::from_millis(100)));
    }

    #[test]
    fn only_server_errors_and_resets_are_retried() {
        assert!(is_retryable_status(500) && is_retryable_status(503) && is_retryable_status(429));
        for status in [200, 304, 400, 401, 403, 404] {
            assert!(!is_retryable_status(status), "{status}");
        }
        let reset = ureq::Error::Io(std::io::Error::from(ErrorKind::ConnectionReset));
        assert!(is_retryable_error(&reset));
        let refused = ureq::Error::Io(std::io::Error::from(ErrorKind::ConnectionRefused));
        assert!(!is_retryable_error(&refused));
    }

    #[test]
    fn environment_values_are_checked() {
        let n = from_env(Network::default(), Some("1.5"), Some("0"), Some("10")).unwrap();
        assert_eq!(n.timeout, Duration::from_millis(1500));
        assert_eq!((n.retries, n.retry_delay), (0, Duration::from_millis(10)));
        assert!(
            from_env(Network::default(), Some("soon"), None, None)
                .unwrap_err()
                .contains(TIMEOUT_ENV)
        );
        assert!(from_env(Network::default(), None, Some("-1"), None).is_err());
        assert_eq!(
            from_env(Network::default(), None, None, None).unwrap(),
            Network::default()
        );
    }
}
