-- The engine's line for each analysed move (issue 27): its principal variation from the position
-- before the move, so a review can step through the better continuation.

alter table analysis_moves add column line text; -- up to 6 plies in notation, space-separated, the engine's move first ('h8 i9 g7'); null for moves analysed before lines were kept
