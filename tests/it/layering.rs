//! The layering of `src/`, enforced: every module may use only the modules
//! below it in [`LAYERS`], the order `docs/design.md` documents. A `use`, an
//! inline `crate::` or `super::` path, or a path inside a macro's arguments
//! that reaches up (or sideways into another layer) fails this test with the
//! file, the line and the path; so does a cycle, which needs an upward edge.
//!
//! Files are parsed with `syn`, so grouped imports (`use crate::{a, b::c}`)
//! and paths in expressions, types and patterns all count; macro arguments
//! are scanned as tokens.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The layers, top to bottom. A module belongs to the layer of the longest
/// entry that prefixes its path; it may use its own layer and every layer
/// below it. Modules that share a layer may use each other.
const LAYERS: &[&[&str]] = &[
    &["command_line"],
    &["client"],
    &["config_file"],
    &["server"],
    &["http"],
    &["http::pipeline"],
    &["http::handlers"],
    &["http::render"],
    &[
        "http::state",
        "http::credentials",
        "http::ratelimit",
        "http::forwarded",
        "http::oidc",
        "http::recheck",
    ],
    &[
        "http::body",
        "http::inflight",
        "http::outbound",
        "http::search_gate",
    ],
    &["http::api_error", "http::context", "http::client_net"],
    &["metrics"],
    &["store"],
    &["programs"],
    &["tls"],
    &["logging"],
    &["core"],
    &["idle"],
];

/// A module path below `crate`, such as `["http", "pipeline", "auth"]`.
type ModPath = Vec<String>;

/// The layer of `path`: the index in [`LAYERS`] of the longest prefix.
fn layer_of(path: &[String]) -> Option<usize> {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(index, modules)| modules.iter().map(move |module| (index, *module)))
        .filter(|(_, module)| {
            let parts: Vec<&str> = module.split("::").collect();
            parts.len() <= path.len() && parts.iter().zip(path).all(|(a, b)| a == b)
        })
        .max_by_key(|(_, module)| module.split("::").count())
        .map(|(index, _)| index)
}

/// The module a source file defines: `src/http/mod.rs` is `http`,
/// `src/http/render/pages.rs` is `http::render::pages`.
fn module_of(file: &Path, src: &Path) -> ModPath {
    let relative = file.strip_prefix(src).expect("file under src/");
    let mut parts: ModPath = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    match last.as_str() {
        "mod.rs" | "lib.rs" => {}
        name => parts.push(name.trim_end_matches(".rs").to_owned()),
    }
    parts
}

/// One path that leaves its file's module, with where it was written.
struct Reference {
    line: usize,
    written: String,
    target: ModPath,
}

/// Collects every `crate::`/`super::` path of one file, resolved against the
/// file's module.
struct Collector {
    /// The module being read: the file's, plus any inline `mod` entered.
    module: ModPath,
    found: Vec<Reference>,
}

impl Collector {
    fn new(module: ModPath) -> Self {
        Collector {
            module,
            found: Vec::new(),
        }
    }

    /// Resolves a path's leading segments; only paths starting at `crate`,
    /// `super` or `self` can name another module of this crate.
    fn note(&mut self, segments: &[String], line: usize) {
        let Some(first) = segments.first() else {
            return;
        };
        let mut target: ModPath = match first.as_str() {
            "crate" => Vec::new(),
            "super" | "self" => self.module.clone(),
            _ => return,
        };
        let mut rest = segments
            .iter()
            .skip(usize::from(first == "crate"))
            .peekable();
        while let Some(segment) = rest.next() {
            match segment.as_str() {
                "super" => {
                    target.pop();
                }
                "self" => {}
                _ => {
                    target.push(segment.clone());
                    target.extend(rest.cloned());
                    break;
                }
            }
        }
        self.found.push(Reference {
            line,
            written: segments.join("::"),
            target,
        });
    }

