-- Offers that mean what they say (issue 23) and the rematch (issue 24), as
-- migrations/sqlite/20261205000000_offers.sql has it: every pending offer lapses at a stored
-- instant, a finished online game may carry a rematch offer, and a rematch once accepted names
-- the game it created. Plus the news: its timer instant is now the earlier of the flag fall and
-- the first offer to lapse, so that every instance arms a timer that ends the offer on time.
--
-- An offer pending at the upgrade has no expiry to give it, so it is withdrawn (the game's
-- version moves on, so a client holding it hears of the change); its player may offer again.
update games set takeback_offer = null, draw_offer = null, version = version + 1
    where takeback_offer is not null or draw_offer is not null;

alter table games
    add column takeback_expires text collate "C", -- RFC 3339, UTC: when the pending takeback offer lapses; set exactly while one is pending
    add column draw_expires text collate "C",     -- RFC 3339, UTC: when the pending draw offer lapses; set exactly while one is pending
    add column rematch_offer integer check (rematch_offer in (1, 2)), -- the colour offering a rematch of this finished online game, if one is pending
    add column rematch_expires text collate "C",  -- RFC 3339, UTC: when the pending rematch offer lapses; set exactly while one is pending
    -- the game an accepted rematch created; null before. Checked at commit: the rematch's one
    -- transaction names the new game, then inserts it.
    add column rematch_game_id text collate "C" references games (id) on delete set null
        deferrable initially deferred,
    add check ((takeback_expires is null) = (takeback_offer is null)),
    add check ((draw_expires is null) = (draw_offer is null)),
    add check ((rematch_expires is null) = (rematch_offer is null)),
    add check ((rematch_offer is null and rematch_game_id is null)
        or (mode = 'online' and status not in ('waiting', 'playing')));

-- Games whose pending offers must lapse on time, read at start to arm their timers (beside the
-- running clocks' index).
create index games_by_offer_expiry on games (id)
    where takeback_expires is not null or draw_expires is not null or rematch_expires is not null;

-- "<id> <version> <instant or ->": the instant is when the game next needs a timer, its flag
-- fall or the first of its offers to lapse (text order is time order; least() skips nulls).
create or replace function games_notify() returns trigger language plpgsql as $$
begin
    if tg_op = 'DELETE' then
        perform pg_notify('gomoku_games', old.id || ' deleted');
    else
        perform pg_notify('gomoku_games', new.id || ' ' || new.version || ' '
            || coalesce(least(new.deadline, new.takeback_expires, new.draw_expires,
                new.rematch_expires), '-'));
    end if;
    return null;
end;
$$;
