//! The console's message catalogue: every label in English and Japanese. Articles of the
//! rules are cited in Japanese in both languages.

use axum::http::HeaderMap;

/// The language a page is drawn in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lang {
    /// English.
    En,
    /// Japanese (日本語).
    Ja,
}

impl Lang {
    /// `"en"` or `"ja"` (the `lang` attribute and the `?lang=` value).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ja => "ja",
        }
    }

    /// `"ja"` → Japanese, `"en"` → English, anything else → none.
    pub fn parse(s: &str) -> Option<Lang> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ja" | "jp" | "ja-jp" => Some(Lang::Ja),
            "en" | "en-gb" | "en-us" => Some(Lang::En),
            _ => None,
        }
    }

    /// The language of a request: `?lang=`, else the `shinpan_lang` cookie, else the first
    /// of Accept-Language that is Japanese or English, else English.
    pub fn of_request(query: Option<&str>, headers: &HeaderMap) -> Lang {
        if let Some(l) = query.and_then(Lang::parse) {
            return l;
        }
        if let Some(l) = super::cookie(headers, super::LANG_COOKIE).as_deref().and_then(Lang::parse) {
            return l;
        }
        let accept = headers.get(axum::http::header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()).unwrap_or("");
        for part in accept.split(',') {
            let tag = part.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            if tag.starts_with("ja") {
                return Lang::Ja;
            }
            if tag.starts_with("en") {
                return Lang::En;
            }
        }
        Lang::En
    }

    /// The label `key` in this language, `"?"` when the catalogue lacks it.
    pub fn t(self, key: &str) -> &'static str {
        match CATALOGUE.iter().find(|(k, _, _)| *k == key) {
            Some((_, en, ja)) => match self {
                Lang::En => en,
                Lang::Ja => ja,
            },
            None => "?",
        }
    }
}

