//! Online play (issue 12) through the real `gomoku-server` binary: real HTTP and real
//! WebSockets on 127.0.0.1, a real SQLite file, two or three real tokens.
//!
//! Written from the contract: create → join → alternate moves, each pushed to both players and
//! a spectator; every new error code (and that a refused request changes nothing stored); seats
//! and joining; takeback and draw offers (offer, accept, decline, withdraw, cleared by a move);
//! resignation by the player not to move; display names; cancelling an invitation; the listing
//! and the cap; the live stream's refusals, presence, pings and reconnects. Clocks are in
//! `tests/clocks.rs`. Positions are `(row, col)` on a 15×15 board, row 0 at the top.

use std::time::Duration;

use gomoku_testkit::lines::BLACK_FIVE;
use gomoku_testkit::live::{Received, WAIT};
use gomoku_testkit::online::{play_alternately, start};
use gomoku_testkit::state::{assert_state_consistent, id_of, moves_of};
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{
    eventually, gomoku_server, one_landed, race_players, race_posts, Api, Live, Player, Reply,
    Server, NO_RATE_LIMIT,
};
use serde_json::{json, Value};

/// A server without the write limit.
fn server() -> Server {
    gomoku_server!().args(NO_RATE_LIMIT).start()
}

/// Two players (black creates, white joins) and a third who only watches.
async fn three(server: &Server) -> (Player, Player, Player) {
    let api = Api::on(server);
    (
        api.new_player().await,
        api.new_player().await,
        api.new_player().await,
    )
}

/// What every viewer of one version of a game must agree on.
fn shared(game: &Value) -> Value {
    json!({
        "id": game["id"], "version": game["version"], "status": game["status"],
        "board": game["board"], "moveHistory": game["moveHistory"], "winner": game["winner"],
        "endReason": game["endReason"], "currentPlayer": game["currentPlayer"],
        "offers": game["offers"], "mode": game["mode"],
        "black": game["players"]["black"]["playerId"], "white": game["players"]["white"]["playerId"],
    })
}

/// Asserts a refused request: its status and code, and that the stored data did not change.
async fn refused(
    stored: &mut Stored,
    reply: Reply,
    status: u16,
    code: &str,
    what: &str,
    before: &[String],
) {
    reply.assert_error(status, code, what);
    assert_eq!(stored.dump().await, before, "{what} changed stored data");
}

/// A game is created waiting with its creator in the chosen seat, joined, and played to a five
/// by alternate moves; each move reaches both players and a spectator over their sockets, in
/// order and without any request of theirs, each rendered for its viewer (`you`).
#[tokio::test]
async fn moves_reach_both_players_and_a_spectator_live() {
    let server = server();
    let (black, white, watcher) = three(&server).await;
    let created = black
        .create_online(json!({"seat": "black", "rule": "standard"}))
        .await;
    assert_state_consistent(&created);
    assert_eq!(created["status"], "waiting");
    assert_eq!(created["you"], 1);
    assert_eq!(
        created["players"]["black"]["playerId"],
        black.me().await["playerId"]
    );
    assert_eq!(created["players"]["white"], Value::Null);
    assert_eq!(created["clock"], Value::Null);
    assert_eq!(
        created["offers"],
        json!({"takeback": null, "draw": null, "rematch": null})
    );
    let id = id_of(&created);

    let mut black_live = Live::connect(&black, &id).await.expect("black connects");
    let first = black_live.state().await;
    assert_eq!(
        (first["status"].as_str(), &first["you"]),
        (Some("waiting"), &json!(1))
    );

    let joined = white.join(&id).await.ok(200, "join");
    assert_eq!(joined["status"], "playing");
    assert_eq!(joined["you"], 2);
    assert_eq!(joined["version"], created["version"].as_i64().unwrap() + 1);
    let pushed = black_live
        .state_at(joined["version"].as_i64().unwrap())
        .await;
    assert_eq!(shared(&pushed), shared(&joined), "the join is pushed");
    assert_eq!(pushed["you"], 1);

    let mut white_live = Live::connect(&white, &id).await.unwrap();
    let mut watcher_live = Live::connect(&watcher, &id).await.unwrap();
    assert_eq!(white_live.state().await["you"], 2);
    let watched = watcher_live.state().await;
    assert_eq!(watched["you"], Value::Null, "a spectator has no colour");
    assert_eq!(shared(&watched), shared(&joined));
    let presence = black_live
        .presence_where(|p| p["white"] == true && p["spectators"] == 1)
        .await;
    assert_eq!(
        presence,
        json!({"type": "presence", "black": true, "white": true, "spectators": 1})
    );

    let mut last = joined;
    for (ply, &(row, col)) in BLACK_FIVE.iter().enumerate() {
        let mover = if ply % 2 == 0 { &black } else { &white };
        let answer = mover.play_at(&id, row, col, ply as i64).await;
        assert_eq!(
            answer["version"],
            last["version"].as_i64().unwrap() + 1,
            "one version a move"
        );
        for (live, you) in [
            (&mut black_live, 1),
            (&mut white_live, 2),
            (&mut watcher_live, 0),
        ] {
            let got = live.state().await;
            assert_eq!(shared(&got), shared(&answer), "move {ply} pushed in order");
            assert_eq!(got["you"], if you == 0 { Value::Null } else { json!(you) });
            assert_state_consistent(&got);
        }
        last = answer;
    }
    assert_eq!(last["status"], "black_won");
    assert_eq!(last["endReason"], "five");
    assert_eq!(moves_of(&last).len(), BLACK_FIVE.len());
    assert_eq!(watcher.game(&id).await["you"], Value::Null);
}

