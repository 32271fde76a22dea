//! The end-of-game *proposal* — advisory, never a ruling — for the players to start their
//! agreement from (第九条): every chain of a final position gets a status and the basis of
//! it (`proved` by hypothetical play, 第七条; `estimated` by an estimator,
//! [`crate::estimate`]; `undecided`), and the position is counted with those statuses
//! (第八条 territory, 第十条 count). Where the estimator contradicts a proof, the proof
//! stands. Used by `AdjudicationService.Propose` ([`crate::adjudication`]) and by
//! `shinpan propose`.

use crate::estimate::{Estimate, EstimateError, Estimator, Position};
use goban::{score, Board, Color, Point, RuleSet, Score, Status, StatusMap};
use shinpan_adjudicator::{adjudicate, Adjudication, Options};
use std::time::Duration;

/// The source named for proved statuses.
pub const PROVED_SOURCE: &str = "shinpan-adjudicator (第七条)";

/// Why a chain has its proposed status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Proved by hypothetical play (第七条), or pass-alive.
    Proved,
    /// Not proved; the estimator's status.
    Estimated,
    /// Neither proved nor estimated.
    Undecided,
}

impl Basis {
    /// `proved`, `estimated` or `undecided` (the JSON's `basis`).
    pub fn name(self) -> &'static str {
        match self {
            Basis::Proved => "proved",
            Basis::Estimated => "estimated",
            Basis::Undecided => "undecided",
        }
    }
}

/// One chain of the proposal.
#[derive(Clone, Debug)]
pub struct ChainProposal {
    /// The chain's stones, sorted.
    pub stones: Vec<Point>,
    /// Their colour.
    pub color: Color,
    /// The proposed status.
    pub status: Status,
    /// Where the status comes from.
    pub basis: Basis,
    /// The source: [`PROVED_SOURCE`], the estimator's name, or empty when undecided.
    pub source: String,
    /// The proof's line of hypothetical play (`"B dc"`, `"W pass"`), empty if none.
    pub line: Vec<String>,
    /// Nodes searched for the chain.
    pub nodes: u64,
    /// Pass-alive: alive without a line (Benson).
    pub pass_alive: bool,
    /// Why hypothetical play did not decide it (for `estimated` and `undecided` chains).
    pub reason: Option<String>,
    /// The estimate a proof overruled (only where they differ).
    pub estimate_overruled: Option<Status>,
}

/// What the estimator did.
#[derive(Clone, Debug)]
pub struct EstimatorOutcome {
    /// Its name (`gnugo-3.8 --level 2 final_status_list`).
    pub source: String,
    /// Why it gave no estimate, if it did not.
    pub error: Option<String>,
    /// Wall-clock time it took.
    pub elapsed: Duration,
}

/// A proposal for a final position.
#[derive(Clone, Debug)]
pub struct Proposal {
    /// The combined statuses: proved, else estimated, else undecided.
    pub status: StatusMap,
    /// Every chain, in board order of its first stone.
    pub chains: Vec<ChainProposal>,
    /// The count with the combined statuses (第八条・第十条).
    pub score: Score,
    /// The count with the proved statuses only (`?` if some chain is unproved).
    pub proved_score: Score,
    /// The adjudication behind the proved statuses.
    pub adjudication: Adjudication,
    /// The estimator, or `None` when no estimator was asked.
    pub estimator: Option<EstimatorOutcome>,
}

impl Proposal {
    /// Whether some chain has neither a proof nor an estimate.
    pub fn undecided(&self) -> bool {
        self.chains.iter().any(|c| c.status == Status::Undecided)
    }
}

/// The final position to propose for, and how to count it.
#[derive(Clone, Debug)]
pub struct Subject<'a> {
    /// The position.
    pub board: &'a Board,
    /// Rule set of the adjudication and the count.
    pub rules: RuleSet,
    /// Komi (points added to White).
    pub komi: f64,
    /// Prisoners taken during play `[by black, by white]`.
    pub prisoners: [u32; 2],
    /// Passes `[black, white]`.
    pub passes: [u32; 2],
    /// Adjudicator options (budget, side to move, ko); `agreed` must be `None`.
    pub options: Options,
}

/// The estimate of the chain through `stones` when it names one status for all of them.
fn chain_estimate(est: &Estimate, stones: &[Point]) -> Option<Status> {
    let first = est.status.get(*stones.first()?);
    (first != Status::Undecided && stones.iter().all(|&p| est.status.get(p) == first)).then_some(first)
}

