-- The head of each game's log kept on the game row: the number of moves recorded, and the seq and
-- hash of the last event. Every write to a game advances it in the same transaction, and a write
-- only applies if the head is still the one it was computed from (compare-and-swap on the row),
-- which makes recording exactly-once in one round trip. `verify_chain` checks the head against the
-- log, so removing events from the end of the log is detected too.

ALTER TABLE games
    ADD COLUMN move_count integer NOT NULL DEFAULT 0 CHECK (move_count >= 0),
    ADD COLUMN last_seq   bigint  NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
    ADD COLUMN last_hash  bytea   NOT NULL DEFAULT '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea
                          CHECK (octet_length(last_hash) = 32);

-- A final game's row never changes (第十条), except its head, which still advances when events
-- are appended after finality (a federation correction, a case closed).
CREATE OR REPLACE FUNCTION shinpan_games_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.state = 'final' AND (TG_OP = 'DELETE'
        OR (to_jsonb(NEW) - 'move_count' - 'last_seq' - 'last_hash')
           IS DISTINCT FROM (to_jsonb(OLD) - 'move_count' - 'last_seq' - 'last_hash')) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'SH010',
            MESSAGE = format('%s of game %s rejected: its result is final (第十条)', TG_OP, OLD.id);
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$;

UPDATE games g SET
    move_count = coalesce((SELECT max(m.move_number) FROM moves m WHERE m.game_id = g.id), 0),
    last_seq   = coalesce(e.seq, 0),
    last_hash  = coalesce(e.hash, g.last_hash)
FROM games g2
LEFT JOIN LATERAL (SELECT seq, hash FROM events WHERE game_id = g2.id ORDER BY seq DESC LIMIT 1) e ON true
WHERE g2.id = g.id;