/// Joining again, or joining one's own game, changes nothing; a third player gets GAME_FULL, a
/// finished game GAME_OVER; another player's local game is no one else's business (404), and
/// one's own is not for joining (ONLINE_ONLY). Of two players joining at once exactly one gets
/// the seat.
#[tokio::test]
async fn seats_and_joining() {
    let server = server();
    let (black, white, third) = three(&server).await;
    let waiting = black.create_online(json!({"seat": "white"})).await;
    let id = id_of(&waiting);
    let own = black
        .join(&id)
        .await
        .ok(200, "the creator joins its own game");
    assert_eq!(
        (own["status"].as_str(), &own["version"]),
        (Some("waiting"), &waiting["version"])
    );

    let joined = white.join(&id).await.ok(200, "join");
    assert_eq!(joined["you"], 1, "the free seat was black");
    let again = white.join(&id).await.ok(200, "join again");
    assert_eq!(
        again["version"], joined["version"],
        "joining again changes nothing"
    );
    let mut stored = Stored::open(server.database()).await;
    let before = stored.dump().await;
    refused(
        &mut stored,
        third.join(&id).await,
        409,
        "GAME_FULL",
        "a third player",
        &before,
    )
    .await;

    white.resign(&id).await.ok(200, "resign");
    let over = third.join(&id).await;
    over.assert_error(409, "GAME_OVER", "joining a finished game");
    assert_eq!(over.body["error"]["game"]["status"], "white_won");

    let local = black.create_id(json!({})).await;
    let before = stored.dump().await;
    refused(
        &mut stored,
        white.join(&local).await,
        404,
        "GAME_NOT_FOUND",
        "another's local game",
        &before,
    )
    .await;
    refused(
        &mut stored,
        black.join(&local).await,
        409,
        "ONLINE_ONLY",
        "one's own local game",
        &before,
    )
    .await;

    let raced = black.create_online(json!({})).await;
    let raced_id = id_of(&raced);
    let (a, b) = tokio::join!(white.join(&raced_id), third.join(&raced_id));
    let answers = [a, b];
    let won: Vec<&Reply> = answers.iter().filter(|r| r.status == 200).collect();
    assert_eq!(won.len(), 1, "exactly one joins");
    for reply in answers.iter().filter(|r| r.status != 200) {
        reply.assert_error(409, "GAME_FULL", "the later join");
    }
    let seated = black.game(&raced_id).await;
    assert!(seated["players"]["white"].is_object() && seated["players"]["black"].is_object());
}

/// Every new error code of online play, each with the status the contract gives it, and none
/// of them changes what is stored.
#[tokio::test]
async fn error_codes_change_nothing() {
    let server = server();
    let (black, white, watcher) = three(&server).await;
    let mut stored = Stored::open(server.database()).await;
    let waiting = black.create_online(json!({"seat": "black"})).await;
    let id = id_of(&waiting);
    let before = stored.dump().await;
    refused(
        &mut stored,
        black.try_move_at(&id, 7, 7, 0).await,
        409,
        "WAITING_FOR_OPPONENT",
        "a move before the join",
        &before,
    )
    .await;
    refused(
        &mut stored,
        black.resign(&id).await,
        409,
        "WAITING_FOR_OPPONENT",
        "resigning before the join",
        &before,
    )
    .await;
    refused(
        &mut stored,
        black.takeback(&id, "offer").await,
        409,
        "WAITING_FOR_OPPONENT",
        "a takeback before the join",
        &before,
    )
    .await;
    refused(
        &mut stored,
        watcher.try_move_at(&id, 7, 7, 0).await,
        403,
        "NOT_A_PLAYER",
        "a spectator's move",
        &before,
    )
    .await;
    refused(
        &mut stored,
        watcher.delete(&format!("/api/v1/games/{id}")).await,
        403,
        "NOT_A_PLAYER",
        "a spectator's delete",
        &before,
    )
    .await;

    white.join(&id).await.ok(200, "join");
    black.play_at(&id, 7, 7, 0).await;
    let before = stored.dump().await;
    refused(
        &mut stored,
        black.try_move_at(&id, 8, 8, 1).await,
        409,
        "NOT_YOUR_TURN",
        "black again",
        &before,
    )
    .await;
    refused(
        &mut stored,
        black.try_move(&id, 8, 8).await,
        409,
        "NOT_YOUR_TURN",
        "black again, without ply",
        &before,
    )
    .await;
    refused(
        &mut stored,
        white.try_move_at(&id, 8, 8, 0).await,
        409,
        "PLY_MISMATCH",
        "a stale ply",
        &before,
    )
    .await;
    refused(
        &mut stored,
        white.try_move_at(&id, 7, 7, 1).await,
        409,
        "CELL_OCCUPIED",
        "an occupied cell",
        &before,
    )
    .await;
    for (reply, what) in [
        (
            watcher.try_move_at(&id, 8, 8, 1).await,
            "a spectator's move",
        ),
        (watcher.resign(&id).await, "a spectator's resignation"),
        (watcher.undo(&id).await, "a spectator's undo"),
        (
            watcher.takeback(&id, "offer").await,
            "a spectator's takeback",
        ),
        (watcher.draw(&id, "offer").await, "a spectator's draw offer"),
        (
            watcher.delete(&format!("/api/v1/games/{id}")).await,
            "a spectator's delete",
        ),
    ] {
        refused(&mut stored, reply, 403, "NOT_A_PLAYER", what, &before).await;
    }
    refused(
        &mut stored,
        black.undo(&id).await,
        409,
        "TAKEBACK_REQUIRED",
        "undo online",
        &before,
    )
    .await;
    refused(
        &mut stored,
        black.delete(&format!("/api/v1/games/{id}")).await,
        409,
        "SHARED_GAME",
        "deleting a shared game",
        &before,
    )
    .await;
    refused(
        &mut stored,
        white.delete(&format!("/api/v1/games/{id}")).await,
        409,
        "SHARED_GAME",
        "the joiner deleting it",
        &before,
    )
    .await;
    let hint = white.get(&format!("/api/v1/games/{id}/hint")).await;
    refused(
        &mut stored,
        hint,
        409,
        "HINTS_DISABLED",
        "a hint against a person",
        &before,
    )
    .await;
    refused(
        &mut stored,
        white.takeback(&id, "offer").await,
        409,
        "NOTHING_TO_UNDO",
        "a takeback with no own move",
        &before,
    )
    .await;

    let local = black.create_id(json!({})).await;
    black.play(&local, 7, 7).await;
    let before = stored.dump().await;
    refused(
        &mut stored,
        black.takeback(&local, "offer").await,
        409,
        "ONLINE_ONLY",
        "a takeback in a local game",
        &before,
    )
    .await;
    refused(
        &mut stored,
        black.draw(&local, "offer").await,
        409,
        "ONLINE_ONLY",
        "a draw offer in a local game",
        &before,
    )
    .await;
    refused(
        &mut stored,
        white.draw(&local, "offer").await,
        404,
        "GAME_NOT_FOUND",
        "another's local game",
        &before,
    )
    .await;
    for (body, what) in [
        (json!({"accept": true}), "the old {accept} form"),
        (
            json!({"action": "propose"}),
            "an action that is none of the four",
        ),
        (json!({"action": true}), "an action that is not a string"),
        (
            json!({"action": "offer", "admin": true}),
            "an unknown field",
        ),
        (json!({}), "no action"),
    ] {
        for kind in ["takeback", "draw", "rematch"] {
            let reply = black
                .post(&format!("/api/v1/games/{id}/{kind}"), &body)
                .await;
            refused(&mut stored, reply, 400, "INVALID_JSON", what, &before).await;
        }
    }
    refused(
        &mut stored,
        black.rename("").await,
        422,
        "INVALID_NAME",
        "an empty name",
        &before,
    )
    .await;
}

