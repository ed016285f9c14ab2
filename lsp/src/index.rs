//! The names of a compilation and where they are written: flows (with their inputs), tests
//! (with their ids and exports), data sources, variables, imports, and every place that
//! refers to one of them. Definition, references, hover and completion read this.

use mcpr_compiler::lower::imports::{folder, join};
use mcpr_compiler::names::slug;
use mcpr_compiler::source::Span;
use mcpr_compiler::syntax::{Document, FlowInput, Node, Stmt, Text};
use mcpr_compiler::values;

use crate::analysis::Analysis;

/// What a name names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A flow, by name.
    Flow(String),
    /// A test, by id.
    Test(String),
    /// An export of the test with this id.
    Export(String, String),
    /// A data source, by name.
    Source(String),
    /// An imported file, by path.
    File(String),
}

/// A place in one file of the compilation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// Index in the analysis' source map.
    pub file: usize,
    /// The bytes of the name.
    pub span: Span,
}

/// A flow declaration.
#[derive(Debug, Clone)]
pub struct FlowDef {
    /// Its name.
    pub name: String,
    /// Where its name is written.
    pub at: Place,
    /// Its inputs.
    pub inputs: Vec<FlowInput>,
    /// The whole block, header to last body line.
    pub block: Span,
}

/// A test declaration.
#[derive(Debug, Clone)]
pub struct TestDef {
    /// Its name.
    pub name: String,
    /// Its id (written, or made from the name).
    pub id: String,
    /// Where its name is written.
    pub at: Place,
    /// Where its `Id:` is written, when it has one.
    pub id_at: Option<Place>,
    /// `Export "PATH" as "NAME"`: the name and where it is written.
    pub exports: Vec<(String, Place)>,
    /// The whole block.
    pub block: Span,
}

/// A data source declaration.
#[derive(Debug, Clone)]
pub struct SourceDef {
    /// Its name.
    pub name: String,
    /// Where its name is written.
    pub at: Place,
    /// Its declared and derived columns.
    pub columns: Vec<String>,
}

/// A use of a name.
#[derive(Debug, Clone)]
pub struct Use {
    /// What it names.
    pub target: Target,
    /// Where the name is written.
    pub at: Place,
}

/// The names of one compilation.
#[derive(Debug, Default)]
pub struct Index {
    /// Every flow of the entry and its imports.
    pub flows: Vec<FlowDef>,
    /// Every test of the entry.
    pub tests: Vec<TestDef>,
    /// Every data source of the entry.
    pub sources: Vec<SourceDef>,
    /// Every use of a flow, test, export, data source or imported file.
    pub uses: Vec<Use>,
    /// The tool snapshot files the entry names (`Expect the tools match snapshot "F"`),
    /// resolved against its folder.
    pub snapshots: Vec<String>,
}

impl Index {
    /// The index of an analysis.
    pub fn of(a: &Analysis) -> Index {
        let mut ix = Index::default();
        for unit in &a.units {
            let Some(doc) = &unit.document else { continue };
            let shown = a.map.get(unit.file).path();
            ix.add(unit.file, shown, doc, a.map.get(unit.file).text());
        }
        ix
    }

    fn add(&mut self, file: usize, shown: &str, doc: &Document, text: &str) {
        let place = |span: Span| Place { file, span };
        for node in &doc.nodes {
            let block = block_span(node);
            match &node.stmt {
                Stmt::FlowHeader { name } => {
                    let inputs = node
                        .children
                        .iter()
                        .find_map(|c| match &c.stmt {
                            Stmt::Inputs { inputs } => Some(inputs.clone()),
                            _ => None,
                        })
                        .unwrap_or_default();
                    self.flows.push(FlowDef {
                        name: name.value.clone(),
                        at: place(name.span),
                        inputs,
                        block,
                    });
                }
                Stmt::TestHeader { name } if file == 0 => {
                    let written = node.children.iter().find_map(|c| match &c.stmt {
                        Stmt::Id { id } => Some(id),
                        _ => None,
                    });
                    let exports = node
                        .walk()
                        .filter_map(|c| match &c.stmt {
                            Stmt::Export { name, .. } => {
                                Some((name.value.clone(), place(name.span)))
                            }
                            _ => None,
                        })
                        .collect();
                    self.tests.push(TestDef {
                        name: name.value.clone(),
                        id: written.map_or_else(|| slug(&name.value), |t| t.value.clone()),
                        at: place(name.span),
                        id_at: written.map(|t| place(t.span)),
                        exports,
                        block,
                    });
                }
                Stmt::DataSourceHeader { name } if file == 0 => {
                    let columns = node
                        .children
                        .iter()
                        .filter_map(|c| match &c.stmt {
                            Stmt::Column { name, .. } | Stmt::Derive { name, .. } => {
                                Some(name.value.clone())
                            }
                            _ => None,
                        })
                        .collect();
                    self.sources.push(SourceDef {
                        name: name.value.clone(),
                        at: place(name.span),
                        columns,
                    });
                }
                Stmt::ImportFlows { path } => self.uses.push(Use {
                    target: Target::File(join(folder(shown), &path.value)),
                    at: place(path.span),
                }),
                _ => {}
            }
        }
        for node in doc.walk() {
            self.add_uses(file, shown, node);
        }
        self.add_references(file, text);
    }

