//! # shinpan-proto — the `shinpan.v1` gRPC protocol
//!
//! Generated from `proto/shinpan/v1/*.proto` at build time (protox + tonic-prost-build).
//! Conventions: points are SGF coordinates (`"dd"`, column letter then row letter, `"aa"`
//! the top-left corner); colours are [`v1::Color`]; rule sets are named
//! (`"japanese-2011"` by default).
//!
//! Services (one `.proto` file each):
//! * `GameRecording` ([`v1::game_recording_server`], [`v1::game_recording_client`])
//! * `RuleValidation` ([`v1::rule_validation_server`], [`v1::rule_validation_client`])
//! * `Adjudication` ([`v1::adjudication_server`], [`v1::adjudication_client`])
//! * `ResultConfirmation` and `Arbitration` ([`v1::result_confirmation_server`],
//!   [`v1::arbitration_server`] and their clients)
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
    /// `shinpan.v1.GameRecording`.
    pub const GAME_RECORDING: &str = "shinpan.v1.GameRecording";
    /// `shinpan.v1.RuleValidation`.
    pub const RULE_VALIDATION: &str = "shinpan.v1.RuleValidation";
    /// `shinpan.v1.Adjudication`.
    pub const ADJUDICATION: &str = "shinpan.v1.Adjudication";
    /// `shinpan.v1.ResultConfirmation`.
    pub const RESULT_CONFIRMATION: &str = "shinpan.v1.ResultConfirmation";
    /// `shinpan.v1.Arbitration`.
    pub const ARBITRATION: &str = "shinpan.v1.Arbitration";
}