/// Takebacks: an offer shows in `offers` with who made it and how long it stands (pushed to the
/// opponent); offering again changes nothing; the offerer may withdraw it and the opponent
/// decline it, each verb only for whose offer it names (409 NO_OFFER otherwise), and neither
/// side may offer over the other's (409 OFFER_PENDING); a move by either player clears it;
/// accepted, the offerer's last move goes (with the reply after it, if any) and the offerer is
/// to move.
#[tokio::test]
async fn takeback_offers() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    let mut white_live = Live::connect(&white, &id).await.unwrap();
    white_live.state().await;

    play_alternately(&black, &white, &id, 0, &[(7, 7), (7, 8), (8, 8)]).await;
    white.takeback(&id, "accept").await.assert_error(
        409,
        "NO_OFFER",
        "accept with nothing offered",
    );
    let offered = black.takeback(&id, "offer").await.ok(200, "offer");
    assert_eq!(offered["offers"]["takeback"]["by"], 1);
    let left = offered["offers"]["takeback"]["expiresInMs"]
        .as_i64()
        .unwrap();
    assert!((1..=60_000).contains(&left), "stands a minute: {left}");
    let seen = white_live
        .state_where(|g| g["offers"]["takeback"]["by"] == 1)
        .await;
    assert_eq!(seen["version"], offered["version"], "the offer is pushed");
    let twice = black.takeback(&id, "offer").await.ok(200, "offer twice");
    assert_eq!(
        twice["version"], offered["version"],
        "offering twice changes nothing"
    );
    for (reply, code, what) in [
        (
            white.takeback(&id, "offer").await,
            "OFFER_PENDING",
            "an offer over the opponent's",
        ),
        (
            white.takeback(&id, "withdraw").await,
            "NO_OFFER",
            "withdrawing the opponent's offer",
        ),
        (
            black.takeback(&id, "accept").await,
            "NO_OFFER",
            "accepting one's own offer",
        ),
        (
            black.takeback(&id, "decline").await,
            "NO_OFFER",
            "declining one's own offer",
        ),
    ] {
        reply.assert_error(409, code, what);
    }
    assert_eq!(
        black.game(&id).await["version"],
        offered["version"],
        "nothing changed"
    );

    let withdrawn = black.takeback(&id, "withdraw").await.ok(200, "withdraw");
    assert_eq!(withdrawn["offers"]["takeback"], Value::Null);
    white.takeback(&id, "decline").await.assert_error(
        409,
        "NO_OFFER",
        "decline with nothing pending",
    );

    black.takeback(&id, "offer").await.ok(200, "offer again");
    let declined = white.takeback(&id, "decline").await.ok(200, "decline");
    assert_eq!(
        (
            declined["offers"]["takeback"].clone(),
            declined["moveCount"].clone()
        ),
        (Value::Null, json!(3))
    );

    black
        .takeback(&id, "offer")
        .await
        .ok(200, "offer once more");
    let moved = white.play_at(&id, 9, 9, 3).await;
    assert_eq!(
        moved["offers"]["takeback"],
        Value::Null,
        "the opponent's move clears the offer"
    );
    white.takeback(&id, "accept").await.assert_error(
        409,
        "NO_OFFER",
        "accepting an offer a move cleared",
    );

    // Black moved last but one: black's move and white's reply go back.
    black
        .takeback(&id, "offer")
        .await
        .ok(200, "offer after the reply");
    let accepted = white.takeback(&id, "accept").await.ok(200, "accept");
    assert_eq!(moves_of(&accepted), [(7, 7, 1), (7, 8, 2)]);
    assert_eq!(
        (
            accepted["currentPlayer"].clone(),
            accepted["offers"]["takeback"].clone()
        ),
        (json!(1), Value::Null)
    );
    assert_state_consistent(&accepted);
    white_live
        .state_at(accepted["version"].as_i64().unwrap())
        .await;

    // White moved last: only white's move goes.
    white.takeback(&id, "offer").await.ok(200, "white offers");
    let back = black.takeback(&id, "accept").await.ok(200, "black accepts");
    assert_eq!(moves_of(&back), [(7, 7, 1)]);
    assert_eq!(back["currentPlayer"], 2);
    assert_eq!(black.game(&id).await["moveCount"], 1, "stored");
}

/// Issue 23's race, sequenced: black offers a takeback, black withdraws it, and white's accept
/// that arrives after the withdrawal is 409 NO_OFFER; it never becomes an offer of white's, so
/// nothing is pending afterwards, and nothing changed since the withdrawal.
#[tokio::test]
async fn a_late_accept_after_a_withdrawal_is_refused() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    play_alternately(&black, &white, &id, 0, &[(7, 7), (7, 8)]).await;
    for kind in ["takeback", "draw"] {
        black
            .act_on_offer(&id, kind, "offer")
            .await
            .ok(200, "offer");
        let withdrawn = black
            .act_on_offer(&id, kind, "withdraw")
            .await
            .ok(200, "withdraw");
        white.act_on_offer(&id, kind, "accept").await.assert_error(
            409,
            "NO_OFFER",
            "the late accept",
        );
        let now = white.game(&id).await;
        assert_eq!(now["offers"][kind], Value::Null, "no offer by the accepter");
        assert_eq!(now["version"], withdrawn["version"], "nothing written");
        assert_eq!(now["moveCount"], 2);
    }
}

