//! The normal form of what a host made a provider do, and the documented differences that are
//! allowed to vanish in it.
//!
//! A side's recording of one phase is a list of provider processes, each a list of calls as
//! `show-recording` prints them (`{"method", "request", "response", "error"}`, values decoded).
//! Its normal form is the processes' calls in order, one list, after the rules of the
//! allowances the comparison names, applied in a fixed order: removals and masks first, then
//! [`Rule::Repeats`], then [`Rule::IndependentOrder`]. Without [`Rule::Processes`], each process
//! starts with a marker call, so that a different number of processes is a difference too.
//!
//! Every allowance cites a point of the README ("allowed as `<id>`"), which says why the
//! difference is there; the comparison fails if the README has no such point, and if an allowance
//! changed nothing in any phase, so that the list stays exactly what the comparison needs.

use std::collections::BTreeSet;

use serde_json::Value;

/// Which host made the calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::e2e) enum Side {
    /// OpenTofu, the oracle.
    Tofu,
    /// Our bridge, under the `pulumi` CLI.
    Pulumi,
}

/// A documented difference between the calls OpenTofu and our bridge make, and how it is taken
/// out of the comparison.
#[derive(Clone, Copy, Debug)]
pub(in crate::e2e) struct Allowance {
    /// Its name, as the README's point cites it: "allowed as `<id>`".
    pub(in crate::e2e) id: &'static str,
    pub(in crate::e2e) rule: Rule,
}

/// How an allowance normalises the calls.
#[derive(Clone, Copy, Debug)]
pub(in crate::e2e) enum Rule {
    /// The number of provider processes may differ: no marker separates them.
    Processes,
    /// Calls of these methods are left out, on one side or (`None`) on both.
    Drop {
        side: Option<Side>,
        methods: &'static [&'static str],
    },
    /// On this side, a provider process that validates configuration but never configures the
    /// provider is left out (OpenTofu's validate walk, whose variables are unknown).
    ValidationOnlyProcesses(Side),
    /// The value at `path` in calls of `method` (`*` for every method) is removed, on one side or
    /// (`None`) on both.
    Remove {
        side: Option<Side>,
        method: &'static str,
        path: &'static [&'static str],
    },
    /// A call identical to an earlier one of the same side is left out: its answer is known.
    Repeats,
    /// On this side, after a ReadResource, the upgrade of the state it read and a plan from that
    /// state are left out (the Pulumi engine's Diff after a refresh).
    RefreshDiff(Side),
    /// On this side, plans of a destroy (a PlanResourceChange with a null configuration) are left
    /// out.
    DestroyPlans(Side),
    /// On both sides, the private state passed on within a replacement is left out: the
    /// `prior_private` of plans from a null prior state and the `planned_private` of deletes.
    ReplacePrivate,
    /// On this side, an upgrade of a state the provider itself answered earlier in the phase (in
    /// another provider process) is left out.
    ProducedStateUpgrades(Side),
    /// Within a run of consecutive calls that read state or validate configuration, validations
    /// come last: a validation does not depend on the state calls' answers, nor they on it. The
    /// state calls keep their order.
    IndependentOrder,
}

/// The calls of one provider process.
pub(in crate::e2e) type Process = Vec<Value>;

/// What marks the start of a process when [`Rule::Processes`] is not allowed.
const PROCESS_MARKER: &str = "(a new provider process)";

/// Methods that read state (rank 0) or validate configuration (rank 1).
fn independent_rank(method: &str) -> Option<u8> {
    match method {
        "UpgradeResourceState" | "ImportResourceState" | "ReadResource" => Some(0),
        "ValidateResourceConfig" | "ValidateDataResourceConfig" => Some(1),
        _ => None,
    }
}

/// The normal forms of both sides, and the ids of the allowances that changed something.
pub(in crate::e2e) struct Normalised {
    pub(in crate::e2e) tofu: Vec<Value>,
    pub(in crate::e2e) pulumi: Vec<Value>,
    pub(in crate::e2e) used: BTreeSet<&'static str>,
}

