-- shinpan (審判) schema, part 2: results and their confirmation (第十条), objections (第十条2),
-- arbiter cases (第十一条 無勝負, 第十二条 反則負け, 第九条 resumption disputes, 両負け).

CREATE TABLE results (
    id                   uuid PRIMARY KEY,
    game_id              uuid NOT NULL REFERENCES games(id),
    -- proposed: awaiting confirmations; final: confirmed, never changes again (第十条);
    -- superseded: a proposal replaced (before finality) by an amended one.
    state                text NOT NULL CHECK (state IN ('proposed', 'final', 'superseded')),
    -- The SGF RE value: "B+3.5", "W+R", "0" (jigo), "Void" (無勝負), "B+F"/"W+F", "B+T"/"W+T", ...
    result               text NOT NULL CHECK (length(result) > 0),
    -- How the game ended: resignation, count, time, foul, no-result, both-lose, jigo, ...
    reason               text NOT NULL,
    -- Agreed or adjudicated life-and-death statuses, e.g. {"dead":["dd","de"],"seki":[...]}.
    statuses             jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- Anything else worth keeping with the result (adjudication proof, ruling reference, ...).
    detail               jsonb NOT NULL DEFAULT '{}'::jsonb,
    proposed_by          text NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT now(),
    finalized_at         timestamptz,
    -- A proposal that replaces an earlier proposal of the same game (amendment before finality).
    supersedes_result_id uuid UNIQUE REFERENCES results(id),
    -- A federation's later correction of a final result: a new final row that keeps the original.
    corrects_result_id   uuid UNIQUE REFERENCES results(id),
    CHECK ((state = 'final') = (finalized_at IS NOT NULL)),
    CHECK (corrects_result_id IS NULL OR state = 'final'),
    CHECK (supersedes_result_id IS NULL OR corrects_result_id IS NULL)
);
CREATE INDEX results_game ON results (game_id, created_at);
-- At most one open proposal and one original final result per game.
CREATE UNIQUE INDEX results_one_proposed ON results (game_id) WHERE state = 'proposed';
CREATE UNIQUE INDEX results_one_final ON results (game_id)
    WHERE state = 'final' AND corrects_result_id IS NULL;

CREATE TABLE confirmations (
    result_id     uuid NOT NULL REFERENCES results(id),
    -- black / white: the player of that colour; referee: the 立会人; director: chief arbiter.
    role          text NOT NULL CHECK (role IN ('black', 'white', 'referee', 'director')),
    who           text NOT NULL,
    confirmed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (result_id, role)
);

CREATE TABLE cases (
    id            uuid PRIMARY KEY,
    game_id       uuid NOT NULL REFERENCES games(id),
    kind          text NOT NULL CHECK (kind IN ('foul', 'repetition', 'undecided', 'objection',
                                                'manual', 'resumption')),
    state         text NOT NULL DEFAULT 'open'
                  CHECK (state IN ('open', 'under_review', 'ruled', 'closed')),
    -- Move numbers, the repeating sequence, positions, proofs, reconstruction, ...
    evidence      jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- Optional de-duplication key: a case opened automatically twice for the same cause is one case.
    dedupe_key    text,
    opened_by     text NOT NULL,
    opened_reason text NOT NULL DEFAULT '',
    opened_at     timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    -- The ruling: decision and its particulars (e.g. {"decision":"foul-loss","player":"B",
    -- "move_number":57,"rule":"ko","article":"第十二条"} or {"decision":"no-result",
    -- "policy":"no-result"}), who ruled, when, and why.
    ruling        jsonb,
    ruled_by      text,
    ruled_at      timestamptz,
    ruling_reason text,
    closed_at     timestamptz,
    UNIQUE (game_id, dedupe_key),
    CHECK ((ruling IS NULL) = (ruled_at IS NULL)),
    CHECK (state NOT IN ('ruled') OR ruling IS NOT NULL)
);
CREATE INDEX cases_game ON cases (game_id, opened_at);
CREATE INDEX cases_state ON cases (state, opened_at);