/// An offer nobody answers lapses after `--offer-ttl-ms` (a rematch offer after
/// `--rematch-ttl-ms`): the opponent's socket gets a state without it (the timer clears it),
/// GET shows none, and a late accept is 409 NO_OFFER.
#[tokio::test]
async fn offers_lapse_unanswered() {
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--offer-ttl-ms", "300", "--rematch-ttl-ms", "300"])
        .start();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    black.play_at(&id, 7, 7, 0).await;
    let mut white_live = Live::connect(&white, &id).await.unwrap();
    white_live.state().await;
    let offered = black.draw(&id, "offer").await.ok(200, "offer");
    let left = offered["offers"]["draw"]["expiresInMs"].as_i64().unwrap();
    assert!((1..=300).contains(&left), "stands 300 ms: {left}");
    white_live
        .state_at(offered["version"].as_i64().unwrap())
        .await;
    let lapsed = white_live
        .state_where(|g| g["offers"]["draw"].is_null())
        .await;
    assert!(
        lapsed["version"].as_i64() > offered["version"].as_i64(),
        "the lapse is a change of its own, pushed"
    );
    assert_eq!(white.game(&id).await["offers"]["draw"], Value::Null);
    white
        .draw(&id, "accept")
        .await
        .assert_error(409, "NO_OFFER", "accepting a lapsed offer");
    assert_eq!(white.game(&id).await["status"], "playing");

    black.resign(&id).await.ok(200, "resign");
    let offered = white.rematch(&id, "offer").await.ok(200, "a rematch offer");
    let version = offered["version"].as_i64().unwrap();
    white_live
        .state_where(|g| g["version"].as_i64() > Some(version))
        .await;
    black.rematch(&id, "accept").await.assert_error(
        409,
        "NO_OFFER",
        "accepting a lapsed rematch offer",
    );
    assert_eq!(black.game(&id).await["rematchGameId"], Value::Null);
}

/// Draws: offered, withdrawn, declined, cleared by a move, and accepted — then the game is a
/// draw by agreement, pushed, and nothing more can be played.
#[tokio::test]
async fn draw_offers() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    let mut black_live = Live::connect(&black, &id).await.unwrap();
    black_live.state().await;
    black.play_at(&id, 7, 7, 0).await;

    let offered = white.draw(&id, "offer").await.ok(200, "offer");
    assert_eq!(offered["offers"]["draw"]["by"], 2);
    black.draw(&id, "offer").await.assert_error(
        409,
        "OFFER_PENDING",
        "an offer over the opponent's",
    );
    assert_eq!(
        white.draw(&id, "withdraw").await.ok(200, "withdraw")["offers"]["draw"],
        Value::Null
    );
    white.draw(&id, "offer").await.ok(200, "offer again");
    assert_eq!(
        black.draw(&id, "decline").await.ok(200, "decline")["offers"]["draw"],
        Value::Null
    );
    white.draw(&id, "offer").await.ok(200, "offer once more");
    let moved = white.play_at(&id, 8, 8, 1).await;
    assert_eq!(
        moved["offers"]["draw"],
        Value::Null,
        "a move clears the offer"
    );

    black.draw(&id, "offer").await.ok(200, "black offers");
    let drawn = white.draw(&id, "accept").await.ok(200, "white accepts");
    assert_eq!(
        (
            drawn["status"].as_str(),
            drawn["endReason"].as_str(),
            &drawn["winner"]
        ),
        (Some("draw"), Some("agreement"), &Value::Null)
    );
    assert_state_consistent(&drawn);
    let pushed = black_live.state_where(|g| g["status"] == "draw").await;
    assert_eq!(pushed["endReason"], "agreement");
    let late = black.try_move_at(&id, 0, 0, 2).await;
    late.assert_error(409, "GAME_OVER", "a move after the draw");
    assert_eq!(late.body["error"]["game"]["endReason"], "agreement");
    white
        .draw(&id, "offer")
        .await
        .assert_error(409, "GAME_OVER", "an offer after the draw");
}

/// A finished game between `black` and `white` (black resigned after one move each), with both
/// players' sockets open and at the final state; its id and that state.
async fn finished(black: &Player, white: &Player, settings: Value) -> (String, Value, Live, Live) {
    let (id, _) = start(black, white, settings).await;
    play_alternately(black, white, &id, 0, &[(4, 4), (4, 5)]).await;
    let mut black_live = Live::connect(black, &id).await.unwrap();
    let mut white_live = Live::connect(white, &id).await.unwrap();
    let ended = black.resign(&id).await.ok(200, "black resigns");
    for live in [&mut black_live, &mut white_live] {
        live.state_at(ended["version"].as_i64().unwrap()).await;
    }
    (id, ended, black_live, white_live)
}

