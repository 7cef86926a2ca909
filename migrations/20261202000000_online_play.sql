-- Online play (issue 12): games between two players on two phones, with seats, a time control
-- and a running clock, takeback and draw offers; display names for players; the mover's clock
-- per move.
--
-- The CHECK constraints of `games` change (mode 'online', status 'waiting', end reasons
-- 'timeout' and 'agreement'), which SQLite cannot alter in place, so the table is rebuilt by the
-- procedure SQLite documents (https://www.sqlite.org/lang_altertable.html, "making other kinds
-- of table schema changes"). Foreign keys must be off while `games` is dropped, or the drop
-- would delete every move through `moves`' cascade: the server runs its migrations with them
-- off (that PRAGMA has no effect inside the transaction sqlx runs a migration in) and checks
-- every reference afterwards (`Db::migrate`).
--
-- `resigned_by` goes: the status and end reason say who lost a resignation (or a flag fall).

create table games_new (
    id text primary key not null,          -- opaque game id (uuid v4)
    player_id text not null references players (id) on delete cascade, -- who made it: the owner of a local or ai game, the creator of an online one
    mode text not null check (mode in ('local', 'ai', 'online')), -- one device, against the AI, or two players on two devices
    rule text not null check (rule in ('freestyle', 'standard', 'renju')),
    board_size integer not null check (board_size between 9 and 19),
    ai_level text check (ai_level in ('easy', 'medium', 'hard', 'master')), -- set in ai mode only
    ai_player integer check (ai_player in (1, 2)),                        -- the AI's colour, ai mode only
    status text not null default 'playing'
        check (status in ('waiting', 'playing', 'black_won', 'white_won', 'draw')), -- waiting: an online game without its second player
    end_reason text check (end_reason in
        ('five', 'resign', 'board_full', 'no_five_possible', 'timeout', 'agreement')),
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
    check ((mode = 'ai') = (ai_level is not null and ai_player is not null)),
    check ((status in ('waiting', 'playing')) = (end_reason is null)),
    check (status <> 'waiting' or (mode = 'online' and move_count = 0)),
    check ((initial_ms is null) = (increment_ms is null)),
    check ((initial_ms is null) = (black_ms is null) and (initial_ms is null) = (white_ms is null)),
    check (deadline is null or (status = 'playing' and initial_ms is not null)),
    check (mode = 'online' or (initial_ms is null and takeback_offer is null and draw_offer is null))
);

insert into games_new (id, player_id, mode, rule, board_size, ai_level, ai_player, status,
        end_reason, win_line, to_move, move_count, version, created_at, updated_at, finished_at)
    select id, player_id, mode, rule, board_size, ai_level, ai_player, status,
        end_reason, win_line, to_move, move_count, version, created_at, updated_at, finished_at
    from games;

drop table games;
alter table games_new rename to games;

-- Running clocks, read at start to re-arm their timers.
create index games_by_deadline on games (deadline) where deadline is not null;

-- Who sits at a game: the owner of a local game (both colours: null), the person in an ai game
-- (their colour), each player of an online game (their colour). "The caller's games" are the
-- games where they have a seat.
create table seats (
    game_id text not null references games (id) on delete cascade,
    player_id text not null references players (id) on delete cascade,
    colour integer check (colour in (1, 2)), -- the colour they play; null: both (a local game)
    primary key (game_id, player_id)
) without rowid;

-- One player per colour.
create unique index seats_one_per_colour on seats (game_id, colour) where colour is not null;
-- A player's games (listing, the cap on unfinished games).
create index seats_by_player on seats (player_id, game_id);

insert into seats (game_id, player_id, colour)
    select id, player_id, case mode when 'ai' then 3 - ai_player end from games;

-- The mover's time left after a move (its increment included); null in untimed games.
alter table moves add column clock_ms integer check (clock_ms >= 0);

-- What the opponent sees: 1 to 16 characters. Existing players get the default a new player
-- gets, "棋手" and four digits.
alter table players add column name text not null default '棋手'
    check (length(name) between 1 and 16);
update players set name = '棋手' || substr('000' || (abs(random()) % 10000), -4);
