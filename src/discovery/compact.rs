//! The up-front model input with discovery: whether it is on for a view (the setting, and
//! for `auto` the size of everything), and if so the discovery tools, the pinned tools and
//! (where tools are listed natively) those the view's owner has found, plus the overview
//! section.

use std::sync::{Arc, Mutex};

use super::index::same_tools;
use super::is_discovery_tool;
use super::overview;
use super::settings::DiscoveryMode;
use crate::definition::{ToolDefinition, RUN_CODE};
use crate::executor::{ToolExecutor, ToolModelInput, ToolPromptSection};
use crate::mode::ToolMode;
use crate::registry::ToolView;

/// The id of the overview section.
pub(crate) const SECTION_ID: &str = "ptc/discovery";

/// What the executor offers for `tools` as `view` sees them, compacted when discovery is
/// on. The discovery tools are offered only then.
pub(crate) fn model_input(
    view: &ToolView<'_>,
    executor: &Arc<dyn ToolExecutor>,
    tools: Vec<Arc<ToolDefinition>>,
) -> (ToolModelInput, Vec<ToolPromptSection>) {
    let registry = view.registry();
    let scope = view.scope();
    let (finders, others): (Vec<_>, Vec<_>) =
        tools.into_iter().partition(|t| is_discovery_tool(t.name()));
    if finders.is_empty() || !is_on(view, executor, &others) {
        return offer(view, executor, &others);
    }
    let settings = registry.discovery_for(scope);
    let state = registry.discovery_state();
    let grouping = state.grouping();
    // Found tools join a native list only: in code mode `run_code`'s description stays the
    // same all session (a client's prompt cache keeps it), and `describe_tools` declares them.
    let lists_natively = executor
        .describe(registry, scope, &finders)
        .known_names
        .iter()
        .any(|n| is_discovery_tool(n));
    let found = view
        .owner()
        .filter(|_| lists_natively)
        .map(|owner| state.revealed(owner))
        .unwrap_or_default();
    let mut shown = finders;
    shown.extend(
        others
            .iter()
            .filter(|t| {
                settings.pins(t.name(), grouping.group_of(t.name())) || found.contains(t.name())
            })
            .cloned(),
    );
    shown.sort_by(|a, b| a.name().cmp(b.name()));
    let (input, mut sections) = offer(view, executor, &shown);
    let programs = input.known_names.iter().any(|n| n == RUN_CODE);
    sections.push(ToolPromptSection {
        id: SECTION_ID.into(),
        text: overview::text(&others, &shown, &grouping, programs),
    });
    (input, sections)
}

/// The tools a program of `view` may call: `tools` without the discovery tools when
/// discovery is off (the model was told nothing of them).
pub(crate) fn callable(
    view: &ToolView<'_>,
    executor: &Arc<dyn ToolExecutor>,
    tools: Vec<Arc<ToolDefinition>>,
) -> Vec<Arc<ToolDefinition>> {
    if !tools.iter().any(|t| is_discovery_tool(t.name())) {
        return tools;
    }
    let others: Vec<_> = tools
        .iter()
        .filter(|t| !is_discovery_tool(t.name()))
        .cloned()
        .collect();
    if is_on(view, executor, &others) {
        tools
    } else {
        others
    }
}

/// Whether discovery is on for `view` when `others` are all its tools but the discovery
/// tools: the setting, and for `auto` the size of their full model input.
fn is_on(
    view: &ToolView<'_>,
    executor: &Arc<dyn ToolExecutor>,
    others: &[Arc<ToolDefinition>],
) -> bool {
    let (registry, scope) = (view.registry(), view.scope());
    let settings = registry.discovery_for(scope);
    match settings.mode {
        DiscoveryMode::Off => false,
        DiscoveryMode::On => true,
        DiscoveryMode::Auto => {
            let mode = registry.mode_for(scope);
            let bytes = registry
                .discovery_state()
                .measured
                .bytes(others, executor, mode, || {
                    size(&offer(view, executor, others))
                });
            bytes > settings.threshold_bytes
        }
    }
}

/// What the executor offers for `tools` in full.
fn offer(
    view: &ToolView<'_>,
    executor: &Arc<dyn ToolExecutor>,
    tools: &[Arc<ToolDefinition>],
) -> (ToolModelInput, Vec<ToolPromptSection>) {
    let (registry, scope) = (view.registry(), view.scope());
    (
        executor.describe(registry, scope, tools),
        executor.sections(registry, scope, tools),
    )
}

/// The bytes a model input puts before the model: its sections and its schemas as JSON.
fn size((input, sections): &(ToolModelInput, Vec<ToolPromptSection>)) -> usize {
    let schemas: usize = input
        .schemas
        .iter()
        .map(|s| serde_json::to_string(s).map_or(0, |j| j.len()))
        .sum();
    schemas + sections.iter().map(|s| s.text.len()).sum::<usize>()
}

/// The size of the full model input of the last tool set measured (the same definitions,
/// executor and mode give the same text).
#[derive(Default)]
pub(crate) struct MeasureCache(Mutex<Option<Measured>>);

struct Measured {
    tools: Vec<Arc<ToolDefinition>>,
    executor: Arc<dyn ToolExecutor>,
    mode: Option<ToolMode>,
    bytes: usize,
}

impl MeasureCache {
    fn bytes(
        &self,
        tools: &[Arc<ToolDefinition>],
        executor: &Arc<dyn ToolExecutor>,
        mode: Option<ToolMode>,
        measure: impl FnOnce() -> usize,
    ) -> usize {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = slot.as_ref() {
            let same = m.mode == mode
                && std::ptr::addr_eq(Arc::as_ptr(&m.executor), Arc::as_ptr(executor))
                && same_tools(&m.tools, tools);
            if same {
                return m.bytes;
            }
        }
        let bytes = measure();
        *slot = Some(Measured {
            tools: tools.to_vec(),
            executor: executor.clone(),
            mode,
            bytes,
        });
        bytes
    }
}