/// The rematch (issue 24): refused while the game is played; once it is over, white offers it
/// (pushed to black's socket, standing ten minutes), may withdraw it and black decline it, with
/// NO_OFFER and OFFER_PENDING as for the other offers; accepted, both sockets get the finished
/// game naming the new one, which has the same rule, size and time control, the colours
/// swapped, both players seated and in play, no clock running; offering or accepting again
/// answers the same, and nothing more is made.
#[tokio::test]
async fn rematch_offered_and_accepted() {
    let server = server();
    let (black, white, watcher) = three(&server).await;
    let settings = json!({"rule": "renju", "boardSize": 13,
        "timeControl": {"initialMs": 300000, "incrementMs": 2000}});
    let (playing, _) = start(&black, &white, settings.clone()).await;
    white.rematch(&playing, "offer").await.assert_error(
        409,
        "GAME_NOT_OVER",
        "a rematch of a game in play",
    );
    let local = black.create_id(json!({})).await;
    black.rematch(&local, "offer").await.assert_error(
        409,
        "ONLINE_ONLY",
        "a rematch of a local game",
    );
    black.resign(&playing).await.ok(200, "resign");
    black
        .delete(&format!("/api/v1/games/{local}"))
        .await
        .ok(204, "delete");

    let (id, ended, mut black_live, mut white_live) = finished(&black, &white, settings).await;
    assert_eq!(ended["rematchGameId"], Value::Null);
    watcher.rematch(&id, "offer").await.assert_error(
        403,
        "NOT_A_PLAYER",
        "a spectator's rematch offer",
    );
    black.rematch(&id, "accept").await.assert_error(
        409,
        "NO_OFFER",
        "accepting with nothing offered",
    );

    let offered = white.rematch(&id, "offer").await.ok(200, "white offers");
    assert_eq!(offered["offers"]["rematch"]["by"], 2);
    let left = offered["offers"]["rematch"]["expiresInMs"]
        .as_i64()
        .unwrap();
    assert!(
        (590_000..=600_000).contains(&left),
        "stands ten minutes: {left}"
    );
    let seen = black_live
        .state_where(|g| g["offers"]["rematch"]["by"] == 2)
        .await;
    assert_eq!(seen["version"], offered["version"], "the offer is pushed");
    assert_eq!(seen["status"], "white_won", "on the finished game");
    black.rematch(&id, "offer").await.assert_error(
        409,
        "OFFER_PENDING",
        "an offer over the opponent's",
    );
    white
        .rematch(&id, "accept")
        .await
        .assert_error(409, "NO_OFFER", "accepting one's own offer");
    let withdrawn = white.rematch(&id, "withdraw").await.ok(200, "withdraw");
    assert_eq!(withdrawn["offers"]["rematch"], Value::Null);
    white.rematch(&id, "offer").await.ok(200, "offer again");
    let declined = black.rematch(&id, "decline").await.ok(200, "decline");
    assert_eq!(declined["offers"]["rematch"], Value::Null);
    white.rematch(&id, "offer").await.ok(200, "offer once more");
    // A player who left the finished game sees the offer on coming back.
    let mut back = Live::connect(&black, &id).await.unwrap();
    assert_eq!(back.state().await["offers"]["rematch"]["by"], 2);

    let accepted = black.rematch(&id, "accept").await.ok(200, "black accepts");
    let new_id = accepted["rematchGameId"]
        .as_str()
        .expect("rematchGameId")
        .to_string();
    assert_ne!(new_id, id);
    assert_eq!(accepted["offers"]["rematch"], Value::Null);
    assert_eq!(
        accepted["status"], "white_won",
        "the finished game stays finished"
    );
    let version = accepted["version"].as_i64().unwrap();
    for (live, you) in [(&mut black_live, 1), (&mut white_live, 2)] {
        let pushed = live.state_where(|g| g["rematchGameId"] == new_id).await;
        assert_eq!(
            (pushed["version"].as_i64(), &pushed["you"]),
            (Some(version), &json!(you))
        );
    }

    let new = white.game(&new_id).await;
    assert_state_consistent(&new);
    assert_eq!(
        (
            new["mode"].as_str(),
            new["status"].as_str(),
            new["rule"].as_str(),
            new["boardSize"].as_i64(),
            new["moveCount"].as_i64(),
            new["you"].as_i64()
        ),
        (
            Some("online"),
            Some("playing"),
            Some("renju"),
            Some(13),
            Some(0),
            Some(1)
        )
    );
    assert_eq!(
        new["timeControl"],
        json!({"initialMs": 300000, "incrementMs": 2000})
    );
    assert_eq!(
        new["clock"]["running"],
        Value::Null,
        "no clock before black's first move"
    );
    assert_eq!(
        (
            &new["players"]["black"]["playerId"],
            &new["players"]["white"]["playerId"]
        ),
        (
            &ended["players"]["white"]["playerId"],
            &ended["players"]["black"]["playerId"]
        ),
        "the colours are swapped"
    );
    assert_eq!(new["rematchGameId"], Value::Null);
    assert_eq!(black.game(&new_id).await["you"], 2);
    white.play_at(&new_id, 6, 6, 0).await;
    black.play_at(&new_id, 6, 7, 1).await;

    for (reply, what) in [
        (
            white.rematch(&id, "offer").await,
            "an offer once the rematch exists",
        ),
        (black.rematch(&id, "accept").await, "a retried accept"),
    ] {
        let again = reply.ok(200, what);
        assert_eq!(
            (again["version"].as_i64(), again["rematchGameId"].as_str()),
            (Some(version), Some(new_id.as_str())),
            "{what}"
        );
    }
    black.rematch(&id, "decline").await.assert_error(
        409,
        "NO_OFFER",
        "declining once the rematch exists",
    );
    for player in [&black, &white] {
        let playing = player.list_all(Some("playing"), 20).await;
        let ids: Vec<&str> = playing.iter().filter_map(|g| g["id"].as_str()).collect();
        assert_eq!(ids, [new_id.as_str()], "one new game, and only one");
    }
}

/// Accepts racing for one rematch offer (a retried request, or a double tap) make one game:
/// the version-guarded write decides, and every accept answers the finished game naming it.
#[tokio::test]
async fn racing_rematch_accepts_make_one_game() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let (id, _, _black_live, _white_live) = finished(&black, &white, json!({})).await;
    white.rematch(&id, "offer").await.ok(200, "offer");
    let accepts = (0..6)
        .map(|_| (black.clone(), json!({"action": "accept"})))
        .collect();
    let answers = race_posts(&format!("/api/v1/games/{id}/rematch"), accepts).await;
    let made: Vec<Value> = answers
        .into_iter()
        .map(|a| a.ok(200, "an accept")["rematchGameId"].clone())
        .collect();
    assert!(made[0].is_string(), "a rematch was made");
    assert!(made.iter().all(|m| *m == made[0]), "one game: {made:?}");
    for player in [&black, &white] {
        assert_eq!(
            player.list_all(Some("playing"), 20).await.len(),
            1,
            "one new game"
        );
    }
}

