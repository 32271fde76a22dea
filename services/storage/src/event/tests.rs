//! Each variant against the payload the `json!` code before the enum wrote.

use super::*;
use serde_json::json;

/// `event` serialises to `kind` and exactly `old` (the payload the `json!` code before the
/// enum wrote), hashes as `old` does, and decodes back to itself.
fn same_as_before(event: Event, kind: &str, old: Value) {
    assert_eq!(event.kind(), kind);
    assert_eq!(event.payload(), old, "{kind}");
    assert_eq!(crate::chain::canonical_json(&event.payload()), crate::chain::canonical_json(&old), "{kind}");
    assert_eq!(serde_json::to_value(&event).unwrap(), json!({"kind": kind, "payload": old}));
    assert_eq!(Event::decode(kind, &old), event, "{kind}");
    assert!(KINDS.contains(&kind));
}

fn id(n: u128) -> Uuid {
    Uuid::from_u128(n)
}

fn player(n: u128, name: &str, rank: Option<&str>, fed: Option<&str>) -> PlayerFacts {
    PlayerFacts { id: id(n), name: name.into(), rank: rank.map(Into::into), federation_id: fed.map(Into::into) }
}

#[test]
fn game_created() {
    let facts = GameFacts {
        tournament_id: Some(id(9)),
        tournament: Some("Honinbo".into()),
        round: Some(2),
        table_number: None,
        black_player_id: id(1),
        white_player_id: id(2),
        black: Some(player(1, "Shusaku", Some("7d"), None)),
        white: Some(player(2, "Gennan", None, Some("JP-1"))),
        board_width: 19,
        board_height: 19,
        komi: 6.5,
        handicap: 0,
        rule_set: "japanese-2011".into(),
        setup: json!({"EV": "Cup"}),
    };
    let old = json!({
        "tournament_id": Some(id(9)), "tournament": Some("Honinbo"), "round": Some(2), "table_number": None::<i32>,
        "black_player_id": id(1), "white_player_id": id(2),
        "black": {"id": id(1), "name": "Shusaku", "rank": "7d", "federation_id": null},
        "white": {"id": id(2), "name": "Gennan", "rank": null, "federation_id": "JP-1"},
        "board_width": 19i16, "board_height": 19i16, "komi": 6.5, "handicap": 0i16, "rule_set": "japanese-2011",
        "setup": {"EV": "Cup"},
    });
    same_as_before(Event::GameCreated(facts.clone()), "game_created", old.clone());
    // an integral komi stays a float, as `json!` of an f64 wrote it
    let seven = Event::GameCreated(GameFacts { komi: 7.0, ..facts.clone() });
    assert_eq!(crate::chain::canonical_json(&seven.payload()["komi"]), "7.0");
    // a genesis written before the players and the tournament's name were recorded
    let mut older = old;
    for k in ["black", "white", "tournament"] {
        older.as_object_mut().unwrap().remove(k);
    }
    let Event::GameCreated(f) = Event::decode("game_created", &older) else { panic!("older genesis does not decode") };
    assert_eq!((f.black, f.white, f.tournament), (None, None, None));
}

#[test]
fn game_facts() {
    same_as_before(Event::GameFacts { facts: "{\"komi\":6.5}".into() }, "game_facts", json!({"facts": "{\"komi\":6.5}"}));
}

#[test]
fn player_updated() {
    same_as_before(
        Event::PlayerUpdated {
            player: player(2, "C", None, Some("F-2")),
            previous: PreviousPlayer { name: "B".into(), rank: Some("3d".into()) },
        },
        "player_updated",
        json!({
            "player": {"id": id(2), "name": "C", "rank": None::<String>, "federation_id": Some("F-2")},
            "previous": {"name": "B", "rank": Some("3d")},
        }),
    );
}

#[test]
fn move_played() {
    // RecordMove: captured and phase, ko and repetition when there are; "move" by the store
    let mut ev = MovePlayed {
        captured: Some(vec!["dd".into()]),
        phase: Some("PLAYING".into()),
        ko: Some("dd".into()),
        repetition: Some(RepetitionRecord { first: 3, again: 7, cycles: 1 }),
        ..Default::default()
    };
    let mut old = json!({"captured": ["dd"], "phase": "PLAYING"});
    old["ko"] = json!("dd");
    old["repetition"] = json!({"first": 3u32, "again": 7u32, "cycles": 1u32});
    same_as_before(Event::Move(ev.clone()), "move", old.clone());
    ev.mv = Some(MoveRecord { number: 5, colour: Color::White, point: None });
    old["move"] = json!({"number": 5, "colour": "W", "point": null});
    same_as_before(Event::Move(ev), "move", old);
    same_as_before(
        Event::Move(MovePlayed { captured: Some(vec![]), phase: Some("PLAYING".into()), ..Default::default() }),
        "move",
        json!({"captured": Vec::<String>::new(), "phase": "PLAYING"}),
    );
    // ImportSgf
    same_as_before(
        Event::Move(MovePlayed { captured: Some(vec![]), phase: Some("ENDED".into()), imported: Some(true), ..Default::default() }),
        "move",
        json!({"captured": Vec::<String>::new(), "phase": "ENDED", "imported": true}),
    );
    same_as_before(
        Event::Move(MovePlayed { imported: Some(true), after_end: Some(true), ..Default::default() }),
        "move",
        json!({ "imported": true, "after_end": true }),
    );
    same_as_before(Event::Move(MovePlayed::default()), "move", json!({}));
}

