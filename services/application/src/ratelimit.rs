//! A per-caller rate limit on the expensive calls: those that parse a whole record or search
//! (`ValidateRecord`, `ImportSgf`, `Adjudicate`, `AdjudicateStream`, `Propose`). A caller is
//! the subject of its verified bearer token, or without one its IP address. Each caller may
//! make `per_minute` such calls a minute, in bursts of up to `burst` (a token bucket, by the
//! `governor` crate: GCRA); one more is `RESOURCE_EXHAUSTED` naming the limit, the flag
//! (`--expensive-calls-per-minute`) and when to retry. Cheap calls (recording a move,
//! reading a game) are not limited: the other limits (connections, message sizes, concurrent
//! searches and parses) bound them. Who the caller of a gRPC request is, the transport says
//! (`shinpan::ratelimit::admit`).

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::num::NonZeroU32;
use std::sync::Arc;

use crate::error::{AppError, Code};

/// Default of `shinpan serve --expensive-calls-per-minute`: enough for a referee working
/// through a round's disputes and for a recording service importing a tournament, far below
/// what would keep every core searching for one caller.
pub const DEFAULT_PER_MINUTE: u32 = 120;

/// The limiter shared by the services of one process (cheap to clone).
#[derive(Clone)]
pub struct ExpensiveCalls {
    per_minute: u32,
    limiter: Option<Arc<DefaultKeyedRateLimiter<String>>>,
}

impl std::fmt::Debug for ExpensiveCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpensiveCalls").field("per_minute", &self.per_minute).finish()
    }
}

impl ExpensiveCalls {
    /// `per_minute` calls a minute per caller, bursts of a quarter of that (at least one);
    /// 0 = no limit.
    pub fn new(per_minute: u32) -> ExpensiveCalls {
        let limiter = NonZeroU32::new(per_minute).map(|n| {
            let burst = NonZeroU32::new((per_minute / 4).max(1)).expect("at least one");
            Arc::new(RateLimiter::keyed(Quota::per_minute(n).allow_burst(burst)))
        });
        ExpensiveCalls { per_minute, limiter }
    }

    /// No limit (for tests and the offline commands).
    pub fn unlimited() -> ExpensiveCalls {
        ExpensiveCalls::new(0)
    }

    /// Admits one expensive call `what` of `caller` (`sub:<subject>` of its verified token,
    /// `ip:<address>`, or `anonymous`), or refuses it.
    ///
    /// # Errors
    /// `RESOURCE_EXHAUSTED` ([`AppError::Refused`]) naming the limit, the flag and the
    /// seconds to wait.
    pub fn admit_caller(&self, caller: &str, what: &str) -> Result<(), AppError> {
        let Some(limiter) = &self.limiter else { return Ok(()) };
        let caller = caller.to_string();
        match limiter.check_key(&caller) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                tracing::warn!(caller = %caller, call = what, "rate limit of expensive calls reached");
                Err(AppError::Refused {
                    code: Code::ResourceExhausted,
                    message: format!(
                        "{what}: the rate limit of {} expensive calls a minute per caller is reached \
                         (--expensive-calls-per-minute); retry in {:.1} s",
                        self.per_minute,
                        wait.as_secs_f64().max(0.1)
                    ),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_over_its_burst_is_refused_with_the_flag_and_others_are_not() {
        let limits = ExpensiveCalls::new(8); // bursts of 2
        assert!(limits.admit_caller("sub:alice", "Adjudicate").is_ok());
        assert!(limits.admit_caller("sub:alice", "Adjudicate").is_ok());
        let refused = limits.admit_caller("sub:alice", "Adjudicate").unwrap_err();
        let AppError::Refused { code, message } = &refused else { panic!("{refused:?}") };
        assert_eq!(*code, Code::ResourceExhausted);
        assert!(message.contains("--expensive-calls-per-minute") && message.contains("retry in"), "{message}");
        assert!(limits.admit_caller("sub:bob", "Adjudicate").is_ok(), "another caller has its own allowance");
        let open = ExpensiveCalls::unlimited();
        for _ in 0..100 {
            assert!(open.admit_caller("sub:alice", "Adjudicate").is_ok());
        }
    }
}
