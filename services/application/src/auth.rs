//! Who may do what: bearer tokens (signed JWT, HS256, library `jsonwebtoken`) checked on
//! every call (by the transport's interceptor, `shinpan::auth::interceptor`, with
//! [`AuthConfig::authenticate_bearer`]), and the role rules of the result and arbiter
//! workflow.
//!
//! ## Tokens
//! `authorization: Bearer <jwt>` on every call. The JWT is signed with HS256 and the secret
//! of [`AuthConfig`]: `SHINPAN_JWT_SECRET` (flag `--jwt-secret`), or for local use the
//! documented development default [`DEV_SECRET`] (the server logs a warning when it runs
//! with it). Claims ([`Claims`]): `sub` (the user: for a player, their federation id — e.g.
//! an EGD PIN — or, for players without one, their name as registered), `role`, and
//! optionally `tournament` (name or id: the tournament a referee or chief arbiter acts
//! for), `game` and `color` (a player token limited to one game and colour), `iat`, `exp`,
//! `iss` = [`ISSUER`]. `shinpan token issue` mints them.
//!
//! A token is accepted only with a non-empty `sub`, `iat` not in the future, `exp` in the
//! future and at most [`MAX_TOKEN_LIFETIME_SECS`] (7 days) after `iat`, and `nbf` (not
//! before, optional) not in the future; no leeway. `shinpan serve` refuses to start on an
//! address other than loopback with the development secret (see
//! [`check_secret_for_listen`]).
//!
//! A missing, malformed, badly signed, not yet valid or expired token is `UNAUTHENTICATED`; a valid token
//! whose role may not do the call is `PERMISSION_DENIED`. Both are logged (`tracing`
//! target `shinpan::auth`, with the subject and role where known, never the token).
//!
//! ## Roles
//! | role | may |
//! |---|---|
//! | `player` | read their own games; propose a result of their own game; confirm **their own colour** only; object (第十条2) for their own colour |
//! | `referee` (立会人) | everything on games of their tournament: propose, confirm as referee, open and rule cases, export |
//! | `chief-arbiter` (tournament director) | as referee, for their tournament (or every tournament when the token names none) |
//! | `federation-admin` | everything, and federation corrections of final results |
//! | `archive-reader` | read-only: results, cases, exports |
//!
//! Behind `--auth all` the same roles govern `GameRecordingService` and `AdjudicationService`: officials
//! create and import games of their tournament; a move is recorded by the game's officials or
//! its player of that colour, a resignation by the player who resigns or an official; a
//! stored game is adjudicated by its players and officials (see those services' docs).

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use uuid::Uuid;

/// The development secret used when `SHINPAN_JWT_SECRET` is unset. Never use it in
/// production: anyone can mint tokens with it.
pub const DEV_SECRET: &str = "shinpan-development-secret-do-not-use-in-production";

/// The longest a token may be valid: `exp - iat` at most 7 days (one tournament; tokens for
/// a longer event are reissued). A longer-lived token is refused, and not minted.
pub const MAX_TOKEN_LIFETIME_SECS: u64 = 7 * 86_400;

/// Shortest signing secret accepted, in bytes: HS256 keys shorter than the hash's 32 bytes
/// weaken it (RFC 7518 §3.2), and a short secret can be guessed offline from one token.
pub const MIN_SECRET_BYTES: usize = 32;

/// Refuses the development secret (or none) on a listen address other than loopback: with
/// the public [`DEV_SECRET`] anyone who reads the source can mint a federation-admin token;
/// and refuses, on any address, a secret of its own shorter than [`MIN_SECRET_BYTES`].
///
/// # Errors
/// A message naming `--jwt-secret` and [`SECRET_ENV`] (and the minimum length).
pub fn check_secret_for_listen(listen: std::net::SocketAddr, secret: Option<&str>) -> Result<(), String> {
    let development = AuthConfig::new(secret.unwrap_or("")).development;
    if !development && secret.is_some_and(|s| s.len() < MIN_SECRET_BYTES) {
        return Err(format!(
            "the JWT secret (--jwt-secret or {SECRET_ENV}) is shorter than {MIN_SECRET_BYTES} bytes: \
             use a random one, e.g. `openssl rand -base64 48`"
        ));
    }
    if listen.ip().is_loopback() || !development {
        return Ok(());
    }
    Err(format!(
        "refusing to listen on {listen} with the development JWT secret (anyone can mint tokens with it): \
         set --jwt-secret or {SECRET_ENV}, or listen on a loopback address"
    ))
}

