//! The checks on the promoted primary.

use super::*;

// ---------------------------------------------------------------------------------------
// The checks

/// What the promoted primary holds, compared with what the clients were told.
#[derive(Debug, Default)]
pub(super) struct Verdict {
    pub(super) games: usize,
    pub(super) acknowledged: usize,
    /// Acknowledged moves missing (or different) on the promoted primary.
    pub(super) lost: Vec<String>,
    /// Moves stored but never acknowledged.
    pub(super) unacknowledged: Vec<String>,
    pub(super) duplicates: i64,
    pub(super) gaps: Vec<String>,
    pub(super) chain_events: u64,
    pub(super) chain_breaks: usize,
    pub(super) sgf_mismatches: Vec<String>,
    pub(super) refused: Vec<String>,
}

impl Verdict {
    pub(super) fn nothing_lost(&self) -> bool {
        self.lost.is_empty()
            && self.unacknowledged.is_empty()
            && self.duplicates == 0
            && self.gaps.is_empty()
            && self.chain_breaks == 0
            && self.sgf_mismatches.is_empty()
            && self.refused.is_empty()
    }
}

pub(super) async fn check(database_url: &str, load: &Load, export_through: &Client) -> Verdict {
    let pool = sqlx::postgres::PgPoolOptions::new().max_connections(2).connect(database_url).await.expect("promoted primary");
    let (games, refused) = {
        let o = load.observed.lock().unwrap();
        (o.games.clone(), o.refused.clone())
    };
    let mut v = Verdict { games: games.len(), refused, ..Default::default() };
    for (game, acked) in &games {
        v.acknowledged += acked.len();
        let id: uuid::Uuid = game.parse().unwrap();
        let stored: Vec<(i32, String, Option<String>)> =
            sqlx::query_as("SELECT move_number, colour, point FROM moves WHERE game_id = $1 ORDER BY move_number")
                .bind(id)
                .fetch_all(&pool)
                .await
                .unwrap();
        for (i, mv) in acked.iter().enumerate() {
            let n = i as i32 + 1;
            let want_colour = if mv.color == pb::Color::Black as i32 { "B" } else { "W" };
            let want_point = match &mv.action {
                Some(pb::r#move::Action::Point(p)) => Some(p.clone()),
                _ => None,
            };
            match stored.iter().find(|(m, _, _)| *m == n) {
                Some((_, c, p)) if c == want_colour && *p == want_point => {}
                Some(other) => v.lost.push(format!("game {game} move {n}: acknowledged {want_colour} {want_point:?}, stored {other:?}")),
                None => v.lost.push(format!("game {game} move {n}: acknowledged, not stored")),
            }
        }
        for (n, _, _) in &stored {
            if *n as usize > acked.len() {
                v.unacknowledged.push(format!("game {game} move {n}"));
            }
        }
        let numbers: Vec<i32> = stored.iter().map(|s| s.0).collect();
        if numbers != (1..=numbers.len() as i32).collect::<Vec<_>>() {
            v.gaps.push(format!("game {game}: move numbers {:?}…", &numbers[..numbers.len().min(10)]));
        }
        match export_through.clone().export_sgf(pb::ExportSgfRequest { game_id: game.clone() }).await {
            Ok(sgf) => {
                let exported = shinpan_sgf::Record::parse(&sgf.into_inner().sgf).expect("exported SGF parses");
                let exported: Vec<pb::Move> = exported.moves.iter().map(|m| shinpan::convert::move_to_pb(m.color, m.mv)).collect();
                if &exported != acked {
                    v.sgf_mismatches.push(format!("game {game}: exported {} moves, acknowledged {}", exported.len(), acked.len()));
                }
            }
            Err(s) => v.sgf_mismatches.push(format!("game {game}: ExportSgf {:?} {}", s.code(), s.message())),
        }
    }
    v.duplicates = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT game_id, move_number FROM moves GROUP BY 1, 2 HAVING count(*) > 1 \
         UNION ALL SELECT game_id, NULL FROM moves WHERE idempotency_key IS NOT NULL GROUP BY game_id, idempotency_key HAVING count(*) > 1) d",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let report = Store::new(pool.clone()).verify_all().await.expect("verify the chains");
    v.chain_events = report.events;
    v.chain_breaks = report.breaks.len();
    pool.close().await;
    v
}
