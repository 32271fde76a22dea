-- One-time sign-in codes of the referee console: a code an official hands out stands for a
-- role token until it is exchanged (once) or expires. Kept in the database so that every
-- replica behind a load balancer can exchange a code another one made.
CREATE TABLE sign_in_codes (
    code       text PRIMARY KEY,
    token      text NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX sign_in_codes_expiry ON sign_in_codes (expires_at);
