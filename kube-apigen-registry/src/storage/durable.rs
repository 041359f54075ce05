//! The disk under the in-memory backend for `--data-dir`: every committed write is in a
//! [redb](https://www.redb.org) database file before the backend applies it and answers.
//!
//! redb commits a write transaction durably (`fsync`) and atomically, with copy-on-write
//! pages, so a crash or `kill -9` at any point leaves the last committed transaction.
//! The file holds the objects by key (JSON, `metadata.resourceVersion` included) and the
//! last revision; at startup they are read back into memory. The history of changes is
//! not kept across restarts: a watch from a revision before the restart gets 410
//! `Expired`, as after an API server's restart once etcd compacted.

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde_json::Value;

use super::memory::{Journal, MemoryStorage, Recovered};
use super::{Result, StorageError};

/// Objects by key, as JSON.
const OBJECTS: TableDefinition<&str, &[u8]> = TableDefinition::new("objects");
/// `revision`: the revision of the last committed write.
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const REVISION: &str = "revision";
/// The database file in the data directory.
const FILE: &str = "apiserver.redb";

/// The database of a data directory.
pub struct Disk {
    database: Arc<Database>,
}

impl MemoryStorage {
    /// A backend on the data directory `directory`, with what it holds.
    pub fn durable(directory: &Path, history: usize, broadcast_capacity: usize) -> std::result::Result<Self, String> {
        let (disk, recovered) = Disk::open(directory)?;
        Ok(MemoryStorage::journaled(disk, recovered, history, broadcast_capacity))
    }
}

impl Disk {
    /// Opens (or creates) the database in `directory` and reads everything in it.
    pub fn open(directory: &Path) -> std::result::Result<(Disk, Recovered), String> {
        std::fs::create_dir_all(directory)
            .map_err(|e| format!("cannot create the data directory {}: {e}", directory.display()))?;
        let path = directory.join(FILE);
        let database = Database::create(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let unreadable = |e: &dyn std::fmt::Display| format!("cannot read {}: {e}", path.display());
        let setup = database.begin_write().map_err(|e| unreadable(&e))?;
        setup.open_table(OBJECTS).map_err(|e| unreadable(&e))?;
        setup.open_table(META).map_err(|e| unreadable(&e))?;
        setup.commit().map_err(|e| unreadable(&e))?;
        let read = database.begin_read().map_err(|e| unreadable(&e))?;
        let meta = read.open_table(META).map_err(|e| unreadable(&e))?;
        let revision = meta.get(REVISION).map_err(|e| unreadable(&e))?.map(|v| v.value()).unwrap_or(0);
        let table = read.open_table(OBJECTS).map_err(|e| unreadable(&e))?;
        let mut objects = Vec::new();
        for entry in table.iter().map_err(|e| unreadable(&e))? {
            let (key, value) = entry.map_err(|e| unreadable(&e))?;
            let object = serde_json::from_slice(value.value())
                .map_err(|e| format!("{}: the object at {} is not JSON: {e}", path.display(), key.value()))?;
            objects.push((key.value().to_owned(), object));
        }
        drop((meta, table, read));
        Ok((Disk { database: Arc::new(database) }, Recovered { revision, objects }))
    }
}

impl Journal for Disk {
    fn commit(&self, revision: u64, writes: Vec<(String, Option<Value>)>) -> BoxFuture<'_, Result<()>> {
        let database = Arc::clone(&self.database);
        let failed = |e: &dyn std::fmt::Display| StorageError::Unavailable(format!("the data directory: {e}"));
        let committed = tokio::task::spawn_blocking(move || {
            let transaction = database.begin_write().map_err(|e| failed(&e))?;
            {
                let mut objects = transaction.open_table(OBJECTS).map_err(|e| failed(&e))?;
                for (key, object) in &writes {
                    match object {
                        Some(object) => {
                            let bytes = serde_json::to_vec(object).unwrap_or_default();
                            objects.insert(key.as_str(), bytes.as_slice()).map(drop)
                        }
                        None => objects.remove(key.as_str()).map(drop),
                    }
                    .map_err(|e| failed(&e))?;
                }
                let mut meta = transaction.open_table(META).map_err(|e| failed(&e))?;
                meta.insert(REVISION, revision).map_err(|e| failed(&e))?;
            }
            transaction.commit().map_err(|e| failed(&e))
        });
        Box::pin(async move { committed.await.map_err(|e| failed(&e))? })
    }
}