/// `iss` of every token.
pub const ISSUER: &str = "shinpan";

/// Environment variable holding the signing secret.
pub const SECRET_ENV: &str = "SHINPAN_JWT_SECRET";

/// A role of the result and arbiter workflow.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A player: their own games and colour only.
    Player,
    /// The referee (立会人) of a tournament.
    Referee,
    /// The chief arbiter / tournament director.
    ChiefArbiter,
    /// A federation administrator.
    FederationAdmin,
    /// A read-only archive reader.
    ArchiveReader,
}

/// A role as the command line names it (`shinpan token issue --role referee`).
impl clap::ValueEnum for Role {
    fn value_variants<'a>() -> &'a [Self] {
        &Role::ALL
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 5] = [Role::Player, Role::Referee, Role::ChiefArbiter, Role::FederationAdmin, Role::ArchiveReader];

    /// `"player"`, `"referee"`, `"chief-arbiter"`, `"federation-admin"`, `"archive-reader"`.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Referee => "referee",
            Role::ChiefArbiter => "chief-arbiter",
            Role::FederationAdmin => "federation-admin",
            Role::ArchiveReader => "archive-reader",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Role, String> {
        let t = s.trim().to_ascii_lowercase().replace('_', "-");
        match t.as_str() {
            "tournament-director" | "director" | "chief" => return Ok(Role::ChiefArbiter),
            "admin" => return Ok(Role::FederationAdmin),
            "reader" | "archive" => return Ok(Role::ArchiveReader),
            _ => {}
        }
        Role::ALL
            .into_iter()
            .find(|r| r.name() == t)
            .ok_or_else(|| format!("unknown role `{s}` (player, referee, chief-arbiter, federation-admin, archive-reader)"))
    }
}

/// The claims of a shinpan token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The user: a player's federation id (or registered name), a referee's id, ...
    pub sub: String,
    /// Their role.
    pub role: Role,
    /// The tournament (name or id) a referee or chief arbiter acts for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// A player token limited to one game (UUID).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// A player token limited to one colour: `"B"` or `"W"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Issued at, seconds since the Unix epoch (not in the future).
    pub iat: u64,
    /// Expires at, seconds since the Unix epoch: at most [`MAX_TOKEN_LIFETIME_SECS`] after `iat`.
    pub exp: u64,
    /// Issuer, always [`ISSUER`].
    pub iss: String,
}

/// Why a token is refused (→ `UNAUTHENTICATED`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No `authorization` metadata.
    #[error("missing bearer token (authorization: Bearer <jwt>)")]
    Missing,
    /// Not `Bearer <token>`.
    #[error("the authorization header is not `Bearer <token>`")]
    NotBearer,
    /// The token has expired.
    #[error("the token has expired")]
    Expired,
    /// Bad signature, malformed token, wrong issuer or algorithm.
    #[error("invalid token: {0}")]
    Invalid(String),
}

/// The signing configuration.
#[derive(Clone)]
pub struct AuthConfig {
    secret: Arc<Vec<u8>>,
    /// True when running with [`DEV_SECRET`].
    pub development: bool,
}

impl fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthConfig").field("development", &self.development).finish_non_exhaustive()
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

