//! The batch manifest (docs/output-format.md, `docs/batch.md`): scenes and parameter sweeps, each expanded as
//! the cartesian product of overrides of scene fields by dotted path (list elements by index).

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use toml::Value;
use xpbd_core::scene::{self, Scene};
use xpbd_core::{Error, Result};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    /// Checkpoint every this many frames inside each run (0: never), so an interrupted run resumes.
    #[serde(default)]
    checkpoint_every: usize,
    #[serde(default)]
    sweep: Vec<SweepFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    scene: PathBuf,
    /// Prefix of the run folders (default: the scene file's stem).
    name: Option<String>,
    /// Overrides applied to every run of the sweep.
    #[serde(default)]
    set: BTreeMap<String, Value>,
    /// Overrides whose values are swept (cartesian product; the last path varies fastest).
    #[serde(default)]
    vary: BTreeMap<String, Vec<Value>>,
}

/// One run of a batch.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// Folder name: the sweep name and the swept values, sanitised; unique within the manifest.
    pub name: String,
    /// The scene file the run derives from, and the folder its relative paths resolve against.
    pub scene_path: PathBuf,
    /// The swept (path, value) pairs, in the manifest's order.
    pub params: Vec<(String, Value)>,
    /// The scene with every override applied.
    pub scene: Scene,
    /// That scene as TOML, saved as `scene.toml` in the run folder for the record.
    pub scene_text: String,
}

pub struct Manifest {
    pub checkpoint_every: usize,
    pub runs: Vec<RunSpec>,
}

/// Reads a manifest and expands it into runs, checking every override and every resulting scene.
pub fn load(path: &Path) -> Result<Manifest> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let file: ManifestFile = toml::from_str(&text).map_err(|e| scene::field_path::located(&text, path, &e))?;
    if file.sweep.is_empty() {
        return Err(Error::invalid(format!("{}: no [[sweep]] listed", path.display())));
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let mut runs = Vec::new();
    for (i, sweep) in file.sweep.iter().enumerate() {
        let at = |msg: String| Error::invalid(format!("{}: sweep {}: {msg}", path.display(), i + 1));
        let scene_path = base.join(&sweep.scene);
        let scene_text = std::fs::read_to_string(&scene_path).map_err(|e| Error::io(&scene_path, e))?;
        let mut scene: Value = toml::from_str(&scene_text).map_err(|e| scene::field_path::located(&scene_text, &scene_path, &e))?;
        for (key, value) in &sweep.set {
            set(&mut scene, key, value.clone()).map_err(|m| at(format!("set '{key}': {m} in {}", scene_path.display())))?;
        }
        let label = sweep.name.clone().unwrap_or_else(|| scene_path.file_stem().unwrap_or_default().to_string_lossy().into_owned());
        for (key, values) in &sweep.vary {
            if values.is_empty() {
                return Err(at(format!("vary '{key}': no values")));
            }
        }
        for params in product(&sweep.vary) {
            let mut s = scene.clone();
            for (key, value) in &params {
                set(&mut s, key, value.clone()).map_err(|m| at(format!("vary '{key}': {m} in {}", scene_path.display())))?;
            }
            let text = toml::to_string(&s).map_err(|e| at(e.to_string()))?;
            let assigned = params.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ");
            let parsed = scene::parse(&text, &scene_path).map_err(|e| at(format!("with {assigned}: {e}")))?;
            let name = run_name(&label, &params);
            runs.push(RunSpec { name, scene_path: scene_path.clone(), params, scene: parsed, scene_text: text });
        }
    }
    let mut seen = HashMap::new();
    for (i, r) in runs.iter().enumerate() {
        if let Some(j) = seen.insert(r.name.clone(), i) {
            return Err(Error::invalid(format!(
                "{}: runs {} and {} share the folder name '{}'; give the sweeps distinct names",
                path.display(),
                j + 1,
                i + 1,
                r.name
            )));
        }
    }
    Ok(Manifest { checkpoint_every: file.checkpoint_every, runs })
}

/// Every combination of the swept values, the last path varying fastest.
fn product(vary: &BTreeMap<String, Vec<Value>>) -> Vec<Vec<(String, Value)>> {
    vary.iter().fold(vec![vec![]], |acc, (key, values)| {
        acc.into_iter().flat_map(|prefix| values.iter().map(move |v| [prefix.clone(), vec![(key.clone(), v.clone())]].concat())).collect()
    })
}