/// `(key, English, Japanese)`.
pub const CATALOGUE: &[(&str, &str, &str)] = &[
    ("title", "shinpan referee console", "審判 立会人コンソール"),
    ("sign_in", "Sign in", "サインイン"),
    ("sign_out", "Sign out", "サインアウト"),
    ("token", "Role token", "ロールトークン"),
    (
        "token_help",
        "Paste the token the tournament director issued you (shinpan token issue …). It is kept in this browser only, in a cookie scripts cannot read.",
        "大会責任者が発行したトークン（shinpan token issue …）を貼り付けてください。このブラウザのスクリプトから読めないクッキーにのみ保存されます。",
    ),
    ("signed_in_as", "Signed in as", "サインイン中："),
    ("tournament", "Tournament", "大会"),
    ("games", "Games", "対局"),
    ("round", "Round", "回戦"),
    ("board", "Board", "盤"),
    ("black", "Black", "黒"),
    ("white", "White", "白"),
    ("state", "State", "状態"),
    ("moves", "Moves", "手数"),
    ("result", "Result", "結果"),
    ("open_cases", "Open arbiter cases", "未決の裁定案件"),
    ("no_cases", "No open case.", "未決の案件はありません。"),
    ("no_games", "No game recorded yet.", "対局はまだ記録されていません。"),
    ("kind", "Kind", "種類"),
    ("age", "Age", "経過"),
    ("reason", "Reason", "理由"),
    ("drawn_in", "Drawn into the dispute", "争いに加えた石"),
    (
        "drawn_in_race",
        "it shares liberties with the chain at {} and has at most one liberty more: a capturing race or seki decides both (第七条)",
        "{}の石と駄目を共有し、手数は多くても一手多いだけ：攻め合いかセキが両方を決める（第七条）",
    ),
    (
        "drawn_in_leaned_on",
        "a status found without it could rest on it never being captured, and it races the chain at {}, which is in the dispute's region or reached by its races (第七条)",
        "これを除いて得た結論は、これが取られないことに頼りうる。これは{}の石と攻め合い、その石は争いの領域にあるか、争いの攻め合いにつながる（第七条）",
    ),
    ("kept_by_links", "Kept a wall by two links", "二つの連絡点で壁のまま"),
    ("links", "links (◇ on the board)", "連絡点（盤上の◇）"),
    (
        "kept_by_links_why",
        "a move on one is answered on the other, which joins the wall to a wall that stays (第七条)",
        "一方に打たれれば他方に打ち、残る壁につながる（第七条）",
    ),
    ("state_playing", "playing", "対局中"),
    ("state_stopped", "stopped", "停止"),
    ("state_ended", "ended", "終局"),
    ("flagged", "flagged", "要確認"),
    ("move", "Move", "手"),
    ("move_number", "Move", "手数"),
    ("prisoners", "Prisoners", "アゲハマ"),
    ("to_move", "To move", "手番"),
    ("komi", "Komi", "コミ"),
    ("live", "live", "中継中"),
    ("first", "First", "初手"),
    ("prev", "Back", "戻る"),
    ("next", "Forward", "進む"),
    ("last", "Latest", "最新"),
    ("fouls", "Fouls", "反則"),
    ("no_fouls", "No foul recorded.", "反則の記録はありません。"),
    ("pass", "pass", "パス"),
    ("end_of_game", "End of the game", "終局処理"),
    ("show_proposal", "Show shinpan's proposal", "審判の提案を表示"),
    ("proposal", "Proposal", "提案"),
    ("proved", "proved", "証明済み"),
    ("estimated", "estimated", "推定"),
    ("undecided", "undecided", "未決定"),
    ("alive", "alive", "活き"),
    ("dead", "dead", "死に"),
    ("seki", "seki", "セキ"),
    ("source", "Source", "出典"),
    ("chain", "Chain (stones)", "連（石数）"),
    ("basis", "Basis", "根拠"),
    ("click_to_mark", "Click a stone to mark its chain dead or alive.", "石をクリックすると、その連の死活を切り替えます。"),
    ("dispute", "Dispute this chain", "この連の死活を争う"),
    ("adjudication", "Adjudication (hypothetical play, 第七条)", "判定（仮想着手、第七条）"),
    ("proof_line", "Proof line", "証明手順"),
    ("territory", "Territory (地)", "地"),
    ("count", "Count", "計算"),
    ("jigo", "持碁 (jigo)", "持碁"),
    ("propose_result", "Propose this count as the result", "この計算を結果として提案"),
    ("confirm", "Confirm the result", "結果を確認"),
    ("object", "Object (第十条2)", "異議申立て（第十条2）"),
    ("objection_reason", "Why you object", "異議の理由"),
    ("pending", "Confirmations missing", "未確認"),
    ("cases", "Cases", "案件"),
    ("case", "Case", "案件"),
    ("evidence", "Evidence", "証拠"),
    ("rule", "Rule", "裁定する"),
    ("ruling", "Ruling", "裁定"),
    ("written_reason", "Written reason (required)", "裁定理由（必須）"),
    ("error", "Not done", "実行できませんでした"),
    ("refused_role", "Your role may not do this.", "あなたの役割ではこの操作はできません。"),
    ("back_to_tournament", "Tournament view", "大会一覧"),
    ("final_results", "Final results", "確定した結果"),
    ("searching", "Hypothetical play (第七条): regions searched", "想定着手（第七条）: 探索済みの領域"),
    ("nodes", "positions", "局面"),
    ("no_final_results", "No result is final yet.", "確定した結果はまだありません。"),
    ("egf_table", "EGF results table", "EGF 成績表"),
    ("sgf_collection", "All records (SGF)", "全棋譜（SGF）"),
    ("opened_by", "Opened by", "申立て"),
    ("game", "Game", "対局"),
    ("sgf", "SGF record", "SGF棋譜"),
    ("language", "日本語", "English"),
    ("one_time_code", "One-time code", "ワンタイムコード"),
    ("create_code", "Create a code", "コードを発行"),
    ("subject", "Federation id or name", "協会IDまたは氏名"),
    ("role_player", "player", "対局者"),
    ("role_referee", "referee", "立会人"),
    (
        "code_help",
        "Type this code on the sign-in page of the console; it works once, for a short time.",
        "コンソールのサインイン画面でこのコードを入力してください。一度だけ、短時間有効です。",
    ),
    (
        "legend",
        "Solid red cross: dead, proved by hypothetical play (第七条) or marked. Dashed cross: dead by estimate only. Dashed ring: alive by estimate only. S: seki. ?: undecided.",
        "赤の実線の×：死に石（仮想着手で証明、第七条、または指定）。破線の×：推定のみの死に石。破線の輪：推定のみの活き石。S：セキ。?：未決定。",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_unique_and_translated() {
        for (i, (k, en, ja)) in CATALOGUE.iter().enumerate() {
            assert!(!en.is_empty() && !ja.is_empty(), "{k}");
            assert!(CATALOGUE[i + 1..].iter().all(|(k2, _, _)| k2 != k), "duplicate key {k}");
        }
        assert_eq!(Lang::Ja.t("prisoners"), "アゲハマ");
        assert_eq!(Lang::En.t("prisoners"), "Prisoners");
    }

    #[test]
    fn accept_language_picks_japanese() {
        let mut h = HeaderMap::new();
        h.insert(axum::http::header::ACCEPT_LANGUAGE, "ja-JP,ja;q=0.9,en;q=0.8".parse().unwrap());
        assert_eq!(Lang::of_request(None, &h), Lang::Ja);
        assert_eq!(Lang::of_request(Some("en"), &h), Lang::En);
        assert_eq!(Lang::of_request(None, &HeaderMap::new()), Lang::En);
    }
}
