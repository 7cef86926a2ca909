-- Rated play (issue 26), as migrations/sqlite/20261206000100_ratings.sql has it: Glicko-2
-- ratings per player and rule family, which games are rated and what each changed, the
-- matchmaking pool's seeks, and the aborts that make a player wait. Plus what only several
-- server instances need: which instance holds each seek, so that the seeks of an instance that
-- stopped beating (killed) drop out of the pool with its heartbeat.

-- A player's rating in one family ('gomoku': freestyle and standard; 'renju'), made by their
-- first rated result in it. No row: the initial 1500 ± 350.
create table ratings (
    player_id text collate "C" not null references players (id) on delete cascade,
    family text not null check (family in ('gomoku', 'renju')), -- the rule family rated
    rating double precision not null,          -- Glicko-2 rating, on the 1500 scale
    rd double precision not null check (rd > 0), -- rating deviation; provisional while at least 110
    volatility double precision not null check (volatility > 0), -- Glicko-2 sigma
    games integer not null check (games >= 0),   -- rated games played in the family
    wins integer not null check (wins >= 0),     -- of which won
    losses integer not null check (losses >= 0), -- of which lost
    draws integer not null check (draws >= 0),   -- of which drawn
    updated_at text collate "C" not null,      -- RFC 3339, UTC: the last rated result
    primary key (player_id, family),
    check (wins + losses + draws = games)
);

-- The leaderboard: a family's ratings, highest first.
create index ratings_by_family_rating on ratings (family, rating desc);

-- The rated games: a row makes a game rated (a pairing from the pool creates it with the game).
-- Its result is written once, by whichever request (of any instance) settles the game first.
create table rated_games (
    game_id text collate "C" primary key references games (id) on delete cascade,
    family text not null check (family in ('gomoku', 'renju')), -- the family its result counts in
    pool text not null,                        -- the pool it was paired in ('standard/3+2')
    result text check (result in ('black', 'white', 'draw', 'aborted')), -- who won; aborted: unrated (no first moves); null until settled
    settled_at text collate "C",               -- RFC 3339, UTC: when the result was applied; null until then
    check ((result is null) = (settled_at is null))
);

-- What a rated result did to each player: one row per player of a settled (not aborted) game,
-- for "+12 / −9" in the result and a player's recent results.
create table rating_changes (
    game_id text collate "C" not null references games (id) on delete cascade,
    player_id text collate "C" not null references players (id) on delete cascade,
    family text not null check (family in ('gomoku', 'renju')),
    colour integer not null check (colour in (1, 2)), -- the colour they played
    opponent_id text collate "C" not null references players (id) on delete cascade,
    score text not null check (score in ('win', 'loss', 'draw')), -- their result
    rating_before double precision not null,   -- their rating before the game
    rd_before double precision not null,       -- their deviation before the game
    rating_after double precision not null,    -- their rating after it
    rd_after double precision not null,        -- their deviation after it
    at text collate "C" not null,              -- RFC 3339, UTC: when it was applied
    primary key (game_id, player_id)
);

-- A player's recent results, newest first (and their last colour, for the pairing's colours).
create index rating_changes_by_player on rating_changes (player_id, family, at desc);

-- Players waiting in a matchmaking pool: one seek per player, held by the instance that took
-- it. A seek counts while its instance beats; a killed instance's seeks are passed over after
-- `store::presence::GONE_AFTER`, replaced by the player's next seek, and deleted with the
-- instance's row when the heartbeats sweep it.
create table seeks (
    player_id text collate "C" primary key references players (id) on delete cascade, -- one seek per player
    id text collate "C" unique not null,       -- the seek's own id (uuid v4): a pairing claims this seek, not a later one
    pool text not null check (pool in ('freestyle/1+0', 'freestyle/3+2', 'freestyle/10+5',
        'standard/1+0', 'standard/3+2', 'standard/10+5', 'renju/10+5')), -- rule and time control
    rating double precision not null,          -- the player's rating in the pool's family when they sought
    rd double precision not null check (rd > 0), -- and its deviation
    last_colour integer check (last_colour in (1, 2)), -- their colour in their last rated game of the family; null: none
    aborts integer not null check (aborts >= 0), -- games they aborted lately (the penalty's count)
    since text collate "C" not null,           -- RFC 3339, UTC: when they began to seek
    instance text collate "C" not null references server_instances (id) on delete cascade -- the instance holding it
);

-- A pool's seeks.
create index seeks_by_pool on seeks (pool, since);

-- Rated games a player aborted (no first move in time): lately many, and they wait longer in
-- the pool. Kept for the look-back only (a day).
create table aborts (
    player_id text collate "C" not null references players (id) on delete cascade, -- who did not move
    game_id text collate "C" not null,         -- the aborted game (no reference: it may be deleted)
    at text collate "C" not null,              -- RFC 3339, UTC
    primary key (player_id, game_id)
);

-- A player's recent aborts.
create index aborts_by_player on aborts (player_id, at);