/// Sets the field at a dotted `path` (table keys, list indices) of a scene. List elements must
/// exist; tables and keys the scene leaves at their defaults are added (the scene's own parser then
/// rejects unknown keys).
fn set(root: &mut Value, path: &str, value: Value) -> std::result::Result<(), String> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut node = root;
    for (k, part) in parts.iter().enumerate() {
        let last = k + 1 == parts.len();
        let walked = parts[..=k].join(".");
        node = match node {
            Value::Table(t) if last => {
                t.insert(part.to_string(), value);
                return Ok(());
            }
            Value::Table(t) => {
                if parts[k + 1].parse::<usize>().is_ok() {
                    t.get_mut(*part).ok_or_else(|| format!("list '{walked}' does not exist"))?
                } else {
                    t.entry(part.to_string()).or_insert_with(|| Value::Table(Default::default()))
                }
            }
            Value::Array(a) => {
                let i: usize = part.parse().map_err(|_| format!("'{walked}': '{part}' is not a list index"))?;
                let len = a.len();
                let slot = a.get_mut(i).ok_or_else(|| format!("'{walked}': index {i} is past the list's {len} elements"))?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
            _ => return Err(format!("'{}' is not a table or a list", parts[..k].join("."))),
        };
    }
    Ok(())
}

/// Longest folder name; longer ones are cut and get a hash of the whole name (file systems allow 255
/// bytes).
const MAX_NAME: usize = 200;

/// `label-path=value,...` with every character outside `[A-Za-z0-9._=+-,]` replaced by `_`; past
/// `MAX_NAME` characters, its first ones and `-` and the FNV-1a hash of the whole name in hex.
fn run_name(label: &str, params: &[(String, Value)]) -> String {
    let values = params.iter().map(|(k, v)| format!("{k}={}", v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))).collect::<Vec<_>>();
    let raw = if values.is_empty() { label.to_string() } else { format!("{label}-{}", values.join(",")) };
    let name: String = raw.chars().map(|c| if c.is_ascii_alphanumeric() || "._=+-,".contains(c) { c } else { '_' }).collect();
    if name.len() <= MAX_NAME {
        return name;
    }
    format!("{}-{:016x}", &name[..MAX_NAME - 17], xpbd::fnv::fnv1a(raw.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene() -> Value {
        toml::from_str("name = \"a\"\n[simulation]\nsubsteps = 5\n[[body]]\nname = \"b\"\nmaterial = { youngs = 1.0 }\n").unwrap()
    }

    #[test]
    fn set_walks_tables_and_list_indices() {
        let mut s = scene();
        set(&mut s, "body.0.material.youngs", Value::Float(2.0)).unwrap();
        set(&mut s, "simulation.frames", Value::Integer(3)).unwrap();
        assert_eq!(s["body"][0]["material"]["youngs"].as_float(), Some(2.0));
        assert_eq!(s["simulation"]["frames"].as_integer(), Some(3));
        assert!(set(&mut s, "body.1.material.youngs", Value::Float(2.0)).unwrap_err().contains("index 1 is past the list's 1 elements"));
        set(&mut s, "solver.kind", Value::String("xpbd".into())).unwrap();
        assert_eq!(s["solver"]["kind"].as_str(), Some("xpbd"), "tables left at their defaults are added");
        assert!(set(&mut s, "collider.0.kind", Value::Float(2.0)).unwrap_err().contains("list 'collider' does not exist"));
        assert!(set(&mut s, "body.x", Value::Float(2.0)).unwrap_err().contains("not a list index"));
    }

    #[test]
    fn product_varies_the_last_path_fastest() {
        let vary = BTreeMap::from([
            ("a".to_string(), vec![Value::Integer(1), Value::Integer(2)]),
            ("b".to_string(), vec![Value::Integer(3), Value::Integer(4), Value::Integer(5)]),
        ]);
        let p = product(&vary);
        assert_eq!(p.len(), 6);
        assert_eq!(p[1], vec![("a".to_string(), Value::Integer(1)), ("b".to_string(), Value::Integer(4))]);
        assert_eq!(product(&BTreeMap::new()), vec![vec![]]);
    }

    #[test]
    fn run_names_are_sanitised() {
        let n = run_name("cant ilever", &[("solver.ordering".into(), Value::String("serial".into())), ("x".into(), Value::Float(1e5))]);
        assert_eq!(n, "cant_ilever-solver.ordering=serial,x=100000.0");
        let long = |v: i64| run_name("s", &[("a".repeat(300), Value::Integer(v))]);
        assert_eq!(long(1).len(), MAX_NAME);
        assert_ne!(long(1), long(2), "names that differ only past the cut stay distinct");
        assert_eq!(long(1), long(1));
    }
}
