-- Renewals (issue 23): a session renewed through `previousToken` leaves its token's hash here,
-- with the player it was renewed for, so that a second renewal naming the same token (sent at
-- the same time, or a retry whose answer was lost) gets that player again instead of a new one.
-- The token authenticates nothing any more; a row counts for a few minutes
-- (`store::players::RENEWAL_REPEATS_FOR`) and the hourly sweep deletes it after that.
create table session_renewals (
    token_hash blob primary key not null   -- sha-256 of the renewed token
        check (length(token_hash) = 32),
    player_id text not null references players (id) on delete cascade, -- whom it was renewed for
    renewed_at text not null               -- RFC 3339, UTC, fixed width
) without rowid;

-- The sweep of renewals past their time.
create index session_renewals_by_time on session_renewals (renewed_at);
