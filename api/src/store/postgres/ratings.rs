//! Ratings' SQL on PostgreSQL (see [`store::ratings`](crate::store::ratings)). A settlement is
//! one transaction that first locks the game's `rated_games` row (a second settlement of the same
//! game, from any instance, waits, then finds it settled), then both players' rating rows in
//! player order (two games of one player settle one after the other, and never wait for each
//! other in a circle).

use gomoku_rules::Stone;
use sqlx::PgConnection;

use super::Store;
use crate::ratings::{Family, Rating, PROVISIONAL_RD, RATED_FROM_MOVES};
use crate::store::games::rows::{stone_value, Columns};
use crate::store::ratings::{
    changes_of, leader_of, parse, rated_game_of, rating_of, recent_of, record_of, result_text,
    tally, Leader, Profile, RatedGame, Settled, Settlement, CHANGES_SQL, INSERT_CHANGE,
    LEADERBOARD_SQL, RATED_GAME_COLUMNS, RATING_SQL, RECENT_SQL, RECORDS_SQL, UNSETTLED_SQL,
    UPSERT_RATING,
};
use crate::store::StoreError;

impl Store {
    pub(in crate::store) async fn settle(
        &self,
        game_id: &str,
        winner: Option<Stone>,
        at: String,
    ) -> Result<Settled, StoreError> {
        let mut tx = self.pool.begin().await?;
        let settled = settle_in(&mut tx, game_id, winner, &at).await?;
        if settled != Settled::Untouched {
            tx.commit().await?;
        }
        Ok(settled)
    }

