//! The oracle comparison: the same configuration through OpenTofu 1.11.0 (HCL) and through our
//! bridge (a Pulumi YAML program under the real `pulumi` CLI), with every call each host makes to
//! the provider recorded by the same instrument, our binary's `record` pass-through, and the two
//! sequences compared after normalisation.
//!
//! A comparison is a scenario that builds an [`Oracle`] and runs [`Phase`]s:
//!
//! ```text
//! let mut oracle = Oracle::new(tools, "oracle-x", "lifecycle", &[Provider::tfptest(tools)], ALLOWED)?;
//! oracle.phase(&Phase { name: "create", tofu: &["apply", "-auto-approve"],
//!                       program: "resources: …", pulumi: &["up", "--yes"], prepare: None })?;
//! oracle.finish()
//! ```
//!
//! - [`Oracle::new`] makes a throwaway Pulumi project ([`Project`]), puts a
//!   `terraform-provider-<type>` launcher that runs `record` in front of each real provider in a
//!   directory of its own, copies the HCL root module `testdata/oracle/<hcl>/` into a working
//!   directory for OpenTofu, writes a CLI configuration whose `dev_overrides` name the launchers,
//!   and adds each launcher to the project with `pulumi package add`, so both hosts run the very
//!   same launcher. Every provider process writes its own recording.
//! - [`Oracle::phase`] runs `tofu <args>` in OpenTofu's directory, then writes the YAML program
//!   and runs `pulumi <args>` in the project, each after the phase's `prepare` (given that side's
//!   directory; providers run in their host's working directory, so relative paths in both
//!   configurations land there). Then it reads both sides' recordings (`show-recording`), brings
//!   them to their normal forms under the allow-list ([`normal`]) and compares them, provider by
//!   provider: a provider sees only its own calls, so how a host interleaves two providers' calls
//!   is not compared. A phase whose
//!   commands fail stops the comparison; a phase whose calls differ is reported with a readable
//!   diff ([`diff`]) and the next phase runs.
//! - The allow-list is the scenario's: each [`Allowance`] names a point of the README's
//!   "Differences from Terraform and OpenTofu in the calls a provider sees" ("allowed as `<id>`"),
//!   which says why the difference exists. [`Oracle::new`] fails if the README lacks one, and
//!   [`Oracle::finish`] if one was never needed.
//!
//! The comparisons are [`classic`] (the classic lifecycle) and [`ephemeral`] (ephemeral resources
//! into write-only arguments).
//!
//! To add a comparison: write the HCL under `testdata/oracle/<dir>/`, a function that runs its
//! phases with the equivalent YAML (in a module under `oracle/`), list it in the e2e
//! `SCENARIOS`, and name the allowances it needs (the common ones are [`CLASSIC`]); a new kind of
//! difference gets a README point and an [`Allowance`] here.

pub(super) mod classic;
mod diff;
pub(super) mod ephemeral;
mod normal;

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use serde_json::Value;

pub(super) use normal::{Allowance, Rule, Side};

use super::harness::{Project, Tools};
use crate::util;

/// What the recording writes in place of a sensitive value.
const REDACTED: &str = "<redacted>";

/// The variable that tells the launchers where to write their recordings.
const RECORDINGS: &str = "TFP_ORACLE_RECORDINGS";

/// The README section the allowances cite.
const README_SECTION: &str =
    "## Differences from Terraform and OpenTofu in the calls a provider sees";

/// Provider processes: OpenTofu starts one to validate and one for each of plan and apply;
/// the Pulumi CLI starts our plugin once per command (twice with a preview).
pub(super) const PROCESSES: Allowance = Allowance {
    id: "processes",
    rule: Rule::Processes,
};

/// Schema and metadata calls, which each host makes as often as its caching needs.
pub(super) const DISCOVERY: Allowance = Allowance {
    id: "discovery",
    rule: Rule::Drop {
        side: None,
        methods: &[
            "GetProviderSchema",
            "GetMetadata",
            "GetResourceIdentitySchemas",
            "GetFunctions",
        ],
    },
};

/// OpenTofu's validate walk: a process that validates the configuration with its variables
/// unknown, before planning.
pub(super) const VALIDATE_WALK: Allowance = Allowance {
    id: "validate-walk",
    rule: Rule::ValidationOnlyProcesses(Side::Tofu),
};

