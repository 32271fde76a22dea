//! Verification of a game's chain and of every row its events recorded ([`crate::chain`],
//! [`crate::facts`]).

use serde_json::{json, Value};
use uuid::Uuid;

use super::*;
use crate::chain::{self, ChainReport, ChainWalker, GENESIS};
use crate::error::{StoreError, StoreResult};
use crate::model::*;
use crate::rows::*;

impl Store {
    /// Recompute a game's hash chain ([`crate::chain`]) and check that every move, result,
    /// confirmation, case and objection row agrees with the event that recorded it, and that the
    /// game's own facts in the `games`, `players` and `tournaments` rows (players' names, ranks
    /// and federation ids, rule set, komi, handicap, setup, board size, tournament, round, board
    /// number) equal what its events record ([`crate::facts`]; a difference is a
    /// [`crate::BreakKind::FactMismatch`] naming the field). The rows are read column by column,
    /// so a row that no longer reads as a game (a setup that is not a position) is reported, not
    /// an error. The report's `breaks` holds the game's first broken link (lowest seq), if any.
    /// Errors: [`StoreError::NotFound`] for an unknown game; [`StoreError::Unavailable`].
    pub async fn verify_chain(&self, game_id: Uuid) -> StoreResult<ChainReport> {
        let exists: Option<Uuid> = sqlx::query_scalar!("SELECT id FROM games WHERE id = $1", game_id).fetch_optional(&self.pool).await?;
        if exists.is_none() {
            return Err(StoreError::NotFound(format!("game {game_id}")));
        }
        let mut report = ChainReport::default();
        self.verify_game_into(game_id, &mut report).await?;
        Ok(report)
    }

    /// [`Store::verify_chain`] for every game, ordered by game id.
    pub async fn verify_all(&self) -> StoreResult<ChainReport> {
        let ids: Vec<Uuid> = sqlx::query_scalar!("SELECT id FROM games ORDER BY id").fetch_all(&self.pool).await?;
        let mut report = ChainReport::default();
        for id in ids {
            self.verify_game_into(id, &mut report).await?;
        }
        Ok(report)
    }

