-- Changes of games are announced by the server that made them, after their commit
-- (api/src/store/postgres/announce.rs), no longer by a trigger inside it (issue 25). A
-- transaction that has queued a NOTIFY holds a lock shared by the whole cluster from just before
-- its commit until its commit record is flushed, so with the trigger every write of a game, from
-- any instance, waited for the flushes of the others one at a time. The payloads on the channel
-- `gomoku_games` stay as the trigger wrote them.
drop trigger games_notify on games;
drop function games_notify();