/// The `StopProvider` our bridge sends when the engine cancels before closing a provider.
pub(super) const STOP_ON_CLOSE: Allowance = Allowance {
    id: "stop-on-close",
    rule: Rule::Drop {
        side: Some(Side::Pulumi),
        methods: &["StopProvider"],
    },
};

/// The host's version in `ConfigureProvider`.
pub(super) const HOST_VERSION: Allowance = Allowance {
    id: "host-version",
    rule: Rule::Remove {
        side: None,
        method: "ConfigureProvider",
        path: &["request", "terraform_version"],
    },
};

/// The `deferral_allowed` client capability, which only OpenTofu sends.
pub(super) const NO_DEFERRAL: Allowance = Allowance {
    id: "no-deferral",
    rule: Rule::Remove {
        side: Some(Side::Tofu),
        method: "*",
        path: &["request", "client_capabilities", "deferral_allowed"],
    },
};

/// A call repeated with the same request and answer.
pub(super) const REPEATS: Allowance = Allowance {
    id: "repeats",
    rule: Rule::Repeats,
};

/// The order of state reads and validations, which do not depend on one another.
pub(super) const INDEPENDENT_ORDER: Allowance = Allowance {
    id: "independent-order",
    rule: Rule::IndependentOrder,
};

/// The Pulumi engine's Diff after a refresh, which our bridge answers with a plan from the
/// state just read. For refresh phases only: elsewhere a plan from a read state is a real one.
pub(super) const REFRESH_DIFF: Allowance = Allowance {
    id: "refresh-diff",
    rule: Rule::RefreshDiff(Side::Pulumi),
};

/// The destroy plan of the delete that completes a replacement, which Terraform applies from the
/// replacement's plan. For replace phases only: a destroy is planned by both hosts.
pub(super) const REPLACE_DESTROY_PLAN: Allowance = Allowance {
    id: "replace-destroy-plan",
    rule: Rule::DestroyPlans(Side::Pulumi),
};

/// The private state a replacement's plan passes on to the plan of the new object and the delete
/// of the old one. For replace phases only.
pub(super) const REPLACE_PRIVATE: Allowance = Allowance {
    id: "replace-private",
    rule: Rule::ReplacePrivate,
};

/// OpenTofu's upgrade, in its apply process, of the state its plan process imported. For import
/// phases only.
pub(super) const IMPORT_UPGRADE: Allowance = Allowance {
    id: "import-upgrade",
    rule: Rule::ProducedStateUpgrades(Side::Tofu),
};

