//! Refusals of the services written as sentences a referee understands, citing the article
//! they rest on, never as a status code.

use super::i18n::Lang;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// The sentence for a refusal of the services, in `lang`. The service's own explanation
/// (which names the rule) follows the sentence.
pub fn explain(lang: Lang, status: &Status) -> String {
    let reason = status.get_error_details().error_info().map(|i| i.reason.clone()).unwrap_or_default();
    let ja = lang == Lang::Ja;
    let head = match (reason.as_str(), status.code()) {
        ("RESULT_FINAL", _) => {
            if ja {
                "結果は確定しています。両対局者と立会人の確認が済んだ結果は変更できません（第十条）。"
            } else {
                "The result is final: both players and the referee have confirmed it, and it no longer changes (第十条)."
            }
        }
        ("NOTHING_PROPOSED", _) => {
            if ja {
                "まだ結果が提案されていません。結果は対局の停止後に提案します（第九条）。"
            } else {
                "No result has been proposed yet: a result is proposed once play has stopped (第九条)."
            }
        }
        ("RESULT_DISPUTED", _) => {
            if ja {
                "異議が申し立てられています。立会人が裁定するまで確認は受け付けられません（第十条2）。"
            } else {
                "An objection is open: no confirmation is accepted until the referee has ruled (第十条2)."
            }
        }
        ("RESULT_NOT_FINAL", _) => {
            if ja {
                "結果はまだ確定していません（第十条）。"
            } else {
                "The result is not final yet (第十条)."
            }
        }
        (_, Code::PermissionDenied) => {
            if ja {
                "あなたの役割ではこの操作はできません。対局者は自分の対局と自分の色についてのみ、立会人は担当する大会についてのみ操作できます。"
            } else {
                "Your role may not do this: a player acts only for their own games and colour, a referee only for their tournament."
            }
        }
        (_, Code::Unauthenticated) => {
            if ja {
                "トークンが無効か期限切れです。もう一度サインインしてください。"
            } else {
                "Your token is not valid or has expired: sign in again."
            }
        }
        (_, Code::NotFound) => {
            if ja {
                "見つかりません。"
            } else {
                "Not found."
            }
        }
        (_, Code::FailedPrecondition) => {
            if ja {
                "対局の現在の状態ではこの操作はできません。"
            } else {
                "This cannot be done in the game's present state."
            }
        }
        (_, Code::InvalidArgument) => {
            if ja {
                "入力が受け付けられませんでした。"
            } else {
                "The request was not accepted."
            }
        }
        (_, Code::Unavailable) => {
            if ja {
                "データベースが応答していません。しばらくしてからもう一度お試しください。"
            } else {
                "The database does not answer right now: try again in a moment."
            }
        }
        _ => {
            if ja {
                "サーバーで処理できませんでした。"
            } else {
                "The server could not do this."
            }
        }
    };
    let detail = status.message().trim();
    if detail.is_empty() {
        head.to_string()
    } else {
        format!("{head} {detail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_result_cites_article_ten() {
        let s = crate::error::lifecycle_status(&crate::lifecycle::LifecycleError::Final);
        let en = explain(Lang::En, &s);
        assert!(en.contains("第十条") && !en.contains("FAILED_PRECONDITION"), "{en}");
        assert!(explain(Lang::Ja, &s).starts_with("結果は確定"));
    }
}