/// An accept while either player is at the cap on unfinished games is 409 TOO_MANY_GAMES:
/// nothing is made, and the offer stands for when there is room.
#[tokio::test]
async fn a_rematch_respects_the_cap_on_unfinished_games() {
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--max-unfinished-games", "1"])
        .start();
    let (black, white, _) = three(&server).await;
    let (id, _, _black_live, _white_live) = finished(&black, &white, json!({})).await;
    white.rematch(&id, "offer").await.ok(200, "offer");
    let waiting = id_of(&white.create_online(json!({})).await);
    let mut stored = Stored::open(server.database()).await;
    let before = stored.dump().await;
    refused(
        &mut stored,
        black.rematch(&id, "accept").await,
        409,
        "TOO_MANY_GAMES",
        "an accept while the offerer is at the cap",
        &before,
    )
    .await;
    white
        .delete(&format!("/api/v1/games/{waiting}"))
        .await
        .ok(204, "cancel");
    let accepted = black
        .rematch(&id, "accept")
        .await
        .ok(200, "accept with room");
    assert!(accepted["rematchGameId"].is_string());
}

/// The player who is not to move may resign: their colour loses, the other player sees it
/// live, and the game is over for everyone.
#[tokio::test]
async fn resign_by_the_player_not_to_move() {
    let server = server();
    let (black, white, watcher) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    black.play_at(&id, 7, 7, 0).await;
    let mut black_live = Live::connect(&black, &id).await.unwrap();
    black_live.state().await;
    // White is to move; black resigns.
    let resigned = black
        .resign(&id)
        .await
        .ok(200, "black resigns on white's turn");
    assert_eq!(
        (
            resigned["status"].as_str(),
            resigned["endReason"].as_str(),
            &resigned["winner"]
        ),
        (Some("white_won"), Some("resign"), &json!(2))
    );
    assert_state_consistent(&resigned);
    assert_eq!(black_live.state().await["status"], "white_won");
    white
        .resign(&id)
        .await
        .assert_error(409, "GAME_OVER", "resigning a finished game");
    watcher
        .resign(&id)
        .await
        .assert_error(403, "NOT_A_PLAYER", "a spectator resigning");
    let replay = watcher
        .get(&format!("/api/v1/games/{id}/replay"))
        .await
        .ok(200, "a spectator's replay");
    assert_eq!(replay["endReason"], "resign");
}

/// The creator cancels a waiting game (204, gone for everyone, sockets closed); once joined it
/// belongs to both and stays.
#[tokio::test]
async fn cancelling_an_invitation() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let id = id_of(&black.create_online(json!({})).await);
    let mut live = Live::connect(&black, &id).await.unwrap();
    live.state().await;
    black
        .delete(&format!("/api/v1/games/{id}"))
        .await
        .ok(204, "cancel");
    let (code, _) = live.closed_within(WAIT).await.expect("a close frame");
    assert_eq!(code, 1000);
    white
        .join(&id)
        .await
        .assert_error(404, "GAME_NOT_FOUND", "joining a cancelled game");
    assert!(black.game_ids().await.is_empty());
}

/// `GET /games` lists the online games where the caller is seated (for both players, not for a
/// spectator), `status=playing` includes waiting ones; the cap on unfinished games counts
/// waiting and playing online games, for the creator and for the joiner.
#[tokio::test]
async fn listing_and_the_cap() {
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--max-unfinished-games", "2"])
        .start();
    let (black, white, watcher) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    watcher.game(&id).await;
    for player in [&black, &white] {
        let listed = player.list_all(Some("playing"), 10).await;
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0]["id"], json!(id));
        assert_eq!(
            listed[0]["players"]["black"]["name"],
            black.me().await["name"]
        );
        assert!(listed[0]["you"].is_u64());
    }
    assert!(
        watcher.game_ids().await.is_empty(),
        "a spectator's list stays theirs"
    );

    let waiting = id_of(&black.create_online(json!({})).await);
    assert_eq!(
        black.list_all(Some("playing"), 10).await.len(),
        2,
        "waiting counts as unfinished"
    );
    black
        .post("/api/v1/games", &json!({"mode": "online"}))
        .await
        .assert_error(409, "TOO_MANY_GAMES", "a third unfinished game");
    white.create_online(json!({})).await;
    white
        .join(&waiting)
        .await
        .assert_error(409, "TOO_MANY_GAMES", "joining past the cap");
    black.resign(&id).await.ok(200, "resign");
    assert_eq!(white.list_all(Some("finished"), 10).await.len(), 1);
}

/// Players see each other by name: a default "棋手" and four digits, a chosen one trimmed, each
/// in its seat; nothing but the id and the name of another player is shown.
#[tokio::test]
async fn display_names() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let me = black.me().await;
    let default = me["name"].as_str().unwrap();
    let digits = default.strip_prefix("棋手").expect("a default name");
    assert!(
        digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_digit()),
        "{default}"
    );
    assert_eq!(
        me.as_object().unwrap().len(),
        2,
        "only playerId and name: {me}"
    );

    let renamed = black.rename("  小明  ").await.ok(200, "rename");
    assert_eq!(renamed["name"], "小明");
    assert_eq!(black.me().await["name"], "小明");
    // PATCH does the same as PUT (the mini-program can only send PUT).
    let patched = black
        .rename_with(reqwest::Method::PATCH, "小明")
        .await
        .ok(200, "rename by PATCH");
    assert_eq!(patched["name"], "小明");
    white.rename("小红").await.ok(200, "rename");
    for bad in [
        "",
        "   ",
        "一二三四五六七八九十一二三四五六七",
        "a\nb",
        "tab\there",
    ] {
        black
            .rename(bad)
            .await
            .assert_error(422, "INVALID_NAME", &format!("{bad:?}"));
    }
    assert_eq!(black.me().await["name"], "小明");

    let (id, joined) = start(&black, &white, json!({})).await;
    assert_eq!(joined["players"]["black"]["name"], "小明");
    assert_eq!(joined["players"]["white"]["name"], "小红");
    black.rename("阿明").await.ok(200, "rename in a game");
    let read = white.game(&id).await;
    assert_eq!(
        read["players"]["black"]["name"], "阿明",
        "a new name shows in the game"
    );
    for view in [read.to_string(), white.list_page(&[]).await.text] {
        assert!(!view.contains(&black.token), "no token of another player");
    }
    let seat = read["players"]["black"].as_object().unwrap();
    let mut keys: Vec<&str> = seat.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["name", "online", "playerId", "rating"]);
    assert_eq!(
        seat["rating"],
        Value::Null,
        "an unrated game shows no rating"
    );
}