/// Resource identity, which OpenTofu 1.11 never gives back to a provider and our bridge gives back
/// where Terraform 1.12 does: the stored identity in plans and reads, the planned one in applies.
/// For providers whose resources have identities (tfptest's items, Pyvider's files).
const fn identity(method: &'static str, path: &'static [&'static str]) -> Allowance {
    Allowance {
        id: "identity",
        rule: Rule::Remove {
            side: Some(Side::Pulumi),
            method,
            path,
        },
    }
}

const PRIOR_IDENTITY: Allowance = identity("PlanResourceChange", &["request", "prior_identity"]);
const PLANNED_IDENTITY: Allowance =
    identity("ApplyResourceChange", &["request", "planned_identity"]);
const CURRENT_IDENTITY: Allowance = identity("ReadResource", &["request", "current_identity"]);

/// OpenTofu's destroy plans every object before it destroys any; the engine deletes one at a
/// time, and our Delete plans and applies each. For destroy phases of more than one object.
pub(super) const DESTROY_EACH: Allowance = Allowance {
    id: "destroy-each",
    rule: Rule::DestroyEach(Side::Tofu),
};

/// What every comparison of the classic lifecycle allows.
pub(super) const CLASSIC: &[Allowance] = &[
    PROCESSES,
    DISCOVERY,
    VALIDATE_WALK,
    STOP_ON_CLOSE,
    HOST_VERSION,
    NO_DEFERRAL,
    REPEATS,
    INDEPENDENT_ORDER,
];

/// What an import followed by a destroy allows: the classic list without the order of state reads
/// and validations, which both hosts make in the same order there.
pub(super) const IMPORT: &[Allowance] = &[
    PROCESSES,
    DISCOVERY,
    VALIDATE_WALK,
    STOP_ON_CLOSE,
    HOST_VERSION,
    NO_DEFERRAL,
    REPEATS,
];

/// [`CLASSIC`], for a provider whose resources have identities.
pub(super) const CLASSIC_WITH_IDENTITY: &[Allowance] = &[
    PROCESSES,
    DISCOVERY,
    VALIDATE_WALK,
    STOP_ON_CLOSE,
    HOST_VERSION,
    NO_DEFERRAL,
    REPEATS,
    INDEPENDENT_ORDER,
    PRIOR_IDENTITY,
    PLANNED_IDENTITY,
    CURRENT_IDENTITY,
];

/// [`IMPORT`], for a provider whose resources have identities.
pub(super) const IMPORT_WITH_IDENTITY: &[Allowance] = &[
    PROCESSES,
    DISCOVERY,
    VALIDATE_WALK,
    STOP_ON_CLOSE,
    HOST_VERSION,
    NO_DEFERRAL,
    REPEATS,
    PRIOR_IDENTITY,
    PLANNED_IDENTITY,
    CURRENT_IDENTITY,
];

/// The methods of recorded calls that [`Oracle::stored`] names.
const METHODS: &[&str] = &[
    "OpenEphemeralResource",
    "RenewEphemeralResource",
    "CloseEphemeralResource",
];

/// A real provider, run behind the pass-through by both hosts.
pub(super) struct Provider<'p> {
    /// Its type name, which names its launcher `terraform-provider-<type>` and its Pulumi package.
    pub(super) name: &'static str,
    /// The source address the HCL's `required_providers` gives it (`dev_overrides` matches it).
    pub(super) source: &'static str,
    pub(super) executable: &'p Path,
}

impl<'p> Provider<'p> {
    /// Our tfptest provider (`testdata/providers/tfptest`).
    pub(super) fn tfptest(tools: &'p Tools) -> Provider<'p> {
        Provider {
            name: "tfptest",
            source: "registry.opentofu.org/test/tfptest",
            executable: &tools.tfptest,
        }
    }

    /// Pyvider 0.8.1.
    pub(super) fn pyvider(tools: &'p Tools) -> Provider<'p> {
        Provider {
            name: "pyvider",
            source: "registry.opentofu.org/test/pyvider",
            executable: &tools.pyvider,
        }
    }

    /// The official AWS provider 3.39.0.
    pub(super) fn aws(tools: &'p Tools) -> Provider<'p> {
        Provider {
            name: "aws",
            source: "registry.opentofu.org/hashicorp/aws",
            executable: &tools.aws,
        }
    }
}

/// `tofu apply` and `tofu destroy` without the refresh that `pulumi up` and `pulumi destroy` do
/// not do, and `pulumi up`.
pub(super) const APPLY: &[&str] = &["apply", "-auto-approve", "-refresh=false"];
pub(super) const DESTROY: &[&str] = &["destroy", "-auto-approve", "-refresh=false"];
pub(super) const UP: &[&str] = &["up", "--yes"];

/// What a phase does to a side's working directory before that side runs.
pub(super) type Prepare<'p> = &'p dyn Fn(&Path) -> Result<()>;

/// One step of a comparison: what each host runs.
pub(super) struct Phase<'p> {
    pub(super) name: &'static str,
    /// Done to each side's working directory before that side runs (make a file to import, edit
    /// one to drift).
    pub(super) prepare: Option<Prepare<'p>>,
    /// Arguments to `tofu`; `-no-color` and `-input=false` are added.
    pub(super) tofu: &'p [&'p str],
    /// The YAML program: what follows the `packages:` that `pulumi package add` wrote.
    pub(super) program: &'p str,
    /// Arguments to `pulumi`.
    pub(super) pulumi: &'p [&'p str],
    /// Differences allowed in this phase only, on top of the comparison's.
    pub(super) allowed: &'p [Allowance],
}