    fn add_uses(&mut self, file: usize, shown: &str, node: &Node) {
        let mut push = |target: Target, t: &Text| {
            self.uses.push(Use {
                target,
                at: Place { file, span: t.span },
            })
        };
        match &node.stmt {
            Stmt::UseFlow { name, .. } => push(Target::Flow(name.value.clone()), name),
            Stmt::DependsOn { ids } => {
                for id in ids {
                    push(Target::Test(id.value.clone()), id);
                }
            }
            Stmt::ForEachRowFrom { source } => push(Target::Source(source.value.clone()), source),
            Stmt::ExpectToolsSnapshot { file: f, .. } if file == 0 => {
                self.snapshots.push(join(folder(shown), &f.value));
            }
            _ => {}
        }
    }

    /// `${deps.ID.NAME}` anywhere in the text: a use of the test `ID` and of its export.
    fn add_references(&mut self, file: usize, text: &str) {
        for (at, inner) in values::refs(text) {
            let Some(rest) = inner.strip_prefix("deps.") else {
                continue;
            };
            let start = at + 2 + "deps.".len();
            let (id, name) = rest.split_once('.').unwrap_or((rest, ""));
            let id_span = Span::new(start, start + id.len());
            self.uses.push(Use {
                target: Target::Test(id.to_string()),
                at: Place {
                    file,
                    span: id_span,
                },
            });
            let name = name.split(['.', '[']).next().unwrap_or("");
            if !name.is_empty() {
                let s = id_span.end as usize + 1;
                self.uses.push(Use {
                    target: Target::Export(id.to_string(), name.to_string()),
                    at: Place {
                        file,
                        span: Span::new(s, s + name.len()),
                    },
                });
            }
        }
    }

    /// The name under a byte offset of a file: a declaration or a use.
    pub fn target_at(&self, file: usize, offset: usize) -> Option<(Target, Place)> {
        let hit = |p: &Place| p.file == file && covers(p.span, offset);
        for f in &self.flows {
            if hit(&f.at) {
                return Some((Target::Flow(f.name.clone()), f.at));
            }
        }
        for t in &self.tests {
            if hit(&t.at) || t.id_at.as_ref().is_some_and(hit) {
                return Some((Target::Test(t.id.clone()), t.id_at.unwrap_or(t.at)));
            }
            for (name, p) in &t.exports {
                if hit(p) {
                    return Some((Target::Export(t.id.clone(), name.clone()), *p));
                }
            }
        }
        for s in &self.sources {
            if hit(&s.at) {
                return Some((Target::Source(s.name.clone()), s.at));
            }
        }
        self.uses
            .iter()
            .find(|u| hit(&u.at))
            .map(|u| (u.target.clone(), u.at))
    }

    /// Where a name is declared (`File` targets are resolved by the caller).
    pub fn definition(&self, target: &Target) -> Option<Place> {
        match target {
            Target::Flow(n) => self.flows.iter().find(|f| &f.name == n).map(|f| f.at),
            Target::Test(id) => self
                .tests
                .iter()
                .find(|t| &t.id == id)
                .map(|t| t.id_at.unwrap_or(t.at)),
            Target::Export(id, name) => self
                .tests
                .iter()
                .find(|t| &t.id == id)
                .and_then(|t| t.exports.iter().find(|(n, _)| n == name))
                .map(|(_, p)| *p),
            Target::Source(n) => self.sources.iter().find(|s| &s.name == n).map(|s| s.at),
            Target::File(_) => None,
        }
    }

    /// Every use of a name.
    pub fn uses_of<'i>(&'i self, target: &'i Target) -> impl Iterator<Item = Place> + 'i {
        self.uses
            .iter()
            .filter(move |u| &u.target == target)
            .map(|u| u.at)
    }

    /// The flow whose block holds a byte offset of the entry.
    pub fn flow_around(&self, offset: usize) -> Option<&FlowDef> {
        self.flows
            .iter()
            .find(|f| f.at.file == 0 && covers(f.block, offset))
    }

    /// The test whose block holds a byte offset of the entry.
    pub fn test_around(&self, offset: usize) -> Option<&TestDef> {
        self.tests.iter().find(|t| covers(t.block, offset))
    }
}

/// Whether a span holds an offset (its end included: the cursor after the last letter).
pub fn covers(span: Span, offset: usize) -> bool {
    span.start as usize <= offset && offset <= span.end as usize
}

/// A block node from its header to the end of its last line (YAML blocks included).
pub fn block_span(node: &Node) -> Span {
    let mut span = node.span;
    for n in node.walk() {
        span = span.cover(n.span);
        if let Some(y) = &n.yaml {
            span = span.cover(y.span);
        }
        if let Some(t) = &n.table {
            span = span.cover(t.span);
        }
    }
    span
}
