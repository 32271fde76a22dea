-- CreateGame and ImportSgf are retried by clients that lost the answer (a dropped
-- connection at the board, a timeout): a retry must give back the game the first call
-- created, never a second game (a copy on the next free board, or a duplicate of a game
-- filed under no table). The client's idempotency key is kept on the game with a digest
-- of its request: the same key with a different request is refused.
ALTER TABLE games
    ADD COLUMN idempotency_key text CHECK (length(idempotency_key) BETWEEN 1 AND 200),
    ADD COLUMN request_digest bytea CHECK (octet_length(request_digest) = 32),
    ADD CONSTRAINT games_key_has_digest CHECK ((idempotency_key IS NULL) = (request_digest IS NULL));
CREATE UNIQUE INDEX games_idempotency_key ON games (idempotency_key) WHERE idempotency_key IS NOT NULL;
