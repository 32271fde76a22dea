//! `shinpan token issue`: mint a bearer token (HS256 JWT) for local use, signed with
//! `SHINPAN_JWT_SECRET` (or the development default, see [`crate::auth::DEV_SECRET`]).
//!
//! ```text
//! shinpan token issue --role referee --subject ref-1 --tournament "Kisei Cup"
//! shinpan token issue --role player --subject 12345678 --game <uuid> --color B --ttl 8h
//! ```
//! The token is printed on stdout; pass it to client subcommands with `--token` or
//! `SHINPAN_TOKEN`.

use crate::auth::{AuthConfig, Role, SECRET_ENV};
use crate::exit;
use std::process::ExitCode;

/// `shinpan token`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Mint a token and print it.
    Issue(IssueArgs),
}

/// `shinpan token issue`.
#[derive(clap::Args, Debug)]
pub struct IssueArgs {
    /// Role: player, referee, chief-arbiter, federation-admin, archive-reader.
    #[arg(long)]
    pub role: Role,
    /// Subject: a player's federation id (or registered name), a referee's id, ...
    #[arg(long)]
    pub subject: String,
    /// Tournament (name or id) a referee or chief arbiter acts for.
    #[arg(long)]
    pub tournament: Option<String>,
    /// Limit a player token to one game (UUID).
    #[arg(long)]
    pub game: Option<String>,
    /// Limit a player token to one colour: B or W.
    #[arg(long, value_parser = parse_color)]
    pub color: Option<goban::Color>,
    /// Lifetime: seconds, or with a unit: 90s, 30m, 8h, 2d; at most 7d
    /// (`shinpan::auth::MAX_TOKEN_LIFETIME_SECS`, the longest a server accepts).
    #[arg(long, default_value = "8h", value_parser = parse_ttl)]
    pub ttl: u64,
    /// Signing secret (default: $SHINPAN_JWT_SECRET, else the development default).
    #[arg(long, env = SECRET_ENV, hide_env_values = true)]
    pub secret: Option<String>,
}

/// Parses `B`/`W` (also `black`/`white`).
pub fn parse_color(s: &str) -> Result<goban::Color, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(goban::Color::Black),
        "w" | "white" => Ok(goban::Color::White),
        _ => Err(format!("`{s}` is not a colour (B or W)")),
    }
}

/// Parses a lifetime in seconds: `3600`, `90s`, `30m`, `8h`, `2d`.
pub fn parse_ttl(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.chars().last() {
        Some('s') => (&t[..t.len() - 1], 1),
        Some('m') => (&t[..t.len() - 1], 60),
        Some('h') => (&t[..t.len() - 1], 3600),
        Some('d') => (&t[..t.len() - 1], 86_400),
        _ => (t, 1),
    };
    let n: u64 = num.trim().parse().map_err(|_| format!("`{s}` is not a lifetime (e.g. 3600, 30m, 8h, 2d)"))?;
    n.checked_mul(mult).filter(|v| *v > 0).ok_or_else(|| format!("`{s}` is not a positive lifetime"))
}

/// Runs `shinpan token`.
pub fn run(args: Args) -> ExitCode {
    match args.command {
        Command::Issue(a) => {
            if a.color.is_some() && a.role != Role::Player {
                eprintln!("shinpan token issue: --color limits a player token; role is {}", a.role);
                return ExitCode::from(exit::FAILURE);
            }
            let cfg = AuthConfig::new(a.secret.as_deref().unwrap_or(""));
            if cfg.development {
                eprintln!("shinpan token issue: warning: signed with the development secret ({SECRET_ENV} is unset)");
            }
            match cfg.issue(a.role, &a.subject, a.tournament.as_deref(), a.game.as_deref(), a.color, a.ttl) {
                Ok(t) => {
                    println!("{t}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("shinpan token issue: {e}");
                    ExitCode::from(exit::FAILURE)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_units() {
        assert_eq!(parse_ttl("3600"), Ok(3600));
        assert_eq!(parse_ttl("90s"), Ok(90));
        assert_eq!(parse_ttl("30m"), Ok(1800));
        assert_eq!(parse_ttl("8h"), Ok(28_800));
        assert_eq!(parse_ttl("2d"), Ok(172_800));
        assert!(parse_ttl("0").is_err());
        assert!(parse_ttl("soon").is_err());
    }

    #[test]
    fn colours() {
        assert_eq!(parse_color("B"), Ok(goban::Color::Black));
        assert_eq!(parse_color("white"), Ok(goban::Color::White));
        assert!(parse_color("red").is_err());
    }
}
