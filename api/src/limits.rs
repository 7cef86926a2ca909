//! Rate limits: writes and hints per session (keyed by the token's hash, never the token), and
//! new sessions per client address. Each is a keyed token bucket (`governor`), absent when its
//! flag is 0.
//!
//! Hints get a bucket of their own, smaller than the writes', because each costs an AI search:
//! without it one token could keep every AI slot busy. Sessions are limited per address because
//! a fresh token escapes every per-token limit. An IPv6 client is keyed by its /64, the block a
//! single host is usually given, so that it cannot step around the limit by changing address.
//!
//! The buckets live in this process only: behind a load balancer with several instances, a
//! client may get up to that many times each limit (each instance counts alone).

use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::Config;

/// A request over a limit, and how long until one more would pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimited {
    pub retry_after: Duration,
}

type Bucket<K> = DefaultKeyedRateLimiter<K>;

#[derive(Debug)]
pub struct Limits {
    writes: Option<Bucket<[u8; 32]>>,
    hints: Option<Bucket<[u8; 32]>>,
    sessions: Option<Bucket<IpAddr>>,
}

fn bucket<K>(quota: Option<Quota>) -> Option<Bucket<K>>
where
    K: Clone + Eq + std::hash::Hash,
{
    quota.map(RateLimiter::keyed)
}

/// `rate` events per `period` with bursts of `burst` (the rate when 0); None when `rate` is 0.
fn quota(rate: u32, burst: u32, period: Duration) -> Option<Quota> {
    let rate = NonZeroU32::new(rate)?;
    let burst = NonZeroU32::new(burst).unwrap_or(rate);
    Quota::with_period(period / rate.get()).map(|q| q.allow_burst(burst))
}

fn check<K>(bucket: &Option<Bucket<K>>, key: &K) -> Result<(), RateLimited>
where
    K: Clone + Eq + std::hash::Hash,
{
    let Some(bucket) = bucket else {
        return Ok(());
    };
    bucket.check_key(key).map_err(|not_until| RateLimited {
        retry_after: not_until.wait_time_from(DefaultClock::default().now()),
    })
}

impl Limits {
    pub fn new(config: &Config) -> Limits {
        let second = Duration::from_secs(1);
        let minute = Duration::from_secs(60);
        Limits {
            writes: bucket(quota(config.write_rate_limit, config.write_burst, second)),
            hints: bucket(quota(config.hints_per_minute, config.hint_burst, minute)),
            sessions: bucket(quota(
                config.sessions_per_minute,
                config.session_burst,
                minute,
            )),
        }
    }

    /// One write by the session with this token hash.
    pub fn write(&self, session: &[u8; 32]) -> Result<(), RateLimited> {
        check(&self.writes, session)
    }

    /// One hint for the session with this token hash.
    pub fn hint(&self, session: &[u8; 32]) -> Result<(), RateLimited> {
        check(&self.hints, session)
    }

    /// One new session from this client address.
    pub fn new_session(&self, client: IpAddr) -> Result<(), RateLimited> {
        check(&self.sessions, &client_key(client))
    }

    /// Forgets keys whose buckets are full again (run now and then, so memory stays bounded).
    pub fn retain_recent(&self) {
        if let Some(b) = &self.writes {
            b.retain_recent();
        }
        if let Some(b) = &self.hints {
            b.retain_recent();
        }
        if let Some(b) = &self.sessions {
            b.retain_recent();
        }
    }
}

/// The key a client address is limited under: an IPv4 address itself (also when written as an
/// IPv4-mapped IPv6 address), an IPv6 address its /64.
pub fn client_key(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(
                u128::from(v6) & 0xffff_ffff_ffff_ffff_0000_0000_0000_0000,
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str]) -> Config {
        use clap::Parser;
        let mut argv = vec!["gomoku-server"];
        argv.extend_from_slice(args);
        crate::config::Cli::parse_from(argv).config
    }

    /// A bucket lets its burst through, then refuses with a wait of at least the period.
    #[test]
    fn hint_bucket_refuses_past_its_burst() {
        let limits = Limits::new(&config(&["--hints-per-minute", "6", "--hint-burst", "2"]));
        let key = [7u8; 32];
        assert!(limits.hint(&key).is_ok() && limits.hint(&key).is_ok());
        let refused = limits.hint(&key).unwrap_err();
        assert!(refused.retry_after > Duration::from_secs(5), "{refused:?}");
        assert!(
            limits.hint(&[8u8; 32]).is_ok(),
            "another session has its own bucket"
        );
        assert!(
            limits.write(&key).is_ok(),
            "hints and writes are counted apart"
        );
    }

    /// 0 turns a limit off.
    #[test]
    fn zero_is_off() {
        let limits = Limits::new(&config(&["--sessions-per-minute", "0"]));
        let addr: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..1000 {
            assert!(limits.new_session(addr).is_ok());
        }
    }

    /// Addresses of one IPv6 /64 share a key; an IPv4-mapped address is its IPv4 address.
    #[test]
    fn client_keys() {
        let key = |s: &str| client_key(s.parse().unwrap());
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:bbbb::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"));
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
    }
}
