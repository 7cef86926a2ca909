-- Post-game analysis (issue 15): per game, one analysis and one row per analysed move.
--
-- An analysis covers the game's moves from the first on. Each move's row keeps the move it
-- judged, so after an undo the rows that still match the game's moves are reused and the rest
-- are analysed again. Rows are written in ply order, one at a time, as the engine finishes them,
-- so a restart loses at most the move being analysed.

create table analyses (
    game_id text primary key not null references games (id) on delete cascade,
    requested_by text not null references players (id) on delete cascade, -- who asked for the running work (one running analysis per player)
    move_count integer not null check (move_count >= 0), -- the game's moves when it was last asked for: it covers plies 0 .. move_count - 1
    status text not null check (status in ('running', 'done')), -- running: the server is still working on it (resumed on start)
    created_at text not null,              -- RFC 3339, UTC
    updated_at text not null               -- RFC 3339, UTC: the last change of status or target
);

-- A player runs one analysis at a time.
create unique index analyses_one_running_per_player on analyses (requested_by)
    where status = 'running';

create table analysis_moves (
    game_id text not null references analyses (game_id) on delete cascade,
    ply integer not null check (ply >= 0),  -- 0 for the first move
    row integer not null check (row between 0 and 18), -- the move judged (still the game's move at this ply?)
    col integer not null check (col between 0 and 18),
    eval real not null check (eval between 0 and 1),      -- black's win probability after the move
    best_row integer not null check (best_row between 0 and 18), -- the engine's move for the mover
    best_col integer not null check (best_col between 0 and 18),
    best_eval real not null check (best_eval between 0 and 1), -- black's win probability after the engine's move
    mark text check (mark in
        ('inaccuracy', 'mistake', 'blunder', 'only_move', 'winning_threat_missed')), -- null: unmarked
    primary key (game_id, ply)
) without rowid;
