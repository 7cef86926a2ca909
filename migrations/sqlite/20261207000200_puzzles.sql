-- Puzzles (残局, issue 26): each player's puzzle rating and their attempts. The puzzles
-- themselves are not stored here: they are the engine's set (api/engine/data/puzzles.jsonl),
-- compiled into the server, and named by their stable ids ('f0001').

-- A player's puzzle rating (Glicko-2, apart from their game ratings), made by their first rated
-- attempt. No row: the initial 1500 ± 350.
create table puzzle_ratings (
    player_id text primary key not null references players (id) on delete cascade,
    rating real not null,                  -- Glicko-2 rating, on the 1500 scale
    rd real not null check (rd > 0),       -- rating deviation; provisional while at least 110
    volatility real not null check (volatility > 0), -- Glicko-2 sigma
    solved integer not null check (solved >= 0), -- rated attempts solved
    failed integer not null check (failed >= 0), -- rated attempts failed
    updated_at text not null               -- RFC 3339, UTC: the last rated attempt's end
) without rowid;

-- A player's attempt at a puzzle: one row per player and puzzle, holding the current attempt
-- (a retry starts it again in the same row). Only the first attempt is rated.
create table puzzle_attempts (
    player_id text not null references players (id) on delete cascade,
    puzzle_id text not null,               -- the puzzle's id in the set ('r0042')
    moves text not null,                   -- the attempt's moves after the puzzle's position, both sides, in notation, space-separated ('e8 d9 f9')
    status text not null check (status in ('playing', 'solved', 'failed')),
    rated integer not null check (rated in (0, 1)), -- 1: the first attempt, which moves the puzzle rating; 0: practice
    tries integer not null check (tries >= 1), -- attempts made at this puzzle, this one included
    started_at text not null,              -- RFC 3339, UTC: when this attempt's first move was played
    ended_at text,                         -- RFC 3339, UTC: when it was solved or failed; null while playing
    rating_before real,                    -- the player's puzzle rating before a rated attempt ended; null otherwise
    rating_after real,                     -- and after it
    primary key (player_id, puzzle_id),
    check ((status = 'playing') = (ended_at is null)),
    check ((rating_before is null) = (rating_after is null)),
    check (rating_before is null or (rated = 1 and status <> 'playing'))
) without rowid;

-- A player's attempts, least recently started first (the next puzzle when every one was tried).
create index puzzle_attempts_by_player on puzzle_attempts (player_id, started_at);
