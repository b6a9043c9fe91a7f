//! Scenes (DESIGN.md §6): TOML parsed with serde (`schema`), then checked and turned into a
//! [`Model`](crate::model::Model) (`build`).

pub mod build;
mod cloth_topology;
pub mod schema;

pub use build::build;
pub use schema::Scene;

use crate::{Error, Result};
use std::path::Path;

/// Reads and parses a scene file. Errors name the file and, for syntax, type and unknown-key errors,
/// the line.
pub fn load(path: &Path) -> Result<Scene> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(&text, path)
}

/// Parses scene text; `path` is used in messages.
pub fn parse(text: &str, path: &Path) -> Result<Scene> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        Error::parse(path, line, e.message().replace('\n', " "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_key_and_line() {
        let err = parse("name = \"a\"\n[simulation]\ndt = 0.01\nsubstep = 3\n", Path::new("s.toml")).unwrap_err().to_string();
        assert!(err.starts_with("s.toml:4:") && err.contains("substep"), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn too_large_a_substep_for_stable_neohookean_is_warned() {
        let scene = |substeps: usize, model: &str| {
            let text = format!(
                "name = \"a\"\n[simulation]\nsubsteps = {substeps}\n[[body]]\nname = \"b\"\n\
                 mesh = {{ generator = \"box\", size = [0.1, 0.1, 0.1], cells = [4, 4, 4] }}\n\
                 material = {{ model = \"{model}\", youngs = 1e7, poisson = 0.4, density = 1000.0 }}\n"
            );
            build(&parse(&text, Path::new("s.toml")).unwrap(), Path::new(".")).unwrap().1
        };
        let w = scene(2, "neohookean_block");
        assert!(w.len() == 1 && w[0].contains("body 'b'") && w[0].contains("stability estimate"), "{w:?}");
        assert!(scene(2000, "neohookean_block").is_empty());
        assert!(scene(2, "stvk").is_empty(), "StVK rows vanish at rest: no limit");
    }

    #[test]
    fn wrong_type_names_line() {
        let err = parse("name = \"a\"\n[simulation]\nframes = \"ten\"\n", Path::new("s.toml")).unwrap_err().to_string();
        assert!(err.starts_with("s.toml:3:"), "{err}");
    }
}
