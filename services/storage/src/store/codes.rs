//! One-time sign-in codes of the referee console: a short code that stands for a role token
//! until it is exchanged once or expires, shared by every replica through the database.

use chrono::{DateTime, Utc};

use super::*;
use crate::error::StoreResult;

impl Store {
    /// Keeps `token` under `code` until `expires_at` (codes already expired are dropped on
    /// the way). Errors: [`StoreError::AlreadyExists`](crate::StoreError) when the code is
    /// taken (the caller draws another).
    pub async fn put_sign_in_code(&self, code: &str, token: &str, expires_at: DateTime<Utc>) -> StoreResult<()> {
        sqlx::query!("DELETE FROM sign_in_codes WHERE expires_at < now()").execute(&self.pool).await?;
        sqlx::query!("INSERT INTO sign_in_codes (code, token, expires_at) VALUES ($1, $2, $3)", code, token, expires_at)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Exchanges `code` for its token, once: the code is gone afterwards, on every replica.
    /// `None` for an unknown, already exchanged or expired code.
    pub async fn take_sign_in_code(&self, code: &str) -> StoreResult<Option<String>> {
        let row =
            sqlx::query!("DELETE FROM sign_in_codes WHERE code = $1 RETURNING token, expires_at", code).fetch_optional(&self.pool).await?;
        Ok(row.filter(|r| r.expires_at > Utc::now()).map(|r| r.token))
    }
}
