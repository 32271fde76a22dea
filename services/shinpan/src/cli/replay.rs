//! `shinpan replay [--rules R] [--json] FILE.sgf...`: replays every record and validates
//! every move (第二条–第五条, 第十二条).
//!
//! Every file is checked and gets one line (or one JSON object). The exit code is that of the
//! first file that is not fine: [`crate::exit::FOUL`] (3) if it holds an illegal
//! move — the line names the move number, colour, point, rule and article —,
//! [`crate::exit::UNREADABLE`] (2) if it cannot be read as SGF; 0 when every
//! move of every record is legal.
//!
//! Setup (`AB`/`AW`/`AE`) after the first move is applied before the move that follows it and
//! `PL` after the first move is ignored (`shinpan_sgf::LaterSetup`); where setup changed a
//! stone, the file's line is followed by a `warning:` line (JSON: `warnings`).

use crate::exit;
use goban::{Color, Foul, Move, RuleSet};
use serde::Serialize;
use shinpan_sgf::{Record, Replayed, SgfError};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `shinpan replay`.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Rule set: japanese-2011, japanese-1989, chinese, jungo, japanese-jungo.
    /// Default: the record's RU if recognised, else japanese-2011.
    #[arg(long, value_name = "R")]
    pub rules: Option<RuleSet>,
    /// Print one JSON array with an object per file instead of text lines.
    #[arg(long)]
    pub json: bool,
    /// SGF records to replay.
    #[arg(required = true, value_name = "FILE.sgf")]
    pub files: Vec<PathBuf>,
}

/// A record read and replayed: what `replay`, `score` and `adjudicate` start from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The record as read.
    pub record: Record,
    /// The rule set used: `--rules`, else the record's `RU` if recognised, else
    /// `japanese-2011`.
    pub rules: RuleSet,
    /// The replayed game and the first foul, if any.
    pub replayed: Replayed,
}

/// Reads `path` and replays it under `rules` (or the default, see [`Loaded::rules`]).
///
/// # Errors
/// The [`SgfError`] if the file cannot be read or is not a valid record
/// (exit code [`exit::UNREADABLE`]). A foul is not an error: see [`Loaded::replayed`].
pub fn load(path: &Path, rules: Option<RuleSet>) -> Result<Loaded, SgfError> {
    let record = Record::read_file(path)?;
    let rules = rules.or_else(|| record.rule_set()).unwrap_or(RuleSet::Japanese2011);
    let replayed = record.to_game(rules)?;
    Ok(Loaded { record, rules, replayed })
}

/// [`load`] for the commands that count a final position (`score`, `adjudicate`,
/// `propose`): an unreadable record prints `FILE: unreadable: …` and gives
/// [`exit::UNREADABLE`]; a record holding an illegal move prints `FILE: FOUL …` and gives
/// [`exit::FOUL`] (第十二条: a count would be meaningless).
///
/// # Errors
/// The exit code to return, the message already printed on standard error.
pub fn load_to_count(path: &Path, rules: Option<RuleSet>) -> Result<Loaded, ExitCode> {
    let loaded = load(path, rules).map_err(|e| {
        eprintln!("{}: unreadable: {e}", path.display());
        exit::code(exit::UNREADABLE)
    })?;
    if let Some(f) = &loaded.replayed.foul {
        eprintln!("{}: FOUL {}", path.display(), FoulReport::new(f).to_text());
        return Err(exit::code(exit::FOUL));
    }
    Ok(loaded)
}

/// The SGF point of a move, or `pass`.
pub fn move_text(mv: Move) -> String {
    match mv {
        Move::Play(p) => p.to_sgf(),
        Move::Pass => "pass".to_string(),
    }
}

