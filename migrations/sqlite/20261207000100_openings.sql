-- Opening rules (issue 26): an online or ai game may start with swap2 or Taraguchi-10, in which
-- the two players negotiate the first stones and the colours. The stones placed in the opening
-- are ordinary rows of `moves` (black first, alternating), so the board and the move history
-- show them; what else the opening decided (the choices, Taraguchi's offer) is `opening_steps`.
--
-- `seats.colour` and `ai_player` of a game with an opening keep the colours its seats start
-- with (the first seat at black: the creator of an online game, the person or the AI as the
-- request said). The colours after the swaps follow from the steps and are applied when the game
-- is loaded, so a swap writes only `opening_steps`, never a seat (whose colours are unique per
-- game and could not be exchanged row by row).
alter table games add column opening text
    check (opening in ('swap2', 'taraguchi10')); -- the opening rule; null: the game starts with black's first move
alter table games add column opening_steps text; -- JSON list of the steps taken, in order, each with its seat ("first"/"second"); set exactly when `opening` is