/// A comparison under way.
pub(super) struct Oracle<'a> {
    project: Project<'a>,
    /// The providers' type names, in the order the comparison was given them.
    providers: Vec<&'static str>,
    plugin: PathBuf,
    tofu: PathBuf,
    tofu_dir: PathBuf,
    cli_config: PathBuf,
    recordings: PathBuf,
    allowed: &'a [Allowance],
    used: BTreeSet<&'static str>,
    /// Every id allowed so far, by the comparison or a phase.
    listed: Vec<&'static str>,
    /// Values that must differ between the sides (the names of resources that exist at the same
    /// time), with what replaces them.
    placeholders: Vec<(Side, String, &'static str)>,
    compared: Vec<String>,
    failures: Vec<String>,
}

impl<'a> Oracle<'a> {
    /// Sets up the comparison `name` of the HCL root module `testdata/oracle/<hcl>/` with
    /// `providers`, allowing the differences in `allowed`.
    pub(super) fn new(
        tools: &'a Tools,
        name: &str,
        hcl: &str,
        providers: &[Provider<'_>],
        allowed: &'a [Allowance],
    ) -> Result<Self> {
        check_documented(allowed)?;
        let mut project = Project::new(tools, name)?;
        let root = project.root().to_owned();
        let launchers = root.join("launchers");
        let recordings = root.join("recordings");
        let tofu_dir = root.join("tofu");
        for dir in [&launchers, &recordings, &tofu_dir] {
            fs::create_dir(dir).with_context(|| format!("could not create {}", dir.display()))?;
        }
        let source = util::workspace_root().join("testdata/oracle").join(hcl);
        copy_files(&source, &tofu_dir)?;
        let mut overrides = String::new();
        for provider in providers {
            let dir = launchers.join(provider.name);
            fs::create_dir(&dir).with_context(|| format!("could not create {}", dir.display()))?;
            write_launcher(&dir, provider, tools.plugin())?;
            let _ = writeln!(overrides, "    {:?} = {:?}", provider.source, dir);
        }
        let cli_config = root.join("tofu.tfrc");
        fs::write(
            &cli_config,
            format!(
                "provider_installation {{\n  dev_overrides {{\n{overrides}  }}\n  direct {{}}\n}}\n"
            ),
        )
        .with_context(|| format!("could not write {}", cli_config.display()))?;
        // Calls made while adding the packages are not compared.
        let setup = recordings.join("setup");
        fs::create_dir(&setup).with_context(|| format!("could not create {}", setup.display()))?;
        project.set_env(RECORDINGS, &setup);
        for provider in providers {
            let launcher = launchers
                .join(provider.name)
                .join(format!("terraform-provider-{}", provider.name));
            project.package_add(
                &format!("add the {} package, behind the pass-through", provider.name),
                &[&launcher.to_string_lossy()],
            )?;
        }
        Ok(Self {
            project,
            providers: providers.iter().map(|p| p.name).collect(),
            plugin: tools.plugin().to_owned(),
            tofu: tools.tofu.clone(),
            tofu_dir,
            cli_config,
            recordings,
            allowed,
            used: BTreeSet::new(),
            listed: allowed.iter().map(|a| a.id).collect(),
            placeholders: Vec::new(),
            compared: Vec::new(),
            failures: Vec::new(),
        })
    }

    /// The Pulumi project, to start servers in its network or set its configuration.
    pub(super) fn project(&mut self) -> &mut Project<'a> {
        &mut self.project
    }

    /// The working directories of both sides, OpenTofu's first, where their providers run.
    pub(super) fn dirs(&self) -> [PathBuf; 2] {
        [self.tofu_dir.clone(), self.project.dir()]
    }

