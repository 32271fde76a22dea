-- The game's own facts in the hash chain (第十条2: a confirmed result is final, and the archive
-- must show that nothing it rests on was changed after it). Games created from now on record
-- every fact in their genesis event, `game_created` (seq 1): the players' names, ranks and
-- federation ids and the tournament's name besides the rule set, komi, handicap, setup, board
-- size, tournament, round and board number it already held (shinpan_storage::facts).
--
-- Every game that exists now gets its facts recorded here, from its rows as they are now, in a
-- new event of kind `game_facts` APPENDED to its chain: seq = its last seq + 1, prev_hash = its
-- last event's hash, and the head on the game row advanced to it — as any later event of the
-- game would be. No existing event and no existing hash changes: the chain's first hash links
-- to 32 zero bytes as before, so inserting a genesis before seq 1 (or giving seq 1 a new
-- prev_hash) would have meant rewriting every hash of every game, and every anchor taken
-- (`shinpan audit anchor`) would no longer match. An anchor taken before this migration still
-- verifies: a log may grow after its anchor.
--
-- What this covers for an existing game: the facts its `game_created` event already recorded
-- are covered from creation (the verifier requires `game_facts` to agree with it); the players'
-- names, ranks and federation ids and the tournament's name are covered from this migration
-- on — what was changed in those rows before it cannot be shown.
--
-- Payload: {"facts": "<JSON text>"}, the text a JSON object of the shape of a new
-- `game_created` payload. A string, so that the payload's canonical text (the hash input defined
-- in shinpan_storage::chain) is '{"facts":' || to_json(text) || '}': PostgreSQL escapes a
-- string exactly as serde_json does (\" \\ \b \f \n \r \t, other control characters \u00xx,
-- everything else as is), while its number formats differ from serde_json's.
--
-- The hash, as shinpan_storage::chain::event_hash computes it: SHA-256 of
--   'shinpan-event-v1' || prev_hash || game id (16 bytes) || seq (int8, big-endian)
--   || length(kind) (int4, big-endian) || kind || length(payload text) (int8, big-endian)
--   || payload text || created_at (int8, big-endian microseconds since the Unix epoch).

DO $$
DECLARE
    g          record;
    at         timestamptz := now();
    at_micros  int8;
    kind       text := 'game_facts';
    body       text;
    h          bytea;
BEGIN
    at_micros := (extract(epoch FROM date_trunc('second', at)))::int8 * 1000000
                 + (extract(microseconds FROM at))::int8 % 1000000;
    FOR g IN
        SELECT gm.id,
               coalesce(tail.seq, 0) + 1 AS seq,
               coalesce(tail.hash, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea) AS prev_hash,
               jsonb_build_object(
                   'tournament_id', gm.tournament_id,
                   'tournament', t.name,
                   'round', gm.round,
                   'table_number', gm.table_number,
                   'black_player_id', gm.black_player_id,
                   'white_player_id', gm.white_player_id,
                   'black', jsonb_build_object('id', b.id, 'name', b.name, 'rank', b.rank, 'federation_id', b.federation_id),
                   'white', jsonb_build_object('id', w.id, 'name', w.name, 'rank', w.rank, 'federation_id', w.federation_id),
                   'board_width', gm.board_width,
                   'board_height', gm.board_height,
                   'komi', gm.komi,
                   'handicap', gm.handicap,
                   'rule_set', gm.rule_set,
                   'setup', gm.setup
               )::text AS facts
        FROM games gm
        JOIN players b ON b.id = gm.black_player_id
        JOIN players w ON w.id = gm.white_player_id
        LEFT JOIN tournaments t ON t.id = gm.tournament_id
        LEFT JOIN LATERAL (SELECT seq, hash FROM events e WHERE e.game_id = gm.id ORDER BY seq DESC LIMIT 1) tail ON true
        ORDER BY gm.id
    LOOP
        body := '{"facts":' || to_json(g.facts)::text || '}';
        h := sha256('shinpan-event-v1'::bytea || g.prev_hash || uuid_send(g.id) || int8send(g.seq)
                    || int4send(octet_length(kind)) || convert_to(kind, 'UTF8')
                    || int8send(octet_length(body)::int8) || convert_to(body, 'UTF8')
                    || int8send(at_micros));
        INSERT INTO events (game_id, seq, kind, payload, created_at, prev_hash, hash)
        VALUES (g.id, g.seq, kind, body::jsonb, at, g.prev_hash, h);
        -- the head only (a final game's row allows nothing else, and needs nothing else)
        UPDATE games SET last_seq = g.seq, last_hash = h WHERE id = g.id;
    END LOOP;
END;
$$;
