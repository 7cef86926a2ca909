-- The side to move as the rules said it at the last write, so a listing shows it without
-- replaying the game (like the other status columns). Null once the game is over.

alter table games add column to_move integer check (to_move in (1, 2));

-- Games written before this column: black plays the even plies, so the side to move of an
-- unfinished game follows from its move count (the moves table holds the same rule).
update games set to_move = 1 + move_count % 2 where status = 'playing';