    /// Everything either host has stored or recorded so far, each with where it is and, for a
    /// recorded call, its method: OpenTofu's state, the stack's export with its secrets shown, the
    /// files of Pulumi's backend, and every call of every recording, decoded.
    pub(super) fn stored(&self) -> Result<Vec<(String, &'static str, String)>> {
        let mut places = vec![(
            "`pulumi stack export --show-secrets`".to_owned(),
            "",
            self.project
                .pulumi(
                    "export the stack with secrets",
                    &["stack", "export", "--show-secrets"],
                )?
                .stdout,
        )];
        let mut files = super::harness::files_under(&self.tofu_dir)?;
        files.extend(super::harness::files_under(
            &self.project.root().join("state"),
        )?);
        for file in files {
            if file
                .extension()
                .is_some_and(|e| e == "tfstate" || e == "backup")
            {
                let text = String::from_utf8_lossy(
                    &fs::read(&file)
                        .with_context(|| format!("could not read {}", file.display()))?,
                )
                .into_owned();
                places.push((file.display().to_string(), "", text));
            }
        }
        for file in super::harness::files_under(&self.recordings)? {
            let text = util::output(Command::new(&self.plugin).arg("show-recording").arg(&file))
                .with_context(|| format!("could not show the recording {}", file.display()))?;
            // One place per call, so that a leak names the call that holds it.
            for (index, line) in text.lines().enumerate() {
                let call: Value = serde_json::from_str(line).with_context(|| {
                    format!(
                        "`show-recording` printed invalid JSON for {}",
                        file.display()
                    )
                })?;
                let method = METHODS
                    .iter()
                    .find(|m| call["method"] == **m)
                    .copied()
                    .unwrap_or("");
                places.push((
                    format!(
                        "call {} ({}) of the recording {}",
                        index + 1,
                        call["method"],
                        file.display()
                    ),
                    method,
                    line.to_owned(),
                ));
            }
        }
        Ok(places)
    }

    /// Makes `value` read `placeholder` in `side`'s calls: for names that must differ because
    /// both sides' resources exist at the same time (a bucket name).
    pub(super) fn placeholder(&mut self, side: Side, value: &str, placeholder: &'static str) {
        self.placeholders
            .push((side, value.to_owned(), placeholder));
    }

