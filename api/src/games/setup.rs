//! Games coming and going: a new game (local, against the AI with its opening move when it
//! plays black, or online, waiting for its second player; an online or ai game may start with
//! an opening rule, the AI's first steps taken when it holds the first seat), an imported one,
//! and deleting one.
//! Who may delete: the owner of a local or ai game, and the creator of an online game still
//! waiting (cancelling the invitation); an online game with two players belongs to both.

use std::sync::Arc;

use gomoku_rules::opening::Seat as OpeningSeat;
use gomoku_rules::{Game, Opening, OpeningRule, Rule, Stone};

use super::opening::take_step;
use super::{Error, Games};
use crate::store::games::{
    self as stored_games, AiSetting, GameStatus, Mode, NewGame, OnlineSetup, Role, StoredGame,
    StoredMove, Written,
};
use crate::store::{now, now_exact, timestamp};

/// The validated settings of a new game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub mode: Mode,
    pub rule: Rule,
    pub board_size: usize,
    pub ai: Option<AiSetting>,
    pub online: Option<OnlineSetup>,
    pub opening: Option<OpeningSetting>,
}

/// The opening rule a new online or ai game starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpeningSetting {
    pub rule: OpeningRule,
    /// In an ai game, the AI's seat (the person has the other). An online game's creator is
    /// always the first seat.
    pub ai_seat: OpeningSeat,
}

impl Games {
    /// Creates a game of `player_id`'s with `settings`; if the AI plays black, its first move is
    /// already made.
    pub async fn create(
        &self,
        player_id: &str,
        settings: Settings,
    ) -> Result<Arc<StoredGame>, Error> {
        if let Some(opening) = settings.opening {
            return self.create_with_opening(player_id, settings, opening).await;
        }
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

    /// Creates a game that starts with an opening rule. The first seat holds black until a
    /// swap: the creator of an online game (whatever seat was asked), the AI or the person in
    /// an ai game as `setting` says; when the AI holds it, its first steps are taken already.
    async fn create_with_opening(
        &self,
        player_id: &str,
        settings: Settings,
        setting: OpeningSetting,
    ) -> Result<Arc<StoredGame>, Error> {
        let mut opening = Opening::new(settings.board_size, settings.rule, setting.rule)
            .map_err(|e| Error::InvalidSettings(e.to_string()))?;
        let mut game = opening.game().clone();
        let mut moves = Vec::new();
        let first_black = |seat| match seat {
            OpeningSeat::First => Stone::Black,
            OpeningSeat::Second => Stone::White,
        };
        let (ai, online) = match (settings.mode, settings.ai, settings.online) {
            (Mode::Ai, Some(ai), None) => {
                let ai = AiSetting {
                    player: first_black(setting.ai_seat),
                    ..ai
                };
                (Some(ai), None)
            }
            (Mode::Online, None, Some(online)) => {
                let online = OnlineSetup {
                    seat: Stone::Black,
                    ..online
                };
                (None, Some(online))
            }
            _ => {
                return Err(Error::InvalidSettings(
                    "an opening rule is for online and ai games".into(),
                ))
            }
        };
        if let Some(ai) = ai.filter(|_| opening.phase().by() == Some(setting.ai_seat)) {
            let steps = self
                .ai
                .opening_turn(player_id, opening.clone(), ai.level)
                .await?;
            let at = timestamp(now_exact());
            for step in steps {
                take_step(
                    &mut opening,
                    &mut game,
                    &mut moves,
                    setting.ai_seat,
                    step,
                    &at,
                )
                .map_err(|e| Error::Internal(format!("the AI's opening step: {e}")))?;
            }
        }
        if opening.black() != OpeningSeat::First {
            // The seats are stored as they start; no swap can come before the second seat acts.
            return Err(Error::Internal(
                "a swap before the second seat acted".into(),
            ));
        }
        let new = NewGame {
            player_id: player_id.to_string(),
            mode: settings.mode,
            ai,
            moves,
            game,
            online,
        };
        let cap = self.terms.max_unfinished_games;
        match stored_games::insert_with_opening(&self.db, new, Some(opening), cap).await? {
            Written::Stored(stored) => Ok(stored),
            Written::OverCap => Err(Error::TooManyGames(cap)),
            Written::Stale => Err(Error::Internal("a new game cannot be stale".into())),
        }
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