/// A foul as JSON: `{"move": 123, "color": "white", "point": "dd", "rule": "ko",
/// "article": "第五条", "description": "..."}`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FoulReport {
    /// 1-based number of the illegal move.
    #[serde(rename = "move")]
    pub move_number: u32,
    /// `black` or `white`.
    pub color: String,
    /// SGF point, or `pass`.
    pub point: String,
    /// Rule code: `occupied`, `suicide`, `ko`, `superko`, `out-of-turn`, `after-end`, `off-board`.
    pub rule: String,
    /// The article broken (`第四条`, `第五条`...).
    pub article: String,
    /// What the rule forbids.
    pub description: String,
}

impl FoulReport {
    /// From the engine's foul.
    pub fn new(f: &Foul) -> FoulReport {
        FoulReport {
            move_number: f.move_number,
            color: color_name(f.color).to_string(),
            point: move_text(f.mv),
            rule: f.rule.code().to_string(),
            article: f.rule.article().to_string(),
            description: f.rule.description().to_string(),
        }
    }

    /// One line: `move 123: white at dd: ko (第五条): <description>`.
    pub fn to_text(&self) -> String {
        format!("move {}: {} at {}: {} ({}): {}", self.move_number, self.color, self.point, self.rule, self.article, self.description)
    }
}

fn color_name(c: Color) -> &'static str {
    c.name()
}

/// The outcome of one file, as printed by `--json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileReport {
    /// The path as given.
    pub file: String,
    /// `ok`, `foul` or `unreadable`.
    pub outcome: &'static str,
    /// Rule set used (absent if unreadable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// `[columns, rows]` (absent if unreadable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<[u8; 2]>,
    /// Moves applied (passes included; the foul, if any, is not counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<u32>,
    /// The record's `RE`, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_result: Option<String>,
    /// The first foul.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub foul: Option<FoulReport>,
    /// Why the file could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the reader did outside the rules ([`shinpan_sgf::Replayed::warnings`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl FileReport {
    /// Exit code for this file: 0, [`exit::FOUL`] or [`exit::UNREADABLE`].
    pub fn code(&self) -> u8 {
        match self.outcome {
            "foul" => exit::FOUL,
            "unreadable" => exit::UNREADABLE,
            _ => exit::OK,
        }
    }
}

/// Replays one file.
pub fn check_file(path: &Path, rules: Option<RuleSet>) -> FileReport {
    let file = path.display().to_string();
    match load(path, rules) {
        Err(e) => FileReport {
            file,
            outcome: "unreadable",
            rules: None,
            size: None,
            moves: None,
            recorded_result: None,
            foul: None,
            error: Some(e.to_string()),
            warnings: Vec::new(),
        },
        Ok(l) => FileReport {
            file,
            outcome: if l.replayed.foul.is_some() { "foul" } else { "ok" },
            rules: Some(l.rules.name().to_string()),
            size: Some([l.record.width, l.record.height]),
            moves: Some(l.replayed.game.move_number()),
            recorded_result: l.record.info.result.clone(),
            foul: l.replayed.foul.as_ref().map(FoulReport::new),
            error: None,
            warnings: l.replayed.warnings.clone(),
        },
    }
}

/// Runs `shinpan replay`.
pub fn run(args: Args) -> ExitCode {
    let mut code = exit::OK;
    let mut reports = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let r = check_file(path, args.rules);
        if code == exit::OK {
            code = r.code();
        }
        if !args.json {
            match (&r.foul, &r.error) {
                (Some(f), _) => println!("{}: FOUL {}", r.file, f.to_text()),
                (_, Some(e)) => eprintln!("{}: unreadable: {e}", r.file),
                _ => println!(
                    "{}: ok, {} moves legal ({}, {}x{})",
                    r.file,
                    r.moves.unwrap_or(0),
                    r.rules.as_deref().unwrap_or("?"),
                    r.size.map_or(0, |s| s[0]),
                    r.size.map_or(0, |s| s[1])
                ),
            }
            for w in &r.warnings {
                println!("{}: warning: {w}", r.file);
            }
        }
        reports.push(r);
    }
    if args.json {
        match serde_json::to_string_pretty(&reports) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("cannot write JSON: {e}");
                return exit::code(exit::FAILURE);
            }
        }
    }
    exit::code(code)
}
