//! Online play's machinery below the HTTP layer: the Fischer clock's arithmetic ([`clock`],
//! pure), what the actions on takeback, draw and rematch offers decide ([`offers`], pure), the
//! live hub that carries committed changes and presence to WebSocket connections ([`hub`]), and
//! the timers that end a game when its flag falls, and clear an offer when it lapses, with no
//! request to notice it ([`timers`]).
//!
//! The hub and the timers are what only one process can know: which sockets are open here, and
//! which timers run here. Both are fed by the store's [`Watch`](crate::store::Watch) hooks, in
//! commit order. With several server instances on one database, each instance's hub must also
//! hear of the others' commits (PostgreSQL's `LISTEN/NOTIFY`), and every instance may arm a timer
//! for the same game: the version-guarded write decides which one ends it, and the rest change
//! nothing.

pub mod clock;
pub mod hub;
pub mod offers;
pub mod timers;