/// Two players' phones race for one ply, round after round: exactly one move lands, the other
/// gets a clean 409, and the stored moves are exactly the landed ones.
#[tokio::test]
async fn two_phones_race_for_one_ply() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({"boardSize": 19})).await;
    let mut landed = Vec::new();
    for ply in 0..12_i64 {
        let (row, col) = (ply / 19 * 2, ply % 19);
        let body = |r: i64| json!({"row": r, "col": col, "ply": ply});
        let answers = race_players(
            &id,
            vec![(black.clone(), body(row)), (white.clone(), body(row + 1))],
        )
        .await;
        let won: Vec<&Reply> = answers.iter().filter(|r| r.status == 200).collect();
        assert_eq!(won.len(), 1, "ply {ply}: exactly one lands");
        for lost in answers.iter().filter(|r| r.status != 200) {
            lost.assert_error_in(
                &[(409, "NOT_YOUR_TURN"), (409, "PLY_MISMATCH")],
                &format!("ply {ply}: the other phone"),
            );
        }
        landed.push(moves_of(&won[0].body)[ply as usize]);
    }
    // The same player's two requests for one ply: one lands, the other is a mismatch.
    let mover = if landed.len() % 2 == 0 {
        &black
    } else {
        &white
    };
    let ply = landed.len() as i64;
    let answers = race_players(
        &id,
        vec![
            (mover.clone(), json!({"row": 10, "col": 0, "ply": ply})),
            (mover.clone(), json!({"row": 10, "col": 1, "ply": ply})),
        ],
    )
    .await;
    let won = one_landed(&answers, "PLY_MISMATCH", "one player's two requests");
    landed.push(moves_of(&won.body)[ply as usize]);
    let state = black.game(&id).await;
    assert_eq!(moves_of(&state), landed);
    Stored::open(server.database())
        .await
        .assert_game(&state)
        .await;
}

/// The upgrade is refused in the API's JSON shape before it happens: 401 without a valid
/// token, 404 for a game the caller may not see, 426 without the upgrade headers, and 429 for a
/// token's 9th connection (a freed place can be used again).
#[tokio::test]
async fn upgrade_refusals_and_the_ninth_connection() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let id = id_of(&black.create_online(json!({})).await);
    for token in [None, Some("nonsense"), Some(&"ab".repeat(32)[..])] {
        let refused = Live::connect_with(server.base(), &id, token)
            .await
            .err()
            .expect("refused");
        assert_eq!(
            (refused.status, refused.code()),
            (401, "UNAUTHORIZED"),
            "{token:?}"
        );
        assert!(refused.body["error"]["message"].is_string());
    }
    let local = black.create_id(json!({})).await;
    for game in [local.as_str(), "no-such-game"] {
        let refused = Live::connect(&white, game).await.err().expect("refused");
        assert_eq!(
            (refused.status, refused.code()),
            (404, "GAME_NOT_FOUND"),
            "{game}"
        );
    }
    black
        .get(&format!("/api/v1/games/{id}/live"))
        .await
        .assert_error(426, "UPGRADE_REQUIRED", "a plain GET");

    let mut held = Vec::new();
    for _ in 0..8 {
        held.push(
            Live::connect(&white, &id)
                .await
                .expect("up to 8 connections"),
        );
    }
    let ninth = Live::connect(&white, &id)
        .await
        .err()
        .expect("the 9th is refused");
    assert_eq!((ninth.status, ninth.code()), (429, "TOO_MANY_CONNECTIONS"));
    Live::connect(&black, &id)
        .await
        .expect("another token has its own places");
    held.pop().unwrap().close().await;
    // The server frees the place once it sees the close.
    eventually(
        "a freed place used again",
        WAIT,
        async || match Live::connect(&white, &id).await {
            Ok(_) => true,
            Err(refused) => {
                assert_eq!(refused.status, 429);
                false
            }
        },
    )
    .await;
}

/// A socket dropped and reopened gets the current state first, whatever happened meanwhile;
/// presence follows the players' connections.
#[tokio::test]
async fn reconnect_and_presence() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    let mut black_live = Live::connect(&black, &id).await.unwrap();
    black_live.state().await;
    let white_live = Live::connect(&white, &id).await.unwrap();
    black_live.presence_where(|p| p["white"] == true).await;
    white_live.close().await;
    let gone = black_live.presence_where(|p| p["white"] == false).await;
    assert_eq!(gone["black"], true);
    assert_eq!(black.game(&id).await["players"]["white"]["online"], false);

    drop(black_live);
    let last = play_alternately(&black, &white, &id, 0, &[(7, 7), (7, 8), (8, 8)]).await;
    let mut back = Live::connect(&black, &id).await.unwrap();
    let first = back.message().await;
    assert_eq!(first["type"], "state", "the state comes first");
    assert_eq!(shared(&first["game"]), shared(&last));
    assert_eq!(first["game"]["players"]["black"]["online"], true);
    assert_eq!(back.message().await["type"], "presence");
}

/// The server pings a live connection; one that answers stays open, one that stays silent past
/// the idle time is closed (and its player shown offline). Text from a client is ignored.
#[tokio::test]
async fn pings_and_silent_connections() {
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--live-ping-ms", "200", "--live-idle-ms", "1500"])
        .start();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    let mut awake = Live::connect(&black, &id).await.unwrap();
    awake.state().await;
    let mut silent = Live::connect(&white, &id).await.unwrap();
    awake.presence_where(|p| p["white"] == true).await;
    awake.send_text("hello, server").await;
    // Reading answers the pings; the silent socket is not read at all.
    let mut white_dropped = false;
    let until = tokio::time::Instant::now() + Duration::from_secs(4);
    while tokio::time::Instant::now() < until {
        match awake.receive(Duration::from_millis(100)).await {
            Some(Received::Closed(frame)) => {
                panic!("a connection that answers pings was closed: {frame:?}")
            }
            Some(Received::Json(m)) if m["type"] == "presence" && m["white"] == false => {
                white_dropped = true;
            }
            _ => {}
        }
    }
    assert!(white_dropped, "the silent connection was dropped");
    let closed = silent.closed_within(WAIT).await;
    assert!(
        closed.as_ref().is_none_or(|(code, _)| *code == 1001),
        "closed for its silence: {closed:?}"
    );
    awake.close().await;
}

