//! Opening rules (issue 26) through the real `gomoku-server` binary: real HTTP and WebSockets on
//! 127.0.0.1, a real SQLite file.
//!
//! Written from the contract (docs: README "Opening rules"): an online swap2 game through each of
//! its branches, a Taraguchi-10 renju game through its swaps and through the ten-offer branch,
//! every wrong step answered with its code and status and nothing stored changed, a spectator's
//! view, the live socket receiving each step, and games against the AI with each rule where the
//! AI proposes and where it chooses. Positions are `(row, col)` on a 15×15 board, centre (7, 7).

use gomoku_testkit::state::id_of;
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{gomoku_server, Api, Live, Player, Reply, Server, NO_RATE_LIMIT};
use serde_json::{json, Value};

fn server() -> Server {
    gomoku_server!().args(NO_RATE_LIMIT).start()
}

async fn step(player: &Player, id: &str, body: Value) -> Reply {
    player
        .post(&format!("/api/v1/games/{id}/opening"), &body)
        .await
}

async fn place(player: &Player, id: &str, row: i64, col: i64) -> Value {
    step(player, id, json!({"step": "place", "row": row, "col": col}))
        .await
        .ok(200, &format!("place ({row}, {col})"))
}

async fn choose(player: &Player, id: &str, choice: &str) -> Value {
    step(player, id, json!({"step": "choose", "choice": choice}))
        .await
        .ok(200, &format!("choose {choice}"))
}

/// An online game with `opening` under `rule`, created by the first player and joined by the
/// second; its id.
async fn online(server: &Server, rule: &str, opening: &str) -> (Player, Player, String) {
    let api = Api::on(server);
    let (first, second) = (api.new_player().await, api.new_player().await);
    let created = first
        .create_online(json!({"rule": rule, "opening": opening}))
        .await;
    let id = id_of(&created);
    second.join(&id).await.ok(200, "join");
    (first, second, id)
}

fn player_id(game: &Value, colour: &str) -> Value {
    game["players"][colour]["playerId"].clone()
}