/// Makes the proposal for `subject`: the adjudication and the estimator run side by side
/// (the estimator on its own thread), then every chain gets its status as the module docs
/// say. `adjudication` may be given when already computed (it is then not searched again).
pub fn propose(subject: &Subject<'_>, estimator: Option<&dyn Estimator>, adjudication: Option<Adjudication>) -> Proposal {
    let board = subject.board;
    let to_move = subject.options.to_move;
    let (adj, est) = std::thread::scope(|s| {
        let handle = estimator.map(|e| {
            let pos = Position { board, komi: subject.komi, to_move };
            s.spawn(move || (e.source(), e.estimate(pos)))
        });
        let adj = adjudication.unwrap_or_else(|| adjudicate(board, subject.rules, &subject.options));
        let est = handle
            .map(|h| h.join().unwrap_or_else(|_| ("estimator".to_string(), Err(EstimateError::Protocol("the estimator panicked".into())))));
        (adj, est)
    });
    let (estimate, outcome) = match est {
        None => (None, None),
        Some((_, Ok(e))) => {
            let o = EstimatorOutcome { source: e.source.clone(), error: None, elapsed: e.elapsed };
            (Some(e), Some(o))
        }
        Some((source, Err(err))) => (None, Some(EstimatorOutcome { source, error: Some(err.to_string()), elapsed: Duration::ZERO })),
    };
    let mut status = adj.status.clone();
    let mut chains = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in board.points() {
        let Some(color) = board.get(p) else { continue };
        if seen.contains(&p) {
            continue;
        }
        let mut stones = board.chain(p);
        stones.sort();
        seen.extend(stones.iter().copied());
        let proof = adj.proofs.iter().find(|pr| pr.stones.contains(&p));
        let proved = adj.status.get(p);
        let guess = estimate.as_ref().and_then(|e| chain_estimate(e, &stones));
        let mut c = ChainProposal {
            stones: stones.clone(),
            color,
            status: proved,
            basis: Basis::Proved,
            source: PROVED_SOURCE.to_string(),
            line: proof.map(|pr| pr.line_text()).unwrap_or_default(),
            nodes: proof.map_or(0, |pr| pr.nodes),
            pass_alive: proof.is_none() && proved == Status::Alive,
            reason: proof.and_then(|pr| pr.undecided.map(|u| u.to_string())),
            estimate_overruled: None,
        };
        if proved == Status::Undecided {
            match (guess, &estimate) {
                (Some(g), Some(e)) => {
                    c.status = g;
                    c.basis = Basis::Estimated;
                    c.source = e.source.clone();
                    for &q in &stones {
                        status.set(q, g);
                    }
                }
                _ => {
                    c.basis = Basis::Undecided;
                    c.source = String::new();
                }
            }
        } else if guess.is_some_and(|g| g != proved) {
            c.estimate_overruled = guess;
        }
        chains.push(c);
    }
    let count = |st: &StatusMap| score(board, st, subject.prisoners, subject.passes, subject.komi, subject.rules);
    Proposal { score: count(&status), proved_score: count(&adj.status), status, chains, adjudication: adj, estimator: outcome }
}

/// The JSON entry of one chain of `shinpan propose --json`: `stones`, `color`, `status`,
/// `basis`, `source`, `line`, `nodes`, and `pass_alive`, `reason`, `estimate_overruled` when
/// they apply.
pub fn chain_json(c: &ChainProposal) -> serde_json::Value {
    let mut v = serde_json::json!({
        "stones": c.stones.iter().map(|p| p.to_sgf()).collect::<Vec<_>>(),
        "color": c.color.name(),
        "status": c.status.name(),
        "basis": c.basis.name(),
        "source": c.source,
        "line": c.line,
        "nodes": c.nodes,
    });
    if c.pass_alive {
        v["pass_alive"] = true.into();
    }
    if let Some(r) = &c.reason {
        v["reason"] = r.clone().into();
    }
    if let Some(o) = c.estimate_overruled {
        v["estimate_overruled"] = o.name().into();
    }
    v
}

