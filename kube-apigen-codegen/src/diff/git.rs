//! A specs folder as a git revision has it, read from git's object database
//! (`git ls-tree` and `git cat-file --batch`) into a temporary folder: the work tree and
//! the index are never touched.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Result};

/// The spec files of a folder at a revision, written to a temporary folder that lives as
/// long as this value.
pub struct Revision {
    _dir: tempfile::TempDir,
    specs: PathBuf,
}

impl Revision {
    /// Reads the folder `specs` (in a git work tree) as `revision` has it. The copy is
    /// a folder of the same name, so messages name its files as they name the others.
    pub fn read(specs: &Path, revision: &str) -> Result<Revision> {
        let specs = specs.canonicalize().map_err(|e| Error::in_file(specs, format!("cannot read folder: {e}")))?;
        let top = PathBuf::from(git(&specs, &["rev-parse", "--show-toplevel"])?.trim_end());
        let top = top.canonicalize().map_err(|e| Error::in_file(&top, e.to_string()))?;
        let inside = specs.strip_prefix(&top).map_err(|_| Error::in_file(&specs, "is not inside its git work tree"))?;
        let inside = inside.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        let commit = format!("{revision}^{{commit}}");
        git(&top, &["rev-parse", "--verify", "--quiet", "--end-of-options", &commit])
            .map_err(|_| Error::new(format!("unknown git revision {revision:?}")))?;
        let pathspec = if inside.is_empty() { ".".to_owned() } else { inside.clone() };
        let listing =
            git(&top, &["--literal-pathspecs", "ls-tree", "-r", "-z", "--end-of-options", revision, "--", &pathspec])?;
        // `<mode> blob <object>\t<path>`, for regular files only (no links, no submodules).
        let files: Vec<(&str, &str)> = listing
            .split('\0')
            .filter_map(|entry| {
                let (meta, path) = entry.split_once('\t')?;
                let mut meta = meta.split(' ');
                let (mode, kind, object) = (meta.next()?, meta.next()?, meta.next()?);
                (kind == "blob" && mode.starts_with("100")).then_some((object, path))
            })
            .collect();
        if files.is_empty() {
            return Err(Error::new(format!("{inside}/ does not exist at git revision {revision:?}")));
        }
        let name = specs.file_name().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("specs"));
        let dir = tempfile::tempdir().map_err(|e| Error::new(format!("cannot create a temporary folder: {e}")))?;
        let copy = dir.path().join(name);
        let objects: String = files.iter().map(|(object, _)| format!("{object}\n")).collect();
        let contents = cat_files(&top, &objects, files.len())?;
        for ((_, path), content) in files.iter().zip(contents) {
            let relative =
                if inside.is_empty() { path } else { path.strip_prefix(&format!("{inside}/")).unwrap_or(path) };
            let target = copy.join(relative);
            let write = |target: &Path| -> std::io::Result<()> {
                std::fs::create_dir_all(target.parent().expect("below the copy"))?;
                std::fs::write(target, &content)
            };
            write(&target).map_err(|e| Error::in_file(&target, format!("cannot write: {e}")))?;
        }
        Ok(Revision { _dir: dir, specs: copy })
    }

    /// The folder holding the revision's spec files.
    pub fn specs(&self) -> &Path {
        &self.specs
    }
}

/// Runs git in `dir` and returns its standard output.
fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let mut command = Command::new("git");
    command.arg("-C").arg(dir).args(args).stdin(Stdio::null());
    let output = command.output().map_err(|e| Error::new(format!("cannot run git: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Error::new(format!("git {} failed: {}", args.join(" "), stderr.trim())));
    }
    String::from_utf8(output.stdout).map_err(|_| Error::new(format!("git {} printed non-UTF-8 output", args.join(" "))))
}

/// The contents of `count` blobs, one object name per line of `objects`.
fn cat_files(dir: &Path, objects: &str, count: usize) -> Result<Vec<Vec<u8>>> {
    let failed = |e: std::io::Error| Error::new(format!("git cat-file failed: {e}"));
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::new(format!("cannot run git: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    let objects = objects.to_owned();
    // Written from a thread of its own: git answers while it reads, and both pipes fill.
    let writer = std::thread::spawn(move || stdin.write_all(objects.as_bytes()));
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut contents = Vec::with_capacity(count);
    for _ in 0..count {
        // `<object> blob <size>` then the content and a newline.
        let mut header = String::new();
        stdout.read_line(&mut header).map_err(failed)?;
        let size = header
            .split(' ')
            .nth(2)
            .and_then(|size| size.trim_end().parse::<usize>().ok())
            .ok_or_else(|| Error::new(format!("git cat-file answered {:?}", header.trim_end())))?;
        let mut content = vec![0; size + 1];
        stdout.read_exact(&mut content).map_err(failed)?;
        content.truncate(size);
        contents.push(content);
    }
    writer.join().expect("the writer thread does not panic").map_err(failed)?;
    child.wait().map_err(failed)?;
    Ok(contents)
}