    // The payloads are read as stored, not as `Event`s: the hash covers the stored text, and the
    // comparisons with the rows tell a missing key from a null and see keys a typed variant
    // would drop.
    async fn verify_game_into(&self, game_id: Uuid, report: &mut ChainReport) -> StoreResult<()> {
        use futures::TryStreamExt;
        report.games += 1;
        let mut walker = ChainWalker::new(game_id);
        // Move and result events, by the number / id they record.
        let mut move_events: std::collections::BTreeMap<i32, (i64, Value)> = Default::default();
        let mut result_events: std::collections::HashMap<Uuid, Vec<(i64, String, Value)>> = Default::default();
        let mut tail: Option<(i64, Vec<u8>)> = None;
        let mut case_events: std::collections::HashMap<Uuid, Vec<(i64, String, Value)>> = Default::default();
        let mut objection_events: std::collections::HashMap<Uuid, (i64, Value)> = Default::default();
        let mut appeal_events: std::collections::HashMap<Uuid, Vec<(i64, Value)>> = Default::default();
        // The first event that made the game final by a recorded change of state.
        let mut made_final: Option<(i64, String)> = None;
        let mut facts = crate::facts::FactsRecorder::new(game_id);
        {
            let mut rows = sqlx::query_as!(
                StoredEvent,
                "SELECT game_id, seq, kind, payload, created_at, prev_hash, hash FROM events WHERE game_id = $1 ORDER BY seq",
                game_id
            )
            .fetch(&self.pool);
            while let Some(e) = rows.try_next().await? {
                report.events += 1;
                tail = Some((e.seq, e.hash.clone()));
                walker.push(e.seq, &e.kind, &e.payload, e.created_at, &e.prev_hash, &e.hash);
                facts.push(e.seq, &e.kind, &e.payload);
                if made_final.is_none() && e.payload.get("to_state") == Some(&json!(GameState::Final.as_str())) {
                    made_final = Some((e.seq, e.kind.clone()));
                }
                if let Some(n) = e.payload.get("move").and_then(|m| m.get("number")).and_then(Value::as_i64) {
                    move_events.insert(n as i32, (e.seq, e.payload["move"].clone()));
                }
                let id_of = |key: &str| e.payload.get(key).and_then(Value::as_str).and_then(|s| s.parse::<Uuid>().ok());
                if let Some(rid) = id_of("result_id") {
                    result_events.entry(rid).or_default().push((e.seq, e.kind.clone(), e.payload.clone()));
                }
                if let Some(cid) = id_of("case_id") {
                    case_events.entry(cid).or_default().push((e.seq, e.kind.clone(), e.payload.clone()));
                }
                if let Some(oid) = id_of("objection_id") {
                    if e.kind == "objection_filed" {
                        objection_events.insert(oid, (e.seq, e.payload.clone()));
                    } else {
                        appeal_events.entry(oid).or_default().push((e.seq, e.payload.clone()));
                    }
                }
            }
        }
        if let Some(b) = walker.finish() {
            report.breaks.push(b);
            return Ok(());
        }
        // The head kept on the game row against the log's tail (catches events cut off the end).
        let head = sqlx::query!("SELECT last_seq, last_hash, move_count FROM games WHERE id = $1", game_id).fetch_one(&self.pool).await?;
        let (head_seq, head_hash, head_moves) = (head.last_seq, head.last_hash, head.move_count);
        let (tail_seq, tail_hash) = tail.unwrap_or((0, GENESIS.to_vec()));
        if head_seq != tail_seq || head_hash != tail_hash {
            report.breaks.push(chain::ChainBreak {
                game_id,
                seq: head_seq.min(tail_seq) + 1,
                kind: chain::BreakKind::HeadMismatch { head_seq },
            });
            return Ok(());
        }
        // Moves against their events.
        let moves = self.stored_moves(game_id).await?; // the rows as stored now, not as read before
        let mut found: Vec<chain::ChainBreak> = Vec::new();
        let mut note = |b: chain::ChainBreak| found.push(b);
        if moves.last().map_or(0, |m| m.move_number) != head_moves {
            note(chain::ChainBreak { game_id, seq: tail_seq, kind: chain::BreakKind::MoveMismatch { move_number: head_moves } });
        }
        let mut seen = std::collections::BTreeSet::new();
        for m in &moves {
            seen.insert(m.move_number);
            let expected = json!({"number": m.move_number, "colour": colour_text(m.colour), "point": m.point});
            match move_events.get(&m.move_number) {
                Some((seq, recorded)) if *seq == m.event_seq && *recorded == expected => {}
                other => note(chain::ChainBreak {
                    game_id,
                    seq: other.map(|(s, _)| *s).unwrap_or(m.event_seq),
                    kind: chain::BreakKind::MoveMismatch { move_number: m.move_number },
                }),
            }
        }
        for (n, (seq, _)) in &move_events {
            if !seen.contains(n) {
                note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::MoveMismatch { move_number: *n } });
            }
        }
        // Results against their events.
        let results = sqlx::query_as!(
            ResultRow,
            "SELECT id, game_id, state, result, reason, statuses, detail, proposed_by,
                    created_at, finalized_at, supersedes_result_id, corrects_result_id
             FROM results WHERE game_id = $1",
            game_id
        )
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(ResultRow::into_result)
        .collect::<StoreResult<Vec<_>>>()?;
        // The proposals an amended proposal superseded, as its event recorded.
        let superseded: std::collections::HashSet<Uuid> = result_events
            .values()
            .flatten()
            .filter(|(_, k, _)| k == "result_proposed")
            .filter_map(|(_, _, p)| p.get("supersedes_result_id").and_then(Value::as_str).and_then(|s| s.parse().ok()))
            .collect();
        let mut game_final_by = made_final;
        for r in &results {
            let evs = result_events.get(&r.id).map(Vec::as_slice).unwrap_or(&[]);
            let created = evs.iter().find(|(_, k, _)| k == "result_proposed" || k == "result_corrected");
            let link = |p: &Value, key: &str| p.get(key).cloned().unwrap_or(Value::Null);
            let ok_created = created.is_some_and(|(_, k, p)| {
                p.get("result") == Some(&json!(r.result))
                    && p.get("reason") == Some(&json!(r.reason))
                    && p.get("statuses") == Some(&r.statuses)
                    && p.get("proposed_by") == Some(&json!(r.proposed_by))
                    // recorded since the detail is kept in the event too
                    && p.get("detail").is_none_or(|d| *d == r.detail)
                    && link(p, "supersedes_result_id") == json!(r.supersedes_result_id)
                    && link(p, "corrects_result_id") == json!(r.corrects_result_id)
                    && (k == "result_corrected") == r.corrects_result_id.is_some()
            });
            let finalized = evs.iter().find(|(_, k, _)| k == "result_finalized" || k == "result_corrected");
            if let Some((seq, k, _)) = finalized {
                if game_final_by.as_ref().is_none_or(|(s, _)| s > seq) {
                    game_final_by = Some((*seq, k.clone()));
                }
            }
            let expected_state = match (finalized, superseded.contains(&r.id)) {
                (Some(_), _) => ResultState::Final,
                (None, true) => ResultState::Superseded,
                (None, false) => ResultState::Proposed,
            };
            if !(ok_created && r.state == expected_state) {
                note(chain::ChainBreak {
                    game_id,
                    seq: created.map(|(s, _, _)| *s).unwrap_or(0),
                    kind: chain::BreakKind::ResultMismatch { result_id: r.id },
                });
            }
        }
        // A game is final exactly when an event made it so (第十条): a result made final or
        // corrected, or a change of state recorded with `to_state` "final".
        let game_state: String = sqlx::query_scalar!("SELECT state FROM games WHERE id = $1", game_id).fetch_one(&self.pool).await?;
        if (game_state == GameState::Final.as_str()) != game_final_by.is_some() {
            let (seq, recorded_by, recorded) = match &game_final_by {
                Some((seq, kind)) => (*seq, format!("event {seq} ({kind})"), format!("{:?}", GameState::Final.as_str())),
                None => (0, "no event".to_string(), "no final result".to_string()),
            };
            note(chain::ChainBreak {
                game_id,
                seq,
                kind: chain::BreakKind::FactMismatch {
                    field: "state".into(),
                    held_by: "the games table".into(),
                    stored: format!("{game_state:?}"),
                    recorded_by,
                    recorded,
                },
            });
        }
        // Confirmations against their events, both ways.
        let confirmations = sqlx::query_as!(
            ConfirmationRow,
            "SELECT c.result_id, c.role, c.who, c.confirmed_at FROM confirmations c
             JOIN results r ON r.id = c.result_id WHERE r.game_id = $1",
            game_id
        )
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(ConfirmationRow::into_confirmation)
        .collect::<StoreResult<Vec<_>>>()?;
        for c in &confirmations {
            let evs = result_events.get(&c.result_id).map(Vec::as_slice).unwrap_or(&[]);
            let found = evs.iter().find(|(_, k, p)| {
                k == "result_confirmed" && p.get("role") == Some(&json!(c.role.as_str())) && p.get("who") == Some(&json!(c.who))
            });
            if found.is_none() {
                note(chain::ChainBreak { game_id, seq: 0, kind: chain::BreakKind::ResultMismatch { result_id: c.result_id } });
            }
        }
        for (rid, evs) in &result_events {
            for (seq, k, p) in evs {
                if k == "result_confirmed"
                    && !confirmations.iter().any(|c| c.result_id == *rid && p.get("role") == Some(&json!(c.role.as_str())))
                {
                    note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::ResultMismatch { result_id: *rid } });
                }
                if k == "result_proposed" && !results.iter().any(|r| r.id == *rid) {
                    note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::ResultMismatch { result_id: *rid } });
                }
            }
        }
        // Cases: opened as recorded, ruled as recorded (or not at all), none missing.
        let cases = sqlx::query_as!(
            CaseRow,
            "SELECT id, game_id, kind, state, evidence, dedupe_key, opened_by, opened_reason,
                    opened_at, updated_at, ruling, ruled_by, ruled_at, ruling_reason, closed_at
             FROM cases WHERE game_id = $1",
            game_id
        )
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(CaseRow::into_case)
        .collect::<StoreResult<Vec<_>>>()?;
        for c in &cases {
            let evs = case_events.get(&c.id).map(Vec::as_slice).unwrap_or(&[]);
            let opened = evs.iter().find(|(_, k, _)| k == "case_opened");
            let ok_opened = opened.is_some_and(|(_, _, p)| {
                p.get("kind") == Some(&json!(c.kind.as_str()))
                    && p.get("opened_by") == Some(&json!(c.opened_by))
                    && p.get("reason") == Some(&json!(c.opened_reason))
                    && p.get("dedupe_key").cloned().unwrap_or(Value::Null) == json!(c.dedupe_key)
            });
            // Its evidence and state as its events built them: the evidence opened with, each
            // addition joined to it as `||` joins them; open, then each change.
            let mut evidence = opened.and_then(|(_, _, p)| p.get("evidence").cloned());
            let mut state = CaseState::Open;
            for (_, k, p) in evs {
                match k.as_str() {
                    "case_evidence_added" => {
                        evidence = match (evidence.take(), p.get("evidence")) {
                            (Some(have), Some(added)) => Some(jsonb_concat(have, added.clone())),
                            _ => None,
                        }
                    }
                    "case_state_changed" => {
                        if let Some(to) = p.get("to").and_then(Value::as_str).and_then(|t| t.parse().ok()) {
                            state = to;
                        }
                    }
                    "case_ruled" => state = CaseState::Ruled,
                    _ => {}
                }
            }
            let ok_opened = ok_opened && evidence.as_ref() == Some(&c.evidence) && state == c.state;
            let ruled = evs.iter().find(|(_, k, _)| k == "case_ruled");
            let ok_ruled = match (ruled, &c.ruling) {
                (None, None) => true,
                (Some((_, _, p)), Some(ruling)) => {
                    p.get("ruling") == Some(ruling)
                        && p.get("who") == c.ruled_by.as_ref().map(|w| json!(w)).as_ref()
                        && p.get("why") == c.ruling_reason.as_ref().map(|w| json!(w)).as_ref()
                }
                _ => false,
            };
            if !(ok_opened && ok_ruled) {
                note(chain::ChainBreak {
                    game_id,
                    seq: ruled.or(opened).map(|(s, _, _)| *s).unwrap_or(0),
                    kind: chain::BreakKind::CaseMismatch { case_id: c.id },
                });
            }
        }
        for (cid, evs) in &case_events {
            if let Some((seq, _, _)) = evs.iter().find(|(_, k, _)| k == "case_opened") {
                if !cases.iter().any(|c| c.id == *cid) {
                    note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::CaseMismatch { case_id: *cid } });
                }
            }
        }
        // Objections as filed.
        let objections = self.objections(game_id).await?;
        for o in &objections {
            // The appeal material as its events attached it (a null keeps the earlier one).
            let mut material = (None, None);
            for (_, p) in appeal_events.get(&o.id).map(Vec::as_slice).unwrap_or(&[]) {
                for (key, slot) in [("reconstruction", &mut material.0), ("adjudication", &mut material.1)] {
                    if let Some(v) = p.get(key).filter(|v| !v.is_null()) {
                        *slot = Some(v.clone());
                    }
                }
            }
            let stored_material = (o.reconstruction.clone().filter(|v| !v.is_null()), o.adjudication.clone().filter(|v| !v.is_null()));
            let ok = material == stored_material
                && objection_events.get(&o.id).is_some_and(|(_, p)| {
                    p.get("role") == Some(&json!(o.role.as_str()))
                        && p.get("result_id").cloned().unwrap_or(Value::Null) == json!(o.result_id)
                        && p.get("who") == Some(&json!(o.who))
                        && p.get("reason") == Some(&json!(o.reason))
                        && p.get("case_id") == Some(&json!(o.case_id))
                });
            if !ok {
                note(chain::ChainBreak {
                    game_id,
                    seq: objection_events.get(&o.id).map_or(0, |(s, _)| *s),
                    kind: chain::BreakKind::CaseMismatch { case_id: o.case_id },
                });
            }
        }
        for (oid, (seq, p)) in &objection_events {
            if !objections.iter().any(|o| o.id == *oid) {
                let case_id = p.get("case_id").and_then(Value::as_str).and_then(|s| s.parse().ok()).unwrap_or_default();
                note(chain::ChainBreak { game_id, seq: *seq, kind: chain::BreakKind::CaseMismatch { case_id } });
            }
        }
        // The game's own facts (players, rules, setup, tournament, round, board) against the
        // events that recorded them.
        let stored = crate::facts::stored_facts(&self.pool, game_id).await?;
        found.extend(facts.check(&stored));
        // The first (lowest seq, first found among equals) is the game's break; the rest follow.
        found.sort_by_key(|b| b.seq);
        let mut found = found.into_iter();
        if let Some(b) = found.next() {
            report.breaks.push(b);
        }
        report.more.extend(found);
        Ok(())
    }
}

/// `a || b` as PostgreSQL computes it for `jsonb`: two objects merge (`b`'s keys win), two
/// arrays concatenate, an array and another value make the array with the value appended (or
/// prepended), two other values make a two-element array.
fn jsonb_concat(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            x.extend(y);
            Value::Object(x)
        }
        (Value::Array(mut x), Value::Array(y)) => {
            x.extend(y);
            Value::Array(x)
        }
        (Value::Array(mut x), y) => {
            x.push(y);
            Value::Array(x)
        }
        (x, Value::Array(y)) => Value::Array(std::iter::once(x).chain(y).collect()),
        (x, y) => Value::Array(vec![x, y]),
    }
}
