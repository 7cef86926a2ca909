-- Offers that mean what they say (issue 23) and the rematch (issue 24): every pending offer
-- lapses at a stored instant, a finished online game may carry a rematch offer, and a rematch
-- once accepted names the game it created.
--
-- An offer pending at the upgrade has no expiry to give it, so it is withdrawn (the game's
-- version moves on, so a client holding it hears of the change); its player may offer again.
-- SQLite checks a new column's constraints against the rows already there, so this comes first.
update games set takeback_offer = null, draw_offer = null, version = version + 1
    where takeback_offer is not null or draw_offer is not null;

alter table games add column takeback_expires text -- RFC 3339, UTC: when the pending takeback offer lapses; set exactly while one is pending
    check ((takeback_expires is null) = (takeback_offer is null));
alter table games add column draw_expires text     -- RFC 3339, UTC: when the pending draw offer lapses; set exactly while one is pending
    check ((draw_expires is null) = (draw_offer is null));
alter table games add column rematch_offer integer -- the colour offering a rematch of this finished online game, if one is pending
    check (rematch_offer is null
        or (rematch_offer in (1, 2) and mode = 'online' and status not in ('waiting', 'playing')));
alter table games add column rematch_expires text  -- RFC 3339, UTC: when the pending rematch offer lapses; set exactly while one is pending
    check ((rematch_expires is null) = (rematch_offer is null));
alter table games add column rematch_game_id text -- the game an accepted rematch created; null before
    -- checked at commit: the rematch's one transaction names the new game, then inserts it
    references games (id) on delete set null deferrable initially deferred
    check (rematch_game_id is null or (mode = 'online' and status not in ('waiting', 'playing')));

-- Games whose pending offers must lapse on time, read at start to arm their timers (beside the
-- running clocks' index).
create index games_by_offer_expiry on games (id)
    where takeback_expires is not null or draw_expires is not null or rematch_expires is not null;
