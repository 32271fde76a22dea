//! Bearer tokens on the gRPC calls: the transport's side of [`shinpan_application::auth`]
//! (re-exported here: tokens, claims, roles and their rules). The interceptor reads the
//! `authorization` metadata of every call, verifies its token and stores the [`Claims`] in
//! the request's extensions, where the handlers read them ([`claims`]). A missing,
//! malformed, badly signed, not yet valid or expired token is `UNAUTHENTICATED` (logged,
//! `tracing` target `shinpan::auth`, never the token).

pub use shinpan_application::auth::*;

use tonic::{Request, Status};

/// Reads and verifies the bearer token of a request's metadata (`authorization: Bearer
/// <jwt>`).
///
/// # Errors
/// [`AuthError`] for a missing, malformed (not visible ASCII, not a bearer token), invalid
/// or expired token.
pub fn authenticate(cfg: &AuthConfig, md: &tonic::metadata::MetadataMap) -> Result<Claims, AuthError> {
    let raw = md.get("authorization").ok_or(AuthError::Missing)?;
    let s = raw.to_str().map_err(|_| AuthError::NotBearer)?;
    cfg.authenticate_bearer(s)
}

/// The tonic interceptor: verifies the bearer token and stores the [`Claims`] in the
/// request's extensions (read them with [`claims`]). `UNAUTHENTICATED` (logged) when the
/// token is missing, malformed, badly signed or expired.
pub fn interceptor(cfg: &AuthConfig) -> impl FnMut(Request<()>) -> Result<Request<()>, Status> + Clone + Send + Sync + 'static {
    let cfg = cfg.clone();
    move |mut req: Request<()>| match authenticate(&cfg, req.metadata()) {
        Ok(c) => {
            tracing::debug!(target: "shinpan::auth", sub = %c.sub, role = %c.role, "authenticated");
            req.extensions_mut().insert(c);
            Ok(req)
        }
        Err(e) => {
            tracing::warn!(target: "shinpan::auth", reason = %e, peer = ?req.remote_addr(), "UNAUTHENTICATED");
            Err(Status::unauthenticated(e.to_string()))
        }
    }
}

/// The claims the interceptor stored in a request.
///
/// # Errors
/// `UNAUTHENTICATED` when the service was mounted without the interceptor (no claims).
pub fn claims<T>(req: &Request<T>) -> Result<Claims, Status> {
    req.extensions().get::<Claims>().cloned().ok_or_else(|| Status::unauthenticated("no verified bearer token on this call"))
}

/// `PERMISSION_DENIED`, logged with who tried what ([`denial`]).
pub fn denied(c: &Claims, what: &str) -> Status {
    Status::permission_denied(denial(c, what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_header_is_required() {
        let cfg = AuthConfig::new("s");
        let mut md = tonic::metadata::MetadataMap::new();
        assert_eq!(authenticate(&cfg, &md), Err(AuthError::Missing));
        md.insert("authorization", "Basic abc".parse().unwrap());
        assert_eq!(authenticate(&cfg, &md), Err(AuthError::NotBearer));
        let t = cfg.issue(Role::Player, "p", None, None, None, 60).unwrap();
        md.insert("authorization", format!("Bearer {t}").parse().unwrap());
        assert_eq!(authenticate(&cfg, &md).unwrap().sub, "p");
    }

    #[test]
    fn interceptor_stores_claims_or_refuses() {
        let cfg = AuthConfig::new("s");
        let mut f = interceptor(&cfg);
        let status = f(Request::new(())).unwrap_err();
        assert_eq!(status.code(), tonic::Code::Unauthenticated);
        let mut req = Request::new(());
        let t = cfg.issue(Role::ArchiveReader, "lib", None, None, None, 60).unwrap();
        req.metadata_mut().insert("authorization", format!("Bearer {t}").parse().unwrap());
        let req = f(req).unwrap();
        assert_eq!(super::claims(&req).unwrap().role, Role::ArchiveReader);
    }
}
