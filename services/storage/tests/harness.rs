//! The test harness itself: a throwaway cluster per test process, removed when the process dies.

use std::time::{Duration, Instant};

/// Child half: start the harness cluster, print its directory, die without any cleanup.
#[test]
#[ignore = "child process of throwaway_cluster_is_removed_when_the_process_dies"]
fn harness_child() {
    std::env::remove_var("DATABASE_URL");
    let url = shinpan_storage::testing::ensure_database_url();
    assert!(url.starts_with("postgres://"));
    let dir = shinpan_storage::testing::cluster_dir().expect("a throwaway cluster was started");
    println!("CLUSTER_DIR={}", dir.display());
    std::process::exit(0);
}

#[test]
fn throwaway_cluster_is_removed_when_the_process_dies() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "harness_child", "--ignored", "--nocapture", "--test-threads=1"])
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let dir = stdout.lines().find_map(|l| l.split("CLUSTER_DIR=").nth(1)).unwrap_or_else(|| panic!("no CLUSTER_DIR in {stdout}"));
    let dir = std::path::PathBuf::from(dir);
    let root = dir.parent().unwrap().to_path_buf();
    let deadline = Instant::now() + Duration::from_secs(60);
    while root.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!root.exists(), "{} is removed by the watchdog", root.display());
}

#[tokio::test]
async fn harness_serves_a_real_migrated_database() {
    let store = shinpan_storage::testing::fresh_store().await;
    let v: String = sqlx::query_scalar("SHOW server_version").fetch_one(store.pool()).await.unwrap();
    assert!(v.split('.').next().unwrap().parse::<u32>().unwrap() >= 13, "{v}");
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations WHERE success").fetch_one(store.pool()).await.unwrap();
    assert_eq!(applied as usize, shinpan_storage::MIGRATOR.iter().count());
}
