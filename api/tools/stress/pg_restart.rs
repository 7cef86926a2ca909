//! `pg-restart`: a flag that falls while PostgreSQL is down, again and again (issue 23). Two
//! instances on a database of a private throwaway cluster (`scripts/pg-cluster.sh`, PostgreSQL's
//! programs must be installed); each trial is the testkit's
//! [`flag_fall_across_restart`](gomoku_testkit::restart::flag_fall_across_restart): a timed game
//! with one player's socket on each instance, the database stopped across the deadline and
//! started again. Prints how many trials delivered the timed-out state to both sockets, and how
//! long after the database's return and after both listeners' return the later of the two came
//! (p50, max). A trial that did not deliver is a violation.

use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use gomoku_testkit::postgres::Cluster;
use gomoku_testkit::restart::flag_fall_across_restart;
use gomoku_testkit::{percentile, Database, Server, ServerBinary, Stats};
use rand::rngs::StdRng;
use rand::Rng;

#[derive(Args, Clone)]
pub struct PgRestartArgs {
    /// Trials: each stops and starts PostgreSQL once.
    #[arg(long, default_value_t = 30)]
    trials: usize,
    /// Longest time the database stays down past the deadline, in ms; each trial draws its own
    /// from 200 ms up to this (so the listeners come back at every step of their reconnecting).
    #[arg(long, default_value_t = 15000)]
    max_down_ms: u64,
}

pub async fn run(
    bin: &ServerBinary,
    args: &PgRestartArgs,
    rng: &mut StdRng,
) -> (Arc<Stats>, String) {
    let stats = Stats::counting();
    if !Cluster::installed() {
        stats.violation("PostgreSQL's programs are not installed (apt-get install postgresql)");
        return (stats, "pg-restart: not run".into());
    }
    let cluster = Cluster::start(false);
    let database = Database::postgres_on(cluster.url());
    let builder = Server::builder(bin.clone())
        .database(&database)
        .args(["--write-rate-limit", "0"])
        .capture_log();
    let (a, b) = (builder.clone().start(), builder.start());
    let (mut delivered, mut void) = (0, 0);
    let (mut after_database, mut after_listeners) = (Vec::new(), Vec::new());
    for i in 0..args.trials {
        let down = Duration::from_millis(rng.gen_range(200..=args.max_down_ms.max(200)));
        let trial = flag_fall_across_restart(&cluster, &database, (&a, &b), down).await;
        println!("trial {i}, down {down:?} past the deadline: {trial:?}");
        if let Some(why) = &trial.void {
            println!("  void: {why}");
            void += 1;
            continue;
        }
        if trial.delivered == 2 {
            delivered += 1;
        } else {
            stats.violation(format!(
                "trial {i}: {} of 2 sockets got the timeout",
                trial.delivered
            ));
        }
        after_database.extend(trial.after_database);
        after_listeners.extend(trial.after_listeners);
    }
    after_database.sort();
    after_listeners.sort();
    let ms = |d: Duration| d.as_millis();
    let summary = format!(
        "pg-restart: {delivered}/{} trials delivered the timeout to both sockets ({void} void); \
         after the database's return p50 {} ms, max {} ms; after both listeners' return p50 {} ms, \
         max {} ms",
        args.trials - void,
        ms(percentile(&after_database, 0.5)),
        ms(percentile(&after_database, 1.0)),
        ms(percentile(&after_listeners, 0.5)),
        ms(percentile(&after_listeners, 1.0)),
    );
    if delivered < args.trials - void {
        for (name, server) in [("A", &a), ("B", &b)] {
            println!("--- instance {name}'s log ---\n{}", server.log_text());
        }
    }
    (stats, summary)
}