    /// Runs `phase` on both sides and compares the calls; a difference is kept for
    /// [`Oracle::finish`], a failed command is an error at once.
    pub(super) fn phase(&mut self, phase: &Phase<'_>) -> Result<()> {
        check_documented(phase.allowed)?;
        let dir = self.recordings.join(phase.name);
        let (tofu_recordings, pulumi_recordings) = (dir.join("tofu"), dir.join("pulumi"));
        for dir in [&dir, &tofu_recordings, &pulumi_recordings] {
            fs::create_dir(dir).with_context(|| format!("could not create {}", dir.display()))?;
        }

        if let Some(prepare) = phase.prepare {
            prepare(&self.tofu_dir)
                .with_context(|| format!("phase {}: preparing OpenTofu's side", phase.name))?;
        }
        let mut args = phase.tofu.to_vec();
        args.extend(["-no-color", "-input=false"]);
        self.project.run_in_network(
            &format!("{}: tofu", phase.name),
            &self.tofu_dir,
            &self.tofu,
            &args,
            &[
                (RECORDINGS, tofu_recordings.as_os_str()),
                ("TF_CLI_CONFIG_FILE", self.cli_config.as_os_str()),
                ("CHECKPOINT_DISABLE", OsStr::new("1")),
                ("TF_IN_AUTOMATION", OsStr::new("1")),
            ],
        )?;

        let project_dir = self.project.dir();
        if let Some(prepare) = phase.prepare {
            prepare(&project_dir)
                .with_context(|| format!("phase {}: preparing Pulumi's side", phase.name))?;
        }
        self.project.write_program(phase.program)?;
        self.project.set_env(RECORDINGS, &pulumi_recordings);
        self.project
            .pulumi(&format!("{}: pulumi", phase.name), phase.pulumi)?;

        let tofu = self.processes(&tofu_recordings, Side::Tofu)?;
        let pulumi = self.processes(&pulumi_recordings, Side::Pulumi)?;
        ensure!(
            !tofu.is_empty() && !pulumi.is_empty(),
            "phase {}: a side recorded no provider process (OpenTofu {}, ours {})",
            phase.name,
            tofu.len(),
            pulumi.len()
        );
        let allowed: Vec<Allowance> = self.allowed.iter().chain(phase.allowed).copied().collect();
        for allowance in phase.allowed {
            if !self.listed.contains(&allowance.id) {
                self.listed.push(allowance.id);
            }
        }
        // Each provider is compared on its own: a provider sees only its own calls, and how a
        // host interleaves two providers' calls is no part of what either sees.
        let mut same = true;
        for provider in &self.providers {
            let of = |processes: &[(&'static str, normal::Process)]| -> Vec<normal::Process> {
                processes
                    .iter()
                    .filter(|(name, _)| name == provider)
                    .map(|(_, calls)| calls.clone())
                    .collect()
            };
            let normal = normal::normalise(&allowed, of(&tofu), of(&pulumi));
            self.used.extend(&normal.used);
            let label = if self.providers.len() > 1 {
                format!("{} ({provider})", phase.name)
            } else {
                phase.name.to_owned()
            };
            match diff::diff(&normal.tofu, &normal.pulumi) {
                None => eprintln!(
                    "  {label}: the provider saw the same {} calls from both hosts",
                    normal.tofu.len()
                ),
                Some(diff) => {
                    eprintln!("  {label}: the calls differ");
                    same = false;
                    self.failures.push(format!(
                        "phase {label}: the provider's calls differ after normalisation\n{diff}"
                    ));
                }
            }
        }
        if same {
            self.compared.push(phase.name.to_owned());
        }
        Ok(())
    }

    /// The provider processes `side` recorded in `dir`, in the order they started, each with its
    /// provider's type name and its calls, the side's placeholders put in.
    fn processes(&self, dir: &Path, side: Side) -> Result<Vec<(&'static str, normal::Process)>> {
        let mut files: Vec<PathBuf> = fs::read_dir(dir)
            .with_context(|| format!("could not list {}", dir.display()))?
            .map(|entry| entry.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .with_context(|| format!("could not list {}", dir.display()))?;
        // The launcher names each file `<start time in ns>-<pid>-<provider>.json`.
        files.sort_by_key(|file| {
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
            let start: u128 = name
                .as_deref()
                .and_then(|n| n.split('-').next())
                .and_then(|t| t.parse().ok())
                .unwrap_or_default();
            (start, name)
        });
        let mut processes = Vec::with_capacity(files.len());
        for file in files {
            let name = file.file_stem().map(|n| n.to_string_lossy().into_owned());
            let provider = self
                .providers
                .iter()
                .copied()
                .find(|p| {
                    name.as_deref()
                        .and_then(|n| n.rsplit_once('-'))
                        .is_some_and(|(_, of)| of == *p)
                })
                .with_context(|| {
                    format!(
                        "the recording {} names no provider of the comparison",
                        file.display()
                    )
                })?;
            let text = util::output(Command::new(&self.plugin).arg("show-recording").arg(&file))
                .with_context(|| format!("could not show the recording {}", file.display()))?;
            let mut calls = text
                .lines()
                .map(serde_json::from_str::<Value>)
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| {
                    format!(
                        "`show-recording` printed invalid JSON for {}",
                        file.display()
                    )
                })?;
            for (of, value, placeholder) in &self.placeholders {
                if *of == side {
                    calls
                        .iter_mut()
                        .for_each(|call| replace(call, value, placeholder));
                }
            }
            processes.push((provider, calls));
        }
        Ok(processes)
    }

    /// Ends the comparison: fails naming every phase whose calls differed, and every allowance
    /// that was never needed; otherwise checks that the project left nothing running.
    pub(super) fn finish(self) -> Result<()> {
        let unused: Vec<&str> = self
            .listed
            .iter()
            .copied()
            .filter(|id| !self.used.contains(id))
            .collect();
        let ids = self.listed.join(", ");
        let Oracle {
            project,
            compared,
            mut failures,
            ..
        } = self;
        if !unused.is_empty() {
            failures.push(format!(
                "allowances that took nothing out of any phase (remove them from the list): {}",
                unused.join(", ")
            ));
        }
        if let Err(error) = project.finish() {
            failures.push(format!("{error:#}"));
        }
        if !failures.is_empty() {
            bail!("{}", failures.join("\n\n"));
        }
        eprintln!(
            "  the provider saw the same calls in every phase ({}) under the allowances: {ids}",
            compared.join(", "),
        );
        Ok(())
    }
}

/// Replaces `value` with `placeholder` in every string in `json`.
fn replace(json: &mut Value, value: &str, placeholder: &str) {
    match json {
        Value::String(text) if text.contains(value) => *text = text.replace(value, placeholder),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| replace(item, value, placeholder)),
        Value::Object(fields) => fields
            .values_mut()
            .for_each(|field| replace(field, value, placeholder)),
        _ => {}
    }
}

