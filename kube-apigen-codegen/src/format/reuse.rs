//! Reusing printed files of the output folder.
//!
//! A small cache under the target folder records, per generated file, a key for what its
//! text depends on (the file's tokens and the generator binary itself) and a hash of the
//! text printing gave. A file whose key is unchanged and whose copy in the output folder
//! still has that hash (nobody edited it) is taken from the output folder instead of being
//! parsed and printed again (about a third of a run). Anything else is a miss, and a miss
//! only costs the printing: the cache never decides what is written.
//!
//! The keys are `std`'s hasher, which is stable within one build of the generator; a new
//! build changes the key of every file, so nothing is carried over between builds.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use super::RustSource;

/// The printed files of one output folder, reusable where their key is unchanged.
pub struct Reuse {
    out: PathBuf,
    cache: PathBuf,
    /// What every key starts from: the generator build.
    seed: DefaultHasher,
    /// By path: the key of the source and the hash of the text it was printed as.
    entries: BTreeMap<PathBuf, (u64, u64)>,
}

impl Reuse {
    /// The cache of output folder `out` (absolute), kept in `cache_folder`. `None` when the
    /// generator cannot tell which build it is, and so could not tell its keys apart.
    pub fn load(out: &Path, cache_folder: &Path) -> Option<Reuse> {
        let exe = std::env::current_exe().ok()?;
        let built = std::fs::metadata(&exe).ok()?;
        let mut seed = DefaultHasher::new();
        (exe, built.len(), built.modified().ok()?).hash(&mut seed);
        let mut name = DefaultHasher::new();
        out.hash(&mut name);
        let cache = cache_folder.join(format!("{:016x}", name.finish()));
        let entries = std::fs::read_to_string(&cache).map(|text| parse(&text)).unwrap_or_default();
        Some(Reuse { out: out.to_path_buf(), cache, seed, entries })
    }

    pub(super) fn key(&self, source: &RustSource) -> u64 {
        let mut hasher = self.seed.clone();
        source.hash_into(&mut hasher);
        hasher.finish()
    }

    /// The output folder's copy of `path`, if it is what printing the source of `key`
    /// gives.
    pub(super) fn printed(&self, path: &Path, key: u64) -> Option<String> {
        let &(cached_key, cached_text) = self.entries.get(path)?;
        if cached_key != key {
            return None;
        }
        let text = std::fs::read_to_string(self.out.join(path)).ok()?;
        (text_hash(&text) == cached_text).then_some(text)
    }

    /// Records the key and printed text of every file. The cache only saves time, so a
    /// cache that cannot be written is left behind without failing the generation.
    pub(super) fn save(
        &self,
        keys: &BTreeMap<PathBuf, u64>,
        texts: &BTreeMap<PathBuf, String>,
        reused: &BTreeSet<PathBuf>,
    ) {
        let entry = |path: &PathBuf, key: u64| {
            // A reused file is the text its entry describes: `printed` checked its hash.
            let text = match self.entries.get(path) {
                Some(&(_, text)) if reused.contains(path) => text,
                _ => text_hash(texts.get(path)?),
            };
            Some((path.clone(), (key, text)))
        };
        let entries: BTreeMap<PathBuf, (u64, u64)> = keys.iter().filter_map(|(path, &key)| entry(path, key)).collect();
        if entries == self.entries {
            return;
        }
        let mut lines = String::new();
        for (path, (key, text)) in &entries {
            let Some(path) = path.to_str() else { continue };
            lines.push_str(&format!("{key:016x} {text:016x} {path}\n"));
        }
        let Some(folder) = self.cache.parent() else { return };
        let staging = self.cache.with_extension(format!("new-{}", std::process::id()));
        let saved = std::fs::create_dir_all(folder)
            .and_then(|()| std::fs::write(&staging, lines))
            .and_then(|()| std::fs::rename(&staging, &self.cache));
        if saved.is_err() {
            let _ = std::fs::remove_file(&staging);
        }
    }
}

fn text_hash(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    hasher.write(text.as_bytes());
    hasher.finish()
}

/// The cache's lines: `<key> <text hash> <path>`; anything else is skipped (a miss).
fn parse(text: &str) -> BTreeMap<PathBuf, (u64, u64)> {
    text.lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ' ');
            let key = u64::from_str_radix(parts.next()?, 16).ok()?;
            let text = u64::from_str_radix(parts.next()?, 16).ok()?;
            Some((PathBuf::from(parts.next()?), (key, text)))
        })
        .collect()
}
