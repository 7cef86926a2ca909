-- The service's tables on PostgreSQL, at the schema SQLite reached with its migrations up to
-- online play (migrations/sqlite/), plus what only several server instances need: the news of
-- every committed change of a game (a trigger that NOTIFYs), and who holds live connections where
-- (each instance's presence, with a heartbeat).
--
-- Times are stored as SQLite stores them: RFC 3339 text in UTC with exactly six fractional digits
-- (`2026-12-03T10:00:00.000000Z`), fixed width, so that text order is time order. Both backends
-- then share one stored form, one row mapping and one listing cursor (a text bound). Such columns
-- and the ids they are sorted with are `collate "C"`, so that order is byte order whatever the
-- database's locale. Only the heartbeat is a `timestamptz`: it is stamped and compared by the
-- database's own clock, so the instances' clocks need not agree.

create table players (
    id text collate "C" primary key,           -- opaque player id (uuid v4)
    wechat_openid text unique,                 -- the WeChat user behind this player; null when anonymous
    name text not null check (char_length(name) between 1 and 16), -- what the opponent sees
    created_at text collate "C" not null       -- RFC 3339, UTC
);

create table sessions (
    token_hash bytea primary key check (length(token_hash) = 32), -- sha-256 of the bearer token; the token itself is never stored
    player_id text collate "C" not null references players (id) on delete cascade, -- whose session
    created_at text collate "C" not null,      -- RFC 3339, UTC
    last_used_at text collate "C" not null     -- RFC 3339, UTC, fixed width; refreshed at most once a day
);

-- The sweep of sessions past their idle time and renewal grace.
create index sessions_by_last_use on sessions (last_used_at);

create table games (
    id text collate "C" primary key,           -- opaque game id (uuid v4)
    player_id text collate "C" not null references players (id) on delete cascade, -- who made it: the owner of a local or ai game, the creator of an online one
    mode text not null check (mode in ('local', 'ai', 'online')), -- one device, against the AI, or two players on two devices
    rule text not null check (rule in ('freestyle', 'standard', 'renju')),
    board_size integer not null check (board_size between 9 and 19),
    ai_level text check (ai_level in ('easy', 'medium', 'hard', 'master')), -- set in ai mode only
    ai_player integer check (ai_player in (1, 2)),                        -- the AI's colour, ai mode only
    status text not null default 'playing'
        check (status in ('waiting', 'playing', 'black_won', 'white_won', 'draw')), -- waiting: an online game without its second player
    end_reason text check (end_reason in
        ('five', 'resign', 'board_full', 'no_five_possible', 'timeout', 'agreement')),
    win_line text,                             -- json [[row, col], ...] of the winning stones, or null
    to_move integer check (to_move in (1, 2)), -- the side to move; null once the game is over
    move_count integer not null default 0 check (move_count >= 0), -- rows in moves for this game
    version bigint not null default 0,         -- bumped by every write; guards optimistic updates
    created_at text collate "C" not null,      -- RFC 3339, UTC
    updated_at text collate "C" not null,      -- RFC 3339, UTC, fixed width so text order is time order
    finished_at text collate "C",              -- when the game ended (a flag fall: its deadline); null while open
    initial_ms bigint check (initial_ms between 1000 and 86400000), -- time control: each side's time at the start; null when untimed
    increment_ms bigint check (increment_ms between 0 and 60000),   -- time control: added to the mover's clock by each move
    black_ms bigint check (black_ms >= 0),     -- black's time left when the current turn began (timed games)
    white_ms bigint check (white_ms >= 0),     -- white's time left when the current turn began (timed games)
    deadline text collate "C",                 -- RFC 3339, UTC: when the running clock's flag falls; null while no clock runs
    takeback_offer integer check (takeback_offer in (1, 2)), -- the colour offering a takeback, if one is pending
    draw_offer integer check (draw_offer in (1, 2)),         -- the colour offering a draw, if one is pending
    check ((mode = 'ai') = (ai_level is not null and ai_player is not null)),
    check ((status in ('waiting', 'playing')) = (end_reason is null)),
    check (status <> 'waiting' or (mode = 'online' and move_count = 0)),
    check ((initial_ms is null) = (increment_ms is null)),
    check ((initial_ms is null) = (black_ms is null) and (initial_ms is null) = (white_ms is null)),
    check (deadline is null or (status = 'playing' and initial_ms is not null)),
    check (mode = 'online' or (initial_ms is null and takeback_offer is null and draw_offer is null))
);

-- Running clocks, read at start to re-arm their timers.
create index games_by_deadline on games (deadline) where deadline is not null;

create table moves (
    game_id text collate "C" not null references games (id) on delete cascade,
    ply integer not null check (ply >= 0),     -- 0 for the first move
    "row" integer not null check ("row" between 0 and 18),
    col integer not null check (col between 0 and 18),
    player integer not null check (player = 1 + ply % 2), -- 1 black, 2 white: black plays the even plies
    played_at text collate "C" not null,       -- RFC 3339, UTC
    clock_ms bigint check (clock_ms >= 0),     -- the mover's time left after the move (its increment included); null in untimed games
    primary key (game_id, ply)
);

-- Who sits at a game: the owner of a local game (both colours: null), the person in an ai game
-- (their colour), each player of an online game (their colour). "The caller's games" are the
-- games where they have a seat.
create table seats (
    game_id text collate "C" not null references games (id) on delete cascade,
    player_id text collate "C" not null references players (id) on delete cascade,
    colour integer check (colour in (1, 2)),   -- the colour they play; null: both (a local game)
    primary key (game_id, player_id)
);

-- One player per colour.
create unique index seats_one_per_colour on seats (game_id, colour) where colour is not null;
-- A player's games (listing, the cap on unfinished games).
create index seats_by_player on seats (player_id, game_id);

-- Every committed change of a game is announced on the channel `gomoku_games`, to every server
-- instance that listens (NOTIFY is delivered at commit, in commit order, and not at all on a
-- rollback): "<id> <version> <deadline or ->" for a new or changed game, "<id> deleted" for a
-- deleted one. The deadline lets an instance arm its flag timer without reading the game.
-- Being a trigger, no write can forget it.
create function games_notify() returns trigger language plpgsql as $$
begin
    if tg_op = 'DELETE' then
        perform pg_notify('gomoku_games', old.id || ' deleted');
    else
        perform pg_notify('gomoku_games',
            new.id || ' ' || new.version || ' ' || coalesce(new.deadline, '-'));
    end if;
    return null;
end;
$$;

create trigger games_notify after insert or update or delete on games
    for each row execute function games_notify();

-- The server instances now running on this database, each stamped by its heartbeat; one not
-- seen for a while is gone (killed), and its presence rows with it.
create table server_instances (
    id text collate "C" primary key,           -- random per process start (uuid v4)
    seen_at timestamptz not null default now() -- the last heartbeat, by the database's clock
);

-- Who each instance's live connections to a game are: whether the black and the white player
-- are connected there, and how many spectators' connections it holds. A game's presence is the
-- union over the live instances. Written (and announced on `gomoku_presence`) by the instance
-- whenever its own view changes; `seq` orders one instance's writes.
create table live_presence (
    instance text collate "C" not null references server_instances (id) on delete cascade,
    game_id text collate "C" not null,         -- no reference: a deleted game's row goes when its sockets do
    black boolean not null,                    -- the black player has a live connection on this instance
    white boolean not null,                    -- the white player has a live connection on this instance
    spectators integer not null check (spectators >= 0), -- other viewers' connections on this instance
    seq bigint not null,                       -- the instance's count of presence writes when this one was made
    primary key (instance, game_id)
);
