//! `shinpan score [--rules R] [--komi K] [--dead POINTS] [--json] FILE.sgf`: counts the final
//! position of a record with given dead stones (第八条 territory, 第十条 count).
//!
//! Dead stones: `--dead` lists SGF points, each marking its whole chain dead. Without
//! `--dead`, the record's `TB`/`TW` territory marks are used where present: a stone standing on
//! a point marked as the opponent's territory is dead. Otherwise every stone is alive, and a
//! note on stderr says so. A count that differs from the record's `RE` gets a warning on
//! stderr (the output itself is unchanged).
//!
//! Komi: `--komi`, else the record's `KM`, else the rule set's default for the board size.
//!
//! Exit codes: 0 counted; [`crate::exit::FOUL`] (3) if the record holds an
//! illegal move (the count would be meaningless: 第十二条); [`crate::exit::UNREADABLE`] (2)
//! if the file cannot be read or `--dead` names a point off the
//! board or without a stone; [`crate::exit::UNDECIDED`] (4) if a status is
//! undecided.

use crate::exit;
use crate::replay::{load_to_count, Loaded};
use crate::report::Report;
use goban::{score, Color, GameResult, Point, RuleSet, Status, StatusMap};
use shinpan_sgf::TerritoryMarks;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `shinpan score`.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Rule set: japanese-2011, japanese-1989, chinese, jungo, japanese-jungo.
    /// Default: the record's RU if recognised, else japanese-2011.
    #[arg(long, value_name = "R")]
    pub rules: Option<RuleSet>,
    /// Komi in points (default: the record's KM, else the rule set's default).
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// Dead stones: comma-separated SGF points (`dd,pq`); each marks its whole chain dead.
    #[arg(long, value_name = "POINTS")]
    pub dead: Option<String>,
    /// Print the JSON object instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// The SGF record.
    #[arg(value_name = "FILE.sgf")]
    pub file: PathBuf,
}

/// Parses `--dead`: comma-separated SGF points (blanks ignored), each on a stone of `board`.
///
/// # Errors
/// A message naming the first point that is not an SGF point, is off the board or holds no
/// stone.
pub fn parse_dead(text: &str, board: &goban::Board) -> Result<Vec<Point>, String> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let p = Point::from_sgf(item).map_err(|e| format!("--dead: {e}"))?;
        if !board.contains(p) {
            return Err(format!("--dead: `{item}` is off the {}x{} board", board.width(), board.height()));
        }
        if board.get(p).is_none() {
            return Err(format!("--dead: no stone on `{item}` in the final position"));
        }
        out.push(p);
    }
    Ok(out)
}

/// Statuses from `TB`/`TW` marks: a stone on a point marked as the opponent's territory is
/// dead, every other stone alive.
pub fn status_from_marks(board: &goban::Board, marks: &TerritoryMarks) -> StatusMap {
    let mut status = StatusMap::new(board);
    for (list, owner) in [(&marks.black, Color::Black), (&marks.white, Color::White)] {
        for &p in list {
            if board.get(p) == Some(owner.opponent()) {
                status.set(p, Status::Dead);
            }
        }
    }
    status
}

/// One point (the chain's id, [`goban::Board::chain_id`]) per chain the `TB`/`TW` marks give
/// as dead ([`status_from_marks`]), in board order: the chains a referee may dispute one at a
/// time with the other marks as the agreement (第九条).
pub fn marked_dead_chains(board: &goban::Board, marks: &TerritoryMarks) -> Vec<Point> {
    let status = status_from_marks(board, marks);
    let mut heads: Vec<Point> = Vec::new();
    for p in board.points() {
        if board.get(p).is_some() && status.get(p) == Status::Dead {
            let h = board.chain_id(p).expect("a stone");
            if !heads.contains(&h) {
                heads.push(h);
            }
        }
    }
    heads
}

/// Counts a loaded record: statuses from `dead` (chains through the points) if given, else
/// from the record's territory marks, else all alive — except the chains hypothetical play
/// finds in seki with that agreement as context (`shinpan_adjudicator::find_seki`; the
/// report's `status.seki` lists them); komi as in the module docs.
pub fn count(loaded: &Loaded, dead: Option<&[Point]>, komi: Option<f64>) -> Report {
    let game = &loaded.replayed.game;
    let board = game.board();
    let status = match (dead, &loaded.record.territory) {
        (Some(points), _) => StatusMap::with_dead(board, points),
        (None, Some(marks)) => status_from_marks(board, marks),
        (None, None) => StatusMap::new(board),
    };
    // The seki among the stones the agreement leaves alive (第八条: their eyes are not
    // territory), found by hypothetical play with the agreement as context (第九条・第七条).
    let opts = shinpan_adjudicator::Options {
        budget_nodes: crate::app::DEFAULT_BUDGET,
        agreed: Some(status),
        ko_pending: game.ko_point(),
        to_move: game.to_move(),
        ..Default::default()
    };
    let (status, _) = shinpan_adjudicator::find_seki(board, loaded.rules, &opts);
    let komi = komi.unwrap_or_else(|| loaded.record.komi_or_default(loaded.rules));
    let s = score(
        board,
        &status,
        [game.prisoners(Color::Black), game.prisoners(Color::White)],
        [game.passes(Color::Black), game.passes(Color::White)],
        komi,
        loaded.rules,
    );
    Report::new(board, &status, &s, loaded.rules, komi, game.move_number())
}

/// Runs `shinpan score`.
pub fn run(args: Args) -> ExitCode {
    let loaded = match load_to_count(&args.file, args.rules) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let dead = match args.dead.as_deref().map(|d| parse_dead(d, loaded.replayed.game.board())) {
        None => None,
        Some(Ok(points)) => Some(points),
        Some(Err(msg)) => {
            eprintln!("{msg}");
            return exit::code(exit::UNREADABLE);
        }
    };
    let report = count(&loaded, dead.as_deref(), args.komi);
    if dead.is_none() && loaded.record.territory.is_none() {
        eprintln!(
            "note: no dead stones given (--dead) and the record has no TB/TW marks, so every stone \
             is counted alive (第九条: the players' agreement decides); `shinpan propose` proposes \
             statuses, `shinpan adjudicate` decides them by hypothetical play (第七条)"
        );
    }
    if let Some(recorded) = &loaded.record.info.result {
        let recorded_result = GameResult::from_sgf(recorded);
        if recorded_result.is_some() && recorded_result != GameResult::from_sgf(&report.result) {
            eprintln!(
                "warning: this count ({}) differs from the recorded result RE[{}]: check the dead stones",
                report.result,
                crate::limits::excerpt(recorded)
            );
        }
    }
    if args.json {
        println!("{}", report.to_json());
    } else {
        println!("{}: {}", args.file.display(), report.to_text());
        if let Some(recorded) = &loaded.record.info.result {
            println!("recorded result: {recorded}");
        }
    }
    if GameResult::from_sgf(&report.result) == Some(GameResult::Undecided) {
        return exit::code(exit::UNDECIDED);
    }
    exit::code(exit::OK)
}
