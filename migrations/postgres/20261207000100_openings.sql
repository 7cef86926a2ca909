-- Opening rules (issue 26), as migrations/sqlite/20261207000100_openings.sql has it: an online
-- or ai game may start with swap2 or Taraguchi-10. The opening's stones are ordinary `moves`;
-- what else it decided (choices, Taraguchi's offer) is `opening_steps`.
--
-- `seats.colour` and `ai_player` of a game with an opening keep the colours its seats start
-- with (the first seat at black); the colours after the swaps follow from the steps and are
-- applied when the game is loaded, so a swap writes only `opening_steps`, never a seat.
alter table games
    add column opening text check (opening in ('swap2', 'taraguchi10')), -- the opening rule; null: the game starts with black's first move
    add column opening_steps text, -- JSON list of the steps taken, in order, each with its seat ("first"/"second"); set exactly when `opening` is
    add check ((opening is null) = (opening_steps is null));