impl AuthConfig {
    /// A configuration with this secret (an empty secret means [`DEV_SECRET`]).
    pub fn new(secret: &str) -> AuthConfig {
        if secret.is_empty() || secret == DEV_SECRET {
            AuthConfig { secret: Arc::new(DEV_SECRET.as_bytes().to_vec()), development: true }
        } else {
            AuthConfig { secret: Arc::new(secret.as_bytes().to_vec()), development: false }
        }
    }

    /// From `SHINPAN_JWT_SECRET`, or [`DEV_SECRET`] when it is unset or empty.
    pub fn from_env() -> AuthConfig {
        AuthConfig::new(&std::env::var(SECRET_ENV).unwrap_or_default())
    }

    /// Signs claims (HS256).
    ///
    /// # Errors
    /// Only if serialisation fails (it does not for [`Claims`]).
    pub fn sign(&self, claims: &Claims) -> Result<String, AuthError> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &EncodingKey::from_secret(&self.secret))
            .map_err(|e| AuthError::Invalid(e.to_string()))
    }

    /// Mints a token for `sub` in `role` valid for `ttl_secs` seconds from now (see
    /// [`Claims`] for the optional limits).
    ///
    /// # Errors
    /// [`AuthError::Invalid`] for an empty `sub` or a lifetime over
    /// [`MAX_TOKEN_LIFETIME_SECS`]; as [`AuthConfig::sign`].
    pub fn issue(
        &self,
        role: Role,
        sub: &str,
        tournament: Option<&str>,
        game: Option<&str>,
        color: Option<goban::Color>,
        ttl_secs: u64,
    ) -> Result<String, AuthError> {
        if sub.trim().is_empty() {
            return Err(AuthError::Invalid("a token needs a subject (sub)".into()));
        }
        if ttl_secs > MAX_TOKEN_LIFETIME_SECS {
            return Err(AuthError::Invalid(format!("a token lives at most {MAX_TOKEN_LIFETIME_SECS} s (7 days), not {ttl_secs} s")));
        }
        let iat = now_secs();
        self.sign(&Claims {
            sub: sub.to_string(),
            role,
            tournament: tournament.map(str::to_string),
            game: game.map(str::to_string),
            color: color.map(|c| c.letter().to_string()),
            iat,
            exp: iat + ttl_secs,
            iss: ISSUER.to_string(),
        })
    }

    /// Verifies a token: HS256 signature with this secret, `exp` in the future and `nbf` (if
    /// any) not (no leeway), `iss` = [`ISSUER`], a non-empty `sub`, `iat` not in the future,
    /// `exp - iat` at most [`MAX_TOKEN_LIFETIME_SECS`].
    ///
    /// # Errors
    /// [`AuthError::Expired`] or [`AuthError::Invalid`] (naming what is wrong).
    pub fn verify(&self, token: &str) -> Result<Claims, AuthError> {
        let mut v = Validation::new(Algorithm::HS256);
        v.leeway = 0;
        v.set_issuer(&[ISSUER]);
        v.validate_nbf = true;
        v.set_required_spec_claims(&["exp", "iss", "sub"]);
        let c =
            jsonwebtoken::decode::<Claims>(token, &DecodingKey::from_secret(&self.secret), &v).map(|d| d.claims).map_err(|e| {
                match e.kind() {
                    jsonwebtoken::errors::ErrorKind::ExpiredSignature => AuthError::Expired,
                    jsonwebtoken::errors::ErrorKind::ImmatureSignature => AuthError::Invalid("the token is not valid yet (nbf)".into()),
                    _ => AuthError::Invalid(e.to_string()),
                }
            })?;
        if c.sub.trim().is_empty() {
            return Err(AuthError::Invalid("the token has an empty subject (sub)".into()));
        }
        if c.iat > now_secs() {
            return Err(AuthError::Invalid("the token is issued in the future (iat)".into()));
        }
        if c.exp.saturating_sub(c.iat) > MAX_TOKEN_LIFETIME_SECS {
            return Err(AuthError::Invalid(format!("the token lives longer than {MAX_TOKEN_LIFETIME_SECS} s (exp - iat)")));
        }
        Ok(c)
    }

    /// Verifies the bearer token of a request's `authorization` header (`Bearer <jwt>`,
    /// or `bearer <jwt>`).
    ///
    /// # Errors
    /// [`AuthError::NotBearer`] for a header that is not a bearer token; [`AuthError`] for a
    /// malformed, invalid or expired token.
    pub fn authenticate_bearer(&self, authorization: &str) -> Result<Claims, AuthError> {
        let token = authorization
            .strip_prefix("Bearer ")
            .or_else(|| authorization.strip_prefix("bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or(AuthError::NotBearer)?;
        self.verify(token)
    }
}

/// Which services check bearer tokens (`shinpan serve --auth`, `SHINPAN_AUTH`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthScope {
    /// `ResultConfirmationService` and `ArbitrationService` only (the default, so that the recording and
    /// validation clients of a local set-up need no token).
    #[default]
    Results,
    /// GameRecordingService, AdjudicationService and RuleValidationService's `ValidateRecord`
    /// (it parses whole records) too: for deployments where every caller holds a token.
    /// `ValidateMove` and `ListRuleSets` stay open: they are cheap, read nothing stored, and a
    /// recording service calls `ValidateMove`.
    All,
}