    /// Walks a `use` tree, carrying the prefix written so far.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            // `use a::{self}` names `a` itself.
            syn::UseTree::Name(name) if name.ident == "self" => {
                self.note(prefix, name.ident.span().start().line);
            }
            syn::UseTree::Name(name) => {
                prefix.push(name.ident.to_string());
                self.note(prefix, name.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Rename(rename) => {
                prefix.push(rename.ident.to_string());
                self.note(prefix, rename.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Glob(glob) => {
                self.note(prefix, glob.star_token.spans[0].start().line);
            }
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    /// Finds `crate :: a :: b` and `super :: a` runs in a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut index = 0;
        while index < trees.len() {
            if let TokenTree::Group(group) = &trees[index] {
                self.tokens(group.stream());
                index += 1;
                continue;
            }
            let TokenTree::Ident(ident) = &trees[index] else {
                index += 1;
                continue;
            };
            let word = ident.to_string();
            if word != "crate" && word != "super" {
                index += 1;
                continue;
            }
            let line = ident.span().start().line;
            let mut segments = vec![word];
            index += 1;
            while let (
                Some(TokenTree::Punct(a)),
                Some(TokenTree::Punct(b)),
                Some(TokenTree::Ident(next)),
            ) = (trees.get(index), trees.get(index + 1), trees.get(index + 2))
            {
                if a.as_char() != ':' || b.as_char() != ':' {
                    break;
                }
                segments.push(next.to_string());
                index += 3;
            }
            self.note(&segments, line);
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.module.pop();
    }

    /// `pub(in crate::http)` restricts who sees an item; it uses nothing.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(first) = path.segments.first() {
            self.note(&segments, first.ident.span().start().line);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every file of the library with the references it makes.
fn references() -> Vec<(PathBuf, ModPath, Vec<Reference>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        // The binary's entry point uses the library as `snip::`, from above.
        .filter(|file| file != &src.join("main.rs"))
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let parsed =
                syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let module = module_of(&file, &src);
            let mut collector = Collector::new(module.clone());
            collector.visit_file(&parsed);
            let found = collector.found;
            (file, module, found)
        })
        .collect()
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let mut violations = BTreeSet::new();
    let mut unplaced = BTreeSet::new();
    for (file, module, found) in references() {
        // lib.rs declares the modules; declaring is not using.
        if module.is_empty() {
            continue;
        }
        let Some(own) = layer_of(&module) else {
            unplaced.insert(module.join("::"));
            continue;
        };
        for reference in found {
            let Some(target) = layer_of(&reference.target) else {
                // A path to the crate root's own items or to an unknown
                // module is reported once, by name.
                if !reference.target.is_empty() {
                    unplaced.insert(reference.target.join("::"));
                }
                continue;
            };
            if target < own {
                violations.insert(format!(
                    "{}:{}: `{}` ({} may not use {}, which is above it)",
                    file.display(),
                    reference.line,
                    reference.written,
                    LAYERS[own].join(", "),
                    LAYERS[target].join(", "),
                ));
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules in no layer (add them to LAYERS and to docs/design.md): {unplaced:?}"
    );
    assert!(
        violations.is_empty(),
        "imports against the layering (docs/design.md, \"Layers\"):\n{}",
        violations.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_checker_sees_grouped_inline_and_macro_paths() {
    let file: syn::File = syn::parse_str(
        "use crate::{core::id, store::{self, Store}};
         use super::super::server::serve;
         fn f() { crate::metrics::record(); tracing::info!(\"{}\", crate::tls::name()); }
         pub(in crate::http) fn g() {}
         mod tests { use super::f; }",
    )
    .unwrap();
    let mut collector = Collector::new(vec!["http".into(), "render".into(), "pages".into()]);
    collector.visit_file(&file);
    let targets: BTreeSet<String> = collector
        .found
        .iter()
        .map(|r| r.target.join("::"))
        .collect();
    for expected in [
        "core::id",
        "store",
        "store::Store",
        "http::server::serve",
        "metrics::record",
        "tls::name",
        "http::render::pages::f",
    ] {
        assert!(targets.contains(expected), "{expected} not in {targets:?}");
    }
    assert!(
        !targets.contains("http"),
        "a visibility is not a use: {targets:?}"
    );
}