#[test]
fn foul() {
    let f = FoulRecord {
        move_number: 57,
        colour: Some(Color::Black),
        point: Some("pd".into()),
        rule: "ko".into(),
        article: "第十二条".into(),
        description: "retook the ko".into(),
    };
    same_as_before(
        Event::Foul { foul: f.clone() },
        "foul",
        json!({"foul": {"move_number": 57u32, "colour": Some("B"), "point": Some("pd"), "rule": "ko", "article": "第十二条",
                        "description": "retook the ko"}}),
    );
    same_as_before(
        Event::Foul { foul: FoulRecord { colour: None, point: None, ..f } },
        "foul",
        json!({"foul": {"move_number": 57u32, "colour": None::<&str>, "point": None::<String>, "rule": "ko", "article": "第十二条",
                        "description": "retook the ko"}}),
    );
}

#[test]
fn resign() {
    same_as_before(
        Event::Resign { colour: Color::White, result: Some("B+R".into()), article: Some("第六条".into()) },
        "resign",
        json!({ "colour": 'W'.to_string(), "result": "B+R", "article": "第六条" }),
    );
    same_as_before(Event::Resign { colour: Color::Black, result: None, article: None }, "resign", json!({"colour": "B"}));
}

#[test]
fn ended() {
    let ev = Event::Ended { reason: "consecutive passes (第九条)".into(), moves: 212, from_state: None, to_state: None };
    same_as_before(ev, "ended", json!({ "reason": "consecutive passes (第九条)", "moves": 212usize }));
    // as stored, with the change of state the store adds
    same_as_before(
        Event::Ended {
            reason: "consecutive passes (第九条)".into(),
            moves: 212,
            from_state: Some(GameState::Playing),
            to_state: Some(GameState::Ended),
        },
        "ended",
        json!({ "reason": "consecutive passes (第九条)", "moves": 212usize, "from_state": "playing", "to_state": "ended" }),
    );
}

#[test]
fn play_resumed() {
    let ev = |from_state, to_state| Event::PlayResumed {
        case_id: id(4),
        by: "arbiter-1".into(),
        reason: "the group is not dead".into(),
        article: "第九条".into(),
        from_state,
        to_state,
    };
    let mut old = json!({"case_id": id(4), "by": "arbiter-1", "reason": "the group is not dead", "article": "第九条"});
    same_as_before(ev(None, None), "play_resumed", old.clone());
    old["from_state"] = json!("ended");
    old["to_state"] = json!("playing");
    same_as_before(ev(Some(GameState::Ended), Some(GameState::Playing)), "play_resumed", old);
}

#[test]
fn adjudicated() {
    let ev = Event::Adjudicated(Adjudication {
        result: "W+0.5".into(),
        rule_set: "japanese-2011".into(),
        komi: 6.5,
        move_number: 211,
        nodes: 123_456,
        statuses: AdjudicatedStatuses { dead: vec!["aa".into()], seki: vec![], undecided: vec!["cc".into(), "cd".into()] },
        score: Score { black: 60.0, white: 60.5 },
        agreements: false,
        refuted: 2,
    });
    let statuses = json!({"dead": ["aa"], "seki": Vec::<String>::new(), "undecided": ["cc", "cd"]});
    let old = json!({
        "result": "W+0.5",
        "rule_set": "japanese-2011",
        "komi": 6.5,
        "move_number": 211u32,
        "nodes": 123_456u64,
        "statuses": statuses,
        "score": {"black": 60.0f64, "white": 60.5f64},
        "agreements": false,
        "refuted": 2usize,
    });
    same_as_before(ev, "adjudicated", old);
}

#[test]
fn result_proposed() {
    let (statuses, detail) = (json!({"dead": ["aa"]}), json!({"note": "counted", "article": "第九条"}));
    let ev = |supersedes_result_id| Event::ResultProposed {
        result_id: id(5),
        result: "B+3.5".into(),
        reason: "counting".into(),
        statuses: statuses.clone(),
        proposed_by: "referee".into(),
        detail: Some(detail.clone()),
        supersedes_result_id,
        game_state_before: Some(GameState::Ended),
    };
    let old = |previous: Option<Uuid>| {
        json!({
            "result_id": id(5),
            "result": "B+3.5",
            "reason": "counting",
            "statuses": statuses,
            "proposed_by": "referee",
            "detail": detail,
            "supersedes_result_id": previous,
            "game_state_before": GameState::Ended.as_str(),
        })
    };
    same_as_before(ev(None), "result_proposed", old(None));
    same_as_before(ev(Some(id(6))), "result_proposed", old(Some(id(6))));
    // written before the detail and the state before were recorded
    let mut older = old(None);
    older.as_object_mut().unwrap().remove("detail");
    older.as_object_mut().unwrap().remove("game_state_before");
    assert!(matches!(Event::decode("result_proposed", &older), Event::ResultProposed { detail: None, game_state_before: None, .. }));
}