/// The refusal of `what` to the caller `c` ("<role> `<sub>` may not <what>"), logged with
/// who tried what: the message of a `PERMISSION_DENIED`.
pub fn denial(c: &Claims, what: &str) -> String {
    tracing::warn!(target: "shinpan::auth", sub = %c.sub, role = %c.role, action = what, "PERMISSION_DENIED");
    format!("{} `{}` may not {what}", c.role, c.sub)
}

/// A token for tests, signed with the development secret [`DEV_SECRET`] (the secret of a
/// server started from `ServeArgs::local`, which sets no `jwt_secret`), valid for an hour.
pub fn testing_token(role: Role, sub: &str, tournament: Option<&str>, game: Option<&str>, color: Option<goban::Color>) -> String {
    AuthConfig::new(DEV_SECRET).issue(role, sub, tournament, game, color, 3600).expect("signing a token")
}

/// What the role rules need to know about a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameScope {
    /// The game.
    pub game_id: Uuid,
    /// Its tournament's id, if any.
    pub tournament_id: Option<Uuid>,
    /// Its tournament's name, if any.
    pub tournament_name: Option<String>,
    /// Black's federation id and name.
    pub black: (Option<String>, String),
    /// White's federation id and name.
    pub white: (Option<String>, String),
}

impl Claims {
    /// Whether the token's tournament (if it names one) is the game's.
    fn tournament_matches(&self, g: &GameScope) -> bool {
        match &self.tournament {
            None => false,
            Some(t) => {
                let t = t.trim();
                g.tournament_id.is_some_and(|id| id.to_string().eq_ignore_ascii_case(t)) || g.tournament_name.as_deref() == Some(t)
            }
        }
    }

    /// The colours this player plays in `g` (empty for other roles): both colours' players
    /// are matched by federation id (or by name for a player without one), and a token
    /// limited to a game or colour is limited accordingly.
    pub fn player_colours(&self, g: &GameScope) -> Vec<goban::Color> {
        if self.role != Role::Player {
            return Vec::new();
        }
        if let Some(game) = &self.game {
            if !game.trim().eq_ignore_ascii_case(&g.game_id.to_string()) {
                return Vec::new();
            }
        }
        let is = |(fid, name): &(Option<String>, String)| match fid {
            Some(f) if !f.is_empty() => f == &self.sub,
            _ => name == &self.sub,
        };
        let mut out = Vec::new();
        for (c, p) in [(goban::Color::Black, &g.black), (goban::Color::White, &g.white)] {
            let by_claim = self.game.is_some() && self.color.as_deref() == Some(&c.letter().to_string()[..]);
            let limited_elsewhere = self.color.as_deref().is_some_and(|x| x != c.letter().to_string());
            if (by_claim || is(p)) && !limited_elsewhere {
                out.push(c);
            }
        }
        out
    }

