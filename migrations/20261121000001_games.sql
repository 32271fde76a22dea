-- shinpan (審判) schema, part 1: tournaments, players, games, moves, the per-game event log.
--
-- Immutability (第十条 and its commentary: once a result is confirmed it is never changed; the
-- record of play it rests on must therefore not change either): moves and events are append-only.
-- Triggers below reject every UPDATE, DELETE and TRUNCATE on them with SQLSTATE 'SH010'.
-- The storage crate maps SQLSTATE SH010 to StoreError::Immutable.

CREATE TABLE tournaments (
    id          uuid PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (length(name) > 0),
    -- TournamentSettings as JSON; `no_result_policy` is the 無勝負 policy of 第十一条's note:
    -- "no-result" (the game is 無勝負), "time-used" (decided on time used) or "nigiri".
    settings    jsonb NOT NULL DEFAULT '{"no_result_policy":"no-result"}'::jsonb
                CHECK (jsonb_typeof(settings) = 'object'
                       AND settings->>'no_result_policy' IN ('no-result', 'time-used', 'nigiri')),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE players (
    id             uuid PRIMARY KEY,
    name           text NOT NULL CHECK (length(name) > 0),
    rank           text,
    -- Federation membership id (e.g. an EGD PIN); unique when present.
    federation_id  text UNIQUE,
    created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE games (
    id              uuid PRIMARY KEY,
    tournament_id   uuid REFERENCES tournaments(id),
    round           integer CHECK (round >= 0),
    table_number    integer CHECK (table_number >= 0),
    black_player_id uuid NOT NULL REFERENCES players(id),
    white_player_id uuid NOT NULL REFERENCES players(id),
    board_width     smallint NOT NULL CHECK (board_width BETWEEN 1 AND 52),
    board_height    smallint NOT NULL CHECK (board_height BETWEEN 1 AND 52),
    komi            double precision NOT NULL DEFAULT 0,
    handicap        smallint NOT NULL DEFAULT 0 CHECK (handicap >= 0),
    rule_set        text NOT NULL DEFAULT 'japanese-2011',
    -- playing: moves may be recorded; ended: play stopped (resignation, passes, time, ruling),
    -- the result is being confirmed; final: the result is final (第十条) and the game is closed.
    state           text NOT NULL DEFAULT 'playing' CHECK (state IN ('playing', 'ended', 'final')),
    -- Setup stones and other record properties, e.g. {"AB":["dd","pp"],"AW":[],"DT":"2024-01-01"}.
    setup           jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(setup) = 'object'),
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX games_tournament_round_table
    ON games (tournament_id, round, table_number)
    WHERE tournament_id IS NOT NULL AND round IS NOT NULL AND table_number IS NOT NULL;
CREATE INDEX games_tournament_round ON games (tournament_id, round);

-- The per-game event log. Row n carries prev_hash = hash of row n-1 of the same game (32 zero
-- bytes for seq 1) and hash = SHA-256 over the canonical encoding defined in the storage crate
-- (shinpan_storage::chain). Any change to a stored row breaks the chain.
CREATE TABLE events (
    game_id     uuid NOT NULL REFERENCES games(id),
    seq         bigint NOT NULL CHECK (seq >= 1),
    kind        text NOT NULL CHECK (length(kind) > 0),
    payload     jsonb NOT NULL,
    created_at  timestamptz NOT NULL,
    prev_hash   bytea NOT NULL CHECK (octet_length(prev_hash) = 32),
    hash        bytea NOT NULL CHECK (octet_length(hash) = 32),
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE moves (
    game_id          uuid NOT NULL REFERENCES games(id),
    move_number      integer NOT NULL CHECK (move_number >= 1),
    colour           text NOT NULL CHECK (colour IN ('B', 'W')),
    -- SGF point ("dd": column letter then row letter, "aa" top-left); NULL is a pass.
    point            text CHECK (point ~ '^[a-zA-Z]{2}$'),
    client_time      timestamptz,
    idempotency_key  text,
    event_seq        bigint NOT NULL,
    recorded_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT moves_game_move_number UNIQUE (game_id, move_number),
    CONSTRAINT moves_game_idempotency_key UNIQUE (game_id, idempotency_key),
    FOREIGN KEY (game_id, event_seq) REFERENCES events (game_id, seq)
);

-- Stored answers of idempotent game writes: a retry with the same key gets the same answer.
CREATE TABLE idempotency (
    game_id     uuid NOT NULL REFERENCES games(id),
    key         text NOT NULL CHECK (length(key) > 0),
    request     jsonb NOT NULL,
    response    jsonb NOT NULL,
    move_number integer,
    event_seq   bigint NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, key),
    FOREIGN KEY (game_id, event_seq) REFERENCES events (game_id, seq)
);

-- Append-only guard (第十条).
CREATE FUNCTION shinpan_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = 'SH010',
        MESSAGE = format('%s on %s rejected: the game record is append-only (第十条: a confirmed result and the record it rests on are never changed)',
                         TG_OP, TG_TABLE_NAME),
        HINT = 'record a new event or a linked correction instead';
END;
$$;

CREATE TRIGGER events_immutable BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION shinpan_reject_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION shinpan_reject_change();
CREATE TRIGGER moves_immutable BEFORE UPDATE OR DELETE ON moves
    FOR EACH ROW EXECUTE FUNCTION shinpan_reject_change();
CREATE TRIGGER moves_no_truncate BEFORE TRUNCATE ON moves
    FOR EACH STATEMENT EXECUTE FUNCTION shinpan_reject_change();

-- A game whose result is final is closed (第十条).
CREATE FUNCTION shinpan_games_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.state = 'final' THEN
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
CREATE TRIGGER games_final_guard BEFORE UPDATE OR DELETE ON games
    FOR EACH ROW EXECUTE FUNCTION shinpan_games_guard();

-- Live followers (WatchGame): every new event is announced on channel 'shinpan_events' with
-- payload '<game uuid>:<seq>', delivered when the inserting transaction commits.
CREATE FUNCTION shinpan_notify_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('shinpan_events', NEW.game_id::text || ':' || NEW.seq::text);
    RETURN NULL;
END;
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION shinpan_notify_event();