/// Swap2, second takes black: three stones by the first player (the opening object guiding each
/// one), then the second's choice settles the colours; the second holds black, white (the first
/// player) moves, and ordinary moves go on.
#[tokio::test]
async fn swap2_second_takes_black() {
    let server = server();
    let (first, second, id) = online(&server, "freestyle", "swap2").await;
    let state = first.game(&id).await;
    let opening = &state["opening"];
    assert_eq!(opening["rule"], "swap2");
    assert_eq!(opening["phase"], "place");
    assert_eq!(opening["by"], "first");
    assert_eq!(opening["yourSeat"], "first");
    assert_eq!(opening["yourTurn"], true);
    assert_eq!(opening["stone"], 1);
    assert_eq!(opening["left"], 3);
    assert_eq!(opening["zone"], Value::Null);
    assert_eq!(opening["blackSeat"], "first");
    assert_eq!(state["currentPlayer"], Value::Null);

    place(&first, &id, 7, 7).await;
    let two = place(&first, &id, 7, 8).await;
    assert_eq!(
        (&two["opening"]["stone"], &two["opening"]["left"]),
        (&json!(1), &json!(1))
    );
    let three = place(&first, &id, 8, 8).await;
    assert_eq!(three["opening"]["phase"], "choose");
    assert_eq!(three["opening"]["by"], "second");
    assert_eq!(
        three["opening"]["options"],
        json!(["black", "white", "place_two"])
    );
    assert_eq!(three["moveHistory"].as_array().unwrap().len(), 3);
    assert_eq!(three["board"][7][8], 2);

    let done = choose(&second, &id, "black").await;
    assert_eq!(done["opening"]["phase"], "done");
    assert_eq!(done["opening"]["by"], Value::Null);
    assert_eq!(done["opening"]["blackSeat"], "second");
    assert_eq!(done["you"], 1, "the second player took black");
    assert_eq!(done["currentPlayer"], 2);
    assert_eq!(player_id(&done, "black"), second.me().await["playerId"]);
    assert_eq!(first.game(&id).await["you"], 2);
    let steps = done["opening"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    assert_eq!(
        steps[3],
        json!({"by": "second", "kind": "choose", "choice": "black"})
    );
    assert_eq!(
        steps[0],
        json!({"by": "first", "kind": "place", "point": {"row": 7, "col": 7}})
    );
    // White (the first player) moves; black may not.
    second
        .try_move(&id, 0, 0)
        .await
        .assert_error(409, "NOT_YOUR_TURN", "black out of turn");
    let moved = first.play(&id, 6, 6).await;
    assert_eq!(moved["currentPlayer"], 1);
}

/// Swap2, second takes white and plays the 4th stone as the game's first ordinary move.
#[tokio::test]
async fn swap2_second_takes_white_and_plays() {
    let server = server();
    let (first, second, id) = online(&server, "standard", "swap2").await;
    for (row, col) in [(7, 7), (7, 8), (8, 8)] {
        place(&first, &id, row, col).await;
    }
    let done = choose(&second, &id, "white").await;
    assert_eq!(done["opening"]["blackSeat"], "first");
    assert_eq!(
        (&done["you"], &done["currentPlayer"]),
        (&json!(2), &json!(2))
    );
    let moved = second.play(&id, 6, 7).await;
    assert_eq!(moved["moveHistory"].as_array().unwrap().len(), 4);
    assert_eq!(moved["currentPlayer"], 1);
}

/// A rematch of a swap2 game is a swap2 game, the other player proposing this time, whoever
/// took black last time: its opening starts afresh (nothing placed, the new proposer to act, no
/// clock running), and a step by the last proposer is refused.
#[tokio::test]
async fn a_rematch_keeps_the_opening_and_the_other_player_proposes() {
    let server = server();
    for choice in ["black", "white"] {
        let (first, second, id) = online(&server, "freestyle", "swap2").await;
        for (row, col) in [(7, 7), (7, 8), (8, 8)] {
            place(&first, &id, row, col).await;
        }
        choose(&second, &id, choice).await;
        first.resign(&id).await.ok(200, "resign");
        second
            .rematch(&id, "offer")
            .await
            .ok(200, "offer a rematch");
        let accepted = first.rematch(&id, "accept").await.ok(200, "accept");
        let new_id = accepted["rematchGameId"]
            .as_str()
            .expect("the rematch")
            .to_string();
        let new = second.game(&new_id).await;
        let opening = &new["opening"];
        assert_eq!(opening["rule"], "swap2", "{choice}: {new}");
        assert_eq!(opening["phase"], "place", "{choice}");
        assert_eq!(
            opening["yourSeat"], "first",
            "{choice}: the second player proposes"
        );
        assert_eq!(opening["yourTurn"], true, "{choice}");
        assert_eq!(opening["steps"], json!([]), "{choice}");
        assert_eq!(new["moveHistory"], json!([]), "{choice}");
        assert_eq!(player_id(&new, "black"), second.me().await["playerId"]);
        assert_eq!(first.game(&new_id).await["opening"]["yourSeat"], "second");
        step(
            &first,
            &new_id,
            json!({"step": "place", "row": 7, "col": 7}),
        )
        .await
        .assert_error(409, "NOT_YOUR_TURN", "the last proposer places");
        let placed = place(&second, &new_id, 7, 7).await;
        assert_eq!(placed["opening"]["left"], 2, "{choice}");
    }
}

/// Swap2, second places two more (white, then black) and the first player chooses the colour.
#[tokio::test]
async fn swap2_second_places_two_and_first_chooses() {
    let server = server();
    let (first, second, id) = online(&server, "freestyle", "swap2").await;
    for (row, col) in [(7, 7), (7, 8), (8, 8)] {
        place(&first, &id, row, col).await;
    }
    let two = choose(&second, &id, "place_two").await;
    assert_eq!(two["opening"]["phase"], "place");
    assert_eq!(two["opening"]["by"], "second");
    assert_eq!(
        (&two["opening"]["stone"], &two["opening"]["left"]),
        (&json!(2), &json!(2))
    );
    place(&second, &id, 6, 9).await;
    let five = place(&second, &id, 9, 9).await;
    assert_eq!(five["opening"]["phase"], "choose");
    assert_eq!(five["opening"]["by"], "first");
    assert_eq!(five["opening"]["options"], json!(["black", "white"]));
    let done = choose(&first, &id, "white").await;
    assert_eq!(done["opening"]["blackSeat"], "second");
    assert_eq!(
        (&done["you"], &done["currentPlayer"]),
        (&json!(2), &json!(2))
    );
    assert_eq!(player_id(&done, "black"), second.me().await["playerId"]);
    first.play(&id, 5, 5).await;
}

/// Every wrong step and every ordinary action during a swap2 opening is refused with its code
/// and status, and the stored game does not change.
#[tokio::test]
async fn swap2_wrong_steps_change_nothing() {
    let server = server();
    let api = Api::on(&server);
    let (first, second, watcher) = (
        api.new_player().await,
        api.new_player().await,
        api.new_player().await,
    );
    let mut stored = Stored::open(server.database()).await;

    // Settings: an opening is for online and ai games, under the rule it belongs to.
    for (body, what) in [
        (json!({"opening": "swap2"}), "a local game"),
        (
            json!({"mode": "online", "rule": "renju", "opening": "swap2"}),
            "swap2 under renju",
        ),
        (
            json!({"mode": "online", "rule": "freestyle", "opening": "taraguchi10"}),
            "taraguchi10 under freestyle",
        ),
        (
            json!({"mode": "online", "opening": "soosorv8"}),
            "an unknown rule",
        ),
        (
            json!({"mode": "online", "opening": "swap2", "seat": "white"}),
            "a seat with an opening",
        ),
    ] {
        first
            .post("/api/v1/games", &body)
            .await
            .assert_error(422, "INVALID_SETTINGS", what);
    }

    let created = first.create_online(json!({"opening": "swap2"})).await;
    assert_eq!(
        created["you"], 1,
        "the creator is the first seat, black for now"
    );
    let id = id_of(&created);
    let before = stored.dump().await;
    step(&first, &id, json!({"step": "place", "row": 7, "col": 7}))
        .await
        .assert_error(409, "WAITING_FOR_OPPONENT", "a step before the join");
    assert_eq!(stored.dump().await, before);
    second.join(&id).await.ok(200, "join");
    place(&first, &id, 7, 7).await;

    let before = stored.dump().await;
    let refusals: Vec<(&Player, Value, u16, &str, &str)> = vec![
        (
            &second,
            json!({"step": "place", "row": 0, "col": 0}),
            409,
            "NOT_YOUR_TURN",
            "wrong seat",
        ),
        (
            &first,
            json!({"step": "choose", "choice": "black"}),
            409,
            "WRONG_STEP",
            "wrong kind",
        ),
        (
            &first,
            json!({"step": "place", "row": 7, "col": 7}),
            409,
            "CELL_OCCUPIED",
            "occupied",
        ),
        (
            &first,
            json!({"step": "place", "row": 15, "col": 0}),
            422,
            "OUT_OF_BOUNDS",
            "off the board",
        ),
        (
            &first,
            json!({"step": "place", "row": -1, "col": 0}),
            422,
            "OUT_OF_BOUNDS",
            "negative",
        ),
        (
            &first,
            json!({"step": "place", "row": 3, "col": 3, "ply": 0}),
            409,
            "PLY_MISMATCH",
            "stale ply",
        ),
        (
            &watcher,
            json!({"step": "place", "row": 3, "col": 3}),
            403,
            "NOT_A_PLAYER",
            "a spectator",
        ),
        (
            &first,
            json!({"step": "dance"}),
            400,
            "INVALID_JSON",
            "unknown step",
        ),
        (
            &first,
            json!({"step": "choose", "choice": "maybe"}),
            400,
            "INVALID_JSON",
            "unknown choice",
        ),
    ];
    for (player, body, status, code, what) in refusals {
        step(player, &id, body)
            .await
            .assert_error(status, code, what);
        assert_eq!(stored.dump().await, before, "{what} changed stored data");
    }
    // A retried stone (its ply and point) answers the game as it is.
    let retried = step(
        &first,
        &id,
        json!({"step": "place", "row": 7, "col": 7, "ply": 0}),
    )
    .await
    .ok(200, "a retried stone");
    assert_eq!(retried["moveHistory"].as_array().unwrap().len(), 1);
    assert_eq!(stored.dump().await, before);

    // Ordinary actions wait for the opening.
    first.try_move(&id, 3, 3).await.assert_error(
        409,
        "OPENING_IN_PROGRESS",
        "a move during the opening",
    );
    first.takeback(&id, "offer").await.assert_error(
        409,
        "OPENING_IN_PROGRESS",
        "a takeback during the opening",
    );
    first.draw(&id, "offer").await.assert_error(
        409,
        "OPENING_IN_PROGRESS",
        "a draw during the opening",
    );
    assert_eq!(stored.dump().await, before);

    place(&first, &id, 7, 8).await;
    place(&first, &id, 8, 8).await;
    let before = stored.dump().await;
    step(
        &second,
        &id,
        json!({"step": "choose", "choice": "offer_ten"}),
    )
    .await
    .assert_error(422, "NOT_AN_OPTION", "offer_ten in swap2");
    step(&second, &id, json!({"step": "place", "row": 1, "col": 1}))
        .await
        .assert_error(409, "WRONG_STEP", "a stone when a choice is due");
    assert_eq!(stored.dump().await, before);

    choose(&second, &id, "black").await;
    let before = stored.dump().await;
    step(&first, &id, json!({"step": "place", "row": 1, "col": 1}))
        .await
        .assert_error(409, "OPENING_OVER", "a step after the opening");
    assert_eq!(stored.dump().await, before);

    // A game without an opening has no steps.
    let plain = id_of(&first.create(json!({})).await);
    step(&first, &plain, json!({"step": "place", "row": 1, "col": 1}))
        .await
        .assert_error(409, "NO_OPENING", "a game without an opening");
}

/// Taraguchi-10 (renju) through the swaps, with a spectator and a live socket: every stone in
/// its central square, each swap moving the seats, then black places the 5th stone and white's
/// last swap ends it. The socket receives every step's state, and the spectator sees the opening
/// without a seat.
#[tokio::test]
async fn taraguchi_through_the_swaps() {
    let server = server();
    let (first, second, id) = online(&server, "renju", "taraguchi10").await;
    let watcher = Api::on(&server).new_player().await;
    let mut stored = Stored::open(server.database()).await;
    let mut live = Live::connect(&second, &id).await.expect("second connects");
    let start = live.state().await;
    assert_eq!(start["opening"]["zone"], json!({"side": 1}));
    assert_eq!(start["opening"]["yourSeat"], "second");
    assert_eq!(start["opening"]["yourTurn"], false);

    let before = stored.dump().await;
    step(&first, &id, json!({"step": "place", "row": 6, "col": 6}))
        .await
        .assert_error(422, "OUTSIDE_ZONE", "the 1st stone off the centre");
    assert_eq!(stored.dump().await, before);

    let s = place(&first, &id, 7, 7).await;
    assert_eq!(
        live.state_at(s["version"].as_i64().unwrap()).await["moveHistory"],
        s["moveHistory"]
    );
    assert_eq!(s["opening"]["phase"], "choose");
    assert_eq!(s["opening"]["by"], "second");
    assert_eq!(s["opening"]["options"], json!(["black", "white"]));

    let s = choose(&second, &id, "white").await;
    assert_eq!(s["opening"]["zone"], json!({"side": 3}));
    assert_eq!(s["opening"]["by"], "second", "white places the 2nd stone");
    let pushed = live.state_at(s["version"].as_i64().unwrap()).await;
    assert_eq!(pushed["opening"]["yourTurn"], true);

    let before = stored.dump().await;
    step(&second, &id, json!({"step": "place", "row": 5, "col": 5}))
        .await
        .assert_error(422, "OUTSIDE_ZONE", "the 2nd stone outside 3×3");
    assert_eq!(stored.dump().await, before);
    place(&second, &id, 6, 7).await;

    // The first player (black) swaps: takes white.
    let s = choose(&first, &id, "white").await;
    assert_eq!(s["opening"]["blackSeat"], "second");
    assert_eq!(player_id(&s, "black"), second.me().await["playerId"]);
    assert_eq!(s["you"], 2);
    assert_eq!(s["opening"]["by"], "second", "black places the 3rd stone");
    let pushed = live.state_at(s["version"].as_i64().unwrap()).await;
    assert_eq!(pushed["you"], 1, "pushed to the second player, now black");

    place(&second, &id, 8, 8).await;
    choose(&first, &id, "white").await;
    place(&first, &id, 6, 9).await;
    let s = second.game(&id).await;
    assert_eq!(
        s["opening"]["options"],
        json!(["black", "white", "offer_ten"])
    );
    let seen = watcher.game(&id).await;
    assert_eq!(seen["opening"]["yourSeat"], Value::Null);
    assert_eq!(seen["opening"]["yourTurn"], false);
    assert_eq!(seen["opening"]["steps"], s["opening"]["steps"]);
    assert_eq!(seen["currentPlayer"], Value::Null);

    // Black keeps black and places the 5th inside 9×9; white's last swap ends the opening.
    let s = choose(&second, &id, "black").await;
    assert_eq!(s["opening"]["zone"], json!({"side": 9}));
    place(&second, &id, 9, 6).await;
    let done = choose(&first, &id, "black").await;
    assert_eq!(done["opening"]["phase"], "done");
    assert_eq!(done["opening"]["blackSeat"], "first");
    assert_eq!(done["you"], 1);
    assert_eq!(done["currentPlayer"], 2, "white moves after five stones");
    assert_eq!(done["moveHistory"].as_array().unwrap().len(), 5);
    let pushed = live.state_at(done["version"].as_i64().unwrap()).await;
    assert_eq!(pushed["you"], 2);
    second.play(&id, 3, 3).await;
}

/// Taraguchi-10's ten-offer branch on a position symmetric left to right (every stone on the
/// centre column): wrong counts, duplicates and mirror images are refused, ten different points
/// are offered, a point not offered cannot be picked, and picking one ends the opening.
#[tokio::test]
async fn taraguchi_ten_offers() {
    let server = server();
    let (first, second, id) = online(&server, "renju", "taraguchi10").await;
    let mut stored = Stored::open(server.database()).await;
    place(&first, &id, 7, 7).await;
    choose(&second, &id, "white").await;
    place(&second, &id, 6, 7).await;
    choose(&first, &id, "black").await;
    place(&first, &id, 8, 7).await;
    choose(&second, &id, "white").await;
    place(&second, &id, 5, 7).await;
    let s = choose(&first, &id, "offer_ten").await;
    assert_eq!(s["opening"]["phase"], "offer");
    assert_eq!(s["opening"]["by"], "first");
    assert_eq!(s["opening"]["count"], 10);

    let points = |cols: &[(i64, i64)]| {
        Value::Array(
            cols.iter()
                .map(|&(row, col)| json!({"row": row, "col": col}))
                .collect(),
        )
    };
    // Ten points on the left half: no two are mirror images.
    let ten = [
        (7, 0),
        (7, 1),
        (7, 2),
        (7, 3),
        (7, 4),
        (7, 5),
        (7, 6),
        (0, 0),
        (0, 1),
        (0, 2),
    ];
    let before = stored.dump().await;
    let mut duplicate = ten;
    duplicate[9] = (7, 0);
    let mut mirrored = ten;
    mirrored[9] = (7, 8);
    let mut occupied = ten;
    occupied[9] = (6, 7);
    for (offer, status, code, what) in [
        (points(&ten[..9]), 422, "OFFER_COUNT", "nine points"),
        (points(&duplicate), 422, "DUPLICATE_OFFER", "a point twice"),
        (points(&mirrored), 422, "SYMMETRIC_OFFERS", "a mirror image"),
        (points(&occupied), 409, "CELL_OCCUPIED", "an occupied point"),
    ] {
        step(&first, &id, json!({"step": "offer", "points": offer}))
            .await
            .assert_error(status, code, what);
        assert_eq!(stored.dump().await, before, "{what} changed stored data");
    }
    step(
        &second,
        &id,
        json!({"step": "offer", "points": points(&ten)}),
    )
    .await
    .assert_error(409, "NOT_YOUR_TURN", "white offers");

    let s = step(
        &first,
        &id,
        json!({"step": "offer", "points": points(&ten)}),
    )
    .await
    .ok(200, "ten offers");
    assert_eq!(s["opening"]["phase"], "pick");
    assert_eq!(s["opening"]["by"], "second");
    assert_eq!(s["opening"]["offers"], points(&ten));
    assert_eq!(
        s["moveHistory"].as_array().unwrap().len(),
        4,
        "nothing placed yet"
    );

    let before = stored.dump().await;
    step(&second, &id, json!({"step": "pick", "row": 1, "col": 1}))
        .await
        .assert_error(422, "NOT_OFFERED", "a point not offered");
    step(&second, &id, json!({"step": "choose", "choice": "white"}))
        .await
        .assert_error(409, "WRONG_STEP", "a choice when a pick is due");
    assert_eq!(stored.dump().await, before);

    let done = step(&second, &id, json!({"step": "pick", "row": 0, "col": 2}))
        .await
        .ok(200, "pick");
    assert_eq!(done["opening"]["phase"], "done");
    assert_eq!(done["board"][0][2], 1, "the pick is black's 5th stone");
    assert_eq!(done["currentPlayer"], 2);
    assert_eq!(done["you"], 2);
    let last = &done["opening"]["steps"][9];
    assert_eq!(last["kind"], "pick");
    second.play(&id, 10, 10).await;
}

/// The first empty point of the opening's zone nearest the centre.
fn free_point(state: &Value) -> (i64, i64) {
    let size = state["boardSize"].as_i64().unwrap();
    let centre = size / 2;
    let half = state["opening"]["zone"]["side"]
        .as_i64()
        .map_or(size, |side| side / 2);
    let mut points: Vec<(i64, i64)> = (0..size)
        .flat_map(|r| (0..size).map(move |c| (r, c)))
        .filter(|&(r, c)| (r - centre).abs() <= half && (c - centre).abs() <= half)
        .filter(|&(r, c)| state["board"][r as usize][c as usize] == 0)
        .collect();
    points.sort_by_key(|&(r, c)| ((r - centre).abs().max((c - centre).abs()), r, c));
    points[0]
}

/// Plays the person's side of an opening against the AI to its end: after every answer it is
/// the person's turn in the opening, or the opening is done and (the AI having made its first
/// move when it held the side to move) the person is to move. The final state.
async fn person_plays_opening(person: &Player, mut state: Value) -> Value {
    for _ in 0..12 {
        let opening = &state["opening"];
        if opening["phase"] == "done" {
            assert_eq!(
                state["currentPlayer"], state["you"],
                "the person moves after the opening"
            );
            return state;
        }
        assert_eq!(opening["yourTurn"], true, "the AI has acted: {opening}");
        let id = id_of(&state);
        let body = match opening["phase"].as_str().unwrap() {
            "place" => {
                let (row, col) = free_point(&state);
                json!({"step": "place", "row": row, "col": col})
            }
            "choose" => {
                let choice = opening["options"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| *c != "offer_ten")
                    .unwrap()
                    .clone();
                json!({"step": "choose", "choice": choice})
            }
            "pick" => {
                let p = &opening["offers"][0];
                json!({"step": "pick", "row": p["row"], "col": p["col"]})
            }
            other => panic!("the person is not asked to {other} here"),
        };
        state = step(person, &id, body).await.ok(200, "the person's step");
    }
    panic!("the opening did not end: {}", state["opening"]);
}

/// Against the AI, each rule, the AI as proposer (first seat: its first steps are made when the
/// game is created) and as chooser (second seat): every answer leaves the person to act, and
/// once the opening is done the game goes on with the person to move.
#[tokio::test]
async fn ai_proposes_and_chooses() {
    let server = server();
    let person = Api::on(&server).new_player().await;
    for (rule, opening) in [("freestyle", "swap2"), ("renju", "taraguchi10")] {
        for seat in ["second", "first"] {
            let created = person
                .create(json!({
                    "mode": "ai", "rule": rule, "opening": opening, "openingSeat": seat,
                    "ai": {"level": "easy"},
                }))
                .await;
            let what = format!("{opening}, person {seat}");
            assert_eq!(created["opening"]["yourSeat"], seat, "{what}");
            assert_eq!(created["opening"]["yourTurn"], true, "{what}");
            if seat == "second" {
                let placed = created["moveHistory"].as_array().unwrap().len();
                let expected = if opening == "swap2" { 3 } else { 1 };
                assert_eq!(placed, expected, "{what}: the AI's first stones");
                assert_eq!(created["opening"]["phase"], "choose", "{what}");
            } else {
                assert_eq!(created["moveHistory"], json!([]), "{what}");
            }
            let id = id_of(&created);
            person
                .try_move(&id, 0, 0)
                .await
                .assert_error(409, "OPENING_IN_PROGRESS", &what);
            person
                .undo(&id)
                .await
                .assert_error(409, "OPENING_IN_PROGRESS", &what);
            let done = person_plays_opening(&person, created).await;
            let ai = done["ai"]["player"].as_i64().unwrap();
            assert_eq!(done["you"].as_i64().unwrap(), 3 - ai, "{what}");
            // The opening's stones stay: undo takes back ordinary moves only.
            let stones = done["opening"]["steps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["kind"] == "place" || s["kind"] == "pick")
                .count();
            if done["moveHistory"].as_array().unwrap().len() == stones {
                person
                    .undo(&id)
                    .await
                    .assert_error(409, "NOTHING_TO_UNDO", &what);
            }
        }
    }
}
