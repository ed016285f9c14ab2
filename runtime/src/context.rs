//! What one run decides before it starts and carries to every part of it, in its request:
//! the environment the command was started in, whether a CI service runs it, and what its
//! OAuth clients share (their state, the token cache folder, the secrets learned as the run
//! goes). The command builds it once ([`RunContext::of_process`]); nothing below reads the
//! process environment or a process-wide switch on its own, so two runs in one process (the
//! driver, the bindings, tests) never see each other's tokens or settings.

use crate::auth;
use crate::environment::Environment;
use crate::redact::Learned;

/// The context of one run (cheap to clone: every part is shared).
#[derive(Debug, Clone, Default)]
pub struct RunContext {
    /// The environment the command was started in (`${env.…}`, credential-like values the
    /// redactor masks, `${env.…}` in data-source settings).
    pub env: Environment,
    /// A CI service runs the command (`CI`, by [`crate::ci::is_ci`]): missing snapshots fail
    /// instead of being recorded, and nobody is asked anything at the terminal.
    pub ci: bool,
    /// What the run's OAuth clients share.
    pub auth: auth::Context,
}

impl RunContext {
    /// The context of a command started in `env`: CI from its `CI` variable, the token
    /// cache where its variables put it ([`auth::token_cache_dir`]) unless `token_cache`
    /// is false (`--no-token-cache`).
    pub fn new(env: Environment, token_cache: bool) -> RunContext {
        let ci = crate::ci::is_ci(env.get("CI"));
        let token_cache = if token_cache {
            auth::token_cache_dir(&env.lookup())
        } else {
            None
        };
        RunContext {
            ci,
            auth: auth::Context {
                token_cache,
                ..auth::Context::default()
            },
            env,
        }
    }

    /// [`RunContext::new`] of this process's environment: what a command calls once.
    pub fn of_process(token_cache: bool) -> RunContext {
        RunContext::new(Environment::of_process(), token_cache)
    }

    /// The secrets the run learns, which every redactor of the run masks.
    pub fn secrets(&self) -> &Learned {
        &self.auth.secrets
    }
}

#[cfg(test)]
mod tests {
    use super::RunContext;
    use crate::environment::Environment;

    #[test]
    fn decided_from_the_given_environment_alone() {
        let env: Environment = [("CI", "1"), ("MCPR_TOKEN_CACHE", "/tmp/tokens")]
            .into_iter()
            .collect();
        let c = RunContext::new(env.clone(), true);
        assert!(c.ci);
        assert_eq!(c.auth.token_cache.as_deref(), Some("/tmp/tokens".as_ref()));
        assert_eq!(RunContext::new(env, false).auth.token_cache, None);
        let quiet = RunContext::new(Environment::default(), true);
        assert!(!quiet.ci);
        assert_eq!(quiet.auth.token_cache, None, "no HOME, no cache folder");
    }

    #[test]
    fn two_runs_learn_apart() {
        let (a, b) = (RunContext::default(), RunContext::default());
        a.secrets().learn("token-of-run-a");
        let ra = crate::redact::Redactor::learning(a.secrets());
        let rb = crate::redact::Redactor::learning(b.secrets());
        assert_eq!(ra.text("x token-of-run-a"), "x [REDACTED]");
        assert_eq!(rb.text("x token-of-run-a"), "x token-of-run-a");
    }
}
