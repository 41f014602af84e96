//! Policy rules from `ptc.toml`: per tool `allow | deny | ask`, optionally matched on
//! argument fields. The first matching rule decides.
//!
//! Rules are installed as a `tools/pre-execute` listener, and every `deny` rule also as
//! a guard, so a denial holds whatever other listeners do. They apply equally to native
//! calls and to sub-calls inside `run_code`.
//!
//! Rules follow the command, not the tool name: what `terminal_send` types (its `text`) and
//! the command line `terminal_open` starts are also decided as a `bash` call with that
//! `command`, and the stricter of the two decisions holds (see [`PolicySet::decide_for`]).

use std::sync::Arc;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use ptc::Disposer;
use ptc::PathArguments;
use ptc::ToolExecution;
use ptc::ToolRegistry;
use ptc::{PreNext, PreToolDecision};

/// What a matching rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyAction {
    /// Run the call (later rules are not consulted).
    Allow,
    /// Refuse it.
    Deny,
    /// Run it only after approval.
    Ask,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRule {
    tool: toml::Spanned<String>,
    action: PolicyAction,
    #[serde(default, rename = "match")]
    matches: std::collections::BTreeMap<String, toml::Spanned<String>>,
    #[serde(default)]
    not_match: std::collections::BTreeMap<String, toml::Spanned<String>>,
    reason: Option<String>,
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct PolicyRule {
    /// Tool name, or `*` for every tool.
    pub tool: String,
    /// The decision.
    pub action: PolicyAction,
    /// Argument fields that must match (string fields; other values are compared as JSON text).
    pub matches: Vec<(String, Regex)>,
    /// Argument fields that must not match.
    pub not_match: Vec<(String, Regex)>,
    /// The reason shown to the model on deny, and in the approval prompt on ask.
    pub reason: Option<String>,
    /// The line the rule starts on.
    pub line: usize,
}

/// Keys that mean "the call's path arguments" for a tool that declares them, whatever the
/// tool calls them (`file_path` for read, `path` for grep, `workdir` for bash).
const PATH_KEYS: &[&str] = &["path", "file_path"];

/// The texts a rule's `field` sees in a call: a declared path argument (or a [`PATH_KEYS`]
/// key, for a tool with path arguments) as the workspace resolves it, root-relative; any
/// other field as given (strings raw, other values as JSON text).
fn field_texts<'a>(
    paths: Option<&PathArguments>,
    args: &'a Value,
    field: &str,
) -> Vec<std::borrow::Cow<'a, str>> {
    if let Some(paths) = paths {
        if paths.contains(field) || PATH_KEYS.contains(&field) {
            return paths.values(args).into_iter().map(Into::into).collect();
        }
    }
    match args.get(field) {
        None => Vec::new(),
        Some(Value::String(s)) => vec![std::borrow::Cow::Borrowed(s)],
        Some(other) => vec![std::borrow::Cow::Owned(other.to_string())],
    }
}

impl PolicyRule {
    /// Whether this rule applies to a call of `name` with `args`, arguments compared as
    /// given (see [`PolicyRule::applies_to`] for resolved paths).
    pub fn applies(&self, name: &str, args: &Value) -> bool {
        self.applies_with(name, None, args)
    }

    /// Whether this rule applies to `exec`: `match` needs some text of each listed field to
    /// match, `not_match` none; path arguments the tool declares are compared as the
    /// workspace resolves them, so `./secrets/x` and an absolute path to it read
    /// `secrets/x`.
    pub fn applies_to(&self, exec: &ToolExecution) -> bool {
        let paths = exec.definition().and_then(|d| d.path_arguments());
        self.applies_with(exec.name(), paths, exec.arguments())
    }

    fn applies_with(&self, name: &str, paths: Option<&PathArguments>, args: &Value) -> bool {
        (self.tool == "*" || self.tool == name)
            && self
                .matches
                .iter()
                .all(|(f, re)| field_texts(paths, args, f).iter().any(|t| re.is_match(t)))
            && self
                .not_match
                .iter()
                .all(|(f, re)| !field_texts(paths, args, f).iter().any(|t| re.is_match(t)))
    }

    fn reason(&self) -> String {
        self.reason.clone().unwrap_or_else(|| {
            format!(
                "{} is {} by policy (ptc.toml line {})",
                self.tool,
                self.verb(),
                self.line
            )
        })
    }

    fn verb(&self) -> &'static str {
        match self.action {
            PolicyAction::Allow => "allowed",
            PolicyAction::Deny => "denied",
            PolicyAction::Ask => "subject to approval",
        }
    }
}

/// The arguments of the `bash` call a terminal call amounts to: `terminal_send` types its
/// `text` into a shell or REPL, `terminal_open` starts its backend's command line.
fn as_bash(name: &str, args: &Value) -> Option<Value> {
    let command = match name {
        "terminal_send" => args.get("text")?.as_str()?.to_string(),
        "terminal_open" => {
            ptc_packs::builtin::terminal::backend_command(args.get("type")?.as_str()?)?
        }
        _ => return None,
    };
    Some(serde_json::json!({ "command": command }))
}

fn strictness(action: PolicyAction) -> u8 {
    match action {
        PolicyAction::Allow => 0,
        PolicyAction::Ask => 1,
        PolicyAction::Deny => 2,
    }
}