#[test]
fn result_confirmed() {
    same_as_before(
        Event::ResultConfirmed { result_id: id(5), role: Role::Black, who: "Shusaku".into() },
        "result_confirmed",
        json!({"result_id": id(5), "role": Role::Black.as_str(), "who": "Shusaku"}),
    );
}

#[test]
fn result_finalized() {
    same_as_before(
        Event::ResultFinalized {
            result_id: id(5),
            result: "B+3.5".into(),
            reason: "counting".into(),
            who: "referee".into(),
            why: "confirmations complete".into(),
        },
        "result_finalized",
        json!({"result_id": id(5), "result": "B+3.5", "reason": "counting", "who": "referee", "why": "confirmations complete"}),
    );
}

#[test]
fn result_corrected() {
    same_as_before(
        Event::ResultCorrected {
            result_id: id(7),
            corrects_result_id: id(5),
            result: "W+R".into(),
            reason: "resignation".into(),
            statuses: json!({}),
            proposed_by: "federation".into(),
            detail: Some(json!({"note": "miscounted"})),
        },
        "result_corrected",
        json!({
            "result_id": id(7),
            "corrects_result_id": id(5),
            "result": "W+R",
            "reason": "resignation",
            "statuses": {},
            "proposed_by": "federation",
            "detail": {"note": "miscounted"},
        }),
    );
}

#[test]
fn objection_filed() {
    for result_id in [Some(id(5)), None] {
        same_as_before(
            Event::ObjectionFiled {
                objection_id: id(8),
                result_id,
                role: Role::White,
                who: "Gennan".into(),
                reason: "the corner is alive".into(),
                case_id: id(4),
            },
            "objection_filed",
            json!({"objection_id": id(8), "result_id": result_id, "role": Role::White.as_str(),
                   "who": "Gennan", "reason": "the corner is alive", "case_id": id(4)}),
        );
    }
}

#[test]
fn appeal_material_attached() {
    let (reconstruction, adjudication) = (Some(json!({"moves": 211})), None::<Value>);
    same_as_before(
        Event::AppealMaterialAttached { objection_id: id(8), reconstruction: reconstruction.clone(), adjudication: adjudication.clone() },
        "appeal_material_attached",
        json!({"objection_id": id(8), "reconstruction": reconstruction, "adjudication": adjudication}),
    );
}

#[test]
fn case_opened() {
    for dedupe_key in [Some("foul:57".to_string()), None] {
        same_as_before(
            Event::CaseOpened {
                case_id: id(4),
                kind: CaseKind::Foul,
                evidence: json!({"move_numbers": [57]}),
                opened_by: "recording".into(),
                reason: "ko retaken".into(),
                dedupe_key: dedupe_key.clone(),
            },
            "case_opened",
            json!({"case_id": id(4), "kind": CaseKind::Foul.as_str(), "evidence": {"move_numbers": [57]}, "opened_by": "recording",
                   "reason": "ko retaken", "dedupe_key": dedupe_key}),
        );
    }
}

#[test]
fn case_evidence_added() {
    same_as_before(
        Event::CaseEvidenceAdded { case_id: id(4), evidence: json!({"photo": "x"}), who: "arbiter".into() },
        "case_evidence_added",
        json!({"case_id": id(4), "evidence": {"photo": "x"}, "who": "arbiter"}),
    );
}

#[test]
fn case_state_changed() {
    same_as_before(
        Event::CaseStateChanged {
            case_id: id(4),
            from: CaseState::Open,
            to: CaseState::UnderReview,
            who: "arbiter".into(),
            why: "looking".into(),
        },
        "case_state_changed",
        json!({"case_id": id(4), "from": CaseState::Open.as_str(), "to": CaseState::UnderReview.as_str(), "who": "arbiter",
               "why": "looking"}),
    );
}

#[test]
fn case_ruled() {
    let ruling = json!({"decision": "foul-loss", "player": "B", "move_number": 57, "rule": "ko", "article": "第十二条"});
    same_as_before(
        Event::CaseRuled { case_id: id(4), ruling: ruling.clone(), who: "arbiter".into(), why: "ko retaken".into() },
        "case_ruled",
        json!({"case_id": id(4), "ruling": ruling, "who": "arbiter", "why": "ko retaken"}),
    );
}

#[test]
fn other_kinds_and_unreadable_payloads_are_kept_as_stored() {
    let note = json!({"text": "clock started"});
    assert_eq!(Event::decode("note", &note), Event::Other { kind: "note".into(), payload: note.clone() });
    assert_eq!(Event::decode("note", &note).payload(), note);
    // a known kind whose payload does not read as it
    let odd = json!({"colour": "green"});
    assert_eq!(Event::decode("resign", &odd), Event::Other { kind: "resign".into(), payload: odd });
    // every typed kind's name is its serde tag
    assert_eq!(KINDS.len(), 19);
}
