-- Aborted games (issue 26): a rated game in which a player does not make their first move in
-- time ends with no result at all, as status and end reason 'aborted' (it was stored as a draw
-- by agreement, and its replay and JSON record said so). And the ratings the players had when
-- they were paired, frozen in the rated game (they were read when the game was first shown).
--
-- The CHECK constraints of `games` change, which SQLite cannot alter in place: the table is
-- rebuilt as 20261202000000_online_play.sql did it (the server runs migrations with foreign keys
-- off, so dropping `games` cascades to nothing, and checks every reference afterwards). The
-- columns that later migrations added are written out in place, with their checks.

create table games_new (
    id text primary key not null,          -- opaque game id (uuid v4)
    player_id text not null references players (id) on delete cascade, -- who made it: the owner of a local or ai game, the creator of an online one
    mode text not null check (mode in ('local', 'ai', 'online')), -- one device, against the AI, or two players on two devices
    rule text not null check (rule in ('freestyle', 'standard', 'renju')),
    board_size integer not null check (board_size between 9 and 19),
    ai_level text check (ai_level in ('easy', 'medium', 'hard', 'master')), -- set in ai mode only
    ai_player integer check (ai_player in (1, 2)),                        -- the AI's colour, ai mode only
    status text not null default 'playing'
        check (status in ('waiting', 'playing', 'black_won', 'white_won', 'draw', 'aborted')), -- waiting: an online game without its second player; aborted: a rated game called off before both players moved
    end_reason text check (end_reason in
        ('five', 'resign', 'board_full', 'no_five_possible', 'timeout', 'agreement', 'aborted')),
    win_line text,                         -- json [[row, col], ...] of the winning stones, or null
    to_move integer check (to_move in (1, 2)), -- the side to move; null once the game is over
    move_count integer not null default 0 check (move_count >= 0), -- rows in moves for this game
    version integer not null default 0,    -- bumped by every write; guards optimistic updates
    created_at text not null,              -- RFC 3339, UTC
    updated_at text not null,              -- RFC 3339, UTC, fixed width so text order is time order
    finished_at text,                      -- when the game ended (a flag fall: its deadline); null while open
    initial_ms integer check (initial_ms between 1000 and 86400000), -- time control: each side's time at the start; null when untimed
    increment_ms integer check (increment_ms between 0 and 60000),   -- time control: added to the mover's clock by each move
    black_ms integer check (black_ms >= 0), -- black's time left when the current turn began (timed games)
    white_ms integer check (white_ms >= 0), -- white's time left when the current turn began (timed games)
    deadline text,                         -- RFC 3339, UTC: when the running clock's flag falls; null while no clock runs
    takeback_offer integer check (takeback_offer in (1, 2)), -- the colour offering a takeback, if one is pending
    draw_offer integer check (draw_offer in (1, 2)),         -- the colour offering a draw, if one is pending
    takeback_expires text,                 -- RFC 3339, UTC: when the pending takeback offer lapses; set exactly while one is pending
    draw_expires text,                     -- RFC 3339, UTC: when the pending draw offer lapses; set exactly while one is pending
    rematch_offer integer,                 -- the colour offering a rematch of this finished online game, if one is pending
    rematch_expires text,                  -- RFC 3339, UTC: when the pending rematch offer lapses; set exactly while one is pending
    -- the game an accepted rematch created; null before. Checked at commit: the rematch's one
    -- transaction names the new game, then inserts it
    rematch_game_id text references games (id) on delete set null deferrable initially deferred,
    opening text check (opening in ('swap2', 'taraguchi10')), -- the opening rule; null: the game starts with black's first move
    opening_steps text,                    -- JSON list of the steps taken, in order, each with its seat ("first"/"second"); set exactly when `opening` is
    check ((mode = 'ai') = (ai_level is not null and ai_player is not null)),
    check ((status in ('waiting', 'playing')) = (end_reason is null)),
    check ((status = 'aborted') = (coalesce(end_reason, '') = 'aborted')),
    check (status <> 'waiting' or (mode = 'online' and move_count = 0)),
    check ((initial_ms is null) = (increment_ms is null)),
    check ((initial_ms is null) = (black_ms is null) and (initial_ms is null) = (white_ms is null)),
    check (deadline is null or (status = 'playing' and initial_ms is not null)),
    check (mode = 'online' or (initial_ms is null and takeback_offer is null and draw_offer is null)),
    check ((takeback_expires is null) = (takeback_offer is null)),
    check ((draw_expires is null) = (draw_offer is null)),
    check (rematch_offer is null
        or (rematch_offer in (1, 2) and mode = 'online' and status not in ('waiting', 'playing'))),
    check ((rematch_expires is null) = (rematch_offer is null)),
    check (rematch_game_id is null or (mode = 'online' and status not in ('waiting', 'playing'))),
    check ((opening is null) = (opening_steps is null))
);

-- The games aborted so far ended as a draw agreed, marked aborted in rated_games.
insert into games_new (id, player_id, mode, rule, board_size, ai_level, ai_player, status,
        end_reason, win_line, to_move, move_count, version, created_at, updated_at, finished_at,
        initial_ms, increment_ms, black_ms, white_ms, deadline, takeback_offer, draw_offer,
        takeback_expires, draw_expires, rematch_offer, rematch_expires, rematch_game_id, opening,
        opening_steps)
    select id, player_id, mode, rule, board_size, ai_level, ai_player,
        case when status = 'draw' and id in (select game_id from rated_games where result = 'aborted')
            then 'aborted' else status end,
        case when status = 'draw' and id in (select game_id from rated_games where result = 'aborted')
            then 'aborted' else end_reason end,
        win_line, to_move, move_count, version, created_at, updated_at, finished_at,
        initial_ms, increment_ms, black_ms, white_ms, deadline, takeback_offer, draw_offer,
        takeback_expires, draw_expires, rematch_offer, rematch_expires, rematch_game_id, opening,
        opening_steps
    from games;

drop table games;
alter table games_new rename to games;

-- Running clocks, read at start to re-arm their timers.
create index games_by_deadline on games (deadline) where deadline is not null;
-- Pending offers, read at start to re-arm their lapses.
create index games_by_offer_expiry on games (id)
    where takeback_expires is not null or draw_expires is not null or rematch_expires is not null;

-- Each player's rating and deviation in the pool's family when the pairing made the game; null
-- for games paired before this migration (their players' records are read instead).
alter table rated_games add column black_rating real;
alter table rated_games add column black_rd real check (black_rd > 0);
alter table rated_games add column white_rating real;
alter table rated_games add column white_rd real check (white_rd > 0);
