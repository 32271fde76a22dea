//! A store whose database becomes a standby in recovery refuses its connections with a clear
//! `Unavailable`, and works again, without being reopened, once the standby is promoted.

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::time::{Duration, Instant};

use shinpan_storage::embedded::{find_bin_dir, EmbeddedOptions, EmbeddedPostgres};
use shinpan_storage::primary::IN_RECOVERY;
use shinpan_storage::*;

/// `pg_ctl <args> -D <data_dir>` as the owner of the data directory (PostgreSQL refuses root).
fn pg_ctl(data_dir: &Path, args: &[&str]) {
    let owner = std::fs::metadata(data_dir).unwrap();
    let mut cmd = std::process::Command::new(find_bin_dir().unwrap().join("pg_ctl"));
    if owner.uid() != unsafe { libc::geteuid() } {
        cmd.uid(owner.uid()).gid(owner.gid());
    }
    let out = cmd.args(args).arg("-D").arg(data_dir).env("LC_ALL", "C.UTF-8").stdin(std::process::Stdio::null()).output().unwrap();
    assert!(out.status.success(), "pg_ctl {args:?}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

async fn new_game(store: &Store) -> Game {
    let b = store.upsert_player(&NewPlayer { name: "Honinbo Dosaku".into(), ..Default::default() }).await.unwrap();
    let w = store.upsert_player(&NewPlayer { name: "Yasui Santetsu".into(), ..Default::default() }).await.unwrap();
    store.create_game(&NewGame::between(b.id, w.id)).await.unwrap().game
}

/// Records move `n` (a point on the first line, distinct per move) with a key.
async fn record(store: &Store, game: &Game, n: i32) -> StoreResult<WriteOutcome> {
    let colour = if n % 2 == 1 { Color::Black } else { Color::White };
    let point = format!("{}a", (b'a' + n as u8) as char);
    store.write(GameWrite::new_move(game.id, n, colour, Some(&point)).with_key(format!("k{n}"))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_in_recovery_is_refused_and_the_store_comes_back_after_its_promotion() {
    let root = std::env::temp_dir().join(format!("shinpan-standby-test-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&root).unwrap();
    let dir = root.join("pg");
    let mut opts = EmbeddedOptions::persistent(&dir);
    opts.unix_socket = false;
    let mut pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(opts)).await.unwrap().unwrap();
    let url = pg.ensure_database("shinpan").await.unwrap();
    let store = Store::connect_with(&url, 4).await.unwrap();
    let game = new_game(&store).await;
    record(&store, &game, 1).await.unwrap();

    // The server comes back as a standby (as an old primary does after a failover): a clean
    // stop, `standby.signal`, the same port. It accepts connections and is in recovery.
    pg_ctl(pg.data_dir(), &["stop", "-m", "fast", "-w"]);
    let signal = pg.data_dir().join("standby.signal");
    std::fs::write(&signal, "").unwrap();
    let owner = std::fs::metadata(pg.data_dir()).unwrap();
    std::os::unix::fs::chown(&signal, Some(owner.uid()), Some(owner.gid())).unwrap();
    pg = tokio::task::spawn_blocking(move || {
        pg.restart().unwrap();
        pg
    })
    .await
    .unwrap();
    let mut direct = <sqlx::PgConnection as sqlx::Connection>::connect(&url).await.unwrap();
    let in_recovery: bool = sqlx::query_scalar("SELECT pg_is_in_recovery()").fetch_one(&mut direct).await.unwrap();
    assert!(in_recovery, "the restarted server is a standby");

    // Writes are refused with a message that says why and what to do. The first may fail on
    // the connection the stop broke; every failure is Unavailable.
    let deadline = Instant::now() + Duration::from_secs(20);
    let refused = loop {
        match record(&store, &game, 2).await {
            Err(StoreError::Unavailable(m)) if m.contains(IN_RECOVERY) => break m,
            Err(StoreError::Unavailable(_)) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(50)).await,
            other => panic!("a write to a standby: {other:?}"),
        }
    };
    assert!(refused.contains("retry the call"), "{refused}");
    // The pool's connections are refused too: a read waits out the acquire timeout and says why.
    match store.ping().await {
        Err(StoreError::Unavailable(m)) => assert!(m.contains(IN_RECOVERY), "{m}"),
        other => panic!("a ping of a standby: {other:?}"),
    }
    // A store is not opened on a standby.
    match Store::connect_with(&url, 2).await {
        Err(StoreError::Unavailable(m)) => assert!(m.contains(IN_RECOVERY), "{m}"),
        Err(e) => panic!("opening a store on a standby: {e:?}"),
        Ok(_) => panic!("a store was opened on a standby"),
    }

    // Promoted: the same store writes again.
    pg_ctl(pg.data_dir(), &["promote", "-w"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    let out = loop {
        match record(&store, &game, 2).await {
            Ok(out) => break out,
            Err(StoreError::Unavailable(_)) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(e) => panic!("a write after the promotion: {e:?}"),
        }
    };
    assert_eq!(out.mv.as_ref().map(|m| m.move_number), Some(2));
    assert!(!out.replayed);
    store.ping().await.unwrap();
    assert_eq!(store.moves(game.id).await.unwrap().len(), 2);

    store.pool().close().await;
    drop(direct);
    tokio::task::spawn_blocking(move || pg.stop()).await.unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&root);
}