    pub(in crate::store) async fn abort_rated(
        &self,
        game_id: &str,
        player_id: &str,
        at: String,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(
            "update rated_games set result = 'aborted', settled_at = $1 \
             where game_id = $2 and result is null",
        )
        .bind(&at)
        .bind(game_id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Ok(false);
        }
        sqlx::query(
            "insert into aborts (player_id, game_id, at) values ($1, $2, $3) \
             on conflict do nothing",
        )
        .bind(player_id)
        .bind(game_id)
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    pub(in crate::store) async fn rated_game(
        &self,
        game_id: &str,
    ) -> Result<Option<RatedGame>, StoreError> {
        // One snapshot: the result and its changes are committed together.
        let mut tx = self.pool.begin().await?;
        sqlx::query("set transaction isolation level repeatable read, read only")
            .execute(&mut *tx)
            .await?;
        let sql = format!("select {RATED_GAME_COLUMNS} from rated_games where game_id = $1");
        let row = sqlx::query(&sql)
            .bind(game_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let changes = sqlx::query(CHANGES_SQL)
            .bind(game_id)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        let changes = changes_of(&changes, game_id)?;
        Ok(Some(rated_game_of(&row, game_id, &changes)?))
    }

    pub(in crate::store) async fn unsettled(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(UNSETTLED_SQL)
            .fetch_all(&self.pool)
            .await?)
    }

    pub(in crate::store) async fn leaderboard(
        &self,
        family: Family,
        limit: usize,
    ) -> Result<Vec<Leader>, StoreError> {
        let rows = sqlx::query(LEADERBOARD_SQL)
            .bind(family.as_str())
            .bind(PROVISIONAL_RD)
            .bind(limit as i64)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(leader_of).collect()
    }

    pub(in crate::store) async fn profile(
        &self,
        player_id: &str,
        recent: usize,
    ) -> Result<Option<Profile>, StoreError> {
        // One snapshot: the records and the results agree.
        let mut tx = self.pool.begin().await?;
        sqlx::query("set transaction isolation level repeatable read, read only")
            .execute(&mut *tx)
            .await?;
        let name: Option<String> = sqlx::query_scalar("select name from players where id = $1")
            .bind(player_id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(name) = name else {
            return Ok(None);
        };
        let records = sqlx::query(RECORDS_SQL)
            .bind(player_id)
            .fetch_all(&mut *tx)
            .await?;
        let results = sqlx::query(RECENT_SQL)
            .bind(player_id)
            .bind(recent as i64)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(Profile {
            player_id: player_id.to_string(),
            name,
            records: records
                .iter()
                .map(|r| record_of(r, player_id))
                .collect::<Result<_, _>>()?,
            recent: results
                .iter()
                .map(|r| recent_of(r, player_id))
                .collect::<Result<_, _>>()?,
        }))
    }
}

/// The settlement of a game inside its transaction, which the caller commits unless the answer
/// is [`Settled::Untouched`].
async fn settle_in(
    conn: &mut PgConnection,
    game_id: &str,
    winner: Option<Stone>,
    at: &str,
) -> Result<Settled, StoreError> {
    let row = sqlx::query(
        "select r.family, r.result, g.move_count from rated_games r \
         join games g on g.id = r.game_id where r.game_id = $1 for update of r",
    )
    .bind(game_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else {
        return Ok(Settled::Untouched);
    };
    if row.text("result")?.is_some() {
        return Ok(Settled::Untouched);
    }
    if row.need_int("move_count")? < RATED_FROM_MOVES as i64 {
        sqlx::query(
            "update rated_games set result = 'aborted', settled_at = $1 where game_id = $2",
        )
        .bind(at)
        .bind(game_id)
        .execute(&mut *conn)
        .await?;
        return Ok(Settled::Unrated);
    }
    let family: Family = parse(game_id, "family", &row.need_text("family")?)?;
    let seats = sqlx::query("select player_id, colour from seats where game_id = $1")
        .bind(game_id)
        .fetch_all(&mut *conn)
        .await?;
    let player = |colour: Stone| -> Result<String, StoreError> {
        for seat in &seats {
            if seat.int("colour")? == Some(stone_value(colour)) {
                return seat.need_text("player_id");
            }
        }
        Err(StoreError::Corrupt(
            game_id.into(),
            "a rated game's seat is free".into(),
        ))
    };
    let players = [player(Stone::Black)?, player(Stone::White)?];
    // Both rows exist and are locked, in player order, before either is read.
    let mut order = players.clone();
    order.sort_unstable();
    for player in &order {
        sqlx::query(
            "insert into ratings (player_id, family, rating, rd, volatility, games, wins, \
             losses, draws, updated_at) values ($1, $2, $3, $4, $5, 0, 0, 0, 0, $6) \
             on conflict do nothing",
        )
        .bind(player)
        .bind(family.as_str())
        .bind(Rating::INITIAL.rating)
        .bind(Rating::INITIAL.rd)
        .bind(Rating::INITIAL.volatility)
        .bind(at)
        .execute(&mut *conn)
        .await?;
        sqlx::query("select 1 from ratings where player_id = $1 and family = $2 for update")
            .bind(player)
            .bind(family.as_str())
            .fetch_one(&mut *conn)
            .await?;
    }
    let mut before = [Rating::INITIAL; 2];
    for (rating, player) in before.iter_mut().zip(&players) {
        let r = sqlx::query(RATING_SQL)
            .bind(player)
            .bind(family.as_str())
            .fetch_one(&mut *conn)
            .await?;
        *rating = rating_of(&r, player)?;
    }
    let settlement = Settlement::new(players, before, winner);
    for (colour, player, opponent, change) in settlement.sides() {
        let (wins, losses, draws) = tally(change.score);
        sqlx::query(UPSERT_RATING)
            .bind(player)
            .bind(family.as_str())
            .bind(change.after.rating)
            .bind(change.after.rd)
            .bind(change.after.volatility)
            .bind(wins)
            .bind(losses)
            .bind(draws)
            .bind(at)
            .execute(&mut *conn)
            .await?;
        sqlx::query(INSERT_CHANGE)
            .bind(game_id)
            .bind(player)
            .bind(family.as_str())
            .bind(stone_value(colour))
            .bind(opponent)
            .bind(change.score.as_str())
            .bind(change.before.rating)
            .bind(change.before.rd)
            .bind(change.after.rating)
            .bind(change.after.rd)
            .bind(at)
            .execute(&mut *conn)
            .await?;
    }
    sqlx::query("update rated_games set result = $1, settled_at = $2 where game_id = $3")
        .bind(result_text(winner))
        .bind(at)
        .bind(game_id)
        .execute(&mut *conn)
        .await?;
    Ok(Settled::Rated(settlement.rated))
}