-- Objections (第十条2) and the appeal they open: the reconstruction (対局の再現) and the new
-- adjudication are attached here; the referee's decision is the ruling of the linked case.
CREATE TABLE objections (
    id              uuid PRIMARY KEY,
    game_id         uuid NOT NULL REFERENCES games(id),
    result_id       uuid REFERENCES results(id),
    role            text NOT NULL CHECK (role IN ('black', 'white')),
    who             text NOT NULL,
    reason          text NOT NULL CHECK (length(reason) > 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    case_id         uuid NOT NULL UNIQUE REFERENCES cases(id),
    reconstruction  jsonb,
    adjudication    jsonb
);
CREATE INDEX objections_game ON objections (game_id, created_at);

-- A result that has left 'proposed' (final, or superseded history) never changes (第十条).
CREATE FUNCTION shinpan_results_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR OLD.state <> 'proposed' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'SH010',
            MESSAGE = format('%s of result %s (state %s) rejected: a final result is never changed (第十条); a correction is a new linked result',
                             TG_OP, OLD.id, OLD.state);
    END IF;
    IF NEW.id <> OLD.id OR NEW.game_id <> OLD.game_id OR NEW.result <> OLD.result
       OR NEW.reason <> OLD.reason OR NEW.statuses <> OLD.statuses
       OR NEW.proposed_by <> OLD.proposed_by OR NEW.created_at <> OLD.created_at
       OR NEW.supersedes_result_id IS DISTINCT FROM OLD.supersedes_result_id
       OR NEW.corrects_result_id IS DISTINCT FROM OLD.corrects_result_id THEN
        RAISE EXCEPTION USING
            ERRCODE = 'SH010',
            MESSAGE = format('UPDATE of result %s rejected: a proposal is amended by a new proposal, not edited (第十条)', OLD.id);
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER results_immutable BEFORE UPDATE OR DELETE ON results
    FOR EACH ROW EXECUTE FUNCTION shinpan_results_guard();
CREATE TRIGGER results_no_truncate BEFORE TRUNCATE ON results
    FOR EACH STATEMENT EXECUTE FUNCTION shinpan_reject_change();

-- Confirmations are added only to a proposed result and never changed or removed.
CREATE FUNCTION shinpan_confirmations_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    st text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT state INTO st FROM results WHERE id = NEW.result_id;
        IF st IS DISTINCT FROM 'proposed' THEN
            RAISE EXCEPTION USING
                ERRCODE = 'SH010',
                MESSAGE = format('confirmation of result %s rejected: the result is %s, not proposed (第十条)',
                                 NEW.result_id, coalesce(st, 'missing'));
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'SH010',
        MESSAGE = format('%s of a confirmation of result %s rejected: confirmations are never changed (第十条)',
                         TG_OP, OLD.result_id);
END;
$$;
CREATE TRIGGER confirmations_guard BEFORE INSERT OR UPDATE OR DELETE ON confirmations
    FOR EACH ROW EXECUTE FUNCTION shinpan_confirmations_guard();
CREATE TRIGGER confirmations_no_truncate BEFORE TRUNCATE ON confirmations
    FOR EACH STATEMENT EXECUTE FUNCTION shinpan_reject_change();

-- Cases are never deleted; a closed case never changes; a ruling once given is never rewritten.
CREATE FUNCTION shinpan_cases_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION USING ERRCODE = 'SH010',
            MESSAGE = format('DELETE of case %s rejected: the arbiter record is kept (第十条)', OLD.id);
    END IF;
    IF OLD.state = 'closed' THEN
        RAISE EXCEPTION USING ERRCODE = 'SH010',
            MESSAGE = format('UPDATE of case %s rejected: the case is closed', OLD.id);
    END IF;
    IF OLD.ruling IS NOT NULL AND (NEW.ruling IS DISTINCT FROM OLD.ruling
            OR NEW.ruled_by IS DISTINCT FROM OLD.ruled_by OR NEW.ruled_at IS DISTINCT FROM OLD.ruled_at
            OR NEW.ruling_reason IS DISTINCT FROM OLD.ruling_reason) THEN
        RAISE EXCEPTION USING ERRCODE = 'SH010',
            MESSAGE = format('UPDATE of case %s rejected: its ruling is already given', OLD.id);
    END IF;
    IF NEW.id <> OLD.id OR NEW.game_id <> OLD.game_id OR NEW.kind <> OLD.kind
       OR NEW.opened_by <> OLD.opened_by OR NEW.opened_at <> OLD.opened_at THEN
        RAISE EXCEPTION USING ERRCODE = 'SH010',
            MESSAGE = format('UPDATE of case %s rejected: who opened it, when and why is kept', OLD.id);
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER cases_guard BEFORE UPDATE OR DELETE ON cases
    FOR EACH ROW EXECUTE FUNCTION shinpan_cases_guard();
CREATE TRIGGER cases_no_truncate BEFORE TRUNCATE ON cases
    FOR EACH STATEMENT EXECUTE FUNCTION shinpan_reject_change();

CREATE FUNCTION shinpan_objections_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR NEW.id <> OLD.id OR NEW.game_id <> OLD.game_id
       OR NEW.result_id IS DISTINCT FROM OLD.result_id OR NEW.role <> OLD.role OR NEW.who <> OLD.who
       OR NEW.reason <> OLD.reason OR NEW.created_at <> OLD.created_at OR NEW.case_id <> OLD.case_id THEN
        RAISE EXCEPTION USING ERRCODE = 'SH010',
            MESSAGE = format('%s of objection %s rejected: an objection is kept as made (第十条2)', TG_OP,
                             OLD.id);
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER objections_guard BEFORE UPDATE OR DELETE ON objections
    FOR EACH ROW EXECUTE FUNCTION shinpan_objections_guard();
