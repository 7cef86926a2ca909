//! Games coming and going: a new game (local, against the AI with its opening move when it
//! plays black, or online, waiting for its second player), an imported one, and deleting one.
//! Who may delete: the owner of a local or ai game, and the creator of an online game still
//! waiting (cancelling the invitation); an online game with two players belongs to both.

use std::sync::Arc;

use gomoku_rules::{Game, Rule, Stone};

use super::{Error, Games};
use crate::store::games::{
    self as stored_games, AiSetting, GameStatus, Mode, NewGame, OnlineSetup, Role, StoredGame,
    StoredMove, Written,
};
use crate::store::now;

/// The validated settings of a new game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub mode: Mode,
    pub rule: Rule,
    pub board_size: usize,
    pub ai: Option<AiSetting>,
    pub online: Option<OnlineSetup>,
}

impl Games {
    /// Creates a game of `player_id`'s with `settings`; if the AI plays black, its first move is
    /// already made.
    pub async fn create(
        &self,
        player_id: &str,
        settings: Settings,
    ) -> Result<Arc<StoredGame>, Error> {
        let mut game = Game::new(settings.board_size, settings.rule)
            .map_err(|e| Error::InvalidSettings(format!("{e:?}")))?;
        let mut moves = Vec::new();
        if let Some(ai) = settings.ai.filter(|ai| ai.player == Stone::Black) {
            let point = self
                .ai
                .best_move(player_id, game.clone(), ai.level)
                .await?
                .ok_or_else(|| Error::Internal("the AI found no opening move".into()))?;
            game.play(point).map_err(|e| {
                Error::Internal(format!("the AI's opening move was refused: {e:?}"))
            })?;
            moves.push(StoredMove {
                point,
                stone: Stone::Black,
                played_at: now(),
                clock_ms: None,
            });
        }
        self.insert(NewGame {
            player_id: player_id.to_string(),
            mode: settings.mode,
            ai: settings.ai,
            moves,
            game,
            online: settings.online,
        })
        .await
    }

    /// Stores `game` (a record replayed through the judge) as a new local game of
    /// `player_id`'s, its moves stamped now.
    pub async fn import(&self, player_id: &str, game: Game) -> Result<Arc<StoredGame>, Error> {
        let at = now();
        let moves = game
            .moves()
            .iter()
            .map(|m| StoredMove {
                point: m.point,
                stone: m.stone,
                played_at: at.clone(),
                clock_ms: None,
            })
            .collect();
        self.insert(NewGame {
            player_id: player_id.to_string(),
            mode: Mode::Local,
            ai: None,
            moves,
            game,
            online: None,
        })
        .await
    }

    /// Stores a new game: TOO_MANY_GAMES when it would be unfinished and its player already has
    /// as many unfinished games as allowed.
    async fn insert(&self, new: NewGame) -> Result<Arc<StoredGame>, Error> {
        let cap = self.terms.max_unfinished_games;
        match stored_games::insert(&self.db, new, cap).await? {
            Written::Stored(stored) => Ok(stored),
            Written::OverCap => Err(Error::TooManyGames(cap)),
            Written::Stale => Err(Error::Internal("a new game cannot be stale".into())),
        }
    }

    /// Deletes game `id` and its moves, if `player_id` may: see the module's comment.
    pub async fn delete(&self, player_id: &str, id: &str) -> Result<(), Error> {
        let stored = self.load(player_id, id).await?;
        let waiting_only = match stored.role(player_id) {
            Some(Role::Owner) => false,
            Some(Role::Seated(_)) if stored.row.status == GameStatus::Waiting => true,
            Some(Role::Seated(_)) => return Err(Error::SharedGame),
            Some(Role::Spectator) => return Err(Error::NotAPlayer),
            None => return Err(Error::NotFound),
        };
        if stored_games::delete(&self.db, id, player_id, waiting_only).await? {
            return Ok(());
        }
        // Gone already, or a second player joined first.
        match stored_games::load(&self.db, id).await? {
            Some(_) if waiting_only => Err(Error::SharedGame),
            _ => Err(Error::NotFound),
        }
    }
}