/// The rules of one configuration, in file order.
#[derive(Debug, Clone, Default)]
pub struct PolicySet {
    /// The rules.
    pub rules: Vec<PolicyRule>,
}

impl PolicySet {
    pub(super) fn compile(raw: Vec<RawRule>, text: &str) -> Result<PolicySet, (usize, String)> {
        let mut rules = Vec::with_capacity(raw.len());
        for rule in raw {
            let line = super::line_of(text, rule.tool.span().start);
            let compile = |fields: std::collections::BTreeMap<String, toml::Spanned<String>>,
                           key: &str| {
                fields
                    .into_iter()
                    .map(|(field, pattern)| {
                        Regex::new(pattern.get_ref())
                            .map(|re| (field.clone(), re))
                            .map_err(|e| {
                                (
                                    super::line_of(text, pattern.span().start),
                                    format!(
                                        "policy.{key}.{field}: invalid regular expression: {e}"
                                    ),
                                )
                            })
                    })
                    .collect::<Result<Vec<_>, _>>()
            };
            let matches = compile(rule.matches, "match")?;
            let not_match = compile(rule.not_match, "not_match")?;
            if rule.tool.get_ref().is_empty() {
                return Err((line, "policy.tool: must not be empty".into()));
            }
            rules.push(PolicyRule {
                tool: rule.tool.into_inner(),
                action: rule.action,
                matches,
                not_match,
                reason: rule.reason,
                line,
            });
        }
        Ok(PolicySet { rules })
    }

    /// Refuse a rule whose `tool` names none of `known` (nor `*`): a typo such as `Bash` would
    /// otherwise be a rule that silently never applies. `Err((line, message))`, the message
    /// naming the closest known tool and listing them all.
    pub fn check_tools<'a>(
        &self,
        known: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Result<(), (usize, String)> {
        for rule in &self.rules {
            if rule.tool == "*" || known.clone().into_iter().any(|k| k == rule.tool) {
                continue;
            }
            let hint = ptc::suggest::closest(&rule.tool, known.clone())
                .map(|name| format!(" (did you mean `{name}`?)"))
                .unwrap_or_default();
            let mut names: Vec<&str> = known.clone().into_iter().collect();
            names.sort_unstable();
            return Err((
                rule.line,
                format!(
                    "policy.tool `{}` names no tool{hint}; the tools are: {}",
                    rule.tool,
                    names.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// The rule that decides a call of `name` with `args` (compared as given): as
    /// [`PolicySet::decide_for`], path arguments unresolved.
    pub fn decide(&self, name: &str, args: &Value) -> Option<&PolicyRule> {
        let own = self.rules.iter().find(|r| r.applies(name, args));
        self.stricter_as_bash(own, name, args)
    }

    /// The rule that decides `exec`: the first that applies to it (path arguments resolved,
    /// see [`PolicyRule::applies_to`]); for a terminal call that runs a command (the text
    /// `terminal_send` types, the command line `terminal_open` starts), the stricter of that
    /// and the first rule that applies to the `bash` call with that `command` (deny over ask
    /// over allow).
    pub fn decide_for(&self, exec: &ToolExecution) -> Option<&PolicyRule> {
        let own = self.rules.iter().find(|r| r.applies_to(exec));
        self.stricter_as_bash(own, exec.name(), exec.arguments())
    }

    /// `own`, or the rule deciding the `bash` call that `name` with `args` amounts to when
    /// that one is stricter.
    fn stricter_as_bash<'a>(
        &'a self,
        own: Option<&'a PolicyRule>,
        name: &str,
        args: &Value,
    ) -> Option<&'a PolicyRule> {
        let typed =
            as_bash(name, args).and_then(|a| self.rules.iter().find(|r| r.applies("bash", &a)));
        match (own, typed) {
            (Some(own), Some(typed)) if strictness(typed.action) > strictness(own.action) => {
                Some(typed)
            }
            (None, typed) => typed,
            (own, _) => own,
        }
    }

    /// Install as a pre-execute listener plus guards for the deny rules. Returns the
    /// disposers (dispose them all to lift the policy).
    pub fn install(&self, registry: &ToolRegistry) -> Vec<Disposer> {
        if self.rules.is_empty() {
            return Vec::new();
        }
        let set = Arc::new(self.clone());
        let mut disposers = Vec::new();
        let rules = set.clone();
        disposers.push(
            registry.on_pre_execute(move |exec: Arc<ToolExecution>, next: PreNext| {
                let decision = rules
                    .decide_for(&exec)
                    .map(|rule| (rule.action, rule.reason()));
                async move {
                    match decision {
                        // `allow` ends the policy's own rules; other listeners still have their say.
                        None | Some((PolicyAction::Allow, _)) => next.run().await,
                        Some((PolicyAction::Deny, reason)) => PreToolDecision::deny(reason),
                        Some((PolicyAction::Ask, reason)) => PreToolDecision::ask(reason),
                    }
                }
            }),
        );
        let guards = set;
        disposers.push(registry.guard(move |exec: &ToolExecution| {
            guards
                .decide_for(exec)
                .filter(|rule| rule.action == PolicyAction::Deny)
                .map(PolicyRule::reason)
        }));
        disposers
    }
}