/// The `estimator` object of `shinpan propose --json`: `source` and `seconds`, or `source`
/// and `error`.
pub fn estimator_json(o: &EstimatorOutcome) -> serde_json::Value {
    match &o.error {
        Some(e) => serde_json::json!({"source": o.source, "error": e}),
        None => serde_json::json!({"source": o.source, "seconds": (o.elapsed.as_secs_f64() * 1000.0).round() / 1000.0}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::Vote;

    /// An estimator that calls every stone of colour `dead` dead and the others alive, or
    /// fails when `dead` is `None`.
    struct Fixed {
        dead: Option<Color>,
        name: &'static str,
    }

    impl Estimator for Fixed {
        fn source(&self) -> String {
            self.name.to_string()
        }
        fn estimate(&self, position: Position<'_>) -> Result<Estimate, EstimateError> {
            let Some(dead) = self.dead else { return Err(EstimateError::Protocol("no answer".into())) };
            let b = position.board;
            let mut status = StatusMap::new(b);
            for p in b.points().filter(|&p| b.get(p) == Some(dead)) {
                status.set(p, Status::Dead);
            }
            Ok(Estimate { status, source: self.name.to_string(), elapsed: Duration::ZERO })
        }
    }

    /// Black's pass-alive wall with two eyes on the left; a white and a black stone in the open
    /// right part, which a search of no nodes cannot decide.
    fn board() -> Board {
        Board::from_diagram(&[
            ".X.X.....",
            "XXXX.....",
            "XXXX.....",
            ".X.X.....",
            "XXXX..O..",
            "XXXX.....",
            "XXXX...X.",
            "XXXX.....",
            "XXXX.....",
        ])
        .unwrap()
    }

    fn subject(b: &Board) -> Subject<'_> {
        Subject {
            board: b,
            rules: RuleSet::Japanese2011,
            komi: 6.5,
            prisoners: [0, 0],
            passes: [0, 0],
            options: Options { budget_nodes: 1, to_move: Color::Black, ..Options::default() },
        }
    }

    fn chain_at<'a>(p: &'a Proposal, sgf: &str) -> &'a ChainProposal {
        let pt = Point::from_sgf(sgf).unwrap();
        p.chains.iter().find(|c| c.stones.contains(&pt)).unwrap()
    }

    #[test]
    fn proofs_stand_estimates_fill_the_rest_and_overruled_estimates_are_named() {
        let b = board();
        let est = Fixed { dead: Some(Color::White), name: "fixed" };
        let p = propose(&subject(&b), Some(&est), None);
        let wall = chain_at(&p, "ba");
        assert_eq!((wall.basis, wall.status, wall.pass_alive), (Basis::Proved, Status::Alive, true));
        let white = chain_at(&p, "ge");
        assert_eq!((white.basis, white.status, white.source.as_str()), (Basis::Estimated, Status::Dead, "fixed"));
        assert!(white.reason.is_some(), "why it is not proved");
        assert!(!p.undecided());
        assert_ne!(p.score.result.to_sgf(), "?");
        assert_eq!(p.proved_score.result.to_sgf(), "?");
        // An estimate against a proof: the proof stands, the entry names the estimate.
        let wrong = Fixed { dead: Some(Color::Black), name: "wrong" };
        let p = propose(&subject(&b), Some(&wrong), None);
        let wall = chain_at(&p, "ba");
        assert_eq!((wall.status, wall.estimate_overruled), (Status::Alive, Some(Status::Dead)));
        assert_eq!(chain_at(&p, "hg").basis, Basis::Estimated);
        assert_eq!(chain_json(wall)["estimate_overruled"], "dead");
    }

    #[test]
    fn a_failed_estimator_leaves_the_unproved_chains_undecided() {
        let b = board();
        let p = propose(&subject(&b), Some(&Fixed { dead: None, name: "broken" }), None);
        assert!(p.undecided());
        assert_eq!(p.score.result.to_sgf(), "?");
        assert_eq!(chain_at(&p, "ge").basis, Basis::Undecided);
        assert_eq!(chain_at(&p, "ba").basis, Basis::Proved);
        let o = p.estimator.as_ref().unwrap();
        assert_eq!(o.source, "broken");
        assert!(estimator_json(o)["error"].as_str().unwrap().contains("no answer"));
    }

    #[test]
    fn a_vote_takes_the_majority_of_those_that_answer() {
        let b = board();
        let vote = Vote {
            members: vec![
                Box::new(Fixed { dead: Some(Color::White), name: "a" }),
                Box::new(Fixed { dead: Some(Color::White), name: "b" }),
                Box::new(Fixed { dead: Some(Color::Black), name: "c" }),
                Box::new(Fixed { dead: None, name: "d" }),
            ],
        };
        let e = vote.estimate(Position { board: &b, komi: 6.5, to_move: Color::Black }).unwrap();
        assert_eq!(e.status.get(Point::from_sgf("ge").unwrap()), Status::Dead, "two of three");
        assert_eq!(e.status.get(Point::from_sgf("hg").unwrap()), Status::Alive, "two of three");
        assert!(e.source.starts_with("majority of a, b, c") && e.source.contains("1 of 4 failed"), "{}", e.source);
        let none = Vote { members: vec![Box::new(Fixed { dead: None, name: "x" })] };
        assert!(none.estimate(Position { board: &b, komi: 6.5, to_move: Color::Black }).is_err());
    }
}
