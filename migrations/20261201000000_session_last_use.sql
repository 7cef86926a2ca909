-- Sessions end after an idle time, so each records when it was last used. The table is rebuilt
-- (nothing references it) because a new not-null column cannot be added in place without a
-- constant default.

create table sessions_new (
    token_hash blob primary key not null   -- sha-256 of the bearer token; the token itself is never stored
        check (length(token_hash) = 32),
    player_id text not null references players (id) on delete cascade, -- whose session
    created_at text not null,              -- RFC 3339, UTC
    last_used_at text not null             -- RFC 3339, UTC, fixed width; refreshed at most once a day
) without rowid;

-- Use was not recorded before this migration: every existing session counts as used now, so
-- none ends earlier than its idle time after the upgrade.
insert into sessions_new (token_hash, player_id, created_at, last_used_at)
    select token_hash, player_id, created_at, strftime('%Y-%m-%dT%H:%M:%S', 'now') || '.000000Z'
    from sessions;

drop table sessions;
alter table sessions_new rename to sessions;

-- The sweep of sessions past their idle time and renewal grace.
create index sessions_by_last_use on sessions (last_used_at);
