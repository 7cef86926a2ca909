//! Presence rows and the heartbeat (see [`store::presence`](crate::store::presence)): each
//! instance writes its own view of each game it holds live connections to, and announces it on
//! the channel `gomoku_presence` as "<instance> <game> <black> <white> <spectators> <seq>"
//! (black and white as 1 or 0), or "<instance> gone" when it leaves. A view with nobody connected
//! is kept a while (so a reader of the rows cannot take an older one for current), then swept by
//! its instance's heartbeat.

use std::sync::atomic::Ordering;
use std::time::Duration;

use sqlx::postgres::PgRow;
use sqlx::Row;

use super::Store;
use crate::store::presence::{Presence, PresenceNews, GONE_AFTER};
use crate::store::StoreError;

/// How often an instance proves it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(10);
/// An instance silent this long is deleted, with its presence rows.
const SWEEP_AFTER: Duration = Duration::from_secs(120);

/// Marks this instance alive now (making its row if it has none).
pub(super) const BEAT: &str = "insert into server_instances (id) values ($1) \
    on conflict (id) do update set seen_at = now()";

impl Store {
    pub(in crate::store) async fn publish_presence(
        &self,
        game_id: &str,
        presence: Presence,
    ) -> Result<(), StoreError> {
        let seq = self.presence_seq.fetch_add(1, Ordering::Relaxed) + 1;
        let news = format!(
            "{} {game_id} {} {} {} {seq}",
            self.instance,
            u8::from(presence.black),
            u8::from(presence.white),
            presence.spectators
        );
        let mut tx = self.pool.begin().await?;
        sqlx::query(BEAT)
            .bind(&*self.instance)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "insert into live_presence (instance, game_id, black, white, spectators, seq) \
             values ($1, $2, $3, $4, $5, $6) on conflict (instance, game_id) do update \
             set black = $3, white = $4, spectators = $5, seq = $6",
        )
        .bind(&*self.instance)
        .bind(game_id)
        .bind(presence.black)
        .bind(presence.white)
        .bind(i64::from(presence.spectators))
        .bind(seq)
        .execute(&mut *tx)
        .await?;
        sqlx::query("select pg_notify('gomoku_presence', $1)")
            .bind(&news)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub(in crate::store) async fn presence_elsewhere(
        &self,
    ) -> Result<Vec<PresenceNews>, StoreError> {
        let rows = sqlx::query(
            "select p.instance, p.game_id, p.black, p.white, p.spectators, p.seq \
             from live_presence p join server_instances i on i.id = p.instance \
             where p.instance <> $1 and i.seen_at > now() - make_interval(secs => $2)",
        )
        .bind(&*self.instance)
        .bind(GONE_AFTER.as_secs_f64())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(news_of).collect()
    }

    /// Deletes this instance's row (its presence rows go with it) and tells the others.
    pub(super) async fn leave(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("delete from server_instances where id = $1")
            .bind(&*self.instance)
            .execute(&mut *tx)
            .await?;
        sqlx::query("select pg_notify('gomoku_presence', $1)")
            .bind(format!("{} gone", self.instance))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// One heartbeat: this instance is alive; its views with nobody connected and instances long
    /// silent are swept.
    async fn beat(&self) -> Result<(), StoreError> {
        sqlx::query(BEAT)
            .bind(&*self.instance)
            .execute(&self.pool)
            .await?;
        sqlx::query(
            "delete from live_presence where instance = $1 \
             and not black and not white and spectators = 0",
        )
        .bind(&*self.instance)
        .execute(&self.pool)
        .await?;
        sqlx::query(
            "delete from server_instances where seen_at < now() - make_interval(secs => $1)",
        )
        .bind(SWEEP_AFTER.as_secs_f64())
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

fn news_of(r: &PgRow) -> Result<PresenceNews, StoreError> {
    let spectators: i32 = r.try_get(4)?;
    Ok(PresenceNews {
        instance: r.try_get(0)?,
        game_id: r.try_get(1)?,
        presence: Presence {
            black: r.try_get(2)?,
            white: r.try_get(3)?,
            spectators: u32::try_from(spectators).unwrap_or(0),
        },
        seq: r.try_get(5)?,
    })
}

/// The payload of a presence announcement: the news, or None for "<instance> gone" (and for
/// anything this version does not understand).
pub(super) fn parse(payload: &str) -> Option<PresenceNews> {
    let mut parts = payload.split(' ');
    let instance = parts.next()?.to_string();
    let game_id = parts.next()?.to_string();
    let flag = |part: Option<&str>| match part {
        Some("1") => Some(true),
        Some("0") => Some(false),
        _ => None,
    };
    let black = flag(parts.next())?;
    let white = flag(parts.next())?;
    let spectators = parts.next()?.parse().ok()?;
    let seq = parts.next()?.parse().ok()?;
    Some(PresenceNews {
        instance,
        game_id,
        presence: Presence {
            black,
            white,
            spectators,
        },
        seq,
    })
}

/// Beats every [`HEARTBEAT`] until the pool closes; after each beat the watchers read the
/// others' presence again (an instance that stopped beating drops out of it).
pub(super) async fn heartbeat(store: Store) {
    let mut tick = tokio::time::interval(HEARTBEAT);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if store.pool.is_closed() {
            return;
        }
        if let Err(e) = store.beat().await {
            tracing::warn!(error = %e, "heartbeat failed");
        }
        store.shared.watchers.recheck_presence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An announcement reads back as written; "gone" and garbage are not presence news.
    #[test]
    fn announcements() {
        let news = parse("i1 g1 1 0 3 7").unwrap();
        assert_eq!(
            (news.instance.as_str(), news.game_id.as_str()),
            ("i1", "g1")
        );
        assert_eq!(
            news.presence,
            Presence {
                black: true,
                white: false,
                spectators: 3
            }
        );
        assert_eq!(news.seq, 7);
        assert!(parse("i1 gone").is_none());
        assert!(parse("i1 g1 2 0 3 7").is_none());
        assert!(parse("").is_none());
    }
}