/// Fails unless the README's section documents every allowance: a point that ends "Allowed as
/// `<id>`." (case aside).
fn check_documented(allowed: &[Allowance]) -> Result<()> {
    let readme = util::workspace_root().join("README.md");
    let text = fs::read_to_string(&readme)
        .with_context(|| format!("could not read {}", readme.display()))?;
    let section = text
        .split_once(README_SECTION)
        .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
        .with_context(|| format!("README.md has no section {README_SECTION:?}"))?;
    let section = section.to_lowercase();
    let missing: Vec<&str> = allowed
        .iter()
        .map(|a| a.id)
        .filter(|id| !section.contains(&format!("allowed as `{id}`")))
        .collect();
    ensure!(
        missing.is_empty(),
        "README.md's {README_SECTION:?} documents no difference allowed as {}",
        missing.join(", ")
    );
    Ok(())
}

/// Copies the files (not directories) of `from` into `to`.
fn copy_files(from: &Path, to: &Path) -> Result<()> {
    for entry in fs::read_dir(from).with_context(|| format!("could not list {}", from.display()))? {
        let entry = entry.with_context(|| format!("could not list {}", from.display()))?;
        if entry.file_type()?.is_file() {
            fs::copy(entry.path(), to.join(entry.file_name()))
                .with_context(|| format!("could not copy {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Writes `terraform-provider-<type>` in `dir`: a script that runs our `record` in front of the
/// real provider, each process recording to its own file named after its start time, PID and
/// provider.
fn write_launcher(dir: &Path, provider: &Provider<'_>, plugin: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let quote = |path: &Path| -> Result<String> {
        let text = path.to_string_lossy();
        ensure!(
            !text.contains('\''),
            "{} has a quote in its path",
            path.display()
        );
        Ok(format!("'{text}'"))
    };
    let script = format!(
        "#!/bin/sh\n# The recording pass-through in front of the real provider.\n\
         exec {} record \"${{{RECORDINGS}:?}}/$(date +%s%N)-$$-{}.json\" {}\n",
        quote(plugin)?,
        provider.name,
        quote(provider.executable)?
    );
    let path = dir.join(format!("terraform-provider-{}", provider.name));
    fs::write(&path, script).with_context(|| format!("could not write {}", path.display()))?;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
        .with_context(|| format!("could not make {} executable", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every allowance there is.
    const ALL: &[Allowance] = &[
        PROCESSES,
        DISCOVERY,
        VALIDATE_WALK,
        STOP_ON_CLOSE,
        HOST_VERSION,
        NO_DEFERRAL,
        REPEATS,
        INDEPENDENT_ORDER,
        REFRESH_DIFF,
        REPLACE_DESTROY_PLAN,
        REPLACE_PRIVATE,
        IMPORT_UPGRADE,
        PRIOR_IDENTITY,
        DESTROY_EACH,
    ];

    #[test]
    fn the_readme_documents_every_allowance_and_no_other() {
        check_documented(ALL).expect("every allowance has its README point");
        let readme = fs::read_to_string(util::workspace_root().join("README.md")).expect("reads");
        let section = readme
            .split_once(README_SECTION)
            .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
            .expect("the section");
        let documented: Vec<&str> = section
            .split("Allowed as `")
            .skip(1)
            .filter_map(|rest| rest.split('`').next())
            .collect();
        let known: Vec<&str> = ALL.iter().map(|a| a.id).collect();
        assert_eq!(
            documented, known,
            "the README's points, in order, are the allowances"
        );
    }

    #[test]
    fn placeholders_replace_inside_every_string() {
        let mut call =
            serde_json::json!({"request": {"bucket": "b-1", "arn": "arn:aws:s3:::b-1", "n": 1}});
        replace(&mut call, "b-1", "<bucket>");
        assert_eq!(
            call,
            serde_json::json!({"request": {"bucket": "<bucket>", "arn": "arn:aws:s3:::<bucket>", "n": 1}})
        );
    }
}
