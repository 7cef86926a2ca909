-- The service's tables: players and their sessions, games, and one row per move.
-- Games are rebuilt by replaying their moves through the rules; the status columns on `games`
-- mirror that replay so listings need not replay every game.

create table players (
    id text primary key not null,          -- opaque player id (uuid v4)
    wechat_openid text unique,             -- the WeChat user behind this player; null when anonymous
    created_at text not null               -- RFC 3339, UTC
);

create table sessions (
    token_hash blob primary key not null   -- sha-256 of the bearer token; the token itself is never stored
        check (length(token_hash) = 32),
    player_id text not null references players (id) on delete cascade, -- whose session
    created_at text not null               -- RFC 3339, UTC
) without rowid;

create table games (
    id text primary key not null,          -- opaque game id (uuid v4)
    player_id text not null references players (id) on delete cascade, -- owner
    mode text not null check (mode in ('local', 'ai')),                -- two humans on one device, or against the AI
    rule text not null check (rule in ('freestyle', 'standard', 'renju')),
    board_size integer not null check (board_size between 9 and 19),
    ai_level text check (ai_level in ('easy', 'medium', 'hard', 'master')), -- set in ai mode only
    ai_player integer check (ai_player in (1, 2)),                        -- the AI's colour, ai mode only
    status text not null default 'playing'
        check (status in ('playing', 'black_won', 'white_won', 'draw')),
    end_reason text check (end_reason in ('five', 'resign', 'board_full', 'no_five_possible')),
    win_line text,                         -- json [[row, col], ...] of the winning stones, or null
    resigned_by integer check (resigned_by in (1, 2)), -- the colour that resigned, if any
    move_count integer not null default 0 check (move_count >= 0), -- rows in moves for this game
    version integer not null default 0,    -- bumped by every write; guards optimistic updates
    created_at text not null,              -- RFC 3339, UTC
    updated_at text not null,              -- RFC 3339, UTC, fixed width so text order is time order
    finished_at text,                      -- when the game ended; null while playing
    check ((mode = 'ai') = (ai_level is not null and ai_player is not null)),
    check ((status = 'playing') = (end_reason is null))
);

-- The saved-games list: a player's games, newest activity first.
create index games_by_player_activity on games (player_id, updated_at desc, id desc);

create table moves (
    game_id text not null references games (id) on delete cascade,
    ply integer not null check (ply >= 0),  -- 0 for the first move
    row integer not null check (row between 0 and 18),
    col integer not null check (col between 0 and 18),
    player integer not null check (player = 1 + ply % 2), -- 1 black, 2 white: black plays the even plies
    played_at text not null,                -- RFC 3339, UTC
    primary key (game_id, ply)
) without rowid;
