//! The per-caller rate limit of the expensive calls (`shinpan serve
//! --expensive-calls-per-minute`): a caller over its allowance gets RESOURCE_EXHAUSTED naming
//! the flag; another caller (another token's subject) is not affected, nor are cheap calls.

use shinpan::auth::{AuthConfig, AuthScope, Role};
use shinpan::configuration::ServeArgs;
use shinpan::startup::Application;
use shinpan_proto::v1 as pb;
use tonic::Code;

const SECRET: &str = "a production secret of at least 32 bytes";

fn authed<T>(msg: T, token: &str) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

fn record() -> pb::ValidateRecordRequest {
    pb::ValidateRecordRequest {
        record: Some(pb::validate_record_request::Record::Sgf("(;SZ[9];B[ee];W[gc])".into())),
        rule_set: String::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_over_its_allowance_of_expensive_calls_is_refused_naming_the_flag() {
    let store = shinpan_storage::testing::fresh_store().await;
    let mut args = ServeArgs::local(None, std::path::PathBuf::from("/nonexistent"));
    args.auth = AuthScope::All;
    args.jwt_secret = Some(SECRET.into());
    args.expensive_calls_per_minute = 8; // bursts of 2
    let app = Application::with_store(&args, Some(store)).await.unwrap();
    let url = app.url();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = rx.await;
    }));
    let channel = shinpan::remote::channel(&url).await.unwrap();
    let mut v = pb::rule_validation_service_client::RuleValidationServiceClient::new(channel.clone());
    let auth = AuthConfig::new(SECRET);
    let alice = auth.issue(Role::Referee, "alice", None, None, None, 600).unwrap();
    let bob = auth.issue(Role::Referee, "bob", None, None, None, 600).unwrap();
    for _ in 0..2 {
        v.validate_record(authed(record(), &alice)).await.expect("within the burst");
    }
    let refused = v.validate_record(authed(record(), &alice)).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert!(refused.message().contains("--expensive-calls-per-minute") && refused.message().contains("retry in"), "{}", refused.message());
    // Another caller has its own allowance; a cheap call of the first is not limited.
    v.validate_record(authed(record(), &bob)).await.expect("another caller");
    assert!(!v.list_rule_sets(pb::ListRuleSetsRequest::default()).await.unwrap().into_inner().rule_sets.is_empty());
    let _ = tx.send(());
    server.await.unwrap().unwrap();
}
