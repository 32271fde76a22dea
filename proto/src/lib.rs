//! # shinpan-proto — the `shinpan.v1` gRPC protocol
//!
//! Generated from `proto/shinpan/v1/*.proto` at build time (protox + tonic-prost-build).
//! Conventions: points are SGF coordinates (`"dd"`, column letter then row letter, `"aa"`
//! the top-left corner); colours are [`v1::Color`]; rule sets are named
//! (`"japanese-2011"` by default).
//!
//! Services (one `.proto` file each; `ResultConfirmationService` and `ArbitrationService`
//! share one):
//! * `GameRecordingService` ([`v1::game_recording_service_server`],
//!   [`v1::game_recording_service_client`])
//! * `RuleValidationService` ([`v1::rule_validation_service_server`],
//!   [`v1::rule_validation_service_client`])
//! * `AdjudicationService` ([`v1::adjudication_service_server`],
//!   [`v1::adjudication_service_client`])
//! * `ResultConfirmationService` and `ArbitrationService`
//!   ([`v1::result_confirmation_service_server`], [`v1::arbitration_service_server`] and their
//!   clients)
//!
//! Enum values carry their type's name as a prefix in the protocol (`COLOR_BLACK`,
//! `PHASE_ENDED`); prost strips it from the Rust variants (`Color::Black`), and
//! [`ValueName::value_name`] gives the name without it (`"ENDED"`), as the event log's JSON
//! payloads and the CLI print it.
//!
//! The servers decode requests with [`codec::RequestCodec`] (a request that is not valid
//! protobuf is `INVALID_ARGUMENT`); the clients with `tonic_prost::ProstCodec`.

/// The `shinpan.v1` package: messages, enums, clients (`*_client`) and servers (`*_server`).
pub mod v1 {
    #![allow(clippy::all, missing_docs)]
    tonic::include_proto!("shinpan.v1");
    include!(concat!(env!("OUT_DIR"), "/clients/shinpan.v1.rs"));
}

pub mod codec;

/// The encoded `google.protobuf.FileDescriptorSet` of every `shinpan.v1` file (and the
/// well-known types they import), for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/shinpan_descriptor.bin"));

/// Fully qualified service names, as reported by reflection and used by health checks.
pub mod service_names {
    /// `shinpan.v1.GameRecordingService`.
    pub const GAME_RECORDING: &str = "shinpan.v1.GameRecordingService";
    /// `shinpan.v1.RuleValidationService`.
    pub const RULE_VALIDATION: &str = "shinpan.v1.RuleValidationService";
    /// `shinpan.v1.AdjudicationService`.
    pub const ADJUDICATION: &str = "shinpan.v1.AdjudicationService";
    /// `shinpan.v1.ResultConfirmationService`.
    pub const RESULT_CONFIRMATION: &str = "shinpan.v1.ResultConfirmationService";
    /// `shinpan.v1.ArbitrationService`.
    pub const ARBITRATION: &str = "shinpan.v1.ArbitrationService";
}

/// The name of an enum value without its type's prefix: `Phase::Ended` → `"ENDED"`,
/// `CaseState::UnderReview` → `"UNDER_REVIEW"`, `ChainStatus::Seki` → `"SEKI"`.
pub trait ValueName: Copy {
    /// The value's protobuf name ([`as_str_name`](v1::Phase::as_str_name)) without the
    /// `<TYPE>_` prefix.
    fn value_name(self) -> &'static str;
}

macro_rules! value_name {
    ($($t:ident => $prefix:literal),* $(,)?) => {$(
        impl ValueName for v1::$t {
            fn value_name(self) -> &'static str {
                let name = self.as_str_name();
                name.strip_prefix($prefix).unwrap_or(name)
            }
        }
    )*};
}

value_name! {
    Color => "COLOR_",
    Phase => "PHASE_",
    ChainStatus => "CHAIN_STATUS_",
    Ending => "ENDING_",
    ResultState => "RESULT_STATE_",
    Role => "ROLE_",
    CaseState => "CASE_STATE_",
    CaseKind => "CASE_KIND_",
    RulingKind => "RULING_KIND_",
}

#[cfg(test)]
mod tests {
    use super::{v1, ValueName};

    #[test]
    fn value_names_drop_the_type_prefix() {
        assert_eq!(v1::Phase::Ended.value_name(), "ENDED");
        assert_eq!(v1::Color::Black.value_name(), "BLACK");
        assert_eq!(v1::ChainStatus::Undecided.value_name(), "UNDECIDED");
        assert_eq!(v1::CaseState::UnderReview.value_name(), "UNDER_REVIEW");
        assert_eq!(v1::CaseKind::Referee.value_name(), "REFEREE");
        assert_eq!(v1::RulingKind::EndByCount.value_name(), "END_BY_COUNT");
    }
}
