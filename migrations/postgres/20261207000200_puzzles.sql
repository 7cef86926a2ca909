-- Puzzles (残局, issue 26), as migrations/sqlite/20261207000200_puzzles.sql has it: each
-- player's puzzle rating and their attempts. The puzzles themselves are not stored here: they
-- are the engine's set (api/engine/data/puzzles.jsonl), compiled into the server, and named by
-- their stable ids ('f0001').

-- A player's puzzle rating (Glicko-2, apart from their game ratings), made by their first rated
-- attempt. No row: the initial 1500 ± 350.
create table puzzle_ratings (
    player_id text collate "C" primary key references players (id) on delete cascade,
    rating double precision not null,          -- Glicko-2 rating, on the 1500 scale
    rd double precision not null check (rd > 0), -- rating deviation; provisional while at least 110
    volatility double precision not null check (volatility > 0), -- Glicko-2 sigma
    solved integer not null check (solved >= 0), -- rated attempts solved
    failed integer not null check (failed >= 0), -- rated attempts failed
    updated_at text collate "C" not null       -- RFC 3339, UTC: the last rated attempt's end
);

-- A player's attempt at a puzzle: one row per player and puzzle, holding the current attempt
-- (a retry starts it again in the same row). Only the first attempt is rated.
create table puzzle_attempts (
    player_id text collate "C" not null references players (id) on delete cascade,
    puzzle_id text collate "C" not null,       -- the puzzle's id in the set ('r0042')
    moves text collate "C" not null,           -- the attempt's moves after the puzzle's position, both sides, in notation, space-separated ('e8 d9 f9')
    status text not null check (status in ('playing', 'solved', 'failed')),
    rated integer not null check (rated in (0, 1)), -- 1: the first attempt, which moves the puzzle rating; 0: practice
    tries integer not null check (tries >= 1), -- attempts made at this puzzle, this one included
    started_at text collate "C" not null,      -- RFC 3339, UTC: when this attempt's first move was played
    ended_at text collate "C",                 -- RFC 3339, UTC: when it was solved or failed; null while playing
    rating_before double precision,            -- the player's puzzle rating before a rated attempt ended; null otherwise
    rating_after double precision,             -- and after it
    primary key (player_id, puzzle_id),
    check ((status = 'playing') = (ended_at is null)),
    check ((rating_before is null) = (rating_after is null)),
    check (rating_before is null or (rated = 1 and status <> 'playing'))
);

-- A player's attempts, least recently started first (the next puzzle when every one was tried).
create index puzzle_attempts_by_player on puzzle_attempts (player_id, started_at);
