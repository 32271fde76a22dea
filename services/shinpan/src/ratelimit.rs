//! The per-caller rate limit of the expensive calls on the gRPC transport: the limiter is the
//! application's ([`shinpan_application::ratelimit`], re-exported here); who the caller of a
//! request is, is the transport's ([`admit`]).

pub use shinpan_application::ratelimit::*;

use crate::error::status;
use tonic::{Request, Status};

/// Admits one expensive call `what` of `req`'s caller, or refuses it.
///
/// # Errors
/// `RESOURCE_EXHAUSTED` naming the limit, the flag (`--expensive-calls-per-minute`) and the
/// seconds to wait.
pub fn admit<T>(calls: &ExpensiveCalls, req: &Request<T>, what: &str) -> Result<(), Status> {
    calls.admit_caller(&caller(req), what).map_err(status)
}

/// The caller of `req`: `sub:<subject>` of its verified token, else `ip:<address>`, else
/// `anonymous` (an in-process call).
fn caller<T>(req: &Request<T>) -> String {
    if let Some(c) = req.extensions().get::<crate::auth::Claims>() {
        return format!("sub:{}", c.sub);
    }
    match req.remote_addr() {
        Some(a) => format!("ip:{}", a.ip()),
        None => "anonymous".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{Claims, Role, ISSUER};

    fn as_caller(sub: &str) -> Request<()> {
        let mut r = Request::new(());
        let claims =
            Claims { sub: sub.into(), role: Role::Referee, tournament: None, game: None, color: None, iat: 0, exp: 0, iss: ISSUER.into() };
        r.extensions_mut().insert(claims);
        r
    }

    #[test]
    fn a_caller_over_its_burst_is_refused_with_the_flag_and_others_are_not() {
        let limits = ExpensiveCalls::new(8); // bursts of 2
        let alice = as_caller("alice");
        let bob = as_caller("bob");
        assert!(admit(&limits, &alice, "Adjudicate").is_ok());
        assert!(admit(&limits, &alice, "Adjudicate").is_ok());
        let refused = admit(&limits, &alice, "Adjudicate").unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(
            refused.message().contains("--expensive-calls-per-minute") && refused.message().contains("retry in"),
            "{}",
            refused.message()
        );
        assert!(admit(&limits, &bob, "Adjudicate").is_ok(), "another caller has its own allowance");
        let open = ExpensiveCalls::unlimited();
        for _ in 0..100 {
            assert!(admit(&open, &alice, "Adjudicate").is_ok());
        }
    }

    #[test]
    fn the_caller_is_the_token_subject_else_anonymous() {
        assert_eq!(caller(&as_caller("alice")), "sub:alice");
        assert_eq!(caller(&Request::new(())), "anonymous");
    }
}
