//! `jload agent …`: the commands the controlling jload runs on other hosts over ssh (hidden from help; not for people).

use std::time::Duration;

use clap::{Args, Subcommand};

use super::messages::DEFAULT_SILENCE_LIMIT;

#[derive(Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    pub role: AgentRole,
}

#[derive(Subcommand)]
pub enum AgentRole {
    /// Start, watch and stop one target, told what to do on standard input (see `remote::messages`).
    Target {
        /// Stop the target and end after this long without a word from the controller.
        #[arg(long, default_value_t = DEFAULT_SILENCE_LIMIT.as_millis() as u64)]
        silence_limit_ms: u64,
    },
    /// Run one share of a load, told what on standard input (see `remote::messages`).
    Load {
        /// End the share after this long without a word from the controller.
        #[arg(long, default_value_t = DEFAULT_SILENCE_LIMIT.as_millis() as u64)]
        silence_limit_ms: u64,
    },
    /// Print a TCP port that is free on this host.
    Port,
    /// Print this machine's facts (as env.json records them) as JSON.
    Env,
    /// Remove the cgroup boxes a killed jload left here, and print `ok` when a box (with a CPU quota: `--quota`) can
    /// be made here, else why not in one line.
    Boxes {
        #[arg(long)]
        quota: bool,
    },
    /// Preflight options in a cgroup box here: a `BoxedPreflight` as JSON on standard input, the `Preflight` printed.
    Preflight,
}

/// Run the agent `args` names; a target's agent answers its probes' calls with `far_probes`.
pub fn run(args: AgentArgs, far_probes: super::agent::FarProbes) -> anyhow::Result<i32> {
    match args.role {
        AgentRole::Target { silence_limit_ms } => {
            super::agent::serve_target(Duration::from_millis(silence_limit_ms), far_probes)
        }
        AgentRole::Load { silence_limit_ms } => super::load_agent::serve_load(Duration::from_millis(silence_limit_ms)),
        AgentRole::Env => {
            let installed = crate::plan::jdks::discover();
            println!("{}", serde_json::to_string(&crate::results::Env::of_this_machine(installed, 0))?);
            Ok(0)
        }
        AgentRole::Boxes { quota } => {
            crate::launcher::remove_stale_boxes();
            let limits = crate::cgroup::Limits { memory_bytes: Some(1 << 30), cpus_quota: quota.then_some(1.0) };
            println!("{}", crate::launcher::check_box(&limits).map_or_else(|err| err, |()| "ok".to_string()));
            Ok(0)
        }
        AgentRole::Preflight => {
            let job: super::messages::BoxedPreflight = serde_json::from_reader(std::io::stdin().lock())?;
            std::fs::create_dir_all(&job.scratch)?;
            let outcome = crate::plan::preflight::check_boxed(&job.java, &job.options, job.cpus.as_ref(), &job.limits);
            println!("{}", serde_json::to_string(&outcome)?);
            Ok(0)
        }
        AgentRole::Port => {
            println!("{}", crate::launcher::free_port()?);
            Ok(0)
        }
    }
}
