//! The throwaway PostgreSQL server helper: it starts, answers queries over TCP, and stops on drop.

use std::process::Command;

#[test]
fn postgres_server_starts_answers_queries_and_stops_when_dropped() {
    let Some(pg) = ptc_testing::postgres::Server::start() else {
        return;
    };
    let psql = pg.bin_dir().join("psql");
    let query = |url: &str| {
        Command::new(&psql)
            .args([url, "-tAc", "select 40 + 2"])
            .output()
            .expect("psql runs")
    };
    let out = query(&pg.url());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "42");
    let other = pg.create_database("second");
    assert!(other.ends_with("/second"), "{other}");
    assert!(query(&other).status.success());

    let url = pg.url();
    let socket = pg.socket_dir().join(format!(".s.PGSQL.{}", pg.port()));
    assert!(socket.exists(), "the unix socket lies in the temp dir");
    drop(pg);
    assert!(!query(&url).status.success(), "the server stopped on drop");
}
