-- A move's idempotency key is unique per game twice over: by the constraint
-- moves_game_idempotency_key and by the primary key (game_id, key) of `idempotency`, whose
-- row every keyed move inserts in the same statement (Store::write, the batched writer).
-- The second suffices: a repeated key fails that statement as a whole, the move included.
-- One B-tree insert less per recorded move; the column itself stays (it shows which call
-- stored the move).
ALTER TABLE moves DROP CONSTRAINT moves_game_idempotency_key;
