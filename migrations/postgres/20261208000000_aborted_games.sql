-- Aborted games (issue 26): a rated game in which a player does not make their first move in
-- time ends with no result at all, as status and end reason 'aborted' (it was stored as a draw
-- by agreement, and its replay and JSON record said so). And the ratings the players had when
-- they were paired, frozen in the rated game (they were read when the game was first shown).
alter table games drop constraint games_status_check;
alter table games add constraint games_status_check
    check (status in ('waiting', 'playing', 'black_won', 'white_won', 'draw', 'aborted'));
alter table games drop constraint games_end_reason_check;
alter table games add constraint games_end_reason_check
    check (end_reason in
        ('five', 'resign', 'board_full', 'no_five_possible', 'timeout', 'agreement', 'aborted'));
alter table games add constraint games_aborted_check
    check ((status = 'aborted') = (coalesce(end_reason, '') = 'aborted'));

-- The games aborted so far: ended as a draw agreed, marked aborted in rated_games.
update games set status = 'aborted', end_reason = 'aborted'
    where status = 'draw' and id in (select game_id from rated_games where result = 'aborted');

-- Each player's rating and deviation in the pool's family when the pairing made the game; null
-- for games paired before this migration (their players' records are read instead).
alter table rated_games
    add column black_rating double precision,
    add column black_rd double precision check (black_rd > 0),
    add column white_rating double precision,
    add column white_rd double precision check (white_rd > 0),
    add check ((black_rating is null) = (black_rd is null)
        and (black_rating is null) = (white_rating is null)
        and (black_rating is null) = (white_rd is null));