    /// Referee or chief arbiter of the game's tournament (a chief arbiter's token without
    /// a tournament covers every tournament), or a federation admin.
    pub fn officiates(&self, g: &GameScope) -> bool {
        match self.role {
            Role::FederationAdmin => true,
            Role::ChiefArbiter => self.tournament.is_none() || self.tournament_matches(g),
            Role::Referee => self.tournament_matches(g),
            _ => false,
        }
    }

    /// May read the game's result and cases: its players, its officials, archive readers.
    pub fn may_read(&self, g: &GameScope) -> bool {
        self.role == Role::ArchiveReader || self.officiates(g) || !self.player_colours(g).is_empty()
    }

    /// May propose a result: the game's players and officials.
    pub fn may_propose(&self, g: &GameScope) -> bool {
        self.officiates(g) || !self.player_colours(g).is_empty()
    }

    /// May confirm for `party`: a player only for their own colour; the referee party only
    /// by an official (referee, chief arbiter, federation admin) of the game.
    pub fn may_confirm(&self, g: &GameScope, party: crate::lifecycle::Party) -> bool {
        use crate::lifecycle::Party;
        match party {
            Party::Black => self.player_colours(g).contains(&goban::Color::Black),
            Party::White => self.player_colours(g).contains(&goban::Color::White),
            Party::Referee => self.officiates(g),
        }
    }

    /// May open and rule cases: officials of the game (never a player).
    pub fn may_rule(&self, g: &GameScope) -> bool {
        self.officiates(g)
    }

    /// May export a tournament's results: officials and archive readers.
    pub fn may_export(&self, tournament_id: Uuid, tournament_name: &str) -> bool {
        self.role == Role::ArchiveReader || self.officiates_tournament(Some(tournament_id), Some(tournament_name))
    }