/// Brings both sides' processes to their normal forms under `allowed`.
pub(in crate::e2e) fn normalise(
    allowed: &[Allowance],
    tofu: Vec<Process>,
    pulumi: Vec<Process>,
) -> Normalised {
    let mut used = BTreeSet::new();
    let processes = allowed.iter().find(|a| matches!(a.rule, Rule::Processes));
    let mut sides = [(Side::Tofu, tofu), (Side::Pulumi, pulumi)];
    for allowance in allowed {
        if let Rule::ValidationOnlyProcesses(only) = allowance.rule {
            for (side, processes) in &mut sides {
                if *side == only {
                    let before = processes.len();
                    processes.retain(|process| !validates_only(process));
                    if processes.len() != before {
                        used.insert(allowance.id);
                    }
                }
            }
        }
    }
    if let Some(allowance) = processes
        && sides[0].1.len() != sides[1].1.len()
    {
        used.insert(allowance.id);
    }
    let [(_, tofu), (_, pulumi)] = sides;
    let mut lists = [
        (Side::Tofu, flatten(tofu, processes.is_none())),
        (Side::Pulumi, flatten(pulumi, processes.is_none())),
    ];
    for allowance in allowed {
        for (side, calls) in &mut lists {
            let changed = match allowance.rule {
                Rule::RefreshDiff(only) if only == *side => drop_refresh_diffs(calls),
                Rule::ReplacePrivate => drop_replace_private(calls),
                Rule::ProducedStateUpgrades(only) if only == *side => drop_produced_upgrades(calls),
                Rule::DestroyPlans(only) if only == *side => {
                    let before = calls.len();
                    calls.retain(|call| {
                        method(call) != "PlanResourceChange" || !call["request"]["config"].is_null()
                    });
                    calls.len() != before
                }
                rule => apply(rule, *side, calls),
            };
            if changed {
                used.insert(allowance.id);
            }
        }
    }
    // Repeats and order are judged on what the other rules left.
    for kind in [RuleKind::Repeats, RuleKind::IndependentOrder] {
        for allowance in allowed
            .iter()
            .filter(|a| RuleKind::of(a.rule) == Some(kind))
        {
            for (_, calls) in &mut lists {
                let changed = match kind {
                    RuleKind::Repeats => drop_repeats(calls),
                    RuleKind::IndependentOrder => order_independent(calls),
                };
                if changed {
                    used.insert(allowance.id);
                }
            }
        }
    }
    let [(_, tofu), (_, pulumi)] = lists;
    Normalised { tofu, pulumi, used }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RuleKind {
    Repeats,
    IndependentOrder,
}

impl RuleKind {
    fn of(rule: Rule) -> Option<RuleKind> {
        match rule {
            Rule::Repeats => Some(RuleKind::Repeats),
            Rule::IndependentOrder => Some(RuleKind::IndependentOrder),
            _ => None,
        }
    }
}

fn method(call: &Value) -> &str {
    call["method"].as_str().unwrap_or_default()
}

/// Whether a process only discovers and validates, never configuring the provider.
fn validates_only(process: &Process) -> bool {
    let validates = process.iter().any(|call| {
        method(call).starts_with("Validate") && method(call) != "ValidateProviderConfig"
    });
    let configures = process
        .iter()
        .any(|call| method(call) == "ConfigureProvider");
    validates && !configures
}

fn flatten(processes: Vec<Process>, marked: bool) -> Vec<Value> {
    let mut calls = Vec::new();
    for process in processes {
        if marked {
            calls.push(serde_json::json!({ "method": PROCESS_MARKER }));
        }
        calls.extend(process);
    }
    calls
}

/// Applies a removal or mask rule to one side's calls; says whether anything changed.
fn apply(rule: Rule, side: Side, calls: &mut Vec<Value>) -> bool {
    match rule {
        Rule::Drop {
            side: only,
            methods,
        } if only.is_none_or(|s| s == side) => {
            let before = calls.len();
            calls.retain(|call| !methods.contains(&method(call)));
            calls.len() != before
        }
        Rule::Remove {
            side: only,
            method: name,
            path,
        } if only.is_none_or(|s| s == side) => {
            let mut changed = false;
            for call in calls.iter_mut() {
                if name == "*" || method(call) == name {
                    changed |= remove(call, path);
                }
            }
            changed
        }
        _ => false,
    }
}

/// Removes the value at `path`; says whether there was one.
fn remove(value: &mut Value, path: &[&str]) -> bool {
    match path {
        [] => false,
        [last] => value
            .as_object_mut()
            .is_some_and(|object| object.remove(*last).is_some()),
        [first, rest @ ..] => value
            .get_mut(*first)
            .is_some_and(|inner| remove(inner, rest)),
    }
}

/// Leaves out, after each ReadResource, the upgrade of the state it read and the plans from that
/// state, for the same resource type.
fn drop_refresh_diffs(calls: &mut Vec<Value>) -> bool {
    let mut read: Vec<(Value, Value)> = Vec::new();
    let before = calls.len();
    calls.retain(|call| {
        let request = &call["request"];
        let type_name = request["type_name"].clone();
        let was_read = |state: &Value| read.iter().any(|(t, s)| *t == type_name && s == state);
        match method(call) {
            "ReadResource" => {
                read.push((type_name.clone(), call["response"]["new_state"].clone()));
                true
            }
            "UpgradeResourceState" => !was_read(&request["raw_state"]["json"]),
            "PlanResourceChange" => !was_read(&request["prior_state"]),
            _ => true,
        }
    });
    calls.len() != before
}

fn drop_replace_private(calls: &mut [Value]) -> bool {
    let mut changed = false;
    for call in calls {
        let request = &call["request"];
        let path: &[&str] = match method(call) {
            "PlanResourceChange" if request["prior_state"].is_null() => {
                &["request", "prior_private"]
            }
            "ApplyResourceChange" if request["planned_state"].is_null() => {
                &["request", "planned_private"]
            }
            _ => continue,
        };
        changed |= remove(call, path);
    }
    changed
}

/// Leaves out upgrades of a state some earlier answer held (a read, an import, an apply).
fn drop_produced_upgrades(calls: &mut Vec<Value>) -> bool {
    let mut produced: Vec<Value> = Vec::new();
    let before = calls.len();
    calls.retain(|call| {
        let response = &call["response"];
        let keep = method(call) != "UpgradeResourceState"
            || !produced.contains(&call["request"]["raw_state"]["json"]);
        for state in [&response["new_state"], &response["upgraded_state"]] {
            if !state.is_null() {
                produced.push(state.clone());
            }
        }
        if let Some(imported) = response["imported_resources"].as_array() {
            produced.extend(imported.iter().map(|r| r["state"].clone()));
        }
        keep
    });
    calls.len() != before
}

fn drop_repeats(calls: &mut Vec<Value>) -> bool {
    let mut seen: Vec<Value> = Vec::new();
    let before = calls.len();
    calls.retain(|call| {
        // Process markers are never repeats.
        if method(call) == PROCESS_MARKER {
            return true;
        }
        if seen.contains(call) {
            false
        } else {
            seen.push(call.clone());
            true
        }
    });
    calls.len() != before
}

fn order_independent(calls: &mut [Value]) -> bool {
    let mut changed = false;
    let mut start = 0;
    while start < calls.len() {
        if independent_rank(method(&calls[start])).is_none() {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < calls.len() && independent_rank(method(&calls[end])).is_some() {
            end += 1;
        }
        let run = &mut calls[start..end];
        let before: Vec<Value> = run.to_vec();
        run.sort_by_key(|call| independent_rank(method(call)));
        changed |= run != before.as_slice();
        start = end;
    }
    changed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(method: &str, request: Value) -> Value {
        json!({ "method": method, "request": request })
    }

    #[test]
    fn allowances_take_out_only_what_they_name_and_say_so() {
        let tofu = vec![
            vec![
                call("GetProviderSchema", json!({})),
                call(
                    "ValidateResourceConfig",
                    json!({"config": {"name": "<unknown>"}}),
                ),
            ],
            vec![
                call("ConfigureProvider", json!({"terraform_version": "1.11.0"})),
                call("UpgradeResourceState", json!({"raw_state": 1})),
                call("ValidateResourceConfig", json!({"config": {"name": "a"}})),
                call("PlanResourceChange", json!({"config": {"name": "a"}})),
            ],
            vec![
                call("ConfigureProvider", json!({"terraform_version": "1.11.0"})),
                call("PlanResourceChange", json!({"config": {"name": "a"}})),
            ],
        ];
        let pulumi = vec![vec![
            call("GetProviderSchema", json!({})),
            call("ConfigureProvider", json!({"terraform_version": "ours"})),
            call("ValidateResourceConfig", json!({"config": {"name": "a"}})),
            call("UpgradeResourceState", json!({"raw_state": 1})),
            call("PlanResourceChange", json!({"config": {"name": "a"}})),
            call("StopProvider", json!({})),
        ]];
        const VERSION: &[&str] = &["request", "terraform_version"];
        let allowed = [
            Allowance {
                id: "processes",
                rule: Rule::Processes,
            },
            Allowance {
                id: "discovery",
                rule: Rule::Drop {
                    side: None,
                    methods: &["GetProviderSchema"],
                },
            },
            Allowance {
                id: "walk",
                rule: Rule::ValidationOnlyProcesses(Side::Tofu),
            },
            Allowance {
                id: "stop",
                rule: Rule::Drop {
                    side: Some(Side::Pulumi),
                    methods: &["StopProvider"],
                },
            },
            Allowance {
                id: "version",
                rule: Rule::Remove {
                    side: None,
                    method: "ConfigureProvider",
                    path: VERSION,
                },
            },
            Allowance {
                id: "repeats",
                rule: Rule::Repeats,
            },
            Allowance {
                id: "order",
                rule: Rule::IndependentOrder,
            },
            Allowance {
                id: "unused",
                rule: Rule::Drop {
                    side: None,
                    methods: &["ReadDataSource"],
                },
            },
        ];
        let normal = normalise(&allowed, tofu.clone(), pulumi.clone());
        assert_eq!(normal.tofu, normal.pulumi);
        assert_eq!(normal.tofu.len(), 4);
        let used: Vec<&str> = normal.used.iter().copied().collect();
        assert_eq!(
            used,
            [
                "discovery",
                "order",
                "processes",
                "repeats",
                "stop",
                "version",
                "walk"
            ]
        );
        // Without the processes allowance, markers show the different number of processes.
        let normal = normalise(&allowed[1..], tofu, pulumi);
        assert_ne!(normal.tofu, normal.pulumi);
        assert_eq!(method(&normal.tofu[0]), PROCESS_MARKER);
    }
}