/// Local and ai games carry the new fields too: the owner in the seats they play, `you` null in
/// a local game and the person's colour against the AI, no offers, no clock, and a version that
/// grows by one with every change.
#[tokio::test]
async fn every_mode_shows_seats_and_version() {
    let server = server();
    let (owner, _, _) = three(&server).await;
    let me = owner.me().await;
    let local = owner.create(json!({})).await;
    assert_eq!(local["players"]["black"]["playerId"], me["playerId"]);
    assert_eq!(local["players"]["black"], local["players"]["white"]);
    assert_eq!(local["players"]["black"]["name"], me["name"]);
    assert_eq!(
        (
            local["you"].clone(),
            local["clock"].clone(),
            local["timeControl"].clone()
        ),
        (Value::Null, Value::Null, Value::Null)
    );
    assert_eq!(
        local["offers"],
        json!({"takeback": null, "draw": null, "rematch": null})
    );
    let id = id_of(&local);
    let one = owner.play(&id, 7, 7).await;
    let two = owner.play(&id, 7, 8).await;
    let undone = owner.undo(&id).await.ok(200, "undo");
    let versions: Vec<i64> = [&local, &one, &two, &undone]
        .iter()
        .map(|s| s["version"].as_i64().unwrap())
        .collect();
    assert_eq!(versions, [0, 1, 2, 3]);

    let ai = owner
        .create(json!({"mode": "ai", "ai": {"level": "easy", "player": 1}}))
        .await;
    assert_eq!(ai["you"], 2, "the person plays white against a black AI");
    assert_eq!(ai["players"]["black"], Value::Null, "the AI's seat");
    assert_eq!(ai["players"]["white"]["playerId"], me["playerId"]);
}

/// Anyone holding a valid token and an online game's id may read it, its replay and its
/// export, as a spectator; nobody else's token or openid is in any of them.
#[tokio::test]
async fn spectators_read_replay_and_export() {
    let server = server();
    let (black, white, watcher) = three(&server).await;
    let (id, _) = start(&black, &white, json!({"rule": "renju"})).await;
    let last = play_alternately(&black, &white, &id, 0, &[(7, 7), (7, 8), (8, 8)]).await;
    let seen = watcher.game(&id).await;
    assert_eq!(shared(&seen), shared(&last));
    assert_eq!(seen["you"], Value::Null);
    let replay = watcher
        .get(&format!("/api/v1/games/{id}/replay"))
        .await
        .ok(200, "replay");
    assert_eq!(replay["moveCount"], 3);
    let record = watcher.export(&id).await;
    assert_eq!(
        (record["mode"].as_str(), record["timeControl"].clone()),
        (Some("online"), Value::Null)
    );
    assert_eq!(record["moves"].as_array().unwrap().len(), 3);
    for text in [seen.to_string(), replay.to_string(), record.to_string()] {
        assert!(!text.contains(&black.token) && !text.contains(&white.token));
    }
}

/// A server told to stop (SIGTERM) closes its live sockets with 1001 "going away", so the
/// clients know to reconnect, and exits.
#[tokio::test]
async fn shutdown_closes_live_sockets() {
    let mut server = server();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    let mut live = Live::connect(&white, &id).await.unwrap();
    live.state().await;
    server.terminate();
    let (code, _) = live.closed_within(WAIT).await.expect("a close frame");
    assert_eq!(code, 1001);
    assert!(server.wait_until_exited(WAIT).is_some(), "the server exits");
}

/// The per-token write limit covers online play's writes too: joins, takebacks, draw offers and
/// resignations count like moves.
#[tokio::test]
async fn online_writes_are_rate_limited() {
    let server = gomoku_server!()
        .args(["--write-rate-limit", "1", "--write-burst", "3"])
        .start();
    let (black, white, _) = three(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    // Black's creation was one write; two more fit the burst.
    black.play_at(&id, 7, 7, 0).await;
    white
        .draw(&id, "offer")
        .await
        .ok(200, "white's second write");
    black
        .draw(&id, "decline")
        .await
        .ok(200, "black's third write");
    black
        .takeback(&id, "offer")
        .await
        .assert_rate_limited("a takeback past the burst");
    black
        .resign(&id)
        .await
        .assert_rate_limited("a resignation past the burst");
    white
        .draw(&id, "offer")
        .await
        .ok(200, "white's third write");
    white
        .join(&id)
        .await
        .assert_rate_limited("a join past the burst");
}

/// A spectator who watches an invitation and then joins it counts as a spectator, then as the
/// player at the seat they took: the creator hears both through presence messages, and the join
/// itself as a state.
#[tokio::test]
async fn a_watcher_who_joins_becomes_a_player() {
    let server = server();
    let (black, white, _) = three(&server).await;
    let id = id_of(&black.create_online(json!({"seat": "black"})).await);
    let mut black_live = Live::connect(&black, &id).await.unwrap();
    black_live.state().await;
    let mut white_live = Live::connect(&white, &id).await.unwrap();
    assert_eq!(
        white_live.state().await["you"],
        Value::Null,
        "not seated yet"
    );
    let watching = black_live.presence_where(|p| p["spectators"] == 1).await;
    assert_eq!(watching["white"], false);
    white.join(&id).await.ok(200, "join");
    let joined = black_live.state_where(|g| g["status"] == "playing").await;
    assert_eq!(joined["players"]["white"]["online"], true);
    let seated = black_live.presence().await;
    assert_eq!(
        seated,
        json!({"type": "presence", "black": true, "white": true, "spectators": 0})
    );
    assert_eq!(white_live.state().await["you"], 2, "now seated");
}
