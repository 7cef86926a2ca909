//! Ratings' SQL on SQLite (see [`store::ratings`](crate::store::ratings)). Every write goes
//! through the single writer, which runs one write after another: a settlement reads what it
//! needs before it writes anything, so a write that decides to do nothing leaves nothing behind
//! (the writer has no savepoint per write).

use gomoku_rules::Stone;
use sqlx::{Row, SqliteConnection};

use super::Store;
use crate::ratings::{Family, Rating};
use crate::store::games::rows::stone_value;
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
        let game_id = game_id.to_string();
        self.writer()
            .write(move |conn| {
                let (game_id, at) = (game_id.clone(), at.clone());
                Box::pin(async move { settle_in(conn, &game_id, winner, &at).await })
            })
            .await
    }

    pub(in crate::store) async fn abort_rated(
        &self,
        game_id: &str,
        player_id: &str,
        at: String,
    ) -> Result<bool, StoreError> {
        let (game_id, player_id) = (game_id.to_string(), player_id.to_string());
        self.writer()
            .write(move |conn| {
                let (game_id, player_id, at) = (game_id.clone(), player_id.clone(), at.clone());
                Box::pin(async move {
                    let done = sqlx::query(
                        "update rated_games set result = 'aborted', settled_at = ? \
                         where game_id = ? and result is null",
                    )
                    .bind(&at)
                    .bind(&game_id)
                    .execute(&mut *conn)
                    .await?;
                    if done.rows_affected() == 0 {
                        return Ok::<_, StoreError>(false);
                    }
                    sqlx::query(
                        "insert into aborts (player_id, game_id, at) values (?, ?, ?) \
                         on conflict do nothing",
                    )
                    .bind(&player_id)
                    .bind(&game_id)
                    .bind(&at)
                    .execute(&mut *conn)
                    .await?;
                    Ok(true)
                })
            })
            .await
    }

    pub(in crate::store) async fn rated_game(
        &self,
        game_id: &str,
    ) -> Result<Option<RatedGame>, StoreError> {
        let mut tx = self.reader().begin().await?;
        let sql = format!("select {RATED_GAME_COLUMNS} from rated_games where game_id = ?");
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
            .fetch_all(self.reader())
            .await?)
    }

    pub(in crate::store) async fn leaderboard(
        &self,
        family: Family,
        limit: usize,
    ) -> Result<Vec<Leader>, StoreError> {
        let rows = sqlx::query(LEADERBOARD_SQL)
            .bind(family.as_str())
            .bind(crate::ratings::PROVISIONAL_RD)
            .bind(limit as i64)
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(leader_of).collect()
    }

    pub(in crate::store) async fn profile(
        &self,
        player_id: &str,
        recent: usize,
    ) -> Result<Option<Profile>, StoreError> {
        // One read transaction: the records and the results from one snapshot.
        let mut tx = self.reader().begin().await?;
        let name: Option<String> = sqlx::query_scalar("select name from players where id = ?")
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
        let records = records
            .iter()
            .map(|r| record_of(r, player_id))
            .collect::<Result<_, StoreError>>()?;
        let recent = results
            .iter()
            .map(|r| recent_of(r, player_id))
            .collect::<Result<_, StoreError>>()?;
        Ok(Some(Profile {
            player_id: player_id.to_string(),
            name,
            records,
            recent,
        }))
    }
}

/// The settlement of a game inside the writer's transaction: everything is read first, then
/// written, so an early answer (not rated, already settled) writes nothing.
async fn settle_in(
    conn: &mut SqliteConnection,
    game_id: &str,
    winner: Option<Stone>,
    at: &str,
) -> Result<Settled, StoreError> {
    let row = sqlx::query(
        "select r.family, r.result, g.move_count from rated_games r \
         join games g on g.id = r.game_id where r.game_id = ?",
    )
    .bind(game_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else {
        return Ok(Settled::Untouched);
    };
    let (family, result, moves): (String, Option<String>, i64) =
        (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
    if result.is_some() {
        return Ok(Settled::Untouched);
    }
    if moves < crate::ratings::RATED_FROM_MOVES as i64 {
        sqlx::query("update rated_games set result = 'aborted', settled_at = ? where game_id = ?")
            .bind(at)
            .bind(game_id)
            .execute(&mut *conn)
            .await?;
        return Ok(Settled::Unrated);
    }
    let family: Family = parse(game_id, "family", &family)?;
    let seats = sqlx::query("select player_id, colour from seats where game_id = ?")
        .bind(game_id)
        .fetch_all(&mut *conn)
        .await?;
    let player = |colour: Stone| -> Result<String, StoreError> {
        seats
            .iter()
            .find(|r| r.try_get::<Option<i64>, _>(1).ok().flatten() == Some(stone_value(colour)))
            .map(|r| r.try_get(0))
            .transpose()?
            .ok_or_else(|| {
                StoreError::Corrupt(game_id.into(), "a rated game's seat is free".into())
            })
    };
    let players = [player(Stone::Black)?, player(Stone::White)?];
    let mut before = [Rating::INITIAL; 2];
    for (rating, player) in before.iter_mut().zip(&players) {
        if let Some(r) = sqlx::query(RATING_SQL)
            .bind(player)
            .bind(family.as_str())
            .fetch_optional(&mut *conn)
            .await?
        {
            *rating = rating_of(&r, player)?;
        }
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
    sqlx::query("update rated_games set result = ?, settled_at = ? where game_id = ?")
        .bind(result_text(winner))
        .bind(at)
        .bind(game_id)
        .execute(&mut *conn)
        .await?;
    Ok(Settled::Rated(settlement.rated))
}