    /// [`Claims::officiates`] for a tournament rather than a game (its id when it exists, its
    /// name; neither for games filed under none): may file games under it.
    pub fn officiates_tournament(&self, id: Option<Uuid>, name: Option<&str>) -> bool {
        let scope = GameScope {
            game_id: Uuid::nil(),
            tournament_id: id,
            tournament_name: name.map(str::to_string),
            black: (None, String::new()),
            white: (None, String::new()),
        };
        self.officiates(&scope)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::Party;
    use goban::Color;

    fn scope() -> GameScope {
        GameScope {
            game_id: Uuid::from_u128(7),
            tournament_id: Some(Uuid::from_u128(1)),
            tournament_name: Some("Kisei Cup".into()),
            black: (Some("12345678".into()), "Kato Masao".into()),
            white: (None, "Cho Chikun".into()),
        }
    }

    fn claims(role: Role, sub: &str) -> Claims {
        Claims { sub: sub.into(), role, tournament: None, game: None, color: None, iat: 0, exp: u64::MAX, iss: ISSUER.into() }
    }

    #[test]
    fn tokens_round_trip_and_are_checked() {
        let cfg = AuthConfig::new("a test secret");
        let t = cfg.issue(Role::Referee, "ref-1", Some("Kisei Cup"), None, None, 60).unwrap();
        let c = cfg.verify(&t).unwrap();
        assert_eq!((c.role, c.sub.as_str(), c.tournament.as_deref()), (Role::Referee, "ref-1", Some("Kisei Cup")));
        // Another secret: invalid.
        assert!(matches!(AuthConfig::new("other").verify(&t), Err(AuthError::Invalid(_))));
        // Tampered payload: invalid.
        let mut parts: Vec<&str> = t.split('.').collect();
        let forged = cfg.issue(Role::FederationAdmin, "ref-1", None, None, None, 60).unwrap();
        let forged_payload = forged.split('.').nth(1).unwrap().to_string();
        parts[1] = &forged_payload;
        assert!(matches!(cfg.verify(&parts.join(".")), Err(AuthError::Invalid(_))));
        // Expired.
        let mut old = c.clone();
        old.iat = 1;
        old.exp = 2;
        assert_eq!(cfg.verify(&cfg.sign(&old).unwrap()), Err(AuthError::Expired));
        assert!(matches!(cfg.verify("not.a.token"), Err(AuthError::Invalid(_))));
    }

    #[test]
    fn bearer_header_is_required() {
        let cfg = AuthConfig::new("s");
        assert_eq!(cfg.authenticate_bearer("Basic abc"), Err(AuthError::NotBearer));
        assert_eq!(cfg.authenticate_bearer("Bearer "), Err(AuthError::NotBearer));
        let t = cfg.issue(Role::Player, "p", None, None, None, 60).unwrap();
        assert_eq!(cfg.authenticate_bearer(&format!("Bearer {t}")).unwrap().sub, "p");
        assert_eq!(cfg.authenticate_bearer(&format!("bearer {t}")).unwrap().sub, "p");
    }

    #[test]
    fn players_act_only_for_their_own_colour() {
        let g = scope();
        let black = claims(Role::Player, "12345678");
        assert_eq!(black.player_colours(&g), vec![Color::Black]);
        assert!(black.may_confirm(&g, Party::Black));
        assert!(!black.may_confirm(&g, Party::White));
        assert!(!black.may_confirm(&g, Party::Referee));
        assert!(!black.may_rule(&g));
        // White has no federation id: matched by name.
        let white = claims(Role::Player, "Cho Chikun");
        assert_eq!(white.player_colours(&g), vec![Color::White]);
        // Black's name does not stand for black, who has a federation id.
        assert!(claims(Role::Player, "Kato Masao").player_colours(&g).is_empty());
        // A stranger.
        let other = claims(Role::Player, "99999999");
        assert!(!other.may_read(&g) && !other.may_propose(&g));
        // A token limited to a game and colour.
        let mut limited = claims(Role::Player, "anyone");
        limited.game = Some(g.game_id.to_string());
        limited.color = Some("W".into());
        assert_eq!(limited.player_colours(&g), vec![Color::White]);
        limited.game = Some(Uuid::from_u128(8).to_string());
        assert!(limited.player_colours(&g).is_empty());
        // A colour limit wins over a matching id.
        let mut wrong = claims(Role::Player, "12345678");
        wrong.color = Some("W".into());
        assert!(wrong.player_colours(&g).is_empty());
    }

    #[test]
    fn officials_are_per_tournament() {
        let g = scope();
        let mut referee = claims(Role::Referee, "ref");
        assert!(!referee.officiates(&g), "a referee token without a tournament officiates nowhere");
        referee.tournament = Some("Kisei Cup".into());
        assert!(referee.may_rule(&g) && referee.may_confirm(&g, Party::Referee) && referee.may_read(&g));
        assert!(!referee.may_confirm(&g, Party::Black));
        referee.tournament = Some(Uuid::from_u128(1).to_string());
        assert!(referee.officiates(&g));
        referee.tournament = Some("Other Cup".into());
        assert!(!referee.officiates(&g));
        assert!(claims(Role::ChiefArbiter, "chief").officiates(&g));
        assert!(claims(Role::FederationAdmin, "fed").may_rule(&g));
        let reader = claims(Role::ArchiveReader, "lib");
        assert!(reader.may_read(&g) && !reader.may_propose(&g) && !reader.may_rule(&g));
        assert!(!reader.may_confirm(&g, Party::Referee));
        assert!(reader.may_export(Uuid::from_u128(1), "Kisei Cup"));
        assert!(!claims(Role::Player, "12345678").may_export(Uuid::from_u128(1), "Kisei Cup"));
    }

    #[test]
    fn roles_parse() {
        for r in Role::ALL {
            assert_eq!(r.name().parse::<Role>().unwrap(), r);
        }
        assert_eq!("tournament-director".parse::<Role>().unwrap(), Role::ChiefArbiter);
        assert!("king".parse::<Role>().is_err());
    }
}
