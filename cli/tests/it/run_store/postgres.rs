//! The PostgreSQL store on a server of the test's own (`ptc_testing::postgres`, skipped without
//! the binaries): round trip and filters, instances making the schema at once, reconnection.

use std::process::Command;

use ptc_cli::store::{Filter, LogTarget};

use super::*;

/// A PostgreSQL server of its own, or `None` (skipped, said on stderr) without the binaries.
fn postgres() -> Option<ptc_testing::postgres::Server> {
    ptc_testing::postgres::Server::start()
}

#[test]
fn postgres_store_round_trips_every_event_kind_and_filters_runs() {
    let Some(pg) = postgres() else { return };
    let target: LogTarget = pg.create_database("round_trip").parse().unwrap();
    let psql = pg.bin_dir().join("psql");
    let url = pg.database_url("round_trip");
    assert_round_trip(&target, || {
        let o = Command::new(&psql)
            .args([url.as_str(), "-tAc", "select count(*) from blobs"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
    });
    let target: LogTarget = pg.create_database("filters").parse().unwrap();
    assert_filters(&target);
}

#[test]
fn postgres_stores_starting_at_once_make_the_schema_once() {
    let Some(pg) = postgres() else { return };
    let target: LogTarget = pg.create_database("racing").parse().unwrap();
    let opened: Vec<_> = (0..4)
        .map(|i| {
            let target = target.clone();
            std::thread::spawn(move || {
                let store = open(&target, &format!("i{i}"));
                append_all(&store, &run_events(&format!("r{i}"), i, "v"));
                store.close();
                store.failure()
            })
        })
        .collect();
    for store in opened {
        assert_eq!(store.join().unwrap(), None);
    }
    assert_eq!(runs(&target, &Filter::default()).len(), 4);
}

#[test]
fn postgres_store_reconnects_after_losing_its_connection_without_losing_events() {
    let Some(pg) = postgres() else { return };
    let target: LogTarget = pg.create_database("reconnect").parse().unwrap();
    let store = open(&target, "A");
    append_all(&store, &run_events("before", 1, "v"));
    store.flush();
    // The server ends the store's connection (as a restart or a proxy would).
    let o = Command::new(pg.bin_dir().join("psql"))
        .args([
            pg.url().as_str(),
            "-tAc",
            "select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity \
             where application_name = 'ptc' and datname = 'reconnect') t",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "1", "{o:?}");
    append_all(&store, &run_events("after", 2, "w"));
    store.close();
    assert_eq!(store.failure(), None, "nothing dropped or lost");
    assert_eq!(ids(&runs(&target, &Filter::default())), ["before", "after"]);
    assert_eq!(read(&target, &Filter::default()).len(), 10);
}
